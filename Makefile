# rvkvm: see README.md.  'make run' and 'make check' are the entry points.

BUILD      := build
CACHE      ?= $(or $(RVKVM_CACHE),$(or $(XDG_CACHE_HOME),$(HOME)/.cache)/rvkvm)
SYSROOT    := $(BUILD)/sysroot
CROSS      := riscv64-linux-gnu-
export RVKVM_CACHE := $(CACHE)

# What riscv64 builds and the kernel wait for: 'make deps' once per make run.
# scripts/check.sh runs make again with DEPS= after 'make check' ran it.
# Native builds (unit tests, fuzzers) need only the Debian packages, never
# the riscv64 sysroot.
DEPS       := deps

WARN       := -Wall -Wextra -Werror -Wno-unused-parameter
CSTD       := -std=gnu11 -D_GNU_SOURCE -I.

# Native (x86_64) builds of the device cores and helpers for tests.
# vmm/main.c, vmm/cmd/boot.c, the run's lifecycle and control handlers
# and vmm/kvm/kvm_*.c drive RISC-V KVM and build only for riscv64.
VMM_SRCS   := $(wildcard vmm/*.c vmm/*/*.c)
CORE_SRCS  := $(filter-out vmm/main.c vmm/cmd/boot.c vmm/machine/lifecycle.c \
		vmm/machine/ctl_handlers.c vmm/machine/gdb.c vmm/machine/dump.c \
		vmm/kvm/kvm_%.c, \
		$(wildcard lib/*.c devices/*.c virtio/*.c) $(VMM_SRCS))
SAN        := -fsanitize=address,undefined -fno-sanitize-recover=all \
	      -fno-omit-frame-pointer
NATIVE_CFLAGS := $(CSTD) $(WARN) -g -O1 $(SAN)
NATIVE_LIBS := -lcmocka -lfdt -lz -luring -lseccomp -lpthread
UNIT_SRCS  := $(wildcard tests/unit/test_*.c)
UNIT_BINS  := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/native/%)
NATIVE_OBJS := $(CORE_SRCS:%.c=$(BUILD)/native/obj/%.o)

FUZZ_SRCS  := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BINS  := $(FUZZ_SRCS:tests/fuzz/%.c=$(BUILD)/fuzz/%)
FUZZ_OBJS  := $(CORE_SRCS:%.c=$(BUILD)/fuzz/obj/%.o)
FUZZ_CFLAGS := $(CSTD) $(WARN) -g -O1 -fsanitize=fuzzer-no-link,address,undefined \
	       -fno-sanitize-recover=all

# Building on the board: on a riscv64 machine (uname -m) lkvm is built with
# its own gcc against the distribution's libraries, linked dynamically, with
# no cross toolchain and no sysroot; 'make deps' only checks that the
# Debian packages of BOARD_PKGS are there.  BUILD_MACHINE=x86_64 forces the
# cross build.
BUILD_MACHINE ?= $(shell uname -m)
BOARD_PKGS := gcc make pkg-config libfdt-dev zlib1g-dev liburing-dev \
	      libseccomp-dev
PKG_CONFIG ?= pkg-config
# libfdt-dev ships no .pc file.
BOARD_PCS  := zlib liburing libseccomp

ifeq ($(BUILD_MACHINE),riscv64)
CROSS      :=
RV_CC      := gcc
RV_CFLAGS  := $(CSTD) $(WARN) -O2 -g -pthread \
	      -fstack-protector-strong -D_FORTIFY_SOURCE=2 \
	      $(shell $(PKG_CONFIG) --cflags $(BOARD_PCS) 2>/dev/null)
RV_LDFLAGS := -pthread
RV_LIBS    := -lfdt $(shell $(PKG_CONFIG) --libs $(BOARD_PCS) 2>/dev/null)
else
# riscv64 static builds: libc from Debian 12's cross toolchain, libfdt,
# zlib, liburing, libseccomp and Linux 6.12 uapi headers from the trixie
# sysroot.
RV_CC      := $(CROSS)gcc
RV_CFLAGS  := $(CSTD) $(WARN) -O2 -g -static -pthread \
	      -fstack-protector-strong -D_FORTIFY_SOURCE=2 \
	      -isystem $(SYSROOT)/usr/include/riscv64-linux-gnu \
	      -isystem $(SYSROOT)/usr/include
RV_LDFLAGS := -static -pthread -L$(SYSROOT)/usr/lib/riscv64-linux-gnu
RV_LIBS    := -lfdt -lz -luring -lseccomp
endif
LKVM_SRCS  := $(wildcard lib/*.c devices/*.c virtio/*.c) $(VMM_SRCS)

.PHONY: all deps sysroot kernel kernel-tree images lkvm riscv-tests unit \
	fuzz fuzz-check fuzz-campaign format-check e2e check check-quick run run-host bench clean kvm-selftests checkpatch passt-root stock-kernel \
	distclean install

all: lkvm kernel images

ifeq ($(BUILD_MACHINE),riscv64)
# On the board: the headers and libraries lkvm needs, or the apt-get line.
deps:
	@command -v $(RV_CC) >/dev/null && \
	 $(PKG_CONFIG) --exists $(BOARD_PCS) 2>/dev/null && \
	 echo '#include <libfdt.h>' | $(RV_CC) -E -x c - >/dev/null 2>&1 || \
	 { echo "deps: building lkvm on riscv64 needs Debian's $(BOARD_PKGS);" \
		"as root run: apt-get install $(BOARD_PKGS)" >&2; exit 2; }
else
deps:
	@scripts/deps.sh
endif

sysroot:
	@scripts/sysroot.sh

kernel: $(DEPS)
	@scripts/kernel.sh

kernel-tree: $(DEPS)
	@scripts/kernel.sh --tree-only

# --- riscv64 binaries ---------------------------------------------------

$(BUILD)/riscv64/obj/%.o: %.c | $(DEPS)
	@mkdir -p $(dir $@)
	$(RV_CC) $(RV_CFLAGS) -MMD -MP -c $< -o $@

ifneq ($(wildcard vmm/main.c),)
lkvm: $(BUILD)/riscv64/lkvm
$(BUILD)/riscv64/lkvm: $(LKVM_SRCS:%.c=$(BUILD)/riscv64/obj/%.o)
	$(RV_CC) $(RV_LDFLAGS) $^ $(RV_LIBS) -o $@
else
lkvm:
	@echo "lkvm: no VMM sources yet"
endif

BM_IMAGES := $(patsubst tests/e2e/%.S,$(BUILD)/riscv64/%.Image,\
	$(wildcard tests/e2e/bm-*.S))

riscv-tests: $(BUILD)/riscv64/kvm-smoke $(BUILD)/riscv64/sbi-probe.Image lkvm \
	     $(BM_IMAGES) $(BUILD)/images/extra.cpio \
	     $(BUILD)/riscv64/ctl-peer \
	     $(BUILD)/images/test-disk.img $(BUILD)/images/fio-root/fio passt-root \
	     $(BUILD)/images/perf-root/perf \
	     $(BUILD)/riscv64/dns-stub $(BUILD)/riscv64/vsock-peer kvm-selftests \
	     stock-kernel $(BUILD)/images/stock-root.img

# kernel-patches/ through the patched tree's checkpatch.pl --strict.
checkpatch: | $(DEPS)
	scripts/checkpatch.sh

# The KVM selftests of kernel-patches/, built in the patched kernel tree.
kvm-selftests: $(BUILD)/riscv64/kvm-selftests/plic_test
$(BUILD)/riscv64/kvm-selftests/plic_test: kernel-patches/series \
		$(wildcard kernel-patches/*.patch) scripts/kvm-selftests.sh | $(DEPS)
	scripts/kvm-selftests.sh $(BUILD)/riscv64/kvm-selftests

# Debian's riscv64 fio and the libraries it loads, for the fio verify case
# and make bench (scripts/tool-root.sh).
$(BUILD)/images/fio-root/fio: scripts/tool-root.sh scripts/riscv64-fio-packages.txt | $(DEPS)
	scripts/tool-root.sh fio $(BUILD)/images/fio-root

# Debian's riscv64 perf and its libraries, for the host-perf case and
# make bench's profile group (BENCH_ONLY=profile).
$(BUILD)/images/perf-root/perf: scripts/tool-root.sh scripts/riscv64-perf-packages.txt | $(DEPS)
	scripts/tool-root.sh perf $(BUILD)/images/perf-root

# Debian's riscv64 passt, virtiofsd, qemu-storage-daemon and qemu-img with
# their libraries for the emulated host, where lkvm runs them for user-mode
# networking, --fs and non-raw disks (scripts/passt-root.sh).
PASST_ROOT := $(BUILD)/images/passt-root/usr/bin/passt
passt-root: $(PASST_ROOT)
$(PASST_ROOT): scripts/passt-root.sh scripts/riscv64-passt-packages.txt | $(DEPS)
	scripts/passt-root.sh $(BUILD)/images/passt-root

# Debian's stock riscv64 kernel (pinned in scripts/riscv64-stock-kernel.txt)
# and its modules, for the e2e cases on a stock host and with a stock guest
# (scripts/stock-kernel.sh, run-host.sh --host-kernel stock).
STOCK_KERNEL := $(BUILD)/stock-kernel/Image
stock-kernel: $(STOCK_KERNEL)
$(STOCK_KERNEL): scripts/stock-kernel.sh scripts/riscv64-stock-kernel.txt \
		scripts/sysroot.sh | $(DEPS)
	scripts/stock-kernel.sh $(BUILD)/stock-kernel

# A root file system on ext4 for the stock guest (lkvm-stock-guest): busybox,
# /init and a test that reports the root it runs on.
$(BUILD)/images/stock-root.img: guest-images/init.sh guest-images/mkinitramfs.sh \
		tests/e2e/guest/stock-root.sh tests/e2e/disk-root/marker | $(DEPS)
	rm -rf $@.d
	guest-images/mkinitramfs.sh --dir $@.d --test tests/e2e/guest/stock-root.sh \
		--add tests/e2e/disk-root/marker:/etc/stock-root-marker
	guest-images/mkdisk.sh $@.d $@ 16M
	rm -rf $@.d

# An ext4 image for the virtio-blk end-to-end case.
$(BUILD)/images/test-disk.img: $(wildcard tests/e2e/disk-root/*)
	@mkdir -p $(dir $@)
	guest-images/mkdisk.sh tests/e2e/disk-root $@ 4M
$(BUILD)/riscv64/kvm-smoke: tests/e2e/kvm-smoke.c tests/e2e/kvm-smoke-guest.S | $(DEPS)
	@mkdir -p $(dir $@)
	$(RV_CC) $(RV_CFLAGS) $^ -o $@

# Another user at lkvm's control socket (lkvm-ctl.sh).
$(BUILD)/riscv64/ctl-peer: tests/e2e/ctl-peer.c vmm/ctl/ctl_proto.c | $(DEPS)
	@mkdir -p $(dir $@)
	$(RV_CC) $(RV_CFLAGS) $^ -o $@

# A DNS server for the user-mode network case (busybox has none).
$(BUILD)/riscv64/dns-stub: tests/e2e/dns-stub.c | $(DEPS)
	@mkdir -p $(dir $@)
	$(RV_CC) $(RV_CFLAGS) $< -o $@

# Both ends of an AF_VSOCK stream, in the host and the guest (lkvm-vsock.sh).
$(BUILD)/riscv64/vsock-peer: tests/e2e/vsock-peer.c | $(DEPS)
	@mkdir -p $(dir $@)
	$(RV_CC) $(RV_CFLAGS) $< -o $@

# A second initrd (uncompressed cpio) for the several -i case.
$(BUILD)/images/extra.cpio: $(wildcard tests/e2e/extra-root/*)
	@mkdir -p $(dir $@)
	cd tests/e2e/extra-root && find . -mindepth 1 | LC_ALL=C sort | \
		cpio -o -H newc --owner=0:0 --quiet >$(abspath $@)

# A bare-metal guest in Image format (tests/e2e/sbi-probe.S, bm-*.S).
$(BM_IMAGES): tests/e2e/bm.inc tests/e2e/bm-hang.S
$(BUILD)/riscv64/%.Image: tests/e2e/%.S | $(DEPS)
	@mkdir -p $(dir $@)
	$(RV_CC) -nostdlib -static -Wl,-Ttext=0 -Wl,--build-id=none $< -o $@.elf
	$(CROSS)objcopy -O binary -j .text $@.elf $@

# --- native unit tests and fuzzers ------------------------------------

$(BUILD)/native/obj/%.o: %.c
	@mkdir -p $(dir $@)
	gcc $(NATIVE_CFLAGS) -MMD -MP -c $< -o $@

# Compiled (-c, by the rule above: its .d lists the headers) and linked
# apart, so that ccache (the board suite's) caches the test's object too.
$(BUILD)/native/test_%: $(BUILD)/native/obj/tests/unit/test_%.o $(NATIVE_OBJS)
	@mkdir -p $(dir $@)
	gcc $(NATIVE_CFLAGS) $< $(NATIVE_OBJS) $(NATIVE_LIBS) -o $@

# A test that includes a riscv64-only file to run it against fakes.
$(BUILD)/native/obj/tests/unit/test_gdb_server.o: vmm/machine/gdb.c vmm/machine/gdb.h

unit: $(UNIT_BINS)

$(BUILD)/fuzz/obj/%.o: %.c
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) -MMD -MP -c $< -o $@

# -MMD: a target is rebuilt when a header it includes (fuzz_virtio_util.h)
# changes.
$(BUILD)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_OBJS)
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) -MMD -MP -MF $@.d -fsanitize=fuzzer $(filter %.c %.o,$^) -lfdt -lz -luring -lseccomp -lpthread -o $@

fuzz-check: $(FUZZ_BINS)

# Long fuzzing: FUZZ_SECONDS per target (default 300).
fuzz: $(FUZZ_BINS)
	@scripts/fuzz.sh long $(FUZZ_BINS)

# Each target to FUZZ_RUNS executions (default 10 000 000) within
# FUZZ_BUDGET seconds for all (default 3600); a table at the end.
fuzz-campaign: $(FUZZ_BINS)
	@scripts/fuzz.sh campaign $(FUZZ_BINS)

# --- images, tests, run -------------------------------------------------

images: $(DEPS)
	@guest-images/mkinitramfs.sh -o $(BUILD)/images/guest-initramfs.cpio.gz

# Every C file in git against .clang-format ('clang-format -i FILE' fixes).
format-check:
	@command -v clang-format >/dev/null || \
		{ echo "format-check: clang-format is not installed" >&2; exit 2; }
	@git ls-files -z '*.c' '*.h' | \
		xargs -0 clang-format --style=file --dry-run -Werror

# check.sh builds what each suite needs (native suites before the kernel).
check: $(DEPS)
	@MAKE="$(MAKE)" scripts/check.sh

# The inner loop: format, unit, short fuzz runs, one e2e boot per host kind.
check-quick: $(DEPS)
	@MAKE="$(MAKE)" CHECK_QUICK=1 scripts/check.sh format unit fuzz e2e

e2e: $(DEPS)
	@MAKE="$(MAKE)" scripts/check.sh e2e

run: $(DEPS) kernel lkvm passt-root
	@scripts/run-host.sh --lkvm --interactive --test scripts/host-run-guest.sh

# Figures, not tests: lkvm start -> guest init, peak RSS.
bench: $(DEPS) kernel lkvm passt-root $(BUILD)/riscv64/vsock-peer \
	$(BUILD)/riscv64/bm-exit.Image
	@scripts/bench.sh

# The emulated host alone, with lkvm and the images in /rvkvm.
run-host: $(DEPS) kernel lkvm passt-root
	@scripts/run-host.sh --lkvm

# Install lkvm (the static riscv64 binary; built on the board, the dynamic
# one) and its man page: PREFIX
# (default /usr/local), or BINDIR and MANDIR; DESTDIR for a staging root.
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
install: lkvm
	install -d "$(DESTDIR)$(BINDIR)" "$(DESTDIR)$(MANDIR)/man1"
	install -m 0755 $(BUILD)/riscv64/lkvm "$(DESTDIR)$(BINDIR)/lkvm"
	install -m 0644 docs/lkvm.1 "$(DESTDIR)$(MANDIR)/man1/lkvm.1"

clean:
	rm -rf $(BUILD)

# Also drop the cached kernels, kernel trees and sysroot.
distclean: clean
	rm -rf $(CACHE)

.SECONDARY:

# Not build/board: the riscv64 chroot of the board suite (its /etc/*.d, its
# own build tree).
-include $(shell find $(BUILD) -path $(BUILD)/board -prune -o \
	-name '*.d' -type f -print 2>/dev/null)

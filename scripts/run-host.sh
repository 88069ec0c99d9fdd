#!/bin/bash
# run-host.sh [options]: boot the emulated RISC-V KVM host in
# qemu-system-riscv64 (TCG, H extension) with the rvkvm kernel and a host
# initramfs.
#
#   --aia             give the host an AIA (APLIC + IMSIC) instead of a PLIC
#                     (QEMU 10 or newer)
#   --host-kernel K   the host's kernel: "rvkvm" (default: build/kernel/Image,
#                     everything built in) or "stock" (Debian's riscv64
#                     kernel, 'make stock-kernel': its KVM, tun, vhost-net
#                     and vhost-vsock modules go into the host image and its
#                     /init loads them); the host's command line says
#                     rvkvm.host-kernel=K.  lkvm's guests keep the rvkvm
#                     kernel (/rvkvm/Image) either way
#   --test SCRIPT     run SCRIPT in the host instead of a shell; the exit
#                     status of run-host.sh is then SCRIPT's exit status
#   --interactive     with --test: SCRIPT gets this terminal (make run)
#   --add SRC:DEST    add a file or directory to the host image (repeatable)
#   --lkvm            add lkvm (/rvkvm/lkvm), the kernel (/rvkvm/Image), a
#                     guest initramfs with a shell (/rvkvm/guest.cpio.gz)
#                     passt (/usr/bin/passt: lkvm's user-mode network)
#                     virtiofsd (/usr/libexec/virtiofsd: lkvm's --fs),
#                     qemu-storage-daemon and qemu-img (/usr/bin: lkvm's
#                     qcow2 disks), with their loader and libraries
#                     ('make passt-root')
#   --guest-test S    also add a guest initramfs that runs script S, as
#                     /rvkvm/guest-<S without .sh>.cpio.gz (repeatable);
#                     implies --lkvm
#   --guest-add SRC:DEST  add a file or directory to every --guest-test
#                     initramfs (repeatable; fio is added this way)
#   --timeout SEC     kill QEMU after SEC seconds (default 300; 0 = none);
#                     exit status 124 on timeout
#   --log FILE        also write the console to FILE
#   --append ARGS     extra kernel command line arguments
#   --smp N, --mem M  host CPUs (default 2) and memory (default 2G)
#   --disk FILE       (re)create FILE as an empty 64 MiB ext4 file system
#                     and give it to the host as its virtio disk /dev/vda;
#                     QEMU cache=writeback:
#                     FILE gets what the host's kernel writes out, and the
#                     host's flushes become fdatasync of FILE
#   --hostfwd H:G     give the host a user-mode NIC (eth0; QEMU's slirp:
#                     the test sets 10.0.2.15/24 itself) whose TCP port G is
#                     reachable at 127.0.0.1:H of this machine; the console
#                     is then written line by line (a build-machine
#                     driver, tests/e2e/NAME.during, watches it)
#   --kill-on TEXT    with --test: kill QEMU with SIGKILL as soon as TEXT is
#                     on the console (the host's RAM, its page cache with it,
#                     is lost); exit status 0 then, 125 if TEXT never came
#
# Interactive (no --test): the console is on this terminal; Ctrl-A x
# leaves QEMU.  Exit statuses: the test's own status, 124 timeout, 125 the
# host stopped without reporting a result, 2 usage or missing build output.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

usage() {
	sed -n '/^set /q; 2,$s/^# \{0,1\}//p' "$0" >&2
	exit 2
}

aia=0 host_kernel=rvkvm lkvm=0 interactive=0 test= timeout=300 log= append= smp=2 mem=2G
disk= kill_on= hostfwd=
adds=() guest_tests=() guest_adds=() host_adds=()
while [ $# -gt 0 ]; do
	case "$1" in
	--aia) aia=1; shift ;;
	--host-kernel) host_kernel=$2; shift 2 ;;
	--test) test=$2; shift 2 ;;
	--add) adds+=(--add "$2"); shift 2 ;;
	--lkvm) lkvm=1; shift ;;
	--interactive) interactive=1; shift ;;
	--guest-test) lkvm=1; guest_tests+=("$2"); shift 2 ;;
	--guest-add) guest_adds+=(--add "$2"); shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	--log) log=$2; shift 2 ;;
	--append) append=$2; shift 2 ;;
	--smp) smp=$2; shift 2 ;;
	--mem) mem=$2; shift 2 ;;
	--disk) disk=$2; shift 2 ;;
	--kill-on) kill_on=$2; shift 2 ;;
	--hostfwd) hostfwd=$2; shift 2 ;;
	-h|--help) usage ;;
	*) echo "run-host: unknown option $1" >&2; usage ;;
	esac
done

kernel=$RVKVM_BUILD/kernel/Image
[ -f "$kernel" ] || { echo "run-host: no kernel at $kernel (run 'make kernel')" >&2; exit 2; }
case "$host_kernel" in
rvkvm) host_image=$kernel ;;
stock)
	stock=$RVKVM_BUILD/stock-kernel
	host_image=$stock/Image
	[ -f "$host_image" ] && [ -f "$stock/host-modules/etc/modules" ] ||
		{ echo "run-host: no stock kernel in $stock (run 'make stock-kernel')" >&2; exit 2; }
	# Added last (below): /lib may come from passt-root first, and an
	# --add of a directory onto one that exists lands inside it.
	host_adds=(--add "$stock/host-modules/lib/modules:/lib/modules"
		--add "$stock/host-modules/etc/modules:/etc/modules") ;;
*) echo "run-host: --host-kernel is rvkvm or stock, not $host_kernel" >&2; exit 2 ;;
esac
[ -z "$test" ] || [ -f "$test" ] || { echo "run-host: no test script $test" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/rvkvm-host.XXXXXX")
trap 'rm -rf "$work"' EXIT
initrd=$work/host-initramfs.cpio.gz
if [ $lkvm -eq 1 ]; then
	lkvm_bin=$RVKVM_BUILD/riscv64/lkvm
	[ -x "$lkvm_bin" ] || { echo "run-host: no lkvm at $lkvm_bin (run 'make lkvm')" >&2; exit 2; }
	passt=$RVKVM_BUILD/images/passt-root
	[ -x "$passt/usr/bin/passt" ] || { echo "run-host: no passt in $passt (run 'make passt-root')" >&2; exit 2; }
	"$RVKVM_TOP/guest-images/mkinitramfs.sh" -o "$work/guest.cpio.gz"
	adds+=(--add "$lkvm_bin:/rvkvm/lkvm" --add "$kernel:/rvkvm/Image"
		--add "$work/guest.cpio.gz:/rvkvm/guest.cpio.gz"
		--add "$passt/usr/bin/passt:/usr/bin/passt"
		--add "$passt/usr/libexec/virtiofsd:/usr/libexec/virtiofsd"
		--add "$passt/usr/bin/qemu-storage-daemon:/usr/bin/qemu-storage-daemon"
		--add "$passt/usr/bin/qemu-img:/usr/bin/qemu-img"
		--add "$passt/lib:/lib")
fi
for g in "${guest_tests[@]}"; do
	name=guest-$(basename "$g" .sh).cpio.gz
	"$RVKVM_TOP/guest-images/mkinitramfs.sh" -o "$work/$name" --test "$g" \
		${guest_adds[@]+"${guest_adds[@]}"}
	adds+=(--add "$work/$name:/rvkvm/$name")
done
"$RVKVM_TOP/guest-images/mkinitramfs.sh" -o "$initrd" ${adds[@]+"${adds[@]}"} \
	${host_adds[@]+"${host_adds[@]}"} ${test:+--test "$test"}

# QEMU 10 (smaia/ssaia; QEMU 7.2 called them x-smaia/x-ssaia).  The host
# learns which interrupt controller it was given from rvkvm.irqchip=.
machine=virt cpu=rv64 irqchip=plic
if [ $aia -eq 1 ]; then
	machine=virt,aia=aplic-imsic,aia-guests=3
	cpu=rv64,smaia=true,ssaia=true
	irqchip=aia
fi
cmdline="console=ttyS0 earlycon=sbi rvkvm.role=host rvkvm.irqchip=$irqchip"
cmdline+=" rvkvm.host-kernel=$host_kernel panic=-1 $append"
qemu=(qemu-system-riscv64 -M "$machine" -cpu "$cpu" -smp "$smp" -m "$mem"
	-nographic -no-reboot -kernel "$host_image" -initrd "$initrd"
	-append "$cmdline")
if [ -n "$disk" ]; then
	mkdir -p "$(dirname "$disk")"
	rm -f "$disk"
	truncate -s 64M "$disk"
	mkfs.ext4 -q "$disk"
	echo "run-host: host disk /dev/vda is $disk"
	qemu+=(-drive "file=$disk,format=raw,if=none,id=hd0,cache=writeback"
		-device virtio-blk-device,drive=hd0)
fi
if [ -n "$hostfwd" ]; then
	qemu+=(-netdev "user,id=n0,hostfwd=tcp:127.0.0.1:${hostfwd%%:*}-:${hostfwd#*:}"
		-device virtio-net-device,netdev=n0)
fi

if [ -z "$test" ] || [ $interactive -eq 1 ]; then
	echo "run-host: booting the emulated RISC-V KVM host; Ctrl-A x leaves QEMU"
	"${qemu[@]}"
	exit
fi

out=$work/console.log
t0=$(date +%s)
status=0
# No stdin for tests; the console goes to our stdout and the log.
timeout_cmd=()
[ "$timeout" -gt 0 ] && timeout_cmd=(timeout -k 5 "$timeout")
if [ -n "$kill_on" ]; then
	# QEMU writes its pid; the watcher polls the console for TEXT.
	qemu+=(-pidfile "$work/qemu.pid")
	(
		while ! grep -qF -- "$kill_on" "$out" 2>/dev/null; do
			sleep 0.05
		done
		kill -KILL "$(cat "$work/qemu.pid")" && touch "$work/killed"
	) &
	watcher=$!
	# tr writes each line at once, not when its buffer fills.
	tr=(stdbuf -oL tr)
elif [ -n "$hostfwd" ]; then
	tr=(stdbuf -oL tr)
else
	tr=(tr)
fi
"${timeout_cmd[@]}" "${qemu[@]}" </dev/null 2>&1 | "${tr[@]}" -d '\r' | tee "$out" || status=$?
[ -n "$log" ] && cp "$out" "$log"
elapsed=$(($(date +%s) - t0))
if [ -n "$kill_on" ]; then
	kill "$watcher" 2>/dev/null || true
	wait "$watcher" 2>/dev/null || true
	if [ -e "$work/killed" ]; then
		echo "run-host: killed QEMU (SIGKILL) at \"$kill_on\" after ${elapsed} s"
		exit 0
	fi
fi
if [ $status -eq 124 ] || [ $status -eq 137 ]; then
	echo "run-host: timed out after ${timeout} s" >&2
	exit 124
fi
result=$(sed -n 's/^.*rvkvm-host-result: \([0-9]*\).*$/\1/p' "$out" | tail -1)
if [ -z "$result" ]; then
	echo "run-host: the host stopped after ${elapsed} s without reporting a result" >&2
	exit 125
fi
echo "run-host: test exited with status $result after ${elapsed} s"
exit "$result"

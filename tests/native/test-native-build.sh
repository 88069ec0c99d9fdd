#!/bin/bash
# test-native-build.sh: lkvm built on riscv64 itself, as on a board, in a
# Debian 13 riscv64 chroot run through qemu-user (scripts/riscv64-chroot.sh:
# the Essential packages, gcc, make, pkg-config and the -dev packages of
# README's "building on the board", nothing of the cross toolchain or the
# sysroot).  Into it go the repository's tracked files; there 'make lkvm'
# builds natively, 'make install DESTDIR=...' installs, the installed lkvm
# answers --help, version and run --help, refuses a file that is no kernel
# and a run without /dev/kvm (of a bare-metal Image assembled there), and
# the cmocka unit tests are built natively (without sanitizers: SAN=) and
# run.  Prints "PASS name" / "FAIL name" / "SKIP name" lines (the unit
# tests' as unit/BINARY/TEST; the failures qemu-user causes, listed in
# tests/native/qemu-user-limits, as SKIP with the reason); a line
# "error: ..." says why the chroot could not be made.  Needs root.
#
# The compiler runs through ccache (/usr/lib/ccache first on PATH, as
# Debian sets it up), its cache in $RVKVM_CACHE/board-ccache, so that a
# run compiles only what changed since the last (BOARD_CCACHE=0: without).
# NATIVE_UNIT=0 leaves out the unit tests (then "SKIP unit").  The logs of
# the build in the chroot are in $RVKVM_BUILD/board/out.
set -uo pipefail
. "$(dirname "$0")/../pass-fail.sh"
. "$top/scripts/lib.sh"

board=$RVKVM_BUILD/board
root=$board/root
out=$board/out
ccache_dir=$RVKVM_CACHE/board-ccache
rm -rf "$board"
mkdir -p "$out" "$ccache_dir"

if ! "$top/scripts/riscv64-chroot.sh" "$root" >"$out/chroot.log" 2>&1; then
	grep '^error: ' "$out/chroot.log" | tail -1
	echo "FAIL chroot"
	exit 0
fi
cat "$out/chroot.log"
echo "PASS chroot"

# The tracked files, as they are in the work tree.
mkdir -p "$root/src" "$root/ccache" "$root/out"
git -C "$top" ls-files -z |
	tar -C "$top" --null -T - --ignore-failed-read -cf - 2>/dev/null |
	tar -C "$root/src" -xf -

cat >"$root/run.sh" <<'EOF'
#!/bin/sh
# In the chroot: each step's output in /out/STEP.log, its status in
# /out/STEP.rc, its time in /out/STEP.secs.
step() {
	name=$1
	shift
	t0=$(date +%s)
	"$@" >/out/"$name".log 2>&1
	echo $? >/out/"$name".rc
	echo $(($(date +%s) - t0)) >/out/"$name".secs
}
cd /src || exit 1
uname -m >/out/uname
# This run's hits and misses, not the cache's whole history.
ccache -z >/dev/null 2>&1
step build make -j"$(nproc)" lkvm
step install make install DESTDIR=/stage PREFIX=/usr
lkvm=/stage/usr/bin/lkvm
step help "$lkvm" --help
step version "$lkvm" version
step run-help "$lkvm" run --help
step run-bad-kernel "$lkvm" run -k /src/README.md
step bm-image make build/riscv64/bm-exit.Image
step run-no-kvm "$lkvm" run -k build/riscv64/bm-exit.Image
[ "$NATIVE_UNIT" != 0 ] || exit 0
step unit-build make -k -j"$(nproc)" SAN= unit
# Two at a time on two cores (each test makes its own temporary files).
t0=$(date +%s)
ls build/native/test_* 2>/dev/null | xargs -P "$(nproc)" -n 1 sh -c '
	[ -x "$1" ] || exit 0
	CMOCKA_MESSAGE_OUTPUT=tap "$1" >/out/unit-"${1##*/test_}".tap 2>&1
	echo $? >/out/unit-"${1##*/test_}".rc' sh
echo $(($(date +%s) - t0)) >/out/unit-run.secs
ccache -s >/out/ccache.log 2>&1
ccache --print-stats >/out/ccache.stats 2>&1
EOF

path=/usr/sbin:/usr/bin:/sbin:/bin
[ "${BOARD_CCACHE:-1}" = 0 ] || path=/usr/lib/ccache:$path
t0=$(date +%s)
# proc, sysfs, a private devpts (the pty tests), a tmpfs /dev/shm and the
# ccache directory, in a mount namespace of the chroot's own: all go when
# it ends.
unshare --mount --propagation private -- /bin/sh -c '
	mount -t proc proc "$1/proc" &&
	mount -t sysfs -o ro sysfs "$1/sys" &&
	mount -t devpts -o newinstance,ptmxmode=0666 devpts "$1/dev/pts" &&
	mount -t tmpfs tmpfs "$1/dev/shm" &&
	mount --bind "$4" "$1/ccache" &&
	exec chroot "$1" /usr/bin/env -i PATH="$3" HOME=/root LANG=C.UTF-8 \
		CCACHE_DIR=/ccache CCACHE_MAXSIZE=1G NATIVE_UNIT="$2" \
		/bin/sh /run.sh' \
	sh "$root" "${NATIVE_UNIT:-1}" "$path" "$ccache_dir" >"$out/run.log" 2>&1
cp -a "$root/out/." "$out/"
secs() { cat "$out/$1.secs" 2>/dev/null || echo -; }
# This run's compiles found in the cache and compiled, and the links
# (never cached: every binary is linked afresh).
cc=$(awk -F '\t' '$1 ~ /^(direct|preprocessed)_cache_hit$/ { h += $2 }
	$1 == "cache_miss" { m = $2 } $1 == "called_for_link" { l = $2 }
	END { if (NR) printf "; ccache: %d hits, %d misses, %d links", h, m, l }' \
	"$out/ccache.stats" 2>/dev/null)
echo "chroot run: $(($(date +%s) - t0)) s (make lkvm $(secs build) s, unit tests: build $(secs unit-build) s, run $(secs unit-run) s$cc)"
grep -i 'hits\|misses\|uncacheable' "$out/ccache.log" 2>/dev/null

rc() { [ "$(cat "$out/$1.rc" 2>/dev/null)" = "$2" ]; }
has() { grep -q -- "$2" "$out/$1.log" 2>/dev/null; }
lkvm=$root/stage/usr/bin/lkvm
version=$(sed -n 's/^#define LKVM_VERSION "\(.*\)"$/\1/p' "$top/vmm/cmd/run_cli.h")

t uname-riscv64 test "$(cat "$out/uname" 2>/dev/null)" = riscv64
t build-status rc build 0
# The board's own gcc and libraries: no cross compiler, no sysroot.
t build-native-gcc grep -q '^gcc .* -c vmm/main.c' "$out/build.log"
t build-no-cross bash -c "! grep -q 'riscv64-linux-gnu-\|sysroot\|-static' '$out/build.log'"
t build-no-sysroot test ! -e "$root/src/build/sysroot"
# Only README's packages: no header lkvm's objects were built from (their
# .d files) belongs to the packages the chroot has for the tests.
extra=$(cat "$root"/var/lib/dpkg/info/{libcmocka-dev,device-tree-compiler,ccache}{,:riscv64}.list 2>/dev/null | sort -u)
used=$(find "$root/src/build/riscv64/obj" -name '*.d' -exec cat {} + 2>/dev/null |
	tr ' \\' '\n\n' | grep '^/' | sort -u)
t build-needs-only-readme-packages test -z "$(comm -12 <(echo "$extra") <(echo "$used"))"
t install-status rc install 0
t install-lkvm-riscv64-dynamic bash -c "file '$lkvm' | grep -q 'RISC-V.*dynamically linked'"
for lib in libfdt.so libz.so liburing.so libseccomp.so; do
	t "install-lkvm-needs-$lib" bash -c \
		"readelf -d '$lkvm' | grep -q 'NEEDED.*\[$lib'"
done
t install-lkvm-mode-755 test "$(stat -c %a "$lkvm" 2>/dev/null)" = 755
t install-man-page cmp -s "$top/docs/lkvm.1" "$root/stage/usr/share/man/man1/lkvm.1"
t lkvm-help rc help 0
t lkvm-help-usage has help '^usage: lkvm COMMAND'
t lkvm-help-lists-run has help '^  run '
t lkvm-version rc version 0
t lkvm-version-text test "$(cat "$out/version.log" 2>/dev/null)" = "lkvm version $version"
t lkvm-run-help rc run-help 0
t lkvm-run-help-exit-statuses has run-help '124'
t lkvm-run-bad-kernel rc run-bad-kernel 1
t lkvm-run-bad-kernel-says-why has run-bad-kernel 'README.md: not a RISC-V Image'
# A bare-metal guest Image assembled natively; no /dev/kvm in the chroot:
# status 1 and one line naming it.
t bm-image rc bm-image 0
t lkvm-run-no-kvm rc run-no-kvm 1
t lkvm-run-no-kvm-says-why has run-no-kvm 'cannot open /dev/kvm'

if [ "${NATIVE_UNIT:-1}" = 0 ]; then
	echo "SKIP unit"
	rm -rf "$root"
	exit 0
fi
t unit-build rc unit-build 0
nsrc=$(find "$top/tests/unit" -name 'test_*.c' | wc -l)
nrun=$(find "$out" -name 'unit-*.tap' | wc -l)
t unit-all-binaries-ran test "$nsrc" -eq "$nrun"
for f in "$out"/unit-*.tap; do
	[ -e "$f" ] || continue
	name=${f##*/unit-}
	name=${name%.tap}
	# cmocka's TAP: "ok N - test", "not ok N - test", a skip as "not ok
	# N # SKIP test" or "ok N - test # SKIP".  The binary fails when it
	# printed fewer results than its plan (it crashed) or exited non-zero
	# with no test failed.
	awk -v b="$name" -v rc="$(cat "$out/unit-$name.rc")" '
		NR == FNR { if ($0 !~ /^#/ && NF) why[$1] = substr($0, length($1) + 2); next }
		/^1\.\.[0-9]+$/ { plan = substr($0, 4) }
		/^(not )?ok [0-9]+ # [Ss][Kk][Ii][Pp]/ { print "SKIP unit/" b "/" $NF; n++; next }
		/^ok [0-9]+ - .*# [Ss][Kk][Ii][Pp]/ { print "SKIP unit/" b "/" $4; n++; next }
		/^ok [0-9]+ - / { print "PASS unit/" b "/" $4; n++; next }
		/^not ok [0-9]+ - / {
			n++; bad++
			if ((b "/" $5) in why)
				print "SKIP unit/" b "/" $5 " (under qemu-user: " why[b "/" $5] ")"
			else
				print "FAIL unit/" b "/" $5
		}
		END {
			if (n != plan || (rc != 0 && !bad))
				print "FAIL unit/" b " (" n " of " plan " results, status " rc ")"
		}' "$top/tests/native/qemu-user-limits" "$f"
done
rm -rf "$root"
exit 0

#!/bin/bash
# test-native-build.sh: lkvm built on riscv64 itself, as on a board, in a
# Debian 13 riscv64 chroot run through qemu-user (scripts/riscv64-chroot.sh:
# the Essential packages, gcc, make, pkg-config and the -dev packages of
# README's "building on the board", nothing of the cross toolchain or the
# sysroot).  Into it go the repository's tracked files; there 'make lkvm'
# builds natively, 'make install DESTDIR=...' installs, the installed lkvm
# answers --help, version and run --help and refuses a run without
# /dev/kvm, and the cmocka unit tests are built natively (without
# sanitizers: SAN=) and run.  Prints "PASS name" / "FAIL name" / "SKIP
# name" lines (the unit tests' as unit/BINARY/TEST); a line "error: ..."
# says why the chroot could not be made.  Needs root.
#
# NATIVE_UNIT=0 leaves out the unit tests (then "SKIP unit").  The chroot
# and the logs of the build in it are in $RVKVM_BUILD/board (out/).
set -uo pipefail
. "$(dirname "$0")/../pass-fail.sh"
. "$top/scripts/lib.sh"

board=$RVKVM_BUILD/board
root=$board/root
out=$board/out
rm -rf "$board"
mkdir -p "$out"

if ! "$top/scripts/riscv64-chroot.sh" "$root" >"$out/chroot.log" 2>&1; then
	grep '^error: ' "$out/chroot.log" | tail -1
	echo "FAIL chroot"
	exit 0
fi
cat "$out/chroot.log"
echo "PASS chroot"

# The tracked files, as they are in the work tree.
mkdir -p "$root/src"
git -C "$top" ls-files -z |
	tar -C "$top" --null -T - --ignore-failed-read -cf - 2>/dev/null |
	tar -C "$root/src" -xf -

cat >"$root/run.sh" <<'EOF'
#!/bin/sh
# In the chroot: each step's output in /out/STEP.log, its status in
# /out/STEP.rc.
step() {
	name=$1
	shift
	"$@" >/out/"$name".log 2>&1
	echo $? >/out/"$name".rc
}
cd /src || exit 1
uname -m >/out/uname
step build make -j"$(nproc)" lkvm
step install make install DESTDIR=/stage PREFIX=/usr
lkvm=/stage/usr/bin/lkvm
step help "$lkvm" --help
step version "$lkvm" version
step run-help "$lkvm" run --help
step run-no-kvm "$lkvm" run -k /src/README.md
if [ "$NATIVE_UNIT" != 0 ]; then
	start=$(date +%s)
	step unit-build make -j"$(nproc)" SAN= unit
	echo $(($(date +%s) - start)) >/out/unit-build.secs
	for t in build/native/test_*; do
		[ -x "$t" ] || continue
		CMOCKA_MESSAGE_OUTPUT=tap "$t" >/out/unit-"${t##*/test_}".tap 2>&1
		echo $? >/out/unit-"${t##*/test_}".rc
	done
	echo $(($(date +%s) - start)) >/out/unit.secs
fi
EOF

t0=$(date +%s)
mkdir -p "$root/out"
# proc and a private devpts (the pty tests) in a mount namespace of the
# chroot's own: both go when it ends.
unshare --mount --propagation private -- /bin/sh -c '
	mount -t proc proc "$1/proc" &&
	mount -t devpts -o newinstance,ptmxmode=0666 devpts "$1/dev/pts" &&
	exec chroot "$1" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/root LANG=C.UTF-8 NATIVE_UNIT="$2" /bin/sh /run.sh' \
	sh "$root" "${NATIVE_UNIT:-1}" >"$out/run.log" 2>&1
echo "chroot run: $(($(date +%s) - t0)) s (unit tests: build $(cat "$root/out/unit-build.secs" 2>/dev/null || echo -) s, build and run $(cat "$root/out/unit.secs" 2>/dev/null || echo -) s)"
cp -a "$root/out/." "$out/"

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
t lkvm-version-text test "$(cat "$out/version.log")" = "lkvm version $version"
t lkvm-run-help rc run-help 0
t lkvm-run-help-exit-statuses has run-help '124'
# No /dev/kvm in the chroot: status 1 and one line naming it.
t lkvm-run-no-kvm rc run-no-kvm 1
t lkvm-run-no-kvm-says-why has run-no-kvm '/dev/kvm'

if [ "${NATIVE_UNIT:-1}" = 0 ]; then
	echo "SKIP unit"
else
	t unit-build rc unit-build 0
	nsrc=$(find "$top/tests/unit" -name 'test_*.c' | wc -l)
	nrun=$(find "$out" -name 'unit-*.rc' | wc -l)
	t unit-all-binaries-ran test "$nsrc" -eq "$nrun"
	for f in "$out"/unit-*.tap; do
		[ -e "$f" ] || continue
		name=${f##*/unit-}
		name=${name%.tap}
		# cmocka's TAP: "ok N - test", "not ok N - test", a skip as
		# "not ok N # SKIP test" or "ok N - test # SKIP".
		awk -v b="$name" '
			/^(not )?ok [0-9]+ # [Ss][Kk][Ii][Pp]/ { print "SKIP unit/" b "/" $NF; next }
			/^ok [0-9]+ - .*# [Ss][Kk][Ii][Pp]/ { print "SKIP unit/" b "/" $4; next }
			/^ok [0-9]+ - / { print "PASS unit/" b "/" $4; next }
			/^not ok [0-9]+ - / { print "FAIL unit/" b "/" $5; n++ }
			END { exit n > 0 }' "$f"
		nfail=$?
		# A crash ends the binary early: its status without a failed test.
		if [ "$(cat "$out/unit-$name.rc")" != 0 ] && [ $nfail -eq 0 ]; then
			echo "FAIL unit/$name"
		fi
	done
fi
rm -rf "$root"
exit 0

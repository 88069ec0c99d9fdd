#!/bin/bash
# Tests of the image recipes: the initramfs carries busybox, /init, files
# given with --add and the --test script; mkdisk.sh makes an ext4 image
# holding a directory.  Prints "PASS name" / "FAIL name" lines.
set -uo pipefail
. "$(dirname "$0")/../pass-fail.sh"
echo "payload-1" >"$tmp/payload"
printf '#!/bin/sh\necho hi\n' >"$tmp/test.sh"
"$top/guest-images/mkinitramfs.sh" -o "$tmp/i.cpio.gz" \
	--add "$tmp/payload:/opt/payload" --test "$tmp/test.sh"
t initramfs-built test -s "$tmp/i.cpio.gz"
mkdir "$tmp/x" && (cd "$tmp/x" && zcat "$tmp/i.cpio.gz" | cpio -id --quiet 2>/dev/null)
t initramfs-has-init test -x "$tmp/x/init"
# A syntax error in /init would show only after a kernel build and a boot.
t initramfs-init-parses sh -n "$tmp/x/init"
t initramfs-has-riscv64-busybox bash -c "file '$tmp/x/bin/busybox' | grep -q 'RISC-V'"
t initramfs-has-added-file diff -q "$tmp/payload" "$tmp/x/opt/payload"
t initramfs-has-test-script diff -q "$tmp/test.sh" "$tmp/x/rvkvm/test"
"$top/guest-images/mkinitramfs.sh" -o "$tmp/bad.cpio.gz" --add "$tmp/missing:/x" 2>"$tmp/err"
t initramfs-missing-add-fails test $? -ne 0
t initramfs-missing-add-named grep -q "$tmp/missing does not exist" "$tmp/err"
t initramfs-missing-add-no-output test ! -e "$tmp/bad.cpio.gz"

# --dir: the same tree, not archived (a disk's root).
"$top/guest-images/mkinitramfs.sh" --dir "$tmp/d" --add "$tmp/payload:/etc/payload" \
	--test "$tmp/test.sh"
t initramfs-dir-has-init diff -q "$top/guest-images/init.sh" "$tmp/d/init"
t initramfs-dir-has-busybox test -x "$tmp/d/bin/busybox"
t initramfs-dir-has-added-file diff -q "$tmp/payload" "$tmp/d/etc/payload"
t initramfs-dir-has-test-script diff -q "$tmp/test.sh" "$tmp/d/rvkvm/test"

mkdir -p "$tmp/root/etc"
echo "disk-content-42" >"$tmp/root/etc/marker"
"$top/guest-images/mkdisk.sh" "$tmp/root" "$tmp/disk.img" 16M
t mkdisk-size test "$(stat -c %s "$tmp/disk.img")" -eq $((16 << 20))
t mkdisk-ext4 bash -c "file '$tmp/disk.img' | grep -q 'ext4 filesystem'"
t mkdisk-content bash -c "debugfs -R 'cat /etc/marker' '$tmp/disk.img' 2>/dev/null | grep -qx disk-content-42"

#!/bin/sh
# Runs in the emulated host: lkvm boots Debian's stock riscv64 kernel
# (stock-Image, 'make stock-kernel'; stock-release is its uname -r) as its
# guest.  To the init of an initramfs on lkvm's default console (the
# serial port: console=ttyS0, the 8250 driver is built in), and on the
# virtio console (--console virtio: console=hvc0); then, with 2 vCPUs and
# a second initrd holding its virtio-blk, ext4 and crc32c modules
# (stock-modules.cpio.gz), which the initramfs's /init loads before it
# mounts the ext4 root on the virtio-blk disk (rvkvm.root=) and runs the
# disk's /init (stock-root.img: a marker the initramfs lacks).
. ./lib.sh

release=$(cat stock-release)

# quiet: the kernel's late messages would land inside the lines checked.
lkvm /tmp/init.log -k stock-Image -i guest-hello.cpio.gz -m 256 -c 1 -p quiet
t stock-guest-init-status [ $rc -eq 0 ]
t stock-guest-init-kernel has "rvkvm-init: guest up after .*: Linux $release, 1 cpu(s)" /tmp/init.log
t stock-guest-init-serial-console has "guest-console: ttyS0" /tmp/init.log
t stock-guest-init-poweroff has "rvkvm-guest-result: 0" /tmp/init.log

# kvmtool's virtio console line: console=hvc0 is the virtio console on a
# kernel without the SBI hvc driver, as this one.
lkvm /tmp/vc.log --console virtio -k stock-Image -i guest-hello.cpio.gz -m 256 -c 1 \
	-p quiet
t stock-guest-virtio-console-status [ $rc -eq 0 ]
t stock-guest-virtio-console-is-hvc0 has "guest-console: hvc0" /tmp/vc.log
t stock-guest-virtio-console-bound has "guest-virtio-consoles: 1" /tmp/vc.log

cp stock-root.img /tmp/root.img
lkvm /tmp/root.log -k stock-Image -i guest.cpio.gz -i stock-modules.cpio.gz \
	-d /tmp/root.img -p "quiet rvkvm.root=/dev/vda" -m 256 -c 2
t stock-guest-disk-root-status [ $rc -eq 0 ]
t stock-guest-modules-loaded has \
	"guest-modules: crc16 crc32c_generic ext4 jbd2 mbcache virtio_blk $" /tmp/root.log
t stock-guest-virtio-blk-bound has "guest-vda-driver: virtio_blk$" /tmp/root.log
t stock-guest-root-is-vda-ext4 has "guest-root: /dev/vda ext4" /tmp/root.log
t stock-guest-root-kernel has "guest-kernel: $release" /tmp/root.log
t stock-guest-root-both-harts has "rvkvm-init: guest up after .*: Linux $release, 2 cpu(s)" /tmp/root.log
t stock-guest-root-marker has "guest-root-marker: rvkvm-ext4-marker" /tmp/root.log
t stock-guest-root-poweroff has "rvkvm-guest-result: 0" /tmp/root.log
exit $fail

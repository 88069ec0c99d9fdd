#!/bin/sh
# Runs in the emulated host: the interrupt delivery path of the case's
# interrupt controller and virtio transport (./irqchip: lkvm's options),
# for every device kind at once: one guest with 2 vCPUs, a disk, a tap
# NIC, virtio-rng, a 9p share and a balloon takes console input, reads
# back what it wrote to the disk, pings the host, reads random bytes and
# the share, writes to the share, then reboots and does disk, NIC and
# console input again.  The full device scripts run on the host's default
# path (lkvm-boot, lkvm-disk, lkvm-net, ...); this case runs on the others.
. ./lib.sh

dd if=/dev/zero of=/tmp/m.img bs=1 count=0 seek=64M 2>/dev/null
rm -rf /tmp/share
mkdir -p /tmp/share
echo host-to-guest >/tmp/share/fromhost.txt
# Console input goes in once the guest waits for it, a line per boot.
rm -f /tmp/min
mkfifo /tmp/min
t0=$(uptime_s)
timeout 120 ./lkvm run $irqchip_args -k Image -i guest-matrix.cpio.gz \
	-m 128 -c 2 -d /tmp/m.img -n mode=tap,tapif=lkvmtapm --rng --balloon \
	--9p /tmp/share,share </tmp/min >/tmp/m.log 2>&1 &
pid=$!
exec 3>/tmp/min
wait_for "guest-matrix-boot: 1" /tmp/m.log
echo console-line-1 >&3
wait_for "guest-matrix-boot: 2" /tmp/m.log
echo console-line-2 >&3
wait $pid
rc=$?
exec 3>&-
sed 's/^/  | /' /tmp/m.log
echo "  (lkvm exit status $rc)"
lkvm_time "$t0" /tmp/m.log
t matrix-status [ $rc -eq 0 ]
t matrix-two-harts has "guest-matrix-boot: 1, harts 0-1" /tmp/m.log
t matrix-console-input has "guest-matrix-stdin-1: console-line-1" /tmp/m.log
t matrix-blk has "guest-matrix-blk-ok-1" /tmp/m.log
t matrix-net has "guest-matrix-net-ok-1" /tmp/m.log
t matrix-rng has "guest-matrix-rng-ok" /tmp/m.log
t matrix-9p-read has "guest-matrix-9p-read: host-to-guest" /tmp/m.log
t matrix-9p-write grep -qx guest-to-host /tmp/share/fromguest.txt
t matrix-balloon-bound has "guest-matrix-balloon-bound" /tmp/m.log
t matrix-rebooted has "lkvm: guest reboot (1)" /tmp/m.log
t matrix-console-input-after-reset has "guest-matrix-stdin-2: console-line-2" /tmp/m.log
t matrix-blk-after-reset has "guest-matrix-blk-ok-2" /tmp/m.log
t matrix-net-after-reset has "guest-matrix-net-ok-2" /tmp/m.log
t matrix-poweroff has "rvkvm-guest-result: 0" /tmp/m.log
exit $fail

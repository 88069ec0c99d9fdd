#!/bin/sh
# Runs in the emulated host: --vsock on the host kernel's vhost-vsock with
# the case's interrupt controller and transport (./irqchip): the guest
# connects to the host's echo server and the host connects to the guest's,
# in two boots (a guest reboot between them); the CID a running guest
# holds is refused to a second lkvm with one line, and so is --vsock on a
# host without /dev/vhost-vsock.  With --debug lkvm names the interrupt
# path of the vhost rings: a KVM irqfd on the MSI-X vector's route on
# virtio-pci with the AIA, else relayed by lkvm.
. ./lib.sh

dd if=/dev/zero of=/tmp/v.img bs=1 count=0 seek=16M 2>/dev/null
# A CID and a host port of this case's own: cases run side by side in
# one host.
cid=$((1000 + $$))
port=$((10000 + $$))
./vsock-peer listen $port 0 >/tmp/vsrv.log 2>&1 &
srv=$!
t0=$(uptime_s)
timeout 150 ./lkvm run $irqchip_args --debug -k Image -i guest-vsock.cpio.gz \
	-m 128 -c 2 -d /tmp/v.img --vsock $cid -p "rvkvm.vsockport=$port" \
	</dev/null >/tmp/v.log 2>&1 &
pid=$!
for n in 1 2; do
	wait_for "guest-vsock-boot: $n" /tmp/v.log
	# While this guest holds the CID, another lkvm cannot have it.
	if [ $n -eq 1 ]; then
		LKVM_TIMEOUT=60 lkvm /tmp/dup.log -k Image -i guest.cpio.gz \
			-m 64 --vsock $cid
		dup_rc=$rc
	fi
	wait_for "listening on $((5000 + n))" /tmp/v.log
	./vsock-peer send $cid $((5000 + n)) "host-to-guest-$n" \
		>/tmp/h2g-$n.log 2>&1
	echo "host-to-guest $n: status $?"
	sed 's/^/  host| /' /tmp/h2g-$n.log
done
wait $pid
rc=$?
kill $srv 2>/dev/null
sed 's/^/  | /' /tmp/v.log
echo "  (lkvm exit status $rc)"
lkvm_time "$t0" /tmp/v.log
t vsock-status [ $rc -eq 0 ]
t vsock-device-seen has "guest-vsock-device-1" /tmp/v.log
t vsock-guest-to-host-1 has "guest-vsock-g2h-ok-1" /tmp/v.log
t vsock-host-to-guest-1 has "vsock-peer: echo ok: host-to-guest-1" /tmp/h2g-1.log
t vsock-guest-served-1 has "guest-vsock-h2g-served-1" /tmp/v.log
t vsock-rebooted has "lkvm: guest reboot (1)" /tmp/v.log
t vsock-guest-to-host-after-reboot has "guest-vsock-g2h-ok-2" /tmp/v.log
t vsock-host-to-guest-after-reboot has "vsock-peer: echo ok: host-to-guest-2" /tmp/h2g-2.log
t vsock-poweroff has "rvkvm-guest-result: 0" /tmp/v.log
t vsock-no-failure lacks "needs a reset" /tmp/v.log
# The path follows what lkvm chose: MSI-X (virtio-pci on the AIA) or not.
if has "virtio-vsock: virtio-pci .*MSI-X" /tmp/v.log; then
	t vsock-irq-irqfd-planned has "virtio-vsock: vhost interrupts: KVM irqfd on each ring's MSI-X vector" /tmp/v.log
	t vsock-irq-irqfd-taken has "virtio-vsock: ring [0-9]: call eventfd is a KVM irqfd, GSI" /tmp/v.log
	# in both boots: the reboot's reset relays, the new boot's MSI-X binds
	t vsock-irq-irqfd-each-boot [ "$(grep -c "virtio-vsock: ring [0-9]: call eventfd is a KVM irqfd" /tmp/v.log)" -ge 2 ]
	t vsock-irq-route-ok lacks "no MSI route" /tmp/v.log
else
	t vsock-irq-relayed has "virtio-vsock: vhost interrupts: relayed by lkvm" /tmp/v.log
	t vsock-irq-no-irqfd lacks "call eventfd is a KVM irqfd" /tmp/v.log
fi
case "$irqchip_args" in
*mmio*) ;;
*aia*) t vsock-irq-aia-msix has "virtio-vsock: virtio-pci .*MSI-X" /tmp/v.log ;;
esac
case "$irqchip_args" in
*new-vm*) t vsock-new-vm-rebooted has "reboot: a new KVM VM built" /tmp/v.log ;;
esac
# A host without /dev/vhost-vsock (a private /dev that has only
# /dev/kvm, /dev/null and /dev/urandom): one line, status 1.
mkdir -p /tmp/nodev
unshare -m --propagation private sh -c \
	'mount -t tmpfs none /tmp/nodev &&
	cp -a /dev/kvm /dev/null /dev/urandom /tmp/nodev/ &&
	mount --bind /tmp/nodev /dev &&
	exec timeout 60 ./lkvm run '"$irqchip_args"' -k Image -i guest.cpio.gz \
		-m 64 --vsock '"$cid" </dev/null >/tmp/nodev.log 2>&1
nodev_rc=$?
sed 's/^/  nodev| /' /tmp/nodev.log
t vsock-no-device-status-1 [ "$nodev_rc" -eq 1 ]
t vsock-no-device-one-line [ "$(grep -c "lkvm: error" /tmp/nodev.log)" -eq 1 ]
t vsock-no-device-says-so has "this host has no /dev/vhost-vsock" /tmp/nodev.log
t vsock-cid-in-use-status-1 [ "$dup_rc" -eq 1 ]
t vsock-cid-in-use-one-line [ "$(grep -c "lkvm: error" /tmp/dup.log)" -eq 1 ]
t vsock-cid-in-use-says-so has "CID $cid is in use" /tmp/dup.log
exit $fail

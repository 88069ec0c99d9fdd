#!/bin/sh
# Runs in the emulated host: virtio over PCI.  A kvmtool-style command
# line with no transport option puts rng, disk and NIC on virtio-pci
# behind a pci-host-ecam-generic bridge: the guest binds virtio-pci to
# vendor 0x1af4 and the modern device ids, and uses every device.  A NIC
# can stay on virtio-mmio (trans=mmio); --virtio-transport mmio leaves the
# bus empty; the legacy transports are refused with status 2.  With the
# user-space PLIC the functions interrupt by INTx; with KVM's AIA
# (./irqchip says --irqchip aia) by MSI-X, a vector per queue.  With
# two vCPUs on this two-CPU host, the disk's notifications are served in
# the vCPUs' exits (--io-notify auto), its ioeventfd unbound while the
# BAR is placed; on virtio-mmio with one vCPU, when asked for.
. ./lib.sh

# --debug's count of requests taken in vCPU exits in $1 is above 0.
vcpu_taken() {
	tr -d '\r' <"$1" |
		sed -n 's/.*requests taken in vCPU exits: \([0-9]*\),.*/\1/p' |
		awk '$1 > 0 { ok = 1 } END { exit !ok }'
}

cp test-disk.img /tmp/pci-disk.img
lkvm /tmp/pci.log -k Image -i guest-pci.cpio.gz -m 128 -c 2 --rng \
	-d /tmp/pci-disk.img -n mode=tap,tapif=lkvmtap0 --debug
t default-status [ $rc -eq 0 ]
t default-host-bridge has "guest-pci-host: pci-host-ecam-generic" /tmp/pci.log
t default-rng-on-pci has "vendor=0x1af4 device=0x1044 .*driver=virtio-pci" /tmp/pci.log
t default-blk-on-pci has "vendor=0x1af4 device=0x1042 .*driver=virtio-pci" /tmp/pci.log
t default-net-on-pci has "vendor=0x1af4 device=0x1041 .*driver=virtio-pci" /tmp/pci.log
t default-three-functions has "guest-pci-count: 3" /tmp/pci.log
t default-rng-reads has "guest-rng-bytes: 1024" /tmp/pci.log
t default-disk-reads has "guest-vda-bytes: 65536" /tmp/pci.log
t default-disk-vcpu-route has "notifications served in the vCPU's exit" /tmp/pci.log
t default-disk-vcpu-taken vcpu_taken /tmp/pci.log
t default-net-pings has "guest-ping-ok" /tmp/pci.log
t default-virtio-irqs has "guest-virtio-irqs: [1-9]" /tmp/pci.log
case "$irqchip_args" in
*aia*)
	# MSI-X: one vector per queue (rng 1, disk 2, NIC 2) and per config
	t aia-msix-lines has "guest-msi-lines: [1-9]" /tmp/pci.log
	t aia-msix-vector-per-queue has "guest-virtio-queue-vectors: 5" \
		/tmp/pci.log
	;;
*)
	# the user-space PLIC: INTx, no MSI-X offered
	t plic-intx-no-msi has "guest-msi-lines: 0" /tmp/pci.log
	;;
esac

lkvm /tmp/mixed.log -k Image -i guest-pci.cpio.gz -m 128 -c 1 --rng \
	--virtio-transport pci -n mode=tap,tapif=lkvmtap0,trans=mmio
t mixed-status [ $rc -eq 0 ]
t mixed-one-function has "guest-pci-count: 1" /tmp/mixed.log
t mixed-two-virtio has "guest-virtio-count: 2" /tmp/mixed.log
t mixed-net-on-mmio has "guest-ping-ok" /tmp/mixed.log

lkvm /tmp/mmio.log -k Image -i guest-pci.cpio.gz -m 128 -c 1 --rng \
	--virtio-transport mmio -d /tmp/pci-disk.img --io-notify vcpu --debug
t mmio-status [ $rc -eq 0 ]
t mmio-no-pci has "guest-pci-count: 0" /tmp/mmio.log
t mmio-rng-reads has "guest-rng-bytes: 1024" /tmp/mmio.log
t mmio-disk-reads has "guest-vda-bytes: 65536" /tmp/mmio.log
t mmio-disk-vcpu-taken vcpu_taken /tmp/mmio.log

for opt in pci-legacy mmio-legacy; do
	./lkvm run --virtio-transport $opt -k Image >/tmp/legacy.log 2>&1
	rc=$?
	t refused-$opt-status-2 [ $rc -eq 2 ]
	t refused-$opt-one-line [ "$(wc -l </tmp/legacy.log)" -eq 1 ]
done
./lkvm run --virtio-legacy -k Image >/tmp/legacy.log 2>&1
rc=$?
t refused-virtio-legacy-status-2 [ $rc -eq 2 ]
t refused-virtio-legacy-one-line [ "$(wc -l </tmp/legacy.log)" -eq 1 ]
exit $fail

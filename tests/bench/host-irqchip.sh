#!/bin/sh
# Runs in an emulated host with an AIA (scripts/bench.sh): the same guest
# under lkvm --irqchip aia, --irqchip kernel-plic (KVM's in-kernel PLIC
# from kernel-patches/, which KVM offers on any host) and --irqchip plic,
# each on virtio-pci (MSI-X with the AIA, INTx with a PLIC) and on
# virtio-mmio, and, when it was added as ./kvmtool, kvmtool on virtio-mmio
# (which takes the in-kernel AIA by itself), in turns A B C ... A B C ....  Exits are the host kernel's KVM statistics (debugfs,
# /sys/kernel/debug/kvm/<pid>-<fd>/), the same counters for every VMM,
# read when the guest says bench-start and bench-end.  Prints
# "BENCH name value unit" lines.
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
counters() {
	d=$(ls -d /sys/kernel/debug/kvm/"$1"-* 2>/dev/null | head -1)
	[ -n "$d" ] || { echo "0 0"; return; }
	echo "$(cat "$d/mmio_exit_user") $(cat "$d/exits")"
}
wait_for() {
	i=0
	while ! grep -q "$1" "$2" && [ $i -lt 3000 ]; do
		sleep 0.05
		i=$((i + 1))
	done
}
# run NAME CMD...: one guest; its figures as "BENCH NAME-x value".
run() {
	name=$1
	shift
	dd if=/dev/zero of=/tmp/io.img bs=1 count=0 seek=48M 2>/dev/null
	"$@" </dev/null >/tmp/io.log 2>&1 &
	pid=$!
	wait_for bench-start /tmp/io.log
	sleep 1
	set -- $(counters $pid)
	m0=$1 e0=$2
	wait_for bench-mid /tmp/io.log
	set -- $(counters $pid)
	m1=$1 e1=$2
	wait_for bench-end /tmp/io.log
	set -- $(counters $pid)
	m2=$1 e2=$2
	wait $pid
	echo "BENCH $name-status $? exit"
	tr -d '\r' </tmp/io.log | sed -n "s/^IO \([^ ]*\) \(.*\)/BENCH $name-\1 \2/p"
	rng=$(tr -d '\r' </tmp/io.log | sed -n 's/^IO rng-irqs //p')
	echo "BENCH $name-blk-all-exits $((e1 - e0)) exits"
	awk -v m="$((m1 - m0))" \
		'BEGIN { printf "BENCH '"$name"'-blk-user-exits-per-MiB %.1f exits\n", m / 64 }'
	awk -v m="$((m2 - m1))" -v n="${rng:-0}" \
		'BEGIN { if (n) printf "BENCH '"$name"'-rng-user-exits-per-irq %.2f exits\n", m / n }'
}
lkvm_cmd="./lkvm run -k Image -i guest-guest-io.cpio.gz -m 256 -c 1 --rng -d /tmp/io.img"
kvmtool_cmd="./kvmtool run -k Image -i guest-guest-io.cpio.gz -m 256 -c 1 --rng -d /tmp/io.img --virtio-transport mmio -p console=ttyS0"
for round in 1 2; do
	run "aiapci$round" $lkvm_cmd --irqchip aia --virtio-transport pci
	run "aiammio$round" $lkvm_cmd --irqchip aia --virtio-transport mmio
	run "kplicpci$round" $lkvm_cmd --irqchip kernel-plic --virtio-transport pci
	run "kplicmmio$round" $lkvm_cmd --irqchip kernel-plic --virtio-transport mmio
	run "plicpci$round" $lkvm_cmd --irqchip plic --virtio-transport pci
	run "plicmmio$round" $lkvm_cmd --irqchip plic --virtio-transport mmio
	[ -x ./kvmtool ] && run "kvmtool$round" $kvmtool_cmd
done
exit 0

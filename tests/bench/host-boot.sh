#!/bin/sh
# Runs in the emulated host (scripts/bench.sh): time from starting lkvm to
# the guest's init (3 runs each, 1 vCPU, 256 MiB) with "-p earlycon" and
# with "-p quiet", and lkvm's peak RSS.  Prints "BENCH name value unit".
now() {
	cut -d' ' -f1 /proc/uptime
}

boot_once() {
	params=$1
	shift
	rm -f /tmp/b.log
	start=$(now)
	./lkvm run -k Image -i guest-hello.cpio.gz -m 256 -c 1 -p "$params" \
		--debug "$@" </dev/null >/tmp/b.log 2>&1 &
	pid=$!
	i=0
	while ! grep -q "rvkvm-init: guest up" /tmp/b.log && [ $i -lt 1200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	end=$(now)
	wait $pid
	awk -v s="$start" -v e="$end" 'BEGIN { printf "%.2f\n", e - s }'
}

for params in earlycon quiet; do
	times=
	for run in 1 2 3; do
		times="$times $(boot_once "$params")"
		rss=$(sed -n 's/.*peak RSS: \([0-9]*\) KiB.*/\1/p' /tmp/b.log)
		echo "BENCH boot-$params-run$run $(echo $times | awk '{print $NF}') s"
		echo "BENCH rss-$params-run$run $rss KiB"
	done
	median=$(echo $times | tr ' ' '\n' | sort -n | sed -n 2p)
	echo "BENCH boot-to-init-$params-median $median s"
done

# The same with a disk and virtio-rng on each transport (-p quiet).
dd if=/dev/zero of=/tmp/boot.img bs=1 count=0 seek=16M 2>/dev/null
for transport in pci mmio; do
	times=
	for run in 1 2 3; do
		times="$times $(boot_once quiet --rng -d /tmp/boot.img \
			--virtio-transport $transport)"
	done
	median=$(echo $times | tr ' ' '\n' | sort -n | sed -n 2p)
	echo "BENCH boot-to-init-$transport-disk-rng-median $median s"
done

# Two lines users type, each VMM in turn (kvmtool too when it was added
# as ./kvmtool), 3 rounds: "min", the minimal line of a kernel test (an
# initramfs, no NIC, no default devices: -n mode=none --nodefaults), from
# exec to the guest's init ("rvkvm-init: guest up") and to the VMM's exit
# (the guest powers off); and "plain", kvmtool's "lkvm run -k Image" with
# each VMM's defaults: its default NIC (lkvm: passt, over vhost-user
# where passt offers it, and "lkvm-socket" with -n mode=user,vhost=0;
# kvmtool: its own user-mode stack) and its default root (~/.lkvm/default over 9p, a shell
# on the console; each VMM with a HOME of its own), from exec to the
# guest's init (the kernel's "Run /virt/init") and to the VMM's exit after
# "poweroff -f" is typed into that shell a second later (that second
# included; not "exit": kvmtool's init execs the shell, whose exit panics
# the guest).
# Both with the VMM's resident memory at init less the resident part of
# its guest RAM (the largest mapping): what the VMM itself costs; on the
# minimal line lkvm's --debug (which prints its exit counters and peak
# RSS) adds its CPU time to the first guest instruction.  Prints
# "BENCH <vmm>-r<round>-c1-boot-<line>-<measure> value unit".
#
# guest_ram_rss PID: the resident KiB of PID's largest mapping.
guest_ram_rss() {
	awk '/^[0-9a-f]+-[0-9a-f]+ / { m = 1; next }
		m && $1 == "Size:" { s = $2 }
		m && $1 == "Rss:" { if (s > big) { big = s; r = $2 }; m = 0 }
		END { print r + 0 }' /proc/$1/smaps 2>/dev/null
}
# until_gone PID: wait (at most 24 s) for PID to end.
until_gone() {
	i=0
	while kill -0 "$1" 2>/dev/null && [ $i -lt 1200 ]; do
		sleep 0.02
		i=$((i + 1))
	done
}
# vmm_once LINE NAME COMMAND...
vmm_once() {
	line=$1 name=$2
	shift 2
	marker="rvkvm-init: guest up"
	[ "$line" = plain ] && marker="Run /virt/init"
	rm -f /tmp/v.log /tmp/vin
	mkfifo /tmp/vin
	start=$(now)
	"$@" </tmp/vin >/tmp/v.log 2>&1 &
	pid=$!
	exec 4>/tmp/vin
	# The minimal line's guest reads nothing: its stdin ends at once.
	[ "$line" = min ] && exec 4>&-
	i=0
	while ! grep -q "$marker" /tmp/v.log && [ $i -lt 1200 ]; do
		sleep 0.02
		i=$((i + 1))
	done
	init=$(now)
	grep -q "$marker" /tmp/v.log || init=
	rss=$(awk '$1 == "VmRSS:" { print $2 }' /proc/$pid/status 2>/dev/null)
	ram=$(guest_ram_rss $pid)
	if [ "$line" = plain ]; then
		sleep 1
		echo "poweroff -f" >&4
		exec 4>&-
	fi
	until_gone $pid
	end=$(now)
	gone=1
	kill -0 $pid 2>/dev/null && gone=
	kill $pid 2>/dev/null
	wait $pid
	st=$?
	m="BENCH $name-c1-boot-$line"
	echo "$m-status $st exit"
	# A VMM that did not reach init, or did not end by itself: no
	# figure, its console's last lines instead.
	if [ -z "$init" ]; then
		echo "$m-no-init 1 run"
		tail -15 /tmp/v.log
		echo
		return
	fi
	if [ -z "$gone" ]; then
		echo "$m-not-ended 1 run"
		tail -15 /tmp/v.log
		echo
	else
		awk -v s="$start" -v e="$end" -v m="$m" \
			'BEGIN { printf "%s-exec-to-exit %.2f s\n", m, e - s }'
	fi
	awk -v s="$start" -v i="$init" -v m="$m" \
		'BEGIN { printf "%s-exec-to-init %.2f s\n", m, i - s }'
	[ -n "$rss" ] && echo "$m-RSS-less-guest-RAM $((rss - ram)) KiB"
	sed -n 's/.*CPU time to the first guest instruction: \([0-9.]*\) ms.*/'"$m"'-CPU-ms-to-first-instruction \1 ms/p' /tmp/v.log
}
# A guest reboot both ways, alternating, 3 rounds: the guest reboots at
# once (guest/boottest.sh's rvkvm.bt=reboot) and lkvm boots it again, five
# times; from "guest reboot (1)" to "guest reboot (6)" over five: the cycle
# (lkvm's reset, the guest's boot to its init, its reboot), and lkvm's own
# part, the mean of --debug's "reboot: ... in X ms".  "lkvm" keeps the VM
# where the host KVM resets vCPUs (KVM_CAP_RISCV_MP_STATE_RESET, 6.16+),
# "lkvm-newvm" builds a new one each time (--debug-reboot-new-vm).
reboot_once() {
	name=$1
	shift
	rm -f /tmp/r.log
	./lkvm run -k Image -i guest-boottest.cpio.gz -m 256 -c 1 -n mode=none \
		--nodefaults --debug -p "rvkvm.bt=reboot" "$@" \
		</dev/null >/tmp/r.log 2>&1 &
	pid=$!
	i=0 t1=
	while [ $i -lt 1200 ] && ! grep -q "guest reboot (6)" /tmp/r.log; do
		[ -z "$t1" ] && grep -q "guest reboot (1)" /tmp/r.log && t1=$(now)
		sleep 0.1
		i=$((i + 1))
	done
	t6=$(now)
	kill $pid 2>/dev/null
	wait $pid
	if [ -z "$t1" ] || ! grep -q "guest reboot (6)" /tmp/r.log; then
		echo "BENCH $name-c1-reboot-failed 1 run"
		tail -5 /tmp/r.log
		return
	fi
	awk -v a="$t1" -v b="$t6" -v n="$name" \
		'BEGIN { printf "BENCH %s-c1-reboot-cycle %.2f s\n", n, (b - a) / 5 }'
	sed -n 's/.*reboot: .* in \([0-9.]*\) ms.*/\1/p' /tmp/r.log | awk -v n="$name" \
		'{ s += $1; k++ } END { if (k) printf "BENCH %s-c1-reboot-lkvm-reset %.2f ms\n", n, s / k }'
}
for round in 1 2 3; do
	reboot_once "lkvm-r$round"
	reboot_once "lkvm-newvm-r$round" --debug-reboot-new-vm
done

for round in 1 2 3; do
	vmm_once min "lkvm-r$round" ./lkvm run -k Image -i guest-hello.cpio.gz \
		-m 256 -c 1 -n mode=none --nodefaults --debug
	[ -x ./kvmtool ] && vmm_once min "kvmtool-r$round" ./kvmtool run -k Image \
		-i guest-hello.cpio.gz -m 256 -c 1 -n mode=none --nodefaults \
		-p console=ttyS0
	mkdir -p /tmp/home-lkvm /tmp/home-kvmtool
	vmm_once plain "lkvm-r$round" env HOME=/tmp/home-lkvm ./lkvm run -k Image
	# The default NIC in passt's socket mode: guest RAM private, not the
	# memfd shared with passt that vhost-user (the default) needs.
	vmm_once plain "lkvm-socket-r$round" env HOME=/tmp/home-lkvm ./lkvm run \
		-k Image -n mode=user,vhost=0
	[ -x ./kvmtool ] && vmm_once plain "kvmtool-r$round" \
		env HOME=/tmp/home-kvmtool ./kvmtool run -k Image
done
exit 0

#!/bin/sh
# Runs in an emulated host with an AIA (scripts/bench.sh, BENCH_ONLY=profile):
# where a VMM's CPU time goes while the guest runs fio.  The same fio
# guest as the fio group (tests/bench/guest-fio.sh) runs under lkvm and,
# when it was added as ./kvmtool, under kvmtool, one vCPU, virtio-pci.
# Between the guest's "fio-begin NAME" and "fio-end NAME" lines Debian's
# perf (/opt/perf/perf) samples the VMM process, all its threads, in user
# space and in the host kernel on their behalf, on the cpu-clock event
# (a timer, 999 samples a second of CPU).  Prints
# "PROFILE <vmm> <job> cpu-ms N" (the CPU time sampled), "... guest-ms N"
# (the part of it the vCPUs spent in the guest) and, for the
# threads (by name) and for
# the symbols that took at least 0.5% of the samples,
# "PROFILE <vmm> <job> thread|object|syscall|symbol PERCENT WHAT"; then the same for the
# VMM's start and exit ("start-minimal", "start-plain", see start below),
# with the ten runs' exit statuses ("... statuses 0x10").
. ./fio-host-lib.sh
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
perf=/opt/perf/perf
# Root profiles any process and sees the kernel's symbols.
echo -1 >/proc/sys/kernel/perf_event_paranoid
echo 0 >/proc/sys/kernel/kptr_restrict
# report NAME JOB DATA: the BENCH-like lines of one recording.
report() {
	$perf report -i "$3" --stdio --no-children --sort comm -g none \
		--percent-limit 1 >/tmp/perf.comm 2>/dev/null
	# cpu-clock counts nanoseconds: the CPU time the samples stand for.
	ms=$(sed -n 's/^# Event count (approx.): *\([0-9]*\).*/\1/p' /tmp/perf.comm |
		awk '{ printf "%d", $1 / 1000000 }')
	echo "PROFILE $1 $2 cpu-ms ${ms:-0}"
	# A vCPU's time in the guest: the host's timer interrupt that takes
	# the sample ends the guest's run, and is taken in the host at
	# kvm_arch_vcpu_ioctl_run (where KVM enables interrupts again).
	$perf report -i "$3" --stdio --no-children --sort sym -g none 2>/dev/null |
		awk -v ms="${ms:-0}" -v p="PROFILE $1 $2 guest-ms" '
			$NF == "kvm_arch_vcpu_ioctl_run" { g = $1 + 0 }
			END { printf "%s %d\n", p, ms * g / 100 }'
	grep '%' /tmp/perf.comm | grep -v '^#' |
		awk -v p="PROFILE $1 $2 thread" '{ print p, $1, $2 }'
	$perf report -i "$3" --stdio --no-children --sort dso -g none \
		--percent-limit 1 2>/dev/null | grep '%' | grep -v '^#' |
		awk -v p="PROFILE $1 $2 object" '{ print p, $1, $2 }'
	# The host kernel's call chains: the share of each system call and
	# of page faults, callees included.
	$perf report -i "$3" --stdio --children --sort sym -g none \
		--percent-limit 1 2>/dev/null | grep '%' | grep -v '^#' |
		awk -v p="PROFILE $1 $2 syscall" '
			$NF ~ /^__riscv_sys_/ || $NF == "handle_page_fault" {
				n = $NF; sub(/^__riscv_sys_/, "", n); print p, $1, n }'
	$perf report -i "$3" --stdio --no-children --sort dso,sym -g none \
		--percent-limit 0.5 2>/dev/null | grep '%' | grep -v '^#' |
		awk -v p="PROFILE $1 $2 symbol" '{
			pct = $1; $1 = ""; sub(/^ */, ""); print p, pct, $0 }'
}
# profile NAME CMD...: one guest; a recording per fio job.
profile() {
	name=$1
	shift
	fio_guest_start "$@"
	tr -d '\r' </tmp/fifo | while read -r tag job rest; do
		[ "$job" = markers ] && continue
		case "$tag" in
		fio-begin)
			$perf record -q -g -e cpu-clock -F 999 -p $pid \
				-o "/tmp/perf-$name-$job.data" 2>/tmp/perf.err &
			rec=$!
			;;
		fio-end)
			kill -INT $rec
			wait $rec
			;;
		FIO) echo "PROFILE $name $job fio $rest" ;;
		esac
	done
	wait $pid
	echo "PROFILE $name status $? exit"
	for d in /tmp/perf-"$name"-*.data; do
		[ -e "$d" ] || continue
		job=${d#/tmp/perf-"$name"-}
		report "$name" "${job%.data}" "$d"
		rm -f "$d"
	done
}
# start NAME LINE VMM ARGS...: the VMM's start and exit, ten times, on a
# "kernel" that powers off at its first instructions (bm-exit.Image, the
# e2e suite's bare-metal test image): where the CPU time from exec to the
# guest and back goes, with each VMM's own empty HOME (the plain line's
# default root lives there).
start() {
	name=$1 line=$2
	shift 2
	rm -rf "/tmp/home-$name" && mkdir -p "/tmp/home-$name"
	HOME=/tmp/home-$name $perf record -q -g -e cpu-clock -F 999 \
		-o "/tmp/perf-$name-start-$line.data" -- sh -c '
		i=0
		while [ $i -lt 10 ]; do
			"$@" </dev/null >/dev/null 2>&1
			echo $? >>/tmp/start.status
			i=$((i + 1))
		done' sh "$@" 2>/tmp/perf.err
	# The runs' exit statuses, "0x10" when all ten exited 0.
	echo "PROFILE $name start-$line statuses $(sort /tmp/start.status |
		uniq -c | awk '{ printf "%s%sx%s", (NR > 1 ? "," : ""), $2, $1 }')"
	rm -f /tmp/start.status
	report "$name" "start-$line" "/tmp/perf-$name-start-$line.data"
	rm -f "/tmp/perf-$name-start-$line.data"
}
guest="-k Image -i guest-guest-fio.cpio.gz -m 512 -d /tmp/fio.img"
profile lkvm ./lkvm run $guest -c 1 --irqchip aia -p "$fio_params"
[ -x ./kvmtool ] && profile kvmtool ./kvmtool run $guest -c 1 \
	-p "console=ttyS0 $fio_params"
start lkvm minimal ./lkvm run -k bm-exit.Image --nodefaults -n mode=none
start lkvm plain ./lkvm run -k bm-exit.Image
if [ -x ./kvmtool ]; then
	start kvmtool minimal ./kvmtool run -k bm-exit.Image --nodefaults -n mode=none
	start kvmtool plain ./kvmtool run -k bm-exit.Image
fi
exit 0

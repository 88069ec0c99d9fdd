#!/bin/sh
# Runs in an emulated host with an AIA (scripts/bench.sh): fio in the same
# guest under lkvm (--irqchip aia) and, when it was added as ./kvmtool,
# kvmtool (the in-kernel AIA), both on the same virtio transport,
# alternating A B A B, with 1 and 2 vCPUs.  Around each fio job (the guest's "fio-begin"/"fio-end" lines)
# it reads the host kernel's KVM statistics (debugfs,
# /sys/kernel/debug/kvm/<pid>-<fd>/: mmio_exit_user and exits, the same
# counters for every VMM) and the VMM process's CPU time (/proc/<pid>/stat,
# all its threads, io_uring's workers too), split in two: the time its
# vCPU threads spent running the guest (guest_time, field 43), and the
# rest, the VMM's own work in user space and in the host kernel on its
# behalf (utime + stime - guest_time), itself split into its vCPU
# threads' part and the rest (see counters below).
# lkvm's variants (./fio-variants, lines "NAME OPTIONS") run after lkvm
# in each round, as VMM "lkvm-NAME"; before them the host itself runs the
# sequential jobs on the same file, as "host" (host_seq).  Prints
# "BENCH <vmm>-r<round>-c<N>-<transport>-<job>-<measure> value unit" lines.
. ./fio-host-lib.sh
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
hz=100
# The VMM's own CPU time is split once more: what its vCPU threads spent
# outside the guest (exits, halt polling), from /proc/<pid>/task/ (both
# VMMs have "vcpu" in those threads' names, and they live as long as the
# guest), and the rest, its I/O threads and io_uring's workers (the
# process's figures count threads that have ended too).
counters() {
	d=$(ls -d /sys/kernel/debug/kvm/"$1"-* 2>/dev/null | head -1)
	cpu=$(awk '{ print $14 + $15 - $43, $43 }' /proc/"$1"/stat 2>/dev/null)
	vcpu=$(for t in /proc/"$1"/task/*; do
		grep -q vcpu "$t/comm" 2>/dev/null && cat "$t/stat" 2>/dev/null
	done | awk '{ s += $14 + $15 - $43 } END { print s + 0 }')
	if [ -n "$d" ]; then
		echo "$(cat "$d/mmio_exit_user") $(cat "$d/exits") ${cpu:-0 0} $vcpu"
	else
		echo "0 0 ${cpu:-0 0} $vcpu"
	fi
}
# run NAME CMD...: one guest; the figures of each job as BENCH lines.
run() {
	name=$1
	shift
	fio_guest_start "$@"
	tr -d '\r' </tmp/fifo | while read -r tag job rest; do
		case "$tag" in
		fio-begin)
			set -- $(counters $pid)
			m0=$1 e0=$2 c0=$3 g0=$4 v0=$5
			;;
		fio-end)
			set -- $(counters $pid)
			echo "$job $(($1 - m0)) $(($2 - e0)) $(($3 - c0)) $(($4 - g0)) $(($5 - v0))" >>/tmp/fio.counters
			;;
		FIO) echo "FIO $job $rest" >>/tmp/fio.counters ;;
		# The seconds each job ran, as the guest saw FIO_RUNTIME.
		fio-runtime) echo "BENCH $name-fio-runtime $job s" ;;
		esac
	done
	wait $pid
	echo "BENCH $name-status $? exit"
	awk -v n="$name" -v hz="$hz" '
		$1 == "FIO" && $3 == "failed:" { print "BENCH " n "-" $2 "-failed 1 " $4; next }
		$1 == "FIO" { mbs[$2] = $3; iops[$2] = $4; kib[$2] = $5; next }
		{ mmio[$1] = $2; ex[$1] = $3; cpu[$1] = $4; gst[$1] = $5; vc[$1] = $6; order[++k] = $1 }
		# Exits of the job less those of its two marker lines.
		function net(v, m) { return v > m ? v - m : 0 }
		END {
			for (i = 1; i <= k; i++) {
				j = order[i]
				if (!(j in kib) || kib[j] == 0) continue
				mib = kib[j] / 1024
				printf "BENCH %s-%s-MiB/s %.1f MiB/s\n", n, j, mbs[j]
				printf "BENCH %s-%s-IOPS %d IOPS\n", n, j, iops[j]
				printf "BENCH %s-%s-user-exits/MiB %.3f exits\n", n, j, net(mmio[j], mmio["markers"]) / mib
				printf "BENCH %s-%s-all-exits/MiB %.1f exits\n", n, j, net(ex[j], ex["markers"]) / mib
				printf "BENCH %s-%s-VMM-CPU-s/GiB %.2f s\n", n, j, cpu[j] / hz / (mib / 1024)
				# (Not when the vCPU threads ended before the end of the job was read.)
				if (vc[j] >= 0 && vc[j] <= cpu[j]) {
					printf "BENCH %s-%s-VMM-io-CPU-s/GiB %.2f s\n", n, j, (cpu[j] - vc[j]) / hz / (mib / 1024)
					printf "BENCH %s-%s-VMM-vcpu-CPU-s/GiB %.2f s\n", n, j, vc[j] / hz / (mib / 1024)
				}
				printf "BENCH %s-%s-guest-CPU-s/GiB %.2f s\n", n, j, gst[j] / hz / (mib / 1024)
			}
		}' /tmp/fio.counters
	rm -f /tmp/fio.counters
}
# host_seq NAME JOBS: the host's own figure, the physical limit of the
# sequential jobs: the same job files (./fio-jobs) run by fio in the host
# on the same image file, through the page cache as both VMMs read and
# write it (not direct), with JOBS fio jobs, from the same start.
host_seq() {
	for job in fio-jobs/seq-*.fio; do
		[ -e "$job" ] || continue
		j=$(basename "$job" .fio)
		sync
		echo 3 >/proc/sys/vm/drop_caches
		rm -f /tmp/fio.img
		dd if=/dev/zero of=/tmp/fio.img bs=1M count=256 2>/dev/null
		sed 's|^filename=.*|filename=/tmp/fio.img|; s|^direct=1|direct=0|' \
			"$job" >/tmp/host.fio
		FIO_RUNTIME=$fio_runtime FIO_JOBS=$2 /opt/fio/fio --minimal --terse-version=3 \
			/tmp/host.fio 2>/dev/null | awk -F';' -v n="$1-$j" '{
			printf "BENCH %s-MiB/s %.1f MiB/s\n", n, ($7 + $48) / 1024
		}'
	done
	rm -f /tmp/fio.img /tmp/host.fio
}
guest="-k Image -i guest-guest-fio.cpio.gz -m 512 -d /tmp/fio.img"
# Both VMMs on the same transports: rvkvm.fio_transport= on the host's
# command line (scripts/bench.sh, BENCH_FIO_TRANSPORT), a comma-separated
# list of pci (both VMMs' default, with MSI-X on the AIA) and mmio;
# pci unless it says otherwise.
ts=$(sed -n 's/.*rvkvm\.fio_transport=\([a-z,]*\).*/\1/p' /proc/cmdline)
# A B pairs per case: rvkvm.fio_rounds= (BENCH_FIO_ROUNDS), 2 by default.
rounds=$(sed -n 's/.*rvkvm\.fio_rounds=\([1-9]\).*/\1/p' /proc/cmdline)
for t in $(echo "${ts:-pci}" | tr , ' '); do
	for c in 1 2; do
		round=1
		while [ "$round" -le "${rounds:-2}" ]; do
			host_seq "host-r$round-c$c-$t" $c
			run "lkvm-r$round-c$c-$t" ./lkvm run $guest -c $c \
				--irqchip aia --virtio-transport $t -p "$fio_params"
			# lkvm's variants (BENCH_FIO_LKVM): "NAME OPTIONS".
			while read -r vname vopts; do
				# shellcheck disable=SC2086
				run "lkvm-$vname-r$round-c$c-$t" ./lkvm run $guest \
					-c $c --irqchip aia --virtio-transport $t \
					-p "$fio_params" $vopts
			done <fio-variants
			[ -x ./kvmtool ] && run "kvmtool-r$round-c$c-$t" \
				./kvmtool run $guest -c $c --virtio-transport $t \
				-p "console=ttyS0 $fio_params"
			round=$((round + 1))
		done
	done
done
exit 0

#!/bin/sh
# Runs in the emulated host: a stalled stdout and stop signals.
# (a) lkvm's stdout is a pipe nobody reads while the guest floods its
#     serial, SBI and virtio consoles: the guest's disk I/O still completes
#     (the data and a marker with its MD5 are in the image afterwards),
#     the guest powers off and lkvm exits 0, saying output was dropped.
# (b) SIGTERM (SIGINT, SIGHUP) ends lkvm with status 3 within 1 s in every
#     state: lkvm's own boot steps, the guest's kernel booting, the guest
#     spinning, idle, flooding a stalled stdout (stderr stalled too),
#     rebooting over and over, and with disk I/O in flight.
. ./lib.sh

# Milliseconds since the host booted (/proc/uptime: 10 ms steps).
now_ms() {
	read -r up _ </proc/uptime
	echo $((${up%.*} * 1000 + 1${up#*.} * 10 - 1000))
}

mkfifo /tmp/stall.fifo
# A reader that never reads (until the end): writes fill the pipe, then
# would block; nobody closes it, so they never fail with EPIPE.
exec 5<>/tmp/stall.fifo

# new_img FILE MIB: an empty sparse image (dd alone keeps old data).
new_img() {
	rm -f "$1"
	dd if=/dev/zero of="$1" bs=1M count=0 seek="$2" 2>/dev/null
}

new_img /tmp/st.img 8
t0=$(now_ms)
timeout 240 ./lkvm run $irqchip_args -k Image -i guest-stall.cpio.gz \
	-m 128 -c 2 -d /tmp/st.img --console virtio --nodefaults \
	-p "console=ttyS0 rvkvm.stall=flood" </dev/null >/tmp/stall.fifo \
	2>/tmp/flood.err
rc=$?
echo "  flood with stdout stalled: lkvm exit status $rc after $(($(now_ms) - t0)) ms"
sed 's/^/  | /' /tmp/flood.err
marker=$(head -c 512 /tmp/st.img | tr -d '\000')
echo "  disk marker: $marker"
sum=$(dd if=/tmp/st.img bs=64k skip=16 count=8 2>/dev/null | md5sum | cut -c1-32)
t stall-flood-poweroff-status [ $rc -eq 0 ]
t stall-flood-disk-marker [ "${marker% *}" = "guest-stall-disk flood" ]
t stall-flood-disk-data [ "${marker##* }" = "$sum" ]
t stall-flood-drop-reported has "stdout is not taking guest console output" /tmp/flood.err
t stall-flood-drop-counted has "bytes dropped" /tmp/flood.err
t stall-flood-powered-off has "guest powered off" /tmp/flood.err
# What went into the pipe before it filled: the guest's boot log.
timeout 5 dd bs=4096 count=16 <&5 >/tmp/pipe.out 2>/dev/null
t stall-flood-pipe-got-boot-log has "Linux version" /tmp/pipe.out
exec 5<&-

# sig_case WHAT SIGNAL WAIT ARGS...: start lkvm with ARGS (console and
# messages in /tmp/WHAT.log, or with WHAT stalled into the stalled pipe),
# wait (a number: seconds; else a pattern in the log or, for a stalled
# stdout, in the disk image), send SIGNAL, and time the exit.
sig_case() {
	what=$1 sig=$2 until=$3
	shift 3
	log=/tmp/$what.log
	if [ "$what" = stalled ]; then
		exec 5<>/tmp/stall.fifo
		./lkvm run $irqchip_args "$@" </dev/null >/tmp/stall.fifo 2>&1 &
		log=/tmp/st.img
	else
		./lkvm run $irqchip_args "$@" </dev/null >$log 2>&1 &
	fi
	pid=$!
	case "$until" in
	[0-9]*) sleep "$until" ;;
	*)
		i=0
		while ! grep -q "$until" $log && [ $i -lt 900 ]; do
			sleep 0.1
			i=$((i + 1))
		done
		;;
	esac
	(sleep 20 && kill -KILL $pid) 2>/dev/null &
	watchdog=$!
	t0=$(now_ms)
	kill -$sig $pid
	wait $pid
	rc=$?
	ms=$(($(now_ms) - t0))
	kill $watchdog 2>/dev/null
	[ "$what" = stalled ] && exec 5<&-
	[ "$what" = stalled ] || sed 's/^/  | /' $log | tail -5
	echo "  SIG$sig while $what: lkvm exit status $rc after $ms ms"
	t sig-$what-status [ $rc -eq 3 ]
	t sig-$what-within-1s [ $ms -le 1000 ]
}

img="-m 128 -c 2 -k Image -i guest-stall.cpio.gz"
sig_case boot TERM 0.2 $img -p rvkvm.stall=idle
t sig-boot-says-why has "stopped by Terminated" /tmp/boot.log
sig_case kernel INT 1.5 $img -p rvkvm.stall=idle
t sig-kernel-says-why has "stopped by Interrupt" /tmp/kernel.log
sig_case busy TERM guest-stall-busy $img -p rvkvm.stall=busy
sig_case idle HUP guest-stall-idle $img -p rvkvm.stall=idle
t sig-idle-says-why has "stopped by Hangup" /tmp/idle.log
new_img /tmp/st.img 8
sig_case stalled TERM "guest-stall-disk floodhold" $img -d /tmp/st.img \
	--console virtio --nodefaults -p "console=ttyS0 rvkvm.stall=floodhold"
sig_case reboot TERM "guest reboot (2)" $img -p rvkvm.stall=reboot
new_img /tmp/dk.img 64
sig_case disk TERM guest-stall-disk-busy $img -d /tmp/dk.img -p rvkvm.stall=disk
exit $fail

#!/bin/sh
# Runs in the emulated host: --vsock 3,socket=/tmp/v.sock, lkvm's own
# unix-socket vsock back-end, run as an unprivileged user (uid 65534)
# who cannot open /dev/vhost-vsock, with the case's interrupt controller
# and transport (./irqchip).  In each of two boots (a guest reboot
# between them) the guest sends 300 KiB to a host echo server listening
# on /tmp/v.sock_P and checks the echo, and the host connects to the
# guest's port 5000 + the boot count through /tmp/v.sock ("CONNECT
# <port>") and checks the echo (300 KiB, then 64 KiB).  In the first, the
# guest's connection to a port nothing listens on is refused, and host
# peers that ask for a guest port without a listener, write a bad line,
# or close at once are closed without a word; lkvm goes on.  A second lkvm
# on the same socket, one on a file that is not a socket, and an empty
# socket= are refused with one line (status 1, 1 and 2).
. ./lib.sh

chmod 666 /dev/kvm
chmod 1777 /tmp
[ -e /dev/vhost-vsock ] && chmod 600 /dev/vhost-vsock
as_nobody() {
	./ctl-peer as 65534 "$@"
}
sock=/tmp/v.sock
port=$((10000 + $$))
dd if=/dev/zero of=/tmp/v.img bs=1 count=0 seek=16M 2>/dev/null
chmod 666 /tmp/v.img
as_nobody ./vsock-peer ulisten ${sock}_$port 2 >/tmp/ul.log 2>&1 &
srv=$!
wait_for "listening on" /tmp/ul.log
t0=$(uptime_s)
HOME=/tmp as_nobody timeout 240 ./lkvm run $irqchip_args -k Image \
	-i guest-hvsock.cpio.gz -m 128 -c 2 -d /tmp/v.img \
	--vsock 3,socket=$sock -p "rvkvm.vsockport=$port" \
	</dev/null >/tmp/v.log 2>&1 &
pid=$!
wait_for "listening on 5001" /tmp/v.log
# While it runs, a second lkvm on its socket, one on a file that is not a
# socket (left as it is), and an empty socket=: one line each, 1, 1, 2.
HOME=/tmp as_nobody timeout 60 ./lkvm run $irqchip_args -k Image \
	-i guest-hvsock.cpio.gz -m 64 --vsock 4,socket=$sock \
	</dev/null >/tmp/dup.log 2>&1
dup_rc=$?
as_nobody touch /tmp/notsock
HOME=/tmp as_nobody timeout 60 ./lkvm run $irqchip_args -k Image \
	-i guest-hvsock.cpio.gz -m 64 --vsock 4,socket=/tmp/notsock \
	</dev/null >/tmp/notsock.log 2>&1
notsock_rc=$?
HOME=/tmp as_nobody timeout 60 ./lkvm run -k Image --vsock 4,socket= \
	</dev/null >/tmp/usage.log 2>&1
usage_rc=$?
lines=0
for line in "CONNECT 6000" "GARBAGE" "CONNECT 99999999999" -; do
	as_nobody ./vsock-peer uline $sock "$line" >>/tmp/uline.log 2>&1 &&
		lines=$((lines + 1))
done
as_nobody ./vsock-peer uconnect $sock 5001 307200 >/tmp/h2g-1.log 2>&1
h2g1_rc=$?
wait_for "listening on 5002" /tmp/v.log
as_nobody ./vsock-peer uconnect $sock 5002 65536 >/tmp/h2g-2.log 2>&1
h2g2_rc=$?
wait $pid
rc=$?
kill $srv 2>/dev/null
sed 's/^/  | /' /tmp/v.log
sed 's/^/  ulisten| /' /tmp/ul.log
sed 's/^/  uline| /' /tmp/uline.log
sed 's/^/  uconnect-1| /' /tmp/h2g-1.log
sed 's/^/  uconnect-2| /' /tmp/h2g-2.log
sed 's/^/  dup| /' /tmp/dup.log
sed 's/^/  notsock| /' /tmp/notsock.log
sed 's/^/  usage| /' /tmp/usage.log
echo "  (lkvm exit status $rc)"
lkvm_time "$t0" /tmp/v.log
t hvsock-nobody-cannot-open-vhost-vsock \
	as_nobody sh -c 'test ! -r /dev/vhost-vsock'
t hvsock-no-vhost-vsock-used lacks "vhost-vsock" /tmp/v.log
t hvsock-status [ $rc -eq 0 ]
t hvsock-device-seen has "guest-hvsock-device-1" /tmp/v.log
t hvsock-guest-to-host has "guest-hvsock-g2h-ok-1" /tmp/v.log
t hvsock-guest-to-host-bytes has "vsock-peer: echo ok: 307200 bytes" /tmp/v.log
t hvsock-guest-refused has "guest-hvsock-refused-ok" /tmp/v.log
t hvsock-host-bad-peers-closed [ $lines -eq 4 ]
t hvsock-host-to-guest [ $h2g1_rc -eq 0 ]
t hvsock-host-to-guest-ok-line has "vsock-peer: OK 10737418[0-9][0-9]$" /tmp/h2g-1.log
t hvsock-host-to-guest-bytes has "unix echo ok: 307200 bytes" /tmp/h2g-1.log
t hvsock-guest-served has "guest-hvsock-h2g-served-1" /tmp/v.log
t hvsock-rebooted has "lkvm: guest reboot (1)" /tmp/v.log
t hvsock-guest-to-host-after-reboot has "guest-hvsock-g2h-ok-2" /tmp/v.log
t hvsock-host-served-both-boots has "vsock-peer: served 2" /tmp/ul.log
t hvsock-host-to-guest-after-reboot [ $h2g2_rc -eq 0 ]
t hvsock-host-to-guest-after-reboot-bytes has "unix echo ok: 65536 bytes" /tmp/h2g-2.log
t hvsock-guest-served-after-reboot has "guest-hvsock-h2g-served-2" /tmp/v.log
t hvsock-poweroff has "rvkvm-guest-result: 0" /tmp/v.log
t hvsock-socket-removed [ ! -e $sock ]
t hvsock-no-error lacks "lkvm: error" /tmp/v.log
t hvsock-in-use-status-1 [ "$dup_rc" -eq 1 ]
t hvsock-in-use-one-line [ "$(grep -c "lkvm: error" /tmp/dup.log)" -eq 1 ]
t hvsock-in-use-says-so has "a process listens on $sock" /tmp/dup.log
t hvsock-not-a-socket-status-1 [ "$notsock_rc" -eq 1 ]
t hvsock-not-a-socket-says-so has "/tmp/notsock exists and is not a socket" /tmp/notsock.log
t hvsock-not-a-socket-kept [ -f /tmp/notsock ]
t hvsock-usage-status-2 [ "$usage_rc" -eq 2 ]
t hvsock-usage-one-line [ "$(grep -c "lkvm: error" /tmp/usage.log)" -eq 1 ]
exit $fail

#!/bin/sh
# Runs in the emulated host: --vsock 3,socket=/tmp/v.sock, lkvm's own
# unix-socket vsock back-end, run as an unprivileged user (uid 65534)
# who cannot open /dev/vhost-vsock, with the case's interrupt controller
# and transport (./irqchip).  The guest sends 300 KiB to a host echo
# server listening on /tmp/v.sock_P and checks the echo; its connection
# to a port nothing listens on is refused; the host connects to the
# guest's port 5001 through /tmp/v.sock ("CONNECT 5001") and checks 300
# KiB of echo; a host connection to a guest port without a listener is
# closed without an OK; lkvm goes on and the guest powers off.
. ./lib.sh

chmod 666 /dev/kvm
chmod 1777 /tmp
[ -e /dev/vhost-vsock ] && chmod 600 /dev/vhost-vsock
as_nobody() {
	./ctl-peer as 65534 "$@"
}
sock=/tmp/v.sock
port=$((10000 + $$))
as_nobody ./vsock-peer ulisten ${sock}_$port 1 >/tmp/ul.log 2>&1 &
srv=$!
wait_for "listening on" /tmp/ul.log
t0=$(uptime_s)
HOME=/tmp as_nobody timeout 240 ./lkvm run $irqchip_args -k Image \
	-i guest-hvsock.cpio.gz -m 128 -c 2 --vsock 3,socket=$sock \
	-p "rvkvm.vsockport=$port" </dev/null >/tmp/v.log 2>&1 &
pid=$!
wait_for "listening on 5001" /tmp/v.log
# The guest listens on 5001 only: 5002 is refused by the guest's kernel.
as_nobody ./vsock-peer urefused $sock 5002 >/tmp/uref.log 2>&1
uref_rc=$?
as_nobody ./vsock-peer uconnect $sock 5001 307200 >/tmp/h2g.log 2>&1
h2g_rc=$?
wait $pid
rc=$?
kill $srv 2>/dev/null
sed 's/^/  | /' /tmp/v.log
sed 's/^/  ulisten| /' /tmp/ul.log
sed 's/^/  urefused| /' /tmp/uref.log
sed 's/^/  uconnect| /' /tmp/h2g.log
echo "  (lkvm exit status $rc)"
lkvm_time "$t0" /tmp/v.log
t hvsock-nobody-cannot-open-vhost-vsock \
	as_nobody sh -c 'test ! -r /dev/vhost-vsock'
t hvsock-no-vhost-vsock-used lacks "vhost-vsock" /tmp/v.log
t hvsock-status [ $rc -eq 0 ]
t hvsock-device-seen has "guest-hvsock-device" /tmp/v.log
t hvsock-guest-to-host has "guest-hvsock-g2h-ok" /tmp/v.log
t hvsock-guest-to-host-bytes has "vsock-peer: echo ok: 307200 bytes" /tmp/v.log
t hvsock-host-served has "vsock-peer: served 1" /tmp/ul.log
t hvsock-guest-refused has "guest-hvsock-refused-ok" /tmp/v.log
t hvsock-host-refused [ $uref_rc -eq 0 ]
t hvsock-host-to-guest [ $h2g_rc -eq 0 ]
t hvsock-host-to-guest-ok-line has "vsock-peer: OK 10737418[0-9][0-9]$" /tmp/h2g.log
t hvsock-host-to-guest-bytes has "unix echo ok: 307200 bytes" /tmp/h2g.log
t hvsock-guest-served has "guest-hvsock-h2g-served" /tmp/v.log
t hvsock-poweroff has "rvkvm-guest-result: 0" /tmp/v.log
t hvsock-socket-removed [ ! -e $sock ]
t hvsock-no-error lacks "lkvm: error" /tmp/v.log
exit $fail

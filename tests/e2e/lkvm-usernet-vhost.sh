#!/bin/sh
# Runs in the emulated host: -n mode=user,vhost=1, the guest's virtio-net
# rings served by passt's own vhost-user back-end.  The guest gets its
# address from passt's DHCP and fetches a file from an HTTP server on the
# host's loopback through the gateway (guest to host TCP); the host
# fetches a blob from the guest through fwd=tcp:18080:8080; the guest
# reboots and does it all again with the same passt; then passt is
# killed (-9): lkvm says so in one line, the guest sees its carrier drop
# and powers off normally, lkvm exits 0 and reaps passt.
. ./lib.sh
# A lkvm that died early must not kill this script through its ctl fifo.
trap '' PIPE

# wait_n N PATTERN LOG: until LOG has N lines matching PATTERN (120 s),
# while lkvm ($pid) runs.
wait_n() {
	i=0
	while [ "$(tr -d '\r' <"$3" | grep -c -- "$2")" -lt "$1" ] &&
		[ $i -lt 1200 ] && kill -0 $pid 2>/dev/null; do
		sleep 0.1
		i=$((i + 1))
	done
}

mkdir -p /tmp/www
dd if=/dev/urandom of=/tmp/www/hostfile bs=1k count=300 2>/dev/null
host_md5=$(md5sum /tmp/www/hostfile | cut -d' ' -f1)
httpd -p 127.0.0.1:8000 -h /tmp/www

mkfifo /tmp/ctl
./lkvm run $irqchip_args --debug -k Image -i guest-usernet-vhost.cpio.gz \
	-m 128 -c 1 -n mode=user,vhost=1,fwd=tcp:18080:8080 \
	</tmp/ctl >/tmp/v.log 2>&1 &
pid=$!
exec 3>/tmp/ctl
wait_n 1 guest-serving /tmp/v.log
wget -q -T 30 -O /tmp/blob http://127.0.0.1:18080/blob
blob_md5=$(md5sum /tmp/blob | cut -d' ' -f1)
echo "host-blob-md5: $blob_md5 ($(wc -c </tmp/blob) bytes)"
passt1=$(own_pidof passt)
echo reboot >&3
wait_n 2 guest-serving /tmp/v.log
passt2=$(own_pidof passt)
t vu-passt-running [ -n "$passt1" ]
t vu-same-passt-after-reboot [ "$passt1" = "$passt2" ]
kill -9 $passt2
echo carrier >&3
wait_n 1 "guest-carrier:" /tmp/v.log
t killed-lkvm-still-running kill -0 $pid
echo go >&3
wait $pid
rc=$?
exec 3>&-
sed 's/^/  | /' /tmp/v.log
count() {
	tr -d '\r' </tmp/v.log | grep -c -- "$1"
}
t vu-named has "served by passt over vhost-user" /tmp/v.log
t vu-dhcp-both-boots [ "$(count "guest-dhcp: ip=192.168.33.15 mask=24 router=192.168.33.1")" -eq 2 ]
t vu-http-from-host-both-boots [ "$(count "guest-host-file-md5: $host_md5")" -eq 2 ]
t vu-fwd-tcp-transfer has "guest-blob-md5: $blob_md5" /tmp/v.log
t vu-fwd-size [ "$(wc -c </tmp/blob)" -eq 1048576 ]
t vu-rebooted has "guest reboot (1)" /tmp/v.log
t killed-link-down has "guest-carrier: 0 operstate: down" /tmp/v.log
t killed-one-line [ "$(count 'user-mode network: passt')" -eq 1 ]
t killed-says-signal has "passt killed by signal 9" /tmp/v.log
t killed-guest-went-on has "guest-done" /tmp/v.log
t killed-status [ $rc -eq 0 ]
t killed-no-zombie [ -z "$(own_pidof passt)" ]
exit $fail

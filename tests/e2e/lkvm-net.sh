#!/bin/sh
# Runs in the emulated host: virtio-net over a tap.  lkvm gives the tap
# 192.168.33.1/24 (script=none); ping both ways; a 2 MiB TCP transfer from
# guest to host whose checksum matches on both sides.
. ./lib.sh

mkfifo /tmp/ctl
./lkvm run $irqchip_args -k Image -i guest-net.cpio.gz -m 128 -c 1 \
	-n mode=tap,tapif=lkvmtap0 </tmp/ctl >/tmp/n.log 2>&1 &
pid=$!
exec 3>/tmp/ctl
i=0
while ! grep -q guest-serving /tmp/n.log && [ $i -lt 900 ]; do
	sleep 0.1
	i=$((i + 1))
done
t tap-has-host-ip sh -c 'ip addr show lkvmtap0 | grep -q "inet 192.168.33.1/24"'
t host-ping-guest ping -c 3 -W 2 192.168.33.15
wget -q -O /tmp/blob http://192.168.33.15:8080/blob
host_md5=$(md5sum /tmp/blob | cut -d' ' -f1)
echo "host-blob-md5: $host_md5 ($(wc -c </tmp/blob) bytes)"
echo go >&3
wait $pid
rc=$?
exec 3>&-
sed 's/^/  | /' /tmp/n.log
t net-status [ $rc -eq 0 ]
t guest-ping-host has "guest-ping-ok" /tmp/n.log
t tcp-transfer-size [ "$(wc -c </tmp/blob)" -eq 2097152 ]
t tcp-transfer-checksum has "guest-blob-md5: $host_md5" /tmp/n.log
exit $fail

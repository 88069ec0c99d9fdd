#!/bin/sh
# Runs in the emulated host: the default NIC (no -n) stays in passt's
# socket mode on a host that gives shared memory no transparent huge
# pages (shmem_enabled never, the emulated host's and Debian's default:
# guest RAM in a memfd would lose its huge pages), and is passt over
# vhost-user where shared memory gets them and passt offers it (Debian
# trixie's does), as --debug says.  The guest gets its address from passt's DHCP and fetches a file
# from an HTTP server on the host's loopback through the gateway, checksum
# checked; then it starts a 1 GiB download and passt is killed (-9) in
# the middle of it: lkvm says so in one line, the guest sees its carrier
# drop, its download ends short and it powers off normally; lkvm exits 0
# and reaps passt.  Run with each interrupt controller and transport
# (./irqchip).
. ./lib.sh
# A lkvm that died early must not kill this script through its ctl fifo.
trap '' PIPE

# wait_for PATTERN LOG: up to 120 s, while lkvm ($pid) runs.
wait_for() {
	i=0
	while ! has "$1" "$2" && [ $i -lt 1200 ] && kill -0 $pid 2>/dev/null; do
		sleep 0.1
		i=$((i + 1))
	done
}

big=$((1024 * 1024 * 1024))
mkdir -p /tmp/www
dd if=/dev/urandom of=/tmp/www/hostfile bs=1k count=300 2>/dev/null
host_md5=$(md5sum /tmp/www/hostfile | cut -d' ' -f1)
# Sparse: 1 GiB of zeros that take no host memory.
dd if=/dev/zero of=/tmp/www/big bs=1 count=0 seek=$big 2>/dev/null
httpd -p 127.0.0.1:8000 -h /tmp/www

thp=/sys/kernel/mm/transparent_hugepage
shmem_was=$(sed 's/.*\[\(.*\)\].*/\1/' $thp/shmem_enabled)
echo never >$thp/shmem_enabled
./lkvm run $irqchip_args --debug -k Image -i guest-usernet-default.cpio.gz \
	-m 128 -c 1 </dev/null >/tmp/n.log 2>&1 &
npid=$!
i=0
while ! grep -q "user-mode NIC 0:" /tmp/n.log && [ $i -lt 300 ]; do
	sleep 0.1
	i=$((i + 1))
done
kill $npid 2>/dev/null
wait $npid
t default-socket-without-shmem-thp has "user-mode NIC 0: passt's socket mode (the host gives shared memory no huge pages" /tmp/n.log
echo advise >$thp/shmem_enabled

mkfifo /tmp/ctl
./lkvm run $irqchip_args --debug -k Image -i guest-usernet-default.cpio.gz \
	-m 128 -c 1 </tmp/ctl >/tmp/d.log 2>&1 &
pid=$!
exec 3>/tmp/ctl
wait_for guest-ready /tmp/d.log
passt_pid=$(own_pidof passt)
# For the record: the host's transparent huge page settings and how the
# guest RAM (lkvm's largest mapping, the shared memfd) is backed.
echo "host-thp: enabled: $(cat $thp/enabled 2>/dev/null) shmem_enabled: $(cat $thp/shmem_enabled 2>/dev/null)"
awk '/^[0-9a-f]+-[0-9a-f]+ / { h = $0; next }
	$1 == "Size:" { s = $2 }
	$1 == "Rss:" { r = $2 }
	$1 == "ShmemPmdMapped:" { p = $2 }
	$1 == "AnonHugePages:" { a = $2 }
	$1 == "VmFlags:" && s > big { big = s; out = h " Size " s " Rss " r " ShmemPmdMapped " p " AnonHugePages " a }
	END { print "guest-ram-mapping: " out }' /proc/$pid/smaps 2>/dev/null
echo fetch >&3
wait_for guest-fetching /tmp/d.log
kill -9 $passt_pid
echo carrier >&3
wait_for "guest-big-bytes:" /tmp/d.log
t killed-lkvm-still-running kill -0 $pid
echo go >&3
wait $pid
rc=$?
exec 3>&-
sed 's/^/  | /' /tmp/d.log
count() {
	tr -d '\r' </tmp/d.log | grep -c -- "$1"
}
bytes=$(tr -d '\r' </tmp/d.log | sed -n 's/.*guest-big-bytes: \([0-9]*\).*/\1/p')
echo "guest-got $bytes of $big bytes"
t default-chose-vhost-user has "user-mode NIC 0: passt over vhost-user (the installed passt offers --vhost-user)" /tmp/d.log
t default-vu-named has "served by passt over vhost-user" /tmp/d.log
t default-dhcp has "guest-dhcp: ip=192.168.33.15 mask=24 router=192.168.33.1" /tmp/d.log
t default-http-md5 has "guest-host-file-md5: $host_md5" /tmp/d.log
t killed-passt-was-running [ -n "$passt_pid" ]
t killed-mid-transfer [ -n "$bytes" ] && [ "$bytes" -gt 0 ] && [ "$bytes" -lt $big ]
t killed-link-down has "guest-carrier: 0 operstate: down" /tmp/d.log
t killed-one-line [ "$(count 'user-mode network: passt')" -eq 1 ]
t killed-says-signal has "passt killed by signal 9" /tmp/d.log
t killed-guest-went-on has "guest-done" /tmp/d.log
t killed-status [ $rc -eq 0 ]
t killed-no-zombie [ -z "$(own_pidof passt)" ]
# The cases after this one in the same host see its setting as it was.
echo "$shmem_was" >$thp/shmem_enabled
exit $fail

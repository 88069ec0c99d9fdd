#!/bin/sh
# Runs in the emulated host: user-mode networking (passt).  With no -n at
# all the guest gets kvmtool's default NIC: DHCP gives it 192.168.33.15/24,
# gateway and DNS 192.168.33.1; it fetches a file from an HTTP server on
# the host's loopback through the gateway address, and its DNS query
# reaches the host's resolver (a UDP listener on 127.0.0.1:53, named in
# /etc/resolv.conf).  With -n mode=user,vhost=0,fwd=tcp:18080:8080
# (passt's socket mode, lkvm's own virtio-net; the default NIC is passt
# over vhost-user where passt offers it, lkvm-usernet-default) the host
# fetches a blob from the guest's server through the forward; killing
# passt then leaves guest and lkvm running, the guest sees its carrier
# drop, lkvm says so in one line and reaps passt.  Without passt on PATH
# the default NIC is left out with a warning and an explicit mode=user
# exits 1; -n mode=none gives no NIC; --no-dhcp gets no DHCP answer, here
# with a passt that does not name --vhost-user: socket mode, silently.
. ./lib.sh
# A lkvm that died early must not kill this script through its ctl fifo.
trap '' PIPE

# wait_for PATTERN LOG: up to 120 s, while lkvm ($pid) runs.
wait_for() {
	i=0
	while ! grep -q "$1" "$2" && [ $i -lt 1200 ] && kill -0 $pid 2>/dev/null; do
		sleep 0.1
		i=$((i + 1))
	done
}

mkdir -p /tmp/www
dd if=/dev/urandom of=/tmp/www/hostfile bs=1k count=300 2>/dev/null
host_md5=$(md5sum /tmp/www/hostfile | cut -d' ' -f1)
httpd -p 127.0.0.1:8000 -h /tmp/www
echo "nameserver 127.0.0.1" >/etc/resolv.conf
./dns-stub >/tmp/dnsq 2>&1 &
dns_pid=$!

# 1. No -n: the default user-mode NIC.
mkfifo /tmp/ctl
./lkvm run $irqchip_args -k Image -i guest-usernet.cpio.gz -m 128 -c 1 \
	</tmp/ctl >/tmp/u1.log 2>&1 &
pid=$!
exec 3>/tmp/ctl
wait_for guest-serving /tmp/u1.log
echo go >&3
wait $pid
rc=$?
exec 3>&-
sed 's/^/  | /' /tmp/u1.log
kill $dns_pid 2>/dev/null
cat /tmp/dnsq
t default-status [ $rc -eq 0 ]
t default-carrier-up has "guest-carrier-at-start: 1" /tmp/u1.log
t default-dhcp has "guest-dhcp: ip=192.168.33.15 mask=24 router=192.168.33.1 dns=192.168.33.1" /tmp/u1.log
t default-http-from-host has "guest-host-file-md5: $host_md5" /tmp/u1.log
t default-dns-reaches-host grep -q "query rvkvm-probe.example" /tmp/dnsq
t default-dns-answered has "guest-dns: 192.0.2.53" /tmp/u1.log
t default-passt-reaped [ -z "$(own_pidof passt)" ]

# 2. Socket mode (vhost=0), a port forward into the guest; then passt
# dies under the guest.
rm -f /tmp/ctl
mkfifo /tmp/ctl
./lkvm run $irqchip_args --debug -k Image -i guest-usernet.cpio.gz -m 128 \
	-c 1 -n mode=user,vhost=0,fwd=tcp:18080:8080 </tmp/ctl >/tmp/u2.log 2>&1 &
pid=$!
exec 3>/tmp/ctl
wait_for guest-serving /tmp/u2.log
wget -q -T 30 -O /tmp/blob http://127.0.0.1:18080/blob
blob_md5=$(md5sum /tmp/blob | cut -d' ' -f1)
echo "host-blob-md5: $blob_md5 ($(wc -c </tmp/blob) bytes)"
passt_pid=$(own_pidof passt)
t fwd-passt-running [ -n "$passt_pid" ]
kill -9 $passt_pid
echo carrier >&3
wait_for "guest-carrier:" /tmp/u2.log
t killed-lkvm-still-running kill -0 $pid
echo go >&3
wait $pid
rc=$?
exec 3>&-
sed 's/^/  | /' /tmp/u2.log
t socket-mode-chosen has "user-mode NIC 0: passt's socket mode (vhost=0)" /tmp/u2.log
t socket-mode-no-vhost-user lacks "over vhost-user" /tmp/u2.log
t fwd-tcp-transfer has "guest-blob-md5: $blob_md5" /tmp/u2.log
t fwd-size [ "$(wc -c </tmp/blob)" -eq 1048576 ]
t killed-link-down has "guest-carrier: 0 operstate: down" /tmp/u2.log
t killed-one-line [ "$(grep -c 'user-mode network: passt' /tmp/u2.log)" -eq 1 ]
t killed-says-signal has "passt killed by signal 9" /tmp/u2.log
t killed-guest-went-on has "guest-done" /tmp/u2.log
t killed-status [ $rc -eq 0 ]
t killed-no-zombie [ -z "$(own_pidof passt)" ]

# 3. No passt on PATH: the default NIC is left out, mode=user fails.
oldpath=$PATH
PATH=/bin
lkvm /tmp/u3.log -k Image -i guest-usernet.cpio.gz -m 128 -c 1
PATH=$oldpath
t no-passt-default-status [ $rc -eq 0 ]
t no-passt-default-warns [ "$(grep -c 'passt is not installed' /tmp/u3.log)" -eq 1 ]
t no-passt-default-no-nic has "guest-no-eth0" /tmp/u3.log
PATH=/bin ./lkvm run $irqchip_args -k Image -i guest-usernet.cpio.gz \
	-m 128 -c 1 -n mode=user >/tmp/u4.log 2>&1 </dev/null
rc=$?
sed 's/^/  | /' /tmp/u4.log
t no-passt-explicit-status-1 [ $rc -eq 1 ]
t no-passt-explicit-says-why has "mode=user needs passt" /tmp/u4.log
t no-passt-explicit-one-error [ "$(grep -c 'error' /tmp/u4.log)" -eq 1 ]

# 4. -n mode=none: no NIC even with passt installed.
lkvm /tmp/u5.log -k Image -i guest-usernet.cpio.gz -m 128 -c 1 -n mode=none
t none-status [ $rc -eq 0 ]
t none-no-nic has "guest-no-eth0" /tmp/u5.log
t none-no-passt lacks "passt" /tmp/u5.log

# 5. --no-dhcp: passt answers no DHCP.  The passt on PATH is a wrapper
# whose text does not name --vhost-user, as an older passt's would not:
# the default NIC silently stays in socket mode (--debug says why).
mkdir -p /tmp/oldpasst
printf '#!/bin/sh\nexec %s "$@"\n' "$(command -v passt)" >/tmp/oldpasst/passt
chmod 755 /tmp/oldpasst/passt
rm -f /tmp/ctl
mkfifo /tmp/ctl
PATH=/tmp/oldpasst:$PATH ./lkvm run $irqchip_args --debug -k Image \
	-i guest-usernet.cpio.gz -m 128 -c 1 --no-dhcp </tmp/ctl >/tmp/u6.log 2>&1 &
pid=$!
exec 3>/tmp/ctl
wait_for guest-serving /tmp/u6.log
echo go >&3
wait $pid
rc=$?
exec 3>&-
sed 's/^/  | /' /tmp/u6.log
t no-dhcp-status [ $rc -eq 0 ]
t no-dhcp-no-lease has "guest-dhcp-failed" /tmp/u6.log
t no-dhcp-static-works has "guest-host-file-md5: $host_md5" /tmp/u6.log
t old-passt-socket-mode has "user-mode NIC 0: passt's socket mode (the installed passt has no --vhost-user (too old))" /tmp/u6.log
t old-passt-no-vhost-user lacks "over vhost-user" /tmp/u6.log
t old-passt-no-error lacks "lkvm: error" /tmp/u6.log

# 6. A passt that fails at start-up: lkvm does not wait for passt before
# the guest runs, yet the run ends as if it had: passt's message, one
# line, status 1 (the guest is stopped wherever its boot had got to).
mkdir -p /tmp/badpasst
printf '#!/bin/sh\nsleep 1\necho "passt: cannot bind" >&2\nexit 1\n' \
	>/tmp/badpasst/passt
chmod 755 /tmp/badpasst/passt
PATH=/tmp/badpasst:$PATH lkvm /tmp/u7.log -k Image -i guest-usernet.cpio.gz \
	-m 128 -c 1 -n mode=user,vhost=0
t failed-passt-status-1 [ $rc -eq 1 ]
t failed-passt-message has "passt: cannot bind" /tmp/u7.log
t failed-passt-says-why has "lkvm: error: user-mode network: passt exited with status 1 at start-up" /tmp/u7.log
t failed-passt-one-error [ "$(grep -c 'lkvm: error' /tmp/u7.log)" -eq 1 ]
t failed-passt-no-result lacks "rvkvm-guest-result" /tmp/u7.log
t failed-passt-reaped [ -z "$(own_pidof passt)" ]
exit $fail

#!/bin/sh
# Guest side of lkvm-usernet.  Without a NIC: say so and power off.  With
# one: DHCP (busybox udhcpc) on the user-mode network, an HTTP fetch from
# the host's own server at the gateway, a DNS query, then serve a blob over
# HTTP for a port forward and follow the host's commands on stdin:
# "carrier" waits until eth0's carrier drops (passt killed), "go" ends.
if ! ip link show eth0 >/dev/null 2>&1; then
	echo "guest-no-eth0"
	exit 0
fi
cat >/tmp/udhcpc.sh <<'S'
#!/bin/sh
if [ "$1" = bound ]; then
	ip addr add "$ip/$mask" dev "$interface"
	ip route add default via "$router"
	echo "nameserver $dns" >/etc/resolv.conf
	echo "guest-dhcp: ip=$ip mask=$mask router=$router dns=$dns"
fi
S
chmod 755 /tmp/udhcpc.sh
ip link set eth0 up
echo "guest-carrier-at-start: $(cat /sys/class/net/eth0/carrier)"
if udhcpc -i eth0 -n -q -t 5 -T 2 -s /tmp/udhcpc.sh >/tmp/udhcpc.log 2>&1; then
	grep "guest-dhcp:" /tmp/udhcpc.log
	echo "guest-dhcp-ok"
else
	echo "guest-dhcp-failed"
	ip addr add 192.168.33.15/24 dev eth0
	ip route add default via 192.168.33.1
fi
if wget -q -T 20 -O /tmp/hostfile http://192.168.33.1:8000/hostfile; then
	echo "guest-host-file-md5: $(md5sum /tmp/hostfile | cut -d' ' -f1)"
fi
# A name through the DNS server DHCP named (passt sends the query on to
# the host's resolver).
timeout 10 nslookup rvkvm-probe.example >/tmp/ns.log 2>&1
echo "guest-dns: $(grep -o "192\.0\.2\.53" /tmp/ns.log | head -1)"
mkdir -p /tmp/www
dd if=/dev/urandom of=/tmp/www/blob bs=64k count=16 2>/dev/null
echo "guest-blob-md5: $(md5sum /tmp/www/blob | cut -d' ' -f1)"
httpd -p 8080 -h /tmp/www
echo "guest-serving"
while read -r cmd; do
	case "$cmd" in
	carrier)
		i=0
		while [ "$(cat /sys/class/net/eth0/carrier)" != 0 ] &&
			[ $i -lt 100 ]; do
			sleep 0.1
			i=$((i + 1))
		done
		echo "guest-carrier: $(cat /sys/class/net/eth0/carrier) operstate: $(cat /sys/class/net/eth0/operstate)"
		;;
	go) break ;;
	esac
done
echo "guest-done"

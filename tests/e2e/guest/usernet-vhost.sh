#!/bin/sh
# Guest side of lkvm-usernet-vhost (the same on every boot): DHCP from
# passt (busybox udhcpc), an HTTP fetch from the host's own server at the
# gateway, then serve a blob over HTTP for a port forward and follow the
# host's commands on stdin: "reboot" reboots (SBI SRST), "carrier" waits
# until eth0's carrier drops (passt killed), "go" ends (power off).
cat >/tmp/udhcpc.sh <<'S'
#!/bin/sh
if [ "$1" = bound ]; then
	ip addr add "$ip/$mask" dev "$interface"
	ip route add default via "$router"
	echo "guest-dhcp: ip=$ip mask=$mask router=$router"
fi
S
chmod 755 /tmp/udhcpc.sh
ip link set eth0 up || echo "guest-no-eth0"
if udhcpc -i eth0 -n -q -t 5 -T 2 -s /tmp/udhcpc.sh >/tmp/udhcpc.log 2>&1; then
	grep "guest-dhcp:" /tmp/udhcpc.log
else
	echo "guest-dhcp-failed"
fi
if wget -q -T 20 -O /tmp/hostfile http://192.168.33.1:8000/hostfile; then
	echo "guest-host-file-md5: $(md5sum /tmp/hostfile | cut -d' ' -f1)"
fi
mkdir -p /tmp/www
dd if=/dev/urandom of=/tmp/www/blob bs=64k count=16 2>/dev/null
echo "guest-blob-md5: $(md5sum /tmp/www/blob | cut -d' ' -f1)"
httpd -p 8080 -h /tmp/www
echo "guest-serving"
while read -r cmd; do
	case "$cmd" in
	reboot)
		echo "guest-rebooting"
		sleep 0.5
		reboot -f
		;;
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

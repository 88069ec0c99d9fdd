#!/bin/sh
# Guest side of lkvm-usernet-default (the default NIC, passt over
# vhost-user): DHCP from passt (busybox udhcpc), an HTTP fetch from the
# host's own server at the gateway, then the host's commands on stdin:
# "fetch" starts a long HTTP download (the host kills passt during it),
# "carrier" waits until eth0's carrier drops and then for the download's
# end, "go" ends (power off).
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
echo "guest-ready"
while read -r cmd; do
	case "$cmd" in
	fetch)
		(wget -q -T 10 -O - http://192.168.33.1:8000/big | wc -c \
			>/tmp/big.bytes) &
		fetch=$!
		# Under way once bytes flow.
		sleep 1
		echo "guest-fetching"
		;;
	carrier)
		i=0
		while [ "$(cat /sys/class/net/eth0/carrier)" != 0 ] &&
			[ $i -lt 100 ]; do
			sleep 0.1
			i=$((i + 1))
		done
		echo "guest-carrier: $(cat /sys/class/net/eth0/carrier) operstate: $(cat /sys/class/net/eth0/operstate)"
		wait $fetch
		echo "guest-big-bytes: $(cat /tmp/big.bytes)"
		;;
	go) break ;;
	esac
done
echo "guest-done"

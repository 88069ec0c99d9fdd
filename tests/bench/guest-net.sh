#!/bin/sh
# Guest side of the network benchmark: push 16 MiB over TCP to the host
# (busybox dd | nc to 192.168.33.1:5001; the host times it).  The address
# comes by DHCP on a user-mode network (lkvm's passt, kvmtool's uip), or
# is set statically with "rvkvm.net=static" on the command line (a tap).
cat >/tmp/udhcpc.sh <<'S'
#!/bin/sh
[ "$1" = bound ] && ip addr add "$ip/$mask" dev "$interface"
exit 0
S
chmod 755 /tmp/udhcpc.sh
ip link set eth0 up
case " $(cat /proc/cmdline) " in
*" rvkvm.net=static "*) ip addr add 192.168.33.15/24 dev eth0 ;;
*) udhcpc -i eth0 -n -q -t 5 -T 2 -s /tmp/udhcpc.sh >/dev/null 2>&1 ;;
esac
dd if=/dev/zero bs=64k count=256 2>/dev/null | timeout 300 nc 192.168.33.1 5001
echo "guest-net-sent"

#!/bin/sh
# Guest side of lkvm-net: configure eth0, ping the host, serve a random
# blob over HTTP (TCP) for the host to fetch, wait for the host's "go".
ip link set eth0 up
ip addr add 192.168.33.15/24 dev eth0
if ping -c 3 -W 2 192.168.33.1 >/dev/null; then
	echo "guest-ping-ok"
fi
mkdir -p /tmp/www
dd if=/dev/urandom of=/tmp/www/blob bs=64k count=32 2>/dev/null
echo "guest-blob-md5: $(md5sum /tmp/www/blob | cut -d' ' -f1)"
httpd -p 8080 -h /tmp/www
echo "guest-serving"
read -r go

#!/bin/sh
# Guest side of the network benchmark: serve 16 MiB over HTTP for the host
# to fetch through the tap, then wait for the host's "go".
ip link set eth0 up
ip addr add 192.168.33.15/24 dev eth0
mkdir -p /tmp/www
dd if=/dev/zero of=/tmp/www/blob bs=1M count=16 2>/dev/null
httpd -p 8080 -h /tmp/www
echo "guest-serving"
read -r go

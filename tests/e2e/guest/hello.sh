#!/bin/sh
# Guest side: report the harts and the console the guest sees.
echo "guest-hello: $(grep -c ^processor /proc/cpuinfo) cpu(s) online: $(cat /sys/devices/system/cpu/online)"
echo "guest-console: $(cat /sys/class/tty/console/active)"
echo "guest-$(grep -m1 mvendorid /proc/cpuinfo | tr -d '\t ')"
echo "guest-virtio-consoles: $(ls /sys/bus/virtio/drivers/virtio_console 2>/dev/null | grep -c '^virtio')"

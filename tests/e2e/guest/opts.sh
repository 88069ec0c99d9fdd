#!/bin/sh
# Guest side of lkvm-opts: what the kvmtool-style options gave the guest.
echo "guest-opts-cpus: $(grep -c ^processor /proc/cpuinfo)"
echo "guest-opts-memtotal-kb: $(awk '/^MemTotal:/ { print $2 }' /proc/meminfo)"
echo "guest-opts-cmdline: $(cat /proc/cmdline)"
echo "guest-opts-disks: $(ls /sys/block | grep -c '^vd')"
echo "guest-opts-rng: $(cat /sys/class/misc/hw_random/rng_current 2>/dev/null)"
echo "guest-opts-$(grep -m1 mvendorid /proc/cpuinfo | tr -d '\t ')"

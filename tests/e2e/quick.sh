#!/bin/sh
# Runs in the emulated host for 'make check-quick': one lkvm guest boot
# with 2 vCPUs on lkvm's defaults for the host (the case's ./irqchip file
# may ask for an interrupt controller), to init and back, with a disk.
. ./lib.sh

dd if=/dev/zero of=/tmp/q.img bs=1 count=0 seek=16M 2>/dev/null
lkvm /tmp/q.log -k Image -i guest-hello.cpio.gz -m 128 -c 2 -d /tmp/q.img
t quick-status [ $rc -eq 0 ]
t quick-both-harts has "guest-hello: 2 cpu(s) online: 0-1" /tmp/q.log
t quick-poweroff has "rvkvm-guest-result: 0" /tmp/q.log
exit $fail

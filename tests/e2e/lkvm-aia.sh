#!/bin/sh
# Runs in an emulated host with an AIA: lkvm boots a 2-vCPU guest.
. ./lib.sh
lkvm /tmp/c2.log -k Image -i guest-hello.cpio.gz -m 128 -c 2
t aia-host-boot-status [ $rc -eq 0 ]
t aia-host-boot-both-harts has "guest-hello: 2 cpu(s) online: 0-1" /tmp/c2.log
exit $fail

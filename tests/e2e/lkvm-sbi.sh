#!/bin/sh
# Runs in the emulated host: a bare-metal guest's unknown SBI calls get
# NOT_SUPPORTED and it keeps running; --dump-dtb writes the tree and the VM
# still runs (the DTB is printed in base64 for lkvm-sbi.post to decompile).
. ./lib.sh

lkvm /tmp/sbi.log -k sbi-probe.Image --console hv -m 64 -c 1
t sbi-unknown-not-supported has "sbi-probe: unknown OK" /tmp/sbi.log
t sbi-dbcn-outside-ram-invalid-param has "sbi-probe: dbcn-bad OK" /tmp/sbi.log
t sbi-guest-keeps-running has "sbi-probe: done" /tmp/sbi.log
t sbi-guest-poweroff-status [ $rc -eq 0 ]
t sbi-unknown-logged has "not supported" /tmp/sbi.log

lkvm /tmp/dtb.log -k Image -i guest-hello.cpio.gz -m 128 -c 2 --dump-dtb /tmp/guest.dtb
t dump-dtb-vm-runs has "guest-hello: 2 cpu(s)" /tmp/dtb.log
t dump-dtb-status [ $rc -eq 0 ]
t dump-dtb-written [ -s /tmp/guest.dtb ]
echo "DTB-BEGIN"
base64 /tmp/guest.dtb
echo "DTB-END"
exit $fail

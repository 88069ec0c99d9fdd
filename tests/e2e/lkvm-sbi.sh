#!/bin/sh
# Runs in the emulated host: a bare-metal guest's unknown SBI calls get
# NOT_SUPPORTED and it keeps running; --dump-dtb writes the tree and the VM
# still runs (the DTB is printed in base64 for lkvm-sbi.post to decompile);
# --custom-mvendorid, --disable-EXT and --hugetlbfs reach KVM.
. ./lib.sh

lkvm /tmp/sbi.log -k sbi-probe.Image --nodefaults --console hv -m 64 -c 1
t sbi-unknown-not-supported has "sbi-probe: unknown OK" /tmp/sbi.log
t sbi-dbcn-outside-ram-invalid-param has "sbi-probe: dbcn-bad OK" /tmp/sbi.log
t sbi-guest-keeps-running has "sbi-probe: done" /tmp/sbi.log
t sbi-guest-poweroff-status [ $rc -eq 0 ]
t sbi-unknown-logged has "not supported" /tmp/sbi.log

lkvm /tmp/dtb.log -k Image -i guest-hello.cpio.gz -m 128 -c 2 \
	--dump-dtb /tmp/guest.dtb --custom-mvendorid 0x5a5a
t dump-dtb-vm-runs has "guest-hello: 2 cpu(s)" /tmp/dtb.log
t custom-mvendorid-seen-by-guest has "guest-mvendorid:0x5a5a" /tmp/dtb.log
t dump-dtb-status [ $rc -eq 0 ]
t dump-dtb-written [ -s /tmp/guest.dtb ]
# ISA extensions: d can be hidden from the guest, zicsr cannot (KVM refuses,
# in 7.3 as in 6.12; lkvm warns and goes on).
lkvm /tmp/isa.log -k sbi-probe.Image --nodefaults --console hv -m 64 -c 1 \
	--disable-d --disable-zicsr --dump-dtb /tmp/isa.dtb
t disable-ext-runs [ $rc -eq 0 ]
t disable-d-hidden grep -q 'rv64imafc_' /tmp/isa.dtb
t disable-zicsr-refused-warns has "KVM refuses to disable ISA extension 'zicsr'" /tmp/isa.log
t disable-zicsr-kept grep -q zicsr /tmp/isa.dtb

# Guest RAM from hugetlbfs.
echo 80 >/proc/sys/vm/nr_hugepages
mkdir -p /mnt/huge && mount -t hugetlbfs none /mnt/huge
lkvm /tmp/huge.log -k Image -i guest-hello.cpio.gz -m 128 -c 1 --hugetlbfs /mnt/huge
t hugetlbfs-boots [ $rc -eq 0 ]
t hugetlbfs-init has "guest-hello: 1 cpu(s)" /tmp/huge.log
lkvm /tmp/nohuge.log -k Image -m 128 -c 1 --hugetlbfs /tmp
t hugetlbfs-not-a-mount-status [ $rc -eq 1 ]
t hugetlbfs-not-a-mount-named has "not a hugetlbfs mount" /tmp/nohuge.log

echo "DTB-BEGIN"
base64 /tmp/guest.dtb
echo "DTB-END"
exit $fail

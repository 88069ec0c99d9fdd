#!/bin/sh
# Runs in the emulated host: kvmtool's run options as a kvmtool user types
# them (many on one line), --firmware, no -k (kvmtool's kernel search), --tty,
# the options refused at run time naming what the host lacks, and the
# seccomp filter (on by default: a forbidden system call ends lkvm with
# status 5 and a line naming it).
. ./lib.sh

# One kvmtool-style line: -m in hex, --cpu-type min with extensions,
# kvmtool's SBI names, the debug options, a read-only disk, rng.
lkvm /tmp/kt.log --name opts-guest --cpus 2 --mem 0x100 --console serial \
	--rng --dev /dev/kvm --loglevel debug --debug-ioport --debug-mmio \
	--debug-iodelay 2 --cpu-type min,sstc,zicntr,zicsr,zifencei \
	--disable-sbi-legacy --disable-sbi-susp --custom-mvendorid 0x5a5a \
	--dump-dtb /tmp/min.dtb -d test-disk.img,ro -p opts_marker=1 \
	--kernel Image --initrd guest-opts.cpio.gz
t kvmtool-line-status [ $rc -eq 0 ]
t kvmtool-line-summary has "# lkvm run -k Image -m 256 -c 2 --name opts-guest" /tmp/kt.log
t kvmtool-line-cpus has "guest-opts-cpus: 2" /tmp/kt.log
mem=$(tr -d '\r' </tmp/kt.log | sed -n 's/^guest-opts-memtotal-kb: //p')
t kvmtool-line-mem-hex [ "${mem:-0}" -gt 200000 ] && [ "${mem:-0}" -le 262144 ]
t kvmtool-line-params has "guest-opts-cmdline: console=ttyS0 earlycon=sbi root=/dev/vda rw opts_marker=1" /tmp/kt.log
t kvmtool-line-disk has "guest-opts-disks: 1" /tmp/kt.log
t kvmtool-line-rng has "guest-opts-rng: virtio_rng" /tmp/kt.log
t kvmtool-line-mvendorid has "guest-opts-mvendorid:0x5a5a" /tmp/kt.log
t kvmtool-line-iodelay-engine has "thread pool, 4 threads, --debug-iodelay" /tmp/kt.log
t kvmtool-line-seccomp-on has "seccomp: filter loaded" /tmp/kt.log
t cpu-type-min-base grep -q 'rv64imafdc' /tmp/min.dtb

# --cpu-type max (the default) keeps what min hides (zicboz: KVM, 6.12 as
# 7.3, can hide it, and QEMU's rv64 host has it).
lkvm /tmp/max.log -k Image -i guest-opts.cpio.gz -m 128 -c 1 --cpu-type max \
	--dump-dtb /tmp/max.dtb
t cpu-type-max-status [ $rc -eq 0 ]
t cpu-type-max-has-zicboz grep -q zicboz /tmp/max.dtb
t cpu-type-min-hides-zicboz sh -c '! grep -q zicboz /tmp/min.dtb'

# -m with a leading 0 and a suffix: decimal, as kvmtool's (never octal).
lkvm /tmp/dec.log -k Image -i guest-opts.cpio.gz -m 0200M -c 1
t mem-leading-0-status [ $rc -eq 0 ]
t mem-leading-0-decimal has "# lkvm run -k Image -m 200 -c 1" /tmp/dec.log

# No -k: kvmtool's search finds the host's /boot/vmlinuz-$(uname -r).
mkdir -p /boot
cp Image /boot/vmlinuz-$(uname -r)
lkvm /tmp/nok.log -i guest-opts.cpio.gz -m 128 -c 1
t no-k-status [ $rc -eq 0 ]
t no-k-boot-kernel has "# lkvm run -k /boot/vmlinuz-$(uname -r) -m 128" /tmp/nok.log
rm -f /boot/vmlinuz-$(uname -r)

# --firmware: the bare-metal sbi-probe run from the start of RAM.
lkvm /tmp/fw.log --firmware sbi-probe.Image --console hv -m 64 -c 1
t firmware-status [ $rc -eq 0 ]
t firmware-summary has "# lkvm run --firmware sbi-probe.Image" /tmp/fw.log
t firmware-runs has "sbi-probe: unknown OK" /tmp/fw.log
t firmware-done has "sbi-probe: done" /tmp/fw.log
lkvm /tmp/fwk.log --firmware sbi-probe.Image -k Image -m 64
t firmware-and-kernel-status [ $rc -eq 2 ]
t firmware-and-kernel-named has "only one of --kernel and --firmware" /tmp/fwk.log

# --tty 0: the guest console on a new pty, not on lkvm's stdout.
mkdir -p /dev/pts
grep -q devpts /proc/mounts || mount -t devpts devpts /dev/pts
./lkvm run $irqchip_args --tty 0 -k Image -i guest-opts.cpio.gz -m 128 -c 1 \
	>/tmp/tty.out 2>/tmp/tty.log </dev/null &
pid=$!
n=0
while ! grep -q "is on pty" /tmp/tty.log && [ $n -lt 100 ]; do
	sleep 0.1
	n=$((n + 1))
done
pts=$(sed -n 's/.*guest terminal 0 is on pty \(.*\)$/\1/p' /tmp/tty.log)
cat "${pts:-/dev/null}" >/tmp/tty.guest 2>/dev/null &
cat_pid=$!
wait $pid
rc=$?
sleep 1
kill $cat_pid 2>/dev/null
sed 's/^/  | /' /tmp/tty.log
echo "  (lkvm exit status $rc, pty ${pts:-none})"
t tty-status [ $rc -eq 0 ]
t tty-pty-named [ -n "$pts" ]
t tty-guest-on-pty has "guest-opts-cpus: 1" /tmp/tty.guest
t tty-not-on-stdout lacks "guest-opts-cpus" /tmp/tty.out

# Refused at run time, naming what the host KVM lacks (status 1); the
# --suspend-seconds checks are in lkvm-boottest.
lkvm /tmp/step.log -k Image -m 64 --debug-single-step
t single-step-status [ $rc -eq 1 ]
t single-step-named has "cannot single-step" /tmp/step.log
# Refused at parse time (status 2): the host's own vsock CID; passt's
# vhost-user back-end on hugetlbfs RAM (it maps a sealed memfd).
lkvm /tmp/vsock.log -k Image --vsock 2
t vsock-host-cid-status [ $rc -eq 2 ]
t vsock-host-cid-named has "lkvm: error: --vsock 2: a guest's CID is 3 to 4294967294" /tmp/vsock.log
lkvm /tmp/vhost.log -k Image -n mode=user,vhost=1 --hugetlbfs /dev/hugepages
t vhost-status [ $rc -eq 2 ]
t vhost-named has "cannot be combined with -n mode=user,vhost=1" /tmp/vhost.log

# seccomp: the test hook makes one forbidden call after the filter loads.
export LKVM_TEST_SECCOMP_VIOLATION=1
lkvm /tmp/sc.log -k Image -i guest-opts.cpio.gz -m 128 -c 1
t seccomp-kill-status [ $rc -eq 5 ]
t seccomp-kill-named has "lkvm: seccomp: forbidden system call personality (number " /tmp/sc.log
lkvm /tmp/nosc.log --no-seccomp -k Image -i guest-opts.cpio.gz -m 128 -c 1
t no-seccomp-status [ $rc -eq 0 ]
t no-seccomp-guest-ran has "guest-opts-cpus: 1" /tmp/nosc.log
unset LKVM_TEST_SECCOMP_VIOLATION
exit $fail

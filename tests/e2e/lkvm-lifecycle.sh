#!/bin/sh
# Runs in the emulated host: guest reboot boots again (with the images
# read again) and poweroff then ends with 0; Ctrl-A x and SIGTERM stop
# with status 3; a gzip'd kernel boots; bad kernels, an initrd too big for
# lowmem and bad options are refused with their documented statuses.
. ./lib.sh

# Reboot: the guest waits for "go" before rebooting; meanwhile the initrd
# file is replaced, so the second boot runs the other image and powers off.
cp guest-reboot.cpio.gz /tmp/initrd.cpio.gz
mkfifo /tmp/ctl
(timeout 200 ./lkvm run $irqchip_args -k Image -i /tmp/initrd.cpio.gz -m 128 -c 2 \
	</tmp/ctl >/tmp/rb.log 2>&1; echo $? >/tmp/rb.rc) &
exec 3>/tmp/ctl
i=0
while ! grep -q guest-ready-to-reboot /tmp/rb.log && [ $i -lt 150 ]; do
	sleep 1
	i=$((i + 1))
done
cp guest-hello.cpio.gz /tmp/initrd.new && mv /tmp/initrd.new /tmp/initrd.cpio.gz
echo go >&3
wait
exec 3>&-
sed 's/^/  | /' /tmp/rb.log
t reboot-guest-rebooted has "guest-rebooting (go)" /tmp/rb.log
t reboot-lkvm-reset has "lkvm: guest reboot (1)" /tmp/rb.log
t reboot-boots-again has "guest-hello: 2 cpu(s) online: 0-1" /tmp/rb.log
t reboot-then-poweroff-status [ "$(cat /tmp/rb.rc)" = 0 ]

# Ctrl-A x on piped input stops the VM.
printf 'abc\001x' | timeout 60 ./lkvm run $irqchip_args -k Image -i guest-hello.cpio.gz \
	-m 128 -c 1 >/tmp/ca.log 2>&1
rc=$?
sed 's/^/  | /' /tmp/ca.log
t ctrl-a-x-status [ $rc -eq 3 ]
t ctrl-a-x-says-why has "lkvm: error: stopped by Ctrl-A x" /tmp/ca.log

# SIGTERM: an orderly stop.
./lkvm run $irqchip_args -k Image -i guest.cpio.gz -m 128 -c 1 </dev/null >/tmp/term.log 2>&1 &
pid=$!
sleep 4
kill -TERM $pid
wait $pid
rc=$?
sed 's/^/  | /' /tmp/term.log
t sigterm-status [ $rc -eq 3 ]
t sigterm-says-why has "stopped by Terminated" /tmp/term.log

# A gzip'd kernel boots.
gzip -1 -c Image >/tmp/Image.gz
lkvm /tmp/gz.log -k /tmp/Image.gz -i guest-hello.cpio.gz -m 128 -c 1
t gzip-kernel-boots [ $rc -eq 0 ]
t gzip-kernel-init has "guest-hello: 1 cpu(s)" /tmp/gz.log

# Host-side errors: one line naming the problem, status 1; usage: 2.
head -c 65536 /dev/urandom >/tmp/junk
lkvm /tmp/junk.log -k /tmp/junk -m 128 -c 1
t corrupt-kernel-status [ $rc -eq 1 ]
t corrupt-kernel-named has "/tmp/junk" /tmp/junk.log
t corrupt-kernel-one-line [ "$(grep -c 'lkvm: error' /tmp/junk.log)" -eq 1 ]
head -c 40 Image >/tmp/trunc
lkvm /tmp/trunc.log -k /tmp/trunc -m 128 -c 1
t truncated-kernel-status [ $rc -eq 1 ]
t truncated-kernel-named has "/tmp/trunc" /tmp/trunc.log
lkvm /tmp/nokernel.log -k /tmp/does-not-exist -m 128 -c 1
t missing-kernel-status [ $rc -eq 1 ]
dd if=/dev/zero of=/tmp/big bs=1 count=0 seek=260M 2>/dev/null
lkvm /tmp/big.log -k Image -i /tmp/big -m 512 -c 1
t initrd-too-big-status [ $rc -eq 1 ]
t initrd-too-big-named has "/tmp/big" /tmp/big.log
rm -f /tmp/big
lkvm /tmp/opt.log --bogus-option -k Image
t bad-option-status [ $rc -eq 2 ]
t bad-option-named has "bogus-option" /tmp/opt.log
lkvm /tmp/mem.log -k Image -m 12abc
t bad-size-status [ $rc -eq 2 ]
./lkvm run --help >/tmp/help.log 2>&1
t help-status [ $? -eq 0 ]
t help-exit-statuses has "Exit status" /tmp/help.log
exit $fail

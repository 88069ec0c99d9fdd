#!/bin/sh
# Runs in the emulated host: lkvm boots Linux guests to init with 1 and 2
# vCPUs, on the serial, SBI (hv) and virtio consoles; piped stdin reaches
# the guest on the serial and hv consoles; the guest reads /dev/hwrng.
. ./lib.sh

lkvm /tmp/c1.log -k Image -i guest-hello.cpio.gz -m 128 -c 1
t boot-1cpu-status [ $rc -eq 0 ]
t boot-1cpu-init has "guest-hello: 1 cpu(s) online: 0$" /tmp/c1.log
t boot-1cpu-poweroff has "rvkvm-guest-result: 0" /tmp/c1.log
t console-serial-is-ttyS0 has "guest-console: ttyS0" /tmp/c1.log

# The boot log's bytes go through KVM's coalesced MMIO ring while the
# guest polls the UART: each byte's THR write waits for the next exit (the
# LSR read of the byte after) instead of exiting itself, so about one exit
# per byte instead of two (a guest also exits for other devices, and
# for its tty once it opens the port: under 1.5 per batched byte); the
# last ones are out by the end of the run.  --nodefaults: no earlycon,
# so the whole log goes through the UART.
lkvm /tmp/cb.log --debug -k Image -i guest-hello.cpio.gz -m 128 -c 1 \
	--nodefaults -p console=ttyS0
batched=$(sed -n 's/.*; \([0-9]*\) MMIO writes batched.*/\1/p' /tmp/cb.log)
exits=$(sed -n 's/.*exits to user space: \([0-9]*\) MMIO.*/\1/p' /tmp/cb.log)
echo "  console: ${batched:-?} THR writes batched, ${exits:-?} MMIO exits"
t console-batched-status [ $rc -eq 0 ]
t console-batched-writes [ "${batched:-0}" -ge 2000 ]
t console-batched-one-exit-per-byte [ "${exits:-999999}" -lt $((${batched:-0} * 3 / 2)) ]
t console-batched-last-line has "rvkvm-guest-result: 0" /tmp/cb.log

# By default earlycon=sbi: the kernel's first messages come out through
# the SBI debug console, a message per exit, and the UART's console takes
# over where they stopped: the log whole and once (its first and its last
# lines, each once), with less than half the MMIO exits of the run above.
lkvm /tmp/ec.log --debug -k Image -i guest-hello.cpio.gz -m 128 -c 1
ec_exits=$(sed -n 's/.*exits to user space: \([0-9]*\) MMIO.*/\1/p' /tmp/ec.log)
ec_sbi=$(sed -n 's/.*exits to user space: [0-9]* MMIO, \([0-9]*\) SBI.*/\1/p' /tmp/ec.log)
echo "  earlycon: ${ec_exits:-?} MMIO exits, ${ec_sbi:-?} SBI exits"
t earlycon-status [ $rc -eq 0 ]
t earlycon-cmdline has "Kernel command line: console=ttyS0 earlycon=sbi" /tmp/ec.log
t earlycon-sbi0 has "earlycon: sbi0" /tmp/ec.log
t earlycon-sbi-exits [ "${ec_sbi:-0}" -ge 20 ]
t earlycon-first-line-once [ "$(grep -c 'Linux version' /tmp/ec.log)" -eq 1 ]
t earlycon-init-once [ "$(grep -c 'Run /init as init process' /tmp/ec.log)" -eq 1 ]
t earlycon-ttyS0-took-over has "printk: legacy bootconsole \[sbi0\] disabled" /tmp/ec.log
t earlycon-last-line has "rvkvm-guest-result: 0" /tmp/ec.log
t earlycon-fewer-mmio-exits [ "${ec_exits:-999999}" -lt $((${exits:-0} / 2)) ]

lkvm /tmp/c2.log -k Image -i guest-hello.cpio.gz -m 128 -c 2
t boot-2cpu-status [ $rc -eq 0 ]
t boot-2cpu-both-harts has "guest-hello: 2 cpu(s) online: 0-1" /tmp/c2.log

lkvm /tmp/hv.log --console hv -k Image -i guest-hello.cpio.gz -m 128 -c 1
t console-hv-status [ $rc -eq 0 ]
t console-hv-is-hvc0 has "guest-console: hvc0" /tmp/hv.log
t console-hv-init has "guest-hello: 1 cpu(s)" /tmp/hv.log

# The rvkvm kernel has the SBI console at hvc0, so virtio-console is hvc1.
lkvm /tmp/vc.log --console virtio --nodefaults -p console=hvc1 -k Image \
	-i guest-hello.cpio.gz -m 128 -c 1
t console-virtio-status [ $rc -eq 0 ]
t console-virtio-is-hvc1 has "guest-console: hvc1" /tmp/vc.log
t console-virtio-device-bound has "guest-virtio-consoles: 1" /tmp/vc.log
t console-hv-has-no-virtio-console has "guest-virtio-consoles: 0" /tmp/hv.log

lkvm /tmp/rng.log --rng -k Image -i guest-rng.cpio.gz -m 128 -c 1
t virtio-rng-status [ $rc -eq 0 ]
t virtio-rng-is-current has "guest-rng-current: virtio_rng.0" /tmp/rng.log
t virtio-rng-reads has "guest-rng-bytes: 256" /tmp/rng.log
t virtio-rng-nonzero has "guest-rng-nonzero" /tmp/rng.log

# Input typed at a prompt on the virtio console (input sent before the
# guest's driver is ready is dropped by the guest: see the README).
mkfifo /tmp/vin
./lkvm run $irqchip_args --console virtio --nodefaults -p console=hvc1 -k Image \
	-i guest-prompt.cpio.gz -m 128 -c 1 </tmp/vin >/tmp/vin.log 2>&1 &
pid=$!
exec 3>/tmp/vin
i=0
while ! grep -q guest-waiting-for-input /tmp/vin.log && [ $i -lt 900 ]; do
	sleep 0.1
	i=$((i + 1))
done
echo "typed-on-virtio-console" >&3
wait $pid
rc=$?
exec 3>&-
sed 's/^/  | /' /tmp/vin.log
t console-virtio-input-status [ $rc -eq 0 ]
t console-virtio-input-reaches-guest has "guest-got: typed-on-virtio-console" /tmp/vin.log

for console in serial hv; do
	echo "stdin-ping-$console" |
		timeout 120 ./lkvm run $irqchip_args --console $console -k Image \
			-i guest-echo.cpio.gz -m 128 -c 1 >/tmp/in.log 2>&1
	rc=$?
	sed 's/^/  | /' /tmp/in.log
	t stdin-piped-$console-status [ $rc -eq 0 ]
	t stdin-piped-$console-reaches-guest has "guest-got: stdin-ping-$console" /tmp/in.log
done
exit $fail

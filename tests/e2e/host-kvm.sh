#!/bin/sh
# Runs inside the emulated host: KVM initialised with the H extension,
# /dev/kvm present, and kvm-smoke (a one-vCPU VM making SBI calls) passes.
# The host has the interrupt controller scripts/run-host.sh gave it
# ("rvkvm.irqchip=aia|plic" on its command line): an AIA host must have an
# IMSIC and an APLIC and KVM must offer its in-kernel AIA; a PLIC host must
# have a PLIC and no IMSIC.
fail=0
t() {
	name=$1
	shift
	if "$@"; then echo "PASS $name"; else echo "FAIL $name"; fail=1; fi
}
# has_compat STRING: a /soc node of the host's device tree is compatible
# with STRING (node names differ between QEMU versions, compatibles do not).
soc_compats() {
	cat /proc/device-tree/soc/*/compatible | tr '\0' '\n'
}
has_compat() {
	soc_compats | grep -qx "$1"
}
irqchip=
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	rvkvm.irqchip=*) irqchip=${arg#rvkvm.irqchip=} ;;
	esac
done
echo "host irqchip expected: ${irqchip:-(not given)}; /soc has:" \
	$(soc_compats | grep -E '^(riscv,imsics|riscv,aplic|riscv,plic0)$')
dmesg >/tmp/dmesg
t kvm-hypervisor-extension grep -q 'kvm \[1\]: hypervisor extension available' /tmp/dmesg
t dev-kvm test -c /dev/kvm
case "$irqchip" in
aia)
	t host-has-imsic has_compat riscv,imsics
	t host-has-aplic has_compat riscv,aplic
	t kvm-aia-available grep -q 'kvm \[1\]: AIA available' /tmp/dmesg
	;;
plic)
	t host-has-plic has_compat riscv,plic0
	t host-has-no-imsic eval '! has_compat riscv,imsics'
	;;
*)
	t host-irqchip-given false
	;;
esac
./kvm-smoke || fail=1
grep 'kvm \[1\]' /tmp/dmesg
exit $fail

#!/bin/sh
# Runs inside the emulated host: KVM initialised with the H extension,
# /dev/kvm present, and kvm-smoke (a one-vCPU VM making SBI calls) passes.
# The host has the interrupt controller scripts/run-host.sh gave it
# ("rvkvm.irqchip=aia|plic" on its command line): an AIA host must have an
# IMSIC and an APLIC and KVM must offer its in-kernel AIA; a PLIC host must
# have a PLIC and no IMSIC.  On Debian's stock kernel
# ("rvkvm.host-kernel=stock") KVM is a module the host's /init loaded (its
# messages carry modprobe's pid, not 1), and without SBI v0.1 KVM answers
# kvm-smoke's legacy console call itself.
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
irqchip= host_kernel=
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	rvkvm.irqchip=*) irqchip=${arg#rvkvm.irqchip=} ;;
	rvkvm.host-kernel=*) host_kernel=${arg#rvkvm.host-kernel=} ;;
	esac
done
kvm='kvm \[1\]'
smoke=
case "$host_kernel" in
rvkvm) ;;
stock)
	kvm='kvm \[[0-9]*\]'
	smoke=--no-sbi-v01
	t kvm-is-a-module grep -q '^kvm ' /proc/modules
	t vhost-modules-loaded sh -c "grep -q '^vhost_net ' /proc/modules &&
		grep -q '^vhost_vsock ' /proc/modules && grep -q '^tun ' /proc/modules"
	t host-kernel-is-debian sh -c "uname -r | grep -q 'riscv64\$'"
	;;
*) t host-kernel-given false ;;
esac
echo "host irqchip expected: ${irqchip:-(not given)}; /soc has:" \
	$(soc_compats | grep -E '^(riscv,imsics|riscv,aplic|riscv,plic0)$')
dmesg >/tmp/dmesg
t kvm-hypervisor-extension grep -q "$kvm: hypervisor extension available" /tmp/dmesg
t dev-kvm test -c /dev/kvm
case "$irqchip" in
aia)
	t host-has-imsic has_compat riscv,imsics
	t host-has-aplic has_compat riscv,aplic
	t kvm-aia-available grep -q "$kvm: AIA available" /tmp/dmesg
	;;
plic)
	t host-has-plic has_compat riscv,plic0
	t host-has-no-imsic eval '! has_compat riscv,imsics'
	;;
*)
	t host-irqchip-given false
	;;
esac
./kvm-smoke $smoke || fail=1
grep "$kvm" /tmp/dmesg
exit $fail

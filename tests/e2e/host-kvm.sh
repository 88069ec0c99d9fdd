#!/bin/sh
# Runs inside the emulated host: KVM initialised with the H extension,
# /dev/kvm present, and kvm-smoke (a one-vCPU VM making SBI calls) passes.
# On an AIA host KVM must also offer its in-kernel AIA.
fail=0
t() {
	name=$1
	shift
	if "$@"; then echo "PASS $name"; else echo "FAIL $name"; fail=1; fi
}
dmesg >/tmp/dmesg
t kvm-hypervisor-extension grep -q 'kvm \[1\]: hypervisor extension available' /tmp/dmesg
t dev-kvm test -c /dev/kvm
if ls /proc/device-tree/soc | grep -q '^imsics@'; then
	t kvm-aia-available grep -q 'kvm \[1\]: AIA available' /tmp/dmesg
fi
./kvm-smoke || fail=1
grep 'kvm \[1\]' /tmp/dmesg
exit $fail

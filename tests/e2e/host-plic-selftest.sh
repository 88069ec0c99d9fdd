#!/bin/sh
# Runs inside the emulated PLIC host: the KVM selftest of the in-kernel
# PLIC (kernel-patches/, tools/testing/selftests/kvm/riscv/plic_test).
# Every TAP test must say "ok", none may be skipped, and it must exit 0.
fail=0
./plic_test >/tmp/plic_test.log 2>&1
rc=$?
cat /tmp/plic_test.log
plan=$(sed -n 's/^1\.\.\([0-9][0-9]*\)$/\1/p' /tmp/plic_test.log)
n=0
while read -r line; do
	case "$line" in
	"ok "*" # SKIP"*) echo "FAIL selftest: skipped: $line"; fail=1 ;;
	"ok "*) n=$((n + 1)); echo "PASS selftest: ${line#ok }" ;;
	"not ok "*) echo "FAIL selftest: ${line#not ok }"; fail=1 ;;
	esac
done </tmp/plic_test.log
if [ -n "$plan" ] && [ "$n" -eq "$plan" ]; then
	echo "PASS selftest-plan: $n of $plan tests ok"
else
	echo "FAIL selftest-plan: $n tests ok, plan ${plan:-missing}"
	fail=1
fi
if [ $rc -eq 0 ]; then echo "PASS selftest-status"; else echo "FAIL selftest-status $rc"; fail=1; fi
exit $fail

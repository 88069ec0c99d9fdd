#!/bin/sh
# Guest side of lkvm-dump.sh's --dump-on-panic run: panic the kernel
# (sysrq c); its pvpanic driver reports it and lkvm ends the run.
echo "guest-panic-now"
echo c >/proc/sysrq-trigger
echo "guest-panic-survived"

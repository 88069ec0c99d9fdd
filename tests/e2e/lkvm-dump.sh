#!/bin/sh
# Runs in the emulated host, booted with --disk (tests/e2e/cases): 'lkvm
# dump' of a running guest into the host's ext4 /dev/vda, a file on the
# build machine, where lkvm-dump.post opens the core with gdb-multiarch
# and the kernel's vmlinux.  Also: the dump is sparse, the guest runs on
# after it, an existing FILE is refused (and kept), a dump of no guest
# leaves no file, and lkvm stop still ends the run (status 3).  Then a
# guest that panics (sysrq c; pvpanic reports it, status 7) with
# --dump-on-panic leaves its core (and no temporary file) for the post.
. ./lib.sh

export HOME=/tmp/home
mkdir -p $HOME /mnt
t dump-host-disk-mounted mount -t ext4 /dev/vda /mnt
./lkvm run $irqchip_args --name dump-a -k Image -i guest-tick.cpio.gz \
	-m 64 -c 2 </dev/null >/tmp/a.log 2>&1 &
apid=$!
# The nested guest may take more than wait_for's 90 s to come up.
i=0
while ! has "guest-tick 2" /tmp/a.log && [ $i -lt 240 ]; do
	sleep 1
	i=$((i + 1))
done
t dump-guest-up has "guest-tick 2" /tmp/a.log
./lkvm dump -n dump-a /mnt/core >/tmp/d.out 2>&1
rc=$?
cat /tmp/d.out
t dump-exit-0 [ "$rc" -eq 0 ]
t dump-said-where has "dumped to /mnt/core" /tmp/d.out
size=$(ls -l /mnt/core | awk '{print $5}')
kib=$(du -k /mnt/core | cut -f1)
echo "core: $size bytes, $kib KiB allocated"
t dump-holds-ram [ "$size" -gt $((64 << 20)) ]
t dump-sparse [ "$kib" -lt $((size / 1024)) ]
ticks=$(grep -c "^guest-tick" /tmp/a.log)
i=0
while [ "$(grep -c "^guest-tick" /tmp/a.log)" -le "$ticks" ] && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
t dump-guest-runs-on [ "$(grep -c "^guest-tick" /tmp/a.log)" -gt "$ticks" ]
sum=$(md5sum </mnt/core)
./lkvm dump -n dump-a /mnt/core >/tmp/d2.out 2>&1
t dump-refuses-existing-file [ $? -ne 0 ]
cat /tmp/d2.out
t dump-existing-file-kept [ "$(md5sum </mnt/core)" = "$sum" ]
./lkvm dump -n nosuch /mnt/core2 >/dev/null 2>&1
t dump-no-guest-no-file [ ! -e /mnt/core2 ]
./lkvm stop -n dump-a
wait $apid
t dump-run-stopped-3 [ $? -eq 3 ]
grep "lkvm: dump" /tmp/a.log

./lkvm run $irqchip_args --name dump-p -k Image -i guest-panic.cpio.gz \
	-m 64 -c 1 -p panic=-1 --dump-on-panic /mnt/panic.core \
	</dev/null >/tmp/p.log 2>&1
rc=$?
grep -E "^lkvm:|guest-panic" /tmp/p.log
t dump-panic-status-7 [ "$rc" -eq 7 ]
t dump-panic-core-written has "core written to /mnt/panic.core" /tmp/p.log
t dump-panic-core-there [ -s /mnt/panic.core ]
t dump-panic-no-tmp-left [ ! -e /mnt/panic.core.tmp ]
sync
umount /mnt
echo "dump-done"

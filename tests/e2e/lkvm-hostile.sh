#!/bin/sh
# Runs in the emulated host: what a hostile guest tries on lkvm's file
# sharing.  On a --9p share it makes set-uid/set-gid files and chowns and
# chgrps them, then holds its 2 000 files open while lkvm may use 1 024
# descriptors: lkvm strips the set-id bits, refuses the owner changes and
# the opens past its budget (EMFILE), and 'lkvm list' and 'lkvm stop'
# still get their answer.  In a sandbox, /host is the host's / without
# its kernel interfaces: no /host/proc/*/environ or mem, no /host/sys.
. ./lib.sh
export HOME=/tmp/home
mkdir -p $HOME

rm -rf /tmp/share
mkdir -p /tmp/share/many/a /tmp/share/many/b
i=0
while [ $i -lt 1000 ]; do
	: >/tmp/share/many/a/f$i
	: >/tmp/share/many/b/f$i
	i=$((i + 1))
done
(
	ulimit -n 1024
	exec timeout 150 ./lkvm run $irqchip_args --name hostile -k Image \
		-i guest-9p-hostile.cpio.gz -m 128 -c 1 --9p /tmp/share,share \
		>/tmp/h.log 2>&1 </dev/null
) &
hpid=$!
i=0
while ! grep -q "guest-9p-files-held" /tmp/h.log && [ $i -lt 1200 ] &&
	kill -0 $hpid 2>/dev/null; do
	sleep 0.1
	i=$((i + 1))
done
./lkvm list >/tmp/hl.log 2>&1
t list-answers has "hostile" /tmp/hl.log
./lkvm stop -n hostile >/tmp/hs.log 2>&1
t stop-answers [ $? -eq 0 ]
wait $hpid
rc=$?
sed 's/^/  | /' /tmp/h.log
echo "  (lkvm exit status $rc)"
t stopped [ $rc -eq 3 ]
t no-set-id-bits [ "$(stat -c %a /tmp/share/suid)" = 755 ]
t guest-sees-755 has "guest-9p-suid-mode: 755" /tmp/h.log
t owner-kept [ "$(stat -c %u:%g /tmp/share/suid)" = "$(id -u):$(id -g)" ]
t chown-refused has "guest-9p-chown-refused" /tmp/h.log
t chgrp-refused has "guest-9p-chgrp-refused" /tmp/h.log
t files-seen has "guest-9p-files: 2000" /tmp/h.log
# 1 024 less lkvm's reserve of 512: about 1 500 of the 2 000 opens fail.
t opens-refused has "guest-9p-open-refused: 1[0-9][0-9][0-9]" /tmp/h.log
t opens-emfile has "guest-9p-open-error: .*Too many open files" /tmp/h.log

echo hostfs-ok >/tmp/hostfs-marker
sandbox /tmp/sp.log -- sh -c 'cat /host/tmp/hostfs-marker
cat /host/proc/1/environ >/dev/null 2>&1 || echo proc-environ-refused
head -c 64 /host/proc/self/mem >/dev/null 2>&1 || echo proc-mem-refused
ls /host/proc/ >/dev/null 2>&1 || echo proc-refused
ls /host/sys/kernel >/dev/null 2>&1 || echo sys-refused
exit 0'
t hostfs-status [ $rc -eq 0 ]
t hostfs-reads-files has "^hostfs-ok" /tmp/sp.log
t hostfs-no-proc-environ has "proc-environ-refused" /tmp/sp.log
t hostfs-no-proc-mem has "proc-mem-refused" /tmp/sp.log
t hostfs-no-proc has "proc-refused" /tmp/sp.log
t hostfs-no-sys has "sys-refused" /tmp/sp.log
exit $fail

#!/bin/sh
# Guest side of lkvm-hostile: try to plant set-uid/set-gid programs and
# foreign owners on the share, then hold its 2 000 files open (two tail -f
# of 1 000 each) and wait for the host to stop lkvm.
m=/mnt/share
mkdir -p $m
mount -t 9p -o trans=virtio,version=9p2000.L share $m && echo "guest-9p-mounted"
: >$m/suid
chmod 4755 $m/suid
chmod 6755 $m/suid
echo "guest-9p-suid-mode: $(stat -c %a $m/suid)"
chown 65534 $m/suid 2>/dev/null || echo "guest-9p-chown-refused"
chgrp 27 $m/suid 2>/dev/null || echo "guest-9p-chgrp-refused"
echo "guest-9p-files: $(ls $m/many/a $m/many/b | grep -c '^f')"
ulimit -n 4096
tail -f $m/many/a/* >/dev/null 2>/tmp/tail1.err &
tail -f $m/many/b/* >/dev/null 2>/tmp/tail2.err &
# Until both have tried every file: refusals came, and no new one for 3 s
# (at most 90 s).
refused() {
	cat /tmp/tail1.err /tmp/tail2.err | grep -c "can't open"
}
n=-1 same=0 i=0
while [ $same -lt 3 ] && [ $i -lt 90 ]; do
	sleep 1
	m=$(refused)
	if [ "$m" = "$n" ] && [ "$m" -gt 0 ]; then
		same=$((same + 1))
	else
		same=0
	fi
	n=$m
	i=$((i + 1))
done
echo "guest-9p-open-refused: $(refused)"
echo "guest-9p-open-error: $(cat /tmp/tail1.err /tmp/tail2.err | head -1)"
echo "guest-9p-files-held"
sleep 600

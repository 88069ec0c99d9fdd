#!/bin/sh
# Guest side: mount the host's 9p share "share" and use it: read what the
# host put there, write, rename, remove, stat, fsync, sync, run a script
# from it; then try to reach the host file next to the share (../outside)
# through "..", an absolute and a relative symlink and /proc/self/fd.
m=/mnt/share
mkdir -p $m
mount -t 9p -o trans=virtio,version=9p2000.L share $m && echo "guest-9p-mounted"
echo "guest-9p-read: $(cat $m/fromhost.txt)"
echo "guest-9p-ls: $(ls $m | tr '\n' ' ')"
echo guest-to-host >$m/fromguest.txt
dd if=/dev/zero of=$m/synced.bin bs=4k count=4 conv=fsync 2>/dev/null &&
	echo "guest-9p-fsync-ok"
mv $m/tomove.txt $m/moved.txt && echo "guest-9p-mv-ok"
rm $m/remove.txt && echo "guest-9p-rm-ok"
mkdir $m/newdir && rmdir $m/newdir && echo "guest-9p-mkdir-rmdir-ok"
echo "guest-9p-stat: $(stat -c '%s %F' $m/fromhost.txt)"
ln -s fromhost.txt $m/guest-link && echo "guest-9p-readlink: $(readlink $m/guest-link)"
chmod 600 $m/fromguest.txt && echo "guest-9p-chmod: $(stat -c %a $m/fromguest.txt)"
touch $m/fromhost.txt && echo "guest-9p-touch-ok"
sync && echo "guest-9p-sync-ok"
$m/run.sh ok
cat $m/../outside.txt 2>/dev/null || echo "guest-9p-dotdot-refused"
cat $m/abs-link/outside.txt 2>/dev/null || echo "guest-9p-abs-symlink-refused"
cat $m/rel-link/outside.txt 2>/dev/null || echo "guest-9p-rel-symlink-refused"
cat $m/fd-link/../outside.txt 2>/dev/null || echo "guest-9p-procfd-refused"
umount $m && echo "guest-9p-umount-ok"

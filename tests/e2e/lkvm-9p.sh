#!/bin/sh
# Runs in the emulated host: virtio-9p.  A guest mounts a --9p share,
# reads a file the host wrote, writes, renames, removes, stats, fsyncs and
# runs a script on it, and cannot reach the host file next to the share
# through "..", symlinks or /proc/self/fd; on PCI (the default) and on
# virtio-mmio.  Then the sandbox: 'lkvm sandbox -- sh -c "exit 7"' exits
# 7, 'lkvm sandbox -- uname -r' prints the kernel's release, 'lkvm setup
# NAME' makes a root that 'lkvm sandbox -d NAME' and 'lkvm run --sandbox'
# boot, 'lkvm run -d DIR' boots a directory as the root, and a plain
# 'lkvm run -k Image' boots the default root to a shell, as kvmtool.
. ./lib.sh
export HOME=/tmp/home
mkdir -p $HOME

share_init() {
	rm -rf /tmp/share
	mkdir -p /tmp/share
	echo host-to-guest >/tmp/share/fromhost.txt
	echo move-me >/tmp/share/tomove.txt
	echo remove-me >/tmp/share/remove.txt
	printf '#!/bin/sh\necho "guest-9p-script-ran: $1"\n' >/tmp/share/run.sh
	chmod +x /tmp/share/run.sh
	ln -s /tmp /tmp/share/abs-link
	ln -s .. /tmp/share/rel-link
	ln -s /proc/self/fd/3 /tmp/share/fd-link
	echo host-secret >/tmp/outside.txt
}

check_share() {
	tag=$1 log=$2
	t $tag-status [ $rc -eq 0 ]
	t $tag-mounted has "guest-9p-mounted" $log
	t $tag-host-to-guest has "guest-9p-read: host-to-guest" $log
	t $tag-ls has "guest-9p-ls: .*fromhost.txt" $log
	t $tag-guest-to-host grep -qx guest-to-host /tmp/share/fromguest.txt
	t $tag-fsync has "guest-9p-fsync-ok" $log
	t $tag-fsync-size [ "$(wc -c </tmp/share/synced.bin)" -eq 16384 ]
	t $tag-mv sh -c '[ -f /tmp/share/moved.txt ] && [ ! -e /tmp/share/tomove.txt ]'
	t $tag-rm sh -c '[ ! -e /tmp/share/remove.txt ]'
	t $tag-mkdir-rmdir has "guest-9p-mkdir-rmdir-ok" $log
	t $tag-stat has "guest-9p-stat: 14 regular file" $log
	t $tag-symlink [ "$(readlink /tmp/share/guest-link)" = fromhost.txt ]
	t $tag-chmod [ "$(stat -c %a /tmp/share/fromguest.txt)" = 600 ]
	t $tag-touch has "guest-9p-touch-ok" $log
	t $tag-sync has "guest-9p-sync-ok" $log
	t $tag-script has "guest-9p-script-ran: ok" $log
	t $tag-dotdot-refused has "guest-9p-dotdot-refused" $log
	t $tag-abs-symlink-refused has "guest-9p-abs-symlink-refused" $log
	t $tag-rel-symlink-refused has "guest-9p-rel-symlink-refused" $log
	t $tag-procfd-refused has "guest-9p-procfd-refused" $log
	t $tag-no-secret lacks "host-secret" $log
	t $tag-umount has "guest-9p-umount-ok" $log
}

share_init
lkvm /tmp/9p.log -k Image -i guest-9p.cpio.gz -m 128 -c 1 --debug \
	--9p /tmp/share,share
check_share 9p-pci /tmp/9p.log
# --debug counts the requests by type: Tattach (104), Twalk (110).
t 9p-debug-request-counts has "virtio-9p share: requests by type:.* 104:[1-9][0-9]* 110:[1-9]" /tmp/9p.log
share_init
lkvm /tmp/9pm.log -k Image -i guest-9p.cpio.gz -m 128 -c 1 \
	--virtio-transport mmio --9p /tmp/share,share
check_share 9p-mmio /tmp/9pm.log

lkvm /tmp/bad.log -k Image -i guest-9p.cpio.gz --9p /nonexistent,x
t 9p-missing-dir-status [ $rc -eq 1 ]
t 9p-missing-dir-named has "/nonexistent" /tmp/bad.log

# lkvm sandbox, with the default root ~/.lkvm/default made on the way.
sandbox /tmp/s7.log -- sh -c 'echo sandbox-ran; exit 7'
t sandbox-exit-7 [ $rc -eq 7 ]
t sandbox-output has "sandbox-ran" /tmp/s7.log
t sandbox-default-root [ -x $HOME/.lkvm/default/virt/init ]
t sandbox-run-dir-removed sh -c '! ls -d $HOME/.lkvm/default/virt/sandbox-* 2>/dev/null'
sandbox /tmp/su.log -- uname -r
t sandbox-uname-status [ $rc -eq 0 ]
# The guest kernel's release, from its banner in the Image (the host's
# own only when the host runs the same kernel: not on a stock host).
release=$(strings Image | sed -n 's/^Linux version \([^ ]*\) .*/\1/p' | head -1)
# line_starts STR LOG: a line of LOG starts with STR (a kernel message,
# such as a slow host's "hrtimer: interrupt took", may come between the
# tty's text and its "\r\n": the line's end is not the guest's to keep).
line_starts() {
	[ -n "$1" ] && tr -d '\r' <"$2" | awk -v s="$1" 'index($0, s) == 1 { f = 1 } END { exit !f }'
}
t sandbox-uname-r line_starts "$release" /tmp/su.log
# A command's last output, written just before it exits, is out before
# the guest powers off (the sandbox's init drains the console first).
sandbox /tmp/sl.log -- sh -c 'awk "BEGIN { while (i++ < 4000) printf \"x\"; print \"\" }"; echo sandbox-last-line'
t sandbox-last-line-status [ $rc -eq 0 ]
t sandbox-last-line line_starts sandbox-last-line /tmp/sl.log
sandbox /tmp/s0.log -- sh -c 'mount -o remount,rw /host; echo x >/host/tmp/planted; exit 0'
t sandbox-exit-0 [ $rc -eq 0 ]
t sandbox-hostfs-read-only [ ! -e /tmp/planted ]
# A command that reboots the guest: the second boot does not run it again.
sandbox /tmp/sr.log -- reboot -f
t sandbox-reboot-no-status [ $rc -eq 125 ]
t sandbox-reboot-not-rerun has "not running it again" /tmp/sr.log
t sandbox-reboot-said-why has "the guest reported no exit status" /tmp/sr.log

./lkvm setup box >/tmp/setup.log 2>&1
rc=$?
sed 's/^/  | /' /tmp/setup.log
t setup-status [ $rc -eq 0 ]
t setup-root sh -c '[ -d $HOME/.lkvm/box/virt ] && [ "$(readlink $HOME/.lkvm/box/bin)" = /host/bin ]'
./lkvm setup box >/tmp/setup2.log 2>&1
t setup-again-fails [ $? -eq 1 ]
printf '#!/bin/sh\necho "quoted: $1"\nexit 3\n' >/tmp/script.sh
chmod +x /tmp/script.sh
sandbox /tmp/sb.log -d box -- /tmp/script.sh "it's here"
t sandbox-named-root-status [ $rc -eq 3 ]
t sandbox-host-file-quoting has "quoted: it's here" /tmp/sb.log
lkvm /tmp/rs.log -k Image -m 128 -c 1 -d box --sandbox /tmp/script.sh
t run-sandbox-status [ $rc -eq 3 ]

# -d DIR: a directory with busybox as the root file system.
mkdir -p /tmp/droot/bin /tmp/droot/sbin /tmp/droot/proc /tmp/droot/dev
cp /bin/busybox /tmp/droot/bin/busybox
ln -sf busybox /tmp/droot/bin/sh
printf '#!/bin/sh\n/bin/busybox echo "droot-init: $(/bin/busybox cat /proc/cmdline 2>/dev/null)"\n/bin/busybox mount -t proc proc /proc\n/bin/busybox echo "droot-root: $(/bin/busybox grep " / " /proc/mounts)"\n/bin/busybox poweroff -f\n' >/tmp/droot/sbin/init
chmod +x /tmp/droot/sbin/init
lkvm /tmp/d.log -k Image -m 128 -c 1 -d /tmp/droot
t d-dir-status [ $rc -eq 0 ]
t d-dir-init-ran has "droot-init:" /tmp/d.log
t d-dir-root-is-9p has "droot-root: /dev/root / 9p" /tmp/d.log

# kvmtool's plain 'lkvm run -k Image', nothing else to boot: the default
# root ~/.lkvm/default over 9p and a shell on the console, with the host's
# / at /host.  The shell's input goes in once the guest runs its init.
echo host-marker-$((6 * 7)) >/tmp/pr-marker
rm -f /tmp/prin
mkfifo /tmp/prin
timeout 120 ./lkvm run $irqchip_args -k Image -m 128 -c 1 </tmp/prin \
	>/tmp/pr.log 2>&1 &
pid=$!
exec 4>/tmp/prin
i=0
while ! grep -q "Run /virt/init as init process" /tmp/pr.log && [ $i -lt 600 ]; do
	sleep 0.1
	i=$((i + 1))
done
sleep 1
printf '%s\n' 'echo "plain-run-root: $(grep " / " /proc/mounts | cut -d" " -f1-3)"' \
	'echo "plain-run-hostfs: $(cat /host/tmp/pr-marker)"' 'exit 0' >&4
wait $pid
rc=$?
exec 4>&-
sed 's/^/  | /' /tmp/pr.log
t plain-run-status [ $rc -eq 0 ]
t plain-run-root-is-9p has "plain-run-root: /dev/root / 9p" /tmp/pr.log
t plain-run-hostfs has "plain-run-hostfs: host-marker-42" /tmp/pr.log
# kvmtool's command line for that root, ip=dhcp included.
t plain-run-cmdline has "Kernel command line: .*init=/virt/init ip=dhcp" /tmp/pr.log
exit $fail

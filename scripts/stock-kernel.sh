#!/bin/bash
# stock-kernel.sh [OUTDIR] | --update-pin: Debian trixie's stock riscv64
# kernel for the e2e cases (default OUTDIR build/stock-kernel).
#
# Unpacks the package pinned in scripts/riscv64-stock-kernel.txt (cached
# like the sysroot: scripts/sysroot.sh --list), checks that its
# configuration is what the tests assume (the table below: a line that no
# longer holds fails naming the option), and lays out:
#   Image                  the kernel (/boot/vmlinux-*: an EFI-stub Image)
#   release, config        its `uname -r` and its configuration
#   host-modules/          for the emulated host's initramfs: the modules of
#                          HOST_MODULES and what they depend on, decompressed
#                          (busybox's insmod reads plain ELF), under
#                          lib/modules/RELEASE/ with a modules.dep, and
#                          etc/modules naming them for the host's /init
#   guest-modules.cpio.gz  the same for a guest, GUEST_MODULES: an initrd
#                          lkvm adds after the root's (-i twice)
# The package has no modules.dep (depmod runs at installation): the
# dependencies are the "depends=" of each module's .modinfo, which is what
# depmod would find.  --update-pin re-pins to what linux-image-riscv64
# depends on in the mirror now.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

list=$RVKVM_TOP/scripts/riscv64-stock-kernel.txt
fetch=("$RVKVM_TOP/scripts/sysroot.sh" --list "$list" --name stock-kernel-deb
	--repin "scripts/stock-kernel.sh --update-pin")
if [ "${1:-}" = --update-pin ]; then
	exec "${fetch[@]}" --update-pins --pin-from linux-image-riscv64
fi
out=${1:-$RVKVM_BUILD/stock-kernel}

# What the host needs: KVM, taps (lkvm -n mode=tap), vhost-net and
# vhost-vsock (lkvm -n vhost=1, --vsock); the guest: its root on a
# virtio-blk disk (virtio-pci is built in), ext4 and the crc32c it checksums
# with (the kernel would ask a modprobe the initramfs does not have).
HOST_MODULES="kvm tun vhost_net vhost_vsock"
GUEST_MODULES="virtio_blk crc32c_generic ext4"

# OPTION VALUE ("n": not set) the tests rely on: the host's and guest's
# consoles, interrupt controllers and virtio-pci are built in; KVM, the
# vhost and tap drivers and the guest's disk and file system are modules;
# no SBI v0.1 (KVM does not forward the legacy console: kvm-smoke), no SBI
# hvc console and no pvpanic driver (a panicking guest is not reported).
CONFIG_FACTS="
CONFIG_KVM m
CONFIG_MODULE_SIG_FORCE n
CONFIG_BLK_DEV_INITRD y
CONFIG_RD_GZIP y
CONFIG_DEVTMPFS y
CONFIG_SERIAL_8250 y
CONFIG_SERIAL_8250_CONSOLE y
CONFIG_SERIAL_OF_PLATFORM y
CONFIG_SIFIVE_PLIC y
CONFIG_RISCV_APLIC y
CONFIG_RISCV_APLIC_MSI y
CONFIG_RISCV_IMSIC y
CONFIG_PCI_HOST_GENERIC y
CONFIG_VIRTIO_PCI y
CONFIG_IO_URING y
CONFIG_TUN m
CONFIG_VHOST_NET m
CONFIG_VHOST_VSOCK m
CONFIG_VIRTIO_BLK m
CONFIG_EXT4_FS m
CONFIG_CRYPTO_CRC32C m
CONFIG_RISCV_SBI_V01 n
CONFIG_HVC_RISCV_SBI n
CONFIG_PVPANIC n
"

"${fetch[@]}" >/dev/null
deb=$RVKVM_BUILD/stock-kernel-deb
image=$(ls "$deb"/boot/vmlinux-* 2>/dev/null | head -1)
[ -n "$image" ] || die "stock-kernel: no /boot/vmlinux-* in the package of ${list#"$RVKVM_TOP"/}"
release=${image##*/vmlinux-}
config=$deb/boot/config-$release
moddir=$deb/usr/lib/modules/$release
[ -f "$config" ] && [ -d "$moddir" ] ||
	die "stock-kernel: the package lacks /boot/config-$release or /usr/lib/modules/$release"

while read -r opt want; do
	[ -n "$opt" ] || continue
	have=$(sed -n "s/^$opt=//p" "$config")
	[ "${have:-n}" = "$want" ] ||
		die "stock-kernel: $release has $opt=${have:-n}, the tests assume $want (scripts/stock-kernel.sh)"
done <<<"$CONFIG_FACTS"

# Module name (dashes as underscores) -> path under $moddir.
declare -A path=()
while read -r f; do
	n=${f##*/}
	n=${n%.ko.xz}
	path[${n//-/_}]=$f
done < <(cd "$moddir" && find kernel -name '*.ko.xz')

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# depends_of NAME: the modules NAME's .modinfo says it needs.
depends_of() {
	xz -dc "$moddir/${path[$1]}" >"$tmp/m.ko"
	riscv64-linux-gnu-objcopy -O binary -j .modinfo "$tmp/m.ko" "$tmp/modinfo"
	tr '\0' '\n' <"$tmp/modinfo" | sed -n 's/^depends=//p' | tr ',' ' '
}

# order_of NAME: NAME's dependencies and NAME, each after what it needs,
# appended to all[] (modules_tree's deps[], seen[] and all[]).
order_of() {
	local m
	[ -z "${seen[$1]:-}" ] || return 0
	seen[$1]=1
	[ "${deps[$1]}" != builtin ] || return 0
	for m in ${deps[$1]}; do order_of "$m"; done
	all+=("$1")
}

# modules_tree DIR NAME...: NAME and what they need, decompressed into
# DIR/lib/modules/$release, with a modules.dep (each module's dependencies,
# direct and indirect, in depmod's order: the one to load first last) and
# DIR/etc/modules naming NAME... (less those built in).
modules_tree() {
	local dir=$1 n i lib
	shift
	local -A deps=() seen=()
	local all=() order=() todo=("$@")
	# Every module reachable, with its direct dependencies.
	while [ ${#todo[@]} -gt 0 ]; do
		n=${todo[0]}
		todo=("${todo[@]:1}")
		[ -z "${deps[$n]+x}" ] || continue
		if [ -z "${path[$n]:-}" ]; then
			grep -q "/$n.ko\$" "$moddir/modules.builtin" 2>/dev/null ||
				die "stock-kernel: no module $n in $release"
			deps[$n]=builtin
			continue
		fi
		deps[$n]=$(depends_of "$n")
		# shellcheck disable=SC2206
		todo+=(${deps[$n]})
	done
	for n in "$@"; do order_of "$n"; done
	order=("${all[@]}")
	lib=$dir/lib/modules/$release
	mkdir -p "$lib" "$dir/etc"
	: >"$lib/modules.dep"
	for n in "${order[@]}"; do
		mkdir -p "$lib/$(dirname "${path[$n]}")"
		xz -dc "$moddir/${path[$n]}" >"$lib/${path[$n]%.xz}"
		seen=() all=()
		order_of "$n"
		{
			printf '%s:' "${path[$n]%.xz}"
			for ((i = ${#all[@]} - 2; i >= 0; i--)); do
				printf ' %s' "${path[${all[$i]}]%.xz}"
			done
			echo
		} >>"$lib/modules.dep"
	done
	for n in "$@"; do
		[ "${deps[$n]}" = builtin ] || echo "$n"
	done >"$dir/etc/modules"
}

rm -rf "$out.tmp"
mkdir -p "$out.tmp"
cp "$image" "$out.tmp/Image"
cp "$config" "$out.tmp/config"
echo "$release" >"$out.tmp/release"
# shellcheck disable=SC2086
modules_tree "$out.tmp/host-modules" $HOST_MODULES
# shellcheck disable=SC2086
modules_tree "$tmp/guest" $GUEST_MODULES
(cd "$tmp/guest" && find . -mindepth 1 | LC_ALL=C sort |
	cpio -o -H newc --owner=0:0 --quiet) | gzip -6 -n >"$out.tmp/guest-modules.cpio.gz"
rm -rf "$out" && mv "$out.tmp" "$out"
echo "stock-kernel: $release in ${out#"$RVKVM_TOP"/}:" \
	"host modules $(cut -d: -f1 "$out/host-modules/lib/modules/$release/modules.dep" |
		sed 's|.*/||; s|\.ko$||' | tr '\n' ' ')"

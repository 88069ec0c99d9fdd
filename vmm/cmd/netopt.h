/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The -n/--network SPEC parser: comma-separated key=value settings, as in
 * kvmtool.  Keys:
 *   mode=tap|user|none   tap is the default for an -n without mode= (as in
 *                        kvmtool); user is user-mode networking (passt);
 *                        none asks for no NIC at all
 *   guest_mac=MAC        the guest's MAC (02:15:15:15:15:15, then :16)
 *   host_mac=MAC         user mode: the gateway's MAC (02:01:01:01:01:01)
 *   host_ip=IP           tap: the tap's address; user: the gateway, where
 *                        the host's own services answer (192.168.33.1)
 *   guest_ip=IP          user: the address DHCP gives the guest
 *                        (192.168.33.15); the netmask is /24
 *   tapif, script, downscript   tap only, as in kvmtool
 *   trans=pci|mmio       this NIC's virtio transport
 *   vhost=0|1            1: tap: the host kernel's vhost-net serves the
 *                        rings (/dev/vhost-net); user: passt's vhost-user
 *                        back-end does.  0: lkvm moves the frames.  A
 *                        user-mode NIC without vhost= gets vhost-user when
 *                        passt offers it (netopt_choose_vhost())
 *   fwd=tcp|udp:[ADDR:]HOSTPORT:GUESTPORT
 *                        user mode: connections to HOSTPORT on the host
 *                        (on ADDR only, if given) reach GUESTPORT in the
 *                        guest; repeat the setting for more (at most
 *                        CONFIG_MAX_FWDS)
 * Pure: no I/O, no allocation; unit-tested natively.
 */
#ifndef RVKVM_NETOPT_H
#define RVKVM_NETOPT_H

#include <stddef.h>

#include "vmm/config.h"

#define NETOPT_GUEST_IP "192.168.33.15"
#define NETOPT_HOST_IP "192.168.33.1"

/* kvmtool's defaults for NIC number index (its MAC ends in 0x15 + index). */
void netopt_defaults(struct nic_config *nic, unsigned int index,
		     enum nic_mode mode);

/*
 * Defaults for NIC index, then every setting of spec.  0, or -EINVAL with
 * *bad and *bad_len naming the first setting that is not valid (an unknown
 * key, a bad value, too many fwd=).
 */
int netopt_parse(struct nic_config *nic, unsigned int index, const char *spec,
		 const char **bad, size_t *bad_len);

/*
 * For a setting netopt_parse() found bad: what lkvm lacks when its key is
 * one of kvmtool's that lkvm refuses (vhost=1 but with mode=user, mq=N > 1,
 * fd=), else NULL.  mq=1 is accepted by netopt_parse() as a no-op.
 */
const char *netopt_unsupported(const char *kv, size_t n);

/*
 * A user-mode NIC's vhost, decided before guest RAM is made (vhost-user
 * needs it a shared memfd): vhost= when given, else vhost-user when
 * passt_vu > 0 (the installed passt offers --vhost-user: 1, it does not:
 * 0, it could not be read: -errno), guest RAM is not on --hugetlbfs, and
 * a shared memfd would not lose the huge pages private RAM gets
 * (shmem_loses_thp: netopt_shmem_loses_thp()).  The reason goes to
 * nic->vhost_why.  Other NICs are left alone.
 */
void netopt_choose_vhost(struct nic_config *nic, bool hugetlbfs,
			 bool shmem_loses_thp, int passt_vu);

/*
 * From the texts of /sys/kernel/mm/transparent_hugepage/enabled and
 * shmem_enabled (NULL: not there): private memory gets transparent huge
 * pages and shared memory does not ("[never]" or "[deny]"), as on
 * Debian's defaults.  Guest RAM in a memfd would then be mapped in 4 KiB
 * pages: slower to fault in and to translate, for the whole run.
 */
bool netopt_shmem_loses_thp(const char *enabled, const char *shmem_enabled);

#endif

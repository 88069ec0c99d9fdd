/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A Linux tap device for virtio-net: frames carry a 12-byte
 * virtio_net_hdr_v1 in front (IFF_VNET_HDR), as the guest's do.
 */
#ifndef RVKVM_TAP_LINUX_H
#define RVKVM_TAP_LINUX_H

#include "vmm/config.h"

struct tap {
	int fd;
	char ifname[CONFIG_IFNAME_MAX];
	const struct nic_config *nic;
};

/*
 * Create (or attach to nic->tapif) a tap, non-blocking.  With script=none
 * give it host_ip/24 and bring it up; otherwise run the script with the
 * interface name as its argument.  0, or -errno after one error line.
 */
int tap_open(struct tap *t, const struct nic_config *nic);
/* Run the downscript (if any) and close the tap. */
void tap_close(struct tap *t);
/* Mirror the guest's receive offloads (TUN_F_* flags) into the tap. */
int tap_set_offload(struct tap *t, unsigned int tun_flags);
/* The virtio-net header's size in front of each frame (10 or 12). */
int tap_set_vnet_hdr_len(struct tap *t, int len);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The life of a VM: the boot steps, run in order and unwound in reverse,
 * the vCPUs running until a stop request, and guest reboots.
 */
#ifndef RVKVM_LIFECYCLE_H
#define RVKVM_LIFECYCLE_H

#include "vmm/board/board.h"
#include "vmm/machine/cons.h"
#include "vmm/ctl/ctl.h"
#include "vmm/machine/disks.h"
#include "vmm/host/iothread.h"
#include "vmm/machine/nics.h"
#include "vmm/machine/shares.h"
#include "vmm/kvm/vm.h"

/* Everything one lkvm run owns. */
struct machine {
	struct vm vm;
	enum irqchip_kind irqchip;
	struct irq_line hart_ext[CONFIG_MAX_CPUS]; /* KVM_INTERRUPT */
	struct board board;
	struct cons cons;
	struct disks disks;
	struct nics nics;
	struct shares shares;
	struct iothread io;
	struct ctl_server ctl; /* the control socket */
	int sfd;	       /* the signalfd, read between boot steps */
};

/* An empty machine for cfg; -errno when its stop eventfd fails. */
int machine_init(struct machine *m, const struct vm_config *cfg);

/*
 * Boot and run until the guest powers off, crashes, or a signal (read
 * from sfd) or a host error stops it; reboots boot again.  The reason is
 * in m->vm.stop and m->vm.stop_buf.  Returns 0 or the failing step's
 * -errno (which has said why).
 */
int machine_run(struct machine *m, int sfd);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The machine of one lkvm run: the parts the boot steps set up
 * (lifecycle.c) and the control handlers act on (ctl_handlers.c).  A
 * header of its own so that neither of those includes the other's.
 */
#ifndef RVKVM_MACHINE_H
#define RVKVM_MACHINE_H

#include "vmm/board/board.h"
#include "vmm/machine/cons.h"
#include "vmm/ctl/ctl.h"
#include "vmm/machine/disks.h"
#include "vmm/machine/fs.h"
#include "vmm/machine/gdb.h"
#include "vmm/host/iothread.h"
#include "vmm/machine/nics.h"
#include "vmm/machine/shares.h"
#include "vmm/machine/hvsock.h"
#include "vmm/machine/vsock.h"
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
	struct vsock vsock;
	struct hvsock hvsock; /* --vsock CID,socket=PATH */
	struct fs fs;
	struct iothread io;
	struct ctl_server ctl; /* the control socket */
	struct gdb_server gdb; /* --gdb */
	int sfd;	       /* the signalfd, read between boot steps */
};

#endif

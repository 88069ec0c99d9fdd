/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The life of a VM: the boot steps, run in order and unwound in reverse,
 * the vCPUs running until a stop request, and guest reboots.
 */
#ifndef RVKVM_LIFECYCLE_H
#define RVKVM_LIFECYCLE_H

#include "vmm/machine/machine.h"

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

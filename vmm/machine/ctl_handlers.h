/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The running machine's side of the control socket (ctl.h): what 'lkvm
 * stop', pause, resume, debug, stat and balloon do to this lkvm.
 */
#ifndef RVKVM_CTL_HANDLERS_H
#define RVKVM_CTL_HANDLERS_H

struct machine;

/* Serve m's control socket: 0 or -errno having said why. */
int ctl_handlers_start(struct machine *m);
/* Stop serving and remove the socket. */
void ctl_handlers_stop(struct machine *m);

#endif

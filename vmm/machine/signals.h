/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Signals: SIGINT, SIGTERM and SIGHUP become a stop request read from a
 * signalfd on the main thread; SIGUSR1 is the vCPU kick; SIGPIPE ignored.
 */
#ifndef RVKVM_SIGNALS_H
#define RVKVM_SIGNALS_H

#include <stdbool.h>

#include "vmm/kvm/vm.h"

/* Block the signals the main thread handles; returns a signalfd or -1. */
int signals_setup(void);

/*
 * Wait until a stop is requested, turning a signal or the expiry of
 * vm->timeout_fd (--timeout) into one.
 */
void signals_wait_stop(struct vm *vm, int sfd);

/*
 * Without waiting: turn a pending signal or an expired --timeout into a
 * stop request.  True when
 * a stop is requested (for whatever reason).
 */
bool signals_poll_stop(struct vm *vm, int sfd);

#endif

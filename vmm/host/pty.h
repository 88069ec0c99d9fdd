/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --tty 0: the guest console on a new host pty instead of lkvm's own
 * stdin/stdout, as kvmtool's --tty does; the slave's name is logged.
 */
#ifndef RVKVM_PTY_H
#define RVKVM_PTY_H

/*
 * Open a raw pty and make its master lkvm's stdin and stdout.  0, or
 * -errno after one line naming the problem.
 */
int pty_console_open(void);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The host terminal: raw mode while the guest owns the console (only when
 * stdin is a tty), restored on every exit path.
 */
#ifndef RVKVM_TERM_H
#define RVKVM_TERM_H

/* Put stdin in raw mode if it is a terminal; installs the restore hooks. */
void term_raw(void);

/* Restore the saved terminal settings; async-signal-safe, idempotent. */
void term_restore(void);

#endif

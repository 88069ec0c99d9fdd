/* SPDX-License-Identifier: GPL-2.0 */
/* lkvm's exit statuses, documented in 'lkvm run --help' and README.md. */
#ifndef RVKVM_EXIT_CODES_H
#define RVKVM_EXIT_CODES_H

enum lkvm_exit {
	LKVM_EXIT_POWEROFF = 0,	   /* the guest powered off (SBI SRST) */
	LKVM_EXIT_HOST_ERROR = 1,  /* fatal host-side error */
	LKVM_EXIT_USAGE = 2,	   /* bad command line */
	LKVM_EXIT_STOPPED = 3,	   /* SIGINT/SIGTERM/SIGHUP or Ctrl-A x */
	LKVM_EXIT_GUEST_CRASH = 4, /* the guest crashed (see --help) */
	LKVM_EXIT_SECCOMP = 5,	   /* a forbidden system call (seccomp.c) */
	LKVM_EXIT_REBOOT = 6,	 /* the guest asked for a reset: --no-reboot */
	LKVM_EXIT_PANIC = 7,	 /* the guest reported a panic (pvpanic) */
	LKVM_EXIT_TIMEOUT = 124, /* --timeout expired (timeout(1)'s status) */
};

#endif

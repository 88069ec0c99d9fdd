// SPDX-License-Identifier: GPL-2.0
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "vmm/host/term.h"

static struct termios saved;
static volatile sig_atomic_t saved_valid;

void term_restore(void)
{
	/*
	 * TCSANOW, never TCSAFLUSH/TCSADRAIN: those wait until the
	 * terminal has sent its output, forever on a stalled one.  Unread
	 * input is discarded as TCSAFLUSH would.
	 */
	if (saved_valid) {
		tcflush(STDIN_FILENO, TCIFLUSH);
		tcsetattr(STDIN_FILENO, TCSANOW, &saved);
		saved_valid = 0;
	}
}

/* A crash still leaves a usable terminal: restore, then die as before. */
static void term_fatal_signal(int sig)
{
	term_restore();
	signal(sig, SIG_DFL);
	raise(sig);
}

void term_raw(void)
{
	static const int fatal[] = { SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL };
	struct termios raw;

	if (!isatty(STDIN_FILENO) || tcgetattr(STDIN_FILENO, &saved) < 0)
		return;
	raw = saved;
	cfmakeraw(&raw);
	/* Keep output post-processing so host log lines stay readable. */
	raw.c_oflag |= OPOST | ONLCR;
	saved_valid = 1;
	atexit(term_restore);
	for (size_t i = 0; i < sizeof(fatal) / sizeof(*fatal); i++)
		signal(fatal[i], term_fatal_signal);
	tcflush(STDIN_FILENO, TCIFLUSH);
	tcsetattr(STDIN_FILENO, TCSANOW, &raw); /* see term_restore() */
}

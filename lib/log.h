/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Logging: one line per message on stderr, prefixed "lkvm: ".
 * Guest-caused conditions use pr_guest_once(): logged once per call site,
 * so a misbehaving guest cannot flood the host's log.
 *
 * A stalled stderr (a pipe nobody reads, a stopped terminal) never holds
 * a thread for long once log_set_output() gave a non-blocking fd: a line
 * waits at most LOG_STALL_MS for room, and while stderr stays stalled
 * later lines are dropped at once (and counted).
 */
#ifndef RVKVM_LOG_H
#define RVKVM_LOG_H

#include <stdatomic.h>
#include <stdbool.h>

enum log_level { LOG_ERR, LOG_WARN, LOG_INFO, LOG_DEBUG };

extern int log_level;

#define LOG_STALL_MS 200

/*
 * Write log lines to fd (non-blocking; sock: use send(MSG_DONTWAIT)), or
 * with fd < 0 to stderr as it is.  Set while only one thread runs.
 */
void log_set_output(int fd, bool sock);

/* Lines dropped so far because stderr was stalled. */
unsigned long log_dropped(void);

/* One line; errno is left as it was (pr_err(...strerror(errno)); return -errno). */
void log_msg(enum log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#define pr_err(...) log_msg(LOG_ERR, __VA_ARGS__)
#define pr_warn(...) log_msg(LOG_WARN, __VA_ARGS__)
#define pr_info(...) log_msg(LOG_INFO, __VA_ARGS__)
#define pr_debug(...) log_msg(LOG_DEBUG, __VA_ARGS__)

#define pr_once(level, ...)                           \
	do {                                          \
		static atomic_bool logged_;           \
		if (!atomic_exchange(&logged_, true)) \
			log_msg(level, __VA_ARGS__);  \
	} while (0)

/* A guest did something the spec forbids or we do not support. */
#define pr_guest_once(...) pr_once(LOG_WARN, "guest: " __VA_ARGS__)

#endif

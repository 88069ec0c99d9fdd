// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stdio.h>

#include "log.h"

int log_level = LOG_WARN;

static const char *const level_prefix[] = {
	[LOG_ERR] = "error: ",
	[LOG_WARN] = "warning: ",
	[LOG_INFO] = "",
	[LOG_DEBUG] = "debug: ",
};

void log_msg(enum log_level level, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	if ((int)level > log_level)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	/* One write per line so concurrent threads do not interleave. */
	fprintf(stderr, "lkvm: %s%s\n", level_prefix[level], line);
}

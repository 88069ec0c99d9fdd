// SPDX-License-Identifier: GPL-2.0
/* The guest console's log file and last lines: see conslog.h. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "lib/log.h"
#include "vmm/host/conslog.h"

int conslog_open(struct conslog *l, const char *path)
{
	*l = (struct conslog){ .fd = -1 };
	pthread_mutex_init(&l->lock, NULL);
	if (!path)
		return 0;
	l->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOCTTY,
		     0644);
	if (l->fd < 0) {
		int ret = -errno;

		pr_err("--console-log %s: %s", path, strerror(errno));
		return ret;
	}
	return 0;
}

/* Write all of buf to the file (lock held); a failure is reported once. */
static void conslog_file(struct conslog *l, const uint8_t *p, size_t len)
{
	while (len && l->fd >= 0 && !l->failed) {
		ssize_t n = write(l->fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			l->failed = true;
			pr_err("--console-log: %s: the rest of the console is not logged",
			       n < 0 ? strerror(errno) : "short write");
			return;
		}
		p += n;
		len -= (size_t)n;
	}
}

void conslog_write(struct conslog *l, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	size_t skip = len > CONSLOG_TAIL_SIZE ? len - CONSLOG_TAIL_SIZE : 0;

	pthread_mutex_lock(&l->lock);
	conslog_file(l, p, len);
	for (size_t i = skip; i < len; i++)
		l->tail[(l->total + i) % CONSLOG_TAIL_SIZE] = (char)p[i];
	l->total += len;
	pthread_mutex_unlock(&l->lock);
}

size_t conslog_tail(struct conslog *l, unsigned int max_lines, char *out,
		    size_t size)
{
	uint64_t have, start, end;
	unsigned int lines = 0;
	size_t n = 0;

	if (!size)
		return 0;
	pthread_mutex_lock(&l->lock);
	end = l->total;
	have = end < CONSLOG_TAIL_SIZE ? end : CONSLOG_TAIL_SIZE;
	/* Back from the end over max_lines line ends (a final one aside). */
	start = end;
	while (start > end - have) {
		char c = l->tail[(start - 1) % CONSLOG_TAIL_SIZE];

		if (c == '\n' && start != end && ++lines == max_lines)
			break;
		start--;
	}
	for (uint64_t i = start; i < end && n + 1 < size; i++) {
		char c = l->tail[i % CONSLOG_TAIL_SIZE];

		if (c != '\r')
			out[n++] = c;
	}
	pthread_mutex_unlock(&l->lock);
	out[n] = '\0';
	return n;
}

void conslog_close(struct conslog *l)
{
	if (l->fd >= 0)
		close(l->fd);
	l->fd = -1;
}

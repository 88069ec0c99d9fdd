// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <unistd.h>

#include "vmm/host/hostcons.h"

void hostcons_init(struct hostcons *c)
{
	pthread_mutex_init(&c->lock, NULL);
	c->head = c->count = 0;
	c->escape = false;
}

void hostcons_destroy(struct hostcons *c)
{
	pthread_mutex_destroy(&c->lock);
}

size_t hostcons_filter(struct hostcons *c, const uint8_t *in, size_t len,
		       uint8_t *out, bool *stop)
{
	size_t n = 0;

	*stop = false;
	for (size_t i = 0; i < len; i++) {
		if (!c->escape) {
			if (in[i] == HOSTCONS_ESCAPE)
				c->escape = true;
			else
				out[n++] = in[i];
			continue;
		}
		c->escape = false;
		if (in[i] == 'x') {
			*stop = true;
			break;
		}
		if (in[i] != HOSTCONS_ESCAPE)
			out[n++] = HOSTCONS_ESCAPE;
		out[n++] = in[i];
	}
	return n;
}

size_t hostcons_push(struct hostcons *c, const uint8_t *buf, size_t len)
{
	size_t n;

	pthread_mutex_lock(&c->lock);
	for (n = 0; n < len && c->count < HOSTCONS_QUEUE_SIZE; n++) {
		c->queue[(c->head + c->count) % HOSTCONS_QUEUE_SIZE] = buf[n];
		c->count++;
	}
	pthread_mutex_unlock(&c->lock);
	return n;
}

size_t hostcons_pop(struct hostcons *c, uint8_t *buf, size_t len)
{
	size_t n;

	pthread_mutex_lock(&c->lock);
	for (n = 0; n < len && c->count; n++) {
		buf[n] = c->queue[c->head];
		c->head = (c->head + 1) % HOSTCONS_QUEUE_SIZE;
		c->count--;
	}
	pthread_mutex_unlock(&c->lock);
	return n;
}

int hostcons_write_all(int fd, const uint8_t *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -errno;
		buf += n;
		len -= n;
	}
	return 0;
}

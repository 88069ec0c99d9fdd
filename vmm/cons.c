// SPDX-License-Identifier: GPL-2.0
/*
 * The console back-end.  Guest output (UART, SBI console, virtio-console)
 * is written to stdout on the thread that produced it.  One input thread
 * polls stdin, runs it through the Ctrl-A escape filter and offers it to
 * the guest's console; bytes the guest cannot take yet wait here, and at
 * end of input the guest keeps running.
 */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "cons.h"
#include "lib/log.h"
#include "term.h"

/*
 * Guest output to stdout, on vCPU or I/O threads.  A stalled reader blocks
 * the caller; a stop request (which kicks vCPUs with a signal) ends the
 * wait and drops the rest, so a stop never hangs on stdout.
 */
static void cons_stdout_write(void *opaque, const uint8_t *buf, size_t len)
{
	struct cons *c = opaque;

	while (len) {
		ssize_t n = write(STDOUT_FILENO, buf, len);

		if (n < 0 && errno == EINTR && !atomic_load(&c->vm->stop))
			continue;
		if (n <= 0)
			return;
		buf += n;
		len -= n;
	}
}

static size_t cons_hv_read(void *opaque, uint8_t *buf, size_t len)
{
	struct cons *c = opaque;

	return hostcons_pop(&c->host, buf, len);
}

void cons_init(struct cons *c, struct vm *vm)
{
	*c = (struct cons){ .vm = vm, .quit_fd = -1 };
	c->out = (struct char_out){ .write = cons_stdout_write, .opaque = c };
	c->hv = (struct sbi_console){
		.write = cons_stdout_write,
		.read = cons_hv_read,
		.opaque = c,
	};
	vm->sbi.console = &c->hv;
}

int cons_virtio_up(struct cons *c, struct board *b)
{
	struct board_slot *slot = board_virtio_slot(b, "--console virtio");
	int ret;

	if (!slot)
		return -ENOSPC;
	ret = virtio_console_init(&c->vcon, &slot->res, &c->vm->mem,
				  &slot->line, &c->out);
	if (ret) {
		pr_err("cannot set up virtio-console: %s", strerror(-ret));
		return ret;
	}
	ret = board_virtio_add(slot, &c->vcon.vm);
	if (ret)
		virtio_console_destroy(&c->vcon);
	c->vcon_live = !ret;
	return ret;
}

void cons_virtio_down(struct cons *c)
{
	if (c->vcon_live)
		virtio_console_destroy(&c->vcon);
	c->vcon_live = false;
}

/* Offer input to the guest's console; returns how much it took. */
static size_t cons_deliver(struct cons *c, const uint8_t *buf, size_t len)
{
	switch (c->vm->cfg->console) {
	case CONSOLE_HV:
		return hostcons_push(&c->host, buf, len);
	case CONSOLE_VIRTIO:
		return virtio_console_receive(&c->vcon, buf, len);
	default:
		return uart8250_receive(c->uart, buf, len);
	}
}

/*
 * Read stdin into buf (filtered for Ctrl-A keys).  When the guest is not
 * taking input and buf is full, input is still read so that Ctrl-A x works,
 * and dropped.  Returns false at end of input.
 */
static bool cons_read(struct cons *c, uint8_t *buf, size_t *len, size_t size)
{
	uint8_t in[256], scratch[2 * sizeof(in)];
	size_t room = (size - *len) / 2;
	ssize_t n;
	bool stop;

	n = read(STDIN_FILENO, in,
		 room && room < sizeof(in) ? room : sizeof(in));
	if (n < 0)
		return errno == EINTR || errno == EAGAIN;
	if (n == 0)
		return false;
	if (room) {
		*len += hostcons_filter(&c->host, in, n, buf + *len, &stop);
	} else {
		hostcons_filter(&c->host, in, n, scratch, &stop);
		pr_once(LOG_WARN,
			"console input dropped: the guest is not reading it");
	}
	if (stop)
		vm_request_stop(c->vm, VM_STOP_SIGNAL, "stopped by Ctrl-A x");
	return true;
}

static void *cons_thread(void *arg)
{
	struct cons *c = arg;
	uint8_t buf[2048];
	size_t len = 0;
	bool eof = false;

	for (;;) {
		struct pollfd pfd[2] = {
			{ .fd = eof ? -1 : STDIN_FILENO, .events = POLLIN },
			{ .fd = c->quit_fd, .events = POLLIN },
		};

		if (len) {
			size_t took = cons_deliver(c, buf, len);

			memmove(buf, buf + took, len - took);
			len -= took;
		}
		if (poll(pfd, 2, len ? 5 : -1) < 0 && errno != EINTR)
			return NULL;
		if (pfd[1].revents)
			return NULL;
		if (pfd[0].revents && !cons_read(c, buf, &len, sizeof(buf)))
			eof = true;
	}
}

int cons_input_start(struct cons *c, struct uart8250 *uart)
{
	int ret;

	c->uart = uart;
	hostcons_init(&c->host);
	c->quit_fd = eventfd(0, EFD_CLOEXEC);
	if (c->quit_fd < 0) {
		ret = -errno;
		pr_err("eventfd: %s", strerror(errno));
		hostcons_destroy(&c->host);
		return ret;
	}
	term_raw();
	ret = pthread_create(&c->thread, NULL, cons_thread, c);
	if (ret) {
		pr_err("cannot start the console thread: %s", strerror(ret));
		cons_input_stop(c);
		return -ret;
	}
	c->thread_started = true;
	return 0;
}

void cons_input_stop(struct cons *c)
{
	uint64_t one = 1;

	if (c->thread_started &&
	    write(c->quit_fd, &one, sizeof(one)) == sizeof(one))
		pthread_join(c->thread, NULL);
	c->thread_started = false;
	close(c->quit_fd);
	c->quit_fd = -1;
	term_restore();
	hostcons_destroy(&c->host);
}

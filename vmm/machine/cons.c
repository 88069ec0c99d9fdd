// SPDX-License-Identifier: GPL-2.0
/*
 * The console back-end.
 *
 * Output.  Guest output (UART, SBI console, virtio-console) goes into one
 * bounded buffer (outbuf.h, CONS_OUT_SIZE bytes) on the thread that
 * produced it, which never waits: while nothing is buffered and stdout
 * takes the bytes they are written straight through, as before.  stdout
 * is written through a private non-blocking file (outfd.c: a pipe or a
 * terminal is reopened with O_NONBLOCK, so the file the shell shares with
 * lkvm stays blocking whatever way lkvm ends).  When stdout is stalled
 * (a pipe nobody reads, a terminal stopped with Ctrl-S) bytes wait in the
 * buffer and the console thread writes them whenever poll() says stdout
 * is writable.  When the buffer is full:
 *  - virtio-console: back-pressure, for CONS_STALL_MS at most.  Transmit
 *    chains stay in the guest's ring, so the guest's writer waits, not
 *    the VMM; the console thread resumes the queue once half the buffer
 *    is free again.  A slow stdout thus loses nothing.  But if stdout
 *    takes nothing for CONS_STALL_MS, output is dropped (and counted)
 *    until the buffer is half empty again: Linux's virtio console driver
 *    waits for each hvc buffer spinning with interrupts off, and a vCPU
 *    held so for long hangs the whole guest (QEMU drops console output
 *    on a full chardev for the same reason).
 *  - SBI DBCN console_write: a partial write (even of 0 bytes), which
 *    Linux's hvc driver retries sleeping; dropped after CONS_STALL_MS
 *    too.
 *  - UART, legacy SBI putchar, DBCN write_byte: the byte is dropped and
 *    counted (a real UART cannot hold it either without stalling the
 *    vCPU); the first drop is logged at once, the total at exit.
 * So no vCPU thread and no I/O thread ever blocks on stdout, and guest
 * disk and network I/O (on the I/O thread) go on while stdout is stalled.
 * At exit buffered output gets CONS_FLUSH_MS to drain.  Whatever stdout
 * gets or loses, every byte the buffer takes or drops also goes to the
 * console log (conslog.h: the --console-log file and the last lines).
 *
 * Input.  The same thread polls stdin, runs it through the Ctrl-A escape
 * filter and offers it to the guest's console; bytes the guest cannot
 * take yet wait here, and at end of input the guest keeps running.
 */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "vmm/machine/cons.h"
#include "lib/log.h"
#include "vmm/host/term.h"

/* outbuf's wake (its lock held): output waits, poll stdout. */
static void cons_out_wake(void *opaque)
{
	struct cons *c = opaque;
	uint64_t one = 1;

	/* A full counter means the thread is woken already. */
	if (write(c->out_fd, &one, sizeof(one)) < 0)
		return;
}

/*
 * Guest output: to stdout through the buffer, and what the buffer took or
 * dropped (never what it refused: the guest offers that again) to the log.
 */
static size_t cons_put(struct cons *c, const uint8_t *buf, size_t len,
		       bool lossy)
{
	size_t n = outbuf_put(&c->ob, buf, len, lossy);

	conslog_write(&c->log, buf, n);
	return n;
}

/* The UART's sink: takes every byte, dropping what does not fit. */
static size_t cons_out_lossy(void *opaque, const uint8_t *buf, size_t len)
{
	return cons_put(opaque, buf, len, true);
}

/* virtio-console's sink: takes what fits, the rest stays in the ring. */
static size_t cons_out_bp(void *opaque, const uint8_t *buf, size_t len)
{
	return cons_put(opaque, buf, len, false);
}

static size_t cons_hv_write(void *opaque, const uint8_t *buf, size_t len,
			    bool partial)
{
	return cons_put(opaque, buf, len, !partial);
}

static size_t cons_hv_read(void *opaque, uint8_t *buf, size_t len)
{
	struct cons *c = opaque;

	return hostcons_pop(&c->host, buf, len);
}

int cons_init(struct cons *c, struct vm *vm)
{
	int ret;

	*c = (struct cons){ .vm = vm, .quit_fd = -1, .out_fd = -1 };
	ret = conslog_open(&c->log, vm->cfg->console_log);
	if (ret)
		return ret;
	c->out_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (c->out_fd < 0) {
		ret = -errno;
		pr_err("eventfd: %s", strerror(errno));
		conslog_close(&c->log);
		return ret;
	}
	ret = outbuf_init(&c->ob, c->ob_ring, sizeof(c->ob_ring), CONS_STALL_MS,
			  cons_out_wake, c);
	if (ret) {
		close(c->out_fd);
		conslog_close(&c->log);
		return ret;
	}
	c->out = (struct char_out){ .write = cons_out_lossy, .opaque = c };
	c->vcon_out = (struct char_out){ .write = cons_out_bp, .opaque = c };
	c->hv = (struct sbi_console){
		.write = cons_hv_write,
		.read = cons_hv_read,
		.opaque = c,
	};
	vm->sbi.console = &c->hv;
	return 0;
}

void cons_fini(struct cons *c)
{
	c->vm->sbi.console = NULL;
	outbuf_destroy(&c->ob);
	close(c->out_fd);
	c->out_fd = -1;
	conslog_close(&c->log);
}

static int cons_virtio_init(void *opaque, struct board_slot *slot)
{
	struct cons *c = opaque;
	int ret = virtio_console_init(&c->vcon, &slot->res, &c->vm->mem,
				      &slot->line, &c->vcon_out);

	if (ret) {
		pr_err("cannot set up virtio-console: %s", strerror(-ret));
		return ret;
	}
	return 0;
}

static void cons_virtio_destroy(void *opaque)
{
	struct cons *c = opaque;

	virtio_console_destroy(&c->vcon);
}

int cons_virtio_up(struct cons *c, struct board *b)
{
	const struct board_virtio_dev dev = {
		.init = cons_virtio_init,
		.transport = &c->vcon.vm,
		.destroy = cons_virtio_destroy,
		.opaque = c,
	};
	int ret = board_virtio_attach(b, "--console virtio",
				      VIRTIO_TRANSPORT_DEFAULT, &dev);

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

/* Report the first drop, or a failed stdout, once. */
static void cons_report(struct cons *c, ssize_t ret)
{
	if (c->warned || (ret >= 0 && !outbuf_dropped(&c->ob)))
		return;
	c->warned = true;
	if (ret < 0)
		pr_warn("stdout: %s: guest console output is discarded",
			strerror((int)-ret));
	else
		pr_warn("stdout is not taking guest console output: "
			"it is dropped until stdout drains");
}

/*
 * Write buffered output as far as stdout takes it; wake a refused
 * virtio-console.
 */
static void cons_drain(struct cons *c)
{
	bool room;
	ssize_t ret = outbuf_flush(&c->ob, &room);

	if (room && c->vcon_live)
		virtio_console_tx_resume(&c->vcon);
	cons_report(c, ret);
}

/*
 * The poll timeout: 5 ms while input waits for the guest, or until a
 * refused producer's CONS_STALL_MS are up; none otherwise.  Once they
 * are up, output is dropped: the virtio console goes on (and drops).
 */
static int cons_timeout(struct cons *c, size_t len)
{
	bool resume;
	long wait = outbuf_wait_ms(&c->ob, &resume);

	if (resume && c->vcon_live)
		virtio_console_tx_resume(&c->vcon);
	if (resume)
		cons_report(c, 0);
	if (len && (wait < 0 || wait > 5))
		return 5;
	return wait < 0 ? -1 : (int)wait + 1;
}

static void *cons_thread(void *arg)
{
	struct cons *c = arg;
	uint8_t buf[2048];
	size_t len = 0;
	bool eof = false;

	for (;;) {
		struct pollfd pfd[4] = {
			{ .fd = eof ? -1 : STDIN_FILENO, .events = POLLIN },
			{ .fd = c->quit_fd, .events = POLLIN },
			{ .fd = c->out_fd, .events = POLLIN },
			{ .fd = outbuf_pending(&c->ob) ? c->stdout_fd.fd : -1,
			  .events = POLLOUT },
		};
		uint64_t v;

		if (len) {
			size_t took = cons_deliver(c, buf, len);

			memmove(buf, buf + took, len - took);
			len -= took;
		}
		if (poll(pfd, 4, cons_timeout(c, len)) < 0 && errno != EINTR)
			return NULL;
		if (pfd[1].revents)
			return NULL;
		if (pfd[2].revents && read(c->out_fd, &v, sizeof(v)) < 0)
			v = 0;
		if (pfd[2].revents || pfd[3].revents)
			cons_drain(c);
		if (pfd[0].revents && !cons_read(c, buf, &len, sizeof(buf)))
			eof = true;
	}
}

static long cons_ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 +
	       (t.tv_nsec - t0->tv_nsec) / 1000000;
}

/* At exit: buffered output gets CONS_FLUSH_MS to reach stdout. */
static void cons_flush_final(struct cons *c)
{
	struct pollfd p = { .fd = c->stdout_fd.fd, .events = POLLOUT };
	struct timespec t0;
	bool room;
	long left;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (outbuf_flush(&c->ob, &room) > 0) {
		left = CONS_FLUSH_MS - cons_ms_since(&t0);
		if (left <= 0 || poll(&p, 1, (int)left) == 0)
			break;
	}
	if (outbuf_dropped(&c->ob) || outbuf_pending(&c->ob))
		pr_warn("guest console output lost: %lu bytes dropped, "
			"%zu left unwritten (stdout was not taking it)",
			outbuf_dropped(&c->ob), outbuf_pending(&c->ob));
}

int cons_input_start(struct cons *c, struct uart8250 *uart)
{
	const struct outbuf_sink sink = { outfd_sink_write, &c->stdout_fd };
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
	outfd_open(&c->stdout_fd, STDOUT_FILENO);
	pr_debug("stdout: %s", outfd_kind_name(c->stdout_fd.kind));
	outbuf_set_sink(&c->ob, &sink);
	term_raw();
	ret = pthread_create(&c->thread, NULL, cons_thread, c);
	if (ret) {
		pr_err("cannot start the console thread: %s", strerror(ret));
		cons_input_stop(c);
		return -ret;
	}
	c->thread_started = true;
	pthread_setname_np(c->thread, "lkvm-cons");
	return 0;
}

void cons_input_stop(struct cons *c)
{
	uint64_t one = 1;

	if (c->thread_started &&
	    write(c->quit_fd, &one, sizeof(one)) == sizeof(one))
		pthread_join(c->thread, NULL);
	c->thread_started = false;
	cons_flush_final(c);
	outbuf_set_sink(&c->ob, NULL);
	outfd_close(&c->stdout_fd);
	close(c->quit_fd);
	c->quit_fd = -1;
	term_restore();
	hostcons_destroy(&c->host);
}

// SPDX-License-Identifier: GPL-2.0
/* The gdb stub's server; see gdb.h. */
#include <errno.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "lib/log.h"
#include "lib/pgwalk.h"
#include "vmm/machine/gdb.h"

#define GDB_PAUSE_MS 5000
#define GDB_RETRY_NS (20 * 1000000L)
#define GDB_SEND_TIMEOUT_S 5

_Static_assert(GDB_REG_PC == VCPU_REG_PC &&
		       GDB_REG_CSR(0x180) == VCPU_REG_CSR(CSR_NUM_SATP),
	       "the stub's register numbers are the vCPU's");

/* --- target ops -------------------------------------------------------- */

static int gdb_reg_get(void *opaque, unsigned int cpu, unsigned int reg,
		       uint64_t *val)
{
	struct gdb_server *g = opaque;

	return kvm_cpu_reg_get(&g->vm->vcpus[cpu], reg, val);
}

static int gdb_reg_set(void *opaque, unsigned int cpu, unsigned int reg,
		       uint64_t val)
{
	struct gdb_server *g = opaque;

	return kvm_cpu_reg_set(&g->vm->vcpus[cpu], reg, val);
}

/* Page by page: virtual through the vCPU's satp, or physical. */
static int gdb_mem(struct gdb_server *g, unsigned int cpu, bool phys,
		   uint64_t addr, uint8_t *buf, size_t len, bool write)
{
	uint64_t satp = 0;
	size_t done = 0;

	if (!phys && kvm_cpu_reg_get(&g->vm->vcpus[cpu],
				     VCPU_REG_CSR(CSR_NUM_SATP), &satp))
		return -EIO;
	while (done < len) {
		uint64_t pa, left, n;
		int ret = pgwalk_translate(&g->vm->mem, phys ? 0 : satp,
					   addr + done, &pa, &left);

		if (ret)
			break;
		n = left < len - done ? left : len - done;
		ret = write ? guest_mem_write(&g->vm->mem, pa, buf + done, n) :
			      guest_mem_read(&g->vm->mem, pa, buf + done, n);
		if (ret)
			break;
		done += n;
	}
	return done ? (int)done : -EFAULT;
}

static int gdb_mem_read(void *opaque, unsigned int cpu, bool phys,
			uint64_t addr, uint8_t *buf, size_t len)
{
	return gdb_mem(opaque, cpu, phys, addr, buf, len, false);
}

static int gdb_mem_write(void *opaque, unsigned int cpu, bool phys,
			 uint64_t addr, const uint8_t *buf, size_t len)
{
	return gdb_mem(opaque, cpu, phys, addr, (uint8_t *)buf, len, true);
}

static const struct gdb_target_ops gdb_ops = {
	.reg_get = gdb_reg_get,
	.reg_set = gdb_reg_set,
	.mem_read = gdb_mem_read,
	.mem_write = gdb_mem_write,
};

/* A vCPU thread: its guest ran an ebreak. */
static bool gdb_debug_exit(void *opaque, unsigned int hart)
{
	struct gdb_server *g = opaque;
	uint64_t one = 1;
	int none = 0;

	if (!atomic_load(&g->attached))
		return false;
	atomic_compare_exchange_strong(&g->hit, &none, (int)hart + 1);
	if (write(g->stop_fd, &one, sizeof(one)) < 0)
		pr_once(LOG_WARN, "gdb: eventfd: %s", strerror(errno));
	return true;
}

/* --- the connection ----------------------------------------------------- */

/*
 * A send that fails or stalls for GDB_SEND_TIMEOUT_S ends the connection
 * (the thread drops it before it reads more): a peer that stops reading
 * while asking for resends cannot hold the thread, nor lkvm's exit.
 */
static void gdb_send_raw(struct gdb_server *g, const void *p, size_t n)
{
	if (g->cfd < 0 || g->send_failed)
		return;
	if (send(g->cfd, p, n, MSG_NOSIGNAL) != (ssize_t)n) {
		pr_warn("gdb: the debugger is not taking replies: disconnecting");
		g->send_failed = true;
	}
}

static void gdb_send(struct gdb_server *g)
{
	g->frame_len = gdb_frame((const uint8_t *)g->sess.out, g->sess.out_len,
				 g->frame, sizeof(g->frame));
	gdb_send_raw(g, g->frame, g->frame_len);
}

/* Hold every vCPU (waiting out a boot that has not started them). */
static int gdb_pause(struct gdb_server *g)
{
	const struct timespec pause = { .tv_nsec = GDB_RETRY_NS };
	int ret;

	while ((ret = kvm_cpus_pause(g->vm, GDB_PAUSE_MS)) == -ESHUTDOWN &&
	       !atomic_load(&g->vm->stop))
		nanosleep(&pause, NULL);
	if (ret)
		pr_warn("gdb: the vCPUs did not stop: %s", strerror(-ret));
	return ret;
}

static void gdb_set_debug(struct gdb_server *g, bool on)
{
	for (unsigned int i = 0; i < g->vm->cfg->nr_cpus; i++) {
		int ret = kvm_cpu_set_debug(&g->vm->vcpus[i], on);

		if (ret && on)
			pr_once(LOG_WARN,
				"gdb: KVM_SET_GUEST_DEBUG: %s: breakpoints will not stop the guest",
				strerror(-ret));
	}
}

static void gdb_resume(struct gdb_server *g)
{
	uint64_t v;

	gdb_set_debug(g, g->sess.nr_bps > 0);
	atomic_store(&g->hit, 0);
	if (read(g->stop_fd, &v, sizeof(v)) < 0)
		v = 0; /* nothing pending */
	g->running = true;
	kvm_cpus_resume(g->vm);
}

static void gdb_stopped(struct gdb_server *g, int sig)
{
	unsigned int cpu = g->sess.stop_cpu;
	uint64_t v;
	int hit;

	gdb_pause(g);
	hit = atomic_exchange(&g->hit, 0);
	if (read(g->stop_fd, &v, sizeof(v)) < 0)
		v = 0;
	g->running = false;
	if (hit) { /* an ebreak, also when it came with a Ctrl-C */
		cpu = hit - 1;
		sig = GDB_SIGTRAP;
	}
	gdb_session_stopped(&g->sess, cpu, sig);
	gdb_send(g);
}

/* gdb left (D, k, or the connection closed): the guest runs on. */
static void gdb_detach(struct gdb_server *g)
{
	atomic_store(&g->attached, false);
	gdb_session_remove_bps(&g->sess);
	gdb_set_debug(g, false);
	g->running = false;
	kvm_cpus_resume(g->vm);
	close(g->cfd);
	g->cfd = -1;
	pr_info("gdb: detached");
}

static void gdb_attach(struct gdb_server *g, int fd)
{
	/* A gdb that stops reading cannot hold the thread (and lkvm's exit). */
	const struct timeval tv = { .tv_sec = GDB_SEND_TIMEOUT_S };
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	g->cfd = fd;
	g->send_failed = false;
	gdb_rx_init(&g->rx);
	gdb_session_init(&g->sess, &gdb_ops, g, g->vm->cfg->nr_cpus);
	g->frame_len = 0;
	atomic_store(&g->attached, true);
	gdb_pause(g);
	g->running = false;
	pr_info("gdb: attached; the guest is stopped");
}

static void gdb_packet(struct gdb_server *g)
{
	enum gdb_action act;

	if (!g->sess.no_ack)
		gdb_send_raw(g, "+", 1);
	if (g->running) { /* all-stop: only 0x03 while the guest runs */
		g->sess.out_len = snprintf(g->sess.out, sizeof(g->sess.out),
					   "E%02x", EBUSY);
		gdb_send(g);
		return;
	}
	act = gdb_session_packet(&g->sess, g->rx.buf, g->rx.len);
	switch (act) {
	case GDB_ACT_REPLY:
		gdb_send(g);
		break;
	case GDB_ACT_RESUME:
		gdb_resume(g);
		break;
	case GDB_ACT_DETACH:
		gdb_send(g);
		gdb_detach(g);
		break;
	case GDB_ACT_KILL:
		gdb_detach(g);
		vm_request_stop(g->vm, VM_STOP_SIGNAL, "killed by gdb");
		break;
	}
}

static void gdb_input(struct gdb_server *g)
{
	uint8_t buf[1024];
	ssize_t n = recv(g->cfd, buf, sizeof(buf), 0);

	if (n <= 0) {
		if (n == 0 || (errno != EINTR && errno != EAGAIN))
			gdb_detach(g);
		return;
	}
	for (ssize_t i = 0; i < n && g->cfd >= 0 && !g->send_failed; i++) {
		switch (gdb_rx_byte(&g->rx, buf[i])) {
		case GDB_RX_PACKET:
			gdb_packet(g);
			break;
		case GDB_RX_BAD:
			gdb_send_raw(g, "-", 1);
			break;
		case GDB_RX_NAK:
			gdb_send_raw(g, g->frame, g->frame_len);
			break;
		case GDB_RX_INTERRUPT:
			if (g->running)
				gdb_stopped(g, GDB_SIGINT);
			break;
		default:
			break;
		}
	}
}

static void *gdb_thread(void *arg)
{
	struct gdb_server *g = arg;

	for (;;) {
		struct pollfd pfd[3] = {
			{ .fd = g->quit_fd, .events = POLLIN },
			{ .fd = g->cfd >= 0 ? g->cfd : g->lfd,
			  .events = POLLIN },
			{ .fd = g->running ? g->stop_fd : -1,
			  .events = POLLIN },
		};

		if (poll(pfd, 3, -1) < 0)
			continue;
		if (pfd[0].revents)
			return NULL;
		if (pfd[2].revents & POLLIN)
			gdb_stopped(g, GDB_SIGTRAP);
		else if (pfd[1].revents && g->cfd >= 0)
			gdb_input(g);
		else if (pfd[1].revents & POLLIN) {
			int fd = accept4(g->lfd, NULL, NULL, SOCK_CLOEXEC);

			if (fd >= 0)
				gdb_attach(g, fd);
		}
		if (g->send_failed && g->cfd >= 0)
			gdb_detach(g);
	}
}

/* --- the listening socket ----------------------------------------------- */

static int gdb_listen_unix(struct gdb_server *g, const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };

	if (strlen(path) >= sizeof(sa.sun_path) || !*path)
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	g->lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (g->lfd < 0 || bind(g->lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return -errno;
	strcpy(g->unix_path, path);
	return 0;
}

/* HOST (numeric IPv4 or IPv6) and PORT into sa: its length, or 0. */
static socklen_t gdb_tcp_addr(const char *host, const char *port,
			      struct sockaddr_storage *sa)
{
	struct sockaddr_in *in = (struct sockaddr_in *)sa;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)sa;
	char *end;
	unsigned long p = strtoul(port, &end, 10);

	memset(sa, 0, sizeof(*sa));
	if (!*port || *end || !p || p > 65535)
		return 0;
	if (inet_pton(AF_INET, host, &in->sin_addr) == 1) {
		in->sin_family = AF_INET;
		in->sin_port = htons(p);
		return sizeof(*in);
	}
	if (inet_pton(AF_INET6, host, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(p);
		return sizeof(*in6);
	}
	return 0;
}

/* tcp:PORT or tcp::PORT (127.0.0.1), or tcp:HOST:PORT, HOST numeric. */
static int gdb_listen_tcp(struct gdb_server *g, const char *spec)
{
	const char *colon = strrchr(spec, ':');
	char host[64] = "127.0.0.1";
	struct sockaddr_storage sa;
	socklen_t len;
	int one = 1;

	/* tcp::PORT (QEMU's spelling) is tcp:PORT. */
	if (colon && colon > spec) {
		if ((size_t)(colon - spec) >= sizeof(host))
			return -EINVAL;
		memcpy(host, spec, colon - spec);
		host[colon - spec] = '\0';
	}
	if (colon)
		spec = colon + 1;
	len = gdb_tcp_addr(host, spec, &sa);
	if (!len)
		return -EINVAL;
	g->lfd = socket(sa.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (g->lfd < 0)
		return -errno;
	setsockopt(g->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	return bind(g->lfd, (struct sockaddr *)&sa, len) < 0 ? -errno : 0;
}

static int gdb_listen(struct gdb_server *g, const char *spec)
{
	int ret;

	if (!strncmp(spec, "tcp:", 4))
		ret = gdb_listen_tcp(g, spec + 4);
	else if (!strncmp(spec, "unix:", 5))
		ret = gdb_listen_unix(g, spec + 5);
	else
		ret = -EINVAL;
	if (!ret && listen(g->lfd, 1) < 0)
		ret = -errno;
	if (ret == -EINVAL)
		pr_err("--gdb %s: expected tcp:PORT, tcp:HOST:PORT (a numeric address) or unix:PATH",
		       spec);
	else if (ret)
		pr_err("--gdb %s: %s", spec, strerror(-ret));
	return ret;
}

int gdb_server_start(struct gdb_server *g, struct vm *vm, const char *spec,
		     bool wait)
{
	int ret;

	memset(g, 0, sizeof(*g));
	g->vm = vm;
	g->lfd = g->cfd = -1;
	g->quit_fd = eventfd(0, EFD_CLOEXEC);
	g->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	ret = g->quit_fd < 0 || g->stop_fd < 0 ? -errno : 0;
	if (ret)
		pr_err("gdb: eventfd: %s", strerror(-ret));
	ret = ret ?: gdb_listen(g, spec);
	ret = ret ?: -pthread_create(&g->thread, NULL, gdb_thread, g);
	if (ret) {
		gdb_server_stop(g);
		return ret;
	}
	g->started = true;
	pthread_setname_np(g->thread, "lkvm-gdb");
	vm->debug_exit = gdb_debug_exit;
	vm->debug_opaque = g;
	if (wait)
		atomic_store(&vm->pause.want, true); /* before any vCPU runs */
	pr_info("gdb: listening on %s%s", spec,
		wait ? "; the guest waits for gdb to continue" : "");
	return 0;
}

void gdb_server_stop(struct gdb_server *g)
{
	uint64_t one = 1;

	if (g->started && write(g->quit_fd, &one, sizeof(one)) == sizeof(one))
		pthread_join(g->thread, NULL);
	if (g->cfd >= 0) {
		g->sess.out_len =
			snprintf(g->sess.out, sizeof(g->sess.out), "W00");
		/* One try, without waiting on a peer that stopped reading. */
		setsockopt(g->cfd, SOL_SOCKET, SO_SNDTIMEO,
			   &(struct timeval){ .tv_usec = 100000 },
			   sizeof(struct timeval));
		gdb_send(g);
		close(g->cfd);
	}
	if (g->vm)
		g->vm->debug_exit = NULL;
	if (g->lfd >= 0)
		close(g->lfd);
	if (g->unix_path[0])
		unlink(g->unix_path);
	if (g->quit_fd > 0)
		close(g->quit_fd);
	if (g->stop_fd > 0)
		close(g->stop_fd);
	g->started = false;
	g->lfd = g->cfd = g->quit_fd = g->stop_fd = -1;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The vhost device glue (vmm/machine/vhostdev.c) on a real virtio-net
 * device driven like a guest driver, its ring back-end wired as nics.c
 * wires passt's vhost-user one, against a recording vhost transport: the
 * vhost-user start order with the driver's rings, kick and call eventfds,
 * bus mastering, a queue the driver left off, the relay of a call into
 * the device's interrupt, and the transport bits withheld; on virtio-pci
 * with MSI routes (a fake KVM behind vmm/kvm/gsi_routes.c), the choice
 * of each ring's interrupt path: irqfd while its MSI-X vector may fire,
 * the relay otherwise, none once the back-end is gone.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <stdio.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/log.h"
#include "virtio/mmio.h"
#include "virtio/net.h"
#include "virtio/pci.h"
#include "vmm/kvm/gsi_routes.h"
#include "vmm/machine/vhostdev.h"
#include "tests/unit/virtq_mock.h"
#include "slot_res.h"

#define RAM_SIZE (2 * 1024 * 1024)
#define NUM 64
#define V1 VIRTIO_BIT(VIRTIO_F_VERSION_1)
#define EVENT_IDX VIRTIO_BIT(VIRTIO_F_EVENT_IDX)
#define INDIRECT VIRTIO_BIT(VIRTIO_F_INDIRECT_DESC)
#define MRG VIRTIO_BIT(VIRTIO_NET_F_MRG_RXBUF)
#define MAC VIRTIO_BIT(VIRTIO_NET_F_MAC)
#define OK_STATUS                                           \
	(VIRTIO_STATUS_ACKNOWLEDGE | VIRTIO_STATUS_DRIVER | \
	 VIRTIO_STATUS_FEATURES_OK | VIRTIO_STATUS_DRIVER_OK)
/* What passt's vhost-user back-end offers (and the protocol bit). */
#define PASST_FEATURES (V1 | MRG | (1ULL << 30))
#define MAX_LOG 64

struct pfix;

struct rec {
	enum vhost_req req;
	unsigned int index;
	int64_t val;
	uint64_t u64;
	struct vhost_ring_addr addr;
};

struct fix {
	struct virtio_net net;
	struct vqm rx, tx;
	struct vhostdev vd;
	struct vhost vh;
	struct board_slot slot;
	struct rec log[MAX_LOG];
	unsigned int n;
	int fail_at; /* the n-th request fails with -EPIPE; 0: none */
	int level;
	struct pfix *pci; /* the virtio-pci tests' */
};

static int fake_req(void *opaque, enum vhost_req req, void *arg)
{
	struct fix *f = opaque;
	struct rec *r = &f->log[f->n++];

	assert_true(f->n <= MAX_LOG);
	memset(r, 0, sizeof(*r));
	r->req = req;
	if (req == VHOST_REQ_GET_FEATURES)
		*(uint64_t *)arg = PASST_FEATURES;
	else if (req == VHOST_REQ_SET_FEATURES)
		r->u64 = *(uint64_t *)arg;
	else if (req == VHOST_REQ_SET_VRING_ADDR)
		r->addr = *(struct vhost_ring_addr *)arg,
		r->index = r->addr.index;
	else if (req != VHOST_REQ_SET_OWNER && req != VHOST_REQ_SET_MEM_TABLE)
		r->index = ((struct vhost_ring_val *)arg)->index,
		r->val = ((struct vhost_ring_val *)arg)->val;
	return (int)f->n == f->fail_at ? -EPIPE : 0;
}

/* The ring back-end, as nics.c's for passt. */
static int be_start(void *opaque, uint64_t features)
{
	struct fix *f = opaque;

	return vhostdev_user_start(&f->vd, &f->vh, features,
				   f->net.vm.core.dma_off);
}

static void be_stop(void *opaque)
{
	struct fix *f = opaque;

	vhost_stop(&f->vh, VHOST_REQ_NR, NULL);
}

static void be_kick(void *opaque, unsigned int q)
{
	struct fix *f = opaque;

	vhostdev_kick(&f->vd, q);
}

static void be_dma(void *opaque, bool on)
{
	struct fix *f = opaque;

	vhostdev_user_dma(&f->vd, &f->vh, on);
}

static const struct virtio_net_backend_ops be_ops = {
	.start = be_start,
	.stop = be_stop,
	.kick = be_kick,
	.dma = be_dma,
};

static void irq_set(void *opaque, int level)
{
	((struct fix *)opaque)->level = level;
}

static int setup(void **state)
{
	struct fix *f = calloc(1, sizeof(*f));
	const struct irq_line irq = { .set = irq_set, .opaque = f };
	const struct vhost_transport t = { fake_req, f };
	const struct vhost_mem m = { 0x80000000, RAM_SIZE, 0x1000 };
	struct virtio_net_backend be = { .ops = &be_ops, .opaque = f };

	log_level = -1;
	assert_non_null(f);
	vqm_init(&f->rx, RAM_SIZE, NUM);
	vqm_init_in(&f->tx, &f->rx, NUM, 4096, 4096,
		    f->rx.mem.base + f->rx.mem.size);
	assert_int_equal(vhost_open(&f->vh, &t, &m), 0);
	/* What nics.c withholds when passt lacks it. */
	be.no_features = (MRG | EVENT_IDX | INDIRECT) & ~f->vh.features;
	assert_int_equal(
		virtio_net_init(&f->net, &SLOT_RES(2), &f->rx.mem, &irq, &be),
		0);
	assert_int_equal(vhostdev_init(&f->vd, &f->net.vm, 2, "virtio-net"), 0);
	for (unsigned int i = 0; i < 2; i++) {
		f->slot.kicks[i].fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		assert_true(f->slot.kicks[i].fd >= 0);
	}
	f->slot.nr_kicks = 2;
	vhostdev_attach(&f->vd, &f->slot);
	assert_int_equal(f->slot.backend_kicks, 3);
	f->n = 0;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fix *f = *state;

	virtio_net_destroy(&f->net);
	vhostdev_close(&f->vd);
	for (unsigned int i = 0; i < 2; i++)
		close(f->slot.kicks[i].fd);
	vqm_free(&f->rx);
	free(f);
	return 0;
}

static uint32_t driver_up(struct fix *f, uint64_t features)
{
	vqm_mmio_negotiate(&f->net.vm, features);
	vqm_mmio_queue(&f->net.vm, VIRTIO_NET_RXQ, &f->rx);
	vqm_mmio_queue(&f->net.vm, VIRTIO_NET_TXQ, &f->tx);
	return vqm_mmio_driver_ok(&f->net.vm);
}

static uint64_t offered(struct fix *f)
{
	uint64_t lo, hi;

	vqm_mmio_wr(&f->net.vm, VIRTIO_MMIO_DEVICE_FEATURES_SEL, 0);
	lo = vqm_mmio_rd(&f->net.vm, VIRTIO_MMIO_DEVICE_FEATURES);
	vqm_mmio_wr(&f->net.vm, VIRTIO_MMIO_DEVICE_FEATURES_SEL, 1);
	hi = vqm_mmio_rd(&f->net.vm, VIRTIO_MMIO_DEVICE_FEATURES);
	return hi << 32 | lo;
}

/* passt has neither EVENT_IDX nor INDIRECT_DESC: never offered. */
static void test_withheld(void **state)
{
	struct fix *f = *state;
	uint64_t o = offered(f);

	assert_true(o & V1);
	assert_true(o & MRG);
	assert_true(o & MAC);
	assert_false(o & EVENT_IDX);
	assert_false(o & INDIRECT);
	assert_int_equal(vqm_mmio_negotiate(&f->net.vm, V1 | EVENT_IDX),
			 VIRTIO_STATUS_ACKNOWLEDGE | VIRTIO_STATUS_DRIVER);
	assert_int_equal(f->n, 0);
}

static void check(const struct rec *r, enum vhost_req req, unsigned int i,
		  int64_t val)
{
	assert_int_equal(r->req, req);
	assert_int_equal(r->index, i);
	assert_int_equal(r->val, val);
}

/* Features, each ring with its call and kick eventfd, then enabled. */
static void test_start_order(void **state)
{
	struct fix *f = *state;
	const struct rec *r = f->log;

	assert_int_equal(driver_up(f, V1 | MRG | MAC), OK_STATUS);
	assert_int_equal(f->n, 1 + 2 * 5 + 2);
	assert_int_equal(r[0].req, VHOST_REQ_SET_FEATURES);
	/* MAC is lkvm's: masked to passt's (and the protocol bit). */
	assert_int_equal(r[0].u64, V1 | MRG);
	for (unsigned int i = 0; i < 2; i++, r += 5) {
		const struct vqm *m = i ? &f->tx : &f->rx;

		check(&r[1], VHOST_REQ_SET_VRING_NUM, i, NUM);
		check(&r[2], VHOST_REQ_SET_VRING_BASE, i, 0);
		assert_int_equal(r[3].req, VHOST_REQ_SET_VRING_ADDR);
		assert_ptr_equal((void *)(uintptr_t)r[3].addr.desc,
				 vqm_ptr(m, m->desc, 1));
		assert_ptr_equal((void *)(uintptr_t)r[3].addr.used,
				 vqm_ptr(m, m->used, 1));
		check(&r[4], VHOST_REQ_SET_VRING_CALL, i, f->vd.call_fd[i]);
		check(&r[5], VHOST_REQ_SET_VRING_KICK, i, f->slot.kicks[i].fd);
	}
	check(&f->log[11], VHOST_REQ_SET_VRING_ENABLE, 0, 1);
	check(&f->log[12], VHOST_REQ_SET_VRING_ENABLE, 1, 1);
	/* The reset (a guest reboot) takes both rings back; then again. */
	vqm_mmio_wr(&f->net.vm, VIRTIO_MMIO_STATUS, 0);
	assert_int_equal(f->n, 15);
	check(&f->log[13], VHOST_REQ_GET_VRING_BASE, 0, 0);
	check(&f->log[14], VHOST_REQ_GET_VRING_BASE, 1, 0);
	assert_int_equal(driver_up(f, V1), OK_STATUS);
	assert_int_equal(f->n, 15 + 13);
	assert_int_equal(f->log[15].u64, V1);
}

/* A notification that took the MMIO exit lands on the queue's eventfd. */
static void test_kick(void **state)
{
	struct fix *f = *state;
	uint64_t v = 0;

	assert_int_equal(driver_up(f, V1), OK_STATUS);
	vqm_mmio_wr(&f->net.vm, VIRTIO_MMIO_QUEUE_NOTIFY, VIRTIO_NET_TXQ);
	assert_int_equal(read(f->slot.kicks[1].fd, &v, sizeof(v)), sizeof(v));
	assert_int_equal(v, 1);
	assert_true(read(f->slot.kicks[0].fd, &v, sizeof(v)) < 0);
	vhostdev_kick(&f->vd, 5); /* no such ring: nothing */
	assert_true(read(f->slot.kicks[0].fd, &v, sizeof(v)) < 0);
}

/* A queue the driver left off: -EINVAL before any ring, and no enable. */
static void test_queue_off(void **state)
{
	struct fix *f = *state;
	struct vhost_ring r;

	vqm_mmio_negotiate(&f->net.vm, V1);
	vqm_mmio_queue(&f->net.vm, VIRTIO_NET_RXQ, &f->rx);
	assert_true(vqm_mmio_driver_ok(&f->net.vm) &
		    VIRTIO_STATUS_DEVICE_NEEDS_RESET);
	for (unsigned int i = 0; i < f->n; i++)
		assert_int_not_equal(f->log[i].req, VHOST_REQ_SET_VRING_ENABLE);
	assert_false(f->vh.broken);
	assert_int_equal(vhostdev_ring(&f->vd, 1, &r), -EINVAL);
	assert_int_equal(vhostdev_ring(&f->vd, 7, &r), -EINVAL);
}

/* Bus mastering off at DRIVER_OK: rings handed over, enabled later. */
static void test_dma(void **state)
{
	struct fix *f = *state;

	f->net.vm.core.dma_off = true;
	assert_int_equal(driver_up(f, V1), OK_STATUS);
	assert_int_equal(f->n, 11);
	assert_int_equal(vhostdev_user_dma(&f->vd, &f->vh, true), 0);
	check(&f->log[11], VHOST_REQ_SET_VRING_ENABLE, 0, 1);
	check(&f->log[12], VHOST_REQ_SET_VRING_ENABLE, 1, 1);
	assert_int_equal(vhostdev_user_dma(&f->vd, &f->vh, false), 0);
	check(&f->log[14], VHOST_REQ_SET_VRING_ENABLE, 1, 0);
}

/* The back-end fails a request: the start fails, the device needs reset. */
static void test_start_fails(void **state)
{
	struct fix *f = *state;

	f->fail_at = 4; /* rx's SET_VRING_ADDR */
	assert_true(driver_up(f, V1) & VIRTIO_STATUS_DEVICE_NEEDS_RESET);
	assert_int_equal(f->n, 4);
	assert_true(f->vh.broken);
	assert_int_equal(f->vh.failed, VHOST_REQ_SET_VRING_ADDR);
}

/* A call eventfd relayed on a real I/O thread into the interrupt. */
static void test_call_relay(void **state)
{
	struct fix *f = *state;
	struct iothread io;
	uint64_t one = 1;
	int i;

	assert_int_equal(driver_up(f, V1), OK_STATUS);
	assert_int_equal(iothread_init(&io), 0);
	assert_int_equal(vhostdev_watch(&f->vd, &io), 0);
	assert_int_equal(iothread_start(&io), 0);
	assert_int_equal(f->level, 0);
	assert_int_equal(write(f->vd.call_fd[1], &one, sizeof(one)),
			 sizeof(one));
	for (i = 0; i < 2000 && !__atomic_load_n(&f->level, __ATOMIC_SEQ_CST);
	     i++)
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	assert_int_equal(f->level, 1);
	virtio_mmio_lock(&f->net.vm);
	assert_true(f->net.vm.core.isr & VIRTIO_INT_VRING);
	virtio_mmio_unlock(&f->net.vm);
	vhostdev_unwatch(&f->vd);
	iothread_stop(&io);
}

static void fake_words(void *opaque, char *buf, size_t size)
{
	snprintf(buf, size, "%s", (const char *)opaque);
}

/* The log line of a daemon start that failed, with its last words. */
static void open_fails(pid_t *pid, int sock, const char *want)
{
	const struct vhost_mem m = { 0x80000000, 4096, 0x10000 };
	struct vhostdev_user u = { .daemon = "fakedaemon",
				   .sock = sock,
				   .pid = pid,
				   .last_words = fake_words,
				   .lw_opaque =
					   "Image is not in qcow2 format" };
	char line[512] = "";
	int lp[2];

	assert_int_equal(pipe(lp), 0);
	log_set_output(lp[1], false);
	assert_true(vhostdev_user_open(&u, "-d x.qcow2", &m, -1, 300) < 0);
	log_set_output(-1, false);
	assert_true(read(lp[0], line, sizeof(line) - 1) > 0);
	close(lp[0]);
	close(lp[1]);
	assert_non_null(strstr(line, want));
}

/*
 * A daemon that dies at start-up: its exit and its own reason in one
 * line; one that lives but does not answer: the request that failed.
 */
static void test_user_open_fails(void **state)
{
	int sv[2];
	pid_t pid;

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv),
			 0);
	pid = fork();
	if (!pid)
		_exit(3);
	close(sv[1]);
	open_fails(
		&pid, sv[0],
		"-d x.qcow2: fakedaemon exited with status 3 at start-up: Image is not in qcow2 format");
	assert_int_equal(pid, 0);
	close(sv[0]);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv),
			 0);
	pid = fork();
	if (!pid) {
		pause();
		_exit(0);
	}
	open_fails(
		&pid, sv[0],
		"-d x.qcow2: fakedaemon GET_FEATURES failed: the back-end did not answer in time");
	assert_true(pid > 0);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	close(sv[0]);
	close(sv[1]);
}

/* --- virtio-pci with MSI routes: the interrupt path -------------------- */

#define LINES 65
#define IMSIC 0x28000000ULL

struct pfix {
	struct fix *fx;
	struct board board;
	struct gsi_routes routes;
	struct iothread io;
	int bound[1024]; /* a fake KVM: fd's bound GSI, -1: none */
	uint64_t addr[GSI_ROUTES_KVM_MAX];
	uint32_t data[GSI_ROUTES_KVM_MAX];
	unsigned int sets, msgs;
};

static int fake_kvm_set(void *opaque, uint32_t nr_lines,
			const struct gsi_msi_route *msi, unsigned int n)
{
	struct pfix *p = opaque;

	assert_int_equal(nr_lines, LINES);
	p->sets++;
	for (unsigned int i = 0; i < n; i++) {
		p->addr[msi[i].gsi] = msi[i].addr;
		p->data[msi[i].gsi] = msi[i].data;
	}
	return 0;
}

static int fake_kvm_irqfd(void *opaque, int fd, uint32_t gsi, bool on)
{
	struct pfix *p = opaque;

	assert_true(fd >= 0 && fd < 1024);
	assert_int_equal(p->bound[fd], on ? -1 : (int)gsi);
	p->bound[fd] = on ? (int)gsi : -1;
	return 0;
}

static const struct gsi_route_ops kvm_ops = { fake_kvm_set, fake_kvm_irqfd };

static void pci_msg(void *opaque, uint64_t addr, uint32_t data)
{
	__atomic_add_fetch(&((struct pfix *)opaque)->msgs, 1, __ATOMIC_SEQ_CST);
}

static int setup_pci(void **state)
{
	struct pfix *p = calloc(1, sizeof(*p));
	struct fix *f;
	const struct virtio_pci_msi_sink sink = { pci_msg, p };

	assert_non_null(p);
	assert_int_equal(setup(state), 0);
	f = *state;
	f->pci = p;
	p->fx = f;
	memset(p->bound, -1, sizeof(p->bound));
	gsi_routes_init(&p->routes);
	assert_int_equal(gsi_routes_start(&p->routes, &kvm_ops, p, LINES), 0);
	p->board.chip.routes = &p->routes;
	f->slot.board = &p->board;
	f->slot.pci = true;
	assert_int_equal(virtio_pci_init(&f->slot.vpci, &f->net.vm.core, &sink),
			 0);
	vhostdev_attach(&f->vd, &f->slot);
	assert_non_null(f->slot.msix_hook.changed);
	virtio_pci_set_msix_hook(&f->slot.vpci, &f->slot.msix_hook);
	f->slot.vpci.func.ops->bus_master(&f->slot.vpci, true);
	assert_int_equal(iothread_init(&p->io), 0);
	assert_int_equal(vhostdev_watch(&f->vd, &p->io), 0);
	assert_int_equal(iothread_start(&p->io), 0);
	return 0;
}

static int teardown_pci(void **state)
{
	struct fix *f = *state;
	struct pfix *p = f->pci;

	iothread_stop(&p->io);
	gsi_routes_destroy(&p->routes);
	free(p);
	return teardown(state);
}

static void vp_wr(struct pfix *p, uint64_t off, unsigned int len, uint64_t v)
{
	struct virtio_pci *vp = &p->fx->slot.vpci;
	uint8_t d[8];

	mmio_data_put(d, len, v);
	vp->func.ops->bar_write(vp, VIRTIO_PCI_BAR, off, d, len);
}

static void vp_entry(struct pfix *p, unsigned int v, uint64_t addr,
		     uint32_t data, bool masked)
{
	uint64_t e = VIRTIO_PCI_MSIX_TABLE + 16 * v;

	vp_wr(p, e + 12, 4, 1); /* as Linux: masked while it changes */
	vp_wr(p, e, 8, addr);
	vp_wr(p, e + 8, 4, data);
	vp_wr(p, e + 12, 4, masked);
}

static void vp_msix(struct pfix *p, uint16_t ctrl)
{
	struct virtio_pci *vp = &p->fx->slot.vpci;

	vp->func.ops->cfg_write(vp, VIRTIO_PCI_CAP_MSIX + 2, 2, ctrl);
}

static void vp_queue_vector(struct pfix *p, unsigned int q, uint16_t v)
{
	vp_wr(p, VIRTIO_PCI_Q_SELECT, 2, q);
	vp_wr(p, VIRTIO_PCI_Q_MSIX, 2, v);
}

static enum vhostdev_path path(struct pfix *p, unsigned int q)
{
	enum vhostdev_path r;

	virtio_mmio_lock(&p->fx->net.vm);
	r = p->fx->vd.path[q];
	virtio_mmio_unlock(&p->fx->net.vm);
	return r;
}

/* What KVM would signal for ring q's eventfd: its GSI's message. */
static void bound_to(struct pfix *p, unsigned int q, uint64_t addr,
		     uint32_t data)
{
	int gsi = p->bound[p->fx->vd.call_fd[q]];

	assert_true(gsi >= LINES && gsi < LINES + GSI_ROUTES_MSI_MAX);
	assert_int_equal(p->addr[gsi], addr);
	assert_int_equal(p->data[gsi], data);
}

/* What the relay may have done: a message, a pending bit, INTx. */
static bool delivered(struct pfix *p, unsigned int msgs, uint32_t bit)
{
	struct fix *f = p->fx;
	bool r;

	virtio_mmio_lock(&f->net.vm);
	r = p->msgs != msgs || (f->slot.vpci.pending & bit) ||
	    (f->net.vm.core.isr & VIRTIO_INT_VRING);
	virtio_mmio_unlock(&f->net.vm);
	return r;
}

/*
 * Relayed: a signal on ring q's eventfd reaches the device through lkvm
 * (its vector's message, kept pending while masked, or INTx).
 */
static void relayed(struct pfix *p, unsigned int q, uint32_t pending_bit)
{
	uint64_t one = 1;
	unsigned int before;
	int i;

	assert_int_equal(path(p, q), VHOSTDEV_PATH_RELAY);
	assert_int_equal(p->bound[p->fx->vd.call_fd[q]], -1);
	/* Let the relay of a path change's own signal pass first. */
	nanosleep(&(struct timespec){ 0, 20000000 }, NULL);
	virtio_mmio_lock(&p->fx->net.vm);
	before = p->msgs;
	p->fx->slot.vpci.pending &= ~pending_bit;
	(void)virtio_core_isr_take_locked(&p->fx->net.vm.core);
	virtio_mmio_unlock(&p->fx->net.vm);
	assert_int_equal(write(p->fx->vd.call_fd[q], &one, sizeof(one)),
			 sizeof(one));
	for (i = 0; i < 2000 && !delivered(p, before, pending_bit); i++)
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	assert_true(delivered(p, before, pending_bit));
}

static void test_path_pci(void **state)
{
	struct fix *f = *state;
	struct pfix *p = f->pci;

	/* The relay interrupts a live queue only: the driver up first. */
	assert_int_equal(driver_up(f, V1), OK_STATUS);
	/* MSI-X off: both rings relayed (INTx). */
	assert_int_equal(path(p, 0), VHOSTDEV_PATH_RELAY);
	assert_int_equal(path(p, 1), VHOSTDEV_PATH_RELAY);
	vp_entry(p, 0, IMSIC, 0x21, false);
	vp_entry(p, 1, IMSIC + 0x1000, 0x22, false);
	vp_msix(p, PCI_MSIX_FLAGS_ENABLE);
	/* No vector yet: relayed. */
	assert_int_equal(path(p, 0), VHOSTDEV_PATH_RELAY);
	vp_queue_vector(p, 0, 0);
	vp_queue_vector(p, 1, 1);
	assert_int_equal(path(p, 0), VHOSTDEV_PATH_IRQFD);
	assert_int_equal(path(p, 1), VHOSTDEV_PATH_IRQFD);
	bound_to(p, 0, IMSIC, 0x21);
	bound_to(p, 1, IMSIC + 0x1000, 0x22);
	assert_int_not_equal(p->bound[f->vd.call_fd[0]],
			     p->bound[f->vd.call_fd[1]]);
	/* The guest moves vector 1 (another hart): the route follows. */
	vp_entry(p, 1, IMSIC + 0x2000, 0x30, false);
	assert_int_equal(path(p, 1), VHOSTDEV_PATH_IRQFD);
	bound_to(p, 1, IMSIC + 0x2000, 0x30);
	/* Masked: relayed, the message pending until the unmask. */
	vp_wr(p, VIRTIO_PCI_MSIX_TABLE + 16 + 12, 4, 1);
	assert_int_equal(p->bound[f->vd.call_fd[1]], -1);
	relayed(p, 1, 2);
	/* the vector is masked: no message, its pending bit */
	virtio_mmio_lock(&f->net.vm);
	assert_true(f->slot.vpci.pending & 2);
	virtio_mmio_unlock(&f->net.vm);
	vp_wr(p, VIRTIO_PCI_MSIX_TABLE + 16 + 12, 4, 0);
	assert_int_equal(path(p, 1), VHOSTDEV_PATH_IRQFD);
	bound_to(p, 1, IMSIC + 0x2000, 0x30);
	/* The function masked: both relayed; unmasked: both back. */
	vp_msix(p, PCI_MSIX_FLAGS_ENABLE | PCI_MSIX_FLAGS_MASKALL);
	assert_int_equal(path(p, 0), VHOSTDEV_PATH_RELAY);
	assert_int_equal(path(p, 1), VHOSTDEV_PATH_RELAY);
	vp_msix(p, PCI_MSIX_FLAGS_ENABLE);
	assert_int_equal(path(p, 0), VHOSTDEV_PATH_IRQFD);
	/* NO_VECTOR for ring 0: relayed; ring 1 keeps its irqfd. */
	vp_queue_vector(p, 0, VIRTIO_PCI_NO_VECTOR);
	assert_int_equal(path(p, 0), VHOSTDEV_PATH_RELAY);
	assert_int_equal(path(p, 1), VHOSTDEV_PATH_IRQFD);
	/* Bus mastering off: no message may go. */
	f->slot.vpci.func.ops->bus_master(&f->slot.vpci, false);
	assert_int_equal(path(p, 1), VHOSTDEV_PATH_RELAY);
	f->slot.vpci.func.ops->bus_master(&f->slot.vpci, true);
	assert_int_equal(path(p, 1), VHOSTDEV_PATH_IRQFD);
	/* MSI-X disabled: INTx, relayed. */
	vp_msix(p, 0);
	relayed(p, 1, 0);
	assert_int_equal(f->level, 1);
	assert_int_equal(p->routes.slot[0].fd, -1);
	assert_int_equal(p->routes.slot[1].fd, -1);
}

/* A function reset (a guest reboot), before and after a new VM. */
static void test_path_pci_reset(void **state)
{
	struct fix *f = *state;
	struct pfix *p = f->pci;
	struct virtio_pci *vp = &f->slot.vpci;
	unsigned int sets;

	vp_entry(p, 0, IMSIC, 0x21, false);
	vp_msix(p, PCI_MSIX_FLAGS_ENABLE);
	vp_queue_vector(p, 0, 0);
	assert_int_equal(path(p, 0), VHOSTDEV_PATH_IRQFD);
	/* Reboot keeping the VM: the reset unbinds through KVM. */
	vp->func.ops->reset(vp);
	assert_int_equal(path(p, 0), VHOSTDEV_PATH_RELAY);
	assert_int_equal(p->bound[f->vd.call_fd[0]], -1);
	vp->func.ops->bus_master(vp, true);
	vp_entry(p, 0, IMSIC, 0x21, false);
	vp_msix(p, PCI_MSIX_FLAGS_ENABLE);
	vp_queue_vector(p, 0, 0);
	assert_int_equal(path(p, 0), VHOSTDEV_PATH_IRQFD);
	/* A new VM: the routes went with the old one, nothing asked. */
	gsi_routes_stop(&p->routes);
	sets = p->sets;
	p->bound[f->vd.call_fd[0]] = -1; /* KVM dropped it with the VM */
	vp->func.ops->reset(vp);
	assert_int_equal(p->sets, sets);
	assert_int_equal(path(p, 0), VHOSTDEV_PATH_RELAY);
	/* The new VM's AIA: the path again once the guest sets MSI-X up. */
	assert_int_equal(gsi_routes_start(&p->routes, &kvm_ops, p, LINES), 0);
	vp->func.ops->bus_master(vp, true);
	vp_entry(p, 0, IMSIC, 0x25, false);
	vp_msix(p, PCI_MSIX_FLAGS_ENABLE);
	vp_queue_vector(p, 0, 0);
	assert_int_equal(path(p, 0), VHOSTDEV_PATH_IRQFD);
	bound_to(p, 0, IMSIC, 0x25);
}

/* The back-end gone: nobody reads its eventfds, whatever the guest does. */
static void test_path_pci_gone(void **state)
{
	struct fix *f = *state;
	struct pfix *p = f->pci;

	vp_entry(p, 0, IMSIC, 0x21, false);
	vp_msix(p, PCI_MSIX_FLAGS_ENABLE);
	vp_queue_vector(p, 0, 0);
	assert_int_equal(path(p, 0), VHOSTDEV_PATH_IRQFD);
	virtio_mmio_lock(&f->net.vm);
	vhostdev_unwatch(&f->vd);
	virtio_mmio_unlock(&f->net.vm);
	assert_int_equal(path(p, 0), VHOSTDEV_PATH_NONE);
	assert_int_equal(path(p, 1), VHOSTDEV_PATH_NONE);
	assert_int_equal(p->bound[f->vd.call_fd[0]], -1);
	vp_queue_vector(p, 1, 0);
	vp_msix(p, 0);
	vp_msix(p, PCI_MSIX_FLAGS_ENABLE);
	assert_int_equal(path(p, 0), VHOSTDEV_PATH_NONE);
	assert_int_equal(path(p, 1), VHOSTDEV_PATH_NONE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_user_open_fails),
		cmocka_unit_test_setup_teardown(test_withheld, setup, teardown),
		cmocka_unit_test_setup_teardown(test_start_order, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_kick, setup, teardown),
		cmocka_unit_test_setup_teardown(test_queue_off, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_dma, setup, teardown),
		cmocka_unit_test_setup_teardown(test_start_fails, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_call_relay, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_path_pci, setup_pci,
						teardown_pci),
		cmocka_unit_test_setup_teardown(test_path_pci_reset, setup_pci,
						teardown_pci),
		cmocka_unit_test_setup_teardown(test_path_pci_gone, setup_pci,
						teardown_pci),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

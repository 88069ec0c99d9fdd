// SPDX-License-Identifier: GPL-2.0
/*
 * The boot steps are an explicit table, run in order and unwound in
 * reverse on failure.  Steps marked per_boot are unwound and run again when
 * the guest reboots: a fresh KVM VM, zeroed RAM, new vCPUs, images and the
 * device tree loaded again; devices persist and are reset.  Data flows one
 * way: the configuration is only read; what a step set up is recorded in
 * the machine, so its down() undoes exactly that.
 */
#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "vmm/machine/boot.h"
#include "vmm/machine/dump.h"
#include "vmm/machine/ioeventfds.h"
#include "vmm/machine/ctl_handlers.h"
#include "lib/log.h"
#include "vmm/machine/lifecycle.h"
#include "vmm/host/seccomp.h"
#include "vmm/machine/signals.h"

struct boot_step {
	const char *name;
	int (*up)(struct machine *m);
	void (*down)(struct machine *m);
	bool per_boot;
};

/*
 * Once: which interrupt controller the guest gets, asked of the first
 * boot's KVM VM, opened here and kept for the "kvm" step (no scratch VM
 * made and torn down for the question).
 */
static int step_irqchip(struct machine *m)
{
	struct irqchip_host host;
	const char *why = "";
	int ret;

	ret = kvm_vm_open(&m->vm);
	if (ret)
		return ret;
	kvm_irqchip_probe(&m->vm, &host);
	ret = irqchip_select(m->vm.cfg, &host, &m->irqchip, &why);
	if (ret) {
		pr_err("%s", why);
		kvm_vm_close(&m->vm);
		return ret;
	}
	pr_debug(
		"irqchip: %s (the host's KVM: in-kernel AIA %s, in-kernel PLIC %s)",
		irqchip_name(m->irqchip), host.aia ? "yes" : "no",
		host.kernel_plic ? "yes" : "no");
	return 0;
}

static void aia_line(void *opaque, unsigned int src, int level)
{
	kvm_irq_line(opaque, src, level);
}

static void aia_msi(void *opaque, uint64_t addr, uint32_t data)
{
	kvm_signal_msi(opaque, addr, data);
}

static void step_devices_down(struct machine *m)
{
	fs_down(&m->fs);
	vsock_down(&m->vsock);
	hvsock_down(&m->hvsock);
	shares_down(&m->shares);
	nics_down(&m->nics);
	disks_down(&m->disks);
	cons_virtio_down(&m->cons);
	board_down(&m->board);
	cons_fini(&m->cons);
}

/* The board's devices, then the virtio devices in slot order. */
static int step_devices_up(struct machine *m)
{
	const struct vm_config *cfg = m->vm.cfg;
	const struct board_irqchip chip = {
		.kind = m->irqchip,
		.harts = m->hart_ext,
		.line = aia_line,
		.msi = aia_msi,
		.routes = m->irqchip == IRQCHIP_KIND_AIA ? &m->vm.routes : NULL,
		.opaque = &m->vm,
	};
	int ret;

	ret = cons_init(&m->cons, &m->vm);
	if (ret)
		return ret;
	for (unsigned int i = 0; i < cfg->nr_cpus; i++)
		m->hart_ext[i] = (struct irq_line){
			.set = kvm_cpu_set_ext_irq,
			.opaque = &m->vm.vcpus[i],
		};
	ret = board_up(&m->board, &m->vm, &chip, &m->cons.out);
	if (ret) {
		cons_fini(&m->cons);
		return ret;
	}
	if (cfg->console == CONSOLE_VIRTIO)
		ret = cons_virtio_up(&m->cons, &m->board);
	if (!ret && cfg->rng)
		ret = board_rng_up(&m->board);
	ret = ret ?: disks_up(&m->disks, cfg, &m->board);
	ret = ret ?: nics_up(&m->nics, cfg, &m->board, &m->io, m->sfd);
	ret = ret ?: shares_up(&m->shares, cfg, &m->board);
	if (!ret && cfg->balloon)
		ret = board_balloon_up(&m->board);
	ret = ret ?: vsock_up(&m->vsock, cfg, &m->board);
	ret = ret ?: hvsock_up(&m->hvsock, cfg, &m->board);
	ret = ret ?: fs_up(&m->fs, cfg, &m->board);
	/* A signal while waiting for passt: record the stop (status 3). */
	if (ret == -EINTR)
		signals_poll_stop(&m->vm, m->sfd);
	if (ret)
		step_devices_down(m); /* the failing part has said why */
	return ret;
}

static void step_iothread_down(struct machine *m)
{
	iothread_stop(&m->io);
	kicks_close(&m->board);
}

static int step_iothread_up(struct machine *m)
{
	int ret = iothread_init(&m->io);

	if (ret) {
		pr_err("cannot set up the I/O thread: %s", strerror(-ret));
		kicks_close(&m->board);
		return ret;
	}
	ret = kicks_watch(&m->board, &m->io);
	ret = ret ?: nics_watch(&m->nics);
	ret = ret ?: disks_watch(&m->disks, &m->io);
	ret = ret ?: vsock_watch(&m->vsock, &m->io);
	ret = ret ?: hvsock_watch(&m->hvsock, &m->io);
	ret = ret ?: fs_watch(&m->fs, &m->io);
	ret = ret ?: iothread_start(&m->io);
	if (ret) {
		pr_err("cannot start the I/O thread: %s", strerror(-ret));
		step_iothread_down(m);
	}
	return ret;
}

static int step_console_up(struct machine *m)
{
	return cons_input_start(&m->cons, &m->board.uart);
}

static void step_console_down(struct machine *m)
{
	cons_input_stop(&m->cons);
}

/* Once: the control socket (lkvm list, stop, pause, ...). */
static int step_ctl_up(struct machine *m)
{
	return ctl_handlers_start(m);
}

static void step_ctl_down(struct machine *m)
{
	ctl_handlers_stop(m);
}

/* Once: --gdb's listening socket and thread. */
static int step_gdb_up(struct machine *m)
{
	const struct vm_config *cfg = m->vm.cfg;

	m->gdb.lfd = m->gdb.cfd = m->gdb.quit_fd = m->gdb.stop_fd = -1;
	if (!cfg->gdb)
		return 0;
	return gdb_server_start(&m->gdb, &m->vm, cfg->gdb, cfg->gdb_wait);
}

static void step_gdb_down(struct machine *m)
{
	gdb_server_stop(&m->gdb);
}

/* Every boot's KVM VM: the first boot's is the one step_irqchip opened. */
static int step_kvm_up(struct machine *m)
{
	return m->vm.vm_fd >= 0 ? 0 : kvm_vm_open(&m->vm);
}

static void step_kvm_down(struct machine *m)
{
	kvm_vm_close(&m->vm);
}

/* Queue q's notifications at addr signal fd (kicks_bind_fn). */
static void bind_ioeventfd(void *opaque, uint64_t addr, unsigned int len,
			   uint32_t q, int fd, bool assign)
{
	struct machine *m = opaque;
	int ret = kvm_ioeventfd(&m->vm, addr, len, q, fd, assign);

	if (ret && !assign)
		pr_once(LOG_WARN, "KVM_IOEVENTFD deassign: %s", strerror(-ret));
	else if (ret)
		pr_once(LOG_WARN,
			"KVM_IOEVENTFD: %s; virtio notifications take the MMIO exit path",
			strerror(-ret));
}

/*
 * Per boot (ioeventfds belong to the KVM VM): each queue's notification
 * (its index written to QueueNotify or to the PCI notify address)
 * signals that queue's eventfd on the I/O thread instead of exiting to
 * the vCPU thread; PCI ones follow the guest's BAR placement.  Without
 * ioeventfd support the MMIO exit path still works.
 */
static int step_ioeventfds(struct machine *m)
{
	kicks_bind(&m->board, bind_ioeventfd, m);
	return 0;
}

static void step_ioeventfds_down(struct machine *m)
{
	kicks_unbind(&m->board);
}

/*
 * Once: guest RAM, mapped before any thread or device that can touch it
 * exists and unmapped after they are all gone.
 */
static int step_ram_up(struct machine *m)
{
	return kvm_ram_alloc(&m->vm);
}

static void step_ram_down(struct machine *m)
{
	kvm_ram_free(&m->vm);
}

/*
 * Per boot: RAM as the new VM's memslot, zeroed after a reboot (the
 * devices were reset and have drained their requests before).
 */
static int step_memslot(struct machine *m)
{
	return kvm_ram_register(&m->vm, m->vm.boots > 0);
}

static int step_vcpus_up(struct machine *m)
{
	return kvm_cpus_create(&m->vm);
}

static void step_vcpus_down(struct machine *m)
{
	kvm_cpus_destroy(&m->vm);
}

/*
 * Per boot, with an in-kernel irqchip: KVM's AIA or PLIC device (after the
 * vCPUs exist, before they run; the PLIC where its device tree node says),
 * and an irqfd per virtio-mmio slot.  A stale count left in an eventfd by
 * the last boot is drained first.
 */
static int step_aia_up(struct machine *m)
{
	struct board *b = &m->board;
	int ret;

	if (!irqchip_in_kernel(m->irqchip))
		return 0;
	if (m->irqchip == IRQCHIP_KIND_AIA) {
		ret = kvm_aia_create(&m->vm, &b->aia_params, &b->aia);
		ret = ret ?: kvm_routes_start(&m->vm, &b->aia);
	} else
		ret = kvm_plic_create(&m->vm, b->plic.res.base,
				      PLIC_MAX_SOURCES);
	for (unsigned int i = 0; !ret && i < b->nr_virtio; i++) {
		uint64_t stale;

		if (b->virtio[i].irq_fd < 0)
			continue; /* on PCI: INTx through the bridge */
		if (read(b->virtio[i].irq_fd, &stale, sizeof(stale)) < 0)
			stale = 0;
		ret = kvm_irqfd(&m->vm, b->virtio[i].irq_fd,
				b->virtio[i].res.irq);
		if (ret)
			pr_err("KVM_IRQFD: %s", strerror(-ret));
	}
	if (ret) {
		gsi_routes_stop(&m->vm.routes);
		kvm_aia_destroy(&m->vm);
	}
	return ret;
}

static void step_aia_down(struct machine *m)
{
	gsi_routes_stop(&m->vm.routes);
	kvm_aia_destroy(&m->vm);
}

static int step_load(struct machine *m)
{
	struct boot_entry entry;
	int ret = boot_load(&m->vm, &m->board, &entry);

	return ret   ?:
		       kvm_cpu_boot_regs(&m->vm.vcpus[0], entry.pc, entry.a0,
					 entry.a1);
}

/*
 * The UART's transmit register, while the guest polls the UART (Linux's
 * console, earlycon, firmware: each byte after a read of LSR), goes
 * through KVM's coalesced MMIO ring: the byte waits for the next exit
 * (that LSR read) instead of exiting itself, halving the exits of a
 * console line.  Once the guest enables the THR-empty interrupt it
 * expects that interrupt after each THR write, which the ring would
 * delay: the window is given back to the exit path until the next reset.
 */
static void uart_batch(struct machine *m, bool on)
{
	int ret = kvm_coalesce(&m->vm, m->board.uart.res.base + UART8250_THR, 1,
			       on);

	if (ret && ret != -ENOTSUP)
		pr_once(LOG_WARN, "coalesced MMIO for the UART: %s",
			strerror(-ret));
}

static void uart_thri_first(void *opaque)
{
	uart_batch(opaque, false);
}

/* Per boot, once the vCPUs (and so the ring's mapping) exist. */
static int step_batch(struct machine *m)
{
	kvm_coalesced_open(&m->vm);
	uart8250_on_thri(&m->board.uart, uart_thri_first, m);
	uart_batch(m, true);
	return 0;
}

static const struct boot_step boot_steps[] = {
	{ "irqchip", step_irqchip, step_kvm_down, false },
	{ "ram", step_ram_up, step_ram_down, false },
	{ "devices", step_devices_up, step_devices_down, false },
	{ "iothread", step_iothread_up, step_iothread_down, false },
	{ "console", step_console_up, step_console_down, false },
	{ "ctl", step_ctl_up, step_ctl_down, false },
	{ "gdb", step_gdb_up, step_gdb_down, false },
	{ "kvm", step_kvm_up, step_kvm_down, true },
	{ "ioeventfds", step_ioeventfds, step_ioeventfds_down, true },
	{ "memslot", step_memslot, NULL, true },
	{ "vcpus", step_vcpus_up, step_vcpus_down, true },
	{ "batch", step_batch, NULL, true },
	{ "aia", step_aia_up, step_aia_down, true },
	{ "load", step_load, NULL, true },
};
#define NR_STEPS (sizeof(boot_steps) / sizeof(*boot_steps))

/* Unwind steps [0, to) in reverse; per_boot_only keeps the others. */
static void steps_down(struct machine *m, size_t to, bool per_boot_only)
{
	while (to-- > 0)
		if (boot_steps[to].down &&
		    (!per_boot_only || boot_steps[to].per_boot))
			boot_steps[to].down(m);
}

static uint64_t clock_us(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static uint64_t now_us(void)
{
	return clock_us(CLOCK_MONOTONIC);
}

/* lkvm's CPU time so far, all threads. */
static uint64_t cpu_us(void)
{
	return clock_us(CLOCK_PROCESS_CPUTIME_ID);
}

/*
 * Run the steps (all, or the per-boot ones); *done: how many are up.  A
 * stop requested meanwhile (a signal, read here without waiting, or
 * Ctrl-A x) ends the boot before the next step: -EINTR.
 */
static int steps_up(struct machine *m, bool per_boot_only, size_t *done)
{
	for (size_t i = 0; i < NR_STEPS; i++) {
		uint64_t t0, c0;
		int ret;

		if (per_boot_only && !boot_steps[i].per_boot)
			continue;
		if (signals_poll_stop(&m->vm, m->sfd)) {
			*done = i;
			return -EINTR;
		}
		pr_debug("boot step %s", boot_steps[i].name);
		t0 = now_us();
		c0 = cpu_us();
		ret = boot_steps[i].up(m);
		if (ret) {
			*done = i;
			return ret;
		}
		pr_debug("boot step %s: %.1f ms (CPU %.1f ms)",
			 boot_steps[i].name, (now_us() - t0) / 1000.0,
			 (cpu_us() - c0) / 1000.0);
	}
	*done = NR_STEPS;
	return 0;
}

int machine_init(struct machine *m, const struct vm_config *cfg)
{
	memset(m, 0, sizeof(*m));
	return vm_init(&m->vm, cfg, board_ram_base());
}

/* Run the vCPUs until a stop; true when the guest asked for a reboot. */
static bool machine_run_once(struct machine *m, int sfd)
{
	struct vm *vm = &m->vm;
	int reset = VM_STOP_RESET;

	if (kvm_cpus_start(vm))
		vm_request_stop(vm, VM_STOP_HOST_ERROR, "%s", "");
	else
		signals_wait_stop(vm, sfd);
	kvm_cpus_stop(vm);
	/* With no vCPU running, a later stop request is kept. */
	return atomic_compare_exchange_strong(&vm->stop, &reset, VM_RUNNING);
}

/*
 * A reboot that keeps the KVM VM, where KVM resets vCPUs on request
 * (vm->mp_reset): the devices are reset, every vCPU goes back to its
 * creation state, the in-kernel irqchip to its state after creation, RAM
 * is zeroed and the images are loaded again; the VM, its memslot,
 * ioeventfds, irqfds and vCPU fds stay.  Nonzero: not possible here (the
 * caller builds a new VM, as without the capability).
 */
static int machine_warm_reset(struct machine *m)
{
	struct vm *vm = &m->vm;
	int ret;

	if (!vm->mp_reset || vm->cfg->reboot_new_vm ||
	    signals_poll_stop(vm, m->sfd))
		return -EAGAIN;
	mmio_bus_reset(&vm->bus);
	ret = kvm_cpus_reset(vm);
	if (!ret && irqchip_in_kernel(m->irqchip))
		ret = kvm_irqchip_reset(vm, m->irqchip == IRQCHIP_KIND_AIA ?
						    &m->board.aia :
						    NULL);
	if (ret)
		return ret;
	kvm_ram_zero(vm);
	uart_batch(m, true); /* the UART was reset: polled again */
	return step_load(m);
}

/*
 * --dump-on-panic: the run ended with a panic the guest reported
 * (pvpanic), a reset refused by --no-reboot (a panic=-1 kernel's) or a
 * crash; the vCPU threads have ended, their fds and RAM are still there.
 */
static void dump_on_stop(struct machine *m)
{
	int why = atomic_load(&m->vm.stop);

	if (m->vm.cfg->dump_on_panic &&
	    (why == VM_STOP_PANIC || why == VM_STOP_REBOOT ||
	     why == VM_STOP_CRASH))
		dump_to_path(&m->vm, m->vm.cfg->dump_on_panic);
}

int machine_run(struct machine *m, int sfd)
{
	size_t done;
	int ret;

	m->sfd = sfd;
	ret = steps_up(m, false, &done);
	/* Set up: from here on only the system calls seccomp.c allows. */
	if (!ret && !m->vm.cfg->no_seccomp) {
		uint64_t t0 = now_us(), c0 = cpu_us();

		ret = seccomp_install(m->vm.cfg);
		pr_debug("seccomp filter: %.1f ms (CPU %.1f ms)",
			 (now_us() - t0) / 1000.0, (cpu_us() - c0) / 1000.0);
	}
	while (!ret && machine_run_once(m, sfd)) {
		uint64_t t0 = now_us();
		bool kept;

		pr_info("guest reboot (%lu): resetting the VM", ++m->vm.boots);
		kept = !machine_warm_reset(m);
		if (!kept) {
			steps_down(m, done, true);
			mmio_bus_reset(&m->vm.bus);
			ret = steps_up(m, true, &done);
		}
		if (!ret)
			pr_debug("reboot: %s in %.1f ms",
				 kept ? "the VM kept, its vCPUs reset by KVM," :
					"a new KVM VM built",
				 (now_us() - t0) / 1000.0);
	}
	if (!ret)
		dump_on_stop(m);
	/* The failing step has said why. */
	if (ret && !atomic_load(&m->vm.stop))
		vm_request_stop(&m->vm, VM_STOP_HOST_ERROR, "%s", "");
	steps_down(m, done, false);
	return ret;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * lkvm: command line -> config -> boot steps -> vCPU threads.
 *
 * The boot steps are an explicit table, run in order and unwound in reverse
 * on failure.  Steps marked per_boot are unwound and run again when the
 * guest reboots: a fresh KVM VM, zeroed RAM, new vCPUs, images and FDT
 * loaded again; devices persist and are reset.
 */
#include <errno.h>
#include <fcntl.h>
#include <libfdt.h>
#include <linux/if_tun.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "exit_codes.h"
#include "fdt.h"
#include "layout.h"
#include "loader.h"
#include "lib/log.h"
#include "term.h"
#include "vm.h"

#define UART_FDT_PATH "/soc/serial@10000000"

struct boot_step {
	const char *name;
	int (*up)(struct vm *vm);
	void (*down)(struct vm *vm);
	bool per_boot;
};

void vm_request_stop(struct vm *vm, enum vm_stop why, const char *fmt, ...)
{
	int expected = VM_RUNNING;
	uint64_t one = 1;
	va_list ap;

	if (!atomic_compare_exchange_strong(&vm->stop, &expected, why))
		return;
	va_start(ap, fmt);
	vsnprintf(vm->stop_buf, sizeof(vm->stop_buf), fmt, ap);
	va_end(ap);
	if (vm->stop_fd >= 0 && write(vm->stop_fd, &one, sizeof(one)) < 0)
		pr_err("cannot wake the main thread: %s", strerror(errno));
}

/* --- console backends ----------------------------------------------------- */

/*
 * Guest output to stdout, on vCPU threads.  A stalled reader blocks the
 * vCPU; a stop request (which kicks vCPUs with a signal) ends the wait and
 * drops the rest, so a stop never hangs on stdout.
 */
static void stdout_write(void *opaque, const uint8_t *buf, size_t len)
{
	struct vm *vm = opaque;

	while (len) {
		ssize_t n = write(STDOUT_FILENO, buf, len);

		if (n < 0 && errno == EINTR && !atomic_load(&vm->stop))
			continue;
		if (n <= 0)
			return;
		buf += n;
		len -= n;
	}
}

static size_t hv_read(void *opaque, uint8_t *buf, size_t len)
{
	struct vm *vm = opaque;

	return hostcons_pop(&vm->console, buf, len);
}

/* Offer input to the guest's console; returns how much it took. */
static size_t console_deliver(struct vm *vm, const uint8_t *buf, size_t len)
{
	switch (vm->cfg->console) {
	case CONSOLE_HV:
		return hostcons_push(&vm->console, buf, len);
	case CONSOLE_VIRTIO:
		return virtio_console_receive(&vm->vcon, buf, len);
	default:
		return uart8250_receive(&vm->uart, buf, len);
	}
}

/*
 * Read stdin into buf (filtered for Ctrl-A keys).  When the guest is not
 * taking input and buf is full, input is still read so that Ctrl-A x works,
 * and dropped.  Returns false at end of input.
 */
static bool console_read(struct vm *vm, uint8_t *buf, size_t *len,
			 size_t size)
{
	uint8_t in[256], scratch[2 * sizeof(in)];
	size_t room = (size - *len) / 2;
	ssize_t n;
	bool stop;

	n = read(STDIN_FILENO, in, room && room < sizeof(in) ? room : sizeof(in));
	if (n < 0)
		return errno == EINTR || errno == EAGAIN;
	if (n == 0)
		return false;
	if (room) {
		*len += hostcons_filter(&vm->console, in, n, buf + *len, &stop);
	} else {
		hostcons_filter(&vm->console, in, n, scratch, &stop);
		pr_once(LOG_WARN, "console input dropped: the guest is not reading it");
	}
	if (stop)
		vm_request_stop(vm, VM_STOP_SIGNAL, "stopped by Ctrl-A x");
	return true;
}

/*
 * The input thread: stdin is always polled, so piped input reaches the
 * guest too.  Bytes the guest cannot take yet wait here (none are dropped
 * while there is room); at end of input the guest keeps running.
 */
static void *console_thread(void *arg)
{
	struct vm *vm = arg;
	uint8_t buf[2048];
	size_t len = 0;
	bool eof = false;

	for (;;) {
		struct pollfd pfd[2] = {
			{ .fd = eof ? -1 : STDIN_FILENO, .events = POLLIN },
			{ .fd = vm->input_quit_fd, .events = POLLIN },
		};

		if (len) {
			size_t took = console_deliver(vm, buf, len);

			memmove(buf, buf + took, len - took);
			len -= took;
		}
		if (poll(pfd, 2, len ? 5 : -1) < 0 && errno != EINTR)
			return NULL;
		if (pfd[1].revents)
			return NULL;
		if (pfd[0].revents && !console_read(vm, buf, &len, sizeof(buf)))
			eof = true;
	}
}

static int step_console_up(struct vm *vm)
{
	static const struct sbi_console hv_ops = {
		.write = stdout_write, .read = hv_read,
	};
	int ret;

	hostcons_init(&vm->console);
	vm->hv_console = hv_ops;
	vm->hv_console.opaque = vm;
	vm->input_quit_fd = eventfd(0, EFD_CLOEXEC);
	if (vm->input_quit_fd < 0) {
		pr_err("eventfd: %s", strerror(errno));
		return -errno;
	}
	term_raw();
	ret = pthread_create(&vm->input_thread, NULL, console_thread, vm);
	if (ret) {
		pr_err("cannot start the console thread: %s", strerror(ret));
		term_restore();
		close(vm->input_quit_fd);
		return -ret;
	}
	return 0;
}

static void step_console_down(struct vm *vm)
{
	uint64_t one = 1;

	if (write(vm->input_quit_fd, &one, sizeof(one)) == sizeof(one))
		pthread_join(vm->input_thread, NULL);
	close(vm->input_quit_fd);
	term_restore();
	hostcons_destroy(&vm->console);
}

/* --- devices -------------------------------------------------------------- */

static void uart_irq_set(void *opaque, int level)
{
	struct vm *vm = opaque;

	plic_set_irq(&vm->plic, LAYOUT_UART_IRQ, level);
}

static void nic_down(struct nic *nic);

static void step_devices_down(struct vm *vm)
{
	while (vm->nr_nics)
		nic_down(&vm->nics[--vm->nr_nics]);
	while (vm->nr_blk) {
		vm->nr_blk--;
		virtio_blk_destroy(&vm->blk[vm->nr_blk]);
		virtio_blk_file_close(&vm->blk_file[vm->nr_blk]);
	}
	if (vm->cfg->rng)
		virtio_rng_destroy(&vm->rng);
	if (vm->cfg->console == CONSOLE_VIRTIO)
		virtio_console_destroy(&vm->vcon);
	uart8250_destroy(&vm->uart);
	plic_destroy(&vm->plic);
}

static void virtio_irq_set(void *opaque, int level)
{
	struct virtio_slot *slot = opaque;

	plic_set_irq(&slot->vm->plic, slot->irq, level);
}

/* The next free virtio-mmio slot, its interrupt wired to the PLIC. */
static struct virtio_slot *virtio_slot_next(struct vm *vm)
{
	struct virtio_slot *slot = &vm->virtio[vm->nr_virtio];

	if (vm->nr_virtio == LAYOUT_VIRTIO_MMIO_SLOTS)
		return NULL;
	*slot = (struct virtio_slot){
		.vm = vm, .irq = LAYOUT_VIRTIO_MMIO_FIRST_IRQ + vm->nr_virtio,
		.kick_fd = -1,
	};
	slot->line = (struct irq_line){ .set = virtio_irq_set, .opaque = slot };
	return slot;
}

/* Put an initialised transport in its slot and on the MMIO bus. */
static int virtio_slot_add(struct vm *vm, struct virtio_mmio *transport)
{
	int ret;

	vm->virtio[vm->nr_virtio++].transport = transport;
	ret = mmio_bus_add(&vm->bus, transport->base, transport->size,
			   &virtio_mmio_ops, transport);
	if (ret)
		pr_err("MMIO map of %s: %s", transport->dev.name,
		       strerror(-ret));
	return ret;
}

/* --- virtio-net over a tap -------------------------------------------------- */

static int nic_tx(void *opaque, const void *buf, size_t len)
{
	struct nic *nic = opaque;

	return write(nic->tap.fd, buf, len) == (ssize_t)len ? 0 : -EAGAIN;
}

/* Deliver the held frame; true when nothing is held any more. */
static bool nic_flush_held(struct nic *nic)
{
	if (!nic->frame_len)
		return true;
	if (virtio_net_receive(&nic->net, nic->frame, nic->frame_len) ==
	    -EAGAIN)
		return false;
	nic->frame_len = 0;	/* delivered, or dropped for good */
	return true;
}

/*
 * The guest posted receive buffers (any thread, transport lock held):
 * wake the I/O thread, which owns the held frame and the tap.
 */
static void nic_rx_ready(void *opaque)
{
	struct nic *nic = opaque;
	uint64_t one = 1;

	if (write(nic->wake_fd, &one, sizeof(one)) < 0)
		pr_once(LOG_WARN, "virtio-net: cannot wake the I/O thread");
}

/* On the I/O thread: frames from the tap into the guest. */
static void nic_tap_readable(void *opaque)
{
	struct nic *nic = opaque;

	while (nic_flush_held(nic)) {
		ssize_t n = read(nic->tap.fd, nic->frame,
				 VIRTIO_NET_FRAME_MAX);

		if (n <= 0)
			return;
		nic->frame_len = n;
	}
	/* No room in the guest: stop reading until it posts buffers. */
	iothread_watch(&nic->vm->io, nic->tap.fd, false);
}

static void nic_woken(void *opaque)
{
	struct nic *nic = opaque;
	uint64_t v;

	if (read(nic->wake_fd, &v, sizeof(v)) != sizeof(v))
		return;
	if (nic_flush_held(nic))
		iothread_watch(&nic->vm->io, nic->tap.fd, true);
}

static int nic_set_offloads(void *opaque, uint64_t features)
{
	struct nic *nic = opaque;
	unsigned int tun = 0;

	if (features & VIRTIO_BIT(VIRTIO_NET_F_GUEST_CSUM))
		tun |= TUN_F_CSUM;
	if (features & VIRTIO_BIT(VIRTIO_NET_F_GUEST_TSO4))
		tun |= TUN_F_TSO4;
	if (features & VIRTIO_BIT(VIRTIO_NET_F_GUEST_TSO6))
		tun |= TUN_F_TSO6;
	if (features & VIRTIO_BIT(VIRTIO_NET_F_GUEST_ECN))
		tun |= TUN_F_TSO_ECN;
	return tap_set_offload(&nic->tap, tun);
}

static const struct virtio_net_backend_ops nic_ops = {
	.tx = nic_tx,
	.rx_ready = nic_rx_ready,
	.set_offloads = nic_set_offloads,
};

static void nic_down(struct nic *nic)
{
	virtio_net_destroy(&nic->net);
	tap_close(&nic->tap);
	close(nic->wake_fd);
	free(nic->frame);
}

static int nic_up(struct vm *vm, const struct nic_config *cfg)
{
	struct nic *nic = &vm->nics[vm->nr_nics];
	struct virtio_slot *slot = virtio_slot_next(vm);
	struct virtio_net_backend be = {
		.ops = &nic_ops, .opaque = nic, .offloads = true,
	};
	int ret;

	if (!slot) {
		pr_err("-n: no free virtio-mmio slot");
		return -ENOSPC;
	}
	*nic = (struct nic){ .vm = vm, .tap.fd = -1 };
	nic->frame = malloc(VIRTIO_NET_FRAME_MAX);
	nic->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	ret = !nic->frame || nic->wake_fd < 0 ? -ENOMEM :
						tap_open(&nic->tap, cfg);
	if (ret) {
		if (nic->wake_fd >= 0)
			close(nic->wake_fd);
		free(nic->frame);
		return ret;
	}
	memcpy(be.mac, cfg->mac, sizeof(be.mac));
	ret = virtio_net_init(&nic->net, vm->nr_virtio, &vm->mem, &slot->line,
			      &be);
	if (ret) {
		pr_err("cannot set up virtio-net: %s", strerror(-ret));
		tap_close(&nic->tap);
		close(nic->wake_fd);
		free(nic->frame);
		return ret;
	}
	vm->nr_nics++;
	return virtio_slot_add(vm, &nic->net.vm);
}

static int vcon_up(struct vm *vm)
{
	const struct char_out out = { .write = stdout_write, .opaque = vm };
	struct virtio_slot *slot = virtio_slot_next(vm);
	int ret;

	ret = virtio_console_init(&vm->vcon, vm->nr_virtio, &vm->mem,
				  &slot->line, &out);
	if (ret) {
		pr_err("cannot set up virtio-console: %s", strerror(-ret));
		vm->cfg->console = CONSOLE_SERIAL;
		return ret;
	}
	return virtio_slot_add(vm, &vm->vcon.vm);
}

static int rng_up(struct vm *vm)
{
	struct virtio_slot *slot = virtio_slot_next(vm);
	int ret;

	ret = virtio_rng_init(&vm->rng, vm->nr_virtio, &vm->mem, &slot->line,
			      virtio_rng_getrandom, NULL);
	if (ret) {
		pr_err("cannot set up virtio-rng: %s", strerror(-ret));
		vm->cfg->rng = false;
		return ret;
	}
	return virtio_slot_add(vm, &vm->rng.vm);
}

/* One -d disk: open and lock the image, then a virtio-blk device. */
static int blk_up(struct vm *vm, const struct disk_config *d)
{
	struct virtio_blk_file *f = &vm->blk_file[vm->nr_blk];
	struct virtio_slot *slot = virtio_slot_next(vm);
	struct virtio_blk_disk disk;
	const char *base = strrchr(d->path, '/');
	int ret;

	if (!slot) {
		pr_err("%s: no free virtio-mmio slot", d->path);
		return -ENOSPC;
	}
	ret = virtio_blk_file_open(f, d->path, d->ro, d->direct);
	if (ret)
		return ret;
	virtio_blk_file_disk(f, base ? base + 1 : d->path, &disk);
	ret = virtio_blk_init(&vm->blk[vm->nr_blk], vm->nr_virtio, &vm->mem,
			      &slot->line, &disk);
	if (ret) {
		pr_err("%s: cannot set up virtio-blk: %s", d->path,
		       strerror(-ret));
		virtio_blk_file_close(f);
		return ret;
	}
	vm->nr_blk++;
	return virtio_slot_add(vm, &vm->blk[vm->nr_blk - 1].vm);
}

static int step_devices_up(struct vm *vm)
{
	const struct char_out uart_out = { .write = stdout_write, .opaque = vm };
	int ret;

	for (unsigned int i = 0; i < vm->cfg->nr_cpus; i++)
		vm->plic_out[i] = (struct irq_line){
			.set = kvm_cpu_set_ext_irq, .opaque = &vm->vcpus[i],
		};
	ret = plic_init(&vm->plic, vm->cfg->nr_cpus, vm->plic_out);
	if (ret) {
		pr_err("cannot set up the PLIC: %s", strerror(-ret));
		return ret;
	}
	vm->uart_irq = (struct irq_line){ .set = uart_irq_set, .opaque = vm };
	ret = uart8250_init(&vm->uart, &vm->uart_irq, &uart_out);
	if (ret) {
		pr_err("cannot set up the UART: %s", strerror(-ret));
		plic_destroy(&vm->plic);
		return ret;
	}
	ret = mmio_bus_add(&vm->bus, LAYOUT_PLIC_BASE, LAYOUT_PLIC_SIZE,
			   &plic_mmio_ops, &vm->plic);
	ret = ret ?: mmio_bus_add(&vm->bus, LAYOUT_UART_BASE, LAYOUT_UART_SIZE,
				  &uart8250_mmio_ops, &vm->uart);
	if (ret)
		pr_err("MMIO map: %s", strerror(-ret));
	if (!ret && vm->cfg->console == CONSOLE_VIRTIO)
		ret = vcon_up(vm);
	if (!ret && vm->cfg->rng)
		ret = rng_up(vm);
	for (unsigned int i = 0; !ret && i < vm->cfg->nr_disks; i++)
		ret = blk_up(vm, &vm->cfg->disks[i]);
	for (unsigned int i = 0; !ret && i < vm->cfg->nr_nics; i++)
		if (vm->cfg->nics[i].tap)
			ret = nic_up(vm, &vm->cfg->nics[i]);
	if (ret)
		step_devices_down(vm);	/* the failing part has said why */
	return ret;
}

/* --- virtio notifications ------------------------------------------------ */

/* On the I/O thread: the guest wrote QueueNotify; process every queue. */
static void virtio_kicked(void *opaque)
{
	struct virtio_slot *slot = opaque;
	uint64_t v;

	if (read(slot->kick_fd, &v, sizeof(v)) != sizeof(v))
		return;
	for (unsigned int q = 0; q < slot->transport->dev.num_queues; q++)
		virtio_mmio_kick(slot->transport, q);
}

static void step_iothread_down(struct vm *vm)
{
	iothread_stop(&vm->io);
	for (unsigned int i = 0; i < vm->nr_virtio; i++)
		close(vm->virtio[i].kick_fd);
}

static int step_iothread_up(struct vm *vm)
{
	int ret = iothread_init(&vm->io);

	for (unsigned int i = 0; !ret && i < vm->nr_virtio; i++) {
		vm->virtio[i].kick_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		ret = vm->virtio[i].kick_fd < 0 ? -errno :
			iothread_add(&vm->io, vm->virtio[i].kick_fd,
				     virtio_kicked, &vm->virtio[i]);
		if (ret)
			vm->nr_virtio = i + (vm->virtio[i].kick_fd >= 0);
	}
	for (unsigned int i = 0; !ret && i < vm->nr_nics; i++) {
		ret = iothread_add(&vm->io, vm->nics[i].tap.fd,
				   nic_tap_readable, &vm->nics[i]);
		ret = ret ?: iothread_add(&vm->io, vm->nics[i].wake_fd,
					  nic_woken, &vm->nics[i]);
	}
	ret = ret ?: iothread_start(&vm->io);
	if (ret) {
		pr_err("cannot start the I/O thread: %s", strerror(-ret));
		step_iothread_down(vm);
	}
	return ret;
}

/*
 * Per boot (ioeventfds belong to the KVM VM): queue notifications signal
 * the I/O thread instead of exiting to the vCPU thread.  Without ioeventfd
 * support the MMIO exit path still works.
 */
static int step_ioeventfds(struct vm *vm)
{
	for (unsigned int i = 0; i < vm->nr_virtio; i++) {
		struct virtio_slot *slot = &vm->virtio[i];
		int ret = kvm_ioeventfd(vm, slot->transport->base +
					    VIRTIO_MMIO_QUEUE_NOTIFY,
					slot->kick_fd);

		if (ret)
			pr_once(LOG_WARN, "KVM_IOEVENTFD: %s; virtio notifications take the MMIO exit path",
				strerror(-ret));
	}
	return 0;
}

/* --- images and device tree ----------------------------------------------- */

static const char *mmu_type(unsigned long satp_mode)
{
	switch (satp_mode) {
	case 8:
		return "riscv,sv39";
	case 9:
		return "riscv,sv48";
	case 10:
		return "riscv,sv57";
	default:
		return NULL;
	}
}

static mode_t umask_get(void)
{
	mode_t mask = umask(0);

	umask(mask);
	return mask;
}

/* Write the DTB to a temporary file and rename it: never half-written. */
static int dump_dtb(const char *path, const void *fdt, size_t size)
{
	char tmp[4096];
	int fd, ret = 0;

	if (snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	fd = mkstemp(tmp);
	if (fd < 0 || fchmod(fd, 0644 & ~umask_get()) ||
	    hostcons_write_all(fd, fdt, size) || fsync(fd))
		ret = -errno;
	if (fd >= 0)
		close(fd);
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (ret) {
		unlink(tmp);
		pr_err("--dump-dtb %s: %s", path, strerror(-ret));
	}
	return ret;
}

static int build_fdt(struct vm *vm, const struct loader_placement *place)
{
	struct fdt_device devices[2 + LAYOUT_VIRTIO_MMIO_SLOTS] = {
		{ &plic_mmio_ops, &vm->plic },
		{ &uart8250_mmio_ops, &vm->uart },
	};
	unsigned int nr_devices = 2;
	uint8_t seed[32];
	struct fdt_params p = {
		.cfg = vm->cfg,
		.timebase_freq = vm->caps.timebase_freq,
		.mmu_type = mmu_type(vm->caps.satp_mode),
		.cbom_block_size = vm->caps.cbom_block_size,
		.cboz_block_size = vm->caps.cboz_block_size,
		.initrd_start = place->initrd_start,
		.initrd_end = place->initrd_end,
		.rng_seed = seed,
		.rng_seed_len = sizeof(seed),
		.stdout_path = vm->cfg->console == CONSOLE_SERIAL ?
				       UART_FDT_PATH : NULL,
		.devices = devices,
	};
	void *fdt = guest_mem_ptr(&vm->mem, place->fdt_addr, place->fdt_max);
	int ret;

	for (unsigned int i = 0; i < vm->nr_virtio; i++)
		devices[nr_devices++] = (struct fdt_device){
			&virtio_mmio_ops, vm->virtio[i].transport,
		};
	p.nr_devices = nr_devices;
	memcpy(p.isa_ext, vm->caps.isa_ext, sizeof(p.isa_ext));
	if (getrandom(seed, sizeof(seed), GRND_NONBLOCK) != sizeof(seed))
		p.rng_seed_len = 0;
	if (!fdt) {
		pr_err("no room for the device tree at %#llx",
		       (unsigned long long)place->fdt_addr);
		return -EFAULT;
	}
	ret = fdt_build(&p, fdt, place->fdt_max);
	if (ret) {
		pr_err("cannot build the device tree: %s", strerror(-ret));
		return ret;
	}
	if (vm->cfg->dump_dtb && vm->boots == 0)
		return dump_dtb(vm->cfg->dump_dtb, fdt, fdt_totalsize(fdt));
	return 0;
}

static int step_load(struct vm *vm)
{
	struct loader_files files = {
		.kernel = vm->cfg->kernel, .initrd = vm->cfg->initrd,
		.fdt_max = FDT_MAX_SIZE,
	};
	struct loader_placement place;
	struct image_why why = { "" };
	int ret;

	ret = loader_load(&vm->mem, &files, &place, &why);
	if (ret) {
		pr_err("%s", why.msg);
		return ret;
	}
	ret = build_fdt(vm, &place);
	if (ret)
		return ret;
	return kvm_cpu_boot_regs(&vm->vcpus[0], place.kernel_addr, 0,
				 place.fdt_addr);
}

/* --- lifecycle ------------------------------------------------------------ */

static const struct boot_step boot_steps[] = {
	{ "devices", step_devices_up, step_devices_down, false },
	{ "iothread", step_iothread_up, step_iothread_down, false },
	{ "console", step_console_up, step_console_down, false },
	{ "kvm", kvm_vm_open, kvm_vm_close, true },
	{ "ioeventfds", step_ioeventfds, NULL, true },
	{ "ram", kvm_ram_map, kvm_ram_unmap, true },
	{ "vcpus", kvm_cpus_create, kvm_cpus_destroy, true },
	{ "load", step_load, NULL, true },
};
#define NR_STEPS (sizeof(boot_steps) / sizeof(*boot_steps))

/* Unwind steps [from, to) in reverse; per_boot_only keeps the others. */
static void steps_down(struct vm *vm, size_t to, bool per_boot_only)
{
	while (to-- > 0)
		if (boot_steps[to].down &&
		    (!per_boot_only || boot_steps[to].per_boot))
			boot_steps[to].down(vm);
}

/* Run the steps not yet done; returns how many are done. */
static int steps_up(struct vm *vm, bool per_boot_only, size_t *done)
{
	for (size_t i = 0; i < NR_STEPS; i++) {
		int ret;

		if (per_boot_only && !boot_steps[i].per_boot)
			continue;
		pr_debug("boot step %s", boot_steps[i].name);
		ret = boot_steps[i].up(vm);
		if (ret) {
			*done = i;
			return ret;
		}
	}
	*done = NR_STEPS;
	return 0;
}

/* Block the signals the main thread handles; returns a signalfd. */
static int signals_setup(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	sigdelset(&set, SIGUSR1);
	signal(SIGPIPE, SIG_IGN);
	return signalfd(-1, &set, SFD_CLOEXEC);
}

/* Wait for a stop request or a signal. */
static void wait_for_stop(struct vm *vm, int sfd)
{
	struct pollfd pfd[2] = {
		{ .fd = vm->stop_fd, .events = POLLIN },
		{ .fd = sfd, .events = POLLIN },
	};
	struct signalfd_siginfo si;
	uint64_t v;

	while (!atomic_load(&vm->stop)) {
		if (poll(pfd, 2, -1) < 0)
			continue;
		if ((pfd[1].revents & POLLIN) &&
		    read(sfd, &si, sizeof(si)) == sizeof(si))
			vm_request_stop(vm, VM_STOP_SIGNAL, "stopped by %s",
					strsignal(si.ssi_signo));
	}
	if (read(vm->stop_fd, &v, sizeof(v)) < 0)
		v = 0;
}

static int run_vm(struct vm *vm, int sfd)
{
	size_t done;
	int ret;

	ret = steps_up(vm, false, &done);
	while (!ret) {
		int reset = VM_STOP_RESET;

		ret = kvm_cpus_start(vm);
		if (!ret)
			wait_for_stop(vm, sfd);
		else
			vm_request_stop(vm, VM_STOP_HOST_ERROR, "%s", "");
		kvm_cpus_stop(vm);
		/* With no vCPU running, a later stop request is kept. */
		if (ret || !atomic_compare_exchange_strong(&vm->stop, &reset,
							   VM_RUNNING))
			break;
		pr_info("guest reboot (%lu): resetting the VM", ++vm->boots);
		steps_down(vm, done, true);
		mmio_bus_reset(&vm->bus);
		ret = steps_up(vm, true, &done);
	}
	/* The failing step has said why. */
	if (ret && !atomic_load(&vm->stop))
		vm_request_stop(vm, VM_STOP_HOST_ERROR, "%s", "");
	steps_down(vm, done, false);
	return ret;
}

static int exit_status(struct vm *vm)
{
	switch (atomic_load(&vm->stop)) {
	case VM_STOP_POWEROFF:
		pr_info("%s", vm->stop_buf);
		return LKVM_EXIT_POWEROFF;
	case VM_STOP_SIGNAL:
		pr_err("%s", vm->stop_buf);
		return LKVM_EXIT_STOPPED;
	case VM_STOP_CRASH:
		pr_err("%s", vm->stop_buf);
		return LKVM_EXIT_GUEST_CRASH;
	default:
		if (vm->stop_buf[0])
			pr_err("%s", vm->stop_buf);
		return LKVM_EXIT_HOST_ERROR;
	}
}

static void print_vm_stats(const struct vm *vm)
{
	struct rusage ru;

	pr_info("exits to user space: %lu MMIO, %lu SBI, %lu other",
		atomic_load(&vm->stats.mmio_exits),
		atomic_load(&vm->stats.sbi_exits),
		atomic_load(&vm->stats.other_exits));
	if (!getrusage(RUSAGE_SELF, &ru))
		pr_info("peak RSS: %ld KiB", ru.ru_maxrss);
}

static int cmd_run(struct vm_config *cfg)
{
	static struct vm vm = { .kvm_fd = -1, .vm_fd = -1, .stop_fd = -1 };
	char summary[512];
	int sfd, status;

	vm.cfg = cfg;
	for (unsigned int i = 0; i < CONFIG_MAX_CPUS; i++)
		vm.vcpus[i] = (struct vcpu){ .vm = &vm, .id = i, .fd = -1 };
	pthread_rwlock_init(&vm.vcpu_lock, NULL);
	vm.sbi = (struct sbi_ctx){ .mem = &vm.mem, .console = &vm.hv_console };
	if (cli_summary(cfg, summary, sizeof(summary)) >= 0)
		pr_info("%s", summary);
	sfd = signals_setup();
	vm.stop_fd = eventfd(0, EFD_CLOEXEC);
	if (sfd < 0 || vm.stop_fd < 0) {
		pr_err("cannot set up signal handling: %s", strerror(errno));
		return LKVM_EXIT_HOST_ERROR;
	}
	run_vm(&vm, sfd);
	status = exit_status(&vm);
	if (cfg->debug)
		print_vm_stats(&vm);
	return status;
}

/* Closed standard fds would be taken by our own fds: fill them first. */
static void stdio_guard(void)
{
	for (int fd = 0; fd < 3; fd++)
		if (fcntl(fd, F_GETFD) < 0 && open("/dev/null", O_RDWR) < 0)
			break;
}

int main(int argc, char **argv)
{
	static struct vm_config cfg;
	struct cli_host host;
	int ret;

	stdio_guard();
	cli_host_probe(&host);
	ret = cli_parse(argc, argv, &host, &cfg, stdout, stderr);
	if (ret < 0)
		return LKVM_EXIT_USAGE;
	if (ret == CLI_DONE)
		return 0;
	log_level = cfg.loglevel;
	return cmd_run(&cfg);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * KVM's in-kernel irqchips, the AIA and the PLIC of kernel-patches/:
 * probing for them, creating and configuring the device (the sequences
 * themselves are aia_configure() and kplic_configure() in irqchip.c), and
 * the two ways devices interrupt through them: KVM_IRQ_LINE for level
 * lines and irqfds for edges signalled by an I/O thread without an ioctl.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "vmm/kvm/gsi_routes.h"
#include "vmm/kvm/irqchip.h"
#include "lib/log.h"
#include "vmm/kvm/vm.h"

_Static_assert(KVM_DEV_RISCV_AIA_GRP_CONFIG == 0 &&
		       KVM_DEV_RISCV_AIA_CONFIG_MODE == 0 &&
		       KVM_DEV_RISCV_AIA_CONFIG_IDS == 1 &&
		       KVM_DEV_RISCV_AIA_CONFIG_SRCS == 2 &&
		       KVM_DEV_RISCV_AIA_CONFIG_HART_BITS == 5 &&
		       KVM_DEV_RISCV_AIA_GRP_ADDR == 1 &&
		       KVM_DEV_RISCV_AIA_ADDR_APLIC == 0 &&
		       KVM_DEV_RISCV_AIA_ADDR_IMSIC(3) == 4 &&
		       KVM_DEV_RISCV_AIA_GRP_CTRL == 2 &&
		       KVM_DEV_RISCV_AIA_CTRL_INIT == 0 &&
		       KVM_DEV_RISCV_APLIC_SIZE == 0x4000 &&
		       KVM_DEV_RISCV_IMSIC_SIZE == 0x1000 &&
		       KVM_DEV_RISCV_AIA_SRCS_MAX == 1024 &&
		       KVM_DEV_RISCV_AIA_GRP_APLIC == 3,
	       "vmm/irqchip.c's AIA numbers must match asm/kvm.h");

/*
 * The in-kernel PLIC is rvkvm's (kernel-patches/0001, never upstream): its
 * device type is the one after the last of Linux 7.3's enum
 * kvm_device_type, KVM_DEV_TYPE_ARM_VGIC_V5 (16).  The sysroot's uapi
 * headers (6.12) end at KVM_DEV_TYPE_RISCV_AIA (11) and cannot give it:
 * 12 to 15 went to LoongArch's irqchips (from 6.15), 16 to the GICv5.
 * Headers of the patched kernel define it; they must agree.
 */
#define RVKVM_DEV_TYPE_RISCV_PLIC 17
#ifdef KVM_DEV_TYPE_RISCV_PLIC
_Static_assert(KVM_DEV_TYPE_RISCV_PLIC == RVKVM_DEV_TYPE_RISCV_PLIC,
	       "kernel-patches/0001's device type must match lkvm's");
#endif

static bool kvm_can_create(int vm_fd, uint32_t type)
{
	struct kvm_create_device dev = {
		.type = type,
		.flags = KVM_CREATE_DEVICE_TEST,
	};

	return !ioctl(vm_fd, KVM_CREATE_DEVICE, &dev);
}

void kvm_irqchip_probe(const struct vm *vm, struct irqchip_host *h)
{
	*h = (struct irqchip_host){
		.aia = kvm_can_create(vm->vm_fd, KVM_DEV_TYPE_RISCV_AIA),
		.kernel_plic =
			kvm_can_create(vm->vm_fd, RVKVM_DEV_TYPE_RISCV_PLIC),
	};
}

/* One device attribute of the in-kernel irqchip; v: the value's buffer. */
static int aia_attr(void *opaque, unsigned long op, uint32_t group,
		    uint64_t attr, void *v)
{
	struct vm *vm = opaque;
	struct kvm_device_attr a = {
		.group = group,
		.attr = attr,
		.addr = (uintptr_t)v,
	};

	return ioctl(vm->irqchip_fd, op, &a) < 0 ? -errno : 0;
}

/* CONFIG values and APLIC registers are u32 in KVM, addresses u64. */
static int aia_get(void *opaque, uint32_t group, uint64_t attr, uint64_t *v)
{
	uint32_t v32 = 0;
	int ret;

	if (group != KVM_DEV_RISCV_AIA_GRP_CONFIG)
		return aia_attr(opaque, KVM_GET_DEVICE_ATTR, group, attr, v);
	ret = aia_attr(opaque, KVM_GET_DEVICE_ATTR, group, attr,
		       (uint64_t *)&v32);
	*v = v32;
	return ret;
}

static int aia_set(void *opaque, uint32_t group, uint64_t attr, uint64_t v)
{
	uint32_t v32 = v;

	if (group == KVM_DEV_RISCV_AIA_GRP_CONFIG ||
	    group == KVM_DEV_RISCV_AIA_GRP_APLIC)
		return aia_attr(opaque, KVM_SET_DEVICE_ATTR, group, attr,
				(uint64_t *)&v32);
	if (group == KVM_DEV_RISCV_AIA_GRP_CTRL)
		return aia_attr(opaque, KVM_SET_DEVICE_ATTR, group, attr, NULL);
	return aia_attr(opaque, KVM_SET_DEVICE_ATTR, group, attr, &v);
}

static const struct aia_attr_ops kvm_aia_ops = {
	.get = aia_get,
	.set = aia_set,
};

int kvm_aia_create(struct vm *vm, const struct aia_params *p,
		   struct aia_state *st)
{
	struct kvm_create_device dev = { .type = KVM_DEV_TYPE_RISCV_AIA };
	const char *why = "";
	int ret;

	if (ioctl(vm->vm_fd, KVM_CREATE_DEVICE, &dev) < 0) {
		ret = -errno;
		pr_err("cannot create KVM's AIA device: %s", strerror(errno));
		return ret;
	}
	vm->irqchip_fd = dev.fd;
	ret = aia_configure(&kvm_aia_ops, vm, p, st, &why);
	if (ret) {
		pr_err("KVM's AIA: %s: %s", why, strerror(-ret));
		kvm_aia_destroy(vm);
		return ret;
	}
	pr_debug(
		"irqchip: in-kernel AIA, mode %llu, %u IMSIC ids, %u sources, %u hart bits",
		(unsigned long long)st->mode, st->nr_ids, st->nr_sources,
		st->hart_bits);
	return 0;
}

/*
 * The in-kernel PLIC's attribute groups and value sizes are those of the
 * AIA's CONFIG (u32), ADDR (u64) and CTRL (none): the same accessors serve.
 */
int kvm_plic_create(struct vm *vm, uint64_t base, uint32_t nr_sources)
{
	struct kvm_create_device dev = { .type = RVKVM_DEV_TYPE_RISCV_PLIC };
	const char *why = "";
	int ret;

	if (ioctl(vm->vm_fd, KVM_CREATE_DEVICE, &dev) < 0) {
		ret = -errno;
		pr_err("cannot create KVM's PLIC device: %s", strerror(errno));
		return ret;
	}
	vm->irqchip_fd = dev.fd;
	ret = kplic_configure(&kvm_aia_ops, vm, base, nr_sources, &why);
	if (ret) {
		pr_err("KVM's PLIC: %s: %s", why, strerror(-ret));
		kvm_aia_destroy(vm);
		return ret;
	}
	pr_debug("irqchip: in-kernel PLIC at %#llx, %u sources",
		 (unsigned long long)base, nr_sources);
	return 0;
}

/*
 * The in-kernel PLIC's state attributes (kernel-patches/ 0001's uapi,
 * which the system headers predate): the sources' state and one context's
 * registers (the attribute is the context, the vCPU index).
 */
#define KPLIC_GRP_STATE 3
#define KPLIC_STATE_SOURCES 0
#define KPLIC_GRP_CONTEXT 4
#define KPLIC_WORDS 32

struct kplic_sources {
	uint32_t nr_sources;
	uint32_t nr_contexts;
	uint32_t line[KPLIC_WORDS];
	uint32_t edge[KPLIC_WORDS];
	uint32_t pending[KPLIC_WORDS];
	uint32_t claimed[KPLIC_WORDS];
	uint32_t held[KPLIC_WORDS];
	uint8_t priority[KPLIC_WORDS * 32];
};

struct kplic_context {
	uint32_t threshold;
	uint32_t enable[KPLIC_WORDS];
};

/* What the guest programmed goes; the lines and edge settings stay. */
static int kplic_reset(struct vm *vm)
{
	struct kplic_sources src;
	struct kplic_context ctx = { 0 };
	int ret;

	ret = aia_attr(vm, KVM_GET_DEVICE_ATTR, KPLIC_GRP_STATE,
		       KPLIC_STATE_SOURCES, &src);
	if (ret)
		return ret;
	memset(src.pending, 0, sizeof(src.pending));
	memset(src.claimed, 0, sizeof(src.claimed));
	memset(src.held, 0, sizeof(src.held));
	memset(src.priority, 0, sizeof(src.priority));
	ret = aia_attr(vm, KVM_SET_DEVICE_ATTR, KPLIC_GRP_STATE,
		       KPLIC_STATE_SOURCES, &src);
	for (uint32_t c = 0; c < src.nr_contexts && !ret; c++)
		ret = aia_attr(vm, KVM_SET_DEVICE_ATTR, KPLIC_GRP_CONTEXT, c,
			       &ctx);
	return ret;
}

int kvm_irqchip_reset(struct vm *vm, const struct aia_state *aia)
{
	int ret;

	if (vm->irqchip_fd < 0)
		return 0;
	ret = aia ? aplic_reset(&kvm_aia_ops, vm, aia->nr_sources) :
		    kplic_reset(vm);
	if (ret)
		pr_warn("reboot: cannot reset KVM's %s: %s: building a new VM",
			aia ? "AIA" : "PLIC", strerror(-ret));
	return ret;
}

void kvm_aia_destroy(struct vm *vm)
{
	pthread_rwlock_wrlock(&vm->vcpu_lock);
	if (vm->irqchip_fd >= 0)
		close(vm->irqchip_fd);
	vm->irqchip_fd = -1;
	pthread_rwlock_unlock(&vm->vcpu_lock);
}

void kvm_irq_line(struct vm *vm, unsigned int src, int level)
{
	struct kvm_irq_level irq = { .irq = src, .level = !!level };

	pthread_rwlock_rdlock(&vm->vcpu_lock);
	if (vm->vm_fd >= 0 && vm->irqchip_fd >= 0 &&
	    ioctl(vm->vm_fd, KVM_IRQ_LINE, &irq) < 0)
		pr_once(LOG_WARN, "KVM_IRQ_LINE %u: %s", src, strerror(errno));
	pthread_rwlock_unlock(&vm->vcpu_lock);
}

void kvm_signal_msi(struct vm *vm, uint64_t addr, uint32_t data)
{
	struct kvm_msi msi = {
		.address_lo = (uint32_t)addr,
		.address_hi = addr >> 32,
		.data = data,
	};

	pthread_rwlock_rdlock(&vm->vcpu_lock);
	if (vm->vm_fd >= 0 && vm->irqchip_fd >= 0 &&
	    ioctl(vm->vm_fd, KVM_SIGNAL_MSI, &msi) < 0)
		pr_once(LOG_WARN, "KVM_SIGNAL_MSI %#llx: %s",
			(unsigned long long)addr, strerror(errno));
	pthread_rwlock_unlock(&vm->vcpu_lock);
}

static int kvm_irqfd_flags(struct vm *vm, int fd, uint32_t gsi, uint32_t flags)
{
	struct kvm_irqfd irqfd = { .fd = fd, .gsi = gsi, .flags = flags };

	return ioctl(vm->vm_fd, KVM_IRQFD, &irqfd) < 0 ? -errno : 0;
}

int kvm_irqfd(struct vm *vm, int fd, unsigned int gsi)
{
	return kvm_irqfd_flags(vm, fd, gsi, 0);
}

static int kvm_irqfd_set(void *opaque, int fd, uint32_t gsi, bool on)
{
	struct vm *vm = opaque;
	int ret;

	pthread_rwlock_rdlock(&vm->vcpu_lock);
	ret = kvm_irqfd_flags(vm, fd, gsi, on ? 0 : KVM_IRQFD_FLAG_DEASSIGN);
	pthread_rwlock_unlock(&vm->vcpu_lock);
	return ret;
}

/* KVM_SET_GSI_ROUTING: the AIA's line entries as KVM made them, the MSIs. */
static int kvm_routes_set(void *opaque, uint32_t nr_lines,
			  const struct gsi_msi_route *msi, unsigned int n_msi)
{
	struct vm *vm = opaque;
	struct kvm_irq_routing *t;
	struct kvm_irq_routing_entry *e;
	int ret;

	t = calloc(1, sizeof(*t) + (nr_lines + n_msi) * sizeof(*e));
	if (!t)
		return -ENOMEM;
	e = t->entries;
	for (uint32_t i = 0; i < nr_lines; i++, e++)
		*e = (struct kvm_irq_routing_entry){
			.gsi = i,
			.type = KVM_IRQ_ROUTING_IRQCHIP,
			.u.irqchip = { .irqchip = 0, .pin = i },
		};
	for (unsigned int i = 0; i < n_msi; i++, e++)
		*e = (struct kvm_irq_routing_entry){
			.gsi = msi[i].gsi,
			.type = KVM_IRQ_ROUTING_MSI,
			.u.msi = { .address_lo = (uint32_t)msi[i].addr,
				   .address_hi = msi[i].addr >> 32,
				   .data = msi[i].data },
		};
	t->nr = nr_lines + n_msi;
	pthread_rwlock_rdlock(&vm->vcpu_lock);
	ret = ioctl(vm->vm_fd, KVM_SET_GSI_ROUTING, t) < 0 ? -errno : 0;
	pthread_rwlock_unlock(&vm->vcpu_lock);
	free(t);
	return ret;
}

static const struct gsi_route_ops kvm_route_ops = {
	.set = kvm_routes_set,
	.irqfd = kvm_irqfd_set,
};

int kvm_routes_start(struct vm *vm, const struct aia_state *aia)
{
	/* KVM's default table: GSI n to APLIC source n, 0..nr_sources. */
	return gsi_routes_start(&vm->routes, &kvm_route_ops, vm,
				aia->nr_sources + 1);
}

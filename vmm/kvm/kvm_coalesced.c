// SPDX-License-Identifier: GPL-2.0
/*
 * KVM's coalesced MMIO: the guest's writes to one registered window are
 * recorded by KVM in a ring (a page of every vCPU's kvm_run mapping)
 * instead of exiting to lkvm; lkvm replays them on the MMIO bus, in
 * order, before it dispatches any other exit, so a device sees the same
 * sequence of accesses as without the ring.  What is left in the ring
 * when no exit follows (the guest went quiet) is replayed when the vCPUs
 * stop.  Used for the UART's transmit register while the guest polls
 * the UART (see lifecycle.c): one exit per console byte instead of two.
 */
#include <errno.h>
#include <linux/kvm.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "lib/log.h"
#include "vmm/kvm/vm.h"

void kvm_coalesced_open(struct vm *vm)
{
	long page = sysconf(_SC_PAGESIZE);
	int off =
		ioctl(vm->kvm_fd, KVM_CHECK_EXTENSION, KVM_CAP_COALESCED_MMIO);

	vm->cring = NULL;
	vm->cring_on = false;
	if (off <= 0 || page <= 0 || !vm->vcpus[0].run ||
	    (long)vm->run_size < (off + 1) * page) {
		pr_debug("KVM has no coalesced MMIO: every UART write exits");
		return;
	}
	vm->cring =
		(struct kvm_coalesced_mmio_ring *)((uint8_t *)vm->vcpus[0].run +
						   off * page);
	vm->cring_max = (uint32_t)((page - sizeof(*vm->cring)) /
				   sizeof(vm->cring->coalesced_mmio[0]));
}

int kvm_coalesce(struct vm *vm, uint64_t addr, uint32_t size, bool on)
{
	struct kvm_coalesced_mmio_zone zone = { .addr = addr, .size = size };
	int ret = 0;

	if (!vm->cring)
		return -ENOTSUP;
	pthread_mutex_lock(&vm->cring_lock);
	if (vm->cring_on != on && ioctl(vm->vm_fd,
					on ? KVM_REGISTER_COALESCED_MMIO :
					     KVM_UNREGISTER_COALESCED_MMIO,
					&zone) < 0)
		ret = -errno;
	else
		vm->cring_on = on;
	pthread_mutex_unlock(&vm->cring_lock);
	return ret;
}

void kvm_coalesced_flush(struct vm *vm)
{
	struct kvm_coalesced_mmio_ring *r = vm->cring;
	uint32_t first, last;

	if (!r || __atomic_load_n(&r->first, __ATOMIC_RELAXED) ==
			  __atomic_load_n(&r->last, __ATOMIC_ACQUIRE))
		return;
	pthread_mutex_lock(&vm->cring_lock);
	for (;;) {
		struct kvm_coalesced_mmio e;

		first = __atomic_load_n(&r->first, __ATOMIC_RELAXED);
		last = __atomic_load_n(&r->last, __ATOMIC_ACQUIRE);
		if (first == last || first >= vm->cring_max ||
		    last >= vm->cring_max)
			break;
		memcpy(&e, &r->coalesced_mmio[first], sizeof(e));
		if (e.len && e.len <= sizeof(e.data))
			mmio_bus_access(&vm->bus, e.phys_addr, e.data, e.len,
					true);
		__atomic_store_n(&r->first, (first + 1) % vm->cring_max,
				 __ATOMIC_RELEASE);
		atomic_fetch_add(&vm->stats.coalesced_writes, 1);
	}
	pthread_mutex_unlock(&vm->cring_lock);
	if (first >= vm->cring_max || last >= vm->cring_max)
		pr_once(LOG_WARN, "coalesced MMIO ring out of range (%u, %u)",
			first, last);
}

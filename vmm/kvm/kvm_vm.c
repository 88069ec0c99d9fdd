// SPDX-License-Identifier: GPL-2.0
/* The KVM VM: /dev/kvm, capabilities, the VM fd and guest RAM. */
#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <linux/magic.h>
#include <sys/mman.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "lib/log.h"
#include "lib/sizes.h"
#include "vmm/host/shmem.h"
#include "vmm/kvm/vm.h"

static const struct {
	int cap;
	const char *name;
} required_caps[] = {
	{ KVM_CAP_USER_MEMORY, "KVM_CAP_USER_MEMORY" },
	{ KVM_CAP_ONE_REG, "KVM_CAP_ONE_REG" },
	{ KVM_CAP_IMMEDIATE_EXIT, "KVM_CAP_IMMEDIATE_EXIT" },
	{ KVM_CAP_SYNC_MMU, "KVM_CAP_SYNC_MMU" },
};

static int kvm_check(struct vm *vm)
{
	int v = ioctl(vm->kvm_fd, KVM_GET_API_VERSION, 0);

	if (v < 0) {
		pr_err("%s is not KVM (KVM_GET_API_VERSION: %s)", vm->cfg->dev,
		       strerror(errno));
		return -errno;
	}
	if (v != KVM_API_VERSION) {
		pr_err("%s: KVM API version %d, lkvm needs %d", vm->cfg->dev, v,
		       KVM_API_VERSION);
		return -EINVAL;
	}
	for (size_t i = 0; i < sizeof(required_caps) / sizeof(*required_caps);
	     i++) {
		if (ioctl(vm->kvm_fd, KVM_CHECK_EXTENSION,
			  required_caps[i].cap) <= 0) {
			pr_err("%s: KVM lacks %s", vm->cfg->dev,
			       required_caps[i].name);
			return -ENOTSUP;
		}
	}
	return 0;
}

/*
 * KVM_CAP_RISCV_MP_STATE_RESET (Linux 6.16+): vCPUs reset on request, so a
 * guest reboot can keep the VM.  The uapi lkvm is built with predates it.
 */
#ifndef KVM_CAP_RISCV_MP_STATE_RESET
#define KVM_CAP_RISCV_MP_STATE_RESET 242
#endif

static void vm_enable_mp_reset(struct vm *vm)
{
	struct kvm_enable_cap cap = { .cap = KVM_CAP_RISCV_MP_STATE_RESET };

	/* KVM RISC-V enables it without listing it in KVM_CHECK_EXTENSION. */
	vm->mp_reset = !ioctl(vm->vm_fd, KVM_ENABLE_CAP, &cap);
	if (!vm->boots)
		pr_debug(
			vm->mp_reset ?
				"reboot: KVM resets vCPUs (KVM_CAP_RISCV_MP_STATE_RESET): a guest reboot keeps the VM" :
				"reboot: the host KVM cannot reset a vCPU (KVM_CAP_RISCV_MP_STATE_RESET, Linux 6.16+): a guest reboot builds a new VM");
}

int kvm_vm_open(struct vm *vm)
{
	int ret;

	vm->kvm_fd = open(vm->cfg->dev, O_RDWR | O_CLOEXEC);
	if (vm->kvm_fd < 0) {
		ret = -errno;
		pr_err("cannot open %s: %s%s", vm->cfg->dev, strerror(errno),
		       errno == ENOENT ?
			       " (is KVM enabled in the host kernel?)" :
			       "");
		return ret;
	}
	ret = kvm_check(vm);
	if (!ret && vm->cfg->single_step) {
		pr_err("--debug-single-step: RISC-V KVM cannot single-step a vCPU (its KVM_SET_GUEST_DEBUG has no KVM_GUESTDBG_SINGLESTEP)");
		ret = -ENOTSUP;
	}
	if (ret)
		goto err;
	vm->run_size = ioctl(vm->kvm_fd, KVM_GET_VCPU_MMAP_SIZE, 0);
	if (vm->run_size <= 0) {
		ret = -EINVAL;
		pr_err("KVM_GET_VCPU_MMAP_SIZE: %s", strerror(errno));
		goto err;
	}
	vm->vm_fd = ioctl(vm->kvm_fd, KVM_CREATE_VM, 0);
	if (vm->vm_fd < 0) {
		ret = -errno;
		pr_err("KVM_CREATE_VM: %s", strerror(errno));
		goto err;
	}
	vm_enable_mp_reset(vm);
	return 0;
err:
	close(vm->kvm_fd);
	vm->kvm_fd = -1;
	return ret;
}

void kvm_vm_close(struct vm *vm)
{
	pthread_rwlock_wrlock(&vm->vcpu_lock);
	if (vm->vm_fd >= 0)
		close(vm->vm_fd);
	if (vm->kvm_fd >= 0)
		close(vm->kvm_fd);
	vm->vm_fd = vm->kvm_fd = -1;
	pthread_rwlock_unlock(&vm->vcpu_lock);
}

/* A file on hugetlbfs, unlinked at once, backs RAM with huge pages. */
static int ram_hugetlbfs_fd(const char *dir, uint64_t size)
{
	char path[4096];
	struct statfs fs;
	int fd;

	if (snprintf(path, sizeof(path), "%s/lkvm-ram.XXXXXX", dir) >=
	    (int)sizeof(path)) {
		pr_err("--hugetlbfs %s: path too long", dir);
		return -ENAMETOOLONG;
	}
	fd = mkostemp(path, O_CLOEXEC);
	if (fd < 0) {
		pr_err("--hugetlbfs %s: cannot create a file: %s", dir,
		       strerror(errno));
		return -errno;
	}
	unlink(path);
	if (fstatfs(fd, &fs) < 0 || fs.f_type != HUGETLBFS_MAGIC) {
		pr_err("--hugetlbfs %s: not a hugetlbfs mount", dir);
		close(fd);
		return -EINVAL;
	}
	if (size % fs.f_bsize || ftruncate(fd, size) < 0) {
		pr_err("--hugetlbfs %s: cannot size %llu MiB (huge page size %ld KiB): %s",
		       dir, (unsigned long long)(size >> 20),
		       (long)fs.f_bsize >> 10,
		       size % fs.f_bsize ? "not a multiple" : strerror(errno));
		close(fd);
		return -EINVAL;
	}
	return fd;
}

static void *ram_map_anon(uint64_t size, size_t *map_size)
{
	/* Over-allocate to align the mapping for transparent huge pages. */
	size_t len = size + SZ_2M;
	uint8_t *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	uintptr_t aligned;

	if (p == MAP_FAILED)
		return NULL;
	aligned = ((uintptr_t)p + SZ_2M - 1) & ~(uintptr_t)(SZ_2M - 1);
	if (aligned > (uintptr_t)p)
		munmap(p, aligned - (uintptr_t)p);
	munmap((void *)(aligned + size), (uintptr_t)p + len - aligned - size);
	madvise((void *)aligned, size, MADV_HUGEPAGE);
	*map_size = size;
	return (void *)aligned;
}

/*
 * fd shared, at a 2 MiB aligned address (as ram_map_anon) so shmem's
 * transparent huge pages can back it.
 */
static void *ram_map_shared(int fd, uint64_t size, size_t *map_size)
{
	size_t len = size + SZ_2M;
	uint8_t *p = mmap(NULL, len, PROT_NONE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	uintptr_t aligned;
	void *host;

	if (p == MAP_FAILED)
		return NULL;
	aligned = ((uintptr_t)p + SZ_2M - 1) & ~(uintptr_t)(SZ_2M - 1);
	host = mmap((void *)aligned, size, PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_FIXED, fd, 0);
	if (host == MAP_FAILED) {
		munmap(p, len);
		return NULL;
	}
	if (aligned > (uintptr_t)p)
		munmap(p, aligned - (uintptr_t)p);
	munmap((void *)(aligned + size), (uintptr_t)p + len - aligned - size);
	madvise(host, size, MADV_HUGEPAGE);
	*map_size = size;
	return host;
}

/*
 * Guest RAM is mapped once and stays mapped until the process ends: the
 * I/O and console threads and the virtqueues hold host pointers into it
 * across guest reboots.  Private anonymous memory, but a hugetlbfs file
 * (--hugetlbfs) or, for a vhost-user daemon (config_vhost_user()), a
 * memfd: both shared, their fd kept in ram_fd for SET_MEM_TABLE.
 */
int kvm_ram_alloc(struct vm *vm)
{
	uint64_t size = vm->cfg->ram_size;
	void *host;
	int fd = -1;

	if (vm->cfg->hugetlbfs) {
		fd = ram_hugetlbfs_fd(vm->cfg->hugetlbfs, size);
		if (fd < 0)
			return fd;
		host = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
			    0);
		vm->ram_map_size = size;
	} else if (config_vhost_user(vm->cfg)) {
		fd = shmem_ram_fd(size);
		if (fd < 0) {
			pr_err("cannot create %llu MiB of shared guest RAM (memfd): %s",
			       (unsigned long long)(size >> 20), strerror(-fd));
			return fd;
		}
		host = ram_map_shared(fd, size, &vm->ram_map_size);
	} else {
		host = ram_map_anon(size, &vm->ram_map_size);
	}
	if (!host || host == MAP_FAILED) {
		pr_err("cannot map %llu MiB of guest RAM: %s",
		       (unsigned long long)(size >> 20), strerror(errno));
		if (fd >= 0)
			close(fd);
		return -ENOMEM;
	}
	vm->ram_fd = fd;
	vm->mem = (struct guest_mem){
		.base = vm->ram_base,
		.size = size,
		.host = host,
	};
	return 0;
}

void kvm_ram_zero(struct vm *vm)
{
	uint64_t size = vm->mem.size;

	if (vm->ram_fd >= 0 &&
	    !fallocate(vm->ram_fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
		       0, size))
		return;
	if (vm->ram_fd < 0 && !madvise(vm->mem.host, size, MADV_DONTNEED))
		return;
	memset(vm->mem.host, 0, size);
}

int kvm_ram_register(struct vm *vm, bool zero)
{
	struct kvm_userspace_memory_region region = {
		.slot = 0,
		.guest_phys_addr = vm->mem.base,
		.memory_size = vm->mem.size,
		.userspace_addr = (uintptr_t)vm->mem.host,
	};

	if (zero)
		kvm_ram_zero(vm);
	if (ioctl(vm->vm_fd, KVM_SET_USER_MEMORY_REGION, &region) < 0) {
		pr_err("KVM_SET_USER_MEMORY_REGION: %s", strerror(errno));
		return -errno;
	}
	return 0;
}

void kvm_ram_free(struct vm *vm)
{
	if (vm->mem.host)
		munmap(vm->mem.host, vm->ram_map_size);
	if (vm->ram_fd >= 0)
		close(vm->ram_fd);
	vm->ram_fd = -1;
	vm->mem.host = NULL;
}

int kvm_ioeventfd(struct vm *vm, uint64_t addr, unsigned int len,
		  uint32_t datamatch, int fd, bool assign)
{
	struct kvm_ioeventfd io = {
		.datamatch = datamatch,
		.addr = addr,
		.len = len,
		.fd = fd,
		.flags = KVM_IOEVENTFD_FLAG_DATAMATCH |
			 (assign ? 0 : KVM_IOEVENTFD_FLAG_DEASSIGN),
	};

	return ioctl(vm->vm_fd, KVM_IOEVENTFD, &io) < 0 ? -errno : 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The VM's stop request: raised by vCPU threads (guest poweroff, reboot,
 * crash), the console thread (Ctrl-A x) and the main thread (signals,
 * host errors); the first reason wins and wakes the main thread.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "lib/log.h"
#include "vmm/kvm/vm.h"

/*
 * --timeout: a timer that expires once, SECS from now, whatever the guest
 * does meanwhile (reboots included); the main thread polls it with the
 * signals (vmm/machine/signals.c) and stops the VM.
 */
static int vm_arm_timeout(struct vm *vm, unsigned int secs)
{
	struct itimerspec its = { .it_value = { .tv_sec = secs } };

	vm->timeout_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	if (vm->timeout_fd < 0 ||
	    timerfd_settime(vm->timeout_fd, 0, &its, NULL))
		return -errno;
	return 0;
}

int vm_init(struct vm *vm, const struct vm_config *cfg, uint64_t ram_base)
{
	*vm = (struct vm){
		.cfg = cfg,
		.kvm_fd = -1,
		.vm_fd = -1,
		.irqchip_fd = -1,
		.ram_fd = -1,
		.ram_base = ram_base,
	};
	for (unsigned int i = 0; i < CONFIG_MAX_CPUS; i++)
		vm->vcpus[i] = (struct vcpu){ .vm = vm, .id = i, .fd = -1 };
	pthread_rwlock_init(&vm->vcpu_lock, NULL);
	gsi_routes_init(&vm->routes);
	pthread_mutex_init(&vm->pause.lock, NULL);
	pthread_mutex_init(&vm->cring_lock, NULL);
	pthread_cond_init(&vm->pause.cond, NULL);
	vm->sbi.mem = &vm->mem;
	vm->timeout_fd = -1;
	vm->stop_fd = eventfd(0, EFD_CLOEXEC);
	if (vm->stop_fd < 0)
		return -errno;
	return cfg->timeout_s ? vm_arm_timeout(vm, cfg->timeout_s) : 0;
}

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

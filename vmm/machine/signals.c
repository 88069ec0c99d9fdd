// SPDX-License-Identifier: GPL-2.0
/*
 * Signals.  They are blocked in every thread (threads inherit the mask of
 * the main thread, which blocks them before creating any) and read from a
 * signalfd, so no handler runs in an arbitrary thread; the main thread
 * sleeps in poll() on that signalfd and on the VM's stop eventfd.
 */
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "vmm/machine/signals.h"

int signals_setup(void)
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

/* The --timeout timer expired (it polled readable): a stop request. */
static void signals_timeout(struct vm *vm)
{
	vm_request_stop(vm, VM_STOP_TIMEOUT, "timed out after %u s",
			vm->cfg->timeout_s);
}

/* Read one signal from sfd (which polled readable): a stop request. */
static void signals_read(struct vm *vm, int sfd)
{
	struct signalfd_siginfo si;

	if (read(sfd, &si, sizeof(si)) == sizeof(si))
		vm_request_stop(vm, VM_STOP_SIGNAL, "stopped by %s",
				strsignal(si.ssi_signo));
}

bool signals_poll_stop(struct vm *vm, int sfd)
{
	struct pollfd pfd[2] = {
		{ .fd = sfd, .events = POLLIN },
		{ .fd = vm->timeout_fd, .events = POLLIN },
	};

	if (!atomic_load(&vm->stop) && poll(pfd, 2, 0) > 0) {
		if (pfd[0].revents & POLLIN)
			signals_read(vm, sfd);
		if (pfd[1].revents & POLLIN)
			signals_timeout(vm);
	}
	return atomic_load(&vm->stop) != VM_RUNNING;
}

void signals_wait_stop(struct vm *vm, int sfd)
{
	struct pollfd pfd[3] = {
		{ .fd = vm->stop_fd, .events = POLLIN },
		{ .fd = sfd, .events = POLLIN },
		{ .fd = vm->timeout_fd, .events = POLLIN }, /* -1: ignored */
	};
	uint64_t v;

	while (!atomic_load(&vm->stop)) {
		if (poll(pfd, 3, -1) < 0)
			continue;
		if (pfd[1].revents & POLLIN)
			signals_read(vm, sfd);
		if (pfd[2].revents & POLLIN)
			signals_timeout(vm);
	}
	if (read(vm->stop_fd, &v, sizeof(v)) < 0)
		v = 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * lkvm: the story of a run.  The command line becomes a configuration
 * (cli.c); the machine is set up from it step by step and runs until the
 * guest powers off, crashes, or is stopped (lifecycle.c); the reason
 * becomes the exit status (exit_codes.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "vmm/cmd/cli.h"
#include "vmm/exit_codes.h"
#include "lib/log.h"
#include "vmm/machine/lifecycle.h"
#include "vmm/board/loader.h"
#include "vmm/host/outfd.h"
#include "vmm/host/pty.h"
#include "vmm/sandbox/sandbox.h"
#include "vmm/machine/signals.h"

static int exit_status(const struct vm *vm)
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

/*
 * Log lines go to a non-blocking stderr (outfd.c) so that a stalled
 * stderr cannot hold a thread or the exit (log.h); a regular file, or a
 * stderr that cannot be reopened, is written as it is.
 */
static void log_output_open(struct outfd *err)
{
	outfd_open(err, STDERR_FILENO);
	if (err->kind == OUTFD_REOPENED || err->kind == OUTFD_SOCKET)
		log_set_output(err->fd, err->kind == OUTFD_SOCKET);
	else
		outfd_close(err);
}

static void log_output_close(struct outfd *err)
{
	log_set_output(-1, false);
	outfd_close(err);
}

static int cmd_run(const struct vm_config *cfg, int sfd)
{
	static struct machine m;
	char summary[512];
	struct outfd err;
	int status;

	log_output_open(&err);
	if (cli_summary(cfg, summary, sizeof(summary)) >= 0)
		pr_info("%s", summary);
	if (cfg->tty == 0 && pty_console_open()) {
		log_output_close(&err);
		return LKVM_EXIT_HOST_ERROR;
	}
	if (sfd < 0 || machine_init(&m, cfg)) {
		pr_err("cannot set up signal handling: %s", strerror(errno));
		log_output_close(&err);
		return LKVM_EXIT_HOST_ERROR;
	}
	machine_run(&m, sfd);
	status = exit_status(&m.vm);
	if (cfg->debug)
		print_vm_stats(&m.vm);
	log_output_close(&err);
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
	int ret, sfd;

	/* In a guest booted from an 'lkvm setup' root, lkvm is its init. */
	if (guest_init_wanted(argc, argv))
		return guest_init_main();
	stdio_guard();
	/* First: a stop signal from now on ends lkvm in order (status 3). */
	sfd = signals_setup();
	cli_host_probe(&host);
	ret = cli_parse(argc, argv, &host, &cfg, stdout, stderr);
	if (ret < 0)
		return LKVM_EXIT_USAGE;
	if (ret == CLI_DONE)
		return 0;
	if (ret == CLI_SETUP)
		return sandbox_setup(cfg.rootfs_name, stdout) ?
			       LKVM_EXIT_HOST_ERROR :
			       0;
	if (ret == CLI_CTL)
		return ctl_args_run(&cfg.ctl, stdout);
	log_level = cfg.loglevel;
	/* A bad kernel fails the run before a root is made for it. */
	if (cfg.custom_rootfs && cfg.kernel) {
		struct image_why why = { "" };

		if (loader_probe_kernel(cfg.kernel, cfg.ram_size, &why)) {
			pr_err("%s", why.msg);
			return LKVM_EXIT_HOST_ERROR;
		}
	}
	if (sandbox_prepare(&cfg, "/proc/self/exe"))
		return LKVM_EXIT_HOST_ERROR;
	ret = cmd_run(&cfg, sfd);
	return cfg.sandbox ? sandbox_finish_run(&cfg) : ret;
}

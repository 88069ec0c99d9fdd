// SPDX-License-Identifier: GPL-2.0
/*
 * One run of the machine, from a complete configuration to lkvm's exit
 * status: the machine is set up step by step and runs until the guest
 * powers off, crashes, or is stopped (vmm/machine/lifecycle.c); the
 * reason becomes the exit status (vmm/exit_codes.h).  main() hands this
 * to the commands that boot (cmd.h's struct cmd_ctx); it drives KVM, so
 * it is built for riscv64 only.
 */
#include <errno.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "lib/log.h"
#include "vmm/cmd/cmd.h"
#include "vmm/cmd/run_cli.h"
#include "vmm/exit_codes.h"
#include "vmm/host/outfd.h"
#include "vmm/host/pty.h"
#include "vmm/machine/lifecycle.h"

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
	case VM_STOP_REBOOT:
		pr_err("%s", vm->stop_buf);
		return LKVM_EXIT_REBOOT;
	case VM_STOP_PANIC:
		pr_err("%s", vm->stop_buf);
		return LKVM_EXIT_PANIC;
	case VM_STOP_TIMEOUT:
		pr_err("%s", vm->stop_buf);
		return LKVM_EXIT_TIMEOUT;
	default:
		if (vm->stop_buf[0])
			pr_err("%s", vm->stop_buf);
		return LKVM_EXIT_HOST_ERROR;
	}
}

/* --timeout: the console's last lines, for a log that shows where. */
static void print_console_tail(struct cons *c)
{
	static char tail[CONSLOG_TAIL_SIZE + 1];
	char *line, *save = NULL;

	if (!conslog_tail(&c->log, 20, tail, sizeof(tail))) {
		pr_err("the guest wrote nothing to its console");
		return;
	}
	/* The guest's bytes: no escape sequence reaches the terminal. */
	for (char *p = tail; *p; p++)
		if ((*p > 0 && *p < ' ' && *p != '\n' && *p != '\t') ||
		    *p == 0x7f)
			*p = '?';
	pr_err("the console's last lines:");
	for (line = strtok_r(tail, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		pr_err("| %s", line);
}

static void print_vm_stats(const struct vm *vm)
{
	unsigned long ready;
	struct rusage ru;

	pr_info("exits to user space: %lu MMIO, %lu SBI, %lu other; %lu MMIO writes batched without an exit",
		atomic_load(&vm->stats.mmio_exits),
		atomic_load(&vm->stats.sbi_exits),
		atomic_load(&vm->stats.other_exits),
		atomic_load(&vm->stats.coalesced_writes));
	if (!getrusage(RUSAGE_SELF, &ru))
		pr_info("peak RSS: %ld KiB", ru.ru_maxrss);
	ready = atomic_load(&vm->stats.ready_cpu_us);
	if (ready)
		pr_info("CPU time to the first guest instruction: %lu.%03lu ms",
			(ready - 1) / 1000, (ready - 1) % 1000);
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

int cmd_boot_machine(const struct vm_config *cfg, int sfd)
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
	if (status == LKVM_EXIT_TIMEOUT)
		print_console_tail(&m.cons);
	if (cfg->debug)
		print_vm_stats(&m.vm);
	log_output_close(&err);
	return status;
}

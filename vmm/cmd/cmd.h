/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lkvm's commands, kvmtool style: one table of {name, function, help}
 * (commands.c), one function per command, each parsing its own arguments
 * with the option engine (lib/opt.h) and returning lkvm's exit status
 * (vmm/exit_codes.h).  main() only finds the command.
 */
#ifndef RVKVM_CMD_H
#define RVKVM_CMD_H

#include <stdio.h>

struct vm_config;

/* What main() gives every command. */
struct cmd_ctx {
	FILE *out, *err; /* stdout and stderr */
	/*
	 * Run the machine of a complete configuration to its end: lkvm's
	 * exit status (boot.c: cmd_boot_machine; sfd is signals_setup()'s).
	 */
	int (*boot)(const struct vm_config *cfg, int sfd);
	/* signals_setup()'s signalfd: stop signals wait for it (or -1). */
	int sfd;
};

/* argv[0] is the command's name. */
typedef int cmd_fn(const struct cmd_ctx *ctx, int argc, char **argv);

struct cmd {
	const char *name;
	cmd_fn *fn;
	const char *synopsis; /* NULL: an alias, not listed by 'lkvm help' */
	const char *help;     /* a '\n' continues in the help column */
};

/*
 * lkvm COMMAND [ARGS] (argv[0] is the program): run the command named by
 * argv[1]; its exit status, or LKVM_EXIT_USAGE for none or an unknown one.
 */
int cmd_main(const struct cmd_ctx *ctx, int argc, char **argv);

/* boot.c (riscv64 only): what main() puts in cmd_ctx.boot. */
int cmd_boot_machine(const struct vm_config *cfg, int sfd);

/* run.c: run and sandbox (boot a guest), setup (make a root). */
cmd_fn cmd_run, cmd_setup;
/* ctl_cmds.c: list, stop, pause, resume, debug, stat, balloon. */
cmd_fn cmd_ctl;
/* commands.c */
cmd_fn cmd_help, cmd_version;

/*
 * lkvm setup NAME: the name to make ~/.lkvm/NAME for (into name, which
 * has room for 256 bytes); 0, or -EINVAL having said why on err.
 */
int cmd_setup_parse(int argc, char **argv, char *name, FILE *err);

#endif

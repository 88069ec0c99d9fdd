/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The commands that operate running guests through their control sockets
 * (ctl.h), with kvmtool's option letters:
 *
 *   lkvm list [-i|--run] [-r|--rootfs]
 *   lkvm stop|pause|resume -n NAME | -a
 *   lkvm debug -n NAME|-a -d          (vCPU registers)
 *   lkvm stat -n NAME|-a -m           (memory and balloon statistics)
 *   lkvm balloon -n NAME -i MB | -d MB
 *   lkvm dump -n NAME FILE            (an ELF core of the guest)
 *
 * The command line is parsed with the option engine (lib/opt.h) into a
 * struct ctl_args (ctl_args_parse), which is then run (ctl_args_run);
 * cmd_ctl() is both, as the command table calls it.
 */
#ifndef RVKVM_CTL_CMDS_H
#define RVKVM_CTL_CMDS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum ctl_cmd {
	CTL_CMD_LIST,
	CTL_CMD_STOP,
	CTL_CMD_PAUSE,
	CTL_CMD_RESUME,
	CTL_CMD_DEBUG,
	CTL_CMD_STAT,
	CTL_CMD_BALLOON,
	CTL_CMD_DUMP,
};

struct ctl_args {
	enum ctl_cmd cmd;
	const char *name; /* -n; NULL with -a or for list */
	bool all;	  /* -a */
	bool run;	  /* list -i */
	bool rootfs;	  /* list -r */
	int64_t mib;	  /* balloon: > 0 inflate, < 0 deflate */
	const char *file; /* dump: the core file to create */
};

/* Is argv1 one of the commands above? */
bool ctl_is_command(const char *argv1);

/*
 * argv[0] is the command.  0: *a is complete; 1: help printed on out;
 * -EINVAL: a usage error, one line "lkvm: error: ..." on err.
 */
int ctl_args_parse(int argc, char **argv, struct ctl_args *a, FILE *out,
		   FILE *err);

/* Run a parsed command: its exit status (exit_codes.h). */
int ctl_args_run(const struct ctl_args *a, FILE *out);

#endif

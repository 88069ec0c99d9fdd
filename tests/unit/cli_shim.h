/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tests' one-call parse of any lkvm command line: each command's own
 * parser (run and sandbox: cli_parse_run; setup: cmd_setup_parse; the
 * control commands: ctl_args_parse), and the command table (cmd_main) for
 * help, version and unknown commands.  Nothing is run: only help and
 * version, which print.
 */
#ifndef RVKVM_TEST_CLI_SHIM_H
#define RVKVM_TEST_CLI_SHIM_H

#include <errno.h>
#include <string.h>

#include "vmm/cmd/cmd.h"
#include "vmm/cmd/ctl_cmds.h"
#include "vmm/cmd/run_cli.h"

#define CLI_SETUP 2 /* lkvm setup: cfg->rootfs_name to make */
#define CLI_CTL 3   /* cli_shim_ctl is a command for running guests */

static struct ctl_args cli_shim_ctl;

static inline int cli_parse(int argc, char **argv, const struct cli_host *host,
			    struct vm_config *cfg, FILE *out, FILE *err)
{
	const char *c = argc > 1 ? argv[1] : "";
	int ret;

	if (!strcmp(c, "run") || !strcmp(c, "sandbox"))
		return cli_parse_run(argc - 1, argv + 1, host, cfg, out, err);
	memset(cfg, 0, sizeof(*cfg));
	if (!strcmp(c, "setup"))
		return cmd_setup_parse(argc - 1, argv + 1, cfg->rootfs_name, err) ?:
			       CLI_SETUP;
	if (ctl_is_command(c)) {
		ret = ctl_args_parse(argc - 1, argv + 1, &cli_shim_ctl, out,
				     err);
		return ret < 0 ? ret : ret ? CLI_DONE : CLI_CTL;
	}
	{
		/* Nothing boots here: run and sandbox are parsed above. */
		const struct cmd_ctx ctx = { out, err, NULL, -1 };

		return cmd_main(&ctx, argc, argv) ? -EINVAL : CLI_DONE;
	}
}

#endif

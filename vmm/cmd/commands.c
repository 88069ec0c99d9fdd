// SPDX-License-Identifier: GPL-2.0
/*
 * The command table and the commands about lkvm itself (help, version).
 * The table lives here rather than in main.c so that the unit tests read
 * the same table lkvm dispatches on (main.c is built for riscv64 only);
 * main() passes what drives KVM down in the struct cmd_ctx.
 */
#include <string.h>

#include "lib/opt.h"
#include "vmm/cmd/cmd.h"
#include "vmm/cmd/ctl_cmds.h"
#include "vmm/cmd/run_cli.h"
#include "vmm/exit_codes.h"

static const struct cmd cmds[] = {
	{ "run", cmd_run, "run [options] [kernel]",
	  "Boot a kernel in a KVM virtual machine" },
	{ "sandbox", cmd_run, "sandbox [options] [--] COMMAND [ARGS]",
	  "Boot a guest (-k IMAGE) from a root made\n"
	  "by 'setup' (-d NAME; default ~/.lkvm/\n"
	  "default, made if missing) over 9p, the\n"
	  "host's / at /host; run COMMAND in it (a\n"
	  "host file runs as /host/PATH), power off\n"
	  "and exit with COMMAND's status (125: none\n"
	  "came back)" },
	{ "setup", cmd_setup, "setup NAME",
	  "Make a guest root in ~/.lkvm/NAME for\n"
	  "'lkvm run -d NAME' and 'lkvm sandbox'" },
	{ "list", cmd_ctl, "list [-i] [-r]",
	  "List running guests (-i) and kvmtool\n"
	  "rootfs directories (-r); both by default" },
	{ "stop", cmd_ctl, "stop -n NAME | -a",
	  "Stop a guest (its lkvm run exits with 3)" },
	{ "pause", cmd_ctl, "pause -n NAME | -a",
	  "Hold every vCPU of a guest" },
	{ "resume", cmd_ctl, "resume -n NAME | -a",
	  "Let a paused guest run again" },
	{ "debug", cmd_ctl, "debug -n NAME | -a -d",
	  "Print the vCPU registers" },
	{ "stat", cmd_ctl, "stat -n NAME | -a -m",
	  "Memory and balloon statistics" },
	{ "balloon", cmd_ctl, "balloon -n NAME -i MB | -d MB",
	  "Inflate or deflate the balloon" },
	{ "dump", cmd_ctl, "dump -n NAME FILE",
	  "Write an ELF core of a guest to FILE\n"
	  "(gdb vmlinux FILE reads it)" },
	{ "version", cmd_version, "version", "Print the version and exit" },
	{ "help", cmd_help, "help [run]",
	  "Show this help, or the options of 'run'" },
	{ "--version", cmd_version, NULL, NULL },
	{ "--help", cmd_help, NULL, NULL },
	{ "-h", cmd_help, NULL, NULL },
};

#define NR_CMDS (sizeof(cmds) / sizeof(cmds[0]))
#define USAGE_COL 27

static const char usage_tail[] =
	"\n"
	"'lkvm --help' and 'lkvm -h' are 'lkvm help'; 'lkvm --version' is\n"
	"'lkvm version'.  See 'lkvm run --help' for the options and the\n"
	"exit status, 'lkvm COMMAND --help' for the others.  Guests are\n"
	"found by name (lkvm run --name) through their control sockets\n"
	"in ~/.lkvm; these commands exit with 0, 1 when a guest cannot be\n"
	"reached or refuses, or 2 for a usage error.\n";

/* The command list, in the option engine's help layout. */
static void print_usage(FILE *out)
{
	char left[64];

	fputs("usage: lkvm COMMAND [ARGS]\n\nCommands:\n", out);
	for (const struct cmd *c = cmds; c < cmds + NR_CMDS; c++) {
		if (!c->synopsis)
			continue;
		if (snprintf(left, sizeof(left), "  %s", c->synopsis) >=
		    USAGE_COL - 1)
			fprintf(out, "%s\n%*s", left, USAGE_COL, "");
		else
			fprintf(out, "%-*s", USAGE_COL, left);
		for (const char *h = c->help; *h; h++) {
			fputc(*h, out);
			if (*h == '\n')
				fprintf(out, "%*s", USAGE_COL, "");
		}
		fputc('\n', out);
	}
	fputs(usage_tail, out);
}

static int usage_err(FILE *err, const char *what, const char *arg)
{
	struct opt_parser p = { .err = err };

	opt_err(&p, "%s%s%s (see 'lkvm help')", what, arg ? arg : "",
		arg ? "'" : "");
	return LKVM_EXIT_USAGE;
}

int cmd_version(const struct cmd_ctx *ctx, int argc, char **argv)
{
	if (argc > 1)
		return usage_err(ctx->err, "unexpected argument '", argv[1]);
	fprintf(ctx->out, "lkvm version %s\n", LKVM_VERSION);
	return 0;
}

int cmd_help(const struct cmd_ctx *ctx, int argc, char **argv)
{
	if (argc > 2 || (argc == 2 && strcmp(argv[1], "run")))
		return usage_err(ctx->err, "unexpected argument '",
				 argv[argc - 1]);
	if (argc == 2)
		cli_print_run_help(ctx->out);
	else
		print_usage(ctx->out);
	return 0;
}

int cmd_main(const struct cmd_ctx *ctx, int argc, char **argv)
{
	if (argc < 2)
		return usage_err(ctx->err, "no command given", NULL);
	for (const struct cmd *c = cmds; c < cmds + NR_CMDS; c++)
		if (!strcmp(argv[1], c->name))
			return c->fn(ctx, argc - 1, argv + 1);
	return usage_err(ctx->err, "unknown command '", argv[1]);
}

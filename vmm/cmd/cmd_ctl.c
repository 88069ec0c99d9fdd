// SPDX-License-Identifier: GPL-2.0
/* Commands for running guests; see cmd_ctl.h. */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "vmm/cmd/cli.h"
#include "vmm/cmd/cmd_ctl.h"
#include "vmm/ctl/ctl.h"
#include "vmm/exit_codes.h"

enum ctl_opt_kind {
	OPT_NAME,
	OPT_ALL,
	OPT_RUN,
	OPT_ROOTFS,
	OPT_DUMP,
	OPT_MEMORY,
	OPT_INFLATE,
	OPT_DEFLATE,
	OPT_REFUSED, /* kvmtool's, meaningless on RISC-V: help says why */
	OPT_HELP,
};

struct ctl_opt {
	char letter;
	const char *name;
	const char *arg; /* NULL: a flag */
	enum ctl_opt_kind kind;
	const char *help;
};

#define O_NAME                                                 \
	{                                                      \
		'n', "name", "NAME", OPT_NAME, "Instance name" \
	}
#define O_ALL(h)                             \
	{                                    \
		'a', "all", NULL, OPT_ALL, h \
	}
#define O_HELP                                                \
	{                                                     \
		'h', "help", NULL, OPT_HELP, "Show this help" \
	}

static const struct ctl_opt list_opts[] = {
	{ 'i', "run", NULL, OPT_RUN, "List running instances" },
	{ 'r', "rootfs", NULL, OPT_ROOTFS,
	  "List rootfs directories (kvmtool's, in ~/.lkvm)" },
	O_HELP,
	{ 0 },
};
static const struct ctl_opt stop_opts[] = { O_NAME,
					    O_ALL("Stop all instances"),
					    O_HELP,
					    { 0 } };
static const struct ctl_opt pause_opts[] = { O_NAME,
					     O_ALL("Pause all instances"),
					     O_HELP,
					     { 0 } };
static const struct ctl_opt resume_opts[] = { O_NAME,
					      O_ALL("Resume all instances"),
					      O_HELP,
					      { 0 } };
static const struct ctl_opt debug_opts[] = {
	{ 'd', "dump", NULL, OPT_DUMP, "Print the vCPU registers" },
	{ 'm', "nmi", "N", OPT_REFUSED,
	  "Not supported: RISC-V has no NMI to inject" },
	{ 's', "sysrq", "KEY", OPT_REFUSED,
	  "Not supported: send the sysrq on the console" },
	O_NAME,
	O_ALL("Debug all instances"),
	O_HELP,
	{ 0 },
};
static const struct ctl_opt stat_opts[] = {
	{ 'm', "memory", NULL, OPT_MEMORY,
	  "Memory statistics (needs --balloon)" },
	O_NAME,
	O_ALL("All instances"),
	O_HELP,
	{ 0 },
};
static const struct ctl_opt balloon_opts[] = {
	O_NAME,
	{ 'i', "inflate", "MB", OPT_INFLATE, "Inflate the balloon by MB MiB" },
	{ 'd', "deflate", "MB", OPT_DEFLATE, "Deflate the balloon by MB MiB" },
	O_HELP,
	{ 0 },
};

static const struct ctl_cmd_def {
	const char *name;
	enum ctl_cmd cmd;
	const struct ctl_opt *opts;
	const char *usage;
} ctl_cmds[] = {
	{ "list", CTL_CMD_LIST, list_opts, "lkvm list [-i] [-r]" },
	{ "stop", CTL_CMD_STOP, stop_opts, "lkvm stop -n NAME | -a" },
	{ "pause", CTL_CMD_PAUSE, pause_opts, "lkvm pause -n NAME | -a" },
	{ "resume", CTL_CMD_RESUME, resume_opts, "lkvm resume -n NAME | -a" },
	{ "debug", CTL_CMD_DEBUG, debug_opts, "lkvm debug -n NAME | -a -d" },
	{ "stat", CTL_CMD_STAT, stat_opts, "lkvm stat -n NAME | -a -m" },
	{ "balloon", CTL_CMD_BALLOON, balloon_opts,
	  "lkvm balloon -n NAME -i MB | -d MB" },
};
#define NR_CMDS (sizeof(ctl_cmds) / sizeof(ctl_cmds[0]))

static const struct ctl_cmd_def *ctl_cmd_find(const char *name)
{
	for (size_t i = 0; i < NR_CMDS; i++)
		if (!strcmp(ctl_cmds[i].name, name))
			return &ctl_cmds[i];
	return NULL;
}

bool ctl_is_command(const char *argv1)
{
	return ctl_cmd_find(argv1);
}

/* --- parsing ----------------------------------------------------------- */

struct ctl_parse {
	const struct ctl_cmd_def *def;
	struct ctl_args *a;
	FILE *out, *err;
	bool dump, memory;
};

static int ctl_err(struct ctl_parse *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int ctl_err(struct ctl_parse *p, const char *fmt, ...)
{
	va_list ap;

	fprintf(p->err, "lkvm: error: %s: ", p->def->name);
	va_start(ap, fmt);
	vfprintf(p->err, fmt, ap);
	va_end(ap);
	fprintf(p->err, " (see 'lkvm %s --help')\n", p->def->name);
	return -EINVAL;
}

static void ctl_help(struct ctl_parse *p)
{
	fprintf(p->out, "usage: %s\n\n", p->def->usage);
	for (const struct ctl_opt *o = p->def->opts; o->name; o++) {
		char left[40];

		snprintf(left, sizeof(left), "-%c, --%s%s%s", o->letter,
			 o->name, o->arg ? " " : "", o->arg ? o->arg : "");
		fprintf(p->out, "  %-22s %s\n", left, o->help);
	}
}

/* MB for balloon -i/-d: 1..2^31 (kvmtool's int). */
static int ctl_set_mib(struct ctl_parse *p, const struct ctl_opt *o,
		       const char *arg)
{
	uint64_t v;

	if (cli_parse_u64(arg, &v) || !v || v > (1ULL << 31))
		return ctl_err(p, "invalid --%s '%s' (expected MiB, 1..2G)",
			       o->name, arg);
	if (p->a->mib)
		return ctl_err(p, "give one of -i and -d");
	p->a->mib = o->kind == OPT_INFLATE ? (int64_t)v : -(int64_t)v;
	return 0;
}

static int ctl_set(struct ctl_parse *p, const struct ctl_opt *o,
		   const char *arg)
{
	switch (o->kind) {
	case OPT_NAME:
		if (!*arg)
			return ctl_err(p, "empty --name");
		p->a->name = arg;
		return 0;
	case OPT_ALL:
		p->a->all = true;
		return 0;
	case OPT_RUN:
		p->a->run = true;
		return 0;
	case OPT_ROOTFS:
		p->a->rootfs = true;
		return 0;
	case OPT_DUMP:
		p->dump = true;
		return 0;
	case OPT_MEMORY:
		p->memory = true;
		return 0;
	case OPT_INFLATE:
	case OPT_DEFLATE:
		return ctl_set_mib(p, o, arg);
	case OPT_HELP:
		ctl_help(p);
		return 1;
	default:
		return ctl_err(p, "--%s: %s", o->name, o->help);
	}
}

static const struct ctl_opt *ctl_opt_find(struct ctl_parse *p, const char *s,
					  size_t len, char letter)
{
	for (const struct ctl_opt *o = p->def->opts; o->name; o++)
		if (letter ?
			    o->letter == letter :
			    strlen(o->name) == len && !strncmp(o->name, s, len))
			return o;
	return NULL;
}

/* One option at argv[*i]: "-x", "-xARG", "-x ARG", "--x", "--x[=| ]ARG". */
static int ctl_parse_one(struct ctl_parse *p, int argc, char **argv, int *i)
{
	const char *s = argv[*i], *arg = NULL, *eq;
	const struct ctl_opt *o;

	if (s[0] != '-' || !s[1])
		return ctl_err(p, "unexpected argument '%s'", s);
	if (s[1] == '-') {
		eq = strchr(s + 2, '=');
		o = ctl_opt_find(p, s + 2,
				 eq ? (size_t)(eq - s - 2) : strlen(s + 2), 0);
		arg = eq ? eq + 1 : NULL;
	} else {
		o = ctl_opt_find(p, NULL, 0, s[1]);
		arg = s[2] ? s + 2 : NULL;
		if (o && !o->arg && arg)
			return ctl_err(p, "unknown option '%s'", s);
	}
	if (!o)
		return ctl_err(p, "unknown option '%s'", s);
	if (o->arg && !arg) {
		if (*i + 1 >= argc)
			return ctl_err(p, "--%s needs %s", o->name, o->arg);
		arg = argv[++*i];
	} else if (!o->arg && arg) {
		return ctl_err(p, "--%s takes no argument", o->name);
	}
	return ctl_set(p, o, arg);
}

/* What each command needs once all options are read. */
static int ctl_check(struct ctl_parse *p)
{
	struct ctl_args *a = p->a;

	if (a->cmd == CTL_CMD_LIST)
		return 0;
	if (a->all && a->name)
		return ctl_err(p, "give -n NAME or -a, not both");
	if (!a->all && !a->name)
		return ctl_err(p, "which guest? give -n NAME%s",
			       a->cmd == CTL_CMD_BALLOON ? "" : " or -a");
	if (a->cmd == CTL_CMD_DEBUG && !p->dump)
		return ctl_err(p, "nothing to do: give -d");
	if (a->cmd == CTL_CMD_STAT && !p->memory)
		return ctl_err(p, "nothing to do: give -m");
	if (a->cmd == CTL_CMD_BALLOON && !a->mib)
		return ctl_err(p, "give -i MB or -d MB");
	return 0;
}

int ctl_args_parse(int argc, char **argv, struct ctl_args *a, FILE *out,
		   FILE *err)
{
	struct ctl_parse p = {
		.def = ctl_cmd_find(argv[0]), .a = a, .out = out, .err = err
	};

	memset(a, 0, sizeof(*a));
	if (!p.def)
		return -EINVAL;
	a->cmd = p.def->cmd;
	for (int i = 1; i < argc; i++) {
		int ret = ctl_parse_one(&p, argc, argv, &i);

		if (ret)
			return ret;
	}
	return ctl_check(&p);
}

/* --- running ----------------------------------------------------------- */

struct ctl_run {
	const struct ctl_args *a;
	FILE *out;
	int failed; /* guests that failed */
};

static const char *const ctl_done[] = {
	[CTL_CMD_PAUSE] = "paused",
	[CTL_CMD_RESUME] = "resumed",
};

static uint16_t ctl_type_of(enum ctl_cmd cmd)
{
	switch (cmd) {
	case CTL_CMD_STOP:
		return CTL_STOP;
	case CTL_CMD_PAUSE:
		return CTL_PAUSE;
	case CTL_CMD_RESUME:
		return CTL_RESUME;
	case CTL_CMD_DEBUG:
		return CTL_DEBUG;
	case CTL_CMD_STAT:
		return CTL_STAT;
	case CTL_CMD_BALLOON:
		return CTL_BALLOON;
	default:
		return CTL_STATE;
	}
}

static int ctl_one(const char *name, void *opaque)
{
	static struct ctl_response resp;
	struct ctl_run *r = opaque;
	struct ctl_request req = { ctl_type_of(r->a->cmd), r->a->mib };
	int ret = ctl_request(name, &req, &resp);

	if (ret == -ENOENT || ret == -ECONNREFUSED)
		fprintf(stderr, "lkvm: error: no running guest named '%s'\n",
			name);
	else if (ret)
		fprintf(stderr, "lkvm: error: guest '%s': %s\n", name,
			strerror(-ret));
	else if (resp.status)
		fprintf(stderr, "lkvm: error: guest '%s': %s%s%s\n", name,
			strerror(resp.status), resp.len ? ": " : "", resp.text);
	else if (r->a->cmd == CTL_CMD_PAUSE || r->a->cmd == CTL_CMD_RESUME)
		fprintf(r->out, "Guest %s %s\n", name, ctl_done[r->a->cmd]);
	else
		fputs(resp.text, r->out);
	r->failed += ret || resp.status;
	return 0;
}

static int ctl_list_one(const char *name, void *opaque)
{
	static struct ctl_response resp;
	struct ctl_request req = { .type = CTL_STATE };
	FILE *out = opaque;
	bool paused;
	long pid;

	if (ctl_request(name, &req, &resp) || resp.status ||
	    ctl_parse_state(resp.text, &pid, &paused))
		return 0; /* gone meanwhile, or not an lkvm we know */
	fprintf(out, "%5ld %-20s %s\n", pid, name,
		paused ? "paused" : "running");
	return 0;
}

/* kvmtool's rootfs directories (made by its 'lkvm setup'). */
static void ctl_list_rootfs(FILE *out)
{
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
	struct dirent **list;
	int n;

	if (ctl_dir(dir, sizeof(dir), false))
		return;
	n = scandir(dir, &list, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		if (list[i]->d_type == DT_DIR && list[i]->d_name[0] != '.')
			fprintf(out, "%5s %-20s %s\n", "", list[i]->d_name,
				"shut off");
		free(list[i]);
	}
	if (n >= 0)
		free(list);
}

static int ctl_list(const struct ctl_args *a, FILE *out)
{
	bool both = !a->run && !a->rootfs;
	int ret = 0;

	fprintf(out, "%6s %-20s %s\n", "PID", "NAME", "STATE");
	fprintf(out, "------------------------------------\n");
	fflush(out);
	if (both || a->run)
		ret = ctl_enumerate(ctl_list_one, out);
	if (both || a->rootfs)
		ctl_list_rootfs(out);
	return ret ? LKVM_EXIT_HOST_ERROR : 0;
}

int ctl_args_run(const struct ctl_args *a, FILE *out)
{
	struct ctl_run r = { .a = a, .out = out };
	int ret;

	if (a->cmd == CTL_CMD_LIST)
		return ctl_list(a, out);
	if (a->all)
		ret = ctl_enumerate(ctl_one, &r);
	else
		ret = ctl_one(a->name, &r);
	return ret || r.failed ? LKVM_EXIT_HOST_ERROR : 0;
}

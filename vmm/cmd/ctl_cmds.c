// SPDX-License-Identifier: GPL-2.0
/* Commands for running guests; see ctl_cmds.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/opt.h"
#include "vmm/cmd/cmd.h"
#include "vmm/cmd/ctl_cmds.h"
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
	OPT_HELP,
};

static opt_set_fn ctl_set;

/* One option of these commands: all have a letter, none a prefix. */
#define CTL_OPT(l, n, a, k, h)                                          \
	{                                                               \
		.name = n, .letter = l, .arg = a, .kind = k, .help = h, \
		.set = ctl_set                                          \
	}
/* kvmtool's, meaningless on RISC-V: refused, and help says why. */
#define CTL_REFUSED(l, n, a, w)                                                \
	{                                                                      \
		.name = n, .letter = l, .arg = a, .help = "Not supported: " w, \
		.why = w, .set = opt_set_refused                               \
	}
#define O_NAME CTL_OPT('n', "name", "NAME", OPT_NAME, "Instance name")
#define O_ALL(h) CTL_OPT('a', "all", NULL, OPT_ALL, h)
#define O_HELP CTL_OPT('h', "help", NULL, OPT_HELP, "Show this help")

static const struct opt list_opts[] = {
	CTL_OPT('i', "run", NULL, OPT_RUN, "List running instances"),
	CTL_OPT('r', "rootfs", NULL, OPT_ROOTFS,
		"List rootfs directories (kvmtool's, in ~/.lkvm)"),
	O_HELP,
};
static const struct opt stop_opts[] = { O_NAME, O_ALL("Stop all instances"),
					O_HELP };
static const struct opt pause_opts[] = { O_NAME, O_ALL("Pause all instances"),
					 O_HELP };
static const struct opt resume_opts[] = { O_NAME, O_ALL("Resume all instances"),
					  O_HELP };
static const struct opt debug_opts[] = {
	CTL_OPT('d', "dump", NULL, OPT_DUMP, "Print the vCPU registers"),
	CTL_REFUSED('m', "nmi", "N", "RISC-V has no NMI to inject"),
	CTL_REFUSED('s', "sysrq", "KEY", "send the sysrq on the console"),
	O_NAME,
	O_ALL("Debug all instances"),
	O_HELP,
};
static const struct opt stat_opts[] = {
	CTL_OPT('m', "memory", NULL, OPT_MEMORY,
		"Memory statistics (needs --balloon)"),
	O_NAME,
	O_ALL("All instances"),
	O_HELP,
};
static const struct opt balloon_opts[] = {
	O_NAME,
	CTL_OPT('i', "inflate", "MB", OPT_INFLATE,
		"Inflate the balloon by MB MiB"),
	CTL_OPT('d', "deflate", "MB", OPT_DEFLATE,
		"Deflate the balloon by MB MiB"),
	O_HELP,
};

static const struct opt dump_opts[] = { O_NAME, O_HELP };

#define OPTS(t) t, sizeof(t) / sizeof(t[0])

static const struct ctl_cmd_def {
	const char *name;
	enum ctl_cmd cmd;
	const struct opt *opts;
	size_t nr_opts;
	const char *usage;
} ctl_cmds[] = {
	{ "list", CTL_CMD_LIST, OPTS(list_opts), "lkvm list [-i] [-r]" },
	{ "stop", CTL_CMD_STOP, OPTS(stop_opts), "lkvm stop -n NAME | -a" },
	{ "pause", CTL_CMD_PAUSE, OPTS(pause_opts), "lkvm pause -n NAME | -a" },
	{ "resume", CTL_CMD_RESUME, OPTS(resume_opts),
	  "lkvm resume -n NAME | -a" },
	{ "debug", CTL_CMD_DEBUG, OPTS(debug_opts),
	  "lkvm debug -n NAME | -a -d" },
	{ "stat", CTL_CMD_STAT, OPTS(stat_opts), "lkvm stat -n NAME | -a -m" },
	{ "balloon", CTL_CMD_BALLOON, OPTS(balloon_opts),
	  "lkvm balloon -n NAME -i MB | -d MB" },
	{ "dump", CTL_CMD_DUMP, OPTS(dump_opts), "lkvm dump -n NAME FILE" },
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
	bool dump, memory;
};

#define CTL_HELP_COL 25

static int ctl_help(struct opt_parser *p, const struct ctl_cmd_def *def)
{
	fprintf(p->out, "usage: %s\n\n", def->usage);
	opt_help(p->out, def->opts, def->nr_opts, CTL_HELP_COL);
	return 1;
}

/* MB for balloon -i/-d: 1..2^31 (kvmtool's int). */
static int ctl_set_mib(struct opt_parser *p, const struct opt *o,
		       const char *arg)
{
	struct ctl_parse *c = p->ctx;
	uint64_t v;

	if (opt_parse_u64(arg, &v) || !v || v > (1ULL << 31))
		return opt_err(p, "invalid --%s '%s' (expected MiB, 1..2G)",
			       o->name, arg);
	if (c->a->mib)
		return opt_err(p, "give one of -i and -d");
	c->a->mib = o->kind == OPT_INFLATE ? (int64_t)v : -(int64_t)v;
	return 0;
}

static int ctl_set(struct opt_parser *p, const struct opt *o, const char *arg)
{
	struct ctl_parse *c = p->ctx;

	switch (o->kind) {
	case OPT_NAME:
		if (!*arg)
			return opt_err(p, "empty --name");
		c->a->name = arg;
		return 0;
	case OPT_ALL:
		c->a->all = true;
		return 0;
	case OPT_RUN:
		c->a->run = true;
		return 0;
	case OPT_ROOTFS:
		c->a->rootfs = true;
		return 0;
	case OPT_DUMP:
		c->dump = true;
		return 0;
	case OPT_MEMORY:
		c->memory = true;
		return 0;
	case OPT_INFLATE:
	case OPT_DEFLATE:
		return ctl_set_mib(p, o, arg);
	default:
		return ctl_help(p, c->def);
	}
}

/* lkvm dump's FILE. */
static int ctl_operand(struct opt_parser *p, char **argv, int i)
{
	struct ctl_parse *c = p->ctx;
	const char *arg = argv[i];

	if (c->a->cmd != CTL_CMD_DUMP || c->a->file)
		return opt_err(p, "unexpected argument '%s'", arg);
	if (!*arg)
		return opt_err(p, "empty FILE");
	c->a->file = arg;
	return 0;
}

/* What each command needs once all options are read. */
static int ctl_check(struct opt_parser *p, struct ctl_parse *c)
{
	struct ctl_args *a = c->a;

	if (a->cmd == CTL_CMD_LIST)
		return 0;
	if (a->all && a->name)
		return opt_err(p, "give -n NAME or -a, not both");
	if (!a->all && !a->name)
		return opt_err(p, "which guest? give -n NAME%s",
			       a->cmd == CTL_CMD_BALLOON ? "" : " or -a");
	if (a->cmd == CTL_CMD_DEBUG && !c->dump)
		return opt_err(p, "nothing to do: give -d");
	if (a->cmd == CTL_CMD_STAT && !c->memory)
		return opt_err(p, "nothing to do: give -m");
	if (a->cmd == CTL_CMD_BALLOON && !a->mib)
		return opt_err(p, "give -i MB or -d MB");
	if (a->cmd == CTL_CMD_DUMP && !a->file)
		return opt_err(p, "give the core FILE");
	return 0;
}

int ctl_args_parse(int argc, char **argv, struct ctl_args *a, FILE *out,
		   FILE *err)
{
	struct ctl_parse c = { .def = ctl_cmd_find(argv[0]), .a = a };
	struct opt_parser p = { .ctx = &c,
				.target = a,
				.out = out,
				.err = err,
				.cmd = argv[0],
				.cmd_in_errors = true,
				.operand = ctl_operand };
	int ret;

	memset(a, 0, sizeof(*a));
	if (!c.def)
		return -EINVAL;
	a->cmd = c.def->cmd;
	p.opts = c.def->opts;
	p.nr_opts = c.def->nr_opts;
	ret = opt_parse(&p, argc - 1, argv + 1);
	return ret ? ret : ctl_check(&p, &c);
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
	case CTL_CMD_DUMP:
		return CTL_DUMP;
	default:
		return CTL_STATE;
	}
}

static int ctl_one(const char *name, void *opaque)
{
	static struct ctl_response resp;
	struct ctl_run *r = opaque;
	struct ctl_request req = { ctl_type_of(r->a->cmd), r->a->mib, -1 };
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

/*
 * lkvm dump: FILE is created here (O_EXCL: never over an existing file)
 * and passed to lkvm run, which writes the core into it; removed again
 * if that fails, so no half-written core stays behind.
 */
static int ctl_dump(const struct ctl_args *a, FILE *out)
{
	static struct ctl_response resp;
	struct ctl_request req = { .type = CTL_DUMP };
	int ret;

	req.fd = open(a->file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (req.fd < 0) {
		fprintf(stderr, "lkvm: error: %s: %s\n", a->file,
			strerror(errno));
		return LKVM_EXIT_HOST_ERROR;
	}
	ret = ctl_request(a->name, &req, &resp);
	close(req.fd);
	if (!ret && !resp.status) {
		fprintf(out, "Guest %s dumped to %s\n", a->name, a->file);
		return 0;
	}
	unlink(a->file);
	if (ret == -ENOENT || ret == -ECONNREFUSED)
		fprintf(stderr, "lkvm: error: no running guest named '%s'\n",
			a->name);
	else
		fprintf(stderr, "lkvm: error: guest '%s': %s%s%s\n", a->name,
			strerror(ret ? -ret : (int)resp.status),
			!ret && resp.len ? ": " : "", ret ? "" : resp.text);
	return LKVM_EXIT_HOST_ERROR;
}

int ctl_args_run(const struct ctl_args *a, FILE *out)
{
	struct ctl_run r = { .a = a, .out = out };
	int ret;

	if (a->cmd == CTL_CMD_DUMP)
		return ctl_dump(a, out);
	if (a->cmd == CTL_CMD_LIST)
		return ctl_list(a, out);
	if (a->all)
		ret = ctl_enumerate(ctl_one, &r);
	else
		ret = ctl_one(a->name, &r);
	return ret || r.failed ? LKVM_EXIT_HOST_ERROR : 0;
}

int cmd_ctl(const struct cmd_ctx *ctx, int argc, char **argv)
{
	struct ctl_args a;
	int ret = ctl_args_parse(argc, argv, &a, ctx->out, ctx->err);

	if (ret)
		return ret < 0 ? LKVM_EXIT_USAGE : 0;
	return ctl_args_run(&a, ctx->out);
}

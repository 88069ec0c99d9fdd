// SPDX-License-Identifier: GPL-2.0
/*
 * lkvm run, lkvm sandbox and lkvm setup.  The command line becomes a
 * configuration (run_cli.c); a sandbox's root is made ready; the machine
 * runs (ctx->boot, boot.c) and its end becomes the exit status.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lib/log.h"
#include "lib/opt.h"
#include "vmm/board/loader.h"
#include "vmm/cmd/cmd.h"
#include "vmm/cmd/netopt.h"
#include "vmm/cmd/run_cli.h"
#include "vmm/exit_codes.h"
#include "vmm/host/usernet.h"
#include "vmm/sandbox/sandbox.h"

/*
 * A kernel that cannot be opened ends the run before anything is set up,
 * in kvmtool's words: kvm-unit-tests' kvmtool runner starts the VMM with a
 * kernel that does not exist and looks for "Fatal: Unable to open kernel
 * NAME" to know that the VMM itself works.
 */
static int kernel_opens(const char *path, FILE *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		fprintf(err, "lkvm: Fatal: Unable to open kernel %s: %s\n",
			path, strerror(errno));
		return -1;
	}
	close(fd);
	return 0;
}

/* A small sysfs file's text, or NULL. */
static const char *read_text(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, size - 1);

	if (fd >= 0)
		close(fd);
	if (n < 0)
		return NULL;
	buf[n] = '\0';
	return buf;
}

/* See netopt_shmem_loses_thp(). */
static bool run_shmem_loses_thp(void)
{
	char a[128], b[128];

	return netopt_shmem_loses_thp(
		read_text("/sys/kernel/mm/transparent_hugepage/enabled", a,
			  sizeof(a)),
		read_text("/sys/kernel/mm/transparent_hugepage/shmem_enabled",
			  b, sizeof(b)));
}

/*
 * Each user-mode NIC's vhost (netopt_choose_vhost()), before guest RAM is
 * made; passt is looked at once, and only for a NIC without vhost= (and
 * not on --hugetlbfs).  Not installed: nothing said here, the NIC's
 * start says it.  One --debug line a NIC.
 */
static void run_choose_vhost(struct vm_config *cfg)
{
	char passt[CONFIG_PATH_MAX];
	bool probed = false, shmem_loses_thp = false;
	int vu = 0;

	for (unsigned int i = 0; i < cfg->nr_nics; i++) {
		struct nic_config *nic = &cfg->nics[i];
		bool probe = !nic->vhost_given && !cfg->hugetlbfs;

		if (nic->mode != NIC_MODE_USER)
			continue;
		if (probe && !probed) {
			probed = true;
			vu = usernet_find_passt(passt, sizeof(passt)) ?
				     -ENOENT :
				     usernet_passt_vhost_user(passt);
			shmem_loses_thp = vu > 0 && run_shmem_loses_thp();
		}
		if (probe && vu == -ENOENT)
			continue; /* not installed: nic_user_open() says so */
		netopt_choose_vhost(nic, cfg->hugetlbfs != NULL,
				    shmem_loses_thp, vu);
		pr_debug("-n: user-mode NIC %u: %s (%s)", i,
			 nic->vhost ? "passt over vhost-user" :
				      "passt's socket mode",
			 nic->vhost_why);
	}
}

/*
 * A sandbox exits with its command's status, but a run that a timeout, a
 * panic or a refused reboot ended says so (its status), whatever the
 * guest reported before.
 */
static int sandbox_status(const struct vm_config *cfg, int run_status)
{
	int status = sandbox_finish_run(cfg);

	switch (run_status) {
	case LKVM_EXIT_TIMEOUT:
	case LKVM_EXIT_PANIC:
	case LKVM_EXIT_REBOOT:
		return run_status;
	default:
		return status;
	}
}

/* lkvm run [options] [kernel], lkvm sandbox [options] [--] COMMAND */
int cmd_run(const struct cmd_ctx *ctx, int argc, char **argv)
{
	static struct vm_config cfg;
	struct cli_host host;
	int ret;

	cli_host_probe(&host);
	ret = cli_parse_run(argc, argv, &host, &cfg, ctx->out, ctx->err);
	if (ret)
		return ret < 0 ? LKVM_EXIT_USAGE : 0;
	log_level = cfg.loglevel;
	run_choose_vhost(&cfg);
	if (cfg.kernel && kernel_opens(cfg.kernel, ctx->err))
		return LKVM_EXIT_HOST_ERROR;
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
	ret = ctx->boot(&cfg, ctx->sfd);
	return cfg.sandbox ? sandbox_status(&cfg, ret) : ret;
}

int cmd_setup_parse(int argc, char **argv, char *name, FILE *err)
{
	struct opt_parser p = { .err = err };

	if (argc != 2 || !sandbox_name_ok(argv[1]))
		return opt_err(
			&p,
			"usage: lkvm setup NAME (a name for ~/.lkvm/NAME, no '/')");
	strcpy(name, argv[1]);
	return 0;
}

/* lkvm setup NAME */
int cmd_setup(const struct cmd_ctx *ctx, int argc, char **argv)
{
	char name[256];

	if (cmd_setup_parse(argc, argv, name, ctx->err))
		return LKVM_EXIT_USAGE;
	return sandbox_setup(name, ctx->out) ? LKVM_EXIT_HOST_ERROR : 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The run command line after its options: the checks across options, the
 * defaults that depend on the host (vCPUs, RAM, name, the kernel search,
 * the default root) and the kernel command line.  See run_parse.h.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "lib/log.h"
#include "vmm/cmd/netopt.h"
#include "vmm/cmd/run_cli.h"
#include "vmm/cmd/run_parse.h"
#include "vmm/isa.h"
#include "vmm/sandbox/sandbox.h"

uint64_t cli_default_mem(unsigned int cpus, uint64_t host_mem)
{
	uint64_t mem = (64ULL << 20) * (cpus + 3ULL);

	/* Like kvmtool, leave the host a fifth of its RAM. */
	if (host_mem && mem > host_mem / 5 * 4)
		mem = host_mem / 5 * 4;
	mem &= ~(CLI_MEM_ALIGN - 1);
	if (mem < CLI_MEM_MIN)
		mem = CLI_MEM_MIN;
	if (mem > CONFIG_RAM_MAX)
		mem = CONFIG_RAM_MAX;
	return mem;
}

static unsigned int default_cpus(unsigned int online)
{
	if (!online)
		return 1;
	return online > CONFIG_MAX_CPUS ? CONFIG_MAX_CPUS : online;
}

/*
 * With the default console, earlycon=sbi too: the kernel's messages from
 * its first one, through the SBI debug console (DBCN: a whole message per
 * exit), until the console driver takes over where it stopped.  Without
 * it the messages wait in the kernel's buffer until the UART's driver
 * comes up, then go out at one exit per byte at least, or never, when
 * the kernel dies before.  Not when -p names an earlycon of its own (two
 * boot consoles would print everything twice), nor with DBCN hidden (a
 * kernel without the legacy SBI console would call the option malformed).
 */
static bool cmdline_earlycon(const struct vm_config *cfg, const char *params)
{
	int dbcn = sbi_ext_lookup("dbcn");

	return !strstr(params, "earlycon") &&
	       !(dbcn >= 0 && (cfg->disable_sbi >> dbcn & 1));
}

static int cmdline_build(struct cli_run *r)
{
	struct vm_config *cfg = r->cfg;
	const char *def = "", *early = "";
	const char *params = cfg->params ? cfg->params : "";
	const char *root = "", *dhcp = "";
	int n;

	if (!cfg->nodefaults && !cfg->firmware) {
		def = cfg->console != CONSOLE_SERIAL ? "console=hvc0" :
						       "console=ttyS0";
		early = cmdline_earlycon(cfg, params) ? " earlycon=sbi" : "";
	}
	/* kvmtool's rule: a disk and no root= means root=/dev/vda rw. */
	if (cfg->rootfs_9p)
		root = cfg->custom_rootfs ? SANDBOX_ROOT_PARAMS
			       " init=" SANDBOX_INIT :
					    SANDBOX_ROOT_PARAMS;
	else if (cfg->nr_disks && !strstr(params, "root=") && !cfg->firmware)
		root = "root=/dev/vda rw";
	/* kvmtool's too: a setup root's kernel asks for DHCP (--no-dhcp). */
	if (cfg->custom_rootfs && !cfg->no_dhcp)
		dhcp = " ip=dhcp";
	n = snprintf(cfg->cmdline, sizeof(cfg->cmdline), "%s%s%s%s%s%s%s", def,
		     early, def[0] && root[0] ? " " : "", root, dhcp,
		     (def[0] || root[0]) && params[0] ? " " : "", params);
	if (cfg->sandbox && n > 0 && n < (int)sizeof(cfg->cmdline))
		n += snprintf(cfg->cmdline + n, sizeof(cfg->cmdline) - n,
			      " " SANDBOX_PARAM "=" SANDBOX_RUN_DIR "%ld",
			      cfg->pid);
	if (n < 0 || n >= (int)sizeof(cfg->cmdline)) {
		cfg->cmdline[0] = '\0';
		return cli_err(
			r,
			"kernel command line is too long (more than %d bytes)",
			CONFIG_CMDLINE_MAX - 1);
	}
	return 0;
}

/*
 * A plain run boots the default root only where it can: with HOME set, two
 * share slots free and its tags unused; else one warning line, and the
 * kernel boots alone as before.
 */
static bool default_root_fits(struct cli_run *r, bool no_home)
{
	const struct vm_config *cfg = r->cfg;
	const char *why = NULL;

	if (no_home)
		why = "HOME is not set";
	else if (cfg->nr_shares > CONFIG_MAX_SHARES - 2)
		why = "its two 9p shares do not fit beside the --9p ones";
	for (unsigned int i = 0; !why && i < cfg->nr_shares; i++)
		if (!strcmp(cfg->shares[i].tag, SANDBOX_ROOT_TAG) ||
		    !strcmp(cfg->shares[i].tag, SANDBOX_HOST_TAG))
			why = "a --9p share has one of its tags";
	if (why)
		fprintf(r->p.err,
			"lkvm: warning: not booting ~/.lkvm/default (%s): the kernel alone boots\n",
			why);
	return !why;
}

/*
 * A sandbox boots a root made by 'lkvm setup' (-d NAME), by default
 * ~/.lkvm/default (made at the run if missing), as kvmtool does.  So does
 * a run given nothing else to boot (kvmtool's rule: no root, disk or
 * initrd, no --firmware or --nodefaults; nor a root= in -p): a shell in
 * that root, with the host's / read-only at /host.
 */
static int default_root_finish(struct cli_run *r)
{
	struct vm_config *cfg = r->cfg;
	char root[CONFIG_PATH_MAX];
	int ret = sandbox_root_path(SANDBOX_DEFAULT_ROOT, root, sizeof(root));

	if (cfg->sandbox) {
		if (cfg->rootfs_9p && !cfg->custom_rootfs)
			return cli_err(
				r,
				"a sandbox needs a root made by 'lkvm setup NAME' (-d NAME), not a directory");
		if (cfg->custom_rootfs)
			return 0;
		if (cfg->nr_disks || cfg->nr_initrds)
			return cli_err(
				r,
				"a sandbox boots over 9p: no -d IMAGE or -i");
	} else if (cfg->rootfs_9p || cfg->nr_disks || cfg->nr_initrds ||
		   cfg->firmware || cfg->nodefaults ||
		   (cfg->params && strstr(cfg->params, "root="))) {
		return 0; /* -p root=...: the user says where the root is */
	} else if (!default_root_fits(r, ret == -ENOENT)) {
		return 0;
	}
	if (ret)
		return cli_err(r, "no home directory for ~/.lkvm (set HOME)");
	ret = run_add_share(r, root, strlen(root), SANDBOX_ROOT_TAG);
	ret = ret ?: run_add_host_share(r);
	if (ret)
		return ret;
	cfg->rootfs_9p = cfg->custom_rootfs = true;
	strcpy(cfg->rootfs_name, SANDBOX_DEFAULT_ROOT);
	return 0;
}

/* Neither another user's nor writable by one (root's is fine too). */
static bool stat_trusted(const struct stat *st)
{
	return (st->st_uid == geteuid() || st->st_uid == 0) &&
	       !(st->st_mode & (S_IWGRP | S_IWOTH)) && !S_ISLNK(st->st_mode);
}

/*
 * A relative path nobody else could have changed: the working directory,
 * every directory on the way and the file itself pass stat_trusted().
 */
static bool path_trusted(const char *path)
{
	char part[CONFIG_PATH_MAX];
	struct stat st;

	if (lstat(".", &st) || !stat_trusted(&st))
		return false;
	for (const char *p = path;; p++) {
		p = strchr(p, '/');
		if (!p)
			return !lstat(path, &st) && stat_trusted(&st);
		if ((size_t)(p - path) >= sizeof(part))
			return false;
		memcpy(part, path, p - path);
		part[p - path] = '\0';
		if (p > path && (lstat(part, &st) || !stat_trusted(&st)))
			return false;
	}
}

/*
 * No -k and no --firmware: kvmtool's search, first a kernel tree's (its
 * bzImage names, kept for scripts that rely on them), then the host's own
 * kernel.  A kernel tree's is taken only if no other user could have put
 * it there (path_trusted()); the kernel chosen is named on stderr.  0
 * with cfg->kernel set, or -ENOENT.
 */
static int find_kernel(struct cli_run *r)
{
	/* A trailing '-' takes the host's release (uname -r). */
	static const char *const where[] = {
		"./bzImage",
		"arch/riscv/boot/bzImage",
		"../../arch/riscv/boot/bzImage",
		"/boot/vmlinuz-",
		"/boot/bzImage-",
	};
	const char *release = r->host->release;
	char *k = r->cfg->found_kernel;
	struct stat st;

	for (size_t i = 0; i < sizeof(where) / sizeof(where[0]); i++) {
		bool versioned = where[i][strlen(where[i]) - 1] == '-';

		if (versioned && !release[0])
			continue;
		snprintf(k, sizeof(r->cfg->found_kernel), "%s%s", where[i],
			 versioned ? release : "");
		if (stat(k, &st) || !S_ISREG(st.st_mode))
			continue;
		if (k[0] != '/' && !path_trusted(k)) {
			fprintf(r->p.err,
				"lkvm: warning: not booting %s: another user could have put it there (it or a directory on its way is theirs or writable by them)\n",
				k);
			continue;
		}
		fprintf(r->p.err, "lkvm: no -k given: booting %s\n", k);
		r->cfg->kernel = k;
		return 0;
	}
	k[0] = '\0';
	return -ENOENT;
}

int run_finish(struct cli_run *r)
{
	struct vm_config *cfg = r->cfg;
	const struct cli_host *host = r->host;

	if (cfg->kernel && cfg->firmware)
		return cli_err(
			r, "only one of --kernel and --firmware can be given");
	if (!cfg->kernel && !cfg->firmware && find_kernel(r))
		return cli_err(
			r,
			"no kernel given (-k FILE), and none found where kvmtool looks (./bzImage, arch/riscv/boot/bzImage, /boot/vmlinuz-%s, ...)",
			host->release[0] ? host->release : "RELEASE");
	if (cfg->firmware && cfg->nr_initrds) {
		fprintf(r->p.err,
			"lkvm: warning: ignoring the initrd: --firmware boots no kernel\n");
		cfg->nr_initrds = 0;
	}
	if (cfg->irqchip == IRQCHIP_AIA &&
	    config_isa_hidden(cfg, isa_ext_lookup("ssaia")))
		return cli_err(r, "--irqchip aia needs Ssaia, which %s hides",
			       cfg->cpu_min ? "--cpu-type min without ssaia" :
					      "--disable-ssaia");
	/*
	 * virtiofsd maps guest RAM from the fd lkvm hands it; a hugetlbfs
	 * file cannot be sealed against the daemon shrinking it (lkvm
	 * would then fault on its own RAM), a memfd can.
	 */
	if (cfg->hugetlbfs && cfg->nr_fs)
		return cli_err(r, "--hugetlbfs cannot be combined with --fs");
	if (cfg->hugetlbfs && config_vhost_user(cfg))
		return cli_err(
			r,
			"--hugetlbfs cannot be combined with -n mode=user,vhost=1 or a -d qemu-storage-daemon serves (the daemon maps guest RAM from a sealed memfd)");
	if (!cfg->nr_cpus)
		cfg->nr_cpus = default_cpus(host->online_cpus);
	if (!cfg->ram_size)
		cfg->ram_size = cli_default_mem(cfg->nr_cpus, host->mem_bytes);
	else if (host->mem_bytes && cfg->ram_size > host->mem_bytes)
		fprintf(r->p.err,
			"lkvm: warning: guest RAM %llu MiB exceeds host RAM %llu MiB\n",
			(unsigned long long)(cfg->ram_size >> 20),
			(unsigned long long)(host->mem_bytes >> 20));
	if (!cfg->name) {
		snprintf(cfg->default_name, sizeof(cfg->default_name),
			 "guest-%ld", host->pid);
		cfg->name = cfg->default_name;
	}
	if (!cfg->dev)
		cfg->dev = "/dev/kvm";
	if (cfg->transport == VIRTIO_TRANSPORT_DEFAULT)
		cfg->transport = VIRTIO_TRANSPORT_PCI;
	/* kvmtool's rule: no -n at all means one user-mode NIC. */
	if (!cfg->nr_nics && !cfg->no_net) {
		netopt_defaults(&cfg->nics[0], 0, NIC_MODE_USER);
		cfg->nics[0].implicit = true;
		cfg->nr_nics = 1;
	}
	cfg->pid = host->pid;
	return default_root_finish(r) ?: cmdline_build(r);
}

void cli_host_probe(struct cli_host *host)
{
	struct utsname uts;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	long pages = sysconf(_SC_PHYS_PAGES);
	long page_size = sysconf(_SC_PAGE_SIZE);

	host->online_cpus = cpus > 0 ? (unsigned int)cpus : 0;
	host->mem_bytes = pages > 0 && page_size > 0 ?
				  (uint64_t)pages * (uint64_t)page_size :
				  0;
	host->pid = getpid();
	host->release[0] = '\0';
	if (!uname(&uts))
		snprintf(host->release, sizeof(host->release), "%s",
			 uts.release);
}

int cli_summary(const struct vm_config *cfg, char *buf, size_t size)
{
	int n = snprintf(buf, size, "# lkvm run %s %s -m %llu -c %u --name %s",
			 cfg->firmware ? "--firmware" : "-k",
			 cfg->firmware ? cfg->firmware :
			 cfg->kernel   ? cfg->kernel :
					 "",
			 (unsigned long long)(cfg->ram_size >> 20),
			 cfg->nr_cpus, cfg->name ? cfg->name : "");

	return n < 0 || (size_t)n >= size ? -ENOSPC : n;
}

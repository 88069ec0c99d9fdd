// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz the command line.  Input layout:
 *   byte 0   bits 0..5: the host's online CPUs (0 = unknown);
 *            bit 7: the command comes from the input (else "run")
 *   byte 1   the host's RAM in 64 MiB units (0 = unknown)
 *   rest     arguments separated by NUL bytes (at most MAX_ARGS)
 * argv is "lkvm" ["run"] args...; help and errors go to /dev/null.
 * After every call the result and the config are checked.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/cli_shim.h"
#include "lib/sizes.h"
#include "lib/log.h"

#define MAX_ARGS 64

#define CHECK(cond)                       \
	do {                              \
		if (!(cond))              \
			__builtin_trap(); \
	} while (0)

static int split_args(char *buf, size_t len, char **argv, int max)
{
	int argc = 0;

	for (size_t i = 0; i < len && argc < max; i++) {
		argv[argc++] = buf + i;
		i += strlen(buf + i);
	}
	return argc;
}

static void check_run_config(const struct vm_config *cfg)
{
	char line[128];
	int n;

	/* A kernel, or (--firmware) a firmware and no kernel. */
	CHECK((cfg->kernel && cfg->kernel[0] && !cfg->firmware) ||
	      (!cfg->kernel && cfg->firmware && cfg->firmware[0]));
	CHECK(!cfg->firmware || !cfg->nr_initrds);
	CHECK(cfg->nr_initrds <= CONFIG_MAX_INITRDS);
	for (unsigned int i = 0; i < cfg->nr_initrds; i++)
		CHECK(cfg->initrds[i] && cfg->initrds[i][0]);
	CHECK(cfg->timeout_s <= CLI_TIMEOUT_MAX_S);
	CHECK(cfg->tty == -1 || cfg->tty == 0);
	CHECK(cfg->debug_iodelay_ms <= CLI_IODELAY_MAX_MS);
	CHECK(cfg->nr_cpus >= 1 && cfg->nr_cpus <= CONFIG_MAX_CPUS);
	CHECK(cfg->ram_size >= CLI_MEM_MIN && cfg->ram_size <= CONFIG_RAM_MAX);
	CHECK(cfg->ram_size % CLI_MEM_ALIGN == 0);
	CHECK(cfg->name && cfg->name[0] && cfg->dev && cfg->dev[0]);
	CHECK(cfg->console == CONSOLE_SERIAL || cfg->console == CONSOLE_HV ||
	      cfg->console == CONSOLE_VIRTIO);
	CHECK(cfg->loglevel >= LOG_ERR && cfg->loglevel <= LOG_DEBUG);
	CHECK(cfg->nodefaults || cfg->firmware ||
	      !strncmp(cfg->cmdline, "console=", 8));
	CHECK(cfg->nr_shares <= CONFIG_MAX_SHARES);
	for (unsigned int i = 0; i < cfg->nr_shares; i++)
		CHECK(cfg->shares[i].path[0] && cfg->shares[i].tag[0] &&
		      strlen(cfg->shares[i].tag) <= CONFIG_TAG_MAX);
	CHECK(!cfg->sandbox || cfg->sandbox_script ||
	      (cfg->sandbox_argv && cfg->sandbox_argv[0]));
	n = cli_summary(cfg, line, sizeof(line));
	CHECK(n == -ENOSPC || (n > 0 && (size_t)n == strlen(line)));
	CHECK(memchr(line, '\0', sizeof(line)));
}

/* lkvm list, stop, ...: a complete command for a running guest. */
static void check_ctl_args(const struct ctl_args *a)
{
	CHECK(a->cmd >= CTL_CMD_LIST && a->cmd <= CTL_CMD_DUMP);
	if (a->cmd == CTL_CMD_LIST)
		return;
	CHECK(!a->all != !a->name);
	CHECK(!a->name || a->name[0]);
	CHECK((a->cmd == CTL_CMD_BALLOON) == (a->mib != 0));
	CHECK((a->cmd == CTL_CMD_DUMP) == (a->file != NULL));
	CHECK(!a->file || a->file[0]);
	CHECK(a->mib >= -(1LL << 31) && a->mib <= (1LL << 31));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *null_out;
	char *argv[MAX_ARGS + 3] = { (char *)"lkvm", (char *)"run" };
	struct cli_host host = { 0, 0, 42, "" };
	struct vm_config *cfg;
	int first, argc, ret;
	char *buf;

	if (size < 2)
		return 0;
	log_level = -1;
	if (!null_out)
		null_out = fopen("/dev/null", "w");
	CHECK(null_out);
	host.online_cpus = data[0] & 0x3f;
	host.mem_bytes = (uint64_t)data[1] << 26;
	first = data[0] & 0x80 ? 1 : 2;

	buf = malloc(size - 1); /* the args plus a final NUL */
	cfg = malloc(sizeof(*cfg));
	CHECK(buf && cfg);
	memcpy(buf, data + 2, size - 2);
	buf[size - 2] = '\0';
	argc = first + split_args(buf, size - 2, argv + first, MAX_ARGS);

	ret = cli_parse(argc, argv, &host, cfg, null_out, null_out);
	CHECK(ret == CLI_RUN || ret == CLI_DONE || ret == CLI_SETUP ||
	      ret == CLI_CTL || ret == -EINVAL);
	CHECK(ret != CLI_SETUP ||
	      (cfg->rootfs_name[0] && !strchr(cfg->rootfs_name, '/')));
	CHECK(memchr(cfg->cmdline, '\0', sizeof(cfg->cmdline)));
	CHECK(memchr(cfg->default_name, '\0', sizeof(cfg->default_name)));
	if (ret == CLI_RUN)
		check_run_config(cfg);
	if (ret == CLI_CTL)
		check_ctl_args(&cli_shim_ctl);
	free(cfg);
	free(buf);
	return 0;
}

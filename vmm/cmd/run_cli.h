/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The command line of 'lkvm run [options] [kernel]' and 'lkvm sandbox
 * [options] [--] COMMAND', with kvmtool's option names so its scripts work
 * unchanged.  One option table drives both the parser and 'lkvm run
 * --help'.
 */
#ifndef RVKVM_RUN_CLI_H
#define RVKVM_RUN_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "vmm/config.h"

#ifndef LKVM_VERSION
#define LKVM_VERSION "0.1"
#endif

/* Guest RAM limits for -m (the maximum is CONFIG_RAM_MAX). */
#define CLI_MEM_MIN (16ULL << 20)
#define CLI_MEM_ALIGN (2ULL << 20)
/* The largest --debug-iodelay, in milliseconds. */
#define CLI_IODELAY_MAX_MS 10000
/* The longest --io-poll window, in microseconds. */
#define CLI_IO_POLL_MAX_US 100000
/* --timeout: at most a week. */
#define CLI_TIMEOUT_MAX_S 604800

/* What cli_parse_run() returns besides -EINVAL (usage error, printed). */
#define CLI_RUN 0  /* cfg is complete: run the VM */
#define CLI_DONE 1 /* help printed: exit 0 */

/* Host facts behind the defaults, a parameter so tests can fix them. */
struct cli_host {
	unsigned int online_cpus; /* 0: unknown */
	uint64_t mem_bytes;	  /* physical RAM, 0: unknown */
	long pid;
	char release[65]; /* uname -r; "": unknown (no /boot search) */
};

/* Fill @host from sysconf(), getpid() and uname(). */
void cli_host_probe(struct cli_host *host);

/*
 * Parse argv (argv[0] is the command, "run" or "sandbox") into a zeroed
 * and fully defaulted @cfg.  Help goes to @out; a usage error is one line
 * "lkvm: error: ..." on @err and returns -EINVAL, which the caller turns
 * into LKVM_EXIT_USAGE.  Strings in @cfg point into argv (or into @cfg
 * itself), so argv must outlive @cfg.
 */
int cli_parse_run(int argc, char **argv, const struct cli_host *host,
		  struct vm_config *cfg, FILE *out, FILE *err);

/* The default guest RAM for @cpus vCPUs on a host with @host_mem bytes. */
uint64_t cli_default_mem(unsigned int cpus, uint64_t host_mem);

/*
 * "# lkvm run -k <kernel> -m <MiB> -c <cpus> --name <name>" into @buf.
 * Returns the length, or -ENOSPC if it did not fit (@buf is then still
 * NUL-terminated, truncated).
 */
int cli_summary(const struct vm_config *cfg, char *buf, size_t size);

/* 'lkvm run --help'. */
void cli_print_run_help(FILE *out);

#endif

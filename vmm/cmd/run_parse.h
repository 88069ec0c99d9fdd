/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside the run command line: the parse state that run_cli.c's setters
 * fill and run_finish.c completes.  Private to vmm/cmd/.
 */
#ifndef RVKVM_RUN_PARSE_H
#define RVKVM_RUN_PARSE_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/opt.h"

struct cli_host;
struct vm_config;

struct cli_run {
	struct opt_parser p; /* p.ctx is this struct, p.target the cfg */
	struct vm_config *cfg;
	const struct cli_host *host;
	bool sandbox_cmd; /* lkvm sandbox: a COMMAND ends the options */
};

#define cli_err(r, ...) opt_err(&(r)->p, __VA_ARGS__)

/* One more 9p share: dir (not empty), tag (1..CONFIG_TAG_MAX bytes). */
int run_add_share(struct cli_run *r, const char *dir, size_t dlen,
		  const char *tag);
/* A setup root's view of the host: / as hostfs, read-only. */
int run_add_host_share(struct cli_run *r);

/* The setters of -d, --9p, --fs and -n (run_devs.c). */
opt_set_fn run_set_disk, run_set_9p, run_set_fs, run_set_network;

/*
 * After the options: the checks across them, the defaults that depend on
 * the host, the default root and the kernel command line.
 */
int run_finish(struct cli_run *r);

#endif

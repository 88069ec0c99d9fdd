/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The seccomp filter lkvm runs under once the machine is set up: one
 * allow-list (seccomp.c) for every thread, a SIGSYS handler that names a
 * forbidden system call on stderr and exits with LKVM_EXIT_SECCOMP.
 */
#ifndef RVKVM_SECCOMP_H
#define RVKVM_SECCOMP_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "vmm/config.h"

struct sock_filter;

/*
 * Test hook, documented in README.md: when this environment variable is
 * set, lkvm makes one forbidden system call (personality) right after
 * installing the filter, to show how a violation ends.
 */
#define SECCOMP_TEST_ENV "LKVM_TEST_SECCOMP_VIOLATION"

/*
 * Test hook, documented in README.md: set to EINVAL or EOPNOTSUPP, lkvm
 * acts as if the host kernel had answered so, as one without system call
 * filtering (CONFIG_SECCOMP_FILTER) does, and fails as it would there.
 */
#define SECCOMP_TEST_UNSUPPORTED_ENV "LKVM_TEST_SECCOMP_UNSUPPORTED"

/*
 * Build the filter for @cfg (the native architecture, or riscv64 when
 * @arch_riscv64 is set, for the native unit test) and, if @load, load it
 * into every thread of lkvm.  0, or -errno after one line naming the
 * problem (a system call name unknown to libseccomp, a load failure; a
 * host kernel without system call filtering is named as such, with
 * --no-seccomp as the way to run without the filter).
 */
int seccomp_setup(const struct vm_config *cfg, bool load, bool arch_riscv64);

/*
 * The filter seccomp_setup() would load, as classic BPF in a buffer the
 * caller frees: its length in instructions, or -errno (tests run it).
 */
ssize_t seccomp_export(const struct vm_config *cfg, bool arch_riscv64,
		       struct sock_filter **prog);

/*
 * seccomp_setup(cfg, true, false), then the test hook above; with a tap
 * downscript (a program run at exit) the filter stays off, with a warning.
 */
int seccomp_install(const struct vm_config *cfg);

/*
 * The line the SIGSYS handler writes for system call @nr named @name
 * (NULL: unknown), into @buf; its length.  Async-signal-safe.
 */
size_t seccomp_format_kill(char *buf, size_t size, const char *name, long nr);

/* The allow-list's i-th system call name, NULL past its end (tests). */
const char *seccomp_allowed_name(size_t i);
/* The same for the calls allowed only with --vsock CID,socket=PATH. */
const char *seccomp_hvsock_name(size_t i);

/*
 * Whether cfg's filter lets ioctl request req through: the gdb stub's
 * and vhost's requests only when --gdb, --vsock or -n ...,vhost=1 asked
 * for them.
 */
bool seccomp_ioctl_allowed(const struct vm_config *cfg, unsigned long req);

#endif

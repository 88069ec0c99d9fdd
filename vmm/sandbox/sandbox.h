/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Developer sandboxes, as kvmtool has them: 'lkvm setup NAME' makes a
 * guest root in ~/.lkvm/NAME (empty directories, symbolic links from
 * /bin, /lib, /lib64, /sbin, /usr and /etc/ld.so.conf to the same paths
 * under /host, an /etc/passwd with root, and lkvm itself as /virt/init);
 * 'lkvm run -d NAME' boots it over 9p (tag /dev/root) with the host's /
 * as a second, read-only share (tag hostfs) mounted at /host by the init.
 *
 * 'lkvm sandbox [options] [--] COMMAND [ARGS]' and 'lkvm run --sandbox
 * SCRIPT' carry a command into the guest and its exit status out of it:
 *  1. lkvm writes a run directory in the root, virt/sandbox-<pid>/, with
 *     cmd.sh (the command, each word single-quoted; a COMMAND that is a
 *     host file becomes /host/<its real path>; SCRIPT becomes
 *     "/bin/sh /host/<real path>") and puts lkvm.sandbox=/virt/
 *     sandbox-<pid> on the kernel command line;
 *  2. the guest init (guest_init.c) creates "started" there (a guest that
 *     rebooted finds it and powers off without running the command
 *     again), runs /bin/sh cmd.sh on the console,
 *     waits for it, writes its status (the exit code, or 128 + the
 *     signal number) as a decimal line to the run directory's "status",
 *     fsyncs it and the file systems, and powers the guest off;
 *  3. after the VM has stopped, lkvm reads "status", removes the run
 *     directory and exits with the status.  No status (the guest crashed,
 *     was stopped, or never ran the command) is one line on stderr and
 *     exit status 125.
 * The status never shares a channel with the command's output, and a run
 * directory per lkvm process keeps concurrent sandboxes on one root apart.
 */
#ifndef RVKVM_SANDBOX_H
#define RVKVM_SANDBOX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "vmm/config.h"

#define SANDBOX_ROOT_TAG "/dev/root"
#define SANDBOX_HOST_TAG "hostfs"
#define SANDBOX_DEFAULT_ROOT "default"
#define SANDBOX_INIT "/virt/init"
#define SANDBOX_PARAM "lkvm.sandbox"
#define SANDBOX_RUN_DIR "/virt/sandbox-"
#define SANDBOX_ROOT_PARAMS                                                \
	"root=/dev/root rw rootflags=trans=virtio,version=9p2000.L,cache=" \
	"loose rootfstype=9p"
/* lkvm sandbox's status when the guest reported none. */
#define SANDBOX_EXIT_NO_STATUS 125

/*
 * Is name usable as ~/.lkvm/NAME: not empty, no '/', not . or .., and
 * not starting with '-' (lkvm setup --help is not a root named --help)?
 */
bool sandbox_name_ok(const char *name);
/* $HOME/.lkvm/NAME into buf: 0, -ENOENT without HOME, -ENAMETOOLONG. */
int sandbox_root_path(const char *name, char *buf, size_t size);

/* lkvm setup NAME: 0, or -errno after one line saying why. */
int sandbox_setup(const char *name, FILE *out);

/*
 * Before a run with a setup root: make the root if it is the missing
 * default, put lkvm in as its init if it has none, copy the host's
 * resolv.conf, and for a sandbox write the run directory.  0, or -errno
 * after one line saying why.
 */
int sandbox_prepare(const struct vm_config *cfg, const char *self);

/* After a sandbox run: the command's status (0..255) or 125, said why. */
int sandbox_finish_run(const struct vm_config *cfg);

/* Is this process the guest init lkvm put in a setup root? */
bool guest_init_wanted(int argc, char **argv);
/* Run as that init; never returns while the guest runs. */
int guest_init_main(void);

#endif

// SPDX-License-Identifier: GPL-2.0
/*
 * lkvm: find the command (vmm/cmd/commands.c has the table, kvmtool's
 * names) and run it, handing it what boots a machine; its exit status is
 * lkvm's (vmm/exit_codes.h).
 */
#include <fcntl.h>
#include <malloc.h>
#include <stdio.h>

#include "vmm/cmd/cmd.h"
#include "vmm/machine/signals.h"
#include "vmm/sandbox/sandbox.h"

/* Closed standard fds would be taken by our own fds: fill them first. */
static void stdio_guard(void)
{
	for (int fd = 0; fd < 3; fd++)
		if (fcntl(fd, F_GETFD) < 0 && open("/dev/null", O_RDWR) < 0)
			break;
}

int main(int argc, char **argv)
{
	struct cmd_ctx ctx = { stdout, stderr, cmd_boot_machine, -1 };

	/* In a guest booted from an 'lkvm setup' root, lkvm is its init. */
	if (guest_init_wanted(argc, argv))
		return guest_init_main();
	stdio_guard();
	/*
	 * Buffers of 128 KiB and more are mappings of their own, given back
	 * when freed.  glibc's default raises that limit to the size of the
	 * largest such buffer freed (the kernel image read at start-up), and
	 * the later ones (9p's, a reboot's image) then stayed in the heap:
	 * 8 MiB more resident on a plain run, measured in the emulated host.
	 */
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
	/*
	 * First, for every command: a stop signal from now on ends lkvm in
	 * order (status 3), and SIGPIPE is ignored (signals.h).
	 */
	ctx.sfd = signals_setup();
	return cmd_main(&ctx, argc, argv);
}

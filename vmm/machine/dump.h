/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Crash dumps: an ELF64 core of the guest (lib/elfcore.h) for 'lkvm dump'
 * and --dump-on-panic.  RAM is one PT_LOAD at its physical address; the
 * kernel half of the first vCPU's address space (satp, walked with
 * lib/pgwalk.h) adds PT_LOADs at the kernel's virtual addresses over the
 * same bytes, so 'gdb vmlinux CORE' reads kernel variables by symbol.
 * Zero pages are holes (a sparse file).
 */
#ifndef RVKVM_DUMP_H
#define RVKVM_DUMP_H

#include "vmm/kvm/vm.h"

/*
 * Write the core to fd (an empty regular file) while no vCPU runs
 * (paused, or stopped with their fds still open): 0 or -errno, having
 * said why.
 */
int dump_write(struct vm *vm, int fd);

/*
 * --dump-on-panic: the core into path (through path.tmp, renamed when
 * whole); logs the outcome.
 */
void dump_to_path(struct vm *vm, const char *path);

#endif

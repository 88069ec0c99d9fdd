/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What each boot puts into guest RAM: the kernel, the initrd and the
 * device tree (written out once with --dump-dtb), and where the boot hart
 * starts.
 */
#ifndef RVKVM_BOOT_H
#define RVKVM_BOOT_H

#include "vmm/board/board.h"
#include "vmm/kvm/vm.h"

/* The boot hart's registers. */
struct boot_entry {
	uint64_t pc, a0, a1; /* kernel entry, hart id, device tree */
};

/*
 * Load this boot's images and device tree into vm's RAM.  0, or -errno
 * after one line naming the file or the problem.
 */
int boot_load(struct vm *vm, struct board *b, struct boot_entry *entry);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The resources of virtio-mmio slot n as the virt board hands them out
 * (vmm/layout.h): what device tests give a transport's init.
 */
#ifndef RVKVM_TEST_SLOT_RES_H
#define RVKVM_TEST_SLOT_RES_H

#include "lib/device.h"

#define TEST_PHANDLE_IRQCHIP 1

#define SLOT_RES(n)                                                     \
	((const struct dev_res){ .base = 0x10001000ULL + (n)*0x1000ULL, \
				 .size = 0x1000,                        \
				 .irq = 1 + (n),                        \
				 .irq_parent = TEST_PHANDLE_IRQCHIP,    \
				 .irq_cells = 1 })

#endif

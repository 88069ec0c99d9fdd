/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The guest memory map, interrupt numbers and device tree phandles of the
 * 'virt' board: the single source of truth for them.  Only the board file
 * (vmm/board_virt.c) includes this; it hands every device its resources.
 * Chosen to match QEMU's riscv 'virt' board where it has the same device.
 */
#ifndef RVKVM_LAYOUT_H
#define RVKVM_LAYOUT_H

#include "lib/sizes.h"

/* PLIC: one S-mode context per hart. */
#define LAYOUT_PLIC_BASE 0x0c000000ULL

/*
 * KVM's AIA, instead of the PLIC: the APLIC (MSI mode) and one 4 KiB
 * S-level IMSIC interrupt file per hart, from IMSIC_BASE (aligned far
 * beyond 32 harts, as KVM's hart index decoding needs).
 */
#define LAYOUT_APLIC_BASE 0x0d000000ULL
#define LAYOUT_IMSIC_BASE 0x28000000ULL
#define LAYOUT_AIA_NR_IRQS 64

/* 16550A UART. */
#define LAYOUT_UART_BASE 0x10000000ULL
#define LAYOUT_UART_SIZE 0x100ULL
#define LAYOUT_UART_IRQ 10

/* pvpanic (qemu,pvpanic-mmio): a byte register; QEMU's virt has none. */
#define LAYOUT_PVPANIC_BASE 0x10100000ULL

/* virtio-mmio slots: slot n at BASE + n * SIZE, interrupt FIRST_IRQ + n. */
#define LAYOUT_VIRTIO_MMIO_BASE 0x10001000ULL
#define LAYOUT_VIRTIO_MMIO_SIZE 0x1000ULL
#define LAYOUT_VIRTIO_MMIO_SLOTS 8
#define LAYOUT_VIRTIO_MMIO_FIRST_IRQ 1

/*
 * PCIe host bridge (pci-host-ecam-generic): ECAM for bus 0, a 32-bit
 * memory window for BARs up to RAM, a 64-bit prefetchable window above the
 * largest RAM (at 1 TiB, inside a 41-bit guest physical address space),
 * and INTA..INTD on four wired sources (QEMU's virt places ECAM and its
 * 32-bit window at these addresses too).
 */
#define LAYOUT_PCI_ECAM_BASE 0x30000000ULL
#define LAYOUT_PCI_ECAM_SIZE 0x100000ULL
#define LAYOUT_PCI_MMIO32_BASE 0x40000000ULL
#define LAYOUT_PCI_MMIO32_SIZE 0x40000000ULL
#define LAYOUT_PCI_MMIO64_BASE 0x10000000000ULL
#define LAYOUT_PCI_MMIO64_SIZE 0x1000000000ULL
#define LAYOUT_PCI_INTX_FIRST_IRQ 32

/* RAM: the kernel at RAM + 2 MiB; initrd and FDT in the first 256 MiB. */
#define LAYOUT_RAM_BASE 0x80000000ULL

/* Interrupt sources the irqchip offers (the PLIC's maximum). */
#define LAYOUT_NR_IRQS 1023

/* Device tree phandles. */
#define PHANDLE_IRQCHIP 1 /* the PLIC or the APLIC */
#define PHANDLE_CPU_INTC(hart) (2 + (hart))
#define PHANDLE_IMSIC 64

#endif

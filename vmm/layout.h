/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The guest memory map and interrupt numbers: the single source of truth
 * for addresses and IRQs (the device tree is generated from these).
 * Chosen to match QEMU's riscv 'virt' board where it has the same device.
 */
#ifndef RVKVM_LAYOUT_H
#define RVKVM_LAYOUT_H

#define SZ_4K 0x1000ULL
#define SZ_1M 0x100000ULL
#define SZ_2M 0x200000ULL
#define SZ_256M 0x10000000ULL
#define SZ_1G 0x40000000ULL

/* PLIC: 1023 sources; one S-mode context per hart. */
#define LAYOUT_PLIC_BASE 0x0c000000ULL
#define LAYOUT_PLIC_SIZE 0x04000000ULL

/* 16550A UART. */
#define LAYOUT_UART_BASE 0x10000000ULL
#define LAYOUT_UART_SIZE 0x100ULL
#define LAYOUT_UART_IRQ 10

/* virtio-mmio slots: slot n at BASE + n * SIZE, interrupt FIRST_IRQ + n. */
#define LAYOUT_VIRTIO_MMIO_BASE 0x10001000ULL
#define LAYOUT_VIRTIO_MMIO_SIZE 0x1000ULL
#define LAYOUT_VIRTIO_MMIO_SLOTS 8
#define LAYOUT_VIRTIO_MMIO_FIRST_IRQ 1

/* RAM: the kernel at RAM + 2 MiB; initrd and FDT in the first 256 MiB. */
#define LAYOUT_RAM_BASE 0x80000000ULL
#define LAYOUT_KERNEL_OFFSET SZ_2M
#define LAYOUT_LOWMEM_SIZE SZ_256M
#define LAYOUT_RAM_MAX (512ULL * SZ_1G)

#define LAYOUT_PLIC_NR_IRQS 1023

/* Device tree phandles. */
#define PHANDLE_PLIC 1
#define PHANDLE_CPU_INTC(hart) (2 + (hart))

/* Supervisor external interrupt, the PLIC's output into each hart. */
#define IRQ_S_EXT 9

#endif

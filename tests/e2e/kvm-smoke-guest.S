/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Guest code for kvm-smoke: runs in VS-mode with the MMU off at the start
 * of guest RAM.  Position independent: no loads or stores, only ecalls.
 */
	.section .rodata
	.balign 4
	.globl smoke_guest_start, smoke_guest_end
smoke_guest_start:
	/* SBI v0.1 console putchar('K') */
	li	a7, 0x01
	li	a0, 'K'
	ecall
	/* what it returned, for kvm-smoke to read at the next exit */
	mv	s1, a0
	/* SBI DBCN write_byte('V') */
	li	a7, 0x4442434e
	li	a6, 2
	li	a0, 'V'
	ecall
	/* An experimental extension nobody implements: expect NOT_SUPPORTED */
	li	a7, 0x08000123
	li	a6, 0
	ecall
	li	t0, -2
	beq	a0, t0, 1f
	li	a7, 0x01
	li	a0, '!'
	ecall
1:
	/* SBI SRST system_reset(SHUTDOWN, NO_REASON) */
	li	a7, 0x53525354
	li	a6, 0
	li	a0, 0
	li	a1, 0
	ecall
2:	j	2b
smoke_guest_end:

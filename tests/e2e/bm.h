/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the bare-metal test guests (bm-*.S): a RISC-V Image header,
 * SBI numbers and dbcn_write, which writes a0 bytes at a1 through the SBI
 * debug console, again and again until all are taken (a console write
 * may take part of a buffer, or nothing while the VMM's output waits).
 * They run with the MMU off at RAM + 2 MiB and are position independent;
 * the Makefile keeps only .text, so data they change lives there too.
 */
#define SBI_DBCN		0x4442434e
#define SBI_SRST		0x53525354
#define SRST_SHUTDOWN		0
#define SRST_COLD_REBOOT	1

	.macro	image_header
	.option norelax
	.section .text
	.globl _start
_start:
	/* Documentation/arch/riscv/boot-image-header.rst */
	j	entry			/* code0 */
	.balign 4
	.word	0			/* code1 */
	.dword	0x200000		/* text_offset */
	.dword	image_end - _start	/* image_size */
	.dword	0			/* flags */
	.word	2			/* version 0.2 */
	.word	0			/* res1 */
	.dword	0			/* res2 */
	.ascii	"RISCV\0\0\0"		/* magic (deprecated) */
	.ascii	"RSC\x05"		/* magic2 */
	.word	0			/* res3 */
	.endm

	/* SRST with type \type; never returns. */
	.macro	srst type
	li	a7, SBI_SRST
	li	a6, 0
	li	a0, \type
	li	a1, 0
	ecall
99:	wfi
	j	99b
	.endm

	/* dbcn_write: a0 bytes at a1; clobbers a0-a2, a6, a7, t0, t1. */
	.macro	dbcn_write_fn
dbcn_write:
	mv	t0, a0
	mv	t1, a1
1:	beqz	t0, 2f
	mv	a0, t0
	mv	a1, t1
	li	a2, 0
	li	a7, SBI_DBCN
	li	a6, 0
	ecall
	bnez	a0, 2f			/* an error: give up */
	sub	t0, t0, a1
	add	t1, t1, a1
	j	1b
2:	ret
	.endm

	/* puts: the NUL-terminated string at a1. */
	.macro	puts_fn
puts:
	mv	a0, zero
3:	add	t0, a1, a0
	lbu	t0, 0(t0)
	beqz	t0, 4f
	addi	a0, a0, 1
	j	3b
4:	j	dbcn_write
	.endm

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sbi-probe: a bare-metal guest in RISC-V Image format for lkvm.  It makes
 * SBI calls nobody implements and checks that each returns NOT_SUPPORTED
 * and that it keeps running, writes through DBCN (in RAM and outside RAM),
 * then powers off through SRST.  Its output is the test's marker:
 *   "sbi-probe: unknown OK" (or FAIL), then
 *   "sbi-probe: dbcn-bad OK" / "... FAIL", then "sbi-probe: done".
 * Runs with the MMU off at RAM + 2 MiB; position independent.
 */
#define SBI_LEGACY_PUTCHAR	0x01
#define SBI_DBCN		0x4442434e
#define SBI_SRST		0x53525354
#define SBI_ERR_NOT_SUPPORTED	-2
#define SBI_ERR_INVALID_PARAM	-3

	.option norelax
	.section .text
	.globl _start
_start:
	/* Image header (Documentation/arch/riscv/boot-image-header.rst) */
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

entry:
	li	s0, 0			/* failures */
	/* Experimental, vendor, firmware and unassigned extensions. */
	li	a7, 0x08000123
	call	probe
	li	a7, 0x09000042
	call	probe
	li	a7, 0x0a000001
	call	probe
	li	a7, 0x12345678
	call	probe
	/* Unknown function of an extension lkvm implements (DBCN). */
	li	a7, SBI_DBCN
	li	a6, 7
	ecall
	li	t0, SBI_ERR_NOT_SUPPORTED
	beq	a0, t0, 1f
	addi	s0, s0, 1
1:	lla	a1, msg_unknown
	call	dbcn_puts
	bnez	s0, 2f
	lla	a1, msg_ok
	j	3f
2:	lla	a1, msg_fail
3:	call	dbcn_puts

	/* DBCN write from a buffer outside RAM: INVALID_PARAM. */
	li	a7, SBI_DBCN
	li	a6, 0
	li	a0, 16
	li	a1, 0x1000
	li	a2, 0
	ecall
	li	t0, SBI_ERR_INVALID_PARAM
	lla	a1, msg_dbcn_bad
	mv	s1, a0
	call	dbcn_puts
	lla	a1, msg_ok
	beq	s1, t0, 4f
	lla	a1, msg_fail
4:	call	dbcn_puts
	lla	a1, msg_done
	call	dbcn_puts

	/* SRST shutdown, no reason. */
	li	a7, SBI_SRST
	li	a6, 0
	li	a0, 0
	li	a1, 0
	ecall
5:	wfi
	j	5b

/* probe: ecall with a7 as set, fid 0; count a non-NOT_SUPPORTED result. */
probe:
	li	a6, 0
	li	a0, 0
	ecall
	li	t0, SBI_ERR_NOT_SUPPORTED
	beq	a0, t0, 1f
	addi	s0, s0, 1
1:	ret

/* dbcn_puts: write the NUL-terminated string at a1 with DBCN write. */
dbcn_puts:
	mv	t1, a1
	li	a0, 0
1:	add	t2, t1, a0
	lbu	t2, 0(t2)
	beqz	t2, 2f
	addi	a0, a0, 1
	j	1b
2:	mv	a1, t1
	li	a2, 0
	li	a7, SBI_DBCN
	li	a6, 0
	ecall
	ret

	/* Strings stay in .text: one contiguous image. */
msg_unknown:	.asciz	"sbi-probe: unknown "
msg_dbcn_bad:	.asciz	"sbi-probe: dbcn-bad "
msg_ok:		.asciz	"OK\n"
msg_fail:	.asciz	"FAIL\n"
msg_done:	.asciz	"sbi-probe: done\n"
	.balign 8
image_end:

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bm-flood: writes "line 000000" .. "line 011999" (12 bytes each, 144 000
 * bytes: more than lkvm's 64 KiB console buffer and a pipe's 64 KiB
 * together), 100 lines to a console write, then "bm-flood: last line"
 * and powers off at once.  A console log must hold every line.
 */
#include "bm.inc"

#define LINES	12000
#define PER	100
#define LLEN	12

	image_header
entry:
	li	s0, LINES / PER		/* chunks to go */
1:	lla	s1, chunk
	li	s2, PER
2:	/* copy the current line into the chunk, then count it up */
	lla	t0, line
	li	t1, LLEN
3:	lbu	t2, 0(t0)
	sb	t2, 0(s1)
	addi	t0, t0, 1
	addi	s1, s1, 1
	addi	t1, t1, -1
	bnez	t1, 3b
	call	count
	addi	s2, s2, -1
	bnez	s2, 2b
	li	a0, PER * LLEN
	lla	a1, chunk
	call	dbcn_write
	addi	s0, s0, -1
	bnez	s0, 1b
	lla	a1, last
	call	puts
	srst	SRST_SHUTDOWN

/* count: add one to the six digits of line (at offset 5). */
count:
	lla	t0, line + 10
	li	t3, '9'
4:	lbu	t2, 0(t0)
	bne	t2, t3, 5f
	li	t2, '0'
	sb	t2, 0(t0)
	addi	t0, t0, -1
	j	4b
5:	addi	t2, t2, 1
	sb	t2, 0(t0)
	ret

	dbcn_write_fn
	puts_fn
line:	.ascii	"line 000000\n"
last:	.asciz	"bm-flood: last line\n"
	.balign 8
chunk:	.skip	PER * LLEN
	.balign 8
image_end:

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bm-hang: a guest that hangs with its interrupts off, after one line
 * ("bm-hang: interrupts off, spinning"); only a VMM-side timeout ends it.
 * bm-spin.S is the same without the line.
 */
#include "bm.inc"

	image_header
entry:
	csrci	sstatus, 0x2		/* SIE off */
	csrw	sie, zero
#ifndef BM_QUIET
	lla	a1, msg
	call	puts
#endif
1:	j	1b

	dbcn_write_fn
	puts_fn
msg:	.asciz	"bm-hang: interrupts off, spinning\n"
	.balign 8
image_end:

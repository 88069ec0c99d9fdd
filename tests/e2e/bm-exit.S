/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bm-exit: a test image the way kvm-unit-tests' are run: it prints its
 * result and "EXIT: STATUS=1" (kvm-unit-tests' success, status << 1 | 1)
 * and powers off, and its runner reads the result from the console.
 */
#include "bm.inc"

	image_header
entry:
	lla	a1, msg
	call	puts
	srst	SRST_SHUTDOWN

	dbcn_write_fn
	puts_fn
msg:	.asciz	"PASS: bm-exit\nSUMMARY: 1 tests\n\nEXIT: STATUS=1\n"
	.balign 8
image_end:

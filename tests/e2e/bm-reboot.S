/* SPDX-License-Identifier: GPL-2.0 */
/* bm-reboot: says "bm-reboot: boot" and asks for a reboot, at every boot. */
#include "bm.inc"

	image_header
entry:
	lla	a1, msg
	call	puts
	srst	SRST_COLD_REBOOT

	dbcn_write_fn
	puts_fn
msg:	.asciz	"bm-reboot: boot\n"
	.balign 8
image_end:

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SBI calls that KVM forwards to user space (KVM_EXIT_RISCV_SBI).
 *
 * Linux 6.12 handles BASE, TIME, IPI, RFENCE, SRST, HSM, PMU and STA itself
 * and forwards only: the legacy v0.1 console putchar/getchar (EIDs 0x01 and
 * 0x02, when the host has CONFIG_RISCV_SBI_V01), the debug console DBCN
 * (once enabled through ONE_REG), and the experimental and vendor EID
 * ranges.  KVM presets ret[0] = SBI_ERR_NOT_SUPPORTED and ret[1] = 0; on the
 * next KVM_RUN it loads a0 = ret[0], a1 = ret[1] and steps over the ECALL.
 *
 * This module is pure C with no KVM headers.  The vCPU loop copies
 * kvm_run->riscv_sbi (extension_id, function_id, args, ret) into a
 * struct sbi_call, calls sbi_handle() and copies ret back.
 *
 * Whatever the guest passes, sbi_handle() returns with an SBI result in
 * ret[] and the vCPU goes on running: unsupported calls get
 * SBI_ERR_NOT_SUPPORTED and one log line per kind of call.
 *
 * Results:
 *  - legacy putchar: a0 = 0 (the low byte of a0 is written).
 *  - legacy getchar: a0 = the byte (0..255) or -1 when there is no input.
 *  - legacy calls preserve a1 (SBI v2.0 chapter 5: only a0 changes), so
 *    ret[1] is set to args[1].
 *  - DBCN console_write/console_read: ret[0] = SBI_SUCCESS and ret[1] = the
 *    number of bytes written/read (a write takes at most
 *    SBI_DBCN_WRITE_MAX bytes, and fewer, even 0, while the console's
 *    output is backed up: §12.1 allows partial writes, and Linux's hvc
 *    driver retries the rest), or SBI_ERR_INVALID_PARAM and ret[1] = 0
 *    when the buffer is not entirely in guest RAM (then guest memory and
 *    console input are not touched).  num_bytes == 0 succeeds with 0 bytes
 *    whatever the address.  Reads never block.
 *  - DBCN console_write_byte: SBI_SUCCESS, ret[1] = 0.
 *  - anything else: SBI_ERR_NOT_SUPPORTED, ret[1] = 0.
 *
 * sbi_handle() may run on several vCPU threads at once; it keeps no state
 * of its own (apart from the log-once flags), so the console callbacks must
 * be thread-safe.
 */
#ifndef RVKVM_SBI_H
#define RVKVM_SBI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/guest_mem.h"

/* Standard SBI error codes (SBI v2.0 chapter 3, "Standard SBI Errors"). */
#define SBI_SUCCESS 0
#define SBI_ERR_FAILED (-1)
#define SBI_ERR_NOT_SUPPORTED (-2)
#define SBI_ERR_INVALID_PARAM (-3)
#define SBI_ERR_DENIED (-4)
#define SBI_ERR_INVALID_ADDRESS (-5)

/* Legacy v0.1 extensions: EIDs 0x00..0x0f, the FID is ignored. */
#define SBI_EXT_0_1_CONSOLE_PUTCHAR 0x01UL
#define SBI_EXT_0_1_CONSOLE_GETCHAR 0x02UL
#define SBI_EXT_0_1_LAST 0x0fUL

/* Debug console, "DBCN" (SBI v2.0, chapter 12). */
#define SBI_EXT_DBCN 0x4442434eUL
#define SBI_EXT_DBCN_CONSOLE_WRITE 0UL
#define SBI_EXT_DBCN_CONSOLE_READ 1UL
#define SBI_EXT_DBCN_CONSOLE_WRITE_BYTE 2UL
/* Bytes written per console_write call at most (the guest loops). */
#define SBI_DBCN_WRITE_MAX 4096UL

/* System suspend: what KVM forwards once it has checked the call. */
#define SBI_EXT_SUSP 0x53555350UL
#define SBI_EXT_SUSP_SYSTEM_SUSPEND 0UL

/* EID ranges KVM forwards as a whole. */
#define SBI_EXT_EXPERIMENTAL_START 0x08000000UL
#define SBI_EXT_EXPERIMENTAL_END 0x08ffffffUL
#define SBI_EXT_VENDOR_START 0x09000000UL
#define SBI_EXT_VENDOR_END 0x09ffffffUL
#define SBI_EXT_FIRMWARE_START 0x0a000000UL
#define SBI_EXT_FIRMWARE_END 0x0affffffUL

/* One forwarded call: the fields of kvm_run->riscv_sbi. */
struct sbi_call {
	unsigned long ext;     /* a7 */
	unsigned long fid;     /* a6 */
	unsigned long args[6]; /* a0..a5 */
	long ret[2];	       /* out: a0 (error or legacy value), a1 */
};

/* Console backend, injected.  Either callback may be NULL. */
struct sbi_console {
	/*
	 * Output; may be called with a buffer in guest RAM.  Returns the
	 * bytes taken, a prefix of buf.  partial: the caller can report a
	 * short count to the guest (DBCN console_write), so a full console
	 * may take less; otherwise (legacy putchar, DBCN write_byte) the
	 * console takes all, dropping what it has no room for.
	 */
	size_t (*write)(void *opaque, const uint8_t *buf, size_t len,
			bool partial);
	/*
	 * Non-blocking input: store up to len bytes in buf (which may be
	 * guest RAM) and return how many, 0 when no input is waiting.
	 */
	size_t (*read)(void *opaque, uint8_t *buf, size_t len);
	void *opaque;
};

struct sbi_ctx {
	const struct guest_mem *mem;	   /* NULL: no DBCN buffers */
	const struct sbi_console *console; /* NULL: output dropped */
};

/* Handle one call; sets call->ret[0] and call->ret[1].  Always returns. */
void sbi_handle(const struct sbi_ctx *ctx, struct sbi_call *call);

/*
 * Name of an extension for log messages: "legacy console", "legacy",
 * "DBCN", "BASE", ..., "experimental", "vendor", "firmware" or "unknown".
 * Never NULL.
 */
const char *sbi_ext_name(unsigned long ext);

#endif

// SPDX-License-Identifier: GPL-2.0
/*
 * SBI calls forwarded by KVM: the legacy console, DBCN, and
 * SBI_ERR_NOT_SUPPORTED for everything else.  See sbi.h.
 */
#include <stdbool.h>

#include "lib/guest_mem.h"
#include "lib/log.h"
#include "vmm/kvm/sbi.h"

struct sbi_ext_desc {
	unsigned long first, last;
	const char *name;
};

/* SBI v2.0 EIDs; the legacy console entry must precede "legacy". */
static const struct sbi_ext_desc sbi_ext_descs[] = {
	{ SBI_EXT_0_1_CONSOLE_PUTCHAR, SBI_EXT_0_1_CONSOLE_GETCHAR,
	  "legacy console" },
	{ 0x00, SBI_EXT_0_1_LAST, "legacy" },
	{ 0x10, 0x10, "BASE" },
	{ 0x54494d45, 0x54494d45, "TIME" },
	{ 0x735049, 0x735049, "IPI" },
	{ 0x52464e43, 0x52464e43, "RFENCE" },
	{ 0x48534d, 0x48534d, "HSM" },
	{ 0x53525354, 0x53525354, "SRST" },
	{ 0x504d55, 0x504d55, "PMU" },
	{ SBI_EXT_DBCN, SBI_EXT_DBCN, "DBCN" },
	{ 0x53555350, 0x53555350, "SUSP" },
	{ 0x43505043, 0x43505043, "CPPC" },
	{ 0x4e41434c, 0x4e41434c, "NACL" },
	{ 0x535441, 0x535441, "STA" },
	{ SBI_EXT_EXPERIMENTAL_START, SBI_EXT_EXPERIMENTAL_END,
	  "experimental" },
	{ SBI_EXT_VENDOR_START, SBI_EXT_VENDOR_END, "vendor" },
	{ SBI_EXT_FIRMWARE_START, SBI_EXT_FIRMWARE_END, "firmware" },
};

const char *sbi_ext_name(unsigned long ext)
{
	size_t n = sizeof(sbi_ext_descs) / sizeof(sbi_ext_descs[0]);

	for (size_t i = 0; i < n; i++)
		if (ext >= sbi_ext_descs[i].first &&
		    ext <= sbi_ext_descs[i].last)
			return sbi_ext_descs[i].name;
	return "unknown";
}

static bool sbi_ext_in(unsigned long ext, unsigned long first,
		       unsigned long last)
{
	return ext >= first && ext <= last;
}

/* Bytes the console took; without a console output is dropped. */
static size_t sbi_con_write(const struct sbi_ctx *ctx, const uint8_t *buf,
			    size_t len, bool partial)
{
	const struct sbi_console *con = ctx->console;
	size_t n;

	if (!con || !con->write || !len)
		return len;
	n = con->write(con->opaque, buf, len, partial);
	return n < len ? n : len;
}

static size_t sbi_con_read(const struct sbi_ctx *ctx, uint8_t *buf, size_t len)
{
	const struct sbi_console *con = ctx->console;
	size_t n;

	if (!con || !con->read || !len)
		return 0;
	n = con->read(con->opaque, buf, len);
	return n < len ? n : len;
}

static void sbi_set_ret(struct sbi_call *call, long error, long value)
{
	call->ret[0] = error;
	call->ret[1] = value;
}

/*
 * DBCN passes the buffer's physical address as two XLEN-wide halves
 * (SBI v2.0 §12.1, §12.2): base_addr_hi holds the bits above XLEN.  On RV64
 * a nonzero base_addr_hi thus means an address of 2^64 or more, which is
 * never guest RAM; only on RV32 do the halves make a 64-bit address.
 */
static bool sbi_dbcn_addr(unsigned long lo, unsigned long hi, uint64_t *addr)
{
	if (sizeof(unsigned long) < sizeof(uint64_t)) {
		*addr = (uint64_t)lo | (uint64_t)hi << 32;
		return true;
	}
	*addr = lo;
	return hi == 0;
}

/*
 * Host pointer to the num_bytes (args[0]) buffer at args[1]/args[2], or
 * NULL unless all of it is guest RAM.
 */
static uint8_t *sbi_dbcn_buf(const struct sbi_ctx *ctx,
			     const struct sbi_call *call)
{
	uint64_t addr;

	if (!ctx->mem || !sbi_dbcn_addr(call->args[1], call->args[2], &addr))
		return NULL;
	return guest_mem_ptr(ctx->mem, addr, call->args[0]);
}

/*
 * console_write (FID 0) and console_read (FID 1).  SBI v2.0 §12.1 and §12.2
 * ("Debug Console Write/Read Errors" tables): SBI_ERR_INVALID_PARAM when
 * the memory given by num_bytes, base_addr_lo and base_addr_hi does not meet
 * the requirements of §3.2 "Shared memory physical address range parameter"
 * (S-mode must be allowed to access the whole range).  Later revisions of
 * §3.2 also mention SBI_ERR_INVALID_ADDRESS for inaccessible addresses, but
 * the DBCN tables, which are specific, keep SBI_ERR_INVALID_PARAM.
 * A zero-length range contains no address, so it always succeeds.
 */
static void sbi_dbcn_rw(const struct sbi_ctx *ctx, struct sbi_call *call,
			bool write)
{
	size_t len = call->args[0];
	uint8_t *buf;
	size_t n;

	if (!len) {
		sbi_set_ret(call, SBI_SUCCESS, 0);
		return;
	}
	buf = sbi_dbcn_buf(ctx, call);
	if (!buf) {
		pr_guest_once(
			"SBI DBCN console_%s of %#lx bytes at %#lx (hi %#lx) is not in RAM",
			write ? "write" : "read", call->args[0], call->args[1],
			call->args[2]);
		sbi_set_ret(call, SBI_ERR_INVALID_PARAM, 0);
		return;
	}
	if (write) {
		/* A partial write is allowed; it bounds a vCPU's time here. */
		n = len < SBI_DBCN_WRITE_MAX ? len : SBI_DBCN_WRITE_MAX;
		n = sbi_con_write(ctx, buf, n, true);
	} else {
		n = sbi_con_read(ctx, buf, len);
	}
	sbi_set_ret(call, SBI_SUCCESS, (long)n);
}

static void sbi_dbcn(const struct sbi_ctx *ctx, struct sbi_call *call)
{
	uint8_t byte;

	switch (call->fid) {
	case SBI_EXT_DBCN_CONSOLE_WRITE:
		sbi_dbcn_rw(ctx, call, true);
		break;
	case SBI_EXT_DBCN_CONSOLE_READ:
		sbi_dbcn_rw(ctx, call, false);
		break;
	case SBI_EXT_DBCN_CONSOLE_WRITE_BYTE:
		byte = (uint8_t)call->args[0];
		sbi_con_write(ctx, &byte, 1, false);
		sbi_set_ret(call, SBI_SUCCESS, 0);
		break;
	default:
		pr_guest_once("SBI DBCN (ext %#lx) fid %#lx not supported",
			      call->ext, call->fid);
		sbi_set_ret(call, SBI_ERR_NOT_SUPPORTED, 0);
	}
}

/* Legacy calls: only a0 changes, a1 keeps its value (SBI v2.0 chapter 5). */
static void sbi_legacy_putchar(const struct sbi_ctx *ctx, struct sbi_call *call)
{
	uint8_t c = (uint8_t)call->args[0];

	sbi_con_write(ctx, &c, 1, false);
	sbi_set_ret(call, 0, (long)call->args[1]);
}

static void sbi_legacy_getchar(const struct sbi_ctx *ctx, struct sbi_call *call)
{
	uint8_t c;
	long v = sbi_con_read(ctx, &c, 1) ? c : -1;

	sbi_set_ret(call, v, (long)call->args[1]);
}

/* One log call site per category, so each is reported once. */
static void sbi_unsupported(struct sbi_call *call)
{
	const char *name = sbi_ext_name(call->ext);
	unsigned long ext = call->ext, fid = call->fid;

	if (sbi_ext_in(ext, SBI_EXT_EXPERIMENTAL_START,
		       SBI_EXT_EXPERIMENTAL_END))
		pr_guest_once("SBI %s ext %#lx fid %#lx not supported", name,
			      ext, fid);
	else if (sbi_ext_in(ext, SBI_EXT_VENDOR_START, SBI_EXT_VENDOR_END))
		pr_guest_once("SBI %s ext %#lx fid %#lx not supported", name,
			      ext, fid);
	else
		pr_guest_once("SBI %s ext %#lx fid %#lx not supported", name,
			      ext, fid);
	sbi_set_ret(call, SBI_ERR_NOT_SUPPORTED, 0);
	if (ext <= SBI_EXT_0_1_LAST)
		call->ret[1] = (long)call->args[1];
}

void sbi_handle(const struct sbi_ctx *ctx, struct sbi_call *call)
{
	switch (call->ext) {
	case SBI_EXT_0_1_CONSOLE_PUTCHAR:
		sbi_legacy_putchar(ctx, call);
		break;
	case SBI_EXT_0_1_CONSOLE_GETCHAR:
		sbi_legacy_getchar(ctx, call);
		break;
	case SBI_EXT_DBCN:
		sbi_dbcn(ctx, call);
		break;
	default:
		sbi_unsupported(call);
	}
}

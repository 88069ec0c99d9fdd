// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz sbi_handle() with one forwarded SBI call per input.
 *
 * Input layout (missing bytes read as zero):
 *   u8      extension: index into fuzz_exts[], or the last index = raw u64
 *   u8      function: < 0xf0 -> value % 4, else raw u64
 *   6 x     argument: u8 mode, then  0: raw u64  1: u16  2: an address
 *           near RAM (u32)  3: ULONG_MAX - u8
 *   u16     number of console input bytes, which follow
 *   rest    initial guest RAM contents
 */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/guest_mem.h"
#include "lib/log.h"
#include "vmm/kvm/sbi.h"

#define FUZZ_RAM_BASE 0x80000000UL
#define FUZZ_RAM_SIZE 0x10000UL

struct fuzz_in {
	const uint8_t *p;
	size_t n;
};

struct fuzz_console {
	const uint8_t *in;
	size_t in_len;
	size_t written;
	size_t taken; /* what the console said it took */
	uint8_t sum;
};

static uint8_t fuzz_ram[FUZZ_RAM_SIZE];

static const unsigned long fuzz_exts[] = {
	0x00,
	SBI_EXT_0_1_CONSOLE_PUTCHAR,
	SBI_EXT_0_1_CONSOLE_GETCHAR,
	0x08,
	SBI_EXT_0_1_LAST,
	0x10,
	SBI_EXT_DBCN,
	SBI_EXT_DBCN,
	SBI_EXT_DBCN,
	SBI_EXT_DBCN | 1UL << 32,
	SBI_EXT_EXPERIMENTAL_START,
	SBI_EXT_EXPERIMENTAL_END,
	SBI_EXT_VENDOR_START,
	SBI_EXT_VENDOR_END,
	SBI_EXT_FIRMWARE_START,
	ULONG_MAX,
};

#define FUZZ_NR_EXTS (sizeof(fuzz_exts) / sizeof(fuzz_exts[0]))

static uint64_t fuzz_take(struct fuzz_in *in, unsigned int bytes)
{
	uint64_t v = 0;

	for (unsigned int i = 0; i < bytes && in->n; i++) {
		v |= (uint64_t)in->p[0] << (8 * i);
		in->p++;
		in->n--;
	}
	return v;
}

static unsigned long fuzz_arg(struct fuzz_in *in)
{
	switch (fuzz_take(in, 1) % 4) {
	case 0:
		return fuzz_take(in, 8);
	case 1:
		return fuzz_take(in, 2);
	case 2:
		return FUZZ_RAM_BASE - 0x100 +
		       fuzz_take(in, 4) % (FUZZ_RAM_SIZE + 0x200);
	default:
		return ULONG_MAX - fuzz_take(in, 1);
	}
}

static int fuzz_in_ram(const uint8_t *buf, size_t len)
{
	return buf >= fuzz_ram && len <= FUZZ_RAM_SIZE &&
	       (size_t)(buf - fuzz_ram) <= FUZZ_RAM_SIZE - len;
}

static size_t fuzz_write(void *opaque, const uint8_t *buf, size_t len,
			 bool partial)
{
	struct fuzz_console *fc = opaque;
	size_t n;

	/* A byte from the stack (legacy putchar) or a buffer in RAM. */
	if (len > 1 && !fuzz_in_ram(buf, len))
		abort();
	for (size_t i = 0; i < len; i++)
		fc->sum += buf[i];

	fc->written += len;
	/* a console that is backed up takes less, even nothing */
	n = partial ? len - (fc->sum % (len + 1)) : len;
	fc->taken += n;
	return n;
}

static size_t fuzz_read(void *opaque, uint8_t *buf, size_t len)
{
	struct fuzz_console *fc = opaque;
	size_t n = fc->in_len < len ? fc->in_len : len;

	if (len > 1 && !fuzz_in_ram(buf, len))
		abort();
	if (n) {
		memcpy(buf, fc->in, n);
		fc->in += n;
		fc->in_len -= n;
	}
	return n;
}

/* DBCN results: error implies nothing done; counts match what was done. */
static void fuzz_check_dbcn(const struct sbi_call *c, unsigned long len,
			    size_t written, size_t taken)
{
	if (c->ret[0] != SBI_SUCCESS) {
		if (c->ret[1] != 0 || written != 0)
			abort();
		return;
	}
	switch (c->fid) {
	case SBI_EXT_DBCN_CONSOLE_WRITE:
		if (len > SBI_DBCN_WRITE_MAX)
			len = SBI_DBCN_WRITE_MAX;
		if (written != len || (unsigned long)c->ret[1] != taken)
			abort();
		break;
	case SBI_EXT_DBCN_CONSOLE_READ:
		if ((unsigned long)c->ret[1] > len || written != 0)
			abort();
		break;
	default:
		if (c->ret[1] != 0 || written != 1)
			abort();
	}
}

static void fuzz_check(const struct sbi_call *c, const struct sbi_call *orig,
		       size_t written, size_t taken)
{
	long err = c->ret[0];

	if (c->ext == SBI_EXT_0_1_CONSOLE_GETCHAR) {
		if (err < -1 || err > 255)
			abort();
	} else if (err > SBI_SUCCESS || err < SBI_ERR_INVALID_ADDRESS) {
		abort();
	}
	if (c->ext == SBI_EXT_DBCN) {
		fuzz_check_dbcn(c, orig->args[0], written, taken);
		return;
	}
	if (written > 1)
		abort();
	if (c->ext <= SBI_EXT_0_1_LAST) {
		if (c->ret[1] != (long)orig->args[1])
			abort();
	} else if (err != SBI_ERR_NOT_SUPPORTED || c->ret[1] != 0) {
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size };
	struct fuzz_console fc = { 0 };
	const struct guest_mem mem = {
		.base = FUZZ_RAM_BASE,
		.size = FUZZ_RAM_SIZE,
		.host = fuzz_ram,
	};
	const struct sbi_console con = {
		.write = fuzz_write,
		.read = fuzz_read,
		.opaque = &fc,
	};
	const struct sbi_ctx ctx = { .mem = &mem, .console = &con };
	struct sbi_call call = { .ret = { SBI_ERR_NOT_SUPPORTED, 0 } };
	struct sbi_call orig;
	unsigned int sel, fsel;
	size_t n;

	log_level = -1;
	sel = fuzz_take(&in, 1) % (FUZZ_NR_EXTS + 1);
	call.ext = sel < FUZZ_NR_EXTS ? fuzz_exts[sel] : fuzz_take(&in, 8);
	fsel = fuzz_take(&in, 1);
	call.fid = fsel < 0xf0 ? fsel % 4 : fuzz_take(&in, 8);
	for (int i = 0; i < 6; i++)
		call.args[i] = fuzz_arg(&in);

	n = fuzz_take(&in, 2);
	fc.in = in.p;
	fc.in_len = n < in.n ? n : in.n;
	in.p += fc.in_len;
	in.n -= fc.in_len;

	memset(fuzz_ram, 0, sizeof(fuzz_ram));
	if (in.n)
		memcpy(fuzz_ram, in.p,
		       in.n < FUZZ_RAM_SIZE ? in.n : FUZZ_RAM_SIZE);

	orig = call;
	sbi_handle(&ctx, &call);
	fuzz_check(&call, &orig, fc.written, fc.taken);
	return 0;
}

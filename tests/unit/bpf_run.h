/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A classic BPF interpreter for the unit tests: runs a seccomp filter
 * (as libseccomp exports it) on one struct seccomp_data and counts the
 * instructions it executed, the cost the kernel pays per system call
 * when it interprets the filter (no BPF JIT: Linux's default on riscv64).
 * Refuses what a seccomp filter cannot do (packet loads, out-of-range
 * scratch slots, running off the end) and what libseccomp does not emit
 * (arithmetic other than AND) instead of guessing.
 */
#ifndef RVKVM_TEST_BPF_RUN_H
#define RVKVM_TEST_BPF_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

struct bpf_result {
	bool ok;	  /* the program ran to a return */
	uint32_t ret;	  /* its SECCOMP_RET_* value */
	unsigned int run; /* instructions executed */
	bool args_read;	  /* it looked past nr and arch */
};

static inline bool bpf_load_word(const struct seccomp_data *d, uint32_t off,
				 uint32_t *v)
{
	if (off % 4 || off + 4 > sizeof(*d))
		return false;
	memcpy(v, (const uint8_t *)d + off, 4);
	return true;
}

static inline bool bpf_cond(uint16_t op, uint32_t a, uint32_t x)
{
	switch (op) {
	case BPF_JEQ:
		return a == x;
	case BPF_JGT:
		return a > x;
	case BPF_JGE:
		return a >= x;
	case BPF_JSET:
		return (a & x) != 0;
	}
	return false;
}

static inline struct bpf_result bpf_run(const struct sock_filter *p, size_t n,
					const struct seccomp_data *d)
{
	struct bpf_result r = { 0 };
	uint32_t a = 0, x = 0, mem[BPF_MEMWORDS] = { 0 };

	for (size_t pc = 0; pc < n; pc++) {
		const struct sock_filter *i = &p[pc];
		uint32_t src = BPF_SRC(i->code) == BPF_X ? x : i->k;

		r.run++;
		switch (BPF_CLASS(i->code)) {
		case BPF_LD:
			if (BPF_MODE(i->code) == BPF_ABS &&
			    BPF_SIZE(i->code) == BPF_W) {
				if (!bpf_load_word(d, i->k, &a))
					return r;
				r.args_read |=
					i->k >= offsetof(struct seccomp_data,
							 instruction_pointer);
			} else if (BPF_MODE(i->code) == BPF_IMM) {
				a = i->k;
			} else if (BPF_MODE(i->code) == BPF_MEM &&
				   i->k < BPF_MEMWORDS) {
				a = mem[i->k];
			} else {
				return r;
			}
			break;
		case BPF_LDX:
			if (BPF_MODE(i->code) == BPF_IMM)
				x = i->k;
			else if (BPF_MODE(i->code) == BPF_MEM &&
				 i->k < BPF_MEMWORDS)
				x = mem[i->k];
			else
				return r;
			break;
		case BPF_ST:
		case BPF_STX:
			if (i->k >= BPF_MEMWORDS)
				return r;
			mem[i->k] = BPF_CLASS(i->code) == BPF_ST ? a : x;
			break;
		case BPF_ALU: /* libseccomp masks arguments, nothing else */
			if (BPF_OP(i->code) != BPF_AND)
				return r;
			a &= src;
			break;
		case BPF_JMP:
			if (BPF_OP(i->code) == BPF_JA) {
				pc += i->k;
			} else {
				if (BPF_OP(i->code) != BPF_JEQ &&
				    BPF_OP(i->code) != BPF_JGT &&
				    BPF_OP(i->code) != BPF_JGE &&
				    BPF_OP(i->code) != BPF_JSET)
					return r;
				pc += bpf_cond(BPF_OP(i->code), a, src) ?
					      i->jt :
					      i->jf;
			}
			break;
		case BPF_RET:
			r.ret = BPF_RVAL(i->code) == BPF_A ? a : i->k;
			r.ok = true;
			return r;
		case BPF_MISC:
			if (BPF_MISCOP(i->code) == BPF_TAX)
				x = a;
			else
				a = x;
			break;
		}
	}
	return r; /* ran off the end: the kernel's checker refuses it */
}

#endif

// SPDX-License-Identifier: GPL-2.0
#include <string.h>

#include "vmm/isa.h"

/* Sized by its entries: a missing or extra one contradicts isa.h. */
const struct ext_name isa_exts[] = {
	{ "a", 0 },
	{ "c", 1 },
	{ "d", 2 },
	{ "f", 3 },
	{ "h", 4 },
	{ "i", 5 },
	{ "m", 6 },
	{ "svpbmt", 7 },
	{ "sstc", 8 },
	{ "svinval", 9 },
	{ "zihintpause", 10 },
	{ "zicbom", 11 },
	{ "zicboz", 12 },
	{ "zbb", 13 },
	{ "ssaia", 14 },
	{ "v", 15 },
	{ "svnapot", 16 },
	{ "zba", 17 },
	{ "zbs", 18 },
	{ "zicntr", 19 },
	{ "zicsr", 20 },
	{ "zifencei", 21 },
	{ "zihpm", 22 },
	{ "smstateen", 23 },
	{ "zicond", 24 },
	{ "zbc", 25 },
	{ "zbkb", 26 },
	{ "zbkc", 27 },
	{ "zbkx", 28 },
	{ "zknd", 29 },
	{ "zkne", 30 },
	{ "zknh", 31 },
	{ "zkr", 32 },
	{ "zksed", 33 },
	{ "zksh", 34 },
	{ "zkt", 35 },
	{ "zvbb", 36 },
	{ "zvbc", 37 },
	{ "zvkb", 38 },
	{ "zvkg", 39 },
	{ "zvkned", 40 },
	{ "zvknha", 41 },
	{ "zvknhb", 42 },
	{ "zvksed", 43 },
	{ "zvksh", 44 },
	{ "zvkt", 45 },
	{ "zfh", 46 },
	{ "zfhmin", 47 },
	{ "zihintntl", 48 },
	{ "zvfh", 49 },
	{ "zvfhmin", 50 },
	{ "zfa", 51 },
	{ "ztso", 52 },
	{ "zacas", 53 },
	{ "sscofpmf", 54 },
	{ "zimop", 55 },
	{ "zca", 56 },
	{ "zcb", 57 },
	{ "zcd", 58 },
	{ "zcf", 59 },
	{ "zcmop", 60 },
	{ "zawrs", 61 },
	{ "smnpm", 62 },
	{ "ssnpm", 63 },
	{ "svade", 64 },
	{ "svadu", 65 },
	{ "svvptc", 66 },
	{ "zabha", 67 },
	{ "ziccrse", 68 },
	{ "zaamo", 69 },
	{ "zalrsc", 70 },
	{ "zicbop", 71 },
	{ "zfbfmin", 72 },
	{ "zvfbfmin", 73 },
	{ "zvfbfwma", 74 },
	{ "zclsd", 75 },
	{ "zilsd", 76 },
	{ "zalasr", 77 },
	{ "zicfilp", 78 },
	{ "zicfiss", 79 },
};

const struct ext_name sbi_exts[] = {
	{ "v01", 0 },	 { "time", 1 },	 { "ipi", 2 },	{ "rfence", 3 },
	{ "srst", 4 },	 { "hsm", 5 },	 { "pmu", 6 },	{ "experimental", 7 },
	{ "vendor", 8 }, { "dbcn", 9 },	 { "sta", 10 }, { "susp", 11 },
	{ "fwft", 12 },	 { "mpxy", 13 },
};

const struct ext_name sbi_ext_aliases[SBI_EXT_ALIAS_COUNT] = {
	{ "legacy", 0 },
};

static int ext_lookup(const struct ext_name *table, unsigned int n,
		      const char *name)
{
	for (unsigned int i = 0; i < n; i++)
		if (!strcmp(table[i].name, name))
			return table[i].id;
	return -1;
}

int isa_ext_lookup(const char *name)
{
	return ext_lookup(isa_exts, ISA_EXT_COUNT, name);
}

int sbi_ext_lookup(const char *name)
{
	int id = ext_lookup(sbi_exts, SBI_EXT_COUNT, name);

	return id >= 0 ? id :
			 ext_lookup(sbi_ext_aliases, SBI_EXT_ALIAS_COUNT, name);
}

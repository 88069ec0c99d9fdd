/* SPDX-License-Identifier: GPL-2.0 */
/* Power-of-two sizes, as unsigned long long. */
#ifndef RVKVM_SIZES_H
#define RVKVM_SIZES_H

#define SZ_4K 0x1000ULL
#define SZ_64K 0x10000ULL
#define SZ_1M 0x100000ULL
#define SZ_2M 0x200000ULL
#define SZ_256M 0x10000000ULL
#define SZ_1G 0x40000000ULL

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/* bm-spin: bm-hang without its line: a guest that never writes anything. */
#define BM_QUIET
#include "bm-hang.S"

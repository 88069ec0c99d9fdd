/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Golden device trees for the unit tests: a built tree is decompiled with
 * dtc and compared with a reviewed .dts file in tests/unit/golden/.
 * Include after <cmocka.h> and <libfdt.h>.
 */
#ifndef RVKVM_TEST_GOLDEN_H
#define RVKVM_TEST_GOLDEN_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * dtc's interrupt_provider check wants #address-cells in every interrupt
 * controller, but the riscv,cpu-intc binding forbids it (Linux's dtbs
 * build does not enable that check either).
 */
#define DTC_CMD "dtc -W no-interrupt_provider -I dtb -O dts %s"

static char *read_all(FILE *f, size_t *len)
{
	size_t cap = 4096, n = 0, got;
	char *buf = malloc(cap + 1);

	assert_non_null(buf);
	while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n == cap) {
			cap *= 2;
			buf = realloc(buf, cap + 1);
			assert_non_null(buf);
		}
	}
	buf[n] = '\0';
	*len = n;
	return buf;
}

static void golden_path(char *path, size_t size, const char *rel)
{
	const char *dir = getenv("RVKVM_SRCDIR");

	if (!dir || !*dir)
		dir = ".";
	assert_true((size_t)snprintf(path, size, "%s/%s", dir, rel) < size);
}

/*
 * Decompiles the blob at 'dtb' with dtc; returns the dts text.  dtc's
 * interrupt_provider check wants #address-cells in every interrupt
 * controller, but the riscv,cpu-intc binding forbids it (Linux's dtbs
 * build does not enable that check either).
 */
static char *decompile(const char *dtb, size_t *len)
{
	char cmd[128], *dts;
	FILE *f;

	assert_true((size_t)snprintf(cmd, sizeof(cmd), DTC_CMD, dtb) <
		    sizeof(cmd));
	f = popen(cmd, "r");
	assert_non_null(f);
	dts = read_all(f, len);
	if (pclose(f) != 0)
		fail_msg("'%s' failed (is device-tree-compiler installed?)",
			 cmd);
	return dts;
}

static void report_mismatch(const char *want, const char *got,
			    const char *golden, const char *dtb)
{
	size_t i = 0, bol = 0;
	unsigned int line = 1;

	for (; want[i] && want[i] == got[i]; i++) {
		if (want[i] == '\n') {
			line++;
			bol = i + 1;
		}
	}
	print_error("fdt: %s differs from the built tree at line %u:\n"
		    "  golden: %.*s\n  built:  %.*s\n"
		    "hint: dtc -I dtb -O dts %s | diff -u %s -\n"
		    "(RVKVM_UPDATE_GOLDEN=1 rewrites the golden file: review "
		    "it, it is the contract)\n",
		    golden, line, (int)strcspn(want + bol, "\n"), want + bol,
		    (int)strcspn(got + bol, "\n"), got + bol, dtb, golden);
}

static void write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

/*
 * dtc 1.6 (Debian 12) writes a NUL inside a property's string as \0
 * ("a\0b"), dtc 1.7 (Debian 13) closes the string there ("a", "b"): both
 * are turned into the former, in place, before golden files and built
 * trees are compared.  An escaped character is copied as it is.
 */
static void canon_strings(char *s, size_t *len)
{
	size_t i, o = 0;

	for (i = 0; i < *len; i++) {
		if (s[i] == '\\' && i + 1 < *len) {
			s[o++] = s[i++];
		} else if (i + 4 <= *len && !memcmp(s + i, "\", \"", 4)) {
			s[o++] = '\\';
			s[i += 3] = '0';
		}
		s[o++] = s[i];
	}
	s[o] = '\0';
	*len = o;
}

/*
 * Decompile the device tree blob fdt and compare it with the golden dts
 * file rel (relative to the repo root, or $RVKVM_SRCDIR); fails the test
 * on a difference.  RVKVM_UPDATE_GOLDEN=1 rewrites the golden file.
 */
static void golden_check(const void *fdt, const char *rel)
{
	char dtb[] = "/tmp/rvkvm-fdt-XXXXXX";
	char golden[4096], *want, *got;
	size_t want_len, got_len;
	bool same;
	FILE *f;
	int fd;

	golden_path(golden, sizeof(golden), rel);
	fd = mkstemp(dtb);
	assert_true(fd >= 0);
	close(fd);
	write_file(dtb, fdt, fdt_totalsize(fdt));
	got = decompile(dtb, &got_len);
	if (getenv("RVKVM_UPDATE_GOLDEN"))
		write_file(golden, got, got_len);
	f = fopen(golden, "r");
	if (!f) {
		unlink(dtb);
		free(got);
		fail_msg("cannot open %s (run from the repo root or set "
			 "RVKVM_SRCDIR)",
			 golden);
	}
	want = read_all(f, &want_len);
	fclose(f);
	canon_strings(want, &want_len);
	canon_strings(got, &got_len);
	same = want_len == got_len && !memcmp(want, got, got_len);
	if (same)
		unlink(dtb);
	else
		report_mismatch(want, got, golden, dtb);
	free(want);
	free(got);
	if (!same)
		fail_msg("device tree differs from %s (blob kept at %s)",
			 golden, dtb);
}

#endif

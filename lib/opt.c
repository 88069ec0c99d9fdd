// SPDX-License-Identifier: GPL-2.0
/* The option engine; see opt.h. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "lib/opt.h"

int opt_err(struct opt_parser *p, const char *fmt, ...)
{
	char line[512], cmd[80] = "";
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	/* One line, whatever the arguments held. */
	for (char *c = line; *c; c++)
		if (iscntrl((unsigned char)*c))
			*c = '?';
	if (p->cmd_in_errors)
		snprintf(cmd, sizeof(cmd), "%s: ", p->cmd);
	fprintf(p->err, "lkvm: error: %s%s", cmd, line);
	if (p->cmd_in_errors)
		fprintf(p->err, " (see 'lkvm %s --help')", p->cmd);
	fputc('\n', p->err);
	return -EINVAL;
}

/* --- setters for the plain cases --------------------------------------- */

int opt_set_string(struct opt_parser *p, const struct opt *o, const char *arg)
{
	*(const char **)opt_field(p, o->field) = arg;
	return 0;
}

int opt_set_path(struct opt_parser *p, const struct opt *o, const char *arg)
{
	if (!arg[0])
		return opt_err(p, "option '%.*s' requires a non-empty argument",
			       p->spelled_len, p->spelled);
	return opt_set_string(p, o, arg);
}

int opt_set_true(struct opt_parser *p, const struct opt *o, const char *arg)
{
	*(bool *)opt_field(p, o->field) = true;
	return 0;
}

int opt_set_refused(struct opt_parser *p, const struct opt *o, const char *arg)
{
	return opt_err(p, "--%s is not supported: %s", o->name, o->why);
}

/* --- option lookup and the argv walk ----------------------------------- */

static const struct opt *find_long(const struct opt_parser *p, const char *name,
				   size_t len, const char **suffix)
{
	const struct opt *o, *end = p->opts + p->nr_opts;

	for (o = p->opts; o < end; o++)
		if (o->name && !o->prefix && strlen(o->name) == len &&
		    !strncmp(o->name, name, len))
			return o;
	for (o = p->opts; o < end; o++) {
		size_t plen = o->name ? strlen(o->name) : 0;

		if (o->prefix && len > plen && !strncmp(o->name, name, plen)) {
			*suffix = name + plen;
			return o;
		}
	}
	return NULL;
}

static const struct opt *find_short(const struct opt_parser *p, char letter)
{
	for (const struct opt *o = p->opts; o < p->opts + p->nr_opts; o++)
		if (o->name && o->letter == letter)
			return o;
	return NULL;
}

static int unknown_opt(struct opt_parser *p)
{
	if (p->cmd_in_errors)
		return opt_err(p, "unknown option '%.*s'", p->spelled_len,
			       p->spelled);
	return opt_err(p, "unknown option '%.*s' (see 'lkvm %s --help')",
		       p->spelled_len, p->spelled, p->cmd);
}

static int missing_arg(struct opt_parser *p, const struct opt *o)
{
	return opt_err(p, "option '%.*s' requires an argument (%s)",
		       p->spelled_len, p->spelled, o->arg);
}

/* "--name", "--name=ARG" or "--name ARG"; *i moves past what it used. */
static int parse_long(struct opt_parser *p, int argc, char **argv, int *i)
{
	const char *name = argv[*i] + 2, *eq = strchr(name, '=');
	size_t len = eq ? (size_t)(eq - name) : strlen(name);
	const char *suffix = NULL;
	const struct opt *o = find_long(p, name, len, &suffix);

	p->spelled = argv[*i];
	p->spelled_len = len + 2 > 256 ? 256 : (int)len + 2;
	if (!o)
		return unknown_opt(p);
	if (!o->arg && eq)
		return opt_err(p, "option '%.*s' takes no argument",
			       p->spelled_len, p->spelled);
	if (!o->arg)
		return o->set(p, o, suffix);
	if (eq)
		return o->set(p, o, eq + 1);
	if (*i + 1 >= argc)
		return missing_arg(p, o);
	return o->set(p, o, argv[++*i]);
}

/* "-x", "-xARG" or "-x ARG". */
static int parse_short(struct opt_parser *p, int argc, char **argv, int *i)
{
	const char *a = argv[*i];
	const struct opt *o = find_short(p, a[1]);

	p->spelled = a;
	p->spelled_len = 2;
	if (!o || (!o->arg && a[2])) {
		p->spelled_len = strnlen(a, 256);
		return unknown_opt(p);
	}
	if (!o->arg)
		return o->set(p, o, NULL);
	if (a[2])
		return o->set(p, o, a + 2);
	if (*i + 1 >= argc)
		return missing_arg(p, o);
	return o->set(p, o, argv[++*i]);
}

static int operand(struct opt_parser *p, char **argv, int i)
{
	if (!p->operand)
		return opt_err(p, "unexpected argument '%s'", argv[i]);
	return p->operand(p, argv, i);
}

int opt_parse(struct opt_parser *p, int argc, char **argv)
{
	bool opts_done = false;
	int ret = 0;

	for (int i = 0; i < argc && !ret; i++) {
		const char *a = argv[i];

		if (opts_done || a[0] != '-' || !a[1])
			ret = operand(p, argv, i);
		else if (p->dashdash && !strcmp(a, "--"))
			opts_done = true;
		else if (a[1] == '-')
			ret = parse_long(p, argc, argv, &i);
		else
			ret = parse_short(p, argc, argv, &i);
	}
	return ret == OPT_ARGS_REST ? 0 : ret;
}

/* --- help -------------------------------------------------------------- */

/* "  -c, --cpus N", "      --name NAME" or "      --disable-EXT". */
static int help_left(char *buf, size_t size, const struct opt *o)
{
	char letter[8] = "    ";
	const char *sep = o->prefix ? "EXT" : o->arg ? " " : "";

	if (o->letter)
		snprintf(letter, sizeof(letter), "-%c, ", o->letter);
	return snprintf(buf, size, "  %s--%s%s%s", letter, o->name, sep,
			o->arg ? o->arg : "");
}

static void help_opt(FILE *out, const struct opt *o, int col)
{
	char left[64];
	int n = help_left(left, sizeof(left), o);

	if (n >= col - 1)
		fprintf(out, "%s\n%*s", left, col, "");
	else
		fprintf(out, "%-*s", col, left);
	for (const char *c = o->help; *c; c++) {
		fputc(*c, out);
		if (*c == '\n')
			fprintf(out, "%*s", col, "");
	}
	fputc('\n', out);
}

void opt_help(FILE *out, const struct opt *opts, size_t n, int col)
{
	for (const struct opt *o = opts; o < opts + n; o++) {
		if (o->name)
			help_opt(out, o, col);
		else
			fprintf(out, "\n%s\n", o->help);
	}
}

/* --- numbers ----------------------------------------------------------- */

#define DEC_DIGITS "0123456789"
#define HEX_DIGITS DEC_DIGITS "abcdefABCDEF"

/*
 * The number in the first @len characters of @s, which hold only digits
 * of @base (so strtoull() sees no spaces, signs or "0x" of its own).
 */
static int parse_digits(const char *s, size_t len, int base, uint64_t *val)
{
	if (!len)
		return -EINVAL;
	errno = 0;
	*val = strtoull(s, NULL, base);
	return errno == ERANGE ? -ERANGE : 0;
}

int opt_parse_u64(const char *s, uint64_t *val)
{
	bool hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	const char *digits = hex ? s + 2 : s;
	size_t len = strspn(digits, hex ? HEX_DIGITS : DEC_DIGITS);

	if (digits[len])
		return -EINVAL;
	return parse_digits(digits, len, hex ? 16 : 10, val);
}

/* kvmtool's size suffixes; none means MiB.  -1: not a suffix. */
static int size_shift(char suffix)
{
	static const char units[] = "bkmgtp";
	const char *u;

	if (!suffix)
		return 20;
	u = strchr(units, tolower((unsigned char)suffix));
	return u ? (int)(u - units) * 10 : -1;
}

/*
 * Decimal, as kvmtool's -m (a leading 0 too: 0512 is 512); "0x" hex as
 * kvmtool's older base-0 -m took it.
 */
static int size_base(const char *s, const char **digits, const char **set)
{
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		*digits = s + 2;
		*set = HEX_DIGITS;
		return 16;
	}
	*digits = s;
	*set = DEC_DIGITS;
	return 10;
}

int opt_parse_size(const char *s, uint64_t *bytes)
{
	const char *digits, *set;
	int base = size_base(s, &digits, &set);
	size_t len = strspn(digits, set);
	const char *end = digits + len;
	int shift = size_shift(end[0]);
	uint64_t n;
	int ret;

	if (!len || shift < 0 || (end[0] && end[1]))
		return -EINVAL;
	ret = parse_digits(digits, len, base, &n);
	if (ret)
		return ret;
	if (n > UINT64_MAX >> shift)
		return -ERANGE;
	*bytes = n << shift;
	return 0;
}

/* --- comma-separated settings ------------------------------------------ */

static int key_apply(const char *s, size_t n, const struct opt_key *keys,
		     size_t nr, void *target)
{
	const char *eq = memchr(s, '=', n);
	size_t klen = eq ? (size_t)(eq - s) : n;

	for (const struct opt_key *k = keys; k < keys + nr; k++) {
		if (strlen(k->key) != klen || strncmp(k->key, s, klen))
			continue;
		if (k->value != !!eq)
			return -ENOENT;
		return eq ? k->set(target, k, eq + 1, n - klen - 1) :
			    k->set(target, k, "", 0);
	}
	return -ENOENT;
}

int opt_keys_parse(const char *spec, const struct opt_key *keys, size_t n,
		   void *target, const char **bad, size_t *bad_len)
{
	for (const char *s = spec; *s;) {
		size_t len = strcspn(s, ",");
		int ret = key_apply(s, len, keys, n, target);

		if (ret) {
			*bad = s;
			*bad_len = len;
			return ret;
		}
		s += len + (s[len] == ',');
	}
	return 0;
}

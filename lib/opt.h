/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The option engine every lkvm command uses: a table of options drives
 * both the parser and the command's --help, so the two cannot disagree.
 *
 *   --name, --name=ARG, --name ARG, -x, -xARG, -x ARG, and '--' to end
 *   the options where the command has operands (.dashdash)
 *   --prefixEXT       an option whose name is a prefix (.prefix): EXT is
 *                     its argument (lkvm run's --disable-EXT)
 *
 * A second, smaller engine reads comma-separated settings such as -d's
 * "IMAGE,ro,queues=4" or -n's "mode=tap,tapif=tap0" against a key table.
 *
 * Errors are one line, "lkvm: error: ...", on the parser's err stream,
 * with control characters made visible; the caller turns -EINVAL into the
 * usage exit status.  Nothing here exits, allocates or keeps state.
 */
#ifndef RVKVM_OPT_H
#define RVKVM_OPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct opt;
struct opt_parser;

/*
 * Called with the option's argument (NULL for a flag; EXT for a prefix
 * option).  0 to go on, -EINVAL having said why (opt_err), or a positive
 * value that ends the parse and is returned (help printed).
 */
typedef int opt_set_fn(struct opt_parser *p, const struct opt *o,
		       const char *arg);

struct opt {
	const char *name; /* long name; NULL: a group title in .help */
	char letter;	  /* short option, 0 if none */
	bool prefix;	  /* --<name>EXT, EXT is passed as arg */
	const char *arg;  /* argument name for --help; NULL: a flag */
	const char *help; /* a '\n' continues in the help column */
	opt_set_fn *set;
	size_t field;	  /* offsetof() in the parser's target, if used */
	size_t flag;	  /* offsetof() of a bool to raise, if used */
	const char *why;  /* opt_set_refused: what lkvm or the host lacks */
	int kind;	  /* the setter's own use */
	const void *data; /* the setter's own use (a list of choices) */
};

/* Arguments that are not options (and all of them after '--'). */
typedef int opt_arg_fn(struct opt_parser *p, char **argv, int i);
/* What an opt_arg_fn returns to end the parse successfully at argv[i]. */
#define OPT_ARGS_REST 0x7fff

struct opt_parser {
	const struct opt *opts;
	size_t nr_opts;
	void *target;	     /* what .field and .flag are offsets into */
	void *ctx;	     /* the command's own parse state */
	FILE *out, *err;     /* help; errors */
	const char *cmd;     /* "run", "stop": named in error messages */
	bool cmd_in_errors;  /* "CMD: MESSAGE (see 'lkvm CMD --help')" */
	opt_arg_fn *operand; /* NULL: any operand is an error */
	bool dashdash;	     /* '--' ends the options (else: unknown) */
	/* The option being parsed, as typed (for messages). */
	const char *spelled;
	int spelled_len;
};

/*
 * Parse argv[0..argc): 0, -EINVAL (said why) or a setter's positive
 * value.  An operand_fn may return OPT_ARGS_REST to stop at its argument
 * (lkvm sandbox's COMMAND); the parse then returns 0.
 */
int opt_parse(struct opt_parser *p, int argc, char **argv);

/* One line "lkvm: error: ..." on p->err; returns -EINVAL. */
int opt_err(struct opt_parser *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* A pointer to the member at offset in p->target. */
static inline void *opt_field(struct opt_parser *p, size_t offset)
{
	return (char *)p->target + offset;
}

/* Setters for the plain cases. */
opt_set_fn opt_set_string;  /* const char * at .field = arg */
opt_set_fn opt_set_path;    /* the same, but not empty */
opt_set_fn opt_set_true;    /* bool at .field = true */
opt_set_fn opt_set_refused; /* "--NAME is not supported: WHY" */

/*
 * Print the table's options as help: "  -x, --name ARG" then its help
 * from column col ('\n' in a help text continues in that column); a group
 * title (name NULL) on a line of its own after an empty one.
 */
void opt_help(FILE *out, const struct opt *opts, size_t n, int col);

/* A decimal or 0x-prefixed hex u64, the whole string: 0, -EINVAL, -ERANGE. */
int opt_parse_u64(const char *s, uint64_t *val);

/*
 * "SIZE[BKMGTP]" to bytes; a bare number is MiB (kvmtool's -m).  Only
 * checks the syntax: -EINVAL for anything but digits and one optional
 * suffix, -ERANGE if the value does not fit in 64 bits.
 */
int opt_parse_size(const char *s, uint64_t *bytes);

/*
 * One key of a comma-separated settings list.  With .value the setting
 * is "key=VALUE" and set gets VALUE (n bytes, not NUL-terminated); without,
 * it is the bare key and set gets an empty value.  set returns 0 or
 * -EINVAL for a bad value.
 */
struct opt_key {
	const char *key;
	bool value;
	int (*set)(void *target, const struct opt_key *k, const char *v,
		   size_t n);
	int kind; /* the setter's own use */
};

/*
 * Apply every setting of spec (comma-separated) to target.  0, or on the
 * first setting that fails: -ENOENT (no such key, or a value where none
 * is taken or none where one is needed) or the setter's -EINVAL, with
 * *bad and *bad_len naming that setting.
 */
int opt_keys_parse(const char *spec, const struct opt_key *keys, size_t n,
		   void *target, const char **bad, size_t *bad_len);

#endif

// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz the 9P2000.L decoder and the confined server (virtio/p9_wire.c,
 * virtio/p9_fs.c) against a temporary directory: base/outside.txt next to
 * the share base/share, which starts with a file, a directory and
 * symlinks that point out of it (absolute, "..", /proc/self/fd).
 *
 * Input: a sequence of messages, each [flags: u8] [len: u16] [len bytes];
 * flags bit 0 patches the message's size field to len (so most messages
 * get past the size check), bit 1 gives the reply buffer only 64 bytes;
 * bit 2 of the first message's flags makes the share read-only.
 * Every input starts with Tversion and Tattach of fid 0 on a server whose
 * fids were reset.  Checked after every message: the reply is inside the
 * buffer and its size field says its length, and nothing outside the
 * share changed (base holds exactly outside.txt and share, and
 * outside.txt is intact).  The share is rebuilt every RESET_EVERY inputs.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/log.h"
#include "virtio/p9_fs.h"

#define RESET_EVERY 2000
#define SECRET "outside-secret"

#define CHECK(cond)                       \
	do {                              \
		if (!(cond))              \
			__builtin_trap(); \
	} while (0)

static char base[64], share[80];
static struct p9_server srv;
static uint8_t resp[P9_MSIZE_MAX];
static unsigned long runs;

static void put_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	CHECK(f);
	fputs(text, f);
	fclose(f);
}

static void tree_build(void)
{
	char p[200], cmd[200];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", share);
	CHECK(!system(cmd));
	CHECK(!mkdir(share, 0755));
	snprintf(p, sizeof(p), "%s/file", share);
	put_file(p, "hello");
	snprintf(p, sizeof(p), "%s/dir", share);
	CHECK(!mkdir(p, 0755));
	snprintf(p, sizeof(p), "%s/abs", share);
	CHECK(!symlink(base, p));
	snprintf(p, sizeof(p), "%s/rel", share);
	CHECK(!symlink("..", p));
	snprintf(p, sizeof(p), "%s/dir/up", share);
	CHECK(!symlink("../..", p));
	snprintf(p, sizeof(p), "%s/fd", share);
	CHECK(!symlink("/proc/self/fd", p));
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char p[200];

	(void)argc;
	(void)argv;
	log_level = LOG_ERR - 1; /* quiet */
	strcpy(base, "/tmp/rvkvm-fuzz-9p-XXXXXX");
	CHECK(mkdtemp(base));
	snprintf(share, sizeof(share), "%s/share", base);
	snprintf(p, sizeof(p), "%s/outside.txt", base);
	put_file(p, SECRET);
	tree_build();
	CHECK(!p9_server_init(&srv, share));
	return 0;
}

/* Nothing outside the share was created, removed or changed. */
static void check_outside(void)
{
	char p[200], buf[64] = "";
	unsigned int n = 0;
	struct dirent *d;
	DIR *dir = opendir(base);
	FILE *f;

	CHECK(dir);
	while ((d = readdir(dir))) {
		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		CHECK(!strcmp(d->d_name, "share") ||
		      !strcmp(d->d_name, "outside.txt"));
		n++;
	}
	closedir(dir);
	CHECK(n == 2);
	snprintf(p, sizeof(p), "%s/outside.txt", base);
	f = fopen(p, "r");
	CHECK(f);
	CHECK(fgets(buf, sizeof(buf), f));
	fclose(f);
	CHECK(!strcmp(buf, SECRET));
}

static void send(const uint8_t *msg, uint32_t len, uint32_t cap)
{
	uint32_t n = p9_server_handle(&srv, msg, len, resp, cap);

	CHECK(n <= cap);
	CHECK(!n || n >= P9_HDR_SIZE);
	CHECK(!n || (resp[0] | resp[1] << 8 | resp[2] << 16 |
		     (uint32_t)resp[3] << 24) == n);
}

static void session_start(void)
{
	static const uint8_t version[] = { 21,	0,   0,	  0,   100, 0,	 0,
					   0,	0,   1,	  0,   8,   0,	 '9',
					   'P', '2', '0', '0', '0', '.', 'L' };
	static const uint8_t attach[] = { 23, 0, 0, 0,	  104,	1,    0,    0,
					  0,  0, 0, 0xff, 0xff, 0xff, 0xff, 0,
					  0,  0, 0, 0,	  0,	0,    0 };

	send(version, sizeof(version), sizeof(resp));
	send(attach, sizeof(attach), sizeof(resp));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t msg[65536 + 8];

	if (++runs % RESET_EVERY == 0) {
		p9_server_reset(&srv);
		tree_build();
	}
	srv.ro = size && (data[0] & 4);
	session_start();
	while (size >= 3) {
		uint8_t flags = data[0];
		uint32_t len = data[1] | data[2] << 8;

		data += 3;
		size -= 3;
		if (len > size)
			len = size;
		memcpy(msg, data, len);
		if ((flags & 1) && len >= 4)
			for (int i = 0; i < 4; i++)
				msg[i] = len >> (8 * i);
		send(msg, len, (flags & 2) ? 64 : sizeof(resp));
		data += len;
		size -= len;
	}
	check_outside();
	return 0;
}

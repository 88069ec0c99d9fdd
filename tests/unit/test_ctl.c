// SPDX-License-Identifier: GPL-2.0
/*
 * The control protocol (encode/decode, the defensive decoders), the
 * control socket (a real server in a temporary HOME: modes, one request
 * per connection, stale sockets, name checks) and the command lines of
 * lkvm list/stop/pause/resume/debug/stat/balloon.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/log.h"
#include "tests/unit/cli_shim.h"
#include "vmm/exit_codes.h"
#include "vmm/ctl/ctl.h"
#include "vmm/ctl/ctl_proto.h"

/* --- protocol ---------------------------------------------------------- */

static void test_request_round_trip(void **state)
{
	struct ctl_request in = { CTL_BALLOON, -1234, -1 }, out;
	uint8_t buf[64];
	int n;

	(void)state;
	n = ctl_encode_request(&in, buf, sizeof(buf));
	assert_int_equal(n, CTL_REQ_HDR + 8);
	assert_int_equal(ctl_decode_request(buf, n, &out), 0);
	assert_int_equal(out.type, CTL_BALLOON);
	assert_int_equal(out.mib, -1234);
	in = (struct ctl_request){ CTL_PAUSE, 99, -1 };
	n = ctl_encode_request(&in, buf, sizeof(buf));
	assert_int_equal(n, CTL_REQ_HDR);
	assert_int_equal(ctl_decode_request(buf, n, &out), 0);
	assert_int_equal(out.type, CTL_PAUSE);
	assert_int_equal(out.mib, 0);
	assert_int_equal(ctl_encode_request(&in, buf, CTL_REQ_HDR - 1),
			 -ENOSPC);
	in.type = CTL_TYPE_END;
	assert_int_equal(ctl_encode_request(&in, buf, sizeof(buf)), -EINVAL);
}

static void test_request_decoder_refuses_bad_messages(void **state)
{
	struct ctl_request in = { CTL_BALLOON, 5, -1 }, out;
	uint8_t buf[64], bad[64];
	int n;

	(void)state;
	n = ctl_encode_request(&in, buf, sizeof(buf));
	for (int len = 0; len < n; len++)
		assert_int_not_equal(ctl_decode_request(buf, len, &out), 0);
	memcpy(bad, buf, n);
	bad[0] ^= 1; /* magic */
	assert_int_equal(ctl_decode_request(bad, n, &out), -EPROTO);
	memcpy(bad, buf, n);
	bad[4] = 2; /* version */
	assert_int_equal(ctl_decode_request(bad, n, &out), -EPROTO);
	memcpy(bad, buf, n);
	bad[6] = 0; /* type 0 */
	assert_int_equal(ctl_decode_request(bad, n, &out), -EINVAL);
	memcpy(bad, buf, n);
	bad[6] = CTL_PAUSE; /* a payload it must not have */
	assert_int_equal(ctl_decode_request(bad, n, &out), -EINVAL);
	memcpy(bad, buf, n);
	bad[8] = 0xff; /* len beyond the message */
	assert_int_equal(ctl_decode_request(bad, n, &out), -EMSGSIZE);
	memcpy(bad, buf, n);
	bad[11] = 0xff; /* len near 4 GiB: no overflow */
	assert_int_equal(ctl_decode_request(bad, n, &out), -EMSGSIZE);
	assert_int_equal(ctl_decode_request(buf, n + 1, &out), -EMSGSIZE);
}

static void test_response_round_trip_and_text_checks(void **state)
{
	static struct ctl_response in, out;
	static uint8_t buf[CTL_MSG_MAX];
	int n;

	(void)state;
	in.type = CTL_STAT;
	in.status = ENODEV;
	ctl_printf(&in, "line %d\n\tnext", 1);
	n = ctl_encode_response(&in, buf, sizeof(buf));
	assert_int_equal(n, CTL_RESP_HDR + in.len);
	assert_int_equal(ctl_decode_response(buf, n, &out), 0);
	assert_int_equal(out.status, ENODEV);
	assert_string_equal(out.text, "line 1\n\tnext");
	/* A terminal escape in the text is refused both ways. */
	buf[CTL_RESP_HDR] = 0x1b;
	assert_int_equal(ctl_decode_response(buf, n, &out), -EINVAL);
	assert_string_equal(out.text, "");
	in.text[0] = 0x1b;
	assert_int_equal(ctl_encode_response(&in, buf, sizeof(buf)), -EINVAL);
	/* A status that is no errno. */
	in.text[0] = 'l';
	in.status = 100000;
	n = ctl_encode_response(&in, buf, sizeof(buf));
	assert_int_equal(ctl_decode_response(buf, n, &out), -EINVAL);
	assert_int_equal(ctl_decode_response(buf, CTL_RESP_HDR - 1, &out),
			 -EMSGSIZE);
}

static void test_printf_truncates_at_the_limit(void **state)
{
	static struct ctl_response r;
	static char big[CTL_TEXT_MAX + 100];

	(void)state;
	memset(big, 'x', sizeof(big) - 1);
	ctl_printf(&r, "%s", big);
	assert_int_equal(r.len, CTL_TEXT_MAX);
	ctl_printf(&r, "more");
	assert_int_equal(r.len, CTL_TEXT_MAX);
	assert_int_equal(r.text[CTL_TEXT_MAX], '\0');
}

static void test_parse_state(void **state)
{
	bool paused;
	long pid;

	(void)state;
	assert_int_equal(ctl_parse_state("123 running", &pid, &paused), 0);
	assert_int_equal(pid, 123);
	assert_false(paused);
	assert_int_equal(ctl_parse_state("7 paused", &pid, &paused), 0);
	assert_true(paused);
	assert_int_equal(ctl_parse_state("7 paused ", &pid, &paused), -EINVAL);
	assert_int_equal(ctl_parse_state(" 7 paused", &pid, &paused), -EINVAL);
	assert_int_equal(ctl_parse_state("0 running", &pid, &paused), -EINVAL);
	assert_int_equal(ctl_parse_state("-3 running", &pid, &paused), -EINVAL);
	assert_int_equal(ctl_parse_state("7running", &pid, &paused), -EINVAL);
	assert_int_equal(ctl_parse_state("", &pid, &paused), -EINVAL);
	assert_int_equal(
		ctl_parse_state("99999999999999999999 running", &pid, &paused),
		-EINVAL);
}

/* --- the socket, in a temporary HOME ----------------------------------- */

static char home[64];

static int home_setup(void **state)
{
	(void)state;
	strcpy(home, "/tmp/rvkvm-test-ctl-XXXXXX");
	if (!mkdtemp(home))
		return -1;
	setenv("HOME", home, 1);
	log_level = -1;
	return 0;
}

static int home_teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", home);
	return system(cmd) ? -1 : 0;
}

static unsigned int handled;

static void echo_handler(void *opaque, const struct ctl_request *req,
			 struct ctl_response *resp)
{
	handled++;
	if (req->type == CTL_STATE)
		ctl_printf(resp, "%d running", (int)(intptr_t)opaque);
	else if (req->type == CTL_BALLOON)
		ctl_printf(resp, "mib %lld", (long long)req->mib);
	else if (req->type == CTL_DUMP) /* write into the passed file */
		ctl_printf(resp, "fd %s",
			   req->fd >= 0 && write(req->fd, "core", 4) == 4 &&
					   !close(req->fd) ?
				   "written" :
				   "none");
	else
		resp->status = EOPNOTSUPP;
}

static void sock_path(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/.lkvm/%s.sock", home, name);
}

static void test_server_answers_and_cleans_up(void **state)
{
	static struct ctl_server s;
	static struct ctl_response resp;
	struct ctl_request req = { CTL_STATE, 0, -1 };
	char path[128], dir[128];
	struct stat st;

	(void)state;
	assert_int_equal(ctl_server_start(&s, "g1", echo_handler,
					  (void *)(intptr_t)4242),
			 0);
	snprintf(dir, sizeof(dir), "%s/.lkvm", home);
	assert_int_equal(stat(dir, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	sock_path(path, sizeof(path), "g1");
	assert_int_equal(stat(path, &st), 0);
	assert_true(S_ISSOCK(st.st_mode));
	assert_int_equal(st.st_mode & 0777, 0600);

	assert_int_equal(ctl_request("g1", &req, &resp), 0);
	assert_int_equal(resp.status, 0);
	assert_string_equal(resp.text, "4242 running");
	req = (struct ctl_request){ CTL_BALLOON, -64, -1 };
	assert_int_equal(ctl_request("g1", &req, &resp), 0);
	assert_string_equal(resp.text, "mib -64");
	req.type = CTL_DEBUG;
	assert_int_equal(ctl_request("g1", &req, &resp), 0);
	assert_int_equal(resp.status, EOPNOTSUPP);

	/* lkvm dump: the client's file reaches the handler (SCM_RIGHTS). */
	{
		char core[160], got[8] = "";
		int fd;

		snprintf(core, sizeof(core), "%s/core", home);
		fd = open(core, O_WRONLY | O_CREAT | O_EXCL, 0600);
		assert_true(fd >= 0);
		req = (struct ctl_request){ CTL_DUMP, 0, fd };
		assert_int_equal(ctl_request("g1", &req, &resp), 0);
		assert_string_equal(resp.text, "fd written");
		close(fd);
		fd = open(core, O_RDONLY);
		assert_int_equal(read(fd, got, sizeof(got)), 4);
		assert_string_equal(got, "core");
		close(fd);
		/* without a file the handler sees none */
		req = (struct ctl_request){ CTL_DUMP, 0, -1 };
		assert_int_equal(ctl_request("g1", &req, &resp), 0);
		assert_string_equal(resp.text, "fd none");
	}

	/* A second lkvm with the same name is refused. */
	static struct ctl_server s2;
	assert_int_equal(ctl_server_start(&s2, "g1", echo_handler, NULL),
			 -EADDRINUSE);

	ctl_server_stop(&s);
	assert_int_equal(stat(path, &st), -1);
	assert_int_equal(ctl_request("g1", &req, &resp), -ENOENT);
}

/* user + system CPU time of process pid in clock ticks. */
static long cpu_ticks(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long ut, st;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	assert_non_null(p);
	/* after "state": ppid ... utime is the 12th field, stime the 13th */
	assert_int_equal(
		sscanf(p + 2,
		       "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu",
		       &ut, &st),
		2);
	return (long)(ut + st);
}

/* The child: serve "fds" with every descriptor taken, until told. */
static void serve_without_fds(int ready, int done)
{
	static struct ctl_server s;
	struct rlimit rl = { 64, 64 };
	char c = 'r';

	if (ctl_server_start(&s, "fds", echo_handler, (void *)(intptr_t)7))
		_exit(1);
	if (setrlimit(RLIMIT_NOFILE, &rl))
		_exit(2);
	while (open("/dev/null", O_RDONLY) >= 0)
		;
	if (errno != EMFILE || write(ready, &c, 1) != 1)
		_exit(3);
	while (read(done, &c, 1) > 0)
		;
	_exit(0);
}

/*
 * A guest that used up lkvm's descriptors does not lock its user out:
 * the control thread answers (it used to spin on EMFILE at 100 % CPU
 * and answer nobody).
 */
static void test_out_of_fds_still_answers(void **state)
{
	static struct ctl_response resp;
	struct ctl_request req = { CTL_STATE, 0, -1 };
	int ready[2], done[2], status;
	long before;
	pid_t pid;
	char c;

	(void)state;
	assert_int_equal(pipe(ready), 0);
	assert_int_equal(pipe(done), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		close(ready[0]);
		close(done[1]);
		serve_without_fds(ready[1], done[0]);
	}
	close(ready[1]);
	close(done[0]);
	assert_int_equal(read(ready[0], &c, 1), 1);
	before = cpu_ticks(pid);
	for (int i = 0; i < 3; i++) {
		memset(&resp, 0, sizeof(resp));
		assert_int_equal(ctl_request("fds", &req, &resp), 0);
		assert_string_equal(resp.text, "7 running");
	}
	usleep(500 * 1000);
	/* idle: well under half the 0.5 s (the spinning thread took all) */
	assert_true(cpu_ticks(pid) - before < sysconf(_SC_CLK_TCK) / 4);
	close(done[1]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	close(ready[0]);
}

static void test_garbage_request_is_dropped(void **state)
{
	static struct ctl_server s;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	uint8_t junk[40] = { 1, 2, 3 };
	unsigned int before = handled;
	char path[128];
	int fd;

	(void)state;
	assert_int_equal(ctl_server_start(&s, "g2", echo_handler, NULL), 0);
	sock_path(path, sizeof(path), "g2");
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(send(fd, junk, sizeof(junk), 0), sizeof(junk));
	assert_int_equal(recv(fd, junk, sizeof(junk), 0), 0); /* closed */
	close(fd);
	assert_int_equal(handled, before);
	ctl_server_stop(&s);
}

/* A socket nobody listens on, as a killed lkvm leaves it. */
static void make_stale(const char *name)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char dir[128];
	int fd;

	snprintf(dir, sizeof(dir), "%s/.lkvm", home);
	mkdir(dir, 0700);
	sock_path(sa.sun_path, sizeof(sa.sun_path), name);
	fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	close(fd);
}

static int count_names(const char *name, void *opaque)
{
	char *seen = opaque;

	strcat(seen, name);
	strcat(seen, ",");
	return 0;
}

static void test_enumerate_removes_stale_sockets(void **state)
{
	static struct ctl_server a, b;
	char seen[256] = "", path[128];
	struct stat st;

	(void)state;
	make_stale("dead");
	assert_int_equal(ctl_server_start(&b, "live-b", echo_handler, NULL), 0);
	assert_int_equal(ctl_server_start(&a, "live-a", echo_handler, NULL), 0);
	assert_int_equal(ctl_enumerate(count_names, seen), 0);
	assert_string_equal(seen, "live-a,live-b,");
	sock_path(path, sizeof(path), "dead");
	assert_int_equal(stat(path, &st), -1);
	ctl_server_stop(&a);
	ctl_server_stop(&b);
}

static void test_stale_socket_taken_over(void **state)
{
	static struct ctl_server s;

	(void)state;
	make_stale("again");
	assert_int_equal(ctl_server_start(&s, "again", echo_handler, NULL), 0);
	ctl_server_stop(&s);
}

static void test_request_to_stale_socket_removes_it(void **state)
{
	static struct ctl_response resp;
	struct ctl_request req = { CTL_STATE, 0, -1 };
	char path[128];
	struct stat st;

	(void)state;
	make_stale("gone");
	assert_int_equal(ctl_request("gone", &req, &resp), -ECONNREFUSED);
	sock_path(path, sizeof(path), "gone");
	assert_int_equal(stat(path, &st), -1);
}

static void test_bad_names(void **state)
{
	static struct ctl_server s;
	char buf[16];

	(void)state;
	assert_int_equal(ctl_server_start(&s, "a/b", echo_handler, NULL),
			 -EINVAL);
	assert_int_equal(ctl_server_start(&s, "..", echo_handler, NULL),
			 -EINVAL);
	assert_int_equal(ctl_sock_path(buf, sizeof(buf), "/d", ""), -EINVAL);
	assert_int_equal(ctl_sock_path(buf, sizeof(buf), "/d", "0123456789"),
			 -ENAMETOOLONG);
	assert_int_equal(ctl_sock_path(buf, sizeof(buf), "/d", "abc"), 0);
	assert_string_equal(buf, "/d/abc.sock");
}

static void test_dir_made_private(void **state)
{
	char dir[128];
	struct stat st;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/.lkvm", home);
	mkdir(dir, 0755);
	chmod(dir, 0755);
	assert_int_equal(ctl_dir(dir, sizeof(dir), true), 0);
	assert_int_equal(stat(dir, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
}

static void test_no_home(void **state)
{
	char dir[128];

	(void)state;
	unsetenv("HOME");
	assert_int_equal(ctl_dir(dir, sizeof(dir), true), -ENOENT);
	setenv("HOME", home, 1);
}

/* --- the command lines ------------------------------------------------- */

static int parse(struct ctl_args *a, const char *line)
{
	char buf[256], *argv[16];
	int argc = 0;
	FILE *null = fopen("/dev/null", "w");
	int ret;

	strcpy(buf, line);
	for (char *t = strtok(buf, " "); t && argc < 16; t = strtok(NULL, " "))
		argv[argc++] = t;
	ret = ctl_args_parse(argc, argv, a, null, null);
	fclose(null);
	return ret;
}

static void test_args_accepted(void **state)
{
	struct ctl_args a;

	(void)state;
	assert_int_equal(parse(&a, "list"), 0);
	assert_int_equal(a.cmd, CTL_CMD_LIST);
	assert_false(a.run || a.rootfs);
	assert_int_equal(parse(&a, "list -i"), 0);
	assert_true(a.run && !a.rootfs);
	assert_int_equal(parse(&a, "list --rootfs"), 0);
	assert_true(a.rootfs && !a.run);
	assert_int_equal(parse(&a, "stop -n vm1"), 0);
	assert_int_equal(a.cmd, CTL_CMD_STOP);
	assert_string_equal(a.name, "vm1");
	assert_int_equal(parse(&a, "stop -a"), 0);
	assert_true(a.all);
	assert_int_equal(parse(&a, "pause --name=vm2"), 0);
	assert_string_equal(a.name, "vm2");
	assert_int_equal(parse(&a, "resume -nvm3"), 0);
	assert_string_equal(a.name, "vm3");
	assert_int_equal(parse(&a, "debug -n x -d"), 0);
	assert_int_equal(a.cmd, CTL_CMD_DEBUG);
	assert_int_equal(parse(&a, "debug --all --dump"), 0);
	assert_int_equal(parse(&a, "stat -n x -m"), 0);
	assert_int_equal(a.cmd, CTL_CMD_STAT);
	assert_int_equal(parse(&a, "balloon -n x -i 64"), 0);
	assert_int_equal(a.mib, 64);
	assert_int_equal(parse(&a, "balloon -n x --deflate=0x10"), 0);
	assert_int_equal(a.mib, -16);
	assert_int_equal(parse(&a, "dump -n x core.elf"), 0);
	assert_int_equal(a.cmd, CTL_CMD_DUMP);
	assert_string_equal(a.file, "core.elf");
	assert_string_equal(a.name, "x");
}

static void test_args_refused(void **state)
{
	struct ctl_args a;

	(void)state;
	assert_int_equal(parse(&a, "list -x"), -EINVAL);
	assert_int_equal(parse(&a, "list extra"), -EINVAL);
	assert_int_equal(parse(&a, "dump -n x"), -EINVAL);
	assert_int_equal(parse(&a, "dump core"), -EINVAL);
	assert_int_equal(parse(&a, "dump -n x a b"), -EINVAL);
	assert_int_equal(parse(&a, "dump -a core"), -EINVAL);
	assert_int_equal(parse(&a, "stop"), -EINVAL);
	assert_int_equal(parse(&a, "stop -n a -a"), -EINVAL);
	assert_int_equal(parse(&a, "stop -n"), -EINVAL);
	assert_int_equal(parse(&a, "pause --name="), -EINVAL);
	assert_int_equal(parse(&a, "pause -a=1"), -EINVAL);
	assert_int_equal(parse(&a, "pause -ab"), -EINVAL);
	assert_int_equal(parse(&a, "debug -n x"), -EINVAL);
	assert_int_equal(parse(&a, "debug -n x -m 1"), -EINVAL); /* no NMI */
	assert_int_equal(parse(&a, "debug -n x -s b"), -EINVAL);
	assert_int_equal(parse(&a, "stat -n x"), -EINVAL);
	assert_int_equal(parse(&a, "balloon -n x"), -EINVAL);
	assert_int_equal(parse(&a, "balloon -a -i 1"), -EINVAL);
	assert_int_equal(parse(&a, "balloon -n x -i 0"), -EINVAL);
	assert_int_equal(parse(&a, "balloon -n x -i -5"), -EINVAL);
	assert_int_equal(parse(&a, "balloon -n x -i 1 -d 1"), -EINVAL);
	assert_int_equal(parse(&a, "balloon -n x -i 99999999999"), -EINVAL);
	assert_int_equal(parse(&a, "balloon -n x -d"), -EINVAL);
	assert_int_equal(parse(&a, "stop --help"), 1);
}

static void test_cli_dispatches_commands(void **state)
{
	static struct vm_config cfg;
	struct cli_host host = { 2, 1ULL << 30, 1, "" };
	char *ok[] = { "lkvm", "pause", "-n", "g", NULL };
	char *bad[] = { "lkvm", "pause", NULL };
	char *help[] = { "lkvm", "list", "-h", NULL };
	FILE *null = fopen("/dev/null", "w");

	(void)state;
	assert_int_equal(cli_parse(4, ok, &host, &cfg, null, null), CLI_CTL);
	assert_int_equal(cli_shim_ctl.cmd, CTL_CMD_PAUSE);
	assert_string_equal(cli_shim_ctl.name, "g");
	assert_true(ctl_is_command("balloon"));
	assert_false(ctl_is_command("run"));
	assert_int_equal(cli_parse(2, bad, &host, &cfg, null, null), -EINVAL);
	assert_int_equal(cli_parse(3, help, &host, &cfg, null, null), CLI_DONE);
	fclose(null);
}

/* The command table routes each name to its command (nothing boots). */
static void test_cmd_table_routes(void **state)
{
	char *stop[] = { "lkvm", "stop", NULL };
	char *run[] = { "lkvm", "run", "--bogus", NULL };
	char *sandbox[] = { "lkvm", "sandbox", "-k", "Image", NULL };
	char *setup[] = { "lkvm", "setup", "a/b", NULL };
	char *dashdash[] = { "lkvm", "list", "--", NULL };
	char *err = NULL;
	size_t len = 0;
	FILE *null = fopen("/dev/null", "w"), *e = open_memstream(&err, &len);
	const struct cmd_ctx ctx = { null, e, NULL, -1 };

	(void)state;
	assert_int_equal(cmd_main(&ctx, 2, stop), LKVM_EXIT_USAGE);
	assert_int_equal(cmd_main(&ctx, 3, run), LKVM_EXIT_USAGE);
	assert_int_equal(cmd_main(&ctx, 4, sandbox), LKVM_EXIT_USAGE);
	assert_int_equal(cmd_main(&ctx, 3, setup), LKVM_EXIT_USAGE);
	assert_int_equal(cmd_main(&ctx, 3, dashdash), LKVM_EXIT_USAGE);
	fclose(e);
	assert_string_equal(
		err,
		"lkvm: error: stop: which guest? give -n NAME or -a (see 'lkvm stop --help')\n"
		"lkvm: error: unknown option '--bogus' (see 'lkvm run --help')\n"
		"lkvm: error: no command given (lkvm sandbox [options] -- COMMAND [ARGS])\n"
		"lkvm: error: usage: lkvm setup NAME (a name for ~/.lkvm/NAME, no '/')\n"
		"lkvm: error: list: unknown option '--' (see 'lkvm list --help')\n");
	free(err);
	fclose(null);
}

#define H(fn) cmocka_unit_test_setup_teardown(fn, home_setup, home_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_request_round_trip),
		cmocka_unit_test(test_request_decoder_refuses_bad_messages),
		cmocka_unit_test(test_response_round_trip_and_text_checks),
		cmocka_unit_test(test_printf_truncates_at_the_limit),
		cmocka_unit_test(test_parse_state),
		H(test_server_answers_and_cleans_up),
		H(test_garbage_request_is_dropped),
		H(test_out_of_fds_still_answers),
		H(test_enumerate_removes_stale_sockets),
		H(test_stale_socket_taken_over),
		H(test_request_to_stale_socket_removes_it),
		H(test_bad_names),
		H(test_dir_made_private),
		H(test_no_home),
		cmocka_unit_test(test_args_accepted),
		cmocka_unit_test(test_args_refused),
		cmocka_unit_test(test_cli_dispatches_commands),
		cmocka_unit_test(test_cmd_table_routes),
	};

	return cmocka_run_group_tests_name("ctl", tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * User-mode networking (vmm/usernet.c) without passt: passt's command line,
 * finding passt on PATH, and frames over a socket pair with a peer that
 * reads the length-prefixed stream as passt does, including full buffers.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <unistd.h>
#include <cmocka.h>

#include "vmm/cmd/netopt.h"
#include "vmm/host/usernet.h"

/* argv joined with spaces. */
static void join(const struct usernet_argv *a, char *out, size_t size)
{
	out[0] = '\0';
	for (unsigned int i = 0; i < a->argc; i++)
		snprintf(out + strlen(out), size - strlen(out), "%s%s",
			 i ? " " : "", a->argv[i]);
	assert_null(a->argv[a->argc]);
}

static void test_argv_defaults(void **state)
{
	struct usernet_argv a;
	struct nic_config nic;
	char s[1024];

	(void)state;
	netopt_defaults(&nic, 0, NIC_MODE_USER);
	assert_int_equal(
		usernet_build_argv(&a, "/usr/bin/passt", &nic, false, false),
		0);
	join(&a, s, sizeof(s));
	assert_string_equal(
		s, "/usr/bin/passt -f -q -4 -i lo --fd 3 --pid /proc/self/fd/1 "
		   "-a 192.168.33.15 -n 24 -g 192.168.33.1 "
		   "--map-host-loopback 192.168.33.1 -M 02:01:01:01:01:01");
}

static void test_argv_everything(void **state)
{
	struct usernet_argv a;
	struct nic_config nic;
	const char *bad;
	size_t n;
	char s[1024];

	(void)state;
	assert_int_equal(
		netopt_parse(&nic, 0,
			     "mode=user,guest_ip=10.0.2.15,"
			     "host_ip=10.0.2.2,host_mac=06:aa:bb:cc:dd:ee,"
			     "fwd=tcp:2222:22,fwd=udp:127.0.0.1:5353:53",
			     &bad, &n),
		0);
	assert_int_equal(usernet_build_argv(&a, "passt", &nic, true, true), 0);
	join(&a, s, sizeof(s));
	assert_string_equal(
		s, "passt -f -q -4 -i lo --fd 3 --pid /proc/self/fd/1 "
		   "--runas 65534:65534 -a 10.0.2.15 -n 24 -g 10.0.2.2 "
		   "--map-host-loopback 10.0.2.2 -M 06:aa:bb:cc:dd:ee "
		   "--no-dhcp -t 2222:22 -u 127.0.0.1/5353:53");
}

/* vhost=1: passt's vhost-user back-end on the same socket, forwards kept. */
static void test_argv_vhost_user(void **state)
{
	struct usernet_argv a;
	struct nic_config nic;
	const char *bad;
	size_t n;
	char s[1024];

	(void)state;
	assert_int_equal(netopt_parse(&nic, 0,
				      "mode=user,vhost=1,fwd=tcp:2222:22", &bad,
				      &n),
			 0);
	assert_int_equal(usernet_build_argv(&a, "passt", &nic, false, true), 0);
	join(&a, s, sizeof(s));
	assert_string_equal(
		s,
		"passt -f -q -4 -i lo --fd 3 --vhost-user --repair-path none "
		"--pid /proc/self/fd/1 --runas 65534:65534 -a 192.168.33.15 "
		"-n 24 -g 192.168.33.1 --map-host-loopback 192.168.33.1 "
		"-M 02:01:01:01:01:01 -t 2222:22");
}

static void test_argv_most_forwards_fit(void **state)
{
	struct usernet_argv a;
	struct nic_config nic;

	(void)state;
	netopt_defaults(&nic, 0, NIC_MODE_USER);
	nic.vhost = true; /* the longest command line */
	for (int i = 0; i < CONFIG_MAX_FWDS; i++)
		nic.fwd[nic.nr_fwd++] = (struct nic_fwd){
			.addr = "255.255.255.255",
			.host_port = 65535,
			.guest_port = 65535,
		};
	assert_int_equal(usernet_build_argv(&a, "passt", &nic, true, true), 0);
	assert_true(a.argc <= USERNET_ARGV_MAX);
	assert_string_equal(a.argv[a.argc - 1], "255.255.255.255/65535:65535");
}

static void test_find_passt_on_path(void **state)
{
	char dir[] = "/tmp/test_usernet.XXXXXX", path[256], want[256];
	char *old = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
	int fd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	setenv("PATH", "/nonexistent", 1);
	assert_int_equal(usernet_find_passt(path, sizeof(path)), -ENOENT);
	snprintf(want, sizeof(want), "%s/passt", dir);
	fd = open(want, O_CREAT | O_WRONLY, 0644); /* not executable */
	assert_true(fd >= 0);
	close(fd);
	snprintf(path, sizeof(path), "/nonexistent:%s", dir);
	setenv("PATH", path, 1);
	assert_int_equal(usernet_find_passt(path, sizeof(path)), -ENOENT);
	chmod(want, 0755);
	assert_int_equal(usernet_find_passt(path, sizeof(path)), 0);
	assert_string_equal(path, want);
	unlink(want);
	rmdir(dir);
	if (old)
		setenv("PATH", old, 1);
	free(old);
}

/* A file with body (len bytes) for usernet_passt_vhost_user(). */
static int probe_file(const char *path, const void *body, size_t len)
{
	int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0755);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, body, len), (ssize_t)len);
	close(fd);
	return usernet_passt_vhost_user(path);
}

/* The probe reads passt's file for its --help's "--vhost-user". */
static void test_passt_vhost_user_probe(void **state)
{
	static const char with[] = "\x7f"
				   "ELF\0\0usage\0  --vhost-user\t\t"
				   "Enable vhost-user mode\n\0";
	static const char old[] = "\x7f"
				  "ELF\0\0usage\0  --fd FD\0vhost\0";
	char path[] = "/tmp/test_usernet_probe.XXXXXX";
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(probe_file(path, with, sizeof(with)), 1);
	assert_int_equal(probe_file(path, old, sizeof(old)), 0);
	/* An empty file, a directory, a missing file: cannot tell. */
	assert_true(probe_file(path, "", 0) < 0);
	assert_true(usernet_passt_vhost_user("/tmp") < 0);
	unlink(path);
	assert_int_equal(usernet_passt_vhost_user(path), -ENOENT);
}

/*
 * A fake passt in a fresh directory put first on PATH: a shell script with
 * body; returns the directory (to remove).  The old PATH in *old.
 */
static char *fake_passt(const char *body, char **old)
{
	static char dir[64];
	char path[128];
	FILE *f;

	snprintf(dir, sizeof(dir), "/tmp/test_usernet.XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/passt", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "#!/bin/sh\n%s\n", body);
	fclose(f);
	chmod(path, 0755);
	*old = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
	snprintf(path, sizeof(path), "%s:/bin:/usr/bin", dir);
	setenv("PATH", path, 1);
	return dir;
}

static void fake_passt_gone(const char *dir, char *old)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/passt", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/args", dir);
	unlink(path);
	rmdir(dir);
	if (old)
		setenv("PATH", old, 1);
	free(old);
}

/*
 * Started, ready once it writes its PID to stdout, given the socket as
 * fd 3 and the arguments; killed and reaped by usernet_close().
 */
static void test_open_ready_and_close(void **state)
{
	char *old, args[512] = "", path[128];
	const char *dir;
	struct usernet u;
	struct nic_config nic;
	FILE *f;
	int n;

	(void)state;
	dir = fake_passt("echo \"$*\" >\"$(dirname \"$0\")/args\"\n"
			 "[ -S /proc/self/fd/3 ] || exit 9\n"
			 "echo $$\nexec sleep 100",
			 &old);
	netopt_defaults(&nic, 0, NIC_MODE_USER);
	assert_int_equal(usernet_open(&u, &nic, true, 12), 0);
	assert_int_equal(usernet_wait_started(&u, -1), 0);
	assert_true(u.started);
	assert_true(u.pid > 0);
	assert_true(u.fd >= 0);
	assert_int_equal(kill(u.pid, 0), 0);
	snprintf(path, sizeof(path), "%s/args", dir);
	f = fopen(path, "r");
	assert_non_null(f);
	n = (int)fread(args, 1, sizeof(args) - 1, f);
	fclose(f);
	args[n > 0 ? n : 0] = '\0';
	assert_non_null(strstr(args, "--fd 3 --pid /proc/self/fd/1"));
	assert_non_null(strstr(args, "--no-dhcp"));
	usernet_close(&u);
	assert_int_equal(u.pid, 0);
	fake_passt_gone(dir, old);
}

/* A passt that exits at start-up: -EIO, reaped, nothing left open. */
static void test_open_passt_fails(void **state)
{
	struct nic_config nic;
	struct usernet u;
	char *old;
	const char *dir =
		fake_passt("echo 'passt: bad option' >&2; exit 1", &old);

	(void)state;
	netopt_defaults(&nic, 0, NIC_MODE_USER);
	assert_int_equal(usernet_open(&u, &nic, false, 12), 0);
	assert_int_equal(usernet_wait_started(&u, -1), -EIO);
	assert_int_equal(u.pid, 0);
	usernet_close(&u);
	assert_int_equal(u.fd, -1);
	assert_int_equal(u.ready_fd, -1);
	assert_int_equal(u.late_fd, -1);
	fake_passt_gone(dir, old);
}

/*
 * Nothing waits for passt: open returns while it is still starting (this
 * one waits for a file the test makes), the socket already takes frames,
 * and usernet_started() says so only once the PID came.
 */
static void test_open_does_not_wait(void **state)
{
	struct pollfd p;
	struct nic_config nic;
	struct usernet u;
	char *old, go[128];
	const char *dir = fake_passt(
		"while [ ! -e \"$(dirname \"$0\")/go\" ]; do sleep 0.01; done\n"
		"echo $$\nexec sleep 100",
		&old);
	const uint8_t frame[64] = { 0xff };

	(void)state;
	netopt_defaults(&nic, 0, NIC_MODE_USER);
	assert_int_equal(usernet_open(&u, &nic, false, 12), 0);
	assert_int_equal(usernet_started(&u), 0);
	assert_false(u.started);
	assert_int_equal(usernet_send(&u, frame, sizeof(frame)), 0);
	snprintf(go, sizeof(go), "%s/go", dir);
	close(open(go, O_CREAT | O_WRONLY, 0600));
	p = (struct pollfd){ .fd = u.ready_fd, .events = POLLIN };
	assert_int_equal(poll(&p, 1, 20000), 1);
	assert_int_equal(usernet_started(&u), 1);
	assert_int_equal(usernet_started(&u), 1);
	usernet_close(&u);
	unlink(go);
	fake_passt_gone(dir, old);
}

/* A passt that never says it is ready: one line when the deadline passes. */
static void test_open_late(void **state)
{
	const struct itimerspec soon = { .it_value.tv_nsec = 1000000 };
	struct pollfd p;
	struct nic_config nic;
	struct usernet u;
	char *old;
	const char *dir = fake_passt("exec sleep 100", &old);

	(void)state;
	netopt_defaults(&nic, 0, NIC_MODE_USER);
	assert_int_equal(usernet_open(&u, &nic, false, 12), 0);
	assert_int_equal(timerfd_settime(u.late_fd, 0, &soon, NULL), 0);
	p = (struct pollfd){ .fd = u.late_fd, .events = POLLIN };
	assert_int_equal(poll(&p, 1, 20000), 1);
	assert_int_equal(usernet_started(&u), -ETIMEDOUT);
	usernet_close(&u);
	assert_int_equal(u.pid, 0);
	fake_passt_gone(dir, old);
}

/* A stop request (the signalfd readable) ends the wait for passt. */
static void test_open_cancelled(void **state)
{
	struct nic_config nic;
	struct usernet u;
	char *old;
	const char *dir = fake_passt("exec sleep 100", &old);
	int efd = eventfd(1, 0);

	(void)state;
	netopt_defaults(&nic, 0, NIC_MODE_USER);
	assert_int_equal(usernet_open(&u, &nic, false, 12), 0);
	assert_int_equal(usernet_wait_started(&u, efd), -EINTR);
	usernet_close(&u);
	assert_int_equal(u.pid, 0);
	close(efd);
	fake_passt_gone(dir, old);
}

static void test_open_not_installed(void **state)
{
	struct nic_config nic;
	struct usernet u;
	char *old = getenv("PATH") ? strdup(getenv("PATH")) : NULL;

	(void)state;
	setenv("PATH", "/nonexistent", 1);
	netopt_defaults(&nic, 0, NIC_MODE_USER);
	assert_int_equal(usernet_open(&u, &nic, false, 12), -ENOENT);
	if (old)
		setenv("PATH", old, 1);
	free(old);
}

/* A usernet on one end of a socket pair; the test is passt. */
static void pair(struct usernet *u, int *peer)
{
	int sv[2];

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	*u = (struct usernet){ .fd = sv[0], .ready_fd = -1, .late_fd = -1 };
	fcntl(sv[0], F_SETFL, O_NONBLOCK);
	assert_int_equal(lpframe_rx_init(&u->rx, 12, USERNET_MIN_FRAME,
					 USERNET_MAX_FRAME),
			 0);
	u->rest = malloc(LPFRAME_LEN_SIZE + USERNET_MAX_FRAME);
	*peer = sv[1];
}

static void read_all(int fd, void *buf, size_t len)
{
	for (size_t off = 0; off < len;) {
		ssize_t n = read(fd, (uint8_t *)buf + off, len - off);

		assert_true(n > 0);
		off += (size_t)n;
	}
}

static void test_send_frames(void **state)
{
	uint8_t pkt[1500], hdr[4], got[1500];
	struct usernet u;
	int peer;

	(void)state;
	pair(&u, &peer);
	for (size_t i = 0; i < sizeof(pkt); i++)
		pkt[i] = (uint8_t)i;
	assert_int_equal(usernet_send(&u, pkt, 60), 0);
	assert_int_equal(usernet_send(&u, pkt, 1500), 0);
	read_all(peer, hdr, 4);
	assert_memory_equal(hdr, "\0\0\0\x3c", 4);
	read_all(peer, got, 60);
	assert_memory_equal(got, pkt, 60);
	read_all(peer, hdr, 4);
	assert_memory_equal(hdr, "\0\0\x05\xdc", 4);
	read_all(peer, got, 1500);
	assert_memory_equal(got, pkt, 1500);
	/* Not an Ethernet frame: refused, nothing sent. */
	assert_int_equal(usernet_send(&u, pkt, 13), -EMSGSIZE);
	close(peer);
	assert_int_equal(usernet_send(&u, pkt, 60), -EPIPE);
	u.pid = 0;
	usernet_close(&u);
}

/*
 * A peer that does not read: the socket fills, frames are dropped whole
 * (never half a frame followed by another), and once the peer reads, the
 * stream parses as complete frames with no gap inside any of them.
 */
static void test_full_socket_keeps_frames_whole(void **state)
{
	static uint8_t pkt[9000], stream[1 << 22];
	struct lpframe_rx rx;
	struct usernet u;
	size_t total = 0, len;
	int peer, sent = 0, dropped = 0, frames = 0;
	uint8_t *f;

	(void)state;
	pair(&u, &peer);
	for (int i = 0; i < 2000 && dropped < 5; i++) {
		memset(pkt, i & 0xff, sizeof(pkt));
		int r = usernet_send(&u, pkt, 14 + (size_t)(i * 97) % 8000);

		if (r == 0)
			sent++;
		else if (r == -EAGAIN)
			dropped++;
		else
			fail_msg("send: %d", r);
	}
	assert_true(dropped > 0);
	assert_true(u.congested);
	/* Drain what is in the socket. */
	fcntl(peer, F_SETFL, O_NONBLOCK);
	for (;;) {
		ssize_t n = read(peer, stream + total, sizeof(stream) - total);

		if (n <= 0)
			break;
		total += (size_t)n;
	}
	/* The tail of a partly sent frame goes out with the next send. */
	memset(pkt, 0x5a, sizeof(pkt));
	assert_int_equal(usernet_send(&u, pkt, 100), 0);
	for (;;) {
		ssize_t n = read(peer, stream + total, sizeof(stream) - total);

		if (n <= 0)
			break;
		total += (size_t)n;
	}
	assert_int_equal(lpframe_rx_init(&rx, 4, 14, 9000), 0);
	for (size_t off = 0; off < total;) {
		size_t room, chunk;
		uint8_t *p = lpframe_rx_space(&rx, &room);

		chunk = total - off < room ? total - off : room;
		memcpy(p, stream + off, chunk);
		lpframe_rx_added(&rx, chunk);
		off += chunk;
		while (lpframe_rx_next(&rx, &f, &len) == 1) {
			for (size_t j = 1; j < len; j++)
				assert_int_equal(f[j], f[0]);
			frames++;
			lpframe_rx_consume(&rx);
		}
	}
	assert_int_equal(lpframe_rx_next(&rx, &f, &len), 0);
	assert_int_equal(rx.end, rx.start); /* nothing left half */
	assert_int_equal(frames, sent + 1);
	assert_int_equal(f[0], 0x5a);
	lpframe_rx_free(&rx);
	close(peer);
	usernet_close(&u);
}

static void test_fill(void **state)
{
	uint8_t stream[4 + 60 + 4 + 100], *f;
	struct usernet u;
	size_t len;
	int peer;

	(void)state;
	pair(&u, &peer);
	assert_int_equal(usernet_fill(&u), -EAGAIN);
	lpframe_put_len(stream, 60);
	memset(stream + 4, 1, 60);
	lpframe_put_len(stream + 64, 100);
	memset(stream + 68, 2, 100);
	assert_int_equal(write(peer, stream, 100), 100);
	assert_int_equal(usernet_fill(&u), 100);
	assert_int_equal(lpframe_rx_next(&u.rx, &f, &len), 1);
	assert_int_equal(len, 60);
	lpframe_rx_consume(&u.rx);
	assert_int_equal(lpframe_rx_next(&u.rx, &f, &len), 0);
	assert_int_equal(write(peer, stream + 100, sizeof(stream) - 100),
			 (ssize_t)sizeof(stream) - 100);
	assert_int_equal(usernet_fill(&u), sizeof(stream) - 100);
	assert_int_equal(lpframe_rx_next(&u.rx, &f, &len), 1);
	assert_int_equal(len, 100);
	assert_int_equal(f[99], 2);
	close(peer);
	assert_int_equal(usernet_fill(&u), -EPIPE);
	usernet_close(&u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_argv_defaults),
		cmocka_unit_test(test_argv_everything),
		cmocka_unit_test(test_argv_vhost_user),
		cmocka_unit_test(test_argv_most_forwards_fit),
		cmocka_unit_test(test_find_passt_on_path),
		cmocka_unit_test(test_passt_vhost_user_probe),
		cmocka_unit_test(test_open_ready_and_close),
		cmocka_unit_test(test_open_passt_fails),
		cmocka_unit_test(test_open_does_not_wait),
		cmocka_unit_test(test_open_late),
		cmocka_unit_test(test_open_cancelled),
		cmocka_unit_test(test_open_not_installed),
		cmocka_unit_test(test_send_frames),
		cmocka_unit_test(test_full_socket_keeps_frames_whole),
		cmocka_unit_test(test_fill),
	};

	return cmocka_run_group_tests_name("usernet", tests, NULL, NULL);
}

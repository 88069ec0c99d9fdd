// SPDX-License-Identifier: GPL-2.0
/*
 * lkvm as the init of a guest booted from a root made by 'lkvm setup'
 * (see sandbox.h): mount the host's / (hostfs) at /host and the kernel's
 * file systems, run a shell on the console, or a sandbox's command and
 * report its status in the run directory, then power off.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "vmm/sandbox/sandbox.h"

bool guest_init_wanted(int argc, char **argv)
{
	return getpid() == 1 && argc >= 1 && !strcmp(argv[0], SANDBOX_INIT);
}

static void init_mounts(void)
{
	if (mount(SANDBOX_HOST_TAG, "/host", "9p", MS_RDONLY,
		  "trans=virtio,version=9p2000.L"))
		fprintf(stderr, "lkvm init: mount %s on /host: %s\n",
			SANDBOX_HOST_TAG, strerror(errno));
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	mount("proc", "/proc", "proc", 0, NULL);
	mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	mkdir("/dev/pts", 0755);
	mount("devpts", "/dev/pts", "devpts", 0, NULL);
	mount("tmpfs", "/tmp", "tmpfs", 0, NULL);
}

static void init_console(void)
{
	int fd;

	if (fcntl(0, F_GETFD) >= 0)
		return;
	fd = open("/dev/console", O_RDWR);
	if (fd < 0)
		return;
	dup2(fd, 0);
	dup2(fd, 1);
	dup2(fd, 2);
	if (fd > 2)
		close(fd);
}

/* The value of lkvm.sandbox= on the kernel command line, or NULL. */
static char *init_run_dir(void)
{
	static char line[4096];
	const char *key = SANDBOX_PARAM "=";
	FILE *f = fopen("/proc/cmdline", "r");
	char *p, *save = NULL;

	if (!f)
		return NULL;
	if (!fgets(line, sizeof(line), f))
		line[0] = '\0';
	fclose(f);
	for (p = strtok_r(line, " \n", &save); p;
	     p = strtok_r(NULL, " \n", &save))
		if (!strncmp(p, key, strlen(key)) && p[strlen(key)] == '/')
			return p + strlen(key);
	return NULL;
}

static pid_t init_spawn(const char *cmd)
{
	char *env[] = { "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:"
			"/usr/bin:/sbin:/bin",
			"HOME=/virt/home", "TERM=linux", NULL };
	char *argv[] = { "sh", (char *)cmd, NULL };
	pid_t pid = fork();

	if (pid)
		return pid;
	setsid();
	ioctl(0, TIOCSCTTY, 1);
	if (chdir("/virt/home"))
		(void)!chdir("/");
	execve("/bin/sh", argv, env);
	fprintf(stderr, "lkvm init: /bin/sh: %s\n", strerror(errno));
	_exit(127);
}

/* Wait for pid, reaping orphans; its status as a shell reports it. */
static int init_wait(pid_t pid)
{
	int st = 0;
	pid_t got;

	do
		got = wait(&st);
	while (got != pid && (got >= 0 || errno == EINTR));
	if (got < 0)
		return 255;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void init_report(const char *dir, int status)
{
	char path[4200];
	int fd;

	snprintf(path, sizeof(path), "%s/status", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || dprintf(fd, "%d\n", status) < 0 || fsync(fd))
		fprintf(stderr, "lkvm init: %s: %s\n", path, strerror(errno));
	if (fd >= 0)
		close(fd);
}

/*
 * A sandbox's command runs once: "started" in the run directory marks
 * it, so a guest that rebooted (lkvm boots it again) powers off with no
 * status instead of running the command again.
 */
static bool init_first_boot(const char *dir)
{
	char path[4200];
	int fd;

	snprintf(path, sizeof(path), "%s/started", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (fd < 0) {
		fprintf(stderr, "lkvm init: %s: %s; not running it again\n",
			path, strerror(errno));
		return false;
	}
	fsync(fd);
	close(fd);
	return true;
}

#define INIT_DRAIN_S 5

static void init_alarm(int sig)
{
	(void)sig;
}

/*
 * The command's last output may still wait in the console's transmit
 * buffer (the UART sends it from its interrupt): power off only once it
 * is out, or the kernel's own last lines would come first and the rest
 * be lost.  At most INIT_DRAIN_S seconds: a console whose interrupt never
 * comes does not keep the guest up.
 */
static void init_console_drain(void)
{
	struct sigaction sa = { .sa_handler = init_alarm }; /* no restart */

	sigaction(SIGALRM, &sa, NULL);
	alarm(INIT_DRAIN_S);
	if (tcdrain(STDOUT_FILENO) && errno != ENOTTY && errno != EBADF)
		fprintf(stderr, "lkvm init: console output not drained: %s\n",
			strerror(errno));
	alarm(0);
}

int guest_init_main(void)
{
	char cmd[4200];
	char *dir;
	int status;

	init_mounts();
	init_console();
	dir = init_run_dir();
	if (dir)
		snprintf(cmd, sizeof(cmd), "%s/cmd.sh", dir);
	if (!dir || init_first_boot(dir)) {
		status = init_wait(init_spawn(dir ? cmd : NULL));
		if (dir)
			init_report(dir, status);
	}
	init_console_drain();
	sync();
	reboot(RB_POWER_OFF);
	for (;;)
		pause();
}

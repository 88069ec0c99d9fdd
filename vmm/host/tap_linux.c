// SPDX-License-Identifier: GPL-2.0
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/log.h"
#include "vmm/host/tap_linux.h"

#define VNET_HDR_LEN 12 /* struct virtio_net_hdr_v1 */

/* Run "script ifname"; 0 when it exits 0. */
static int tap_run_script(const char *script, const char *ifname)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		execl(script, script, ifname, (char *)NULL);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		pr_err("tap %s: script %s failed (status %d)", ifname, script,
		       WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		return -EIO;
	}
	return 0;
}

static int tap_set_addr(struct ifreq *ifr, int sock, unsigned long req,
			const char *ip)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)&ifr->ifr_addr;

	memset(&ifr->ifr_addr, 0, sizeof(ifr->ifr_addr));
	sin->sin_family = AF_INET;
	inet_pton(AF_INET, ip, &sin->sin_addr);
	return ioctl(sock, req, ifr) < 0 ? -errno : 0;
}

/* script=none, a tap lkvm made: host_ip/24 on it, and up (as kvmtool). */
static int tap_configure(struct tap *t)
{
	struct ifreq ifr = { 0 };
	int sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int ret;

	if (sock < 0)
		return -errno;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", t->ifname);
	ret = tap_set_addr(&ifr, sock, SIOCSIFADDR, t->nic->host_ip);
	ret = ret ?: tap_set_addr(&ifr, sock, SIOCSIFNETMASK, "255.255.255.0");
	if (!ret && ioctl(sock, SIOCGIFFLAGS, &ifr) == 0) {
		ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
		if (ioctl(sock, SIOCSIFFLAGS, &ifr) < 0)
			ret = -errno;
	}
	close(sock);
	if (ret)
		pr_err("tap %s: cannot set address %s and bring it up: %s",
		       t->ifname, t->nic->host_ip, strerror(-ret));
	return ret;
}

/*
 * A tap that existed before lkvm (tapif= naming a persistent tap, made by
 * ip tuntap or tunctl, perhaps on a bridge or owned by this user) is the
 * user's: as kvmtool, leave its addresses and state alone; only say when
 * it is down, which no packet gets through.
 */
static void tap_existing(struct tap *t)
{
	struct ifreq ifr = { 0 };
	int sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (sock < 0)
		return;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", t->ifname);
	if (!ioctl(sock, SIOCGIFFLAGS, &ifr) && !(ifr.ifr_flags & IFF_UP))
		pr_warn("tap %s: the interface is down; lkvm leaves an existing tap as it is (ip link set %s up)",
			t->ifname, t->ifname);
	close(sock);
}

/*
 * Did the tap exist before lkvm attached to it?  Only a persistent tap
 * can be attached to by name while it exists (another process's
 * non-persistent one is busy), so its IFF_PERSIST says it, race-free.
 */
static bool tap_was_there(int fd)
{
	struct ifreq ifr = { 0 };

	return !ioctl(fd, TUNGETIFF, &ifr) && (ifr.ifr_flags & IFF_PERSIST);
}

int tap_open(struct tap *t, const struct nic_config *nic)
{
	struct ifreq ifr = { .ifr_flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR };
	int hdr = VNET_HDR_LEN, ret;
	bool existed;

	t->nic = nic;
	t->fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (t->fd < 0) {
		ret = -errno;
		pr_err("cannot open /dev/net/tun: %s", strerror(errno));
		return ret;
	}
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", nic->tapif);
	if (ioctl(t->fd, TUNSETIFF, &ifr) < 0 ||
	    ioctl(t->fd, TUNSETVNETHDRSZ, &hdr) < 0) {
		ret = -errno;
		pr_err("tap %s: %s", nic->tapif[0] ? nic->tapif : "(new)",
		       strerror(errno));
		close(t->fd);
		return ret;
	}
	snprintf(t->ifname, sizeof(t->ifname), "%s", ifr.ifr_name);
	existed = tap_was_there(t->fd);
	ret = 0;
	if (strcmp(nic->script, "none"))
		ret = tap_run_script(nic->script, t->ifname);
	else if (existed)
		tap_existing(t);
	else
		ret = tap_configure(t);
	if (ret) {
		close(t->fd);
		t->fd = -1;
	}
	return ret;
}

void tap_close(struct tap *t)
{
	if (t->fd < 0)
		return;
	if (strcmp(t->nic->downscript, "none"))
		tap_run_script(t->nic->downscript, t->ifname);
	close(t->fd);
	t->fd = -1;
}

int tap_set_offload(struct tap *t, unsigned int tun_flags)
{
	return ioctl(t->fd, TUNSETOFFLOAD, tun_flags) < 0 ? -errno : 0;
}

int tap_set_vnet_hdr_len(struct tap *t, int len)
{
	return ioctl(t->fd, TUNSETVNETHDRSZ, &len) < 0 ? -errno : 0;
}

// SPDX-License-Identifier: GPL-2.0
#include <arpa/inet.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "lib/opt.h"
#include "vmm/cmd/netopt.h"

void netopt_defaults(struct nic_config *nic, unsigned int index,
		     enum nic_mode mode)
{
	*nic = (struct nic_config){
		.mode = mode,
		.mac = { 0x02, 0x15, 0x15, 0x15, 0x15, 0x15 + index },
		.host_mac = { 0x02, 0x01, 0x01, 0x01, 0x01, 0x01 },
		.host_ip = NETOPT_HOST_IP,
		.guest_ip = NETOPT_GUEST_IP,
		.script = "none",
		.downscript = "none",
	};
}

/* Copy a value into a fixed field; false when empty or too long. */
static bool opt_copy(char *dst, size_t size, const char *v, size_t n)
{
	if (!n || n >= size)
		return false;
	memcpy(dst, v, n);
	dst[n] = '\0';
	return true;
}

static bool opt_mac(uint8_t *mac, const char *v, size_t n)
{
	unsigned int b[6];
	char tail, buf[24];

	if (!opt_copy(buf, sizeof(buf), v, n) ||
	    sscanf(buf, "%2x:%2x:%2x:%2x:%2x:%2x%c", &b[0], &b[1], &b[2], &b[3],
		   &b[4], &b[5], &tail) != 6 ||
	    (b[0] & 1))
		return false;
	for (int i = 0; i < 6; i++)
		mac[i] = b[i];
	return true;
}

static bool opt_ip(char *dst, const char *v, size_t n)
{
	struct in_addr a;

	return opt_copy(dst, CONFIG_IP_MAX, v, n) &&
	       inet_pton(AF_INET, dst, &a);
}

/* A port 1..65535 from exactly n decimal digits. */
static bool opt_port(uint16_t *port, const char *v, size_t n)
{
	unsigned long p = 0;

	if (!n || n > 5)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (v[i] < '0' || v[i] > '9')
			return false;
		p = p * 10 + (unsigned long)(v[i] - '0');
	}
	if (!p || p > 65535)
		return false;
	*port = (uint16_t)p;
	return true;
}

/* tcp|udp:[ADDR:]HOSTPORT:GUESTPORT */
static bool opt_fwd(struct nic_config *nic, const char *v, size_t n)
{
	struct nic_fwd f = { 0 };
	char buf[48], *field[4], *p = buf;
	unsigned int nf = 0;

	if (nic->nr_fwd == CONFIG_MAX_FWDS || !opt_copy(buf, sizeof(buf), v, n))
		return false;
	while (p) {
		if (nf == 4)
			return false;
		field[nf++] = p;
		p = strchr(p, ':');
		if (p)
			*p++ = '\0';
	}
	if (nf < 3 || (strcmp(field[0], "tcp") && strcmp(field[0], "udp")))
		return false;
	f.udp = !strcmp(field[0], "udp");
	if (nf == 4 && !opt_ip(f.addr, field[1], strlen(field[1])))
		return false;
	if (!opt_port(&f.host_port, field[nf - 2], strlen(field[nf - 2])) ||
	    !opt_port(&f.guest_port, field[nf - 1], strlen(field[nf - 1])))
		return false;
	nic->fwd[nic->nr_fwd++] = f;
	return true;
}

static bool opt_mode(struct nic_config *nic, const char *v, size_t n)
{
	static const struct {
		const char *name;
		enum nic_mode mode;
	} modes[] = {
		{ "tap", NIC_MODE_TAP },
		{ "user", NIC_MODE_USER },
		{ "none", NIC_MODE_NONE },
	};

	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		if (strlen(modes[i].name) == n && !strncmp(v, modes[i].name, n))
			return (nic->mode = modes[i].mode), true;
	return false;
}

/*
 * kvmtool keys lkvm refuses, with what is missing; the value in "fine"
 * (and 0) is what lkvm does anyway, so it is accepted.  vhost= has both
 * values (key_vhost: vhost-net on a tap, passt's vhost-user back-end in
 * user mode).
 */
static const struct unsupported_key {
	const char *key, *fine, *why;
} unsupported[] = {
	{ "mq", "1",
	  "lkvm's virtio-net has one queue pair (no VIRTIO_NET_F_MQ)" },
	{ "fd", NULL, "lkvm opens its tap itself (use tapif=NAME)" },
};

static const struct unsupported_key *find_unsupported(const char *key,
						      size_t klen)
{
	for (size_t i = 0; i < sizeof(unsupported) / sizeof(*unsupported); i++)
		if (strlen(unsupported[i].key) == klen &&
		    !strncmp(key, unsupported[i].key, klen))
			return &unsupported[i];
	return NULL;
}

const char *netopt_unsupported(const char *kv, size_t n)
{
	const char *eq = memchr(kv, '=', n);
	const struct unsupported_key *u =
		find_unsupported(kv, eq ? (size_t)(eq - kv) : n);

	return u ? u->why : NULL;
}

/* The key table's setters: 0, or -EINVAL for a bad value. */
#define NIC_FIELD(k) ((char *)target + (k)->kind)
#define NIC_KEY(name, fn, member)                                   \
	{                                                           \
		name, true, fn, offsetof(struct nic_config, member) \
	}

static int key_mode(void *target, const struct opt_key *k, const char *v,
		    size_t n)
{
	return opt_mode(target, v, n) ? 0 : -EINVAL;
}

static int key_string(void *target, const struct opt_key *k, const char *v,
		      size_t n)
{
	return opt_copy(NIC_FIELD(k), CONFIG_PATH_MAX, v, n) ? 0 : -EINVAL;
}

static int key_ifname(void *target, const struct opt_key *k, const char *v,
		      size_t n)
{
	return opt_copy(NIC_FIELD(k), CONFIG_IFNAME_MAX, v, n) ? 0 : -EINVAL;
}

static int key_mac(void *target, const struct opt_key *k, const char *v,
		   size_t n)
{
	return opt_mac((uint8_t *)NIC_FIELD(k), v, n) ? 0 : -EINVAL;
}

static int key_ip(void *target, const struct opt_key *k, const char *v,
		  size_t n)
{
	return opt_ip(NIC_FIELD(k), v, n) ? 0 : -EINVAL;
}

static int key_trans(void *target, const struct opt_key *k, const char *v,
		     size_t n)
{
	struct nic_config *nic = target;

	if (n == 4 && !strncmp(v, "mmio", 4))
		nic->transport = VIRTIO_TRANSPORT_MMIO;
	else if (n == 3 && !strncmp(v, "pci", 3))
		nic->transport = VIRTIO_TRANSPORT_PCI;
	else
		return -EINVAL;
	return 0;
}

static int key_fwd(void *target, const struct opt_key *k, const char *v,
		   size_t n)
{
	return opt_fwd(target, v, n) ? 0 : -EINVAL;
}

/* vhost=0|1 */
static int key_vhost(void *target, const struct opt_key *k, const char *v,
		     size_t n)
{
	struct nic_config *nic = target;

	if (n != 1 || (v[0] != '0' && v[0] != '1'))
		return -EINVAL;
	nic->vhost = v[0] == '1';
	nic->vhost_given = true;
	return 0;
}

/* mq=: only the value that is what lkvm does anyway (or 0). */
static int key_noop(void *target, const struct opt_key *k, const char *v,
		    size_t n)
{
	const char *fine = unsupported[k->kind].fine;

	if ((n == strlen(fine) && !strncmp(v, fine, n)) ||
	    (n == 1 && v[0] == '0'))
		return 0;
	return -EINVAL;
}

static const struct opt_key nic_keys[] = {
	{ "mode", true, key_mode, 0 },
	NIC_KEY("tapif", key_ifname, tapif),
	NIC_KEY("guest_mac", key_mac, mac),
	NIC_KEY("host_mac", key_mac, host_mac),
	NIC_KEY("host_ip", key_ip, host_ip),
	NIC_KEY("guest_ip", key_ip, guest_ip),
	NIC_KEY("script", key_string, script),
	NIC_KEY("downscript", key_string, downscript),
	{ "trans", true, key_trans, 0 },
	{ "fwd", true, key_fwd, 0 },
	{ "vhost", true, key_vhost, 0 },
	{ "mq", true, key_noop, 0 },
};

int netopt_parse(struct nic_config *nic, unsigned int index, const char *spec,
		 const char **bad, size_t *bad_len)
{
	const char *fwd;

	netopt_defaults(nic, index, NIC_MODE_TAP);
	if (opt_keys_parse(spec, nic_keys, sizeof(nic_keys) / sizeof(*nic_keys),
			   nic, bad, bad_len))
		return -EINVAL;
	if (!nic->nr_fwd || nic->mode == NIC_MODE_USER)
		return 0;
	/* Forwards need the user-mode stack: name the first (there is one). */
	for (fwd = spec; strncmp(fwd, "fwd=", 4); fwd++)
		fwd += strcspn(fwd, ",");
	*bad = fwd;
	*bad_len = strcspn(fwd, ",");
	return -EINVAL;
}

/* The bracketed (selected) word of a transparent_hugepage file is w. */
static bool thp_selected(const char *text, const char *w)
{
	char want[24];

	snprintf(want, sizeof(want), "[%s]", w);
	return text && strstr(text, want);
}

bool netopt_shmem_loses_thp(const char *enabled, const char *shmem_enabled)
{
	return enabled && shmem_enabled && !thp_selected(enabled, "never") &&
	       (thp_selected(shmem_enabled, "never") ||
		thp_selected(shmem_enabled, "deny"));
}

void netopt_choose_vhost(struct nic_config *nic, bool hugetlbfs,
			 bool shmem_loses_thp, int passt_vu)
{
	if (nic->mode != NIC_MODE_USER)
		return;
	if (nic->vhost_given) {
		nic->vhost_why = nic->vhost ? "vhost=1" : "vhost=0";
		return;
	}
	nic->vhost = false;
	if (hugetlbfs)
		nic->vhost_why =
			"--hugetlbfs: guest RAM cannot be the shared memfd vhost-user needs";
	else if (passt_vu > 0 && shmem_loses_thp)
		nic->vhost_why =
			"the host gives shared memory no huge pages (transparent_hugepage/shmem_enabled): guest RAM stays private, with its huge pages";
	else if (passt_vu > 0) {
		nic->vhost = true;
		nic->vhost_why = "the installed passt offers --vhost-user";
	} else if (!passt_vu)
		nic->vhost_why =
			"the installed passt has no --vhost-user (too old)";
	else
		nic->vhost_why =
			"passt could not be read to look for --vhost-user";
}

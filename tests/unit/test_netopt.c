// SPDX-License-Identifier: GPL-2.0
/* The -n/--network SPEC parser (vmm/netopt.c): every setting. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "vmm/cmd/netopt.h"

static struct nic_config nic;

static int parse(const char *spec)
{
	const char *bad = NULL;
	size_t n = 0;

	return netopt_parse(&nic, 0, spec, &bad, &n);
}

/* spec is refused, naming exactly the setting want. */
static void refused(const char *spec, const char *want)
{
	const char *bad = NULL;
	size_t n = 0;

	assert_int_equal(netopt_parse(&nic, 0, spec, &bad, &n), -EINVAL);
	assert_non_null(bad);
	assert_int_equal(n, strlen(want));
	assert_memory_equal(bad, want, n);
}

static void test_defaults(void **state)
{
	(void)state;
	assert_int_equal(parse(""), 0);
	assert_int_equal(nic.mode, NIC_MODE_TAP); /* kvmtool: -n is a tap */
	assert_false(nic.implicit);
	assert_memory_equal(nic.mac, "\x02\x15\x15\x15\x15\x15", 6);
	assert_memory_equal(nic.host_mac, "\x02\x01\x01\x01\x01\x01", 6);
	assert_string_equal(nic.host_ip, "192.168.33.1");
	assert_string_equal(nic.guest_ip, "192.168.33.15");
	assert_string_equal(nic.script, "none");
	assert_string_equal(nic.downscript, "none");
	assert_string_equal(nic.tapif, "");
	assert_int_equal(nic.transport, VIRTIO_TRANSPORT_DEFAULT);
	assert_int_equal(nic.nr_fwd, 0);
	/* The n-th NIC's MAC ends in 0x15 + n. */
	netopt_defaults(&nic, 1, NIC_MODE_USER);
	assert_int_equal(nic.mode, NIC_MODE_USER);
	assert_int_equal(nic.mac[5], 0x16);
}

static void test_modes(void **state)
{
	(void)state;
	assert_int_equal(parse("mode=tap"), 0);
	assert_int_equal(nic.mode, NIC_MODE_TAP);
	assert_int_equal(parse("mode=user"), 0);
	assert_int_equal(nic.mode, NIC_MODE_USER);
	assert_int_equal(parse("mode=none"), 0);
	assert_int_equal(nic.mode, NIC_MODE_NONE);
	/* The last mode= wins. */
	assert_int_equal(parse("mode=user,mode=tap"), 0);
	assert_int_equal(nic.mode, NIC_MODE_TAP);
	refused("mode=slirp", "mode=slirp");
	refused("mode=", "mode=");
	refused("mode=users", "mode=users");
	refused("mode", "mode");
}

static void test_every_setting(void **state)
{
	(void)state;
	assert_int_equal(
		parse("mode=user,guest_mac=02:aa:bb:cc:dd:ee,"
		      "host_mac=06:01:02:03:04:05,host_ip=10.0.2.2,"
		      "guest_ip=10.0.2.15,tapif=t0,script=/s,downscript=/d,"
		      "trans=mmio"),
		0);
	assert_memory_equal(nic.mac, "\x02\xaa\xbb\xcc\xdd\xee", 6);
	assert_memory_equal(nic.host_mac, "\x06\x01\x02\x03\x04\x05", 6);
	assert_string_equal(nic.host_ip, "10.0.2.2");
	assert_string_equal(nic.guest_ip, "10.0.2.15");
	assert_string_equal(nic.tapif, "t0");
	assert_string_equal(nic.script, "/s");
	assert_string_equal(nic.downscript, "/d");
	assert_int_equal(nic.transport, VIRTIO_TRANSPORT_MMIO);
	assert_int_equal(parse("trans=pci"), 0);
	assert_int_equal(nic.transport, VIRTIO_TRANSPORT_PCI);
}

static void test_bad_values(void **state)
{
	(void)state;
	refused("mode=tap,guest_mac=01:00:00:00:00:01",
		"guest_mac=01:00:00:00:00:01"); /* multicast */
	refused("host_mac=02:00:00:00:00", "host_mac=02:00:00:00:00");
	refused("host_mac=02:00:00:00:00:00:00",
		"host_mac=02:00:00:00:00:00:00");
	refused("host_ip=1.2.3", "host_ip=1.2.3");
	refused("guest_ip=300.1.1.1", "guest_ip=300.1.1.1");
	refused("guest_ip=", "guest_ip=");
	refused("tapif=0123456789abcdef", "tapif=0123456789abcdef");
	refused("trans=usb", "trans=usb");
	refused("mode=tap,vhost=2", "vhost=2");
	refused("mode=tap,vhost=", "vhost=");
	refused("mode=tap,,", "");
}

/* vhost=1: vhost-net on a tap, passt's vhost-user back-end in user mode. */
static void test_vhost(void **state)
{
	(void)state;
	assert_int_equal(parse("mode=tap"), 0);
	assert_false(nic.vhost);
	assert_int_equal(parse("mode=tap,vhost=1"), 0);
	assert_true(nic.vhost);
	assert_int_equal(nic.mode, NIC_MODE_TAP);
	assert_int_equal(parse("vhost=1"), 0); /* -n's default: a tap */
	assert_true(nic.vhost);
	assert_int_equal(parse("vhost=1,vhost=0"), 0);
	assert_false(nic.vhost);
	assert_int_equal(parse("mode=user,vhost=0"), 0);
	assert_false(nic.vhost);
	assert_int_equal(parse("mode=user,vhost=1"), 0);
	assert_true(nic.vhost);
	assert_int_equal(nic.mode, NIC_MODE_USER);
	assert_int_equal(parse("vhost=1,mode=user,fwd=tcp:2222:22"), 0);
	assert_true(nic.vhost);
	assert_int_equal(nic.nr_fwd, 1);
	/* Both values are lkvm's; other values are only invalid. */
	assert_null(netopt_unsupported("vhost=1", 7));
	assert_null(netopt_unsupported("vhost=2", 7));
	assert_null(netopt_unsupported("vhost=10", 8));
	assert_non_null(netopt_unsupported("mq=4", 4));
}

/*
 * A user-mode NIC without vhost= gets vhost-user when passt offers it and
 * guest RAM can be a shared memfd; vhost= decides when given.
 */
static void test_choose_vhost(void **state)
{
	(void)state;
	assert_int_equal(parse("mode=user"), 0);
	assert_false(nic.vhost_given);
	netopt_choose_vhost(&nic, false, false, 1);
	assert_true(nic.vhost);
	assert_non_null(strstr(nic.vhost_why, "offers --vhost-user"));
	netopt_choose_vhost(&nic, false, false, 0); /* an older passt */
	assert_false(nic.vhost);
	assert_non_null(strstr(nic.vhost_why, "too old"));
	netopt_choose_vhost(&nic, false, false, -EACCES);
	assert_false(nic.vhost);
	netopt_choose_vhost(&nic, true, false, 1); /* --hugetlbfs */
	assert_false(nic.vhost);
	assert_non_null(strstr(nic.vhost_why, "--hugetlbfs"));
	/* Shared memory without the huge pages private RAM gets. */
	netopt_choose_vhost(&nic, false, true, 1);
	assert_false(nic.vhost);
	assert_non_null(strstr(nic.vhost_why, "no huge pages"));
	/* The default NIC is the same. */
	netopt_defaults(&nic, 0, NIC_MODE_USER);
	netopt_choose_vhost(&nic, false, false, 1);
	assert_true(nic.vhost);
	/* vhost= given: as given, whatever passt is. */
	assert_int_equal(parse("mode=user,vhost=0"), 0);
	assert_true(nic.vhost_given);
	netopt_choose_vhost(&nic, false, false, 1);
	assert_false(nic.vhost);
	assert_string_equal(nic.vhost_why, "vhost=0");
	assert_int_equal(parse("mode=user,vhost=1"), 0);
	netopt_choose_vhost(&nic, true, false, 0);
	assert_true(nic.vhost); /* run_finish() refuses it with --hugetlbfs */
	/* A tap is left alone. */
	assert_int_equal(parse("mode=tap"), 0);
	netopt_choose_vhost(&nic, false, false, 1);
	assert_false(nic.vhost);
	assert_null(nic.vhost_why);
}

/* Debian's defaults: private memory gets huge pages, shared memory not. */
static void test_shmem_loses_thp(void **state)
{
	(void)state;
	assert_true(netopt_shmem_loses_thp(
		"[always] madvise never\n",
		"always within_size advise [never] deny force\n"));
	assert_true(
		netopt_shmem_loses_thp("always [madvise] never\n",
				       "always advise never [deny] force\n"));
	assert_false(
		netopt_shmem_loses_thp("[always] madvise never\n",
				       "always within_size [advise] never\n"));
	/* No huge pages for anything: nothing to lose. */
	assert_false(netopt_shmem_loses_thp("always madvise [never]\n",
					    "always [never]\n"));
	/* No transparent huge pages in the kernel at all. */
	assert_false(netopt_shmem_loses_thp(NULL, NULL));
}

static void test_forwards(void **state)
{
	(void)state;
	assert_int_equal(parse("mode=user,fwd=tcp:2222:22,fwd=udp:5353:53,"
			       "fwd=tcp:127.0.0.1:8080:80"),
			 0);
	assert_int_equal(nic.nr_fwd, 3);
	assert_false(nic.fwd[0].udp);
	assert_string_equal(nic.fwd[0].addr, "");
	assert_int_equal(nic.fwd[0].host_port, 2222);
	assert_int_equal(nic.fwd[0].guest_port, 22);
	assert_true(nic.fwd[1].udp);
	assert_int_equal(nic.fwd[1].host_port, 5353);
	assert_int_equal(nic.fwd[1].guest_port, 53);
	assert_string_equal(nic.fwd[2].addr, "127.0.0.1");
	assert_int_equal(nic.fwd[2].host_port, 8080);
	assert_int_equal(nic.fwd[2].guest_port, 80);
	/* The mode may come after the forwards. */
	assert_int_equal(parse("fwd=tcp:65535:1,mode=user"), 0);
	assert_int_equal(nic.fwd[0].host_port, 65535);
	refused("mode=user,fwd=sctp:1:2", "fwd=sctp:1:2");
	refused("mode=user,fwd=tcp:1", "fwd=tcp:1");
	refused("mode=user,fwd=tcp:0:22", "fwd=tcp:0:22");
	refused("mode=user,fwd=tcp:65536:22", "fwd=tcp:65536:22");
	refused("mode=user,fwd=tcp:22:", "fwd=tcp:22:");
	refused("mode=user,fwd=tcp:2a:22", "fwd=tcp:2a:22");
	refused("mode=user,fwd=tcp:1.2.3:1:2", "fwd=tcp:1.2.3:1:2");
	refused("mode=user,fwd=tcp:1.2.3.4:1:2:3", "fwd=tcp:1.2.3.4:1:2:3");
	refused("mode=user,fwd=tcp:-1:22", "fwd=tcp:-1:22");
	/* Forwards need the user-mode stack. */
	refused("fwd=tcp:1:2", "fwd=tcp:1:2");
	refused("mode=user,fwd=tcp:1:2,mode=tap", "fwd=tcp:1:2");
}

static void test_too_many_forwards(void **state)
{
	char spec[512] = "mode=user";

	(void)state;
	for (int i = 0; i < CONFIG_MAX_FWDS; i++)
		snprintf(spec + strlen(spec), sizeof(spec) - strlen(spec),
			 ",fwd=tcp:%d:%d", 1000 + i, i + 1);
	assert_int_equal(parse(spec), 0);
	assert_int_equal(nic.nr_fwd, CONFIG_MAX_FWDS);
	strcat(spec, ",fwd=udp:9:9");
	refused(spec, "fwd=udp:9:9");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_modes),
		cmocka_unit_test(test_every_setting),
		cmocka_unit_test(test_bad_values),
		cmocka_unit_test(test_vhost),
		cmocka_unit_test(test_choose_vhost),
		cmocka_unit_test(test_shmem_loses_thp),
		cmocka_unit_test(test_forwards),
		cmocka_unit_test(test_too_many_forwards),
	};

	return cmocka_run_group_tests_name("netopt", tests, NULL, NULL);
}

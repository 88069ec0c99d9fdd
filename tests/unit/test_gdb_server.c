// SPDX-License-Identifier: GPL-2.0
/*
 * The gdb stub's connection handling (vmm/machine/gdb.c) with the KVM
 * side replaced by fakes: a debugger that asks for resends and stops
 * reading must not hold the stub's thread, nor lkvm's exit.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <cmocka.h>

#include "vmm/machine/gdb.c"

static uint8_t ram[1 << 16];

int kvm_cpu_reg_get(struct vcpu *v, unsigned int reg, uint64_t *val)
{
	*val = 0;
	return 0;
}

int kvm_cpu_reg_set(struct vcpu *v, unsigned int reg, uint64_t val)
{
	return 0;
}

int kvm_cpu_set_debug(struct vcpu *v, bool on)
{
	return 0;
}

int kvm_cpus_pause(struct vm *vm, unsigned int ms)
{
	atomic_store(&vm->pause.want, true);
	return 0;
}

void kvm_cpus_resume(struct vm *vm)
{
	atomic_store(&vm->pause.want, false);
}

bool kvm_cpus_paused(struct vm *vm)
{
	return atomic_load(&vm->pause.want);
}

void kvm_cpus_pause_async(struct vm *vm)
{
	atomic_store(&vm->pause.want, true);
}

static void send_packet(int fd, const char *body)
{
	char pkt[128];
	unsigned int sum = 0;

	for (const char *p = body; *p; p++)
		sum = (sum + (uint8_t)*p) & 0xff;
	snprintf(pkt, sizeof(pkt), "$%s#%02x", body, sum);
	assert_int_equal(send(fd, pkt, strlen(pkt), 0), strlen(pkt));
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* 4096 NAKs for a 4 KiB reply, never read: the stub drops the peer. */
static void test_peer_that_stops_reading(void **state)
{
	static struct vm vm;
	static struct vm_config cfg = { .nr_cpus = 1 };
	static struct gdb_server g;
	char spec[64], naks[4096];
	struct sockaddr_in sa = { .sin_family = AF_INET };
	int c, small = 1024, port = 20000 + getpid() % 20000;
	double t0;

	(void)state;
	alarm(120); /* the old stub: about 85 minutes */
	assert_int_equal(vm_init(&vm, &cfg, 0x80000000), 0);
	vm.mem = (struct guest_mem){ 0x80000000, sizeof(ram), ram };
	vm.vcpus[0].fd = 99; /* the fakes never use it */
	snprintf(spec, sizeof(spec), "tcp:127.0.0.1:%d", port);
	assert_int_equal(gdb_server_start(&g, &vm, spec, false), 0);
	c = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(c, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
	sa.sin_port = htons(port);
	inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
	assert_int_equal(connect(c, (struct sockaddr *)&sa, sizeof(sa)), 0);
	/* monitor phys on, then 2 KiB of RAM: a 4 KiB reply frame */
	send_packet(c, "qRcmd,70687973206f6e");
	send_packet(c, "m80000000,800");
	usleep(200000);
	memset(naks, '-', sizeof(naks));
	assert_int_equal(send(c, naks, sizeof(naks), 0), sizeof(naks));
	usleep(500000);
	t0 = now_s();
	gdb_server_stop(&g);
	assert_true(now_s() - t0 < 3 * GDB_SEND_TIMEOUT_S);
	assert_false(atomic_load(&vm.pause.want)); /* the guest runs on */
	close(c);
	alarm(0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_peer_that_stops_reading),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests_name("gdb_server", tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * kvm-smoke: the smallest end-to-end check of the RISC-V KVM chain, run in
 * the emulated host before lkvm exists.  Creates a VM with one vCPU, maps a
 * page of guest code (kvm-smoke-guest.S) that prints through the SBI v0.1
 * console and DBCN, makes an unknown SBI call and shuts down through SRST,
 * and checks every exit on the way.  Prints "PASS name"/"FAIL name" lines;
 * exit status 0 only when all checks passed.  With --no-sbi-v01 (a host
 * kernel without CONFIG_RISCV_SBI_V01, as Debian's) the v0.1 call must not
 * exit: KVM answers it with NOT_SUPPORTED itself.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#define GUEST_BASE 0x80000000UL
#define GUEST_SIZE 0x10000UL

#define SBI_EXT_0_1_CONSOLE_PUTCHAR 0x01
#define SBI_EXT_DBCN 0x4442434e
#define SBI_EXT_DBCN_WRITE_BYTE 2
#define SBI_EXT_EXPERIMENTAL 0x08000123
#define SBI_ERR_NOT_SUPPORTED (-2L)

extern const unsigned char smoke_guest_start[], smoke_guest_end[];

static int failures;

static void check(int ok, const char *name, const char *detail)
{
	printf("%s %s%s%s\n", ok ? "PASS" : "FAIL", name, detail ? ": " : "",
	       detail ? detail : "");
	if (!ok)
		failures++;
}

static void fatal(const char *what)
{
	printf("FAIL kvm-smoke: %s: %s\n", what, strerror(errno));
	exit(1);
}

static int set_reg(int vcpu, __u64 id, unsigned long val)
{
	struct kvm_one_reg reg = { .id = id, .addr = (unsigned long)&val };

	return ioctl(vcpu, KVM_SET_ONE_REG, &reg);
}

static int setup_vm(int kvm, int *vcpu_out)
{
	struct kvm_userspace_memory_region region = {
		.slot = 0,
		.guest_phys_addr = GUEST_BASE,
		.memory_size = GUEST_SIZE,
	};
	void *ram;
	int vm, vcpu;

	vm = ioctl(kvm, KVM_CREATE_VM, 0);
	if (vm < 0)
		fatal("KVM_CREATE_VM");
	ram = mmap(NULL, GUEST_SIZE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ram == MAP_FAILED)
		fatal("mmap guest RAM");
	memcpy(ram, smoke_guest_start, smoke_guest_end - smoke_guest_start);
	region.userspace_addr = (unsigned long)ram;
	if (ioctl(vm, KVM_SET_USER_MEMORY_REGION, &region) < 0)
		fatal("KVM_SET_USER_MEMORY_REGION");
	vcpu = ioctl(vm, KVM_CREATE_VCPU, 0);
	if (vcpu < 0)
		fatal("KVM_CREATE_VCPU");
	check(set_reg(vcpu,
		      KVM_REG_RISCV | KVM_REG_SIZE_U64 | KVM_REG_RISCV_SBI_EXT |
			      KVM_REG_RISCV_SBI_SINGLE | KVM_RISCV_SBI_EXT_DBCN,
		      1) == 0,
	      "enable-dbcn", NULL);
	if (set_reg(vcpu,
		    KVM_REG_RISCV | KVM_REG_SIZE_U64 | KVM_REG_RISCV_CORE |
			    KVM_REG_RISCV_CORE_REG(regs.pc),
		    GUEST_BASE) < 0)
		fatal("set pc");
	*vcpu_out = vcpu;
	return vm;
}

/* Run until the next exit that is not a signal interruption. */
static void run_once(int vcpu)
{
	while (ioctl(vcpu, KVM_RUN, 0) < 0)
		if (errno != EINTR)
			fatal("KVM_RUN");
}

static int expect_sbi(int vcpu, struct kvm_run *run, unsigned long ext,
		      unsigned long fid, const char *name)
{
	char detail[128];
	int ok;

	run_once(vcpu);
	ok = run->exit_reason == KVM_EXIT_RISCV_SBI &&
	     run->riscv_sbi.extension_id == ext &&
	     run->riscv_sbi.function_id == fid;
	snprintf(detail, sizeof(detail), "exit %u ext %#lx fid %lu a0 %#lx",
		 run->exit_reason, run->riscv_sbi.extension_id,
		 run->riscv_sbi.function_id, run->riscv_sbi.args[0]);
	check(ok, name, detail);
	return ok;
}

/* The guest's s1: what its SBI v0.1 call returned. */
static long guest_s1(int vcpu)
{
	unsigned long val = 0;
	struct kvm_one_reg reg = {
		.id = KVM_REG_RISCV | KVM_REG_SIZE_U64 | KVM_REG_RISCV_CORE |
		      KVM_REG_RISCV_CORE_REG(regs.s1),
		.addr = (unsigned long)&val,
	};

	if (ioctl(vcpu, KVM_GET_ONE_REG, &reg) < 0)
		fatal("get s1");
	return (long)val;
}

int main(int argc, char **argv)
{
	char detail[128], out[3] = "";
	int v01 = !(argc > 1 && strcmp(argv[1], "--no-sbi-v01") == 0);
	struct kvm_run *run;
	int kvm, vcpu, size, n = 0;
	long s1;

	alarm(20);
	kvm = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (kvm < 0)
		fatal("open /dev/kvm");
	check(ioctl(kvm, KVM_GET_API_VERSION, 0) == KVM_API_VERSION,
	      "api-version", NULL);
	setup_vm(kvm, &vcpu);
	size = ioctl(kvm, KVM_GET_VCPU_MMAP_SIZE, 0);
	run = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, vcpu, 0);
	if (run == MAP_FAILED)
		fatal("mmap kvm_run");

	if (v01 && expect_sbi(vcpu, run, SBI_EXT_0_1_CONSOLE_PUTCHAR, 0,
			      "sbi-legacy-putchar")) {
		out[n++] = run->riscv_sbi.args[0];
		run->riscv_sbi.ret[0] = 0;
	}
	if (expect_sbi(vcpu, run, SBI_EXT_DBCN, SBI_EXT_DBCN_WRITE_BYTE,
		       "sbi-dbcn-write-byte")) {
		out[n++] = run->riscv_sbi.args[0];
		run->riscv_sbi.ret[0] = 0;
	}
	check(strcmp(out, v01 ? "KV" : "V") == 0, "console-output", out);
	s1 = guest_s1(vcpu);
	snprintf(detail, sizeof(detail), "%ld", s1);
	check(s1 == (v01 ? 0 : SBI_ERR_NOT_SUPPORTED),
	      v01 ? "sbi-legacy-putchar-returns" :
		    "sbi-legacy-not-supported-in-kernel",
	      detail);
	/* KVM presets ret[0] to NOT_SUPPORTED: leave it for the guest. */
	if (expect_sbi(vcpu, run, SBI_EXT_EXPERIMENTAL, 0,
		       "sbi-unknown-forwarded"))
		check(run->riscv_sbi.ret[0] ==
			      (unsigned long)SBI_ERR_NOT_SUPPORTED,
		      "sbi-unknown-preset-not-supported", NULL);

	run_once(vcpu);
	snprintf(detail, sizeof(detail), "exit %u type %u", run->exit_reason,
		 run->system_event.type);
	check(run->exit_reason == KVM_EXIT_SYSTEM_EVENT &&
		      run->system_event.type == KVM_SYSTEM_EVENT_SHUTDOWN,
	      "srst-shutdown", detail);
	printf("kvm-smoke: %d failure(s)\n", failures);
	return failures ? 1 : 0;
}

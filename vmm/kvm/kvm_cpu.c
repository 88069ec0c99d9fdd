// SPDX-License-Identifier: GPL-2.0
/*
 * vCPUs: creation, ONE_REG configuration (ISA and SBI extensions, custom
 * ids), what KVM reports about the harts, boot registers, and the vCPU
 * threads with their exit handling.
 */
#include <errno.h>
#include <linux/kvm.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "lib/log.h"
#include "vmm/kvm/sbi.h"
#include "vmm/kvm/vm.h"

/* vmm/isa.c lists 7.3's ids; the header lkvm is built with may be older. */
_Static_assert(KVM_RISCV_ISA_EXT_MAX <= ISA_EXT_COUNT,
	       "vmm/isa.c must list every KVM ISA extension");
_Static_assert(KVM_RISCV_ISA_EXT_ZAWRS == 61 && KVM_RISCV_ISA_EXT_SSTC == 8,
	       "vmm/isa.c ids must match asm/kvm.h");
_Static_assert(KVM_RISCV_SBI_EXT_MAX <= SBI_EXT_COUNT &&
		       KVM_RISCV_SBI_EXT_DBCN == 9,
	       "vmm/isa.c SBI ids must match asm/kvm.h");

#define REG_U64 (KVM_REG_RISCV | KVM_REG_SIZE_U64)
#define REG_CONFIG(f) \
	(REG_U64 | KVM_REG_RISCV_CONFIG | KVM_REG_RISCV_CONFIG_REG(f))
#define REG_CORE(f) (REG_U64 | KVM_REG_RISCV_CORE | KVM_REG_RISCV_CORE_REG(f))
#define REG_ISA_EXT(id) \
	(REG_U64 | KVM_REG_RISCV_ISA_EXT | KVM_REG_RISCV_ISA_SINGLE | (id))
#define REG_SBI_EXT(id) \
	(REG_U64 | KVM_REG_RISCV_SBI_EXT | KVM_REG_RISCV_SBI_SINGLE | (id))
#define REG_CSR(f)                                                 \
	(REG_U64 | KVM_REG_RISCV_CSR | KVM_REG_RISCV_CSR_GENERAL | \
	 KVM_REG_RISCV_CSR_REG(f))
#define REG_TIMER(f) \
	(REG_U64 | KVM_REG_RISCV_TIMER | KVM_REG_RISCV_TIMER_REG(f))

#define CSR_SEED 0x015
#define SEED_OPST_WAIT (1UL << 30)
#define SEED_OPST_ES16 (2UL << 30)
#define SRST_REASON_SYS_FAILURE 1

static int reg_get(int fd, uint64_t id, unsigned long *val)
{
	struct kvm_one_reg reg = { .id = id, .addr = (uintptr_t)val };

	return ioctl(fd, KVM_GET_ONE_REG, &reg) < 0 ? -errno : 0;
}

static int reg_set(int fd, uint64_t id, unsigned long val)
{
	struct kvm_one_reg reg = { .id = id, .addr = (uintptr_t)&val };

	return ioctl(fd, KVM_SET_ONE_REG, &reg) < 0 ? -errno : 0;
}

/*
 * Extensions the user disabled (--disable-EXT, --cpu-type min); warn once
 * for those KVM keeps: a warning for --disable-EXT, a debug line for
 * --cpu-type min (like kvmtool, which does not warn for those).
 */
static void cpu_disable_exts(struct vcpu *vcpu, bool warn)
{
	const struct vm_config *cfg = vcpu->vm->cfg;

	for (unsigned int id = 0; id < ISA_EXT_COUNT; id++) {
		int ret;

		if (!config_isa_hidden(cfg, id))
			continue;
		ret = reg_set(vcpu->fd, REG_ISA_EXT(id), 0);
		if (!ret || !warn)
			continue;
		if (ret == -ENOENT) /* newer than the host KVM: not there */
			pr_debug(
				"the host KVM has no ISA extension '%s' to disable",
				isa_exts[id].name);
		else if (isa_ext_test(cfg->disable_isa, id))
			pr_warn("KVM refuses to disable ISA extension '%s'",
				isa_exts[id].name);
		else
			pr_debug("--cpu-type min: KVM keeps ISA extension '%s'",
				 isa_exts[id].name);
	}
	for (unsigned int id = 0; id < SBI_EXT_COUNT; id++) {
		int ret;

		if (!(cfg->disable_sbi >> id & 1))
			continue;
		ret = reg_set(vcpu->fd, REG_SBI_EXT(id), 0);
		if (!ret || !warn)
			continue;
		if (ret == -ENOENT)
			pr_debug(
				"the host KVM has no SBI extension '%s' to disable",
				sbi_exts[id].name);
		else
			pr_warn("KVM refuses to disable SBI extension '%s'",
				sbi_exts[id].name);
	}
}

/*
 * SBI system suspend (SUSP): KVM forwards it to user space from Linux
 * 6.14 on, and leaves the extension off until asked.  lkvm turns it on
 * wherever KVM has it, unless --disable-sbi-susp; --suspend-seconds on a
 * host without it is an error, as the option could not do what it says.
 */
static int cpu_enable_susp(struct vcpu *vcpu, bool first)
{
	const struct vm_config *cfg = vcpu->vm->cfg;
	bool disabled = cfg->disable_sbi >> SBI_EXT_SUSP_ID & 1;
	unsigned long v;

	if (reg_get(vcpu->fd, REG_SBI_EXT(SBI_EXT_SUSP_ID), &v)) {
		if (cfg->set_suspend_seconds && first) {
			pr_err("--suspend-seconds: the host KVM does not forward SBI system suspend (SBI SUSP, Linux 6.14+)");
			return -ENOTSUP;
		}
		if (first)
			pr_debug(
				"SBI SUSP: the host KVM does not have it (Linux 6.14+): the guest cannot suspend");
		return 0;
	}
	if (disabled) {
		if (cfg->set_suspend_seconds && first) {
			pr_err("--suspend-seconds: SBI SUSP is off (--disable-sbi-susp)");
			return -EINVAL;
		}
		return 0;
	}
	if (!v && reg_set(vcpu->fd, REG_SBI_EXT(SBI_EXT_SUSP_ID), 1)) {
		if (cfg->set_suspend_seconds && first) {
			pr_err("--suspend-seconds: KVM refuses to turn SBI SUSP on");
			return -ENOTSUP;
		}
		if (first)
			pr_debug(
				"SBI SUSP: KVM refuses to turn it on: the guest cannot suspend");
		return 0;
	}
	if (first)
		pr_debug("SBI SUSP: on; a guest's system suspend lasts %u s",
			 cfg->set_suspend_seconds ? cfg->suspend_seconds :
						    CONFIG_SUSPEND_SECONDS);
	return 0;
}

static int cpu_custom_ids(struct vcpu *vcpu)
{
	const struct vm_config *cfg = vcpu->vm->cfg;
	int ret = 0;

	if (cfg->set_mvendorid)
		ret = ret   ?:
			      reg_set(vcpu->fd, REG_CONFIG(mvendorid),
				      cfg->mvendorid);
	if (cfg->set_marchid)
		ret = ret   ?:
			      reg_set(vcpu->fd, REG_CONFIG(marchid),
				      cfg->marchid);
	if (cfg->set_mimpid)
		ret = ret ?: reg_set(vcpu->fd, REG_CONFIG(mimpid), cfg->mimpid);
	if (ret)
		pr_err("vCPU %u: KVM refused a --custom-m*id value: %s",
		       vcpu->id, strerror(-ret));
	return ret;
}

/* Configure one vCPU before its first run. */
static int cpu_configure(struct vcpu *vcpu)
{
	bool first = vcpu->id == 0;
	int ret;

	cpu_disable_exts(vcpu, first);
	ret = cpu_enable_susp(vcpu, first);
	ret = ret ?: cpu_custom_ids(vcpu);
	if (ret)
		return ret;
	/* DBCN is off by default in KVM: the hv console needs it. */
	if (!(vcpu->vm->cfg->disable_sbi >> KVM_RISCV_SBI_EXT_DBCN & 1) &&
	    reg_set(vcpu->fd, REG_SBI_EXT(KVM_RISCV_SBI_EXT_DBCN), 1) && first)
		pr_warn("KVM cannot enable SBI DBCN: the hv console has only the legacy SBI calls");
	return 0;
}

/* Read what KVM offers, from vCPU 0 after configuration. */
static int cpu_read_caps(struct vcpu *vcpu, struct cpu_caps *caps)
{
	unsigned long v;
	int ret;

	memset(caps, 0, sizeof(*caps));
	ret = reg_get(vcpu->fd, REG_CONFIG(isa), &caps->isa);
	ret = ret   ?:
		      reg_get(vcpu->fd, REG_TIMER(frequency),
			      &caps->timebase_freq);
	if (ret) {
		pr_err("vCPU 0: cannot read the ISA or timer frequency: %s",
		       strerror(-ret));
		return ret;
	}
	for (unsigned int id = 0; id < ISA_EXT_COUNT; id++)
		if (!reg_get(vcpu->fd, REG_ISA_EXT(id), &v) && v)
			isa_ext_set(caps->isa_ext, id);
	if (reg_get(vcpu->fd, REG_CONFIG(satp_mode), &caps->satp_mode))
		caps->satp_mode = 0;
	if (isa_ext_test(caps->isa_ext, KVM_RISCV_ISA_EXT_ZICBOM))
		reg_get(vcpu->fd, REG_CONFIG(zicbom_block_size),
			&caps->cbom_block_size);
	if (isa_ext_test(caps->isa_ext, KVM_RISCV_ISA_EXT_ZICBOZ))
		reg_get(vcpu->fd, REG_CONFIG(zicboz_block_size),
			&caps->cboz_block_size);
	/*
	 * Zicbop's block size: the CONFIG register after satp_mode (6.16+).
	 * Without it the guest would refuse Zicbop: left out of its ISA.
	 */
	if (isa_ext_test(caps->isa_ext, ISA_EXT_ZICBOP_ID) &&
	    (reg_get(vcpu->fd,
		     REG_U64 | KVM_REG_RISCV_CONFIG |
			     (KVM_REG_RISCV_CONFIG_REG(satp_mode) + 1),
		     &caps->cbop_block_size) ||
	     !caps->cbop_block_size))
		caps->isa_ext[ISA_EXT_ZICBOP_ID / 64] &=
			~(1ULL << ISA_EXT_ZICBOP_ID % 64);
	caps->dbcn =
		!reg_get(vcpu->fd, REG_SBI_EXT(KVM_RISCV_SBI_EXT_DBCN), &v) &&
		v;
	return 0;
}

static int cpu_create(struct vm *vm, unsigned int id)
{
	struct vcpu *vcpu = &vm->vcpus[id];

	vcpu->vm = vm;
	vcpu->id = id;
	vcpu->fd = ioctl(vm->vm_fd, KVM_CREATE_VCPU, id);
	if (vcpu->fd < 0) {
		pr_err("KVM_CREATE_VCPU %u: %s", id, strerror(errno));
		return -errno;
	}
	vcpu->run = mmap(NULL, vm->run_size, PROT_READ | PROT_WRITE, MAP_SHARED,
			 vcpu->fd, 0);
	if (vcpu->run == MAP_FAILED) {
		vcpu->run = NULL;
		pr_err("vCPU %u: cannot map kvm_run: %s", id, strerror(errno));
		return -errno;
	}
	return cpu_configure(vcpu);
}

int kvm_cpus_create(struct vm *vm)
{
	int max = ioctl(vm->kvm_fd, KVM_CHECK_EXTENSION, KVM_CAP_MAX_VCPUS);
	int ret = 0;

	if (max > 0 && vm->cfg->nr_cpus > (unsigned int)max) {
		pr_err("-c %u: KVM supports at most %d vCPUs", vm->cfg->nr_cpus,
		       max);
		return -EINVAL;
	}
	pthread_rwlock_wrlock(&vm->vcpu_lock);
	for (unsigned int i = 0; i < vm->cfg->nr_cpus && !ret; i++)
		ret = cpu_create(vm, i);
	pthread_rwlock_unlock(&vm->vcpu_lock);
	ret = ret ?: cpu_read_caps(&vm->vcpus[0], &vm->caps);
	if (ret)
		kvm_cpus_destroy(vm);
	return ret;
}

void kvm_cpus_destroy(struct vm *vm)
{
	/* The coalesced ring is in vCPU 0's mapping: gone with it. */
	kvm_coalesced_flush(vm);
	pthread_mutex_lock(&vm->cring_lock);
	vm->cring = NULL;
	vm->cring_on = false;
	pthread_mutex_unlock(&vm->cring_lock);
	pthread_rwlock_wrlock(&vm->vcpu_lock);
	for (unsigned int i = 0; i < vm->cfg->nr_cpus; i++) {
		struct vcpu *vcpu = &vm->vcpus[i];

		if (vcpu->run)
			munmap(vcpu->run, vm->run_size);
		if (vcpu->fd >= 0)
			close(vcpu->fd);
		vcpu->run = NULL;
		vcpu->fd = -1;
	}
	pthread_rwlock_unlock(&vm->vcpu_lock);
}

int kvm_cpus_reset(struct vm *vm)
{
	int ret = 0;

	pthread_rwlock_rdlock(&vm->vcpu_lock);
	for (unsigned int i = 0; i < vm->cfg->nr_cpus && !ret; i++) {
		struct kvm_mp_state init = { KVM_MP_STATE_INIT_RECEIVED };
		struct kvm_mp_state after = { i ? KVM_MP_STATE_STOPPED :
						  KVM_MP_STATE_RUNNABLE };
		int fd = vm->vcpus[i].fd;

		if (ioctl(fd, KVM_SET_MP_STATE, &init) < 0 ||
		    ioctl(fd, KVM_SET_MP_STATE, &after) < 0) {
			ret = -errno;
			pr_warn("vCPU %u: KVM_SET_MP_STATE: %s: building a new VM",
				i, strerror(errno));
		}
	}
	pthread_rwlock_unlock(&vm->vcpu_lock);
	return ret;
}

void kvm_cpu_set_ext_irq(void *opaque, int level)
{
	struct vcpu *vcpu = opaque;
	struct kvm_interrupt irq = {
		.irq = level ? KVM_INTERRUPT_SET : KVM_INTERRUPT_UNSET,
	};

	pthread_rwlock_rdlock(&vcpu->vm->vcpu_lock);
	if (vcpu->fd >= 0 && ioctl(vcpu->fd, KVM_INTERRUPT, &irq) < 0)
		pr_once(LOG_WARN, "vCPU %u: KVM_INTERRUPT: %s", vcpu->id,
			strerror(errno));
	pthread_rwlock_unlock(&vcpu->vm->vcpu_lock);
}

int kvm_cpu_boot_regs(struct vcpu *vcpu, uint64_t pc, uint64_t a0, uint64_t a1)
{
	int ret = reg_set(vcpu->fd, REG_CORE(regs.pc), pc);

	ret = ret ?: reg_set(vcpu->fd, REG_CORE(regs.a0), a0);
	ret = ret ?: reg_set(vcpu->fd, REG_CORE(regs.a1), a1);
	if (ret)
		pr_err("vCPU %u: cannot set boot registers: %s", vcpu->id,
		       strerror(-ret));
	return ret;
}

/* --- exits -------------------------------------------------------------- */

static void cpu_mmio(struct vcpu *vcpu)
{
	struct kvm_run *run = vcpu->run;

	atomic_fetch_add(&vcpu->vm->stats.mmio_exits, 1);
	if (!mmio_bus_access(&vcpu->vm->bus, run->mmio.phys_addr,
			     run->mmio.data, run->mmio.len,
			     run->mmio.is_write) &&
	    vcpu->vm->cfg->debug_mmio)
		pr_info("--debug-mmio: vCPU %u: unhandled MMIO %s of %u bytes at %#llx",
			vcpu->id, run->mmio.is_write ? "write" : "read",
			run->mmio.len, (unsigned long long)run->mmio.phys_addr);
}

static void cpu_sbi(struct vcpu *vcpu)
{
	struct kvm_run *run = vcpu->run;
	struct sbi_call call = {
		.ext = run->riscv_sbi.extension_id,
		.fid = run->riscv_sbi.function_id,
		.ret = { (long)run->riscv_sbi.ret[0],
			 (long)run->riscv_sbi.ret[1] },
	};

	atomic_fetch_add(&vcpu->vm->stats.sbi_exits, 1);
	memcpy(call.args, run->riscv_sbi.args, sizeof(call.args));
	sbi_handle(&vcpu->vm->sbi, &call);
	run->riscv_sbi.ret[0] = call.ret[0];
	run->riscv_sbi.ret[1] = call.ret[1];
}

static void cpu_hold(struct vcpu *vcpu);

/*
 * SBI system suspend, forwarded by KVM once it has checked the call (the
 * sleep type, the resume address, every other hart stopped) and asked
 * for this vCPU's reset to the resume address at its next KVM_RUN.  The
 * suspend lasts --suspend-seconds; a stop, or a pause (lkvm pause, gdb),
 * ends or interrupts it.  False when the vCPU must stop.
 */
static bool cpu_suspend(struct vcpu *vcpu)
{
	struct vm *vm = vcpu->vm;
	struct vm_pause *p = &vm->pause;
	struct kvm_run *run = vcpu->run;
	unsigned int secs = vm->cfg->set_suspend_seconds ?
				    vm->cfg->suspend_seconds :
				    CONFIG_SUSPEND_SECONDS;
	struct timespec until, t0, t1;
	int ret = 0;

	atomic_fetch_add(&vm->stats.sbi_exits, 1);
	run->riscv_sbi.ret[1] = 0;
	if (run->riscv_sbi.function_id != SBI_EXT_SUSP_SYSTEM_SUSPEND) {
		run->riscv_sbi.ret[0] = (unsigned long)SBI_ERR_NOT_SUPPORTED;
		return true;
	}
	run->riscv_sbi.ret[0] = SBI_SUCCESS;
	pr_info("guest suspended (SBI system suspend): resuming in %u s", secs);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	clock_gettime(CLOCK_REALTIME, &until); /* the pause cond's clock */
	until.tv_sec += secs;
	pthread_mutex_lock(&p->lock);
	while (ret != ETIMEDOUT && !atomic_load(&vm->stop)) {
		if (atomic_load(&p->want)) {
			pthread_mutex_unlock(&p->lock);
			cpu_hold(vcpu);
			pthread_mutex_lock(&p->lock);
			continue;
		}
		ret = pthread_cond_timedwait(&p->cond, &p->lock, &until);
	}
	pthread_mutex_unlock(&p->lock);
	if (atomic_load(&vm->stop))
		return false;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	pr_info("guest resumes from system suspend after %.1f s",
		(double)(t1.tv_sec - t0.tv_sec) +
			(t1.tv_nsec - t0.tv_nsec) / 1e9);
	return true;
}

/* The Zkr seed CSR: 16 bits of entropy per read. */
static void cpu_csr(struct vcpu *vcpu)
{
	struct kvm_run *run = vcpu->run;
	uint16_t entropy = 0;

	atomic_fetch_add(&vcpu->vm->stats.other_exits, 1);
	if (run->riscv_csr.csr_num != CSR_SEED) {
		pr_guest_once("vCPU %u: CSR %#lx access forwarded; reads 0",
			      vcpu->id, run->riscv_csr.csr_num);
		run->riscv_csr.ret_value = 0;
		return;
	}
	if (getrandom(&entropy, sizeof(entropy), GRND_NONBLOCK) !=
	    sizeof(entropy))
		run->riscv_csr.ret_value = SEED_OPST_WAIT;
	else
		run->riscv_csr.ret_value = SEED_OPST_ES16 | entropy;
}

static void cpu_system_event(struct vcpu *vcpu)
{
	struct kvm_run *run = vcpu->run;

	switch (run->system_event.type) {
	case KVM_SYSTEM_EVENT_SHUTDOWN:
		if (run->system_event.ndata &&
		    run->system_event.data[0] == SRST_REASON_SYS_FAILURE)
			vm_request_stop(
				vcpu->vm, VM_STOP_CRASH,
				"guest shut down reporting a system failure");
		else
			vm_request_stop(vcpu->vm, VM_STOP_POWEROFF,
					"guest powered off");
		break;
	case KVM_SYSTEM_EVENT_RESET:
		if (vcpu->vm->cfg->no_reboot)
			vm_request_stop(
				vcpu->vm, VM_STOP_REBOOT,
				"guest asked for a reboot (--no-reboot)");
		else
			vm_request_stop(vcpu->vm, VM_STOP_RESET,
					"guest reboot");
		break;
	default:
		vm_request_stop(vcpu->vm, VM_STOP_CRASH,
				"vCPU %u: guest crashed (system event %u)",
				vcpu->id, run->system_event.type);
	}
}

/*
 * An ebreak with guest debugging on: the gdb stub takes it and every vCPU
 * is held (this one included, at the ebreak).  Without a stub to take it
 * (gdb detached meanwhile, which turned debugging off) the ebreak runs
 * again, now delivered to the guest.
 */
static void cpu_debug(struct vcpu *vcpu)
{
	struct vm *vm = vcpu->vm;

	atomic_fetch_add(&vm->stats.other_exits, 1);
	if (vm->debug_exit && vm->debug_exit(vm->debug_opaque, vcpu->id))
		kvm_cpus_pause_async(vm);
}

/* Returns false when the vCPU must stop. */
static bool cpu_handle_exit(struct vcpu *vcpu)
{
	struct kvm_run *run = vcpu->run;

	switch (run->exit_reason) {
	case KVM_EXIT_MMIO:
		cpu_mmio(vcpu);
		return true;
	case KVM_EXIT_RISCV_SBI:
		if (run->riscv_sbi.extension_id == SBI_EXT_SUSP)
			return cpu_suspend(vcpu);
		cpu_sbi(vcpu);
		return true;
	case KVM_EXIT_RISCV_CSR:
		cpu_csr(vcpu);
		return true;
	case KVM_EXIT_INTR:
		return true;
	case KVM_EXIT_SYSTEM_EVENT:
		cpu_system_event(vcpu);
		return false;
	case KVM_EXIT_DEBUG:
		cpu_debug(vcpu);
		return true;
	case KVM_EXIT_INTERNAL_ERROR:
		vm_request_stop(vcpu->vm, VM_STOP_CRASH,
				"vCPU %u: KVM internal error (suberror %u)",
				vcpu->id, run->internal.suberror);
		return false;
	case KVM_EXIT_FAIL_ENTRY:
		vm_request_stop(
			vcpu->vm, VM_STOP_CRASH,
			"vCPU %u: entry failed (reason %#llx)", vcpu->id,
			(unsigned long long)
				run->fail_entry.hardware_entry_failure_reason);
		return false;
	default:
		vm_request_stop(vcpu->vm, VM_STOP_CRASH,
				"vCPU %u: unexpected KVM exit %u", vcpu->id,
				run->exit_reason);
		return false;
	}
}

/*
 * KVM_RUN fails with EIO or EOPNOTSUPP for guest accesses it cannot
 * emulate (misaligned or atomic MMIO, instruction fetch outside RAM):
 * the guest's fault, and running it again would repeat it.
 */
static void cpu_run_error(struct vcpu *vcpu, int err)
{
	unsigned long pc = 0;

	if (err == EIO || err == EOPNOTSUPP) {
		reg_get(vcpu->fd, REG_CORE(regs.pc), &pc);
		vm_request_stop(
			vcpu->vm, VM_STOP_CRASH,
			"vCPU %u: guest access KVM cannot emulate at pc %#lx (%s)",
			vcpu->id, pc, strerror(err));
		return;
	}
	vm_request_stop(vcpu->vm, VM_STOP_HOST_ERROR, "vCPU %u: KVM_RUN: %s",
			vcpu->id, strerror(err));
}

/* --- pause ------------------------------------------------------------- */

/* user_regs_struct order: the ONE_REG CORE index of each. */
static const char *const core_names[] = {
	"pc", "ra", "sp", "gp", "tp",  "t0",  "t1", "t2", "s0", "s1", "a0",
	"a1", "a2", "a3", "a4", "a5",  "a6",  "a7", "s2", "s3", "s4", "s5",
	"s6", "s7", "s8", "s9", "s10", "s11", "t3", "t4", "t5", "t6",
};

static const struct {
	const char *name;
	uint64_t id;
} csr_regs[] = {
	{ "sstatus", REG_CSR(sstatus) }, { "sepc", REG_CSR(sepc) },
	{ "scause", REG_CSR(scause) },	 { "stval", REG_CSR(stval) },
	{ "stvec", REG_CSR(stvec) },	 { "satp", REG_CSR(satp) },
	{ "sie", REG_CSR(sie) },	 { "sip", REG_CSR(sip) },
};

static size_t regs_put(struct vcpu *vcpu, size_t len, const char *name,
		       uint64_t id, bool nl)
{
	unsigned long v;
	int n;

	if (reg_get(vcpu->fd, id, &v))
		n = snprintf(vcpu->regs + len, sizeof(vcpu->regs) - len,
			     " %4s ?                 %s", name, nl ? "\n" : "");
	else
		n = snprintf(vcpu->regs + len, sizeof(vcpu->regs) - len,
			     " %4s 0x%016lx%s", name, v, nl ? "\n" : "");
	return n < 0 ? len : len + n;
}

/* The registers, read in the vCPU's own thread (paused). */
static void cpu_regs_snapshot(struct vcpu *vcpu)
{
	unsigned long mode = 0;
	size_t len;

	reg_get(vcpu->fd, REG_CORE(mode), &mode);
	len = snprintf(vcpu->regs, sizeof(vcpu->regs), "vCPU %u (%s-mode):\n",
		       vcpu->id, mode == KVM_RISCV_MODE_S ? "S" : "U");
	for (unsigned int i = 0; i < 32 && len < sizeof(vcpu->regs); i++)
		len = regs_put(vcpu, len, core_names[i],
			       REG_U64 | KVM_REG_RISCV_CORE | i, i % 4 == 3);
	for (unsigned int i = 0; i < 8 && len < sizeof(vcpu->regs); i++)
		len = regs_put(vcpu, len, csr_regs[i].name, csr_regs[i].id,
			       i % 4 == 3);
}

/* Wait in the pause until resumed or stopped. */
static void cpu_hold(struct vcpu *vcpu)
{
	struct vm_pause *p = &vcpu->vm->pause;

	cpu_regs_snapshot(vcpu);
	pthread_mutex_lock(&p->lock);
	p->held++;
	pthread_cond_broadcast(&p->cond);
	while (p->want && !atomic_load(&vcpu->vm->stop))
		pthread_cond_wait(&p->cond, &p->lock);
	p->held--;
	/* kvm_cpus_stop() sets it (under the lock) once stop is set. */
	if (!atomic_load(&vcpu->vm->stop))
		vcpu->run->immediate_exit = 0;
	pthread_mutex_unlock(&p->lock);
}

/* The first vCPU to run notes lkvm's CPU time until then (--debug). */
static void cpu_note_ready(struct vm *vm)
{
	unsigned long none = 0;
	struct rusage ru;

	if (atomic_load(&vm->stats.ready_cpu_us) || getrusage(RUSAGE_SELF, &ru))
		return;
	atomic_compare_exchange_strong(
		&vm->stats.ready_cpu_us, &none,
		(unsigned long)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) *
				1000000 +
			ru.ru_utime.tv_usec + ru.ru_stime.tv_usec + 1);
}

static void *cpu_thread(void *arg)
{
	struct vcpu *vcpu = arg;
	struct vm *vm = vcpu->vm;

	cpu_note_ready(vm);
	while (!atomic_load(&vm->stop)) {
		if (atomic_load(&vm->pause.want)) {
			cpu_hold(vcpu);
			continue;
		}
		if (ioctl(vcpu->fd, KVM_RUN, 0) < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			cpu_run_error(vcpu, errno);
			break;
		}
		/* The guest's batched writes come before this exit's access. */
		kvm_coalesced_flush(vm);
		if (!cpu_handle_exit(vcpu))
			break;
		if (vm->ext_resync)
			vm->ext_resync(vm->ext_resync_opaque, vcpu->id);
	}
	return NULL;
}

static void cpu_kick_handler(int sig)
{
	(void)sig;
}

int kvm_cpus_start(struct vm *vm)
{
	struct sigaction sa = { .sa_handler = cpu_kick_handler };
	char name[16]; /* a thread name's limit, with its NUL */
	sigset_t kick;
	int ret;

	/* SIGUSR1 kicks a vCPU out of KVM_RUN: unblocked in vCPU threads. */
	sigaction(SIGUSR1, &sa, NULL);
	sigemptyset(&kick);
	sigaddset(&kick, SIGUSR1);
	for (unsigned int i = 0; i < vm->cfg->nr_cpus; i++) {
		struct vcpu *vcpu = &vm->vcpus[i];

		vcpu->run->immediate_exit = 0;
		pthread_mutex_lock(&vm->pause.lock);
		pthread_sigmask(SIG_UNBLOCK, &kick, NULL);
		ret = pthread_create(&vcpu->thread, NULL, cpu_thread, vcpu);
		pthread_sigmask(SIG_BLOCK, &kick, NULL);
		vcpu->thread_started = !ret;
		pthread_mutex_unlock(&vm->pause.lock);
		if (ret) {
			pr_err("cannot start vCPU %u: %s", i, strerror(ret));
			return -ret;
		}
		snprintf(name, sizeof(name), "lkvm-vcpu-%u", i);
		pthread_setname_np(vcpu->thread, name);
	}
	return 0;
}

/* Lock held: make every running vCPU thread leave KVM_RUN soon. */
static void cpus_kick(struct vm *vm)
{
	for (unsigned int i = 0; i < vm->cfg->nr_cpus; i++) {
		struct vcpu *vcpu = &vm->vcpus[i];

		if (!vcpu->thread_started)
			continue;
		vcpu->run->immediate_exit = 1;
		pthread_kill(vcpu->thread, SIGUSR1);
	}
	pthread_cond_broadcast(&vm->pause.cond); /* a suspended one waits */
}

static unsigned int cpus_started(const struct vm *vm)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < vm->cfg->nr_cpus; i++)
		n += vm->vcpus[i].thread_started;
	return n;
}

void kvm_cpus_pause_async(struct vm *vm)
{
	pthread_mutex_lock(&vm->pause.lock);
	if (!vm->pause.want)
		vm->pause.events++;
	atomic_store(&vm->pause.want, true);
	cpus_kick(vm);
	pthread_mutex_unlock(&vm->pause.lock);
}

int kvm_cpus_pause(struct vm *vm, unsigned int timeout_ms)
{
	struct vm_pause *p = &vm->pause;
	struct timespec until;
	int ret = 0;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += timeout_ms / 1000;
	until.tv_nsec += (long)(timeout_ms % 1000) * 1000000;
	if (until.tv_nsec >= 1000000000) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000;
	}
	pthread_mutex_lock(&p->lock);
	if (atomic_load(&vm->stop) || !cpus_started(vm)) {
		pthread_mutex_unlock(&p->lock);
		return -ESHUTDOWN;
	}
	if (!p->want)
		p->events++;
	atomic_store(&p->want, true);
	cpus_kick(vm);
	while (!ret && p->held < cpus_started(vm) && !atomic_load(&vm->stop))
		ret = pthread_cond_timedwait(&p->cond, &p->lock, &until);
	if (atomic_load(&vm->stop))
		ret = ESHUTDOWN;
	pthread_mutex_unlock(&p->lock);
	if (ret)
		kvm_cpus_resume(vm);
	return -ret;
}

void kvm_cpus_resume(struct vm *vm)
{
	pthread_mutex_lock(&vm->pause.lock);
	atomic_store(&vm->pause.want, false);
	pthread_cond_broadcast(&vm->pause.cond);
	pthread_mutex_unlock(&vm->pause.lock);
}

bool kvm_cpus_paused(struct vm *vm)
{
	return atomic_load(&vm->pause.want);
}

/* A stop is requested (vm->stop set): end the vCPU threads. */
void kvm_cpus_stop(struct vm *vm)
{
	pthread_mutex_lock(&vm->pause.lock);
	cpus_kick(vm);
	pthread_cond_broadcast(&vm->pause.cond); /* paused ones too */
	pthread_mutex_unlock(&vm->pause.lock);
	for (unsigned int i = 0; i < vm->cfg->nr_cpus; i++)
		if (vm->vcpus[i].thread_started)
			pthread_join(vm->vcpus[i].thread, NULL);
	pthread_mutex_lock(&vm->pause.lock);
	for (unsigned int i = 0; i < vm->cfg->nr_cpus; i++)
		vm->vcpus[i].thread_started = false;
	pthread_mutex_unlock(&vm->pause.lock);
	kvm_coalesced_flush(vm); /* the last writes of a quiet guest */
}

/* --- debugging ---------------------------------------------------------- */

static const struct {
	unsigned int num;
	uint64_t id;
} csr_ids[] = {
	{ 0x100, REG_CSR(sstatus) },	 { 0x104, REG_CSR(sie) },
	{ 0x105, REG_CSR(stvec) },	 { 0x106, REG_CSR(scounteren) },
	{ 0x10a, REG_CSR(senvcfg) },	 { 0x140, REG_CSR(sscratch) },
	{ 0x141, REG_CSR(sepc) },	 { 0x142, REG_CSR(scause) },
	{ 0x143, REG_CSR(stval) },	 { 0x144, REG_CSR(sip) },
	{ CSR_NUM_SATP, REG_CSR(satp) },
};

/* The ONE_REG id of reg, or 0. */
static uint64_t cpu_reg_id(unsigned int reg)
{
	if (reg < 32) /* CORE: pc, then x1..x31 (user_regs_struct) */
		return REG_U64 | KVM_REG_RISCV_CORE | reg;
	for (size_t i = 0; i < sizeof(csr_ids) / sizeof(csr_ids[0]); i++)
		if (VCPU_REG_CSR(csr_ids[i].num) == reg)
			return csr_ids[i].id;
	return 0;
}

int kvm_cpu_reg_get(struct vcpu *vcpu, unsigned int reg, uint64_t *val)
{
	uint64_t id = cpu_reg_id(reg);
	unsigned long v = 0;
	int ret = -ENOENT;

	pthread_rwlock_rdlock(&vcpu->vm->vcpu_lock);
	if (id && vcpu->fd >= 0)
		ret = reg_get(vcpu->fd, id, &v);
	else if (id)
		ret = -ESRCH;
	pthread_rwlock_unlock(&vcpu->vm->vcpu_lock);
	*val = v;
	return ret;
}

int kvm_cpu_reg_set(struct vcpu *vcpu, unsigned int reg, uint64_t val)
{
	uint64_t id = cpu_reg_id(reg);
	int ret = -ENOENT;

	pthread_rwlock_rdlock(&vcpu->vm->vcpu_lock);
	if (id && vcpu->fd >= 0)
		ret = reg_set(vcpu->fd, id, val);
	else if (id)
		ret = -ESRCH;
	pthread_rwlock_unlock(&vcpu->vm->vcpu_lock);
	return ret;
}

int kvm_cpu_set_debug(struct vcpu *vcpu, bool on)
{
	struct kvm_guest_debug dbg = {
		.control = on ? KVM_GUESTDBG_ENABLE : 0,
	};
	int ret = -ESRCH;

	pthread_rwlock_rdlock(&vcpu->vm->vcpu_lock);
	if (vcpu->fd >= 0)
		ret = ioctl(vcpu->fd, KVM_SET_GUEST_DEBUG, &dbg) < 0 ? -errno :
								       0;
	pthread_rwlock_unlock(&vcpu->vm->vcpu_lock);
	return ret;
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The KVM side of a running VM: the KVM handles, guest RAM, the vCPUs, the
 * MMIO bus the vCPU threads dispatch to, the SBI context, and the stop
 * request that any thread raises and the main thread acts on.  Devices
 * live elsewhere (board.h and the glue modules); this header knows none.
 */
#ifndef RVKVM_VM_H
#define RVKVM_VM_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "vmm/config.h"
#include "vmm/isa.h"
#include "lib/guest_mem.h"
#include "vmm/kvm/gsi_routes.h"
#include "vmm/kvm/mmio_bus.h"
#include "vmm/kvm/sbi.h"

struct kvm_run;
struct kvm_coalesced_mmio_ring;

/* Why the VM stops; the first request wins. */
enum vm_stop {
	VM_RUNNING = 0,
	VM_STOP_POWEROFF,   /* SRST shutdown */
	VM_STOP_RESET,	    /* SRST reboot: reset and boot again */
	VM_STOP_SIGNAL,	    /* signal or Ctrl-A x */
	VM_STOP_CRASH,	    /* guest crashed */
	VM_STOP_HOST_ERROR, /* host-side failure while running */
	VM_STOP_REBOOT,	    /* SRST reboot with --no-reboot: end the run */
	VM_STOP_PANIC,	    /* the guest's pvpanic device reported a panic */
	VM_STOP_TIMEOUT,    /* --timeout expired */
};

/* Room for one vCPU's register dump (lkvm debug -d). */
#define VCPU_REGS_TEXT 1280

struct vcpu {
	struct vm *vm;
	unsigned int id;
	int fd;
	struct kvm_run *run;
	pthread_t thread;
	bool thread_started;	   /* changed under vm->pause.lock */
	char regs[VCPU_REGS_TEXT]; /* read by the thread as it pauses */
};

/*
 * Pausing (lkvm pause, debug): the vCPU threads leave KVM_RUN and wait
 * until resumed; the I/O threads carry on.
 */
struct vm_pause {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	atomic_bool want;    /* a pause is asked for */
	unsigned int held;   /* vCPU threads waiting in the pause */
	unsigned int events; /* pause requests so far (tests) */
};

/* What KVM tells about the harts (the same for all). */
struct cpu_caps {
	unsigned long isa;		 /* CONFIG isa (single letters) */
	uint64_t isa_ext[ISA_EXT_WORDS]; /* enabled ISA_EXT ids */
	unsigned long satp_mode;
	unsigned long cbom_block_size, cboz_block_size, cbop_block_size;
	unsigned long timebase_freq;
	bool dbcn; /* SBI DBCN enabled */
};

struct vm_stats {
	atomic_ulong mmio_exits, sbi_exits, other_exits;
	atomic_ulong coalesced_writes; /* MMIO writes that did not exit */
	/*
	 * lkvm's CPU time (user + system, all threads) from exec to the
	 * first KVM_RUN of any vCPU, in us + 1 (0: not yet run).
	 */
	atomic_ulong ready_cpu_us;
};

struct vm {
	const struct vm_config *cfg;
	int kvm_fd, vm_fd;
	int irqchip_fd; /* KVM's AIA or PLIC device; -1: none */
	/*
	 * KVM resets a vCPU on KVM_SET_MP_STATE INIT_RECEIVED (the VM's
	 * KVM_CAP_RISCV_MP_STATE_RESET is on, Linux 6.16+): a guest reboot
	 * keeps the VM (kvm_vm_warm_reset()).
	 */
	bool mp_reset;
	int run_size;
	uint64_t ram_base;    /* guest physical, from the board */
	struct guest_mem mem; /* mapped for the life of the vm */
	size_t ram_map_size;
	int ram_fd; /* --hugetlbfs file, --fs memfd; -1: anonymous */
	struct vcpu vcpus[CONFIG_MAX_CPUS];
	struct cpu_caps caps;
	/*
	 * Held for reading to use a vCPU fd or the VM fd from outside the
	 * vCPU threads (interrupts); for writing while they change.
	 */
	pthread_rwlock_t vcpu_lock;

	struct mmio_bus bus;
	/*
	 * KVM's coalesced MMIO ring, in vCPU 0's kvm_run mapping (NULL: none),
	 * its entries, and whether the one window is registered; the lock
	 * serialises the replay and the (un)registration.
	 */
	struct kvm_coalesced_mmio_ring *cring;
	uint32_t cring_max;
	bool cring_on;
	pthread_mutex_t cring_lock;
	/* The AIA's GSI routes for MSI irqfds (live while it exists). */
	struct gsi_routes routes;
	struct sbi_ctx sbi;
	struct vm_stats stats;
	struct vm_pause pause;
	unsigned long boots; /* reboots so far */

	/*
	 * A user-space interrupt controller's: each vCPU thread calls it with
	 * its hart after every exit, to drive its external interrupt again
	 * (KVM clears it when it resets the vCPU on SBI HSM hart_start).
	 */
	void (*ext_resync)(void *opaque, unsigned int hart);
	void *ext_resync_opaque;

	/*
	 * The gdb stub's, while attached: a vCPU thread calls it when its
	 * guest ran an ebreak (KVM_EXIT_DEBUG); true: the stub takes the
	 * stop (every vCPU is then held as by kvm_cpus_pause).
	 */
	bool (*debug_exit)(void *opaque, unsigned int hart);
	void *debug_opaque;

	_Atomic int stop;   /* enum vm_stop */
	int stop_fd;	    /* eventfd: wakes the main thread */
	int timeout_fd;	    /* --timeout: a timerfd that expires once; -1 */
	char stop_buf[160]; /* why: the exit line */
};

/* Everything closed and empty; -errno when the stop eventfd fails. */
int vm_init(struct vm *vm, const struct vm_config *cfg, uint64_t ram_base);

/* Raise a stop request (first one wins); safe from any thread. */
void vm_request_stop(struct vm *vm, enum vm_stop why, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* kvm_coalesced.c */
/* Per VM, after the vCPUs exist: find KVM's coalesced MMIO ring, if any. */
void kvm_coalesced_open(struct vm *vm);
/*
 * Record the guest's writes to [addr, addr + size) in the ring instead of
 * exiting (on), or no longer (off); -ENOTSUP without the ring, -errno.
 */
int kvm_coalesce(struct vm *vm, uint64_t addr, uint32_t size, bool on);
/* Replay what the ring holds on the MMIO bus, in order; any thread. */
void kvm_coalesced_flush(struct vm *vm);

/* kvm_vm.c */
int kvm_vm_open(struct vm *vm);
void kvm_vm_close(struct vm *vm);
/* Map guest RAM once (never unmapped while any thread may touch it). */
int kvm_ram_alloc(struct vm *vm);
/* Per boot: RAM as memslot 0 of the new KVM VM, zeroed first if asked. */
int kvm_ram_register(struct vm *vm, bool zero);
/* Zero RAM for the next boot: fresh pages on the next touch. */
void kvm_ram_zero(struct vm *vm);
/* Unmap guest RAM: only once every thread that can touch it has ended. */
void kvm_ram_free(struct vm *vm);
/*
 * Signal fd on a len-byte guest write of the value datamatch to addr
 * instead of an MMIO exit (other values still exit); with !assign, remove
 * that binding.
 */
int kvm_ioeventfd(struct vm *vm, uint64_t addr, unsigned int len,
		  uint32_t datamatch, int fd, bool assign);

/* kvm_aia.c */
struct aia_params;
struct aia_state;
struct irqchip_host;
/* What the host's KVM offers to vm (open); never fails. */
void kvm_irqchip_probe(const struct vm *vm, struct irqchip_host *h);
/* Create and initialise KVM's AIA (after the vCPUs, before they run). */
int kvm_aia_create(struct vm *vm, const struct aia_params *p,
		   struct aia_state *st);
/* Create and initialise KVM's in-kernel PLIC (same time as the AIA). */
int kvm_plic_create(struct vm *vm, uint64_t base, uint32_t nr_sources);
/* Close KVM's in-kernel irqchip (AIA or PLIC). */
void kvm_aia_destroy(struct vm *vm);
/*
 * Put the in-kernel AIA's APLIC (sources, targets, pending and enable
 * bits, domaincfg) or the in-kernel PLIC (priorities, pending, claims,
 * contexts) back to their state after creation, for a guest reboot that
 * keeps the VM; the IMSICs and the PLIC's outputs are the vCPUs' (reset
 * with them).  aia: the AIA's state, NULL for the PLIC.
 */
int kvm_irqchip_reset(struct vm *vm, const struct aia_state *aia);
/* Raise or lower wired interrupt source src (GSI src); any thread. */
void kvm_irq_line(struct vm *vm, unsigned int src, int level);
/* Signal GSI gsi (an edge) whenever fd is written. */
int kvm_irqfd(struct vm *vm, int fd, unsigned int gsi);
/* A message-signalled interrupt (an IMSIC address and identity). */
void kvm_signal_msi(struct vm *vm, uint64_t addr, uint32_t data);
/*
 * The AIA was just created (KVM's default routing, aia's sources):
 * vm->routes pushes its tables and binds its irqfds through KVM from now
 * on, until gsi_routes_stop().  0 or -EINVAL.
 */
int kvm_routes_start(struct vm *vm, const struct aia_state *aia);

/* kvm_cpu.c */
int kvm_cpus_create(struct vm *vm);
void kvm_cpus_destroy(struct vm *vm);
/*
 * With vm->mp_reset: every vCPU back to its state at creation (KVM_SET_MP_STATE
 * INIT_RECEIVED), vCPU 0 runnable and the others stopped, as after
 * KVM_CREATE_VCPU; the vCPU threads have ended.
 */
int kvm_cpus_reset(struct vm *vm);
int kvm_cpu_boot_regs(struct vcpu *vcpu, uint64_t pc, uint64_t a0, uint64_t a1);
int kvm_cpus_start(struct vm *vm);
/* An irq_line set(): the hart's supervisor external interrupt. */
void kvm_cpu_set_ext_irq(void *opaque, int level);
void kvm_cpus_stop(struct vm *vm);
/*
 * Hold every vCPU thread out of KVM_RUN (each records its registers in
 * vcpu->regs as it stops): 0, -ESHUTDOWN if the VM is stopping or between
 * boots, -ETIMEDOUT if the vCPUs did not stop within timeout_ms.  A
 * second pause is 0.
 */
int kvm_cpus_pause(struct vm *vm, unsigned int timeout_ms);
/* Let them run again (0 also when not paused). */
void kvm_cpus_resume(struct vm *vm);
bool kvm_cpus_paused(struct vm *vm);
/* Ask for a pause without waiting for it (any thread). */
void kvm_cpus_pause_async(struct vm *vm);

/*
 * Registers of a vCPU that is held or stopped (gdb stub, crash dumps):
 * reg is VCPU_REG_PC, 1..31 for x1..x31, or VCPU_REG_CSR(number) for an
 * S-mode CSR KVM offers (sstatus, sie, stvec, scounteren, senvcfg,
 * sscratch, sepc, scause, stval, sip, satp).  0 or -errno (-ENOENT: no
 * such register).
 */
#define VCPU_REG_PC 0
#define VCPU_REG_CSR(n) (0x1000u | (n))
#define CSR_NUM_SATP 0x180
int kvm_cpu_reg_get(struct vcpu *vcpu, unsigned int reg, uint64_t *val);
int kvm_cpu_reg_set(struct vcpu *vcpu, unsigned int reg, uint64_t val);
/* KVM_SET_GUEST_DEBUG: with on, the guest's ebreaks exit to lkvm. */
int kvm_cpu_set_debug(struct vcpu *vcpu, bool on);

#endif

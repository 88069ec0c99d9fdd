/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The running VM: KVM handles, guest RAM, vCPUs, devices and the stop
 * request that vCPU threads raise and the main thread acts on.
 */
#ifndef RVKVM_VM_H
#define RVKVM_VM_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "iothread.h"
#include "tap_linux.h"
#include "hostcons.h"
#include "lib/guest_mem.h"
#include "isa.h"
#include "layout.h"
#include "mmio_bus.h"
#include "sbi.h"
#include "devices/plic.h"
#include "devices/uart8250.h"
#include "virtio/blk.h"
#include "virtio/console.h"
#include "virtio/net.h"
#include "virtio/rng.h"

struct kvm_run;

/* Why the VM stops; the first request wins. */
enum vm_stop {
	VM_RUNNING = 0,
	VM_STOP_POWEROFF,	/* SRST shutdown */
	VM_STOP_RESET,		/* SRST reboot: reset and boot again */
	VM_STOP_SIGNAL,		/* signal or Ctrl-A x */
	VM_STOP_CRASH,		/* guest crashed */
	VM_STOP_HOST_ERROR,	/* host-side failure while running */
};

struct vcpu {
	struct vm *vm;
	unsigned int id;
	int fd;
	struct kvm_run *run;
	pthread_t thread;
	bool thread_started;
};

/* What KVM tells about the harts (the same for all). */
struct cpu_caps {
	unsigned long isa;			/* CONFIG isa (single letters) */
	uint64_t isa_ext[ISA_EXT_WORDS];	/* enabled ISA_EXT ids */
	unsigned long satp_mode;
	unsigned long cbom_block_size, cboz_block_size;
	unsigned long timebase_freq;
	bool dbcn;				/* SBI DBCN enabled */
};

struct vm_stats {
	atomic_ulong mmio_exits, sbi_exits, other_exits;
};

struct vm {
	struct vm_config *cfg;
	int kvm_fd, vm_fd;
	int run_size;
	struct guest_mem mem;
	size_t ram_map_size;
	struct vcpu vcpus[CONFIG_MAX_CPUS];
	struct cpu_caps caps;

	struct mmio_bus bus;
	struct plic plic;
	struct irq_line plic_out[CONFIG_MAX_CPUS];
	struct uart8250 uart;
	struct irq_line uart_irq;
	struct virtio_rng rng;		/* with --rng */
	struct virtio_console vcon;	/* with --console virtio */
	struct nic {
		struct vm *vm;
		struct tap tap;
		struct virtio_net net;
		uint8_t *frame;		/* a frame the guest had no room for */
		size_t frame_len;	/* 0: none held */
		int wake_fd;		/* rx buffers posted: eventfd */
	} nics[CONFIG_MAX_NICS];	/* -n mode=tap, in order */
	unsigned int nr_nics;		/* set up so far */
	struct virtio_blk blk[CONFIG_MAX_DISKS];	/* -d, in order */
	struct virtio_blk_file blk_file[CONFIG_MAX_DISKS];
	unsigned int nr_blk;		/* set up so far */

	/* virtio-mmio devices in slot order (slot n: layout.h). */
	struct virtio_slot {
		struct vm *vm;
		struct virtio_mmio *transport;
		unsigned int irq;	/* PLIC source */
		struct irq_line line;	/* the transport's interrupt */
		int kick_fd;		/* eventfd behind a KVM ioeventfd */
	} virtio[LAYOUT_VIRTIO_MMIO_SLOTS];
	unsigned int nr_virtio;
	struct iothread io;
	struct hostcons console;
	struct sbi_console hv_console;
	struct sbi_ctx sbi;
	/* Held for reading to use a vCPU fd from outside its thread. */
	pthread_rwlock_t vcpu_lock;

	unsigned long boots;		/* reboots so far */

	_Atomic int stop;		/* enum vm_stop */
	int stop_fd;			/* eventfd: wakes the main thread */
	int input_quit_fd;		/* eventfd: ends the console thread */
	pthread_t input_thread;
	char stop_buf[160];		/* why: the exit line */
	struct vm_stats stats;
};

/* Raise a stop request (first one wins); safe from any thread. */
void vm_request_stop(struct vm *vm, enum vm_stop why, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* kvm_vm.c */
int kvm_vm_open(struct vm *vm);
void kvm_vm_close(struct vm *vm);
int kvm_ram_map(struct vm *vm);
/* Signal fd on a 4-byte guest write to addr instead of an MMIO exit. */
int kvm_ioeventfd(struct vm *vm, uint64_t addr, int fd);
void kvm_ram_unmap(struct vm *vm);

/* kvm_cpu.c */
int kvm_cpus_create(struct vm *vm);
void kvm_cpus_destroy(struct vm *vm);
int kvm_cpu_boot_regs(struct vcpu *vcpu, uint64_t pc, uint64_t a0,
		      uint64_t a1);
int kvm_cpus_start(struct vm *vm);
/* An irq_line set(): the hart's supervisor external interrupt. */
void kvm_cpu_set_ext_irq(void *opaque, int level);
void kvm_cpus_stop(struct vm *vm);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lkvm run --gdb tcp:[HOST:]PORT | unix:PATH: a GDB remote stub on a
 * thread of its own, one gdb at a time (lib/gdb_stub.h speaks the
 * protocol).  tcp:PORT listens on 127.0.0.1 only; give HOST (a numeric
 * address, 0.0.0.0 for all) to listen elsewhere.  While gdb has the
 * guest stopped every vCPU is held (kvm_cpus_pause); continue resumes
 * them all, with guest debugging on (KVM_SET_GUEST_DEBUG: the guest's
 * ebreaks exit to lkvm) while breakpoints are set.  Memory is read by
 * virtual address through the selected vCPU's satp (lib/pgwalk.h), or
 * physical after 'monitor phys on'.  --gdb-wait holds the vCPUs before
 * their first instruction until gdb continues.
 */
#ifndef RVKVM_GDB_H
#define RVKVM_GDB_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/un.h>

#include "lib/gdb_stub.h"
#include "vmm/kvm/vm.h"

struct gdb_server {
	struct vm *vm;
	int lfd, cfd;	/* listening and client sockets; -1: none */
	int quit_fd;	/* eventfd: ends the thread */
	int stop_fd;	/* eventfd: a vCPU hit an ebreak */
	atomic_int hit; /* its hart + 1; 0: none */
	atomic_bool attached;
	bool running;	  /* gdb's view: continued, not yet stopped */
	bool send_failed; /* the peer is not taking replies: drop it */
	bool started;
	pthread_t thread;
	char unix_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	struct gdb_rx rx;
	struct gdb_session sess;
	size_t frame_len; /* the last packet sent, for a '-' */
	uint8_t frame[GDB_FRAME_MAX];
};

/* Listen at spec and start the thread: 0 or -errno, having said why. */
int gdb_server_start(struct gdb_server *g, struct vm *vm, const char *spec,
		     bool wait);
/* Tell gdb the guest is gone, stop the thread, close (safe if unused). */
void gdb_server_stop(struct gdb_server *g);

#endif

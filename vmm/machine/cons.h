/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The console back-end: guest output to stdout through a bounded buffer
 * that no stalled reader can turn into a blocked thread, host input from
 * stdin to the guest's console (the UART, the SBI console or
 * virtio-console), the Ctrl-A escape, and the virtio-console device when
 * --console virtio.
 */
#ifndef RVKVM_CONS_H
#define RVKVM_CONS_H

#include <pthread.h>
#include <stdbool.h>

#include "vmm/board/board.h"
#include "vmm/host/conslog.h"
#include "vmm/host/hostcons.h"
#include "vmm/host/outbuf.h"
#include "vmm/host/outfd.h"
#include "virtio/console.h"
#include "vmm/kvm/vm.h"

/* Guest output waiting for stdout, at most (then see outbuf.h). */
#define CONS_OUT_SIZE (64 * 1024)
/* At exit, how long buffered output may wait for a slow stdout. */
#define CONS_FLUSH_MS 300
/* How long virtio-console and SBI writes are held back, then dropped. */
#define CONS_STALL_MS 200

struct cons {
	struct vm *vm;
	struct hostcons host;	    /* escape filter, SBI input queue */
	struct sbi_console hv;	    /* the SBI console's back-end */
	struct char_out out;	    /* stdout, lossy: for the UART */
	struct char_out vcon_out;   /* stdout, back-pressure: virtio */
	struct uart8250 *uart;	    /* input target with --console serial */
	struct virtio_console vcon; /* with --console virtio */
	bool vcon_live;
	struct conslog log; /* all guest output: --console-log, the tail */
	struct outbuf ob;   /* guest output on its way to stdout */
	uint8_t ob_ring[CONS_OUT_SIZE];
	struct outfd stdout_fd;
	int out_fd;  /* eventfd: output waits for stdout */
	int quit_fd; /* eventfd: ends the console thread */
	bool warned; /* the first drop was reported */
	pthread_t thread;
	bool thread_started;
};

/*
 * Output and SBI console hooks; the SBI console is wired into vm->sbi.
 * Output waits in the buffer until cons_input_start() attaches stdout.
 */
int cons_init(struct cons *c, struct vm *vm);
/*
 * The buffer and the log file, after cons_input_stop() (which flushed
 * them); the log's tail stays readable.
 */
void cons_fini(struct cons *c);

/* The virtio-console device in the next board slot. */
int cons_virtio_up(struct cons *c, struct board *b);
void cons_virtio_down(struct cons *c);

/*
 * Raw terminal, stdout attached, and the console thread: it delivers
 * input to the console the configuration chose (uart: the board's UART)
 * and drains the output buffer whenever stdout is writable.
 */
int cons_input_start(struct cons *c, struct uart8250 *uart);
/*
 * Stop the thread, give buffered output up to CONS_FLUSH_MS to reach
 * stdout, detach it and restore the terminal.
 */
void cons_input_stop(struct cons *c);

#endif

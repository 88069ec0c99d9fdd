/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The console back-end: guest output to stdout, host input from stdin to
 * the guest's console (the UART, the SBI console or virtio-console), the
 * Ctrl-A escape, and the virtio-console device when --console virtio.
 */
#ifndef RVKVM_CONS_H
#define RVKVM_CONS_H

#include <pthread.h>
#include <stdbool.h>

#include "board.h"
#include "hostcons.h"
#include "virtio/console.h"
#include "vm.h"

struct cons {
	struct vm *vm;
	struct hostcons host;	    /* escape filter, SBI input queue */
	struct sbi_console hv;	    /* the SBI console's back-end */
	struct char_out out;	    /* stdout, for any device */
	struct uart8250 *uart;	    /* input target with --console serial */
	struct virtio_console vcon; /* with --console virtio */
	bool vcon_live;
	int quit_fd; /* eventfd: ends the input thread */
	pthread_t thread;
	bool thread_started;
};

/* Output and SBI console hooks; the SBI console is wired into vm->sbi. */
void cons_init(struct cons *c, struct vm *vm);

/* The virtio-console device in the next board slot. */
int cons_virtio_up(struct cons *c, struct board *b);
void cons_virtio_down(struct cons *c);

/*
 * Raw terminal and the input thread, delivering to the console the
 * configuration chose (uart: the board's UART).
 */
int cons_input_start(struct cons *c, struct uart8250 *uart);
void cons_input_stop(struct cons *c);

#endif

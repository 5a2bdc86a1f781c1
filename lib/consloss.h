/* SPDX-License-Identifier: MIT */
/*
 * What the console lost: every byte handed to it counted, every byte a
 * console had to give up on counted with the first reason, and one
 * sentence for the end of the run.  A console "gives up" on bytes when its
 * device did not take them within its bound (the virtio console's used
 * ring, the UART's transmitter, Xen's console ring): those bytes may be
 * lost, or arrive late and out of order.  Pure: the host tests it.
 */
#ifndef CLOCKBENCH_LIB_CONSLOSS_H
#define CLOCKBENCH_LIB_CONSLOSS_H

#include <stddef.h>
#include <stdint.h>

#define CONSLOSS_WHY_LEN 160

struct console_loss {
	uint64_t written_bytes; /* handed to the console */
	uint64_t lost_bytes;	/* given up on: may be lost */
	unsigned int drops;	/* how many times bytes were given up on */
	char first_why[CONSLOSS_WHY_LEN]; /* why, the first time */
};

/** Count @bytes handed to the console. */
void consloss_written(struct console_loss *l, size_t bytes);

/** Count @bytes the console gave up on, and why (kept the first time). */
void consloss_dropped(struct console_loss *l, size_t bytes, const char *why);

/**
 * The sentence for the end of the run, after "clockbench: console: ":
 * "all N bytes written were taken, none lost", or "N of M bytes written
 * may be lost (K drops; the first: WHY)".  Returns snprintf's count.
 */
int consloss_words(const struct console_loss *l, char *buf, size_t len);

#endif

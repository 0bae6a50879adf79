/* The link emulator's arithmetic and delay queue (internal, pure).
 *
 * One emulated link direction is a serial line: a message of n bytes
 * occupies it for n/B after the previous message has left it, and arrives
 * L later.  With the send at time t and the line busy until `busy`:
 *
 *     departure end = max(t, busy) + n/B      (the new `busy`)
 *     due           = departure end + L
 *
 * so messages queue behind each other and share the bandwidth.  conn.c
 * holds each frame until its due time (a timerfd per link, watched by the
 * loop) and then hands it to the ordinary batched writev.  Times are
 * nanoseconds on the monotonic clock; nothing here reads a clock.
 */
#ifndef GROVE_EMU_H
#define GROVE_EMU_H

#include <stddef.h>
#include <stdint.h>

#include "grove/cluster.h"
#include "grove/packet.h"

typedef struct emu_line {
	uint64_t latency_ns;
	double ns_per_byte;   /* 1e9 / B; 0: unlimited bandwidth */
	uint64_t busy_until;  /* end of the last departure */
} emu_line;

/* 0, or GROVE_EINVAL for bad parameters (negative, not finite). */
int emu_line_init(emu_line *l, const grove_link_params *p);
/* 1 when the parameters change nothing (no latency, no limit). */
int emu_params_off(const grove_link_params *p);
/* Schedule a message of `bytes` sent at `now`; returns its due time. */
uint64_t emu_schedule(emu_line *l, uint64_t now, size_t bytes);

/* Frames waiting for their due time, oldest first (due times never
 * decrease, so the head is always the next one due). */
typedef struct emu_held {
	grove_packet *p;
	uint64_t due;
} emu_held;

typedef struct emu_queue {
	emu_held *v;
	size_t head, n, cap;  /* ring buffer */
	size_t bytes;         /* sum of the held frames' sizes */
} emu_queue;

/* Takes the caller's reference to p. */
int emu_queue_push(emu_queue *q, grove_packet *p, uint64_t due);
/* The head when it is due at `now` (NULL otherwise); the caller gets its
 * reference. */
grove_packet *emu_queue_pop_due(emu_queue *q, uint64_t now);
/* Due time of the head; UINT64_MAX when empty. */
uint64_t emu_queue_next_due(const emu_queue *q);
/* Drop everything held. */
void emu_queue_fini(emu_queue *q);

#endif

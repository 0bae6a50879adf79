/* Waiting at exit for the last bytes to move (internal).
 *
 * A process that leaves waits for its links to drain (its own last
 * messages, and at a node the event spaces its subtree ships home).  A
 * fixed grace period lost the event spaces of large trees, whose
 * shipping takes longer; waiting for ever would let a stuck peer hang
 * the exit.  So the wait goes on while bytes move, and ends after
 * EXIT_WAIT_IDLE_MS without any, or after EXIT_WAIT_MAX_MS in all.
 * A leaving CP waits for children still connected only until
 * EXIT_WAIT_CHILD_GRACE_MS pass without a byte; children whose links
 * closed get as long to exit before they are killed (FE and CP). */
#ifndef GROVE_EXIT_WAIT_H
#define GROVE_EXIT_WAIT_H

#include <stdint.h>

#define EXIT_WAIT_IDLE_MS 5000u
#define EXIT_WAIT_MAX_MS 120000u
#define EXIT_WAIT_CHILD_GRACE_MS 2000u

struct exit_wait {
	uint64_t start_ms, last_ms; /* start; last time bytes moved */
	uint64_t moved;             /* the byte count seen then */
};

static inline void
exit_wait_start(struct exit_wait *w, uint64_t now_ms, uint64_t moved)
{
	w->start_ms = w->last_ms = now_ms;
	w->moved = moved;
}

/* Notes that bytes move though no count shows it yet: an emulated line
 * (net/emu.h) holds a frame whole until its due time, and always lets it
 * go then. */
static inline void
exit_wait_moving(struct exit_wait *w, uint64_t now_ms)
{
	w->last_ms = now_ms;
}

/* Notes the bytes moved so far (a count that only grows); returns the
 * ms since bytes last moved, or UINT64_MAX once the whole wait is over
 * EXIT_WAIT_MAX_MS. */
static inline uint64_t
exit_wait_idle(struct exit_wait *w, uint64_t now_ms, uint64_t moved)
{
	if (moved != w->moved) {
		w->moved = moved;
		w->last_ms = now_ms;
	}
	if (now_ms - w->start_ms > EXIT_WAIT_MAX_MS)
		return UINT64_MAX;
	return now_ms - w->last_ms;
}

#endif

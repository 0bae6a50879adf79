/* The request/reply protocol of examples/be_worker.c, the back-end used by
 * `grove demo`, `grove bench micro` and the integration tests.
 *
 * The FE sends a request on a stream (or point-to-point); the worker
 * answers on the same stream (or point-to-point, stream 0) with the same
 * tag.  `rank` below is the worker's BE rank.
 */
#ifndef GROVE_WORKER_PROTOCOL_H
#define GROVE_WORKER_PROTOCOL_H

#include <stdint.h>

enum worker_tag {
	/* "%d" v -> "%d" v (a sum over N workers is N*v) */
	WORKER_ECHO = 100,
	/* "" -> "%d" rank */
	WORKER_RANK = 101,
	/* "%d %d" count v -> count packets "%d" v, as fast as possible,
	 * then flush */
	WORKER_BURST = 102,
	/* "" -> "%lf %d" (rank + 0.5) 1   (input for the avg filter) */
	WORKER_AVG = 103,
	/* "%d" n -> "%ad" of n elements: rank*1000 + i */
	WORKER_ARRAY = 104,
	/* "" -> "%lf %uld %s" load-like value, rank as uint64, hostname */
	WORKER_INFO = 105,
	/* "%d" ms -> sleeps ms, then "%d" rank (slow contributor) */
	WORKER_SLOW = 106,
	/* "%d" r -> only worker with rank r aborts (fault tests) */
	WORKER_CRASH = 107,
	/* "" -> worker exits cleanly */
	WORKER_EXIT = 108,
	/* "%d" r -> only worker r stops reading for 3 s (back-pressure) */
	WORKER_STALL = 109,
	/* "" -> "%ld" the worker's grove_be_clock_ns() (clock-skew checks) */
	WORKER_CLOCK = 110,
	/* "%auc" bytes -> "%uld %uld %uld" length, FNV-1a 64-bit hash of the
	 * bytes, CLOCK_MONOTONIC ns when the request was received whole
	 * (segmented multicast tests and `grove bench bcast`) */
	WORKER_DIGEST = 111,
};

/* The WORKER_DIGEST hash, FNV-1a 64 bits: enough to tell a corrupted
 * payload from the original, computed the same way on both sides. */
static inline uint64_t
worker_digest(const uint8_t *b, uint64_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (uint64_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

#endif

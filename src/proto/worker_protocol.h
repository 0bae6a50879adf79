/* The request/reply protocol of examples/be_worker.c, the back-end used by
 * `grove demo`, `grove bench micro` and the integration tests.
 *
 * It lives in src/proto/ (not examples/) because the grove command, the
 * examples and the tests all speak it; src/proto/ is no part of the
 * library and no public API: header-only, libc only, never included by
 * src/ itself (docs/internals.md, module map).
 *
 * The FE sends a request on a stream (or point-to-point); the worker
 * answers on the same stream (or point-to-point, stream 0) with the same
 * tag.  `rank` below is the worker's BE rank.
 */
#ifndef GROVE_WORKER_PROTOCOL_H
#define GROVE_WORKER_PROTOCOL_H

#include <stdint.h>
#include <string.h>

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
	/* "%auc" bytes -> "%uld %uld %uld" length, worker_digest() of the
	 * bytes, CLOCK_MONOTONIC ns when the request was received whole
	 * (segmented multicast tests and `grove bench bcast`) */
	WORKER_DIGEST = 111,
	/* "%auc %uld" bytes, t -> the WORKER_DIGEST answer, hashed and sent
	 * no earlier than CLOCK_MONOTONIC ns t (`grove bench bcast`: the
	 * answers and their hashing then do not compete for the CPU with
	 * the broadcast it times) */
	WORKER_DIGEST_AT = 112,
	/* "" -> "%s" the worker's arguments after argv[0], each followed by
	 * '\n' (tests check that arguments arrive intact, also through a
	 * remote shell) */
	WORKER_ARGS = 113,
	/* "%d %ud" count, other -> count packets "%d" 1 on this stream and
	 * count on stream other, even ranks this one first, odd ranks the
	 * other first (cross-stream flow-control tests) */
	WORKER_CROSS = 114,
	/* "%d %d" count, bytes -> count packets "%auc" of bytes bytes, all
	 * 1 (flow-control tests with large packets) */
	WORKER_BIG_BURST = 115,
	/* anything -> "%ud" the grove_packet_src of the request (the rank
	 * the network stamped on what the front-end sent) */
	WORKER_SRC = 116,
	/* "%d" r -> "%lf" rank from worker r, "%d" rank from the others (a
	 * wave whose formats differ: filter-failure tests) */
	WORKER_ODD_FORMAT = 117,
	/* "%d %d" first, count -> count packets "%d" first, first + 1, ...,
	 * then flush (numbered waves: `grove bench recovery --seq` checks
	 * that each arrives once, whole, in order) */
	WORKER_SEQ = 118,
};

/* The WORKER_DIGEST hash: enough to tell a corrupted payload from the
 * original, computed the same way on both sides.  FNV-1a's step (xor,
 * multiply by its 64-bit prime) on 64-bit words in four independent lanes,
 * the lanes and the tail then folded byte by byte: byte-wise FNV-1a is one
 * dependent multiply per byte (about 0.7 GB/s), and a back-end of `grove
 * bench bcast` hashing 4 MB took about 5 ms of a core the broadcast's
 * other processes were waiting for.  Words are read with memcpy, so any
 * alignment is fine; the result depends on the host's byte order, which
 * both sides share. */
static inline uint64_t
worker_digest(const uint8_t *b, uint64_t n)
{
	const uint64_t prime = 0x100000001b3ull;
	uint64_t lane[4] = {0xcbf29ce484222325ull, 0x84222325cbf29ce4ull,
	    0x9ce484222325cbf2ull, 0x2325cbf29ce48422ull};
	uint64_t i = 0, h = 0xcbf29ce484222325ull ^ n;
	for (; i + 32 <= n; i += 32)
		for (int j = 0; j < 4; j++) {
			uint64_t w;
			memcpy(&w, b + i + 8 * (uint64_t)j, sizeof w);
			lane[j] = (lane[j] ^ w) * prime;
		}
	for (int j = 0; j < 4; j++)
		for (int s = 0; s < 64; s += 8) {
			h ^= (lane[j] >> s) & 0xff;
			h *= prime;
		}
	for (; i < n; i++) {
		h ^= b[i];
		h *= prime;
	}
	return h;
}

#endif

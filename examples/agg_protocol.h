/* The protocol of examples/agg_be.c, a back-end that feeds the
 * aggregation filters ("timealign", "equiv", "report"); used by
 * tests/integration/it_aggregate.c.
 *
 * Requests come on a stream (or point-to-point); answers go on the same
 * stream with the same tag unless said otherwise.  `rank` is the BE's.
 */
#ifndef GROVE_AGG_PROTOCOL_H
#define GROVE_AGG_PROTOCOL_H

#include <stdint.h>

enum agg_tag {
	/* "" -> "%s" agg_class_key(rank)           (for "equiv") */
	AGG_EQUIV = 300,
	/* point-to-point "" -> point-to-point "%s %ud" key, rank: the full
	 * data of the class, asked from its representative only */
	AGG_DETAIL = 301,
	/* "" -> the BE's record (for "report"): even ranks
	 * "%s %d" host, pid; odd ranks "%s %d %lf" host, pid, rank * 1.5 */
	AGG_REPORT = 302,
	/* "%ud %ud" round, stream -> samples covering [round * AGG_ROUND_NS,
	 * (round + 1) * AGG_ROUND_NS) on `stream` with tag AGG_SAMPLE (see
	 * agg_sample_cuts), then "%d" 1 on the request's stream */
	AGG_ROUND = 303,
	AGG_SAMPLE = 304,
};

/* The interval width the test uses, and one round of samples: three
 * intervals, so every round ends on the grid. */
#define AGG_WIDTH_NS 1000000ull
#define AGG_ROUND_NS (3 * AGG_WIDTH_NS)

/* Equivalence class of a rank: blocks, with one stray rank. */
static inline const char *
agg_class_key(uint32_t rank)
{
	if (rank == 2)
		return "sha-B";
	if (rank < 6)
		return "sha-A";
	return rank < 13 ? "sha-B" : "sha-C";
}

/* Sample boundaries inside one round, staggered per rank and not on the
 * grid: cut[0] = round start, cut[AGG_NCUTS - 1] = round end. */
#define AGG_NCUTS 5
static inline void
agg_sample_cuts(uint32_t rank, uint32_t round, uint64_t cut[AGG_NCUTS])
{
	uint64_t t0 = (uint64_t)round * AGG_ROUND_NS;
	cut[0] = t0;
	cut[1] = t0 + 1 + (rank * 7919u) % AGG_WIDTH_NS;
	cut[2] = t0 + AGG_WIDTH_NS + 333333 + rank * 17u;
	cut[3] = t0 + 2 * AGG_WIDTH_NS + 500000 - rank * 31u;
	cut[4] = t0 + AGG_ROUND_NS;
}

/* Amounts of a sample over [a, b): rank + 1 per ns, and 0.5 per ns. */
static inline void
agg_sample_values(uint32_t rank, uint64_t a, uint64_t b, double v[2])
{
	v[0] = (double)(rank + 1) * (double)(b - a);
	v[1] = 0.5 * (double)(b - a);
}

#endif

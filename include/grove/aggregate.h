/* Grove aggregation filters: packet formats of the built-in "timealign",
 * "equiv" and "report" filters, and decoders for their results on the
 * front-end.
 *
 * Every decoder validates what it reads: a packet that does not have the
 * expected shape returns GROVE_EFORMAT (wrong format, arrays of
 * inconsistent lengths) or GROVE_EPROTO (corrupt content) and never
 * crashes.  See docs/filters.md for what the filters compute.
 */
#ifndef GROVE_AGGREGATE_H
#define GROVE_AGGREGATE_H

#include <stddef.h>
#include <stdint.h>

#include "grove/packet.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- timealign: time-aligned aggregation ------------------------------ */

/* Stream parameters (optional): interval width in ns (default 1 s) and
 * max_lag in intervals (default 4). */
#define GROVE_TIMEALIGN_PARAMS_FMT "%uld %ud"
/* A back-end's sample: start_ns, end_ns (> start), amounts[M] accumulated
 * over [start, end). */
#define GROVE_TIMEALIGN_SAMPLE_FMT "%uld %uld %alf"
/* One aggregated interval: start_ns, end_ns, count of back-end ranks,
 * sum[M], min[M], min_rank[M], max[M], max_rank[M]. */
#define GROVE_TIMEALIGN_FMT "%uld %uld %ud %alf %alf %aud %alf %aud"

typedef struct grove_timealign_interval {
	uint64_t start_ns, end_ns;  /* [start, end): one grid interval */
	uint32_t count;             /* ranks that contributed */
	uint64_t m;                 /* values per sample */
	const double *sum;          /* m each; average = sum / count */
	const double *min;
	const uint32_t *min_rank;
	const double *max;
	const uint32_t *max_rank;
} grove_timealign_interval;

/* Decode a GROVE_TIMEALIGN_FMT packet.  The arrays point into p and stay
 * valid while p is referenced.  GROVE_EFORMAT for another format or arrays
 * of different lengths, GROVE_EINVAL when end <= start. */
int grove_timealign_decode(const grove_packet *p,
    grove_timealign_interval *out);

#ifdef __cplusplus
}
#endif
#endif

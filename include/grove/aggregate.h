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
/* The same and M, the values per sample: inputs with another M are
 * refused from the start (without it the first inputs decide M, see
 * docs/filters.md). */
#define GROVE_TIMEALIGN_PARAMS_M_FMT "%uld %ud %ud"
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

/* ---- equiv: equivalence classes ---------------------------------------- */

/* Input from a back-end: "%s" (a key) or "%uld" (an integer key, the same
 * as its decimal string).  Output (also input from nodes below): keys[C],
 * nranges[C] (rank ranges per class), ranges[2 * sum(nranges)] as (lo, hi)
 * pairs, hi exclusive; classes sorted by key (strcmp), ranges sorted and
 * merged. */
#define GROVE_EQUIV_FMT "%as %aud %aud"

typedef struct grove_equiv_set grove_equiv_set;

/* Decode an "equiv" result.  The set keeps a reference on p; keys point
 * into it.  GROVE_EFORMAT for another format or inconsistent lengths,
 * GROVE_EPROTO for unsorted classes or ranges, empty ranges or a class
 * without any. */
int grove_equiv_decode(const grove_packet *p, grove_equiv_set **out);
void grove_equiv_free(grove_equiv_set *s);

/* Number of classes; key of class c (NULL if c is out of range). */
size_t grove_equiv_count(const grove_equiv_set *s);
const char *grove_equiv_key(const grove_equiv_set *s, size_t c);
/* Ranks in class c. */
uint64_t grove_equiv_members(const grove_equiv_set *s, size_t c);
/* Rank ranges of class c: range i is [*lo, *hi).  GROVE_ERANGE for a bad
 * c or i. */
size_t grove_equiv_nranges(const grove_equiv_set *s, size_t c);
int grove_equiv_range(const grove_equiv_set *s, size_t c, size_t i,
    uint32_t *lo, uint32_t *hi);
/* The lowest rank of class c: the one to ask for the class's data. */
int grove_equiv_representative(const grove_equiv_set *s, size_t c,
    uint32_t *rank);
/* 1 if rank is in class c, else 0. */
int grove_equiv_contains(const grove_equiv_set *s, size_t c, uint32_t rank);
/* The class of rank, or GROVE_ENOENT. */
int grove_equiv_class_of(const grove_equiv_set *s, uint32_t rank);

/* ---- report: concatenated per-back-end records -------------------------- */

/* Input from a back-end: one packet of any format (its record).  Output:
 * ranks[N], record lengths[N], then the N records back to back, sorted by
 * rank; each record is the back-end packet's frame as encoded. */
#define GROVE_REPORT_FMT "%aud %aud %auc"

typedef struct grove_report grove_report;

/* Decode a "report" result; the report keeps a reference on p.
 * GROVE_EFORMAT for another format or lengths that do not add up. */
int grove_report_decode(const grove_packet *p, grove_report **out);
void grove_report_free(grove_report *r);
/* Number of records. */
size_t grove_report_count(const grove_report *r);
/* Record i: its back-end rank, and (if rec is not NULL) a new packet the
 * caller unpacks with the record's own format and then unrefs.
 * GROVE_ERANGE for a bad index, GROVE_EPROTO (or GROVE_EFORMAT) for a
 * corrupt record: the payload is checked when it is unpacked, as for any
 * packet from the network. */
int grove_report_record(const grove_report *r, size_t i, uint32_t *rank,
    grove_packet **rec);

#ifdef __cplusplus
}
#endif
#endif

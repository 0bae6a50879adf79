/* Internals of the P-LogP model module (src/model/). */
#ifndef GROVE_MODEL_IMPL_H
#define GROVE_MODEL_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "core/errfmt.h"
#include "grove/logp.h"

struct logp_class_data {
	int present;
	double L;
	size_t n;
	grove_logp_sample s[GROVE_LOGP_MAX_SAMPLES];
	/* w with K processes per core (grove_logp_params_set_crowd),
	 * K increasing; only size and w of the samples are used. */
	size_t ncrowds;
	struct logp_crowd {
		uint32_t K;
		size_t n;
		grove_logp_sample s[GROVE_LOGP_MAX_SAMPLES];
	} crowd[GROVE_LOGP_MAX_CROWDS];
};

struct grove_logp_params {
	struct logp_class_data cls[GROVE_LOGP_NCLASSES];
	uint32_t cores; /* of the measuring host; 0 unknown */
	char *note;
};


/* Checks one class's values against the rules of
 * grove_logp_params_set_class; on a break writes the reason (naming the
 * offending size) and returns GROVE_EINVAL. */
int logp_check_samples(double L, const grove_logp_sample *s, size_t n,
    char *err, size_t errlen);

/* w at size m of n samples, interpolated as grove_logp_params_at does. */
double logp_work_curve(const grove_logp_sample *s, size_t n, double m);

/* One way to cut a message of n elements: k_eff segments of j elements
 * (m = j * elem bytes), the last one holding the remainder. */
struct logp_seg {
	uint64_t j, k, m;
};

/* The cut for a requested segment count k in [1, n]: j = ceil(n/k),
 * k_eff = ceil(n/j) <= k.  n = 0 gives one empty segment. */
void logp_seg_for_k(uint64_t n, uint32_t elem, uint64_t k,
    struct logp_seg *out);
/* The cut with j elements per segment, 1 <= j <= n. */
void logp_seg_for_j(uint64_t n, uint32_t elem, uint64_t j,
    struct logp_seg *out);

/* What a search evaluates: the best trees for one cut (searched as `how`
 * says), written to *result; returns the completion time. */
typedef double (*logp_tree_search_fn)(void *arg, const struct logp_seg *seg,
    grove_logp_search how, void *result);

/* Searches the cuts of n elements as `how` says, calling fn for each
 * candidate; the best result (result_size bytes) goes to best and its cut
 * to best_seg.  Returns the best completion time; *evaluated counts fn
 * calls.  Needs scratch space of result_size bytes. */
double logp_search_segments(uint64_t n, uint32_t elem,
    grove_logp_search how, logp_tree_search_fn fn, void *arg,
    size_t result_size, void *best, void *scratch,
    struct logp_seg *best_seg, uint64_t *evaluated);

/* The degrees worth trying for a tree over P processes: from `first` up
 * to `last`, only those that lower the minimal height (for a fixed height
 * the smallest degree is never worse).  Returns the next such degree after
 * d, or 0 when there is none. */
uint32_t logp_next_useful_degree(uint64_t P, uint32_t d, uint32_t last);

/* With hand-offs (grove_logp_system.handoff) on one host, fewer
 * forwarding processes mean less work at the same height: the next
 * degree after d, up to `last`, whose breadth-first tree over P processes
 * has fewer forwarders, or 0 when there is none. */
uint32_t logp_next_fewer_forwarders(uint64_t P, uint32_t d, uint32_t last);

/* The heuristic's first degree: g/s rounded down, within [1, last]. */
uint32_t logp_first_degree(const grove_logp_link *l, uint32_t last);

#endif

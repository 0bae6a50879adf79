/* libFuzzer target: an event scope's share (src/monitor/share.c) comes
 * from another process of the network, over the tree: any bytes must be
 * refused with an error or decoded without crashing, leaking or reading
 * out of bounds.  What decodes must be consistent and survive a round
 * trip: an analysis share re-encoded from what was decoded decodes to
 * the same counts, processes, last arrivals and paths; a raw share's
 * blocks, passed on as a node passes them, decode again into the same
 * tuples; a failed decode adds nothing to the counts. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "grove/error.h"
#include "monitor/share.h"

static uint64_t
edges_sum(const struct mon_analysis *a)
{
	struct mon_balance_edge *e;
	size_t n;
	uint64_t sum = 0;
	if (mon_balance_edges(a->balance, &e, &n) != 0)
		return UINT64_MAX;
	for (size_t i = 0; i < n; i++)
		sum += e[i].last;
	free(e);
	return sum;
}

static size_t
paths(const struct mon_analysis *a)
{
	struct mon_path_stats *p;
	size_t n;
	if (mon_pathstats_results(a->stats, 3, 10, &p, &n) != 0)
		return SIZE_MAX;
	free(p);
	return n;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mon_analysis *a = mon_analysis_new(NULL);
	struct mon_share_buf blocks = {0};
	struct mon_share_counts c = {0};
	char err[300];
	int kind = -1;
	if (!a)
		return 0;
	int rc = mon_share_decode(data, size, &c, &kind, a, &blocks, err,
	                          sizeof err);
	if (rc) {
		struct mon_share_counts zero = {0};
		if (rc == GROVE_EFORMAT && (!err[0] ||
		    memcmp(&c, &zero, sizeof c) != 0))
			abort(); /* no reason given, or counts added */
		goto out;
	}
	if (mon_balance_total(a->balance) != edges_sum(a))
		abort();
	uint8_t *again = NULL;
	size_t len = 0;
	if (kind == MON_SHARE_ANALYSIS) {
		if (mon_share_encode(&c, a, &again, &len) != 0)
			goto out;
	} else if (mon_share_raw_encode(&c, &blocks, &again, &len) != 0) {
		goto out;
	}
	struct mon_analysis *b = mon_analysis_new(NULL);
	struct mon_share_counts d = {0};
	int k2 = -1;
	if (b) {
		if (mon_share_decode(again, len, &d, &k2, b, NULL, err,
		                     sizeof err) != 0 ||
		    k2 != kind || memcmp(&c, &d, sizeof c) != 0 ||
		    b->pm.n != a->pm.n || b->tuples != a->tuples ||
		    b->lost != a->lost ||
		    mon_balance_total(b->balance) !=
		        mon_balance_total(a->balance) ||
		    paths(b) != paths(a))
			abort();
		mon_analysis_free(b);
	}
	free(again);
out:
	mon_share_buf_free(&blocks);
	mon_analysis_free(a);
	return 0;
}

/* libFuzzer target: the analysis module (src/monitor) takes whatever an
 * event space holds: collector names and places of any bytes (parsed as
 * "link:A->B", "stream:N", "comm:..." with "size:N"), tuples with any
 * ops, ids, seqs, results and times.  It must never crash, leak or read
 * out of bounds, and its results must stay consistent: last arrivals add
 * up to the waves, paths count no more samples than tuples were fed, a
 * merge of two analyses keeps every total.
 *
 * Input: records of one op byte and its operands, into analysis A or B:
 *   0 role-index rank host-len host     a process
 *   1 proc id16 4x(len, bytes)          a collector
 *   2 proc ring id16 op seq32 res32 t0 dt   a tuple (t0 u32, dt i16)
 *   3 proc n                            lost tuples
 *   4                                   switch to the other analysis */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "monitor/analysis.h"
#include "monitor/topo.h"

struct in {
	const uint8_t *p;
	size_t n;
};

static int
take(struct in *in, void *out, size_t len)
{
	if (in->n < len)
		return -1;
	memcpy(out, in->p, len);
	in->p += len;
	in->n -= len;
	return 0;
}

/* A string of at most 127 bytes (may hold any byte, NUL ends it). */
static int
take_str(struct in *in, char *out, size_t cap)
{
	uint8_t len;
	if (take(in, &len, 1))
		return -1;
	len &= 127;
	if (len >= cap)
		len = (uint8_t)(cap - 1);
	if (take(in, out, len))
		return -1;
	out[len] = 0;
	return 0;
}

/* Reads every result of a and checks what must hold. */
static void
check(struct mon_analysis *a)
{
	struct mon_balance_edge *e;
	size_t n;
	if (mon_balance_edges(a->balance, &e, &n) == 0) {
		uint64_t sum = 0;
		for (size_t i = 0; i < n; i++) {
			if (e[i].last > e[i].waves)
				abort();
			sum += e[i].last;
		}
		if (sum != mon_balance_total(a->balance))
			abort();
		free(e);
	}
	struct mon_path_stats *r;
	if (mon_pathstats_results(a->stats, 2.5, 3, &r, &n) == 0) {
		for (size_t i = 0; i < n; i++)
			if (r[i].count == 0 || r[i].min_ns > r[i].max_ns)
				abort();
		free(r);
	}
	struct mon_proc_timeline *t;
	if (mon_timeline_procs(a->timeline, &t, &n) == 0) {
		for (size_t i = 0; i < n; i++)
			for (size_t k = 1; k < t[i].n; k++)
				if (t[i].span[k].t0 < t[i].span[k - 1].t0)
					abort();
		free(t);
	}
	struct mon_order_scope *s;
	if (mon_order_scopes(a->order, &s, &n) == 0) {
		for (size_t i = 0; i < n; i++)
			if (s[i].n_recent > s[i].instances)
				abort();
		free(s);
	}
	struct mon_clock_bound *b;
	for (int by = 0; by < 2; by++)
		if (mon_clockcheck_bounds(a->clock, by, &b, &n) == 0) {
			for (size_t i = 0; i < n; i++)
				if (b[i].violations > b[i].messages)
					abort();
			free(b);
		}
	struct mon_topo_node *tn;
	if (mon_topo_build(&a->pm, &tn, &n) == 0) {
		for (size_t i = 0; i < n; i++)
			if (tn[i].parent >= (int64_t)i)
				abort();
		free(tn);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const roles[] = {"fe", "cp", "be", "mpi", "run",
	                                    "x"};
	struct mon_analysis_opts o = {.timeline_keep = 40, .order_keep = 2,
	                              .max_open = 64, .max_pending = 64};
	struct mon_analysis *an[2] = {mon_analysis_new(&o),
	                              mon_analysis_new(&o)};
	if (!an[0] || !an[1])
		goto out;
	struct in in = {data, size};
	int cur = 0;
	uint8_t op;
	while (take(&in, &op, 1) == 0) {
		struct mon_analysis *a = an[cur];
		switch (op % 5) {
		case 0: {
			uint8_t role, rank;
			char host[MON_HOST_LEN];
			uint32_t idx;
			if (take(&in, &role, 1) || take(&in, &rank, 1) ||
			    take_str(&in, host, sizeof host))
				goto done;
			mon_pathmap_proc(&a->pm, roles[role % 6], rank, host,
			                 &idx);
			break;
		}
		case 1: {
			uint8_t proc;
			uint16_t id;
			char s[4][128];
			if (take(&in, &proc, 1) || take(&in, &id, 2))
				goto done;
			for (int i = 0; i < 4; i++)
				if (take_str(&in, s[i], sizeof s[i]))
					goto done;
			mon_pathmap_collector(&a->pm, proc, id % 40, s[0], s[1],
			                      s[2], s[3]);
			break;
		}
		case 2: {
			uint8_t proc, ring;
			uint16_t id, top;
			uint32_t seq, t0;
			int32_t res;
			int16_t dt;
			if (take(&in, &proc, 1) || take(&in, &ring, 1) ||
			    take(&in, &id, 2) || take(&in, &top, 2) ||
			    take(&in, &seq, 4) || take(&in, &res, 4) ||
			    take(&in, &t0, 4) || take(&in, &dt, 2))
				goto done;
			struct mon_tuple t = {t0, t0 + (uint64_t)(int64_t)dt,
			                      id % 40, seq % 16, res % 8,
			                      (uint16_t)(top % 20), 0};
			mon_analysis_feed(a, proc, ring % 3, &t, 1);
			break;
		}
		case 3: {
			uint8_t proc, lost;
			if (take(&in, &proc, 1) || take(&in, &lost, 1))
				goto done;
			mon_analysis_lost(a, proc, lost);
			break;
		}
		default:
			cur = !cur;
		}
	}
done:
	check(an[0]);
	check(an[1]);
	uint64_t tuples = an[0]->tuples + an[1]->tuples;
	uint64_t lost = an[0]->lost + an[1]->lost;
	if (mon_analysis_merge(an[0], an[1]) == 0 &&
	    (an[0]->tuples != tuples || an[0]->lost != lost))
		abort();
	check(an[0]);
out:
	mon_analysis_free(an[0]);
	mon_analysis_free(an[1]);
	return 0;
}

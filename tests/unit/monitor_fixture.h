/* Helpers of the analysis module's unit tests (test_monitor_*.c):
 * processes, collectors and hand-made tuples. */
#ifndef GROVE_TEST_MONITOR_FIXTURE_H
#define GROVE_TEST_MONITOR_FIXTURE_H

#include <string.h>

#include "monitor/analysis.h"

/* Process (role, rank) on host, its index. */
static inline uint32_t
fx_proc(struct mon_pathmap *pm, const char *role, uint32_t rank,
        const char *host)
{
	uint32_t idx = 0;
	assert_int_equal(mon_pathmap_proc(pm, role, rank, host, &idx), 0);
	return idx;
}

static inline void
fx_coll(struct mon_pathmap *pm, uint32_t proc, uint32_t id, const char *name,
        const char *layer, const char *where, const char *position)
{
	assert_int_equal(mon_pathmap_collector(pm, proc, id, name, layer,
	                                       where, position), 0);
}

static inline struct mon_tuple
fx_tuple(uint32_t coll, uint16_t op, uint32_t seq, int32_t result,
         uint64_t t0, uint64_t t1)
{
	struct mon_tuple t;
	memset(&t, 0, sizeof t);
	t.collector = coll;
	t.op = op;
	t.seq = seq;
	t.result = result;
	t.t_start = t0;
	t.t_end = t1;
	t.flags = t0 == t1 ? GROVE_TRACE_F_INSTANT : 0;
	return t;
}

#endif

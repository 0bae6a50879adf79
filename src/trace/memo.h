/* What each collector of one process resolved to, so that a pass over
 * its tuples looks a primitive or region up once per collector instead
 * of once per tuple (internal; header only, so the OTF2 plugin, which
 * links no part of Grove, can use it too).
 *
 * Keyed by collector id (0 and ids the registry does not hold share one
 * slot: they resolve alike) and remembers the last op seen with it: a
 * collector records one op, so a change of op is a miss, not an error. */
#ifndef GROVE_TRACE_MEMO_H
#define GROVE_TRACE_MEMO_H

#include <stdint.h>
#include <stdlib.h>

struct trace_memo {
	uint32_t n;      /* collector ids 1..n have slots of their own */
	uint16_t *op;    /* per slot: the op its value is for */
	int64_t *val;    /* per slot: the value, -1 for none yet */
};

/* 0, or -1 when out of memory. */
static inline int
trace_memo_init(struct trace_memo *m, uint32_t n_collectors)
{
	m->n = n_collectors;
	m->op = calloc((size_t)n_collectors + 1, sizeof *m->op);
	m->val = malloc(((size_t)n_collectors + 1) * sizeof *m->val);
	if (!m->op || !m->val) {
		free(m->op);
		free(m->val);
		m->op = NULL;
		m->val = NULL;
		return -1;
	}
	for (uint32_t i = 0; i <= n_collectors; i++)
		m->val[i] = -1;
	return 0;
}

static inline void
trace_memo_fini(struct trace_memo *m)
{
	free(m->op);
	free(m->val);
	m->op = NULL;
	m->val = NULL;
}

static inline uint32_t
trace_memo_slot_(const struct trace_memo *m, uint32_t collector)
{
	return collector >= 1 && collector <= m->n ? collector : 0;
}

/* The value remembered for (collector, op), or -1. */
static inline int64_t
trace_memo_get(const struct trace_memo *m, uint32_t collector, uint16_t op)
{
	uint32_t s = trace_memo_slot_(m, collector);
	return m->op[s] == op ? m->val[s] : -1;
}

static inline void
trace_memo_put(struct trace_memo *m, uint32_t collector, uint16_t op,
               int64_t val)
{
	uint32_t s = trace_memo_slot_(m, collector);
	m->op[s] = op;
	m->val[s] = val;
}

#endif

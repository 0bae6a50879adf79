/* Matching sends to receives by link name and per-link sequence number,
 * plus small helpers shared by the exporters. */
#include <stdlib.h>
#include <string.h>

#include "grove/error.h"
#include "trace/trace_impl.h"

struct key {
	const char *where;
	uint32_t seq;
	struct trace_ref ref;
};

static int
key_cmp(const void *x, const void *y)
{
	const struct key *a = x, *b = y;
	int c = strcmp(a->where, b->where);
	if (c)
		return c;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static const char *
where_of(const struct trace_proc *p, const grove_trace_tuple *t)
{
	const struct trace_collector_entry *e =
		trace_proc_collector(p, t->collector);
	return e && e->where[0] ? e->where : NULL;
}

static int
push(struct key **v, size_t *n, size_t *cap, struct key k)
{
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 256;
		struct key *nv = realloc(*v, nc * sizeof *nv);
		if (!nv)
			return GROVE_ENOMEM;
		*v = nv;
		*cap = nc;
	}
	(*v)[(*n)++] = k;
	return 0;
}

int
trace_match_messages(const struct trace_set *set, struct trace_msg **out,
                     size_t *nout)
{
	struct key *sends = NULL, *recvs = NULL;
	size_t ns = 0, cs = 0, nr = 0, cr = 0;
	int rc = 0;
	*out = NULL;
	*nout = 0;
	for (uint32_t p = 0; p < set->n && !rc; p++) {
		const struct trace_proc *pr = &set->p[p];
		for (uint32_t r = 0; r < pr->n_rings && !rc; r++) {
			const struct trace_ring_snap *rs = &pr->rings[r];
			for (size_t i = 0; i < rs->n && !rc; i++) {
				const grove_trace_tuple *t = &rs->t[i];
				if (!trace_op_sends(t->op) &&
				    !trace_op_receives(t->op))
					continue;
				const char *w = where_of(pr, t);
				if (!w)
					continue;
				struct key k = {w, t->seq, {p, r, i}};
				rc = trace_op_sends(t->op) ?
				     push(&sends, &ns, &cs, k) :
				     push(&recvs, &nr, &cr, k);
			}
		}
	}
	struct trace_msg *m = NULL;
	size_t nm = 0;
	if (!rc && ns && nr) {
		qsort(sends, ns, sizeof *sends, key_cmp);
		m = malloc(nr * sizeof *m);
		if (!m)
			rc = GROVE_ENOMEM;
		for (size_t i = 0; !rc && i < nr; i++) {
			struct key *s = bsearch(&recvs[i], sends, ns,
			                        sizeof *sends, key_cmp);
			if (s)
				m[nm++] = (struct trace_msg){s->ref,
				                             recvs[i].ref};
		}
	}
	free(sends);
	free(recvs);
	if (rc) {
		free(m);
		return rc;
	}
	*out = m;
	*nout = nm;
	return 0;
}

uint64_t
trace_set_origin_ns(const struct trace_set *set)
{
	uint64_t o = UINT64_MAX;
	for (size_t i = 0; i < set->n; i++) {
		const struct trace_proc *p = &set->p[i];
		if (p->start_ns < o)
			o = p->start_ns;
		for (uint32_t r = 0; r < p->n_rings; r++)
			if (p->rings[r].n) {
				uint64_t t = trace_proc_ns(p,
				                           p->rings[r].t[0].t_start);
				if (t < o)
					o = t;
			}
	}
	return o == UINT64_MAX ? 0 : o;
}

/* The computation/communication timeline of each process (see
 * timeline.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grove/error.h"
#include "monitor/map.h"
#include "monitor/timeline.h"

/* Rings a process may have (trace/space.h, TRACE_MAX_RINGS): the gap
 * of each is measured on its own. */
#define RINGS 64

struct mon_tl_proc {
	struct mon_proc_timeline pub;
	struct mon_span *buf;    /* circular, cap entries */
	size_t cap, head, n;     /* head: the oldest */
	uint64_t call_end[RINGS], other_end[RINGS];
	uint64_t call_gap, call_gaps, other_gap, other_gaps;
};

struct mon_timeline {
	size_t keep;
	struct mon_map *procs;   /* label -> struct mon_tl_proc */
};

struct mon_timeline *
mon_timeline_new(size_t keep)
{
	struct mon_timeline *tl = calloc(1, sizeof *tl);
	if (!tl)
		return NULL;
	tl->keep = keep ? keep : 4096;
	if (!(tl->procs = mon_map_new(sizeof(struct mon_tl_proc)))) {
		free(tl);
		return NULL;
	}
	return tl;
}

void
mon_timeline_free(struct mon_timeline *tl)
{
	if (!tl)
		return;
	size_t pos = 0;
	struct mon_tl_proc *p;
	while ((p = mon_map_next(tl->procs, &pos, NULL, NULL)))
		free(p->buf);
	mon_map_free(tl->procs);
	free(tl);
}

static struct mon_tl_proc *
proc_of(struct mon_timeline *tl, const char *label)
{
	int created;
	struct mon_tl_proc *p = mon_map_put(tl->procs, label,
	                                strnlen(label, MON_LABEL_LEN),
	                                &created);
	if (!p || !created)
		return p;
	/* The buffer grows as spans come, up to the bound: most processes
	 * of a large tree record few. */
	p->cap = tl->keep < 16 ? tl->keep : 16;
	if (!(p->buf = calloc(p->cap, sizeof *p->buf))) {
		mon_map_del(tl->procs, label, strnlen(label, MON_LABEL_LEN));
		return NULL;
	}
	snprintf(p->pub.label, sizeof p->pub.label, "%s", label);
	p->pub.first = UINT64_MAX;
	return p;
}

/* Keeps span s, dropping the oldest when the bound is reached.  While
 * below it the buffer is linear (head 0) and doubles when full. */
static void
keep_span(struct mon_tl_proc *p, size_t keep, const struct mon_span *s)
{
	if (p->n == p->cap && p->cap < keep && p->head == 0) {
		size_t nc = p->cap * 2 < keep ? p->cap * 2 : keep;
		struct mon_span *nb = realloc(p->buf, nc * sizeof *nb);
		if (nb) {
			p->buf = nb;
			p->cap = nc;
		}
		/* Without memory the bound is where the buffer stands. */
	}
	if (p->n == p->cap) {
		p->buf[p->head] = *s;
		p->head = (p->head + 1) % p->cap;
		p->pub.dropped++;
		return;
	}
	p->buf[(p->head + p->n++) % p->cap] = *s;
}

/* The gap before a span starting at t0 on a ring whose last span ended
 * at *end (0: none yet). */
static void
gap(uint64_t *end, uint64_t t0, uint64_t t1, uint64_t *sum, uint64_t *n)
{
	if (*end && t0 > *end) {
		*sum += t0 - *end;
		(*n)++;
	}
	if (t1 > *end)
		*end = t1;
}

static void
account(struct mon_tl_proc *p, const struct mon_span *s)
{
	struct mon_proc_timeline *q = &p->pub;
	if (s->t0 < q->first)
		q->first = s->t0;
	if (s->t1 > q->last)
		q->last = s->t1;
	q->busy_ns[s->kind] += s->t1 - s->t0;
	q->count[s->kind]++;
	uint32_t r = s->ring % RINGS;
	if (s->kind == MON_SPAN_CALL)
		gap(&p->call_end[r], s->t0, s->t1, &p->call_gap,
		    &p->call_gaps);
	else
		gap(&p->other_end[r], s->t0, s->t1, &p->other_gap,
		    &p->other_gaps);
}

int
mon_timeline_kind(const struct mon_collector *c, const struct mon_tuple *t)
{
	if (t->op == GROVE_OP_API_SEND || t->op == GROVE_OP_API_RECV ||
	    t->op == GROVE_OP_MPI_CALL || (c && c->kind == MON_K_API))
		return MON_SPAN_CALL;
	if (c && c->kind == MON_K_FILTER &&
	    (t->op == GROVE_OP_FILTER_SYNC ||
	     t->op == GROVE_OP_FILTER_TRANSFORM))
		return MON_SPAN_FILTER;
	if (c && c->kind == MON_K_LINK &&
	    (t->op == GROVE_OP_WRITEV || t->op == GROVE_OP_READ))
		return MON_SPAN_LINK;
	return -1;
}

struct mon_tl_proc *
mon_timeline_proc(struct mon_timeline *tl, const char *label)
{
	return proc_of(tl, label);
}

int
mon_timeline_feed(struct mon_timeline *tl, const struct mon_pathmap *pm,
                  uint32_t proc, uint32_t ring, const struct mon_tuple *t)
{
	if (proc >= pm->n)
		return 0;
	const struct mon_collector *c = mon_pathmap_get(pm, proc, t->collector);
	int kind = mon_timeline_kind(c, t);
	if (kind < 0)
		return 0;
	struct mon_tl_proc *p = proc_of(tl, pm->p[proc].label);
	if (!p)
		return GROVE_ENOMEM;
	mon_timeline_span(tl, p, c, ring, t, kind);
	return 0;
}

void
mon_timeline_span(struct mon_timeline *tl, struct mon_tl_proc *p,
                  const struct mon_collector *c, uint32_t ring,
                  const struct mon_tuple *t, int kind)
{
	struct mon_span s;
	memset(&s, 0, sizeof s);
	s.t0 = t->t_start;
	s.t1 = t->t_end > t->t_start ? t->t_end : t->t_start;
	s.ring = ring;
	s.kind = (uint8_t)kind;
	if (c)
		memcpy(s.name, c->name, sizeof s.name);
	account(p, &s);
	keep_span(p, tl->keep, &s);
}

static int
span_cmp(const void *x, const void *y)
{
	const struct mon_span *a = x, *b = y;
	return a->t0 < b->t0 ? -1 : a->t0 > b->t0;
}

/* Puts p's spans in time order in its buffer, from index 0 (the rings
 * of a process are fed one after the other, so the order fed is not the
 * time order). */
static void
linearize(struct mon_tl_proc *p)
{
	if (p->head) {
		struct mon_span *tmp = malloc(p->n * sizeof *tmp);
		if (tmp) {
			for (size_t i = 0; i < p->n; i++)
				tmp[i] = p->buf[(p->head + i) % p->cap];
			memcpy(p->buf, tmp, p->n * sizeof *tmp);
			free(tmp);
		}
		/* Without memory the sort below puts them in place all
		 * the same: the buffer is full, so all of it is spans. */
		p->head = 0;
	}
	qsort(p->buf, p->n, sizeof *p->buf, span_cmp);
}

int
mon_timeline_merge(struct mon_timeline *a, const struct mon_timeline *b)
{
	size_t pos = 0;
	struct mon_tl_proc *q;
	while ((q = mon_map_next(b->procs, &pos, NULL, NULL))) {
		struct mon_tl_proc *p = proc_of(a, q->pub.label);
		if (!p)
			return GROVE_ENOMEM;
		struct mon_proc_timeline *x = &p->pub;
		const struct mon_proc_timeline *y = &q->pub;
		if (y->first < x->first)
			x->first = y->first;
		if (y->last > x->last)
			x->last = y->last;
		for (int k = 0; k < MON_SPAN_KINDS; k++) {
			x->busy_ns[k] += y->busy_ns[k];
			x->count[k] += y->count[k];
		}
		x->dropped += y->dropped;
		p->call_gap += q->call_gap;
		p->call_gaps += q->call_gaps;
		p->other_gap += q->other_gap;
		p->other_gaps += q->other_gaps;
		/* Both sets of spans in time order; the newest kept. */
		size_t n = p->n + q->n;
		struct mon_span *all = malloc((n ? n : 1) * sizeof *all);
		if (!all)
			return GROVE_ENOMEM;
		for (size_t i = 0; i < p->n; i++)
			all[i] = p->buf[(p->head + i) % p->cap];
		for (size_t i = 0; i < q->n; i++)
			all[p->n + i] = q->buf[(q->head + i) % q->cap];
		qsort(all, n, sizeof *all, span_cmp);
		size_t want = n < a->keep ? n : a->keep;
		if (want > p->cap) {
			struct mon_span *nb = realloc(p->buf, want * sizeof *nb);
			if (!nb) {
				free(all);
				return GROVE_ENOMEM;
			}
			p->buf = nb;
			p->cap = want;
		}
		size_t from = n > p->cap ? n - p->cap : 0;
		x->dropped += from;
		memcpy(p->buf, all + from, (n - from) * sizeof *all);
		p->n = n - from;
		p->head = 0;
		free(all);
	}
	return 0;
}

static int
proc_cmp(const void *x, const void *y)
{
	const struct mon_proc_timeline *a = x, *b = y;
	return mon_label_cmp(a->label, b->label);
}

int
mon_timeline_procs(struct mon_timeline *tl,
                   struct mon_proc_timeline **out, size_t *n)
{
	size_t cnt = mon_map_count(tl->procs), i = 0, pos = 0;
	struct mon_proc_timeline *r = calloc(cnt ? cnt : 1, sizeof *r);
	if (!r)
		return GROVE_ENOMEM;
	struct mon_tl_proc *p;
	while ((p = mon_map_next(tl->procs, &pos, NULL, NULL)) && i < cnt) {
		linearize(p);
		r[i] = p->pub;
		int calls = p->pub.count[MON_SPAN_CALL] != 0;
		r[i].gap_ns = calls ? p->call_gap : p->other_gap;
		r[i].gaps = calls ? p->call_gaps : p->other_gaps;
		r[i].n = p->n;
		r[i].span = p->buf;
		i++;
	}
	qsort(r, i, sizeof *r, proc_cmp);
	*out = r;
	*n = i;
	return 0;
}

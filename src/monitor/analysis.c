/* The analysis: every accumulator fed from one stream of tuples (see
 * analysis.h). */
#include <stdlib.h>
#include <string.h>

#include "grove/error.h"
#include "monitor/analysis.h"

/* A complete instance counted through memo m of the communicator's
 * route: what mon_balance_instance and mon_order_instance do, without
 * finding the counters by name each time. */
static int
count_memo(struct mon_analysis *a, struct mon_inst_memo *m,
           const struct mon_instance *in)
{
	uint32_t last = mon_balance_last(in);
	const char *label = in->m[last].label;
	if (!m->m[last].at.last || strcmp(m->m[last].label, label)) {
		int rc = mon_balance_counters(a->balance, in->scope, in->scope,
		                              label, &m->m[last].at);
		if (rc) {
			m->m[last].at.last = NULL;
			return rc;
		}
		memcpy(m->m[last].label, label, MON_LABEL_LEN);
	}
	mon_balance_count_at(a->balance, &m->m[last].at, 1);
	if (!m->order) {
		int clash;
		m->order = mon_order_at(a->order, in->scope, in->size, &clash);
		if (!m->order)
			return clash ? 0 : GROVE_ENOMEM;
	}
	return mon_order_instance_at(a->order, m->order, in);
}

/* A collective instance completed: who was last, and the orders. */
static void
on_instance(void *ctx, const struct mon_instance *in)
{
	struct mon_analysis *a = ctx;
	struct mon_inst_memo *m = a->feeding && in->size ?
	    mon_routes_memo(a->feeding, in->scope, in->size) : NULL;
	int rc;
	if (m) {
		rc = count_memo(a, m, in);
	} else {
		rc = mon_balance_instance(a->balance, in);
		if (!rc)
			rc = mon_order_instance(a->order, in);
	}
	if (rc && !a->err)
		a->err = rc;
}

/* A message joined: its latency and the clock check. */
static int
on_message(void *ctx, const struct mon_msg *m)
{
	struct mon_analysis *a = ctx;
	uint64_t lat = m->recv.t_end > m->send.t_start ?
	               m->recv.t_end - m->send.t_start : 0;
	int rc = mon_pathstats_message(a->stats, m->recv.label, m->recv.role,
	                               m->send.role, m->where, lat);
	if (!rc)
		rc = mon_clockcheck_message(a->clock, m);
	return rc;
}

struct mon_analysis *
mon_analysis_new(const struct mon_analysis_opts *opts)
{
	struct mon_analysis_opts o = {0};
	if (opts)
		o = *opts;
	struct mon_analysis *a = calloc(1, sizeof *a);
	if (!a)
		return NULL;
	mon_pathmap_init(&a->pm);
	a->inst = mon_instances_new(on_instance, a, o.max_open);
	a->links = mon_links_new(on_message, a, o.max_pending);
	a->balance = mon_balance_new();
	a->stats = mon_pathstats_new();
	a->timeline = mon_timeline_new(o.timeline_keep);
	a->order = mon_order_new(o.order_keep);
	a->clock = mon_clockcheck_new();
	a->link_local = o.link_local;
	a->link_ctx = o.link_ctx;
	if (!a->inst || !a->links || !a->balance || !a->stats ||
	    !a->timeline || !a->order || !a->clock) {
		mon_analysis_free(a);
		return NULL;
	}
	return a;
}

void
mon_analysis_free(struct mon_analysis *a)
{
	if (!a)
		return;
	mon_instances_free(a->inst);
	mon_links_free(a->links);
	mon_balance_free(a->balance);
	mon_pathstats_free(a->stats);
	mon_timeline_free(a->timeline);
	mon_order_free(a->order);
	mon_clockcheck_free(a->clock);
	mon_routes_free(&a->routes);
	mon_pathmap_free(&a->pm);
	free(a);
}

/* Whether a link tuple's message is joined here (opts.link_local). */
static int
joined_here(const struct mon_analysis *a, uint32_t proc,
            const struct mon_tuple *t)
{
	if (!a->link_local)
		return 1;
	const struct mon_collector *c = mon_pathmap_get(&a->pm, proc,
	                                                t->collector);
	return !c || c->kind != MON_K_LINK ||
	       a->link_local(a->link_ctx, c->a, c->b);
}

/* The path statistics of one tuple, through its route when it has one
 * (rt NULL: none), which learns the path the first time. */
static int
feed_stats(struct mon_analysis *a, struct mon_route *rt, uint32_t proc,
           const struct mon_tuple *t)
{
	if (!mon_pathstats_takes(t->op))
		return 0;
	if (!rt || !rt->path || rt->op != t->op) {
		struct mon_path *p = mon_pathstats_path(a->stats, &a->pm, proc,
		                                        t);
		if (!p)
			return GROVE_ENOMEM;
		if (!rt) {
			mon_pathstats_sample(p, t);
			return 0;
		}
		rt->path = p;
		rt->op = t->op;
	}
	mon_pathstats_sample(rt->path, t);
	return 0;
}

/* The timeline of one tuple, through the process's routes when there
 * are some (pr NULL: none). */
static int
feed_timeline(struct mon_analysis *a, struct mon_proc_routes *pr,
              uint32_t proc, uint32_t ring, const struct mon_tuple *t)
{
	const struct mon_collector *c = mon_pathmap_get(&a->pm, proc,
	                                                t->collector);
	int kind = mon_timeline_kind(c, t);
	if (kind < 0)
		return 0;
	struct mon_tl_proc *p = pr ? pr->tl : NULL;
	if (!p) {
		p = mon_timeline_proc(a->timeline, a->pm.p[proc].label);
		if (!p)
			return GROVE_ENOMEM;
		if (pr)
			pr->tl = p;
	}
	mon_timeline_span(a->timeline, p, c, ring, t, kind);
	return 0;
}

int
mon_analysis_feed(struct mon_analysis *a, uint32_t proc, uint32_t ring,
                  const struct mon_tuple *t, size_t n)
{
	if (proc >= a->pm.n)
		return GROVE_EINVAL;
	/* Nothing below changes the pathmap: one look at its generation
	 * serves the whole run.  Without memory for routes, the slow way. */
	struct mon_proc_routes *pr = mon_routes_proc(&a->routes, &a->pm, proc);
	for (size_t i = 0; i < n; i++) {
		const struct mon_tuple *u = &t[i];
		struct mon_route *rt = pr && u->collector < pr->n ?
		                       &pr->r[u->collector] : NULL;
		a->feeding = rt;
		int rc = mon_instances_feed_at(a->inst, &a->pm, proc, ring, u,
		                               rt ? &rt->hint : NULL);
		a->feeding = NULL;
		/* Only a TBON wave's last-arrival tuples count directly
		 * (mon_balance_feed); the op alone rules out the rest. */
		if (!rc && u->op == GROVE_OP_WAVE)
			rc = mon_balance_feed(a->balance, &a->pm, proc, u);
		if (!rc)
			rc = feed_stats(a, rt, proc, u);
		if (!rc)
			rc = feed_timeline(a, pr, proc, ring, u);
		/* Only link sends and receives join (mon_links_feed). */
		if (!rc && (u->op == GROVE_OP_SEND || u->op == GROVE_OP_RECV ||
		            u->op == GROVE_OP_TRACE_SEND ||
		            u->op == GROVE_OP_TRACE_RECV) &&
		    joined_here(a, proc, u))
			rc = mon_links_feed(a->links, &a->pm, proc, u);
		if (!rc)
			rc = a->err;
		if (rc)
			return rc;
		a->pm.p[proc].tuples++;
		a->tuples++;
	}
	return 0;
}

void
mon_analysis_lost(struct mon_analysis *a, uint32_t proc, uint64_t n)
{
	if (proc >= a->pm.n)
		return;
	a->pm.p[proc].lost += n;
	a->lost += n;
}

int
mon_analysis_merge(struct mon_analysis *a, const struct mon_analysis *b)
{
	for (uint32_t i = 0; i < b->pm.n; i++) {
		const struct mon_proc *q = &b->pm.p[i];
		uint32_t k;
		int rc = mon_pathmap_proc(&a->pm, q->role, q->rank, q->host,
		                          &k);
		if (rc)
			return rc;
		struct mon_proc *p = &a->pm.p[k];
		p->lost += q->lost;
		p->tuples += q->tuples;
		if (p->node < 0)
			p->node = q->node;
		/* Its collectors, so that the tree can be drawn from the
		 * merged pathmap. */
		for (uint32_t c = 0; c < q->n_coll; c++) {
			const struct mon_collector *e = &q->coll[c];
			if (mon_pathmap_get(&b->pm, i, c + 1) &&
			    !mon_pathmap_get(&a->pm, k, c + 1) &&
			    (rc = mon_pathmap_collector(&a->pm, k, c + 1,
			    e->name, e->layer, e->where, e->position)))
				return rc;
		}
	}
	a->tuples += b->tuples;
	a->lost += b->lost;
	int rc = mon_instances_merge(a->inst, b->inst);
	if (!rc)
		rc = mon_links_merge(a->links, b->links);
	if (!rc)
		rc = mon_balance_merge(a->balance, b->balance);
	if (!rc)
		rc = mon_pathstats_merge(a->stats, b->stats);
	if (!rc)
		rc = mon_timeline_merge(a->timeline, b->timeline);
	if (!rc)
		rc = mon_order_merge(a->order, b->order);
	if (!rc)
		rc = mon_clockcheck_merge(a->clock, b->clock);
	return rc ? rc : a->err;
}

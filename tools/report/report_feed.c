/* The event spaces of a trace set into the analysis, and its results out
 * for the page (see report.h). */
#include <stdlib.h>

#include "grove/error.h"
#include "report.h"
#include "trace/trace_impl.h"

/* Tuples converted per call to mon_analysis_feed. */
#define CHUNK 1024

int
report_feed(const struct trace_set *set, struct mon_analysis *a)
{
	struct mon_tuple *buf = malloc(CHUNK * sizeof *buf);
	if (!buf)
		return GROVE_ENOMEM;
	int rc = 0;
	for (size_t i = 0; i < set->n && !rc; i++) {
		const struct trace_proc *p = &set->p[i];
		uint32_t idx;
		rc = mon_pathmap_proc(&a->pm, p->hdr.role, p->hdr.rank,
		                      p->hdr.hostname, &idx);
		if (rc == GROVE_EINVAL) {
			rc = 0; /* a role no label can hold: left out */
			continue;
		}
		for (uint32_t c = 0; c < p->n_collectors && !rc; c++) {
			const struct trace_collector_entry *e = &p->coll[c];
			rc = mon_pathmap_collector(&a->pm, idx, c + 1, e->name,
			                           e->layer, e->where,
			                           e->position);
		}
		for (uint32_t r = 0; r < p->n_rings && !rc; r++) {
			const struct trace_ring_snap *rs = &p->rings[r];
			mon_analysis_lost(a, idx, rs->lost);
			for (size_t k = 0; k < rs->n && !rc; k += CHUNK) {
				size_t m = rs->n - k < CHUNK ? rs->n - k : CHUNK;
				for (size_t j = 0; j < m; j++) {
					const grove_trace_tuple *t = &rs->t[k + j];
					buf[j] = (struct mon_tuple){
						trace_proc_ns(p, t->t_start),
						trace_proc_ns(p, t->t_end),
						t->collector, t->seq, t->result,
						t->op, t->flags};
				}
				rc = mon_analysis_feed(a, idx, r, buf, m);
			}
		}
	}
	free(buf);
	return rc;
}

int
report_gather(struct report *r)
{
	struct mon_analysis *a = r->a;
	int rc = mon_balance_edges(a->balance, &r->edges, &r->n_edges);
	if (!rc)
		rc = mon_pathstats_results(a->stats, r->opts.sigma,
		                           r->opts.min_count, &r->paths,
		                           &r->n_paths);
	if (!rc)
		rc = mon_timeline_procs(a->timeline, &r->tl, &r->n_tl);
	if (!rc)
		rc = mon_order_scopes(a->order, &r->scopes, &r->n_scopes);
	if (!rc)
		rc = mon_clockcheck_bounds(a->clock, 0, &r->hosts, &r->n_hosts);
	if (!rc)
		rc = mon_clockcheck_bounds(a->clock, 1, &r->procs, &r->n_procs);
	if (!rc)
		rc = mon_topo_build(&a->pm, &r->topo, &r->n_topo);
	mon_instances_counts(a->inst, &r->inst);
	mon_links_counts(a->links, &r->links);
	r->origin = trace_set_origin_ns(r->set);
	return rc;
}

void
report_free(struct report *r)
{
	free(r->edges);
	free(r->paths);
	free(r->tl);
	free(r->scopes);
	free(r->hosts);
	free(r->procs);
	free(r->topo);
}

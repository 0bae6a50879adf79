/* The analysis's routes (see routes.h). */
#include <stdlib.h>
#include <string.h>

#include "monitor/routes.h"

static void
drop_all(struct mon_routes *r)
{
	for (uint32_t i = 0; i < r->n; i++)
		free(r->p[i].r);
	free(r->p);
	r->p = NULL;
	r->n = 0;
}

void
mon_routes_free(struct mon_routes *r)
{
	drop_all(r);
}

struct mon_proc_routes *
mon_routes_proc(struct mon_routes *r, const struct mon_pathmap *pm,
                uint32_t proc)
{
	if (r->gen != pm->gen) {
		drop_all(r);
		r->gen = pm->gen;
	}
	if (proc >= r->n) {
		uint32_t n = pm->n > proc ? pm->n : proc + 1;
		struct mon_proc_routes *p = realloc(r->p, n * sizeof *p);
		if (!p)
			return NULL;
		memset(p + r->n, 0, (n - r->n) * sizeof *p);
		r->p = p;
		r->n = n;
	}
	struct mon_proc_routes *pr = &r->p[proc];
	uint32_t want = pm->p[proc].n_coll + 1;
	if (pr->n < want) {
		/* Only when the pathmap changed, which dropped them all. */
		struct mon_route *nr = calloc(want, sizeof *nr);
		if (!nr)
			return NULL;
		free(pr->r);
		pr->r = nr;
		pr->n = want;
	}
	return pr;
}

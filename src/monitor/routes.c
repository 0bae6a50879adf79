/* The analysis's routes (see routes.h). */
#include <stdlib.h>
#include <string.h>

#include "monitor/routes.h"

static void
drop_all(struct mon_routes *r)
{
	for (uint32_t i = 0; i < r->n; i++) {
		for (uint32_t j = 0; j < r->p[i].n; j++)
			free(r->p[i].r[j].memo);
		free(r->p[i].r);
	}
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
	/* Room for the ids it has: a process's routes are all zero when
	 * they grow (made after drop_all), so no memo is lost. */
	uint32_t want = pm->p[proc].n_coll + 1;
	if (pr->n < want) {
		/* Only when the pathmap changed, which dropped them all. */
		struct mon_route *nr = calloc(want, sizeof *nr);
		if (!nr)
			return NULL;
		for (uint32_t j = 0; j < pr->n; j++)
			free(pr->r[j].memo);
		free(pr->r);
		pr->r = nr;
		pr->n = want;
	}
	return pr;
}

struct mon_inst_memo *
mon_routes_memo(struct mon_route *rt, const char *scope, uint32_t size)
{
	struct mon_inst_memo *m = rt->memo;
	if (m && m->size == size && !strcmp(m->scope, scope))
		return m;
	if (size == 0 || size > MON_MEMO_MAX)
		return NULL;
	free(m);
	rt->memo = m = calloc(1, sizeof *m + size * sizeof m->m[0]);
	if (!m)
		return NULL;
	size_t sl = strnlen(scope, MON_WHERE_LEN - 1);
	memcpy(m->scope, scope, sl);
	m->size = size;
	return m;
}

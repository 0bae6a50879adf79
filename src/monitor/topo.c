/* Rebuilding the TBON's tree from the link names in the pathmap (see
 * topo.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grove/error.h"
#include "monitor/topo.h"

struct edge {
	int64_t a, b;
};

static int
edge_cmp(const void *x, const void *y)
{
	const struct edge *p = x, *q = y;
	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	return p->b < q->b ? -1 : p->b > q->b;
}

static int
id_cmp(const void *x, const void *y)
{
	const int64_t *a = x, *b = y;
	return *a < *b ? -1 : *a > *b;
}

/* The index of node id in the sorted ids, or -1. */
static int64_t
index_of(const int64_t *ids, size_t n, int64_t id)
{
	const int64_t *f = bsearch(&id, ids, n, sizeof *ids, id_cmp);
	return f ? f - ids : -1;
}

int
mon_topo_build(const struct mon_pathmap *pm, struct mon_topo_node **out,
               size_t *n)
{
	*out = NULL;
	*n = 0;
	/* Every link, both ways (the tree is undirected until rooted). */
	size_t ne = 0, cap = 0;
	struct edge *e = NULL;
	for (uint32_t p = 0; p < pm->n; p++)
		for (uint32_t c = 0; c < pm->p[p].n_coll; c++) {
			const struct mon_collector *k = &pm->p[p].coll[c];
			if (k->kind != MON_K_LINK || k->a == k->b)
				continue;
			if (ne + 2 > cap) {
				size_t nc = cap ? cap * 2 : 64;
				struct edge *ee = realloc(e, nc * sizeof *ee);
				if (!ee) {
					free(e);
					return GROVE_ENOMEM;
				}
				e = ee;
				cap = nc;
			}
			e[ne++] = (struct edge){k->a, k->b};
			e[ne++] = (struct edge){k->b, k->a};
		}
	if (!ne) {
		free(e);
		return 0;
	}
	qsort(e, ne, sizeof *e, edge_cmp);
	size_t u = 0;
	for (size_t i = 0; i < ne; i++)
		if (!u || edge_cmp(&e[u - 1], &e[i]))
			e[u++] = e[i];
	ne = u;
	/* The node ids (sorted and unique), the breadth-first queue, each
	 * node's first edge (edges are sorted by their first end), and per
	 * node: seen, its parent's id index, depth, place in the output. */
	int rc = GROVE_ENOMEM;
	int64_t *ids = malloc(ne * sizeof *ids);
	struct mon_topo_node *t = calloc(ne, sizeof *t);
	size_t *queue = malloc(ne * sizeof *queue);
	size_t *first = malloc((ne + 1) * sizeof *first);
	int8_t *seen = calloc(ne, 1);
	int64_t *order_parent = malloc(ne * sizeof *order_parent);
	uint32_t *depth = calloc(ne, sizeof *depth);
	int64_t *pos_of = malloc(ne * sizeof *pos_of);
	if (!ids || !t || !queue || !first || !seen || !order_parent ||
	    !depth || !pos_of)
		goto done;
	size_t nn = 0;
	for (size_t i = 0; i < ne; i++)
		if (!nn || ids[nn - 1] != e[i].a)
			ids[nn++] = e[i].a;
	for (size_t i = 0, k = 0; k < nn; k++) {
		while (i < ne && e[i].a != ids[k])
			i++;
		first[k] = i;
	}
	first[nn] = ne;
	/* Breadth first from node 0 (or, for parts not joined to it, from
	 * their lowest node): parents come before their children. */
	size_t out_n = 0;
	int64_t root0 = index_of(ids, nn, 0);
	for (size_t r = 0; r <= nn; r++) {
		size_t root = r == 0 ? (root0 >= 0 ? (size_t)root0 : 0) : r - 1;
		if (seen[root])
			continue;
		size_t qh = 0, qt = 0;
		queue[qt++] = root;
		seen[root] = 1;
		order_parent[root] = -1;
		while (qh < qt) {
			size_t k = queue[qh++];
			pos_of[k] = (int64_t)out_n;
			struct mon_topo_node *d = &t[out_n++];
			d->node = ids[k];
			d->proc = mon_pathmap_find_node(pm, ids[k]);
			if (d->proc >= 0)
				snprintf(d->label, sizeof d->label, "%s",
				         pm->p[d->proc].label);
			else
				snprintf(d->label, sizeof d->label, "node %lld",
				         (long long)ids[k]);
			d->parent = order_parent[k] >= 0 ?
			            pos_of[order_parent[k]] : -1;
			d->depth = depth[k];
			if (d->parent >= 0)
				t[d->parent].children++;
			for (size_t i = first[k]; i < first[k + 1]; i++) {
				int64_t j = index_of(ids, nn, e[i].b);
				if (j < 0 || seen[j])
					continue;
				seen[j] = 1;
				order_parent[j] = (int64_t)k;
				depth[j] = depth[k] + 1;
				queue[qt++] = (size_t)j;
			}
		}
	}
	*out = t;
	*n = out_n;
	t = NULL;
	rc = 0;
done:
	free(t);
	free(pos_of);
	free(seen);
	free(order_parent);
	free(depth);
	free(ids);
	free(queue);
	free(first);
	free(e);
	return rc;
}

/* Equivalence classes: sorting and merging rank ranges, and reading an
 * "equiv" result (see equiv_core.h). */
#include <stdlib.h>
#include <string.h>

#include "filter/equiv_core.h"
#include "grove/aggregate.h"

static int
eq_cmp(const void *a, const void *b)
{
	const eq_entry *x = a, *y = b;
	int c = strcmp(x->key, y->key);
	if (c)
		return c;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

size_t
eq_sort_merge(eq_entry *e, size_t n)
{
	if (n == 0)
		return 0;
	qsort(e, n, sizeof *e, eq_cmp);
	size_t out = 0;
	for (size_t i = 1; i < n; i++) {
		eq_entry *cur = &e[out];
		if (strcmp(cur->key, e[i].key) == 0 && e[i].lo <= cur->hi) {
			if (e[i].hi > cur->hi)
				cur->hi = e[i].hi;
			continue;
		}
		e[++out] = e[i];
	}
	return out + 1;
}

int
eq_view_parse(const grove_packet *p, eq_view *v)
{
	uint64_t nn, nb;
	int rc = grove_packet_unpack(p, GROVE_EQUIV_FMT, &v->keys, &v->c,
	    &v->nranges, &nn, &v->ranges, &nb);
	if (rc < 0)
		return rc;
	if (nn != v->c || nb % 2 != 0)
		return GROVE_EFORMAT;
	/* The sum of the counts cannot overflow: each is 32 bits and there
	 * are far fewer than 2^32 of them in a packet. */
	uint64_t total = 0;
	for (uint64_t i = 0; i < v->c; i++)
		total += v->nranges[i];
	if (total != nb / 2)
		return GROVE_EFORMAT;
	v->nr = total;
	for (uint64_t i = 0; i < v->nr; i++)
		if (v->ranges[2 * i] >= v->ranges[2 * i + 1])
			return GROVE_EPROTO;
	return 0;
}

int
eq_view_check_sorted(const eq_view *v)
{
	uint64_t r = 0;
	for (uint64_t i = 0; i < v->c; i++) {
		if (i > 0 && strcmp(v->keys[i - 1], v->keys[i]) >= 0)
			return GROVE_EPROTO;
		if (v->nranges[i] == 0)
			return GROVE_EPROTO; /* a class without members */
		for (uint32_t j = 1; j < v->nranges[i]; j++)
			if (v->ranges[2 * (r + j)] <= v->ranges[2 * (r + j) - 1])
				return GROVE_EPROTO;
		r += v->nranges[i];
	}
	return 0;
}

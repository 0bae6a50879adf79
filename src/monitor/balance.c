/* The load-balance accumulator (see balance.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grove/error.h"
#include "monitor/balance.h"
#include "monitor/map.h"

struct mon_balance {
	struct mon_map *last;  /* scope NUL parent NUL child -> uint64_t */
	struct mon_map *waves; /* scope NUL parent -> uint64_t */
	uint64_t total;
};

struct mon_balance *
mon_balance_new(void)
{
	struct mon_balance *b = calloc(1, sizeof *b);
	if (!b)
		return NULL;
	b->last = mon_map_new(sizeof(uint64_t));
	b->waves = mon_map_new(sizeof(uint64_t));
	if (!b->last || !b->waves) {
		mon_balance_free(b);
		return NULL;
	}
	return b;
}

void
mon_balance_free(struct mon_balance *b)
{
	if (!b)
		return;
	mon_map_free(b->last);
	mon_map_free(b->waves);
	free(b);
}

/* Joins up to three strings, each with its NUL, into buf; the length. */
static size_t
join3(char *buf, size_t len, const char *a, const char *b, const char *c)
{
	size_t n = 0;
	const char *part[3] = {a, b, c};
	for (int i = 0; i < 3 && part[i]; i++) {
		size_t l = strnlen(part[i], len - n - 1);
		memcpy(buf + n, part[i], l);
		n += l;
		buf[n++] = '\0';
		if (n >= len - 1)
			break;
	}
	return n;
}

int
mon_balance_counters(struct mon_balance *b, const char *scope,
                     const char *parent, const char *child,
                     struct mon_balance_at *at)
{
	char key[2 * MON_WHERE_LEN + MON_LABEL_LEN + 4];
	size_t kl = join3(key, sizeof key, scope, parent, child);
	if (!(at->last = mon_map_put(b->last, key, kl, NULL)))
		return GROVE_ENOMEM;
	kl = join3(key, sizeof key, scope, parent, NULL);
	if (!(at->waves = mon_map_put(b->waves, key, kl, NULL)))
		return GROVE_ENOMEM;
	return 0;
}

void
mon_balance_count_at(struct mon_balance *b, const struct mon_balance_at *at,
                     uint64_t k)
{
	*at->last += k;
	*at->waves += k;
	b->total += k;
}

/* Adds k last arrivals of child at (scope, parent). */
static int
count(struct mon_balance *b, const char *scope, const char *parent,
      const char *child, uint64_t k)
{
	struct mon_balance_at at;
	int rc = mon_balance_counters(b, scope, parent, child, &at);
	if (!rc)
		mon_balance_count_at(b, &at, k);
	return rc;
}

int
mon_balance_add(struct mon_balance *b, const char *scope, const char *parent,
                const char *child, uint64_t k)
{
	return count(b, scope, parent, child, k);
}

int
mon_balance_feed(struct mon_balance *b, const struct mon_pathmap *pm,
                 uint32_t proc, const struct mon_tuple *t)
{
	const struct mon_collector *c = mon_pathmap_get(pm, proc, t->collector);
	if (!c || t->op != GROVE_OP_WAVE ||
	    (c->kind != MON_K_LAST_BE && c->kind != MON_K_LAST_CP) ||
	    t->result < 0)
		return 0;
	char child[MON_LABEL_LEN];
	snprintf(child, sizeof child, "%s %d",
	         c->kind == MON_K_LAST_BE ? "be" : "cp", t->result);
	return count(b, c->where, pm->p[proc].label, child, 1);
}

uint32_t
mon_balance_last(const struct mon_instance *in)
{
	uint32_t last = 0;
	for (uint32_t i = 1; i < in->size; i++)
		if (in->m[i].arrive > in->m[last].arrive)
			last = i;
	return last;
}

int
mon_balance_instance(struct mon_balance *b, const struct mon_instance *in)
{
	if (!in->size)
		return 0;
	return count(b, in->scope, in->scope,
	             in->m[mon_balance_last(in)].label, 1);
}

int
mon_balance_merge(struct mon_balance *a, const struct mon_balance *b)
{
	size_t pos = 0, kl;
	const char *key;
	uint64_t *v;
	while ((v = mon_map_next(b->last, &pos, &key, &kl))) {
		uint64_t *w = mon_map_put(a->last, key, kl, NULL);
		if (!w)
			return GROVE_ENOMEM;
		*w += *v;
	}
	pos = 0;
	while ((v = mon_map_next(b->waves, &pos, &key, &kl))) {
		uint64_t *w = mon_map_put(a->waves, key, kl, NULL);
		if (!w)
			return GROVE_ENOMEM;
		*w += *v;
	}
	a->total += b->total;
	return 0;
}

static int
edge_cmp(const void *x, const void *y)
{
	const struct mon_balance_edge *a = x, *b = y;
	int c = strcmp(a->scope, b->scope);
	if (!c)
		c = mon_label_cmp(a->parent, b->parent);
	if (!c)
		c = mon_label_cmp(a->child, b->child);
	return c;
}

int
mon_balance_edges(const struct mon_balance *b, struct mon_balance_edge **out,
                  size_t *n)
{
	size_t cnt = mon_map_count(b->last), i = 0, pos = 0, kl;
	struct mon_balance_edge *e = calloc(cnt ? cnt : 1, sizeof *e);
	if (!e)
		return GROVE_ENOMEM;
	const char *key;
	uint64_t *v;
	while ((v = mon_map_next(b->last, &pos, &key, &kl)) && i < cnt) {
		/* key: scope NUL parent NUL child NUL */
		const char *parent = key + strlen(key) + 1;
		const char *child = parent + strlen(parent) + 1;
		struct mon_balance_edge *d = &e[i++];
		snprintf(d->scope, sizeof d->scope, "%s", key);
		snprintf(d->parent, sizeof d->parent, "%s", parent);
		snprintf(d->child, sizeof d->child, "%s", child);
		d->last = *v;
		char wk[2 * MON_WHERE_LEN + 4];
		size_t wl = join3(wk, sizeof wk, d->scope, d->parent, NULL);
		uint64_t *w = mon_map_get(b->waves, wk, wl);
		d->waves = w ? *w : 0;
	}
	qsort(e, i, sizeof *e, edge_cmp);
	*out = e;
	*n = i;
	return 0;
}

uint64_t
mon_balance_total(const struct mon_balance *b)
{
	return b->total;
}

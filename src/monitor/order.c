/* Arrival and departure orders of collective instances (see order.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grove/error.h"
#include "monitor/map.h"
#include "monitor/order.h"

struct mon_order_st {
	struct mon_order_scope pub;
	struct mon_order_member *m;
	struct mon_order_instance *ring; /* keep entries, circular */
	size_t head, n;
};

struct mon_order {
	size_t keep;
	struct mon_map *scopes;  /* scope -> struct mon_order_st */
};

struct mon_order *
mon_order_new(size_t keep)
{
	struct mon_order *o = calloc(1, sizeof *o);
	if (!o)
		return NULL;
	o->keep = keep ? keep : 16;
	if (!(o->scopes = mon_map_new(sizeof(struct mon_order_st)))) {
		free(o);
		return NULL;
	}
	return o;
}

static void
scope_free(struct mon_order_st *s, size_t keep)
{
	for (uint32_t i = 0; s->m && i < s->pub.size; i++) {
		free(s->m[i].arrive_pos);
		free(s->m[i].depart_pos);
	}
	for (size_t i = 0; s->ring && i < keep; i++) {
		free(s->ring[i].arrive);
		free(s->ring[i].depart);
	}
	free(s->m);
	free(s->ring);
}

void
mon_order_free(struct mon_order *o)
{
	if (!o)
		return;
	size_t pos = 0;
	struct mon_order_st *s;
	while ((s = mon_map_next(o->scopes, &pos, NULL, NULL)))
		scope_free(s, o->keep);
	mon_map_free(o->scopes);
	free(o);
}

/* The state of scope, made for `size` members when new; NULL when out of
 * memory or when the scope was seen with another size (*clash). */
static struct mon_order_st *
scope_of(struct mon_order *o, const char *scope, uint32_t size, int *clash)
{
	size_t sl = strnlen(scope, MON_WHERE_LEN - 1);
	int created;
	struct mon_order_st *s = mon_map_put(o->scopes, scope, sl, &created);
	*clash = 0;
	if (!s)
		return NULL;
	if (!created) {
		*clash = s->pub.size != size;
		return *clash ? NULL : s;
	}
	snprintf(s->pub.scope, sizeof s->pub.scope, "%.*s", (int)sl, scope);
	s->pub.size = size;
	s->m = calloc(size, sizeof *s->m);
	s->ring = calloc(o->keep, sizeof *s->ring);
	int ok = s->m && s->ring;
	for (uint32_t i = 0; ok && size <= MON_ORDER_HIST_MAX && i < size;
	     i++) {
		s->m[i].arrive_pos = calloc(size, sizeof(uint64_t));
		s->m[i].depart_pos = calloc(size, sizeof(uint64_t));
		ok = s->m[i].arrive_pos && s->m[i].depart_pos;
	}
	for (size_t i = 0; ok && i < o->keep; i++) {
		s->ring[i].arrive = calloc(size, sizeof(uint64_t));
		s->ring[i].depart = calloc(size, sizeof(uint64_t));
		ok = s->ring[i].arrive && s->ring[i].depart;
	}
	if (!ok) {
		scope_free(s, o->keep);
		mon_map_del(o->scopes, scope, sl);
		return NULL;
	}
	return s;
}

/* Keeps one instance whole (the oldest kept goes when full). */
static void
keep_instance(struct mon_order_st *s, size_t keep, uint32_t seq, const char *fn,
              const uint64_t *arrive, const uint64_t *depart)
{
	struct mon_order_instance *d;
	if (s->n == keep) {
		d = &s->ring[s->head];
		s->head = (s->head + 1) % keep;
	} else {
		d = &s->ring[(s->head + s->n++) % keep];
	}
	d->seq = seq;
	/* snprintf "%s" without its cost: cut to fit, NUL-terminated */
	size_t fl = strnlen(fn, sizeof d->fn - 1);
	memcpy(d->fn, fn, fl);
	d->fn[fl] = '\0';
	memcpy(d->arrive, arrive, s->pub.size * sizeof *arrive);
	memcpy(d->depart, depart, s->pub.size * sizeof *depart);
}

struct mon_order_st *
mon_order_at(struct mon_order *o, const char *scope, uint32_t size,
             int *clash)
{
	return scope_of(o, scope, size, clash);
}

int
mon_order_instance(struct mon_order *o, const struct mon_instance *in)
{
	if (!in->size)
		return 0;
	int clash;
	struct mon_order_st *s = scope_of(o, in->scope, in->size, &clash);
	if (!s)
		return clash ? 0 : GROVE_ENOMEM;
	return mon_order_instance_at(o, s, in);
}

/* Communicators up to this size take their times on the stack. */
#define ORDER_STACK MON_ORDER_HIST_MAX

int
mon_order_instance_at(struct mon_order *o, struct mon_order_st *s,
                      const struct mon_instance *in)
{
	uint32_t n = in->size;
	uint64_t stack[2 * ORDER_STACK];
	uint64_t *arrive = n <= ORDER_STACK ? stack :
	                   malloc(2 * n * sizeof *arrive);
	if (!arrive)
		return GROVE_ENOMEM;
	uint64_t *depart = arrive + n;
	uint64_t last_arrival = 0, first_departure = UINT64_MAX;
	uint32_t first = 0, last = 0;
	for (uint32_t i = 0; i < n; i++) {
		arrive[i] = in->m[i].arrive;
		depart[i] = in->m[i].depart;
		if (arrive[i] > last_arrival || !i)
			last_arrival = arrive[i];
		if (depart[i] < first_departure)
			first_departure = depart[i];
		if (arrive[i] < arrive[first])
			first = i;
		if (arrive[i] > arrive[last])
			last = i;
	}
	/* Each member's place: how many arrived (left) before it; of equal
	 * times, the lower rank goes first.  Of a pair i < j, j is before
	 * i when its time is smaller, else i is before j: each pair is
	 * compared once.  Only communicators up to MON_ORDER_HIST_MAX
	 * (= ORDER_STACK) members keep places. */
	uint32_t pa[ORDER_STACK], pd[ORDER_STACK];
	int places = n <= ORDER_STACK;
	for (uint32_t i = 0; places && i < n; i++)
		pa[i] = pd[i] = 0;
	for (uint32_t i = 0; places && i < n; i++)
		for (uint32_t j = i + 1; j < n; j++) {
			if (arrive[j] < arrive[i])
				pa[i]++;
			else
				pa[j]++;
			if (depart[j] < depart[i])
				pd[i]++;
			else
				pd[j]++;
		}
	for (uint32_t i = 0; i < n; i++) {
		struct mon_order_member *m = &s->m[i];
		if (!m->label[0])
			memcpy(m->label, in->m[i].label, sizeof m->label);
		mon_welford_add(&m->arrive_wait, last_arrival - arrive[i]);
		mon_welford_add(&m->depart_wait, depart[i] - first_departure);
		if (!m->arrive_pos || !places)
			continue;
		m->arrive_pos[pa[i]]++;
		m->depart_pos[pd[i]]++;
	}
	s->m[first].first++;
	s->m[last].last++;
	s->pub.instances++;
	keep_instance(s, o->keep, in->seq, in->m[0].fn, arrive, depart);
	if (arrive != stack)
		free(arrive);
	return 0;
}

static int
inst_cmp(const void *x, const void *y)
{
	const struct mon_order_instance *const *a = x, *const *b = y;
	return (*a)->seq < (*b)->seq ? -1 : (*a)->seq > (*b)->seq;
}

int
mon_order_merge(struct mon_order *a, const struct mon_order *b)
{
	size_t pos = 0;
	struct mon_order_st *t;
	while ((t = mon_map_next(b->scopes, &pos, NULL, NULL))) {
		int clash;
		uint32_t n = t->pub.size;
		struct mon_order_st *s = scope_of(a, t->pub.scope, n, &clash);
		if (!s) {
			if (clash)
				continue;
			return GROVE_ENOMEM;
		}
		s->pub.instances += t->pub.instances;
		for (uint32_t i = 0; i < n; i++) {
			struct mon_order_member *x = &s->m[i];
			const struct mon_order_member *y = &t->m[i];
			if (!x->label[0])
				memcpy(x->label, y->label, sizeof x->label);
			x->first += y->first;
			x->last += y->last;
			mon_welford_merge(&x->arrive_wait, &y->arrive_wait);
			mon_welford_merge(&x->depart_wait, &y->depart_wait);
			for (uint32_t k = 0; x->arrive_pos && y->arrive_pos &&
			     k < n; k++) {
				x->arrive_pos[k] += y->arrive_pos[k];
				x->depart_pos[k] += y->depart_pos[k];
			}
		}
		/* The newest instances of both, by seq. */
		size_t tot = s->n + t->n;
		const struct mon_order_instance **all =
			malloc((tot ? tot : 1) * sizeof *all);
		uint64_t *copy = malloc((tot ? tot : 1) * 2 * n * sizeof *copy);
		struct mon_order_instance *hold =
			malloc((tot ? tot : 1) * sizeof *hold);
		if (!all || !copy || !hold) {
			free(all);
			free(copy);
			free(hold);
			return GROVE_ENOMEM;
		}
		for (size_t i = 0; i < tot; i++) {
			const struct mon_order_instance *src = i < s->n ?
			    &s->ring[(s->head + i) % a->keep] :
			    &t->ring[(t->head + i - s->n) % b->keep];
			hold[i] = *src;
			hold[i].arrive = copy + 2 * n * i;
			hold[i].depart = hold[i].arrive + n;
			memcpy(hold[i].arrive, src->arrive, n * sizeof *copy);
			memcpy(hold[i].depart, src->depart, n * sizeof *copy);
			all[i] = &hold[i];
		}
		qsort(all, tot, sizeof *all, inst_cmp);
		s->n = 0;
		s->head = 0;
		for (size_t i = tot > a->keep ? tot - a->keep : 0; i < tot; i++)
			keep_instance(s, a->keep, all[i]->seq, all[i]->fn,
			              all[i]->arrive, all[i]->depart);
		free(all);
		free(copy);
		free(hold);
	}
	return 0;
}

static int
scope_cmp(const void *x, const void *y)
{
	const struct mon_order_scope *a = x, *b = y;
	return strcmp(a->scope, b->scope);
}

int
mon_order_scopes(struct mon_order *o, struct mon_order_scope **out, size_t *n)
{
	size_t cnt = mon_map_count(o->scopes), i = 0, pos = 0;
	struct mon_order_scope *r = calloc(cnt ? cnt : 1, sizeof *r);
	if (!r)
		return GROVE_ENOMEM;
	struct mon_order_st *s;
	while ((s = mon_map_next(o->scopes, &pos, NULL, NULL)) && i < cnt) {
		/* Oldest first: rotate the kept instances into place (the
		 * arrays they point to move with them). */
		while (s->head) {
			struct mon_order_instance first = s->ring[0];
			memmove(s->ring, s->ring + 1,
			        (o->keep - 1) * sizeof *s->ring);
			s->ring[o->keep - 1] = first;
			s->head--;
		}
		r[i] = s->pub;
		r[i].m = s->m;
		r[i].n_recent = s->n;
		r[i].recent = s->ring;
		i++;
	}
	qsort(r, i, sizeof *r, scope_cmp);
	*out = r;
	*n = i;
	return 0;
}

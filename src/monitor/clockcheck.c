/* The clock accuracy check over joined messages (see clockcheck.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grove/error.h"
#include "monitor/clockcheck.h"
#include "monitor/map.h"

/* Messages from one process to another: key sender NUL receiver NUL. */
struct pair {
	char host_s[MON_HOST_LEN], host_r[MON_HOST_LEN];
	uint64_t n, violations, worst;
	int64_t min_d;
};

struct mon_clockcheck {
	struct mon_map *pairs;
};

struct mon_clockcheck *
mon_clockcheck_new(void)
{
	struct mon_clockcheck *c = calloc(1, sizeof *c);
	if (c && !(c->pairs = mon_map_new(sizeof(struct pair)))) {
		free(c);
		c = NULL;
	}
	return c;
}

void
mon_clockcheck_free(struct mon_clockcheck *c)
{
	if (!c)
		return;
	mon_map_free(c->pairs);
	free(c);
}

static struct pair *
pair_of(struct mon_clockcheck *c, const char *s, const char *r,
        const char *hs, const char *hr)
{
	char key[2 * MON_LABEL_LEN + 2];
	size_t sl = strnlen(s, MON_LABEL_LEN - 1);
	size_t rl = strnlen(r, MON_LABEL_LEN - 1);
	memcpy(key, s, sl);
	key[sl] = '\0';
	memcpy(key + sl + 1, r, rl);
	key[sl + 1 + rl] = '\0';
	int created;
	struct pair *p = mon_map_put(c->pairs, key, sl + rl + 2, &created);
	if (p && created) {
		snprintf(p->host_s, sizeof p->host_s, "%s", hs);
		snprintf(p->host_r, sizeof p->host_r, "%s", hr);
		p->min_d = MON_CLOCK_NONE;
	}
	return p;
}

/* Saturating signed difference a - b of two timestamps. */
static int64_t
diff(uint64_t a, uint64_t b)
{
	if (a >= b)
		return a - b > (uint64_t)INT64_MAX - 1 ? INT64_MAX - 1 :
		       (int64_t)(a - b);
	return b - a > (uint64_t)INT64_MAX ? -INT64_MAX : -(int64_t)(b - a);
}

int
mon_clockcheck_message(struct mon_clockcheck *c, const struct mon_msg *m)
{
	struct pair *p = pair_of(c, m->send.label, m->recv.label,
	                         m->send.host, m->recv.host);
	if (!p)
		return GROVE_ENOMEM;
	int64_t d = diff(m->recv.t_end, m->send.t_start);
	p->n++;
	if (d < p->min_d)
		p->min_d = d;
	if (d < 0) {
		p->violations++;
		if ((uint64_t)-d > p->worst)
			p->worst = (uint64_t)-d;
	}
	return 0;
}

int
mon_clockcheck_merge(struct mon_clockcheck *a, const struct mon_clockcheck *b)
{
	size_t pos = 0, kl;
	const char *key;
	const struct pair *p;
	while ((p = mon_map_next(b->pairs, &pos, &key, &kl))) {
		int created;
		struct pair *q = mon_map_put(a->pairs, key, kl, &created);
		if (!q)
			return GROVE_ENOMEM;
		if (created) {
			*q = *p;
			continue;
		}
		q->n += p->n;
		q->violations += p->violations;
		if (p->worst > q->worst)
			q->worst = p->worst;
		if (p->min_d < q->min_d)
			q->min_d = p->min_d;
	}
	return 0;
}

/* The bound named `name` in b[0..*n), added when missing. */
static struct mon_clock_bound *
bound_of(struct mon_clock_bound *b, size_t *n, const char *name)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp(b[i].name, name))
			return &b[i];
	struct mon_clock_bound *x = &b[(*n)++];
	memset(x, 0, sizeof *x);
	snprintf(x->name, sizeof x->name, "%s", name);
	x->min_in_ns = x->min_out_ns = MON_CLOCK_NONE;
	return x;
}

static void
account(struct mon_clock_bound *x, const struct pair *p, int incoming)
{
	x->messages += p->n;
	x->violations += p->violations;
	if (p->worst > x->worst_ns)
		x->worst_ns = p->worst;
	int64_t *m = incoming ? &x->min_in_ns : &x->min_out_ns;
	if (p->min_d < *m)
		*m = p->min_d;
}

static int
bound_cmp(const void *x, const void *y)
{
	const struct mon_clock_bound *a = x, *b = y;
	return mon_label_cmp(a->name, b->name);
}

int
mon_clockcheck_bounds(const struct mon_clockcheck *c, int by_process,
                      struct mon_clock_bound **out, size_t *n)
{
	size_t np = mon_map_count(c->pairs), nb = 0, pos, kl;
	/* At most two names per pair. */
	struct mon_clock_bound *b = calloc(2 * np + 1, sizeof *b);
	if (!b)
		return GROVE_ENOMEM;
	const char *key;
	const struct pair *p;
	int any_cross = 0;
	pos = 0;
	while ((p = mon_map_next(c->pairs, &pos, &key, &kl)))
		if (strcmp(p->host_s, p->host_r))
			any_cross = 1;
	pos = 0;
	while ((p = mon_map_next(c->pairs, &pos, &key, &kl))) {
		const char *s = key, *r = key + strlen(key) + 1;
		int cross = strcmp(p->host_s, p->host_r) != 0;
		/* With several hosts, a host's bound comes from the
		 * messages it exchanges with the others; a process's from
		 * all of its own. */
		if (!by_process && any_cross && !cross)
			continue;
		const char *ns = by_process ? s : p->host_s;
		const char *nr = by_process ? r : p->host_r;
		struct mon_clock_bound *xs = bound_of(b, &nb, ns);
		account(xs, p, 0);
		xs->cross |= cross;
		if (!strcmp(ns, nr) && !by_process) {
			/* One host: its messages are both ways at once;
			 * counted once. */
			if (p->min_d < xs->min_in_ns)
				xs->min_in_ns = p->min_d;
			continue;
		}
		struct mon_clock_bound *xr = bound_of(b, &nb, nr);
		account(xr, p, 1);
		xr->cross |= cross;
	}
	qsort(b, nb, sizeof *b, bound_cmp);
	*out = b;
	*n = nb;
	return 0;
}

void
mon_clockcheck_totals(const struct mon_clockcheck *c, uint64_t *messages,
                      uint64_t *violations, uint64_t *worst_ns)
{
	*messages = *violations = *worst_ns = 0;
	size_t pos = 0;
	const struct pair *p;
	while ((p = mon_map_next(c->pairs, &pos, NULL, NULL))) {
		*messages += p->n;
		*violations += p->violations;
		if (p->worst > *worst_ns)
			*worst_ns = p->worst;
	}
}

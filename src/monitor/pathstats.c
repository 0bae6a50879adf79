/* Per-path latency statistics and hotspots (see pathstats.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grove/error.h"
#include "monitor/map.h"
#include "monitor/pathstats.h"
#include "monitor/welford.h"
#include "trace/space.h"

/* Key: proc NUL name NUL layer NUL where NUL op NUL; the value keeps the
 * process's role, which is no part of the path's name. */
struct mon_path {
	struct mon_welford w;
	char role[MON_ROLE_LEN];
};

struct mon_pathstats {
	struct mon_map *paths;
};

struct mon_pathstats *
mon_pathstats_new(void)
{
	struct mon_pathstats *s = calloc(1, sizeof *s);
	if (s && !(s->paths = mon_map_new(sizeof(struct mon_path)))) {
		free(s);
		s = NULL;
	}
	return s;
}

void
mon_pathstats_free(struct mon_pathstats *s)
{
	if (!s)
		return;
	mon_map_free(s->paths);
	free(s);
}

static size_t
path_key(char *buf, size_t len, const char *const part[5])
{
	size_t n = 0;
	for (int i = 0; i < 5; i++) {
		size_t l = strnlen(part[i], len - n - 1);
		memcpy(buf + n, part[i], l);
		n += l;
		buf[n++] = '\0';
	}
	return n;
}

/* The accumulator of path part[], created when new; NULL: out of
 * memory. */
static struct mon_path *
path_of(struct mon_pathstats *s, const char *const part[5], const char *role)
{
	char key[MON_LABEL_LEN + MON_NAME_LEN + MON_LAYER_LEN + MON_WHERE_LEN +
	         32 + 8];
	size_t kl = path_key(key, sizeof key, part);
	int created;
	struct mon_path *p = mon_map_put(s->paths, key, kl, &created);
	if (p && created)
		snprintf(p->role, sizeof p->role, "%s", role);
	return p;
}

static int
add(struct mon_pathstats *s, const char *const part[5], const char *role,
    uint64_t d)
{
	struct mon_path *p = path_of(s, part, role);
	if (!p)
		return GROVE_ENOMEM;
	mon_welford_add(&p->w, d);
	return 0;
}

struct mon_path *
mon_pathstats_path(struct mon_pathstats *s, const struct mon_pathmap *pm,
                   uint32_t proc, const struct mon_tuple *t)
{
	const struct mon_collector *c = mon_pathmap_get(pm, proc, t->collector);
	char ob[32];
	const char *op = trace_op_name(t->op, ob, sizeof ob);
	const char *part[5] = {pm->p[proc].label, c ? c->name : op,
	                       c ? c->layer : "unregistered",
	                       c ? c->where : "", op};
	return path_of(s, part, pm->p[proc].role);
}

void
mon_pathstats_sample(struct mon_path *p, const struct mon_tuple *t)
{
	mon_welford_add(&p->w, t->t_end > t->t_start ? t->t_end - t->t_start
	                                            : 0);
}

int
mon_pathstats_feed(struct mon_pathstats *s, const struct mon_pathmap *pm,
                   uint32_t proc, const struct mon_tuple *t)
{
	if (!mon_pathstats_takes(t->op) || proc >= pm->n)
		return 0;
	struct mon_path *p = mon_pathstats_path(s, pm, proc, t);
	if (!p)
		return GROVE_ENOMEM;
	mon_pathstats_sample(p, t);
	return 0;
}

int
mon_pathstats_message(struct mon_pathstats *s, const char *to_label,
                      const char *to_role, const char *from_role,
                      const char *where, uint64_t latency_ns)
{
	char op[32];
	snprintf(op, sizeof op, "latency from %s", from_role);
	const char *part[5] = {to_label, "link.message", "net", where, op};
	return add(s, part, to_role, latency_ns);
}

int
mon_pathstats_merge(struct mon_pathstats *a, const struct mon_pathstats *b)
{
	size_t pos = 0, kl;
	const char *key;
	const struct mon_path *p;
	while ((p = mon_map_next(b->paths, &pos, &key, &kl))) {
		int created;
		struct mon_path *q = mon_map_put(a->paths, key, kl, &created);
		if (!q)
			return GROVE_ENOMEM;
		if (created)
			memcpy(q->role, p->role, sizeof q->role);
		mon_welford_merge(&q->w, &p->w);
	}
	return 0;
}

int
mon_pathstats_put(struct mon_pathstats *s, const char *const part[5],
                  const char *role, const struct mon_welford *w)
{
	char key[MON_LABEL_LEN + MON_NAME_LEN + MON_LAYER_LEN + MON_WHERE_LEN +
	         32 + 8];
	size_t kl = path_key(key, sizeof key, part);
	int created;
	struct mon_path *p = mon_map_put(s->paths, key, kl, &created);
	if (!p)
		return GROVE_ENOMEM;
	if (created)
		snprintf(p->role, sizeof p->role, "%s", role);
	mon_welford_merge(&p->w, w);
	return 0;
}

int
mon_pathstats_each(const struct mon_pathstats *s, mon_path_fn fn, void *ctx)
{
	size_t pos = 0, kl;
	const char *key;
	const struct mon_path *p;
	while ((p = mon_map_next(s->paths, &pos, &key, &kl))) {
		/* key: the five parts, each with its NUL */
		const char *part[5];
		const char *k0 = key;
		for (int f = 0; f < 5; f++) {
			part[f] = k0;
			k0 += strlen(k0) + 1;
		}
		int rc = fn(ctx, part, p->role, &p->w);
		if (rc)
			return rc;
	}
	return 0;
}

/* Sorting: by peer group first (to compute it), then for people. */
static int
group_cmp(const struct mon_path_stats *a, const struct mon_path_stats *b)
{
	int c = strcmp(a->name, b->name);
	if (!c)
		c = strcmp(a->layer, b->layer);
	if (!c)
		c = strcmp(a->op, b->op);
	if (!c)
		c = strcmp(a->role, b->role);
	return c;
}

static int
by_group(const void *x, const void *y)
{
	const struct mon_path_stats *a = x, *b = y;
	int c = group_cmp(a, b);
	if (!c)
		c = mon_label_cmp(a->proc, b->proc);
	if (!c)
		c = strcmp(a->where, b->where);
	return c;
}

static int
for_people(const void *x, const void *y)
{
	const struct mon_path_stats *a = x, *b = y;
	int c = mon_label_cmp(a->proc, b->proc);
	if (!c)
		c = strcmp(a->name, b->name);
	if (!c)
		c = strcmp(a->where, b->where);
	if (!c)
		c = strcmp(a->op, b->op);
	return c;
}

/* Marks the hotspots of group [lo, hi) of r.  A path is compared with
 * the means of its peers that have min_count samples: their mean and
 * standard deviation (unweighted: each path one value), the spread
 * between paths.  Its own mean is an estimate too, so the spread the
 * difference is measured in combines the peers' standard deviation and
 * the standard error of the path's mean (sd / sqrt(count)), and is at
 * least 1 ns, the timestamps' resolution.  A standard deviation needs two
 * values: a path with fewer than two such peers is never a hotspot. */
static void
mark_group(struct mon_path_stats *r, size_t lo, size_t hi, uint32_t group,
           double k, uint64_t min_count)
{
	for (size_t i = lo; i < hi; i++) {
		struct mon_path_stats *p = &r[i];
		p->group = group;
		p->peers = (uint32_t)(hi - lo - 1);
		/* Welford over the peers' means. */
		double n = 0, mean = 0, m2 = 0;
		uint64_t samples = 0;
		for (size_t j = lo; j < hi; j++) {
			if (j == i || r[j].count < min_count)
				continue;
			n++;
			double d = r[j].mean_ns - mean;
			mean += d / n;
			m2 += d * (r[j].mean_ns - mean);
			samples += r[j].count;
		}
		p->peer_count = samples;
		if (n < 2)
			continue;
		p->peers_mean_ns = mean;
		p->peers_sd_ns = m2 > 0 ? sqrt(m2 / (n - 1)) : 0;
		double se = p->count ? p->sd_ns / sqrt((double)p->count) : 0;
		double spread = sqrt(p->peers_sd_ns * p->peers_sd_ns + se * se);
		p->z = (p->mean_ns - mean) / (spread > 1 ? spread : 1);
		if (p->count >= min_count && fabs(p->z) > k)
			p->hotspot = p->z > 0 ? 1 : -1;
	}
}

int
mon_pathstats_results(const struct mon_pathstats *s, double k,
                      uint64_t min_count, struct mon_path_stats **out,
                      size_t *n)
{
	if (!(k > 0))
		return GROVE_EINVAL;
	size_t cnt = mon_map_count(s->paths), i = 0, pos = 0, kl;
	struct mon_path_stats *r = calloc(cnt ? cnt : 1, sizeof *r);
	if (!r)
		return GROVE_ENOMEM;
	const char *key;
	const struct mon_path *p;
	while ((p = mon_map_next(s->paths, &pos, &key, &kl)) && i < cnt) {
		struct mon_path_stats *d = &r[i];
		char *field[5] = {d->proc, d->name, d->layer, d->where, d->op};
		size_t size[5] = {sizeof d->proc, sizeof d->name,
		                  sizeof d->layer, sizeof d->where,
		                  sizeof d->op};
		const char *k0 = key;
		for (int f = 0; f < 5; f++) {
			snprintf(field[f], size[f], "%s", k0);
			k0 += strlen(k0) + 1;
		}
		memcpy(d->role, p->role, sizeof d->role);
		d->count = p->w.n;
		d->min_ns = p->w.min;
		d->max_ns = p->w.max;
		d->mean_ns = p->w.mean;
		d->sd_ns = mon_welford_sd(&p->w);
		i++;
	}
	qsort(r, i, sizeof *r, by_group);
	uint32_t group = 0;
	for (size_t lo = 0; lo < i; group++) {
		size_t hi = lo + 1;
		while (hi < i && !group_cmp(&r[lo], &r[hi]))
			hi++;
		mark_group(r, lo, hi, group, k, min_count);
		lo = hi;
	}
	qsort(r, i, sizeof *r, for_people);
	*out = r;
	*n = i;
	return 0;
}

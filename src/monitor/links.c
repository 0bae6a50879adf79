/* Joining the two ends of each link message (see links.h). */
#include <stdlib.h>
#include <string.h>

#include "grove/error.h"
#include "monitor/links.h"
#include "monitor/map.h"

struct waiting {
	struct mon_msg_end end;
	int is_send;
	int trace;
};

struct mon_links {
	mon_msg_fn fn;
	void *ctx;
	size_t max_pending;
	struct mon_map *wait;   /* where NUL seq -> struct waiting */
	uint64_t matched, dropped, duplicates;
};

struct mon_links *
mon_links_new(mon_msg_fn fn, void *ctx, size_t max_pending)
{
	struct mon_links *l = calloc(1, sizeof *l);
	if (!l)
		return NULL;
	l->fn = fn;
	l->ctx = ctx;
	l->max_pending = max_pending ? max_pending : (size_t)1 << 22;
	if (!(l->wait = mon_map_new(sizeof(struct waiting)))) {
		free(l);
		return NULL;
	}
	return l;
}

void
mon_links_free(struct mon_links *l)
{
	if (!l)
		return;
	mon_map_free(l->wait);
	free(l);
}

static size_t
msg_key(char buf[MON_WHERE_LEN + 8], const char *where, uint32_t seq)
{
	size_t wl = strnlen(where, MON_WHERE_LEN - 1);
	memcpy(buf, where, wl);
	buf[wl] = '\0';
	memcpy(buf + wl + 1, &seq, sizeof seq);
	return wl + 1 + sizeof seq;
}

/* One end arrives: joined with the other when it waits, else waits. */
static int
arrive(struct mon_links *l, const char *key, size_t kl,
       const struct waiting *w)
{
	struct waiting *o = mon_map_get(l->wait, key, kl);
	if (o && o->is_send == w->is_send) {
		l->duplicates++;
		return 0;
	}
	if (o) {
		struct mon_msg m;
		uint32_t seq;
		memcpy(&seq, key + kl - sizeof seq, sizeof seq);
		m.where = key;
		m.seq = seq;
		m.trace = w->trace || o->trace;
		m.send = w->is_send ? w->end : o->end;
		m.recv = w->is_send ? o->end : w->end;
		mon_map_del(l->wait, key, kl);
		l->matched++;
		return l->fn ? l->fn(l->ctx, &m) : 0;
	}
	if (mon_map_count(l->wait) >= l->max_pending) {
		l->dropped++;
		return 0;
	}
	struct waiting *n = mon_map_put(l->wait, key, kl, NULL);
	if (!n)
		return GROVE_ENOMEM;
	*n = *w;
	return 0;
}

int
mon_links_feed(struct mon_links *l, const struct mon_pathmap *pm,
               uint32_t proc, const struct mon_tuple *t)
{
	int send = t->op == GROVE_OP_SEND || t->op == GROVE_OP_TRACE_SEND;
	int recv = t->op == GROVE_OP_RECV || t->op == GROVE_OP_TRACE_RECV;
	if (!send && !recv)
		return 0;
	const struct mon_collector *c = mon_pathmap_get(pm, proc, t->collector);
	if (!c || c->kind != MON_K_LINK)
		return 0;
	const struct mon_proc *p = &pm->p[proc];
	struct waiting w;
	memset(&w, 0, sizeof w);
	w.is_send = send;
	w.trace = t->op == GROVE_OP_TRACE_SEND || t->op == GROVE_OP_TRACE_RECV;
	w.end.t_start = t->t_start;
	w.end.t_end = t->t_end;
	memcpy(w.end.label, p->label, sizeof w.end.label);
	memcpy(w.end.role, p->role, sizeof w.end.role);
	memcpy(w.end.host, p->host, sizeof w.end.host);
	char key[MON_WHERE_LEN + 8];
	size_t kl = msg_key(key, c->where, t->seq);
	return arrive(l, key, kl, &w);
}

int
mon_links_merge(struct mon_links *a, const struct mon_links *b)
{
	size_t pos = 0, kl;
	const char *key;
	const struct waiting *w;
	while ((w = mon_map_next(b->wait, &pos, &key, &kl))) {
		int rc = arrive(a, key, kl, w);
		if (rc)
			return rc;
	}
	a->matched += b->matched;
	a->dropped += b->dropped;
	a->duplicates += b->duplicates;
	return 0;
}

void
mon_links_counts(const struct mon_links *l, struct mon_links_counts *out)
{
	memset(out, 0, sizeof *out);
	out->matched = l->matched;
	out->dropped = l->dropped;
	out->duplicates = l->duplicates;
	size_t pos = 0;
	const struct waiting *w;
	while ((w = mon_map_next(l->wait, &pos, NULL, NULL))) {
		if (w->is_send)
			out->sends_waiting++;
		else
			out->recvs_waiting++;
	}
}

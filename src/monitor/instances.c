/* Joining the ranks' collective calls into instances (see instances.h). */
#include <stdlib.h>
#include <string.h>

#include "grove/error.h"
#include "monitor/instances.h"
#include "monitor/map.h"

/* A collective call waiting for the comm instant that follows it. */
struct pending {
	int valid;
	uint64_t t0, t1;
	char fn[MON_NAME_LEN];
};

struct open_inst {
	uint32_t size, nseen;
	uint64_t hash;        /* of its key (mon_map_hash) */
	struct mon_member *m;
	struct open_inst **win_slot; /* where a window holds it, or NULL */
};

/* A communicator's window: its open instances by seq modulo WINDOW, as
 * far as they were found or opened through a hint; a slot holds the
 * newest.  Only an index: the map `open` holds the instances, and one
 * missing here is looked up there.  An instance leaves its slot when it
 * completes.  Windows are made for the first MAX_WINDOWS communicators
 * fed through hints (12 KB each) and kept until the end. */
#define WINDOW 1024u
#define MAX_WINDOWS 256u
struct mon_inst_window {
	uint32_t seq[WINDOW];
	struct open_inst *o[WINDOW];
};

/* Member arrays of completed instances are kept for the next ones of
 * the same size (up to SPARE_SIZE members), instead of a free and a
 * calloc per instance: a list per size, threaded through the arrays.
 * They never outnumber the instances once open together. */
#define SPARE_SIZE 64

/* Rings whose pending calls are kept in an array per process (trace/
 * space.h, TRACE_MAX_RINGS: every ring there is); others in a map. */
#define PENDING_RINGS 64u

struct mon_instances {
	mon_instance_fn done;
	void *ctx;
	size_t max_open;
	/* Per process index, its rings' pending calls (NULL until the
	 * process's first collective call): looked at for every tuple, so
	 * an array, not a map. */
	struct pending **by_proc;
	uint32_t n_procs;
	struct mon_map *pending; /* (proc, ring) -> struct pending, for
	                            rings beyond PENDING_RINGS */
	struct mon_map *open;    /* scope NUL seq -> struct open_inst */
	struct mon_map *windows; /* scope NUL -> struct mon_inst_window */
	struct mon_instances_counts n;
	void *spare[SPARE_SIZE + 1]; /* by size: a list of arrays */
};

/* A zeroed member array for size members; NULL: out of memory. */
static struct mon_member *
members_new(struct mon_instances *in, uint32_t size)
{
	if (size <= SPARE_SIZE && in->spare[size]) {
		struct mon_member *m = in->spare[size];
		memcpy(&in->spare[size], m, sizeof(void *));
		memset(m, 0, size * sizeof *m);
		return m;
	}
	return calloc(size, sizeof(struct mon_member));
}

static void
members_free(struct mon_instances *in, struct mon_member *m, uint32_t size)
{
	if (size && size <= SPARE_SIZE) {
		memcpy(m, &in->spare[size], sizeof(void *));
		in->spare[size] = m;
		return;
	}
	free(m);
}

struct mon_instances *
mon_instances_new(mon_instance_fn done, void *ctx, size_t max_open)
{
	struct mon_instances *in = calloc(1, sizeof *in);
	if (!in)
		return NULL;
	in->done = done;
	in->ctx = ctx;
	in->max_open = max_open ? max_open : 65536;
	in->pending = mon_map_new(sizeof(struct pending));
	in->open = mon_map_new(sizeof(struct open_inst));
	in->windows = mon_map_new(sizeof(struct mon_inst_window));
	if (!in->pending || !in->open || !in->windows) {
		mon_instances_free(in);
		return NULL;
	}
	return in;
}

void
mon_instances_free(struct mon_instances *in)
{
	if (!in)
		return;
	if (in->open) {
		size_t pos = 0;
		struct open_inst *o;
		while ((o = mon_map_next(in->open, &pos, NULL, NULL)))
			free(o->m);
	}
	mon_map_free(in->open);
	mon_map_free(in->windows);
	mon_map_free(in->pending);
	for (uint32_t i = 0; i <= SPARE_SIZE; i++)
		while (in->spare[i]) {
			void *m = in->spare[i];
			memcpy(&in->spare[i], m, sizeof(void *));
			free(m);
		}
	for (uint32_t i = 0; i < in->n_procs; i++)
		free(in->by_proc[i]);
	free(in->by_proc);
	free(in);
}

/* The key of instance (scope, seq): the scope's bytes, a NUL, the seq.
 * scope is a collector's place (MON_WHERE_LEN bytes): copied whole, a
 * copy of fixed size being cheaper than one of the string's length. */
static size_t
inst_key(char buf[MON_WHERE_LEN + 8], const char scope[MON_WHERE_LEN],
         uint32_t seq)
{
	size_t sl = strnlen(scope, MON_WHERE_LEN - 1);
	memcpy(buf, scope, MON_WHERE_LEN);
	buf[sl] = '\0';
	memcpy(buf + sl + 1, &seq, sizeof seq);
	return sl + 1 + sizeof seq;
}

/* Hands a complete instance to the callback and forgets it. */
static void
complete(struct mon_instances *in, const char *key, size_t klen,
         struct open_inst *o)
{
	uint32_t seq;
	memcpy(&seq, key + klen - sizeof seq, sizeof seq);
	struct mon_instance done = {key, seq, o->size, o->m};
	in->n.complete++;
	if (in->done)
		in->done(in->ctx, &done);
	members_free(in, o->m, o->size);
	o->m = NULL;
	if (o->win_slot && *o->win_slot == o)
		*o->win_slot = NULL;
	mon_map_del_h(in->open, key, klen, o->hash);
}

/* The open instance of key, made for `size` members when new; NULL when
 * out of memory (*rc GROVE_ENOMEM) or when no more may be opened. */
static struct open_inst *
open_of(struct mon_instances *in, const char *key, size_t klen, uint64_t h,
        uint32_t size, int *rc)
{
	struct open_inst *o = mon_map_get_h(in->open, key, klen, h);
	if (o)
		return o;
	if (mon_map_count(in->open) >= in->max_open) {
		in->n.dropped++;
		return NULL;
	}
	struct mon_member *m = members_new(in, size);
	if (!m || !(o = mon_map_put_h(in->open, key, klen, h, NULL))) {
		free(m);
		*rc = GROVE_ENOMEM;
		return NULL;
	}
	o->size = size;
	o->hash = h;
	o->m = m;
	return o;
}

/* Member `who` of an instance: its call, unless it is in already.
 * 1 when that completed the instance (o is gone then). */
static int
add_member(struct mon_instances *in, const char *key, size_t klen,
           struct open_inst *o, uint32_t who, const struct mon_member *mem)
{
	if (o->m[who].seen) {
		in->n.duplicates++;
		return 0;
	}
	o->m[who] = *mem;
	o->m[who].seen = 1;
	if (++o->nseen < o->size)
		return 0;
	complete(in, key, klen, o);
	return 1;
}

/* The pending call of (proc, ring), or NULL when there never was one. */
static struct pending *
pending_get(const struct mon_instances *in, uint32_t proc, uint32_t ring)
{
	if (ring >= PENDING_RINGS) {
		uint32_t pk[2] = {proc, ring};
		return mon_map_get(in->pending, pk, sizeof pk);
	}
	return proc < in->n_procs && in->by_proc[proc] ?
	       &in->by_proc[proc][ring] : NULL;
}

/* The pending call of (proc, ring), made when new; NULL: out of
 * memory.  Made ones start invalid (no call waiting). */
static struct pending *
pending_put(struct mon_instances *in, uint32_t proc, uint32_t ring)
{
	if (ring >= PENDING_RINGS) {
		uint32_t pk[2] = {proc, ring};
		return mon_map_put(in->pending, pk, sizeof pk, NULL);
	}
	if (proc >= in->n_procs) {
		uint32_t n = proc + 1 > 2 * in->n_procs ? proc + 1
		                                        : 2 * in->n_procs;
		struct pending **np = realloc(in->by_proc, n * sizeof *np);
		if (!np)
			return NULL;
		memset(np + in->n_procs, 0, (n - in->n_procs) * sizeof *np);
		in->by_proc = np;
		in->n_procs = n;
	}
	if (!in->by_proc[proc] &&
	    !(in->by_proc[proc] = calloc(PENDING_RINGS, sizeof(struct pending))))
		return NULL;
	return &in->by_proc[proc][ring];
}

/* Fills a hint from a key's scope part (scope and NUL, sl bytes): its
 * hash and the communicator's window (none when it cannot have one). */
static void
learn_hint(struct mon_instances *in, struct mon_inst_hint *hint,
           const char *scope, size_t sl)
{
	hint->scope_hash = mon_map_hash_more(MON_MAP_HASH_INIT, scope, sl);
	hint->known = 1;
	hint->win = mon_map_get_h(in->windows, scope, sl, hint->scope_hash);
	if (!hint->win && mon_map_count(in->windows) < MAX_WINDOWS)
		hint->win = mon_map_put_h(in->windows, scope, sl,
		                          hint->scope_hash, NULL);
}

int
mon_instances_feed(struct mon_instances *in, const struct mon_pathmap *pm,
                   uint32_t proc, uint32_t ring, const struct mon_tuple *t)
{
	return mon_instances_feed_at(in, pm, proc, ring, t, NULL);
}

int
mon_instances_feed_at(struct mon_instances *in, const struct mon_pathmap *pm,
                      uint32_t proc, uint32_t ring, const struct mon_tuple *t,
                      struct mon_inst_hint *hint)
{
	const struct mon_collector *c = mon_pathmap_get(pm, proc, t->collector);
	struct pending *p = pending_get(in, proc, ring);
	if (c && c->kind == MON_K_MPI && c->collective &&
	    t->op == GROVE_OP_MPI_CALL) {
		if (!p && !(p = pending_put(in, proc, ring)))
			return GROVE_ENOMEM;
		p->valid = 1;
		p->t0 = t->t_start;
		p->t1 = t->t_end;
		memcpy(p->fn, c->name, sizeof p->fn);
		return 0;
	}
	int paired = p && p->valid;
	if (p)
		p->valid = 0; /* the instant comes right after its call */
	if (!c || c->kind != MON_K_MPI_COMM || t->op != GROVE_OP_MPI_COMM)
		return 0;
	if (!paired) {
		in->n.unpaired++;
		return 0;
	}
	if (c->a > MON_INST_MAX_SIZE || t->result < 0 ||
	    t->result >= c->a) {
		in->n.skipped++;
		return 0;
	}
	char key[MON_WHERE_LEN + 8];
	size_t klen = inst_key(key, c->where, t->seq);
	/* The key's hash: its scope part (with the NUL) once per hint.
	 * Without a hint, no window either: the plain map. */
	struct mon_inst_hint local = {0, 0, NULL};
	if (!hint) {
		hint = &local;
		local.scope_hash = mon_map_hash_more(MON_MAP_HASH_INIT, key,
		                                     klen - sizeof t->seq);
	} else if (!hint->known) {
		learn_hint(in, hint, key, klen - sizeof t->seq);
	}
	struct mon_inst_window *w = hint->win;
	uint32_t slot = t->seq % WINDOW;
	struct open_inst *o = w && w->o[slot] && w->seq[slot] == t->seq ?
	                      w->o[slot] : NULL;
	if (!o) {
		uint64_t h = mon_map_hash_more(hint->scope_hash,
		                               key + klen - sizeof t->seq,
		                               sizeof t->seq);
		int rc = 0;
		o = open_of(in, key, klen, h, (uint32_t)c->a, &rc);
		if (!o)
			return rc;
		if (w) {
			w->seq[slot] = t->seq;
			w->o[slot] = o;
			o->win_slot = &w->o[slot];
		}
	}
	if (o->size != (uint32_t)c->a) {
		/* Ranks disagree on the communicator's size: not one
		 * communicator after all. */
		in->n.skipped++;
		return 0;
	}
	/* add_member, filling the member where it goes (unseen members
	 * are zero: as a zeroed copy would leave it). */
	struct mon_member *m = &o->m[t->result];
	if (m->seen) {
		in->n.duplicates++;
		return 0;
	}
	m->arrive = p->t0;
	m->depart = p->t1;
	memcpy(m->label, pm->p[proc].label, sizeof m->label);
	memcpy(m->fn, p->fn, sizeof m->fn);
	m->seen = 1;
	if (++o->nseen == o->size)
		complete(in, key, klen, o);
	return 0;
}

int
mon_instances_merge(struct mon_instances *a, const struct mon_instances *b)
{
	size_t pos = 0, klen;
	const char *key;
	struct open_inst *ob;
	while ((ob = mon_map_next(b->open, &pos, &key, &klen))) {
		int rc = 0;
		struct open_inst *oa = open_of(a, key, klen, ob->hash, ob->size,
		                               &rc);
		if (!oa) {
			if (rc)
				return rc;
			continue;
		}
		if (oa->size != ob->size) {
			a->n.skipped++;
			continue;
		}
		for (uint32_t i = 0; i < ob->size; i++)
			if (ob->m[i].seen &&
			    add_member(a, key, klen, oa, i, &ob->m[i]))
				break;
	}
	a->n.complete += b->n.complete;
	a->n.dropped += b->n.dropped;
	a->n.duplicates += b->n.duplicates;
	a->n.skipped += b->n.skipped;
	a->n.unpaired += b->n.unpaired;
	a->n.open += b->n.open;
	return 0;
}

void
mon_instances_add_counts(struct mon_instances *in,
                         const struct mon_instances_counts *c)
{
	in->n.complete += c->complete;
	in->n.open += c->open;
	in->n.dropped += c->dropped;
	in->n.duplicates += c->duplicates;
	in->n.skipped += c->skipped;
	in->n.unpaired += c->unpaired;
}

void
mon_instances_counts(const struct mon_instances *in,
                     struct mon_instances_counts *out)
{
	*out = in->n;
	/* n.open holds only what other readers counted open (an event
	 * scope's shares carry counts, not the open instances). */
	out->open = in->n.open + mon_map_count(in->open);
}

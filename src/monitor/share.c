/* An event scope's shares: encoding and the checked decoder (see
 * share.h). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grove/error.h"
#include "monitor/share.h"

#define SHARE_MAGIC "GMSH"
#define SHARE_VERSION 2
#define HEAD_LEN 8
#define COUNTS_LEN (6 * 8 + 2 * 4)

/* ---- building ------------------------------------------------------- */

void
mon_share_buf_free(struct mon_share_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof *b);
}

static int
room(struct mon_share_buf *b, size_t n)
{
	if (b->len + n <= b->cap)
		return 0;
	size_t cap = b->cap ? b->cap : 1024;
	while (cap < b->len + n)
		cap *= 2;
	uint8_t *p = realloc(b->p, cap);
	if (!p)
		return GROVE_ENOMEM;
	b->p = p;
	b->cap = cap;
	return 0;
}

static int
put(struct mon_share_buf *b, const void *v, size_t n)
{
	if (!n)
		return 0;
	if (room(b, n))
		return GROVE_ENOMEM;
	memcpy(b->p + b->len, v, n);
	b->len += n;
	return 0;
}

static int
put_le(struct mon_share_buf *b, uint64_t v, size_t n)
{
	uint8_t x[8];
	for (size_t i = 0; i < n; i++)
		x[i] = (uint8_t)(v >> (8 * i));
	return put(b, x, n);
}

static int
put_u16(struct mon_share_buf *b, uint16_t v)
{
	return put_le(b, v, 2);
}

static int
put_u32(struct mon_share_buf *b, uint32_t v)
{
	return put_le(b, v, 4);
}

static int
put_u64(struct mon_share_buf *b, uint64_t v)
{
	return put_le(b, v, 8);
}

static int
put_f64(struct mon_share_buf *b, double d)
{
	uint64_t v;
	memcpy(&v, &d, sizeof v);
	return put_u64(b, v);
}

/* Strings come from the analysis's fixed fields: always shorter than
 * 64 KiB. */
static int
put_str(struct mon_share_buf *b, const char *s)
{
	size_t l = strlen(s);
	return put_u16(b, (uint16_t)l) || put(b, s, l) ? GROVE_ENOMEM : 0;
}

static int
put_head(struct mon_share_buf *b, int kind, const struct mon_share_counts *c)
{
	int rc = put(b, SHARE_MAGIC, 4) || put_le(b, SHARE_VERSION, 1) ||
	         put_le(b, (uint64_t)kind, 1) || put_u16(b, c->peak_fill) ||
	         put_u64(b, c->read) || put_u64(b, c->selected) ||
	         put_u64(b, c->lost_before) || put_u64(b, c->lost) ||
	         put_u64(b, c->gone) || put_u64(b, c->sent) ||
	         put_u32(b, c->readers) || put_u32(b, c->procs);
	return rc ? GROVE_ENOMEM : 0;
}

void
mon_share_counts_add(struct mon_share_counts *c,
                     const struct mon_share_counts *d)
{
	c->read += d->read;
	c->selected += d->selected;
	c->lost_before += d->lost_before;
	c->lost += d->lost;
	c->gone += d->gone;
	c->sent += d->sent;
	c->readers += d->readers;
	c->procs += d->procs;
	if (d->peak_fill > c->peak_fill)
		c->peak_fill = d->peak_fill;
}

struct paths_ctx {
	struct mon_share_buf *b;
	uint32_t n;
};

static int
put_path(void *ctx, const char *const part[5], const char *role,
         const struct mon_welford *w)
{
	struct paths_ctx *pc = ctx;
	struct mon_share_buf *b = pc->b;
	for (int i = 0; i < 5; i++)
		if (put_str(b, part[i]))
			return GROVE_ENOMEM;
	if (put_str(b, role) || put_u64(b, w->n) || put_f64(b, w->mean) ||
	    put_f64(b, w->m2) || put_u64(b, w->min) || put_u64(b, w->max))
		return GROVE_ENOMEM;
	pc->n++;
	return 0;
}

/* Writes a count into the u32 placeholder at off. */
static void
patch_u32(struct mon_share_buf *b, size_t off, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		b->p[off + (size_t)i] = (uint8_t)(v >> (8 * i));
}

int
mon_share_encode(const struct mon_share_counts *c,
                 const struct mon_analysis *a, uint8_t **out, size_t *len)
{
	struct mon_share_buf b = {0};
	struct mon_balance_edge *e = NULL;
	size_t ne = 0;
	int rc = put_head(&b, MON_SHARE_ANALYSIS, c);
	if (!rc)
		rc = put_u64(&b, a->tuples) || put_u64(&b, a->lost) ||
		     put_u32(&b, a->pm.n);
	for (uint32_t i = 0; i < a->pm.n && !rc; i++) {
		const struct mon_proc *p = &a->pm.p[i];
		rc = put_str(&b, p->role) || put_u32(&b, p->rank) ||
		     put_str(&b, p->host) || put_u64(&b, (uint64_t)p->node) ||
		     put_u64(&b, p->tuples) || put_u64(&b, p->lost);
	}
	if (!rc)
		rc = mon_balance_edges(a->balance, &e, &ne);
	if (!rc)
		rc = put_u32(&b, (uint32_t)ne);
	for (size_t i = 0; i < ne && !rc; i++)
		rc = put_str(&b, e[i].scope) || put_str(&b, e[i].parent) ||
		     put_str(&b, e[i].child) || put_u64(&b, e[i].last);
	free(e);
	size_t at = b.len;
	struct paths_ctx pc = {&b, 0};
	if (!rc && !(rc = put_u32(&b, 0)))
		rc = mon_pathstats_each(a->stats, put_path, &pc);
	if (!rc) {
		patch_u32(&b, at, pc.n);
		struct mon_instances_counts ic;
		mon_instances_counts(a->inst, &ic);
		rc = put_u64(&b, ic.complete) || put_u64(&b, ic.open) ||
		     put_u64(&b, ic.dropped) || put_u64(&b, ic.duplicates) ||
		     put_u64(&b, ic.skipped) || put_u64(&b, ic.unpaired);
	}
	if (rc) {
		mon_share_buf_free(&b);
		return GROVE_ENOMEM;
	}
	*out = b.p;
	*len = b.len;
	return 0;
}

int
mon_share_raw_block(struct mon_share_buf *blocks, const struct mon_pathmap *pm,
                    uint32_t proc, int64_t node, uint32_t ring, uint64_t lost,
                    const struct mon_tuple *t, size_t n)
{
	if (proc >= pm->n || n > UINT32_MAX)
		return GROVE_EINVAL;
	const struct mon_proc *p = &pm->p[proc];
	/* The collectors the tuples name, each once. */
	uint8_t named[MON_MAX_COLLECTORS + 1];
	memset(named, 0, sizeof named);
	uint32_t nc = 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t id = t[i].collector;
		if (id && id <= MON_MAX_COLLECTORS && !named[id] &&
		    mon_pathmap_get(pm, proc, id)) {
			named[id] = 1;
			nc++;
		}
	}
	int rc = put_str(blocks, p->role) || put_u32(blocks, p->rank) ||
	         put_str(blocks, p->host) || put_u64(blocks, (uint64_t)node) ||
	         put_u64(blocks, lost) || put_u32(blocks, ring) ||
	         put_u32(blocks, nc);
	for (uint32_t id = 1; id <= MON_MAX_COLLECTORS && nc && !rc; id++) {
		if (!named[id])
			continue;
		const struct mon_collector *c = mon_pathmap_get(pm, proc, id);
		rc = put_u32(blocks, id) || put_str(blocks, c->name) ||
		     put_str(blocks, c->layer) || put_str(blocks, c->where) ||
		     put_str(blocks, c->position);
	}
	if (!rc)
		rc = put_u32(blocks, (uint32_t)n);
	for (size_t i = 0; i < n && !rc; i++)
		rc = put_u64(blocks, t[i].t_start) ||
		     put_u64(blocks, t[i].t_end) ||
		     put_u32(blocks, t[i].collector) ||
		     put_u32(blocks, t[i].seq) ||
		     put_u32(blocks, (uint32_t)t[i].result) ||
		     put_u16(blocks, t[i].op) || put_u16(blocks, t[i].flags);
	return rc ? GROVE_ENOMEM : 0;
}

int
mon_share_raw_encode(const struct mon_share_counts *c,
                     const struct mon_share_buf *blocks, uint8_t **out,
                     size_t *len)
{
	struct mon_share_buf b = {0};
	if (put_head(&b, MON_SHARE_RAW, c) ||
	    (blocks->len && put(&b, blocks->p, blocks->len))) {
		mon_share_buf_free(&b);
		return GROVE_ENOMEM;
	}
	*out = b.p;
	*len = b.len;
	return 0;
}

/* ---- decoding -------------------------------------------------------- */

struct rd {
	const uint8_t *p;
	size_t len, off;
	char *err;
	size_t errlen;
	int failed;
};

static int
fail(struct rd *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int
fail(struct rd *r, const char *fmt, ...)
{
	if (!r->failed && r->err && r->errlen) {
		char what[160];
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(what, sizeof what, fmt, ap);
		va_end(ap);
		snprintf(r->err, r->errlen, "event scope share of %zu bytes, "
		         "at byte %zu: %s", r->len, r->off, what);
	}
	r->failed = 1;
	return GROVE_EFORMAT;
}

static int
get_le(struct rd *r, size_t n, uint64_t *v, const char *what)
{
	if (r->failed)
		return GROVE_EFORMAT;
	if (r->len - r->off < n)
		return fail(r, "%s cut short (%zu bytes needed, %zu left)",
		            what, n, r->len - r->off);
	uint64_t x = 0;
	for (size_t i = 0; i < n; i++)
		x |= (uint64_t)r->p[r->off + i] << (8 * i);
	r->off += n;
	*v = x;
	return 0;
}

static uint64_t
get_u64(struct rd *r, const char *what)
{
	uint64_t v = 0;
	get_le(r, 8, &v, what);
	return v;
}

static uint32_t
get_u32(struct rd *r, const char *what)
{
	uint64_t v = 0;
	get_le(r, 4, &v, what);
	return (uint32_t)v;
}

static uint16_t
get_u16(struct rd *r, const char *what)
{
	uint64_t v = 0;
	get_le(r, 2, &v, what);
	return (uint16_t)v;
}

static double
get_f64(struct rd *r, const char *what)
{
	uint64_t v = get_u64(r, what);
	double d;
	memcpy(&d, &v, sizeof d);
	return d;
}

/* A string into dst of size cap (its length must be below cap, with no
 * NUL in it). */
static void
get_str(struct rd *r, char *dst, size_t cap, const char *what)
{
	dst[0] = '\0';
	uint16_t l = get_u16(r, what);
	if (r->failed)
		return;
	if (l >= cap) {
		fail(r, "%s of %u bytes, longer than its %zu", what, l,
		     cap - 1);
		return;
	}
	if (r->len - r->off < l) {
		fail(r, "%s cut short (%u bytes, %zu left)", what, l,
		     r->len - r->off);
		return;
	}
	if (memchr(r->p + r->off, '\0', l)) {
		fail(r, "%s holds a NUL byte", what);
		return;
	}
	memcpy(dst, r->p + r->off, l);
	dst[l] = '\0';
	r->off += l;
}

/* A count of n elements of at least min_each bytes: there must be bytes
 * for them, so that no count makes the decoder allocate or loop more
 * than the share's size allows. */
static uint32_t
get_count(struct rd *r, size_t min_each, const char *what)
{
	uint32_t n = get_u32(r, what);
	if (!r->failed && (uint64_t)n * min_each > r->len - r->off)
		fail(r, "%u %s, more than the %zu bytes left can hold", n,
		     what, r->len - r->off);
	return r->failed ? 0 : n;
}

static void
get_head(struct rd *r, int *kind, struct mon_share_counts *c)
{
	if (r->len < HEAD_LEN + COUNTS_LEN) {
		fail(r, "shorter than its %d-byte head", HEAD_LEN + COUNTS_LEN);
		return;
	}
	if (memcmp(r->p, SHARE_MAGIC, 4)) {
		fail(r, "does not start with \"" SHARE_MAGIC "\"");
		return;
	}
	r->off = 4;
	uint64_t version = 0, k = 0;
	get_le(r, 1, &version, "version");
	if (version != SHARE_VERSION) {
		fail(r, "version %u, this reader knows %d", (unsigned)version,
		     SHARE_VERSION);
		return;
	}
	get_le(r, 1, &k, "kind");
	if (k != MON_SHARE_ANALYSIS && k != MON_SHARE_RAW) {
		fail(r, "unknown kind %u", (unsigned)k);
		return;
	}
	c->peak_fill = get_u16(r, "peak_fill");
	*kind = (int)k;
	c->read = get_u64(r, "read");
	c->selected = get_u64(r, "selected");
	c->lost_before = get_u64(r, "lost_before");
	c->lost = get_u64(r, "lost");
	c->gone = get_u64(r, "gone");
	c->sent = get_u64(r, "sent");
	c->readers = get_u32(r, "readers");
	c->procs = get_u32(r, "procs");
	if (!r->failed && c->selected > c->read)
		fail(r, "%llu tuples selected of %llu read",
		     (unsigned long long)c->selected,
		     (unsigned long long)c->read);
}

/* A process's name as the pathmap takes it; 0 or an error. */
static int
check_role(struct rd *r, const char *role)
{
	return role[0] ? 0 : fail(r, "a process without a role");
}

static int
analysis_body(struct rd *r, struct mon_analysis *a)
{
	int rc = 0;
	a->tuples = get_u64(r, "tuples");
	a->lost = get_u64(r, "lost");
	/* role, rank, host, node, tuples, lost: at least 30 bytes */
	uint32_t n = get_count(r, 30, "processes");
	for (uint32_t i = 0; i < n && !r->failed && !rc; i++) {
		char role[MON_ROLE_LEN], host[MON_HOST_LEN];
		get_str(r, role, sizeof role, "process role");
		uint32_t rank = get_u32(r, "process rank");
		get_str(r, host, sizeof host, "process host");
		int64_t node = (int64_t)get_u64(r, "process node");
		uint64_t tuples = get_u64(r, "process tuples");
		uint64_t lost = get_u64(r, "process lost");
		if (r->failed || check_role(r, role))
			break;
		if (node < -1 || node > UINT32_MAX) {
			fail(r, "process node %lld", (long long)node);
			break;
		}
		uint32_t before = a->pm.n, k;
		if ((rc = mon_pathmap_proc(&a->pm, role, rank, host, &k)))
			break;
		if (a->pm.n == before) {
			fail(r, "process %s %u given twice", role, rank);
			break;
		}
		a->pm.p[k].node = node;
		a->pm.p[k].tuples = tuples;
		a->pm.p[k].lost = lost;
	}
	n = get_count(r, 14, "last-arrival edges");
	for (uint32_t i = 0; i < n && !r->failed && !rc; i++) {
		char scope[MON_WHERE_LEN], parent[MON_WHERE_LEN];
		char child[MON_LABEL_LEN];
		get_str(r, scope, sizeof scope, "edge scope");
		get_str(r, parent, sizeof parent, "edge parent");
		get_str(r, child, sizeof child, "edge child");
		uint64_t last = get_u64(r, "edge count");
		if (!r->failed)
			rc = mon_balance_add(a->balance, scope, parent, child,
			                     last);
	}
	n = get_count(r, 52, "paths");
	for (uint32_t i = 0; i < n && !r->failed && !rc; i++) {
		char proc[MON_LABEL_LEN], name[MON_NAME_LEN];
		char layer[MON_LAYER_LEN], where[MON_WHERE_LEN], op[32];
		char role[MON_ROLE_LEN];
		get_str(r, proc, sizeof proc, "path process");
		get_str(r, name, sizeof name, "path name");
		get_str(r, layer, sizeof layer, "path layer");
		get_str(r, where, sizeof where, "path place");
		get_str(r, op, sizeof op, "path operation");
		get_str(r, role, sizeof role, "path role");
		struct mon_welford w;
		w.n = get_u64(r, "path count");
		w.mean = get_f64(r, "path mean");
		w.m2 = get_f64(r, "path m2");
		w.min = get_u64(r, "path minimum");
		w.max = get_u64(r, "path maximum");
		if (r->failed)
			break;
		/* A mean between the extremes, a finite, non-negative sum of
		 * squares: what any Welford accumulator of samples has. */
		if (!w.n || w.min > w.max || !isfinite(w.mean) ||
		    !isfinite(w.m2) || w.m2 < 0 ||
		    w.mean < (double)w.min * (1 - 1e-9) - 1 ||
		    w.mean > (double)w.max * (1 + 1e-9) + 1) {
			fail(r, "path %s %s: count %llu, mean %g, m2 %g, min "
			     "%llu, max %llu are no statistics of samples",
			     proc, name, (unsigned long long)w.n, w.mean, w.m2,
			     (unsigned long long)w.min,
			     (unsigned long long)w.max);
			break;
		}
		const char *part[5] = {proc, name, layer, where, op};
		rc = mon_pathstats_put(a->stats, part, role, &w);
	}
	struct mon_instances_counts ic;
	ic.complete = get_u64(r, "instances complete");
	ic.open = get_u64(r, "instances open");
	ic.dropped = get_u64(r, "instances dropped");
	ic.duplicates = get_u64(r, "instances duplicates");
	ic.skipped = get_u64(r, "instances skipped");
	ic.unpaired = get_u64(r, "instances unpaired");
	if (!r->failed && !rc)
		mon_instances_add_counts(a->inst, &ic);
	if (!r->failed && !rc && r->off != r->len)
		fail(r, "%zu bytes after the end", r->len - r->off);
	return r->failed ? GROVE_EFORMAT : rc;
}

/* One raw block: checked, and when a is not NULL its tuples fed. */
static int
raw_block(struct rd *r, struct mon_analysis *a)
{
	char role[MON_ROLE_LEN], host[MON_HOST_LEN];
	get_str(r, role, sizeof role, "block role");
	uint32_t rank = get_u32(r, "block rank");
	get_str(r, host, sizeof host, "block host");
	int64_t node = (int64_t)get_u64(r, "block node");
	uint64_t lost = get_u64(r, "block lost");
	uint32_t ring = get_u32(r, "block ring");
	if (r->failed || check_role(r, role))
		return GROVE_EFORMAT;
	if (node < -1 || node > UINT32_MAX)
		return fail(r, "block node %lld", (long long)node);
	uint32_t proc = 0;
	int rc = 0;
	if (a && (rc = mon_pathmap_proc(&a->pm, role, rank, host, &proc)))
		return rc;
	if (a && a->pm.p[proc].node < 0)
		a->pm.p[proc].node = node;
	/* id and four strings: at least 12 bytes */
	uint32_t nc = get_count(r, 12, "collectors");
	for (uint32_t i = 0; i < nc && !r->failed; i++) {
		char name[MON_NAME_LEN], layer[MON_LAYER_LEN];
		char where[MON_WHERE_LEN], pos[MON_POS_LEN];
		uint32_t id = get_u32(r, "collector id");
		get_str(r, name, sizeof name, "collector name");
		get_str(r, layer, sizeof layer, "collector layer");
		get_str(r, where, sizeof where, "collector place");
		get_str(r, pos, sizeof pos, "collector position");
		if (r->failed)
			break;
		if (!id || id > MON_MAX_COLLECTORS)
			return fail(r, "collector id %u (1 to %u)", id,
			            MON_MAX_COLLECTORS);
		if (a && (rc = mon_pathmap_collector(&a->pm, proc, id, name,
		                                     layer, where, pos)))
			return rc;
	}
	enum { TUPLE_LEN = 8 + 8 + 4 + 4 + 4 + 2 + 2 };
	uint32_t nt = get_count(r, TUPLE_LEN, "tuples");
	struct mon_tuple t[256];
	size_t k = 0;
	for (uint32_t i = 0; i < nt && !r->failed; i++) {
		struct mon_tuple *u = &t[k];
		u->t_start = get_u64(r, "tuple start");
		u->t_end = get_u64(r, "tuple end");
		u->collector = get_u32(r, "tuple collector");
		u->seq = get_u32(r, "tuple seq");
		u->result = (int32_t)get_u32(r, "tuple result");
		u->op = get_u16(r, "tuple op");
		u->flags = get_u16(r, "tuple flags");
		if (r->failed)
			break;
		if (++k == sizeof t / sizeof *t || i + 1 == nt) {
			if (a && (rc = mon_analysis_feed(a, proc, ring, t, k)))
				return rc;
			k = 0;
		}
	}
	if (r->failed)
		return GROVE_EFORMAT;
	if (a && lost)
		mon_analysis_lost(a, proc, lost);
	return 0;
}

static int
raw_body(struct rd *r, struct mon_analysis *a)
{
	while (r->off < r->len) {
		int rc = raw_block(r, a);
		if (rc)
			return rc;
	}
	return 0;
}

int
mon_share_decode(const uint8_t *p, size_t len, struct mon_share_counts *c,
                 int *kind, struct mon_analysis *a,
                 struct mon_share_buf *blocks, char *err, size_t errlen)
{
	struct rd r = {p, len, 0, err, errlen, 0};
	struct mon_share_counts got = {0};
	int k = 0;
	get_head(&r, &k, &got);
	if (r.failed)
		return GROVE_EFORMAT;
	size_t body = r.off;
	int rc;
	if (k == MON_SHARE_ANALYSIS) {
		/* Into an analysis of its own first: a share that fails half
		 * way adds nothing. */
		struct mon_analysis *b = mon_analysis_new(NULL);
		if (!b)
			return GROVE_ENOMEM;
		rc = analysis_body(&r, b);
		if (!rc && a)
			rc = mon_analysis_merge(a, b);
		mon_analysis_free(b);
	} else {
		/* Checked whole before anything is fed or kept. */
		rc = raw_body(&r, NULL);
		if (!rc && a) {
			r.off = body;
			rc = raw_body(&r, a);
		}
		if (!rc && blocks && put(blocks, p + body, len - body))
			rc = GROVE_ENOMEM;
	}
	if (rc == GROVE_ENOMEM && err && errlen)
		snprintf(err, errlen, "out of memory decoding an event scope "
		         "share of %zu bytes", len);
	if (rc)
		return rc;
	mon_share_counts_add(c, &got);
	*kind = k;
	return 0;
}

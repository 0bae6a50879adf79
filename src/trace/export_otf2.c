/* OTF2 export (Vampir, Scalasca, ViTE, otf2-print), as a plugin
 * (grove-otf2.so) that is built only when the OTF2 library is found.
 *
 * Mapping:
 *  - system tree: the network, then one node per host;
 *  - one location group (PROCESS) per event space ("be 12"), one location
 *    (CPU_THREAD) per thread ring;
 *  - one region per (layer, collector name, operation), named
 *    "layer:name"; every tuple is an Enter/Leave pair on its location;
 *  - every matched message (send tuple + receive tuple with the same link
 *    and seq) also gets MpiSend (at the send's start) and MpiRecv (at the
 *    receive's end) records on a communicator "grove links" whose ranks
 *    are the location numbers, so readers draw message lines; the tag is
 *    a hash of the link name, the length the byte count;
 *  - timestamps are CLOCK_MONOTONIC ns (resolution 1e9), after each
 *    process's TSC calibration.
 * OTF2 wants properly nested regions with non-decreasing times per
 * location: tuples are replayed in start order and a span that outlives
 * its enclosing span (overlapping, not nested) is cut at the enclosing
 * span's end. */
#include "trace/memo.h"
#include "trace/trace_impl.h"

#include "grove/error.h"



#include <otf2/otf2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct strtab {
	char **s;
	size_t n, cap;
};

/* The string's id in the definitions, adding it if new. */
static int64_t
str_id(struct strtab *t, const char *s)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->s[i], s))
			return (int64_t)i;
	if (t->n == t->cap) {
		size_t nc = t->cap ? t->cap * 2 : 64;
		char **ns = realloc(t->s, nc * sizeof *ns);
		if (!ns)
			return -1;
		t->s = ns;
		t->cap = nc;
	}
	if (!(t->s[t->n] = strdup(s)))
		return -1;
	return (int64_t)t->n++;
}

struct region {
	uint16_t op;
	char name[TRACE_LAYER_LEN + TRACE_NAME_LEN + 2];
};

struct ctx {
	const struct trace_set *set;
	const struct trace_otf2_host *host;
	struct strtab str;
	struct region *reg;
	size_t nreg, capreg;
	uint32_t *loc_base;     /* first location of each process */
	uint32_t nloc;
	uint64_t *nevents;      /* per location */
	int64_t **peer;         /* [loc][tuple]: peer location or -1 */
	uint32_t **tag;         /* [loc][tuple] */
	uint64_t origin, last;
};

/* The region of tuple t (found or added), or -1 when out of memory.  A
 * linear search over the regions: write_location asks once per
 * collector and op (memo), not per tuple. */
static int64_t
region_find(struct ctx *c, const struct trace_proc *p,
            const grove_trace_tuple *t)
{
	const struct trace_collector_entry *e =
		trace_proc_collector(p, t->collector);
	char ob[32], name[sizeof c->reg->name];
	const char *op = c->host->op_name(t->op, ob, sizeof ob);
	/* "layer:name"; just the name for a collector registered with an
	 * empty layer; "unregistered:op" for a tuple of no registered
	 * collector (id 0, or one the registry does not hold). */
	const char *what = e && e->name[0] ? e->name : op;
	if (!e)
		snprintf(name, sizeof name, "unregistered:%s", what);
	else if (!e->layer[0])
		snprintf(name, sizeof name, "%s", what);
	else
		snprintf(name, sizeof name, "%s:%s", e->layer, what);
	for (size_t i = 0; i < c->nreg; i++)
		if (c->reg[i].op == t->op && !strcmp(c->reg[i].name, name))
			return (int64_t)i;
	if (c->nreg == c->capreg) {
		size_t nc = c->capreg ? c->capreg * 2 : 32;
		struct region *nr = realloc(c->reg, nc * sizeof *nr);
		if (!nr)
			return -1;
		c->reg = nr;
		c->capreg = nc;
	}
	c->reg[c->nreg].op = t->op;
	snprintf(c->reg[c->nreg].name, sizeof c->reg->name, "%s", name);
	return (int64_t)c->nreg++;
}

static int64_t
region_id(struct ctx *c, struct trace_memo *memo, const struct trace_proc *p,
          const grove_trace_tuple *t)
{
	int64_t r = trace_memo_get(memo, t->collector, t->op);
	if (r < 0 && (r = region_find(c, p, t)) >= 0)
		trace_memo_put(memo, t->collector, t->op, r);
	return r;
}

static uint32_t
link_tag(const char *s)
{
	uint32_t h = 2166136261u; /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h & 0x7fffffff;
}

static OTF2_FlushType
pre_flush(void *ud, OTF2_FileType ft, OTF2_LocationRef loc, void *cd,
          bool final)
{
	(void)ud, (void)ft, (void)loc, (void)cd, (void)final;
	return OTF2_FLUSH;
}

static OTF2_TimeStamp
post_flush(void *ud, OTF2_FileType ft, OTF2_LocationRef loc)
{
	(void)ud, (void)ft, (void)loc;
	return 0;
}

static const OTF2_FlushCallbacks flush_cb = {
	.otf2_pre_flush = pre_flush,
	.otf2_post_flush = post_flush,
};

struct item {
	uint64_t s, e;
	size_t idx;
};

static int
item_cmp(const void *x, const void *y)
{
	const struct item *a = x, *b = y;
	if (a->s != b->s)
		return a->s < b->s ? -1 : 1;
	if (a->e != b->e)
		return a->e > b->e ? -1 : 1;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

struct frame {
	uint64_t e;
	size_t idx;
	int64_t region;
};

static void
leave(struct ctx *c, OTF2_EvtWriter *w, uint32_t loc,
      const struct trace_ring_snap *rs, const struct frame *f)
{
	const grove_trace_tuple *t = &rs->t[f->idx];
	if (trace_op_receives(t->op) && c->peer[loc][f->idx] >= 0)
		OTF2_EvtWriter_MpiRecv(w, NULL, f->e,
		                       (uint32_t)c->peer[loc][f->idx], 0,
		                       c->tag[loc][f->idx],
		                       t->result > 0 ? (uint64_t)t->result : 0);
	OTF2_EvtWriter_Leave(w, NULL, f->e, (OTF2_RegionRef)f->region);
}

/* Writes one thread ring as one location. */
static int
write_location(struct ctx *c, OTF2_Archive *a, uint32_t pi, uint32_t r)
{
	const struct trace_proc *p = &c->set->p[pi];
	const struct trace_ring_snap *rs = &p->rings[r];
	uint32_t loc = c->loc_base[pi] + r;
	struct item *it = malloc((rs->n ? rs->n : 1) * sizeof *it);
	struct frame *st = malloc((rs->n ? rs->n : 1) * sizeof *st);
	struct trace_memo memo;
	int memo_ok = trace_memo_init(&memo, p->n_collectors) == 0;
	OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(a, loc);
	int rc = 0;
	if (!it || !st || !memo_ok || !w) {
		rc = it && st && memo_ok ? GROVE_ESYS : GROVE_ENOMEM;
		goto out;
	}
	for (size_t k = 0; k < rs->n; k++) {
		uint64_t s = trace_proc_ns(p, rs->t[k].t_start);
		uint64_t e = trace_proc_ns(p, rs->t[k].t_end);
		s = s < c->origin ? c->origin : s;
		it[k] = (struct item){s, e < s ? s : e, k};
	}
	qsort(it, rs->n, sizeof *it, item_cmp);
	size_t depth = 0;
	for (size_t k = 0; k < rs->n; k++) {
		while (depth && st[depth - 1].e <= it[k].s)
			leave(c, w, loc, rs, &st[--depth]);
		uint64_t e = it[k].e;
		if (depth && e > st[depth - 1].e)
			e = st[depth - 1].e;
		const grove_trace_tuple *t = &rs->t[it[k].idx];
		int64_t reg = region_id(c, &memo, p, t);
		if (reg < 0) {
			rc = GROVE_ENOMEM;
			goto out;
		}
		OTF2_EvtWriter_Enter(w, NULL, it[k].s, (OTF2_RegionRef)reg);
		if (trace_op_sends(t->op) && c->peer[loc][it[k].idx] >= 0)
			OTF2_EvtWriter_MpiSend(w, NULL, it[k].s,
			                       (uint32_t)c->peer[loc][it[k].idx],
			                       0, c->tag[loc][it[k].idx],
			                       t->result > 0 ?
			                       (uint64_t)t->result : 0);
		st[depth++] = (struct frame){e, it[k].idx, reg};
		if (e > c->last)
			c->last = e;
	}
	while (depth)
		leave(c, w, loc, rs, &st[--depth]);
	uint64_t nev = 0;
	OTF2_EvtWriter_GetNumberOfEvents(w, &nev);
	c->nevents[loc] = nev;
out:
	if (w)
		OTF2_Archive_CloseEvtWriter(a, w);
	if (memo_ok)
		trace_memo_fini(&memo);
	free(it);
	free(st);
	return rc;
}

static int
index_messages(struct ctx *c)
{
	struct trace_msg *m;
	size_t n;
	int rc = c->host->match_messages(c->set, &m, &n);
	if (rc)
		return rc;
	for (size_t i = 0; i < n; i++) {
		struct trace_ref s = m[i].send, r = m[i].recv;
		uint32_t ls = c->loc_base[s.proc] + s.ring;
		uint32_t lr = c->loc_base[r.proc] + r.ring;
		const struct trace_proc *sp = &c->set->p[s.proc];
		const struct trace_collector_entry *e = trace_proc_collector(
			sp, trace_ref_tuple(c->set, s)->collector);
		uint32_t tag = link_tag(e ? e->where : "");
		c->peer[ls][s.idx] = lr;
		c->tag[ls][s.idx] = tag;
		c->peer[lr][r.idx] = ls;
		c->tag[lr][r.idx] = tag;
	}
	free(m);
	return 0;
}

#define S(x)                                                                   \
	({                                                                     \
		int64_t id_ = str_id(&c->str, (x));                            \
		if (id_ < 0) {                                                 \
			rc = GROVE_ENOMEM;                                     \
			goto out;                                              \
		}                                                              \
		(OTF2_StringRef)id_;                                           \
	})

static int
write_defs(struct ctx *c, OTF2_Archive *a)
{
	OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(a);
	const struct trace_set *set = c->set;
	uint64_t *members = NULL;
	char buf[256];
	int rc = 0;
	if (!g)
		return GROVE_ESYS;
	/* Strings first: gather every name, then write the table. */
	snprintf(buf, sizeof buf, "grove network %s",
	         set->n ? set->p[0].hdr.network_id : "");
	OTF2_StringRef s_net = S(buf), s_cls_net = S("network"),
	               s_cls_host = S("host"), s_links = S("grove links"),
	               s_all = S("all locations"), s_empty = S("");
	for (size_t i = 0; i < set->n; i++) {
		S(set->p[i].hdr.hostname);
		S(set->p[i].label);
		for (uint32_t r = 0; r < set->p[i].n_rings; r++) {
			snprintf(buf, sizeof buf, "%s thread %u",
			         set->p[i].label, set->p[i].rings[r].tid);
			S(buf);
		}
	}
	for (size_t i = 0; i < c->nreg; i++)
		S(c->reg[i].name);
	for (size_t i = 0; i < c->str.n; i++)
		OTF2_GlobalDefWriter_WriteString(g, (OTF2_StringRef)i,
		                                 c->str.s[i]);

	OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000u, c->origin,
	                                          c->last - c->origin + 1,
	                                          OTF2_UNDEFINED_TIMESTAMP);
	OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, s_net, s_cls_net,
	                                         OTF2_UNDEFINED_SYSTEM_TREE_NODE);
	/* One node per distinct host, numbered by first appearance. */
	uint32_t nhost = 0;
	for (size_t i = 0; i < set->n; i++) {
		size_t j = 0;
		while (j < i && strcmp(set->p[j].hdr.hostname,
		                       set->p[i].hdr.hostname))
			j++;
		if (j == i)
			OTF2_GlobalDefWriter_WriteSystemTreeNode(
				g, ++nhost, S(set->p[i].hdr.hostname),
				s_cls_host, 0);
	}
	for (size_t i = 0; i < set->n; i++) {
		uint32_t node = 0;
		for (size_t j = 0; j <= i; j++) {
			size_t k = 0;
			while (k < j && strcmp(set->p[k].hdr.hostname,
			                       set->p[j].hdr.hostname))
				k++;
			if (k == j)
				node++;
			if (!strcmp(set->p[j].hdr.hostname,
			            set->p[i].hdr.hostname))
				break;
		}
		OTF2_GlobalDefWriter_WriteLocationGroup(
			g, (OTF2_LocationGroupRef)i, S(set->p[i].label),
			OTF2_LOCATION_GROUP_TYPE_PROCESS, node,
			OTF2_UNDEFINED_LOCATION_GROUP);
	}
	for (size_t i = 0; i < set->n; i++)
		for (uint32_t r = 0; r < set->p[i].n_rings; r++) {
			uint32_t loc = c->loc_base[i] + r;
			snprintf(buf, sizeof buf, "%s thread %u",
			         set->p[i].label, set->p[i].rings[r].tid);
			OTF2_GlobalDefWriter_WriteLocation(
				g, loc, S(buf), OTF2_LOCATION_TYPE_CPU_THREAD,
				c->nevents[loc], (OTF2_LocationGroupRef)i);
		}
	for (size_t i = 0; i < c->nreg; i++) {
		uint16_t op = c->reg[i].op;
		OTF2_RegionRole role = trace_op_sends(op) ||
		                       trace_op_receives(op) ?
		                       OTF2_REGION_ROLE_POINT2POINT :
		                       OTF2_REGION_ROLE_FUNCTION;
		OTF2_StringRef nm = S(c->reg[i].name);
		OTF2_GlobalDefWriter_WriteRegion(
			g, (OTF2_RegionRef)i, nm, nm, s_empty, role,
			OTF2_PARADIGM_USER, OTF2_REGION_FLAG_NONE, s_empty, 0,
			0);
	}
	members = malloc((c->nloc ? c->nloc : 1) * sizeof *members);
	if (!members) {
		rc = GROVE_ENOMEM;
		goto out;
	}
	for (uint32_t i = 0; i < c->nloc; i++)
		members[i] = i;
	OTF2_GlobalDefWriter_WriteGroup(g, 0, s_all,
	                                OTF2_GROUP_TYPE_COMM_LOCATIONS,
	                                OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
	                                c->nloc, members);
	OTF2_GlobalDefWriter_WriteGroup(g, 1, s_links,
	                                OTF2_GROUP_TYPE_COMM_GROUP,
	                                OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
	                                c->nloc, members);
	OTF2_GlobalDefWriter_WriteComm(g, 0, s_links, 1, OTF2_UNDEFINED_COMM,
	                               OTF2_COMM_FLAG_NONE);
out:
	free(members);
	return rc;
}

#undef S

int
trace_export_otf2_impl_v2(const struct trace_set *set, const char *dir,
                          const struct trace_otf2_host *host)
{
	struct ctx c = {.set = set, .host = host};
	OTF2_Archive *a = NULL;
	int rc = GROVE_ENOMEM, said = 0;
	char anchor[4096];
	struct stat st;
	snprintf(anchor, sizeof anchor, "%s/traces.otf2", dir);
	if (stat(anchor, &st) == 0) {
		fprintf(stderr, "grove trace: %s exists; remove the archive "
		        "first\n", anchor);
		return GROVE_EINVAL;
	}
	c.loc_base = calloc(set->n + 1, sizeof *c.loc_base);
	if (!c.loc_base)
		goto out;
	for (size_t i = 0; i < set->n; i++) {
		c.loc_base[i] = c.nloc;
		c.nloc += set->p[i].n_rings;
	}
	c.nevents = calloc(c.nloc + 1, sizeof *c.nevents);
	c.peer = calloc(c.nloc + 1, sizeof *c.peer);
	c.tag = calloc(c.nloc + 1, sizeof *c.tag);
	if (!c.nevents || !c.peer || !c.tag)
		goto out;
	for (size_t i = 0; i < set->n; i++)
		for (uint32_t r = 0; r < set->p[i].n_rings; r++) {
			size_t n = set->p[i].rings[r].n + 1;
			uint32_t l = c.loc_base[i] + r;
			c.peer[l] = malloc(n * sizeof **c.peer);
			c.tag[l] = calloc(n, sizeof **c.tag);
			if (!c.peer[l] || !c.tag[l])
				goto out;
			memset(c.peer[l], 0xff, n * sizeof **c.peer);
		}
	if ((rc = index_messages(&c)))
		goto out;
	c.origin = host->set_origin_ns(set);
	c.last = c.origin;

	rc = GROVE_ESYS;
	a = OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE,
	                      1024 * 1024, 4 * 1024 * 1024,
	                      OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
	if (!a) {
		fprintf(stderr, "grove trace: cannot create OTF2 archive in "
		        "%s\n", dir);
		said = 1;
		goto out;
	}
	if (OTF2_Archive_SetFlushCallbacks(a, &flush_cb, NULL) !=
	    OTF2_SUCCESS ||
	    OTF2_Archive_SetSerialCollectiveCallbacks(a) != OTF2_SUCCESS)
		goto out;
	OTF2_Archive_SetCreator(a, "grove trace");
	OTF2_Archive_OpenEvtFiles(a);
	rc = 0;
	for (size_t i = 0; i < set->n && !rc; i++)
		for (uint32_t r = 0; r < set->p[i].n_rings && !rc; r++)
			rc = write_location(&c, a, (uint32_t)i, r);
	OTF2_Archive_CloseEvtFiles(a);
	if (rc)
		goto out;
	/* Serial mode still wants a (here empty) local definition file
	 * per location. */
	OTF2_Archive_OpenDefFiles(a);
	for (uint32_t l = 0; l < c.nloc; l++) {
		OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(a, l);
		if (dw)
			OTF2_Archive_CloseDefWriter(a, dw);
	}
	OTF2_Archive_CloseDefFiles(a);
	rc = write_defs(&c, a);
out:
	if (a && OTF2_Archive_Close(a) != OTF2_SUCCESS && !rc)
		rc = GROVE_ESYS;
	/* The OTF2 library said why on stderr, if anything; the archive
	 * is named here (running out of memory is said by the caller). */
	if (rc == GROVE_ESYS && !said)
		fprintf(stderr, "grove trace: writing the OTF2 archive %s "
		        "failed\n", anchor);
	for (uint32_t l = 0; c.peer && l < c.nloc; l++)
		free(c.peer[l]);
	for (uint32_t l = 0; c.tag && l < c.nloc; l++)
		free(c.tag[l]);
	free(c.peer);
	free(c.tag);
	free(c.nevents);
	free(c.loc_base);
	free(c.reg);
	for (size_t i = 0; i < c.str.n; i++)
		free(c.str.s[i]);
	free(c.str.s);
	return rc;
}



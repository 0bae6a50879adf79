/* An event scope on this host (see scope.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grove/error.h"
#include "scope.h"
#include "trace/reader.h"
#include "trace/trace_impl.h"

/* The tuples of one poll of one process, converted, with their rings:
 * every process's rings are read first and fed after (see scope_poll),
 * and the rings are read before the registry (a tuple's collector is
 * registered before the tuple is stored), so they wait here. */
struct staged {
	struct mon_tuple *t;
	uint32_t *ring;
	size_t n, cap;
	const struct trace_proc *cal;
};

struct scope_proc {
	struct trace_seg seg;
	struct staged st;           /* this poll's tuples, until fed */
	struct trace_seg_cursor cur;
	struct trace_proc cal;      /* the header and tick conversion only */
	uint32_t idx;               /* in the analysis's pathmap */
	int64_t node;               /* its TBON node id, or -1 */
	uint32_t n_coll;            /* registry entries taken so far */
	uint8_t *keep;              /* per collector id: selected */
	int polled;                 /* read once already */
	int gone;                   /* its space cannot be read any more */
	uint64_t lost_seen;         /* over its rings, at the last poll */
};

int
scope_op_parse(const char *name)
{
	char buf[32];
	for (unsigned op = 0; op < GROVE_OP_USER; op++) {
		const char *n = trace_op_name((uint16_t)op, buf, sizeof buf);
		if (strncmp(n, "op", 2) != 0 && strcmp(n, name) == 0)
			return (int)op;
	}
	return -1;
}

int
scope_init(struct scope *s, const char *net, const struct scope_select *sel,
           struct mon_analysis *a)
{
	memset(s, 0, sizeof *s);
	if (strlen(net) >= sizeof s->net)
		return GROVE_EINVAL;
	snprintf(s->net, sizeof s->net, "%s", net);
	s->sel = sel ? *sel : (struct scope_select){NULL, NULL, -1, 0};
	s->a = a;
	s->unread_nodes = -1;
	return 0;
}

size_t
scope_procs(const struct scope *s)
{
	return s->procs_remote ? s->procs_remote : s->n;
}

void
scope_counts(const struct scope *s, struct mon_share_counts *c)
{
	memset(c, 0, sizeof *c);
	c->read = s->read;
	c->selected = s->selected;
	c->lost_before = s->lost_before;
	c->lost = s->lost;
	c->gone = s->gone;
	c->sent = s->sent;
	c->readers = 1;
	double pf = s->peak_fill * 1024;
	c->peak_fill = pf >= 65535 ? 65535 : (uint16_t)(pf + 0.5);
	for (size_t i = 0; i < s->n; i++)
		c->procs += !s->p[i].gone || s->p[i].polled;
}

static int
known(const struct scope *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->p[i].seg.name, name) == 0)
			return 1;
	return 0;
}

/* Whether the space `name` is this reader's, and its node id. */
static int
admitted(const struct scope *s, const char *name, int64_t *node)
{
	*node = -1;
	if (!s->admit)
		return 1;
	char net[TRACE_NET_LEN], role[TRACE_ROLE_LEN];
	uint32_t rank;
	if (trace_parse_name(name, net, sizeof net, role, sizeof role, &rank))
		return 0;
	return s->admit(s->admit_ctx, role, rank, node);
}

/* Opens the segments of the network not open yet. */
static int
add_new(struct scope *s)
{
	char **names;
	size_t n;
	int rc = trace_list(s->net, NULL, &names, &n);
	if (rc)
		return rc;
	for (size_t i = 0; i < n && !rc; i++) {
		int64_t node;
		if (known(s, names[i]) || !admitted(s, names[i], &node))
			continue;
		if (s->n == s->cap) {
			size_t cap = s->cap ? 2 * s->cap : 16;
			struct scope_proc *p = realloc(s->p, cap * sizeof *p);
			if (!p) {
				rc = GROVE_ENOMEM;
				break;
			}
			s->p = p;
			s->cap = cap;
		}
		struct scope_proc *p = &s->p[s->n];
		memset(p, 0, sizeof *p);
		char err[256];
		if (trace_seg_open(names[i], &p->seg, err, sizeof err) != 0)
			continue; /* not (yet) a valid space: tried next poll */
		int r = mon_pathmap_proc(&s->a->pm, p->seg.hdr.role,
		                         p->seg.hdr.rank, p->seg.hdr.hostname,
		                         &p->idx);
		p->node = node;
		if (!r && node >= 0 && s->a->pm.p[p->idx].node < 0)
			s->a->pm.p[p->idx].node = node;
		if (r == GROVE_EINVAL) {
			p->gone = 1; /* a role no label can hold: left out */
		} else if (r) {
			trace_seg_close(&p->seg);
			rc = r;
			break;
		}
		p->keep = calloc((size_t)p->seg.hdr.max_collectors + 1, 1);
		if (!p->keep) {
			trace_seg_close(&p->seg);
			rc = GROVE_ENOMEM;
			break;
		}
		s->n++;
	}
	trace_list_free(names, n);
	return rc;
}

static int
stage(void *ctx, uint32_t ring, const grove_trace_tuple *t, size_t n)
{
	struct staged *st = ctx;
	if (st->n + n > st->cap) {
		size_t cap = st->cap ? st->cap : 1024;
		while (cap < st->n + n)
			cap *= 2;
		struct mon_tuple *nt = realloc(st->t, cap * sizeof *nt);
		if (!nt)
			return GROVE_ENOMEM;
		st->t = nt;
		uint32_t *nr = realloc(st->ring, cap * sizeof *nr);
		if (!nr)
			return GROVE_ENOMEM;
		st->ring = nr;
		st->cap = cap;
	}
	for (size_t i = 0; i < n; i++) {
		st->t[st->n] = (struct mon_tuple){
			trace_proc_ns(st->cal, t[i].t_start),
			trace_proc_ns(st->cal, t[i].t_end), t[i].collector,
			t[i].seq, t[i].result, t[i].op, t[i].flags};
		st->ring[st->n++] = ring;
	}
	return 0;
}

/* Whether a collector's tuples are what the load balance needs. */
static int
last_arrival(const struct mon_collector *c)
{
	return c && (c->kind == MON_K_LAST_BE || c->kind == MON_K_LAST_CP ||
	             c->kind == MON_K_MPI_COMM ||
	             (c->kind == MON_K_MPI && c->collective));
}

/* Registers the collectors new since the last poll and marks which the
 * selection keeps. */
static int
take_collectors(struct scope *s, struct scope_proc *p)
{
	uint32_t n = trace_seg_n_collectors(&p->seg);
	if (n <= p->n_coll)
		return 0;
	uint32_t add = n - p->n_coll;
	struct trace_collector_entry *e = malloc(add * sizeof *e);
	if (!e)
		return GROVE_ENOMEM;
	int rc = trace_seg_collectors(&p->seg, p->n_coll, add, e);
	for (uint32_t i = 0; i < add && !rc; i++) {
		uint32_t id = p->n_coll + i + 1;
		rc = mon_pathmap_collector(&s->a->pm, p->idx, id, e[i].name,
		                           e[i].layer, e[i].where,
		                           e[i].position);
		if (rc == GROVE_EINVAL)
			rc = 0; /* beyond what the pathmap follows: unselected */
		else if (!rc)
			p->keep[id] =
			    (!s->sel.layer || !strcmp(s->sel.layer, e[i].layer)) &&
			    (!s->sel.name || !strcmp(s->sel.name, e[i].name)) &&
			    (!s->sel.last_only ||
			     last_arrival(mon_pathmap_get(&s->a->pm, p->idx, id)));
	}
	if (!rc)
		p->n_coll = n;
	free(e);
	return rc;
}

/* Feeds the staged tuples the selection keeps, ring by ring runs (or,
 * raw, puts them in blocks, the first with the tuples lost since the
 * last poll; a block of no tuples carries a loss alone, or announces
 * the process at its first poll). */
static int
feed(struct scope *s, struct scope_proc *p, struct staged *st,
     uint64_t lost)
{
	size_t k = 0;
	int rc = 0;
	for (size_t i = 0; i < st->n; i++) {
		const struct mon_tuple *t = &st->t[i];
		int keep = t->collector && t->collector <= p->n_coll &&
		           p->keep[t->collector] &&
		           (s->sel.op < 0 || t->op == s->sel.op);
		/* Compacted in place: a run of one ring stays in order. */
		if (keep) {
			st->t[k] = *t;
			st->ring[k++] = st->ring[i];
		}
	}
	s->selected += k;
	/* A process's first block, even empty, says it was read. */
	if (s->raw && !k && (lost || !p->polled))
		return mon_share_raw_block(s->raw, &s->a->pm, p->idx, p->node,
		                           0, lost, NULL, 0);
	for (size_t i = 0; i < k && !rc;) {
		size_t j = i;
		while (j < k && st->ring[j] == st->ring[i])
			j++;
		if (s->raw) {
			rc = mon_share_raw_block(s->raw, &s->a->pm, p->idx,
			                         p->node, st->ring[i], lost,
			                         &st->t[i], j - i);
			lost = 0;
			s->sent += j - i;
		} else {
			rc = mon_analysis_feed(s->a, p->idx, st->ring[i],
			                       &st->t[i], j - i);
		}
		i = j;
	}
	return rc;
}

/* Reads what process p's rings hold that is new, into p->st. */
static int
read_proc(struct scope *s, struct scope_proc *p)
{
	if (trace_seg_header(&p->seg, &p->cal.hdr) != 0)
		return GROVE_EFORMAT;
	trace_proc_calibrate(&p->cal);
	p->st.n = 0;
	p->st.cal = &p->cal;
	uint64_t before[TRACE_MAX_RINGS];
	for (uint32_t r = 0; r < TRACE_MAX_RINGS; r++)
		before[r] = p->cur.ring[r].next;
	int rc = trace_seg_poll(&p->seg, &p->cur, stage, &p->st);
	if (rc)
		return rc;
	s->read += p->st.n;
	/* A process read for the first time wrote its rings over its whole
	 * life so far, not since the last poll: it says nothing of rates. */
	double slots = (double)p->seg.hdr.ring_slots;
	for (uint32_t r = 0; p->polled && slots > 0 && r < TRACE_MAX_RINGS;
	     r++) {
		double f = (double)(p->cur.ring[r].next - before[r]) / slots;
		if (p->cur.ring[r].next > before[r] && f > s->peak_fill)
			s->peak_fill = f;
	}
	return 0;
}

/* The collectors, then the staged tuples and the lost counts, of p. */
static int
feed_proc(struct scope *s, struct scope_proc *p)
{
	int rc;
	uint64_t lost = 0;
	for (uint32_t r = 0; r < TRACE_MAX_RINGS; r++)
		lost += p->cur.ring[r].lost;
	uint64_t d = lost - p->lost_seen;
	if ((rc = take_collectors(s, p)) || (rc = feed(s, p, &p->st, d)))
		return rc;
	if (d) {
		mon_analysis_lost(s->a, p->idx, d);
		if (p->polled)
			s->lost += d;
		else
			s->lost_before += d;
	}
	p->lost_seen = lost;
	p->polled = 1;
	return 0;
}

/* p's space cannot be read any more (truncated under us): what was read
 * stays counted. */
static void
drop(struct scope *s, struct scope_proc *p)
{
	p->gone = 1;
	s->gone++;
}

int
scope_poll(struct scope *s)
{
	int rc = add_new(s);
	s->peak_fill = 0;
	/* Every process's rings first, all analysis after: the rings of the
	 * processes are then read as close together in time as can be, so
	 * that they cover the same stretch of the run (a collective whose
	 * calls were read from one rank but were overwritten in another by
	 * the time it was read never completes). */
	for (size_t i = 0; i < s->n && !rc; i++) {
		struct scope_proc *p = &s->p[i];
		if (p->gone)
			continue;
		rc = read_proc(s, p);
		if (rc == GROVE_EFORMAT) {
			drop(s, p);
			rc = 0;
		}
	}
	for (size_t i = 0; i < s->n && !rc; i++) {
		struct scope_proc *p = &s->p[i];
		if (p->gone)
			continue;
		rc = feed_proc(s, p);
		if (rc == GROVE_EFORMAT) {
			drop(s, p);
			rc = 0;
		}
	}
	s->polls++;
	return rc;
}

size_t
scope_running(const struct scope *s)
{
	size_t n = 0;
	for (size_t i = 0; i < s->n; i++) {
		const struct trace_header *h = &s->p[i].cal.hdr;
		n += !s->p[i].gone && s->p[i].polled && !h->finished &&
		     trace_writer_alive(h->pid, h->calib_init.mono_ns);
	}
	return n;
}

int
scope_proc_pid(const struct scope *s, size_t i, const char **role)
{
	*role = s->p[i].seg.hdr.role;
	return s->p[i].gone ? 0 : s->p[i].seg.hdr.pid;
}

void
scope_free(struct scope *s)
{
	for (size_t i = 0; i < s->n; i++) {
		trace_seg_close(&s->p[i].seg);
		free(s->p[i].keep);
		free(s->p[i].st.t);
		free(s->p[i].st.ring);
	}
	free(s->p);
	memset(s, 0, sizeof *s);
}

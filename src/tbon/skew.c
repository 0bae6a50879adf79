/* Clock-skew detection in the tree (docs/clock-skew.md).
 *
 * Phase one: every parent (the FE and each CP) probes all of its children
 * at once, round after round; a round ends when every child it waits for
 * has answered it, or at the round's time limit (a child that missed one
 * is no longer waited for, but still probed and still heard).  Each reply
 * is a four-timestamp sample; a link keeps its minimum-delay sample.
 *
 * Phase two: when its rounds are over and its CP children have reported,
 * a CP sends up the offsets of all BEs below it relative to its own clock:
 * its BE children's link offsets, and each CP child's list plus the link
 * offset to that child.  The root ends with BE clock - FE clock for every
 * BE, and a bound that is the sum of the link bounds on the path.
 *
 * All of it runs on the node's loop: the FE drives it from inside
 * grove_net_clock_skew, a CP from its own loop.
 */
#include <stdlib.h>
#include <string.h>

#include "codec/wire.h"
#include "core/log.h"
#include "grove/error.h"
#include "net/sockio.h"
#include "tbon/node.h"
#include "tbon/proto.h"
#include "tbon/skew.h"

typedef struct skew_link {
	skew_best best;
	uint32_t answered;    /* highest round answered + 1; 0: none */
	uint32_t probed;      /* highest round probed + 1; 0: none */
	int slow;             /* missed a round's limit: not waited for */
	int inflight;         /* its probe of this round holds a window slot */
	int waiting_result;   /* a CP child whose SKEW_RESULT is due */
	/* That CP child's result: its BEs relative to its clock. */
	uint32_t *ranks;
	int64_t *off;
	uint64_t *err;
	size_t n;
} skew_link;

typedef struct node_skew {
	node *n;
	uv_timer_t timer;
	int64_t inject_ns;    /* validation offset of this process's clock */
	int active;           /* a run is in progress */
	int phase1_done;
	int reported;
	int sending;          /* inside pump: no nested sends */
	uint32_t req, rounds, round;
	uint32_t first;       /* child the round starts at */
	uint32_t next_k;      /* children of the round considered so far */
	uint32_t inflight;    /* probes of the round awaiting their reply */
	uint64_t round_ms;    /* a round without progress for this long
	                         stops waiting for its outstanding probes */
	uint64_t round_end_ms, probes_end_ms, deadline_ms;
	skew_link *links;     /* one per child */
	/* The root's result. */
	uint32_t *r_ranks;
	int64_t *r_off;
	uint64_t *r_err;
	size_t r_n;
} node_skew;

static void run_rounds(node_skew *s);

/* The validation offset of this process (BE rank or CP node id), from
 * GROVE_CLOCK_INJECT_NS; a malformed value is reported and ignored. */
int64_t
skew_inject_from_env(int is_cp, uint32_t id)
{
	char err[256];
	int64_t v = 0;
	if (clock_inject_parse(getenv("GROVE_CLOCK_INJECT_NS"), is_cp, id, &v,
	    err, sizeof err) != 0) {
		log_error("%s; no offset injected", err);
		return 0;
	}
	return v;
}

static node_skew *
skew_state(node *n)
{
	if (n->skew)
		return n->skew;
	node_skew *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	s->links = calloc(n->cap_children ? n->cap_children : 1, sizeof *s->links);
	if (!s->links) {
		free(s);
		return NULL;
	}
	s->n = n;
	/* The FE is the reference clock: only CPs take an offset. */
	s->inject_ns = n->id != 0 ? skew_inject_from_env(1, n->id) : 0;
	uv_timer_init(&n->loop, &s->timer);
	s->timer.data = s;
	n->skew = s;
	return s;
}

static void
link_clear(skew_link *l)
{
	free(l->ranks);
	free(l->off);
	free(l->err);
	memset(l, 0, sizeof *l);
	skew_best_init(&l->best);
}

static void
result_clear(node_skew *s)
{
	free(s->r_ranks);
	free(s->r_off);
	free(s->r_err);
	s->r_ranks = NULL;
	s->r_off = NULL;
	s->r_err = NULL;
	s->r_n = 0;
}

void
node_skew_free(node *n)
{
	node_skew *s = n->skew;
	if (!s)
		return;
	for (uint32_t i = 0; i < n->n_children; i++)
		link_clear(&s->links[i]);
	result_clear(s);
	free(s->links);
	free(s);
	n->skew = NULL;
}

/* ---- the child's side -------------------------------------------------- */

void
skew_answer_probe(conn *to, grove_packet *probe, int64_t t2, int64_t inject_ns,
    uint32_t src)
{
	const wire_hdr *h = wire_packet_hdr(probe);
	int64_t t1 = 0;
	if (!to || grove_packet_unpack(probe, PROTO_SKEW_PROBE, &t1) != 0) {
		log_debug("malformed clock probe dropped");
		return;
	}
	grove_packet *r = NULL;
	int64_t t3 = skew_clock_ns(inject_ns);
	if (wire_pack(&r, WIRE_T_SKEW_REPLY, 0, h->tag, src, h->aux,
	    PROTO_SKEW_REPLY, t1, t2, t3) != 0)
		return;
	/* Out now: a reply waiting for the end of the loop turn would count
	 * as delay. */
	if (conn_send(to, r) == 0)
		conn_flush(to);
	grove_packet_unref(r);
}

/* ---- phase one: rounds of probes --------------------------------------- */

static int
child_live(const node *n, uint32_t i)
{
	return n->children[i].c && !n->children[i].c->closing &&
	    n->children[i].state != CHILD_GONE;
}

static int
probe(node_skew *s, uint32_t i)
{
	node *n = s->n;
	conn *c = n->children[i].c;
	grove_packet *p = NULL;
	int64_t t1 = skew_clock_ns(s->inject_ns);
	int rc = wire_pack(&p, WIRE_T_SKEW_PROBE, 0, (int32_t)s->req, n->rank,
	    s->round, PROTO_SKEW_PROBE, t1);
	if (rc != 0)
		return rc;
	/* Out now, not at the end of the loop turn: that would be delay. */
	if ((rc = conn_send(c, p)) == 0)
		rc = conn_flush(c);
	node_note_flushed(n, c);
	grove_packet_unref(p);
	return rc;
}

/* Keeps SKEW_WINDOW probes of the round in flight.  A parent writes its
 * probes one after the other and reads no reply meanwhile: with all of
 * its children probed at once, the first ones' replies would wait for the
 * whole burst, and that wait is delay.  Children that were too slow are
 * still probed (their late replies are samples too) but hold no slot. */
static void
pump(node_skew *s)
{
	node *n = s->n;
	if (s->sending)
		return;
	s->sending = 1;
	while (s->next_k < n->n_children && s->inflight < SKEW_WINDOW) {
		uint32_t i = (s->first + s->next_k++) % n->n_children;
		if (!child_live(n, i) || probe(s, i) != 0 || !child_live(n, i))
			continue;
		s->links[i].probed = s->round + 1;
		if (!s->links[i].slow) {
			s->links[i].inflight = 1;
			s->inflight++;
		}
	}
	s->sending = 0;
}

static void
send_round(node_skew *s)
{
	node *n = s->n;
	uint32_t nc = n->n_children;
	/* Each round starts at another child, so that no child is always
	 * the one whose reply is read last. */
	s->first = nc ? (uint32_t)((uint64_t)s->round * nc / s->rounds) % nc : 0;
	s->next_k = 0;
	s->inflight = 0;
	for (uint32_t i = 0; i < nc; i++)
		s->links[i].inflight = 0;
	s->round_end_ms = sockio_now_ms() + s->round_ms;
	pump(s);
}

/* Every child probed in this round has answered it or was too slow.  A
 * child that connected after its turn (attach mode) waits for the next. */
static int
round_complete(const node_skew *s)
{
	const node *n = s->n;
	if (s->next_k < n->n_children)
		return 0;
	for (uint32_t i = 0; i < n->n_children; i++) {
		const skew_link *l = &s->links[i];
		if (child_live(n, i) && !l->slow && l->probed > s->round &&
		    l->answered <= s->round)
			return 0;
	}
	return 1;
}

static void on_timer(uv_timer_t *t);

static void
arm_timer(node_skew *s)
{
	uint64_t now = sockio_now_ms();
	uint64_t at = s->deadline_ms;
	if (!s->phase1_done) {
		uint64_t p1 = s->round < s->rounds ? s->round_end_ms :
		    s->probes_end_ms;
		if (p1 < at)
			at = p1;
	}
	uv_timer_start(&s->timer, on_timer, at > now ? at - now : 0, 0);
}

/* ---- phase two: results up the tree ------------------------------------ */

typedef struct entries {
	uint32_t *ranks;
	int64_t *off;
	uint64_t *err;
	size_t n, cap;
} entries;

static int
entries_add(entries *e, uint32_t rank, int64_t off, uint64_t err)
{
	if (e->n == e->cap) {
		size_t cap = e->cap ? e->cap * 2 : 64;
		uint32_t *r = realloc(e->ranks, cap * sizeof *r);
		if (r)
			e->ranks = r;
		int64_t *o = realloc(e->off, cap * sizeof *o);
		if (o)
			e->off = o;
		uint64_t *x = realloc(e->err, cap * sizeof *x);
		if (x)
			e->err = x;
		if (!r || !o || !x)
			return GROVE_ENOMEM;
		e->cap = cap;
	}
	e->ranks[e->n] = rank;
	e->off[e->n] = off;
	e->err[e->n] = err;
	e->n++;
	return 0;
}

static void
entries_free(entries *e)
{
	free(e->ranks);
	free(e->off);
	free(e->err);
	memset(e, 0, sizeof *e);
}

/* Every BE below this node that has a measured path, relative to this
 * node's clock. */
static void
collect(node_skew *s, entries *e)
{
	node *n = s->n;
	for (uint32_t i = 0; i < n->n_children; i++) {
		node_child *ch = &n->children[i];
		skew_link *l = &s->links[i];
		if (!l->best.samples)
			continue;
		if (ch->role == GROVE_ROLE_BE) {
			entries_add(e, ch->be_lo, l->best.offset_ns, l->best.error_ns);
			continue;
		}
		for (size_t k = 0; k < l->n; k++) {
			int64_t off;
			uint64_t err;
			if (l->ranks[k] < ch->be_lo || l->ranks[k] >= ch->be_hi)
				continue; /* not in that child's subtree */
			if (skew_accumulate(l->best.offset_ns, l->best.error_ns,
			    l->off[k], l->err[k], &off, &err) == 0)
				entries_add(e, l->ranks[k], off, err);
		}
	}
}

static void
maybe_report(node_skew *s)
{
	node *n = s->n;
	if (!s->active || s->reported || !s->phase1_done)
		return;
	for (uint32_t i = 0; i < n->n_children; i++)
		if (s->links[i].waiting_result && child_live(n, i))
			return;
	s->reported = 1;
	s->active = 0;
	uv_timer_stop(&s->timer);
	entries e = {0};
	collect(s, &e);
	if (n->id == 0) {
		/* The root keeps the result for grove_net_clock_skew. */
		result_clear(s);
		s->r_ranks = e.ranks;
		s->r_off = e.off;
		s->r_err = e.err;
		s->r_n = e.n;
	} else {
		grove_packet *p = NULL;
		if (wire_pack(&p, WIRE_T_SKEW_RESULT, 0, (int32_t)s->req, n->rank, 0,
		    PROTO_SKEW_RESULT, e.ranks, (uint64_t)e.n, e.off, (uint64_t)e.n,
		    e.err, (uint64_t)e.n) == 0) {
			node_send(n, n->parent, p);
			grove_packet_unref(p);
			node_flush_all(n);
		}
		entries_free(&e);
	}
	for (uint32_t i = 0; i < n->n_children; i++)
		link_clear(&s->links[i]);
}

/* Every live child has given at least one sample. */
static int
all_sampled(const node_skew *s)
{
	const node *n = s->n;
	for (uint32_t i = 0; i < n->n_children; i++)
		if (child_live(n, i) && !s->links[i].best.samples)
			return 0;
	return 1;
}

/* Next round when this one is complete; after the last, phase one ends
 * once every live child has been heard at least once (a child that was
 * busy may still answer late probes), or when its time is up. */
static void
run_rounds(node_skew *s)
{
	while (s->active && !s->phase1_done && !s->sending) {
		uint64_t now = sockio_now_ms();
		if (now >= s->probes_end_ms) {
			s->phase1_done = 1;
			break;
		}
		if (s->round < s->rounds) {
			if (!round_complete(s))
				break;
			if (++s->round < s->rounds) {
				send_round(s);
				continue;
			}
		}
		if (all_sampled(s))
			s->phase1_done = 1;
		break;
	}
	if (s->phase1_done)
		maybe_report(s);
	if (s->active)
		arm_timer(s);
}

/* Stop waiting: report what has arrived. */
static void
skew_finish(node_skew *s)
{
	s->phase1_done = 1;
	for (uint32_t i = 0; i < s->n->n_children; i++)
		s->links[i].waiting_result = 0;
	maybe_report(s);
}

static void
on_timer(uv_timer_t *t)
{
	node_skew *s = t->data;
	if (!s->active)
		return;
	uint64_t now = sockio_now_ms();
	if (now >= s->deadline_ms) {
		skew_finish(s);
		return;
	}
	if (!s->phase1_done && s->round < s->rounds && now >= s->round_end_ms) {
		/* No reply for a round's share of the time: the children whose
		 * probes are out are not waited for again, and give their
		 * window slots to the next ones. */
		for (uint32_t i = 0; i < s->n->n_children; i++) {
			skew_link *l = &s->links[i];
			if (l->inflight) {
				l->inflight = 0;
				l->slow = 1;
			}
		}
		s->inflight = 0;
		s->round_end_ms = now + s->round_ms;
		pump(s);
	}
	run_rounds(s);
}

/* ---- starting a run ------------------------------------------------------ */

static int
skew_start(node *n, uint32_t req, uint32_t rounds, uint64_t budget_ms)
{
	node_skew *s = skew_state(n);
	grove_packet *p = NULL;
	uint32_t child_budget = (uint32_t)(budget_ms * 3 / 4);
	if (!s || wire_pack(&p, WIRE_T_SKEW_REQ, 0, (int32_t)req, n->rank, 0,
	    PROTO_SKEW_REQ, rounds, child_budget ? child_budget : 1) != 0)
		return GROVE_ENOMEM;
	uv_timer_stop(&s->timer);
	for (uint32_t i = 0; i < n->n_children; i++)
		link_clear(&s->links[i]);
	result_clear(s);
	uint64_t now = sockio_now_ms();
	s->active = 1;
	s->phase1_done = s->reported = 0;
	s->req = req;
	s->rounds = rounds;
	s->round = 0;
	s->sending = 0;
	/* Half the budget for the probes, the rest for the results to come
	 * up; children get three quarters of ours, so theirs arrive in time. */
	s->probes_end_ms = now + budget_ms / 2;
	s->deadline_ms = now + budget_ms;
	s->round_ms = budget_ms / 2 / rounds;
	if (s->round_ms == 0)
		s->round_ms = 1;
	for (uint32_t i = 0; i < n->n_children; i++) {
		if (n->children[i].role != GROVE_ROLE_CP || !child_live(n, i))
			continue;
		s->links[i].waiting_result = 1;
		node_send(n, n->children[i].c, p);
	}
	grove_packet_unref(p);
	/* The requests go before the first probes. */
	node_flush_all(n);
	send_round(s);
	run_rounds(s);
	return 0;
}

int
node_skew_start(node *n, uint32_t req, uint32_t rounds, uint64_t budget_ms)
{
	if (rounds == 0 || rounds > SKEW_MAX_ROUNDS || budget_ms == 0)
		return GROVE_EINVAL;
	return skew_start(n, req, rounds, budget_ms);
}

int
node_skew_done(const node *n)
{
	const node_skew *s = n->skew;
	return s && s->reported;
}

void
node_skew_finish(node *n)
{
	if (n->skew && n->skew->active)
		skew_finish(n->skew);
}

size_t
node_skew_result(const node *n, const uint32_t **ranks, const int64_t **off,
    const uint64_t **err)
{
	const node_skew *s = n->skew;
	if (!s || !s->reported)
		return 0;
	*ranks = s->r_ranks;
	*off = s->r_off;
	*err = s->r_err;
	return s->r_n;
}

/* ---- messages ------------------------------------------------------------ */

void
node_skew_from_parent(node *n, grove_packet *p)
{
	const wire_hdr *h = wire_packet_hdr(p);
	if (h->type == WIRE_T_SKEW_PROBE) {
		node_skew *s = skew_state(n);
		/* Stamped first: everything after counts as turnaround. */
		int64_t t2 = skew_clock_ns(s ? s->inject_ns : 0);
		if (s)
			skew_answer_probe(n->parent, p, t2, s->inject_ns, n->rank);
		return;
	}
	uint32_t rounds = 0, budget = 0;
	if (grove_packet_unpack(p, PROTO_SKEW_REQ, &rounds, &budget) != 0 ||
	    rounds == 0 || rounds > SKEW_MAX_ROUNDS || budget == 0) {
		log_warn("node %u: malformed clock-skew request dropped", n->id);
		return;
	}
	if (skew_start(n, (uint32_t)h->tag, rounds, budget) != 0)
		log_warn("node %u: cannot start clock-skew detection", n->id);
}

static void
on_reply(node *n, node_skew *s, uint32_t idx, grove_packet *p, int64_t t4)
{
	const wire_hdr *h = wire_packet_hdr(p);
	int64_t t1, t2, t3;
	if (grove_packet_unpack(p, PROTO_SKEW_REPLY, &t1, &t2, &t3) != 0) {
		log_warn("node %u: malformed clock probe reply from node %u dropped",
		    n->id, n->children[idx].node_id);
		return;
	}
	skew_link *l = &s->links[idx];
	skew_sample smp;
	if (skew_sample_from_stamps(t1, t2, t3, t4, &smp) == 0)
		skew_best_add(&l->best, &smp);
	/* Late replies still give samples; only this round's count for it. */
	if (h->aux < s->rounds && h->aux + 1 > l->answered)
		l->answered = h->aux + 1;
	if (h->aux == s->round && s->round < s->rounds) {
		l->slow = 0;
		if (l->inflight) {
			l->inflight = 0;
			s->inflight--;
		}
		s->round_end_ms = sockio_now_ms() + s->round_ms;
		pump(s);
	}
	run_rounds(s);
}

static void
on_result(node *n, node_skew *s, uint32_t idx, grove_packet *p)
{
	skew_link *l = &s->links[idx];
	const uint32_t *r = NULL;
	const int64_t *o = NULL;
	const uint64_t *e = NULL;
	uint64_t nr = 0, no = 0, ne = 0;
	if (!l->waiting_result)
		return;
	if (grove_packet_unpack(p, PROTO_SKEW_RESULT, &r, &nr, &o, &no, &e,
	    &ne) != 0 || nr != no || nr != ne) {
		log_warn("node %u: malformed clock-skew result from node %u dropped",
		    n->id, n->children[idx].node_id);
		return;
	}
	l->waiting_result = 0;
	if (nr) {
		l->ranks = malloc(nr * sizeof *l->ranks);
		l->off = malloc(nr * sizeof *l->off);
		l->err = malloc(nr * sizeof *l->err);
		if (!l->ranks || !l->off || !l->err) {
			free(l->ranks);
			free(l->off);
			free(l->err);
			l->ranks = NULL;
			l->off = NULL;
			l->err = NULL;
		} else {
			memcpy(l->ranks, r, nr * sizeof *r);
			memcpy(l->off, o, nr * sizeof *o);
			memcpy(l->err, e, nr * sizeof *e);
			l->n = (size_t)nr;
		}
	}
	maybe_report(s);
}

void
node_skew_from_child(node *n, uint32_t idx, grove_packet *p)
{
	/* Stamped first, before any decoding. */
	node_skew *s = n->skew;
	int64_t t4 = skew_clock_ns(s ? s->inject_ns : 0);
	const wire_hdr *h = wire_packet_hdr(p);
	if (!s || !s->active || (uint32_t)h->tag != s->req || idx >= n->n_children)
		return; /* an answer to a run that is over */
	if (h->type == WIRE_T_SKEW_REPLY)
		on_reply(n, s, idx, p, t4);
	else
		on_result(n, s, idx, p);
}

void
node_skew_child_gone(node *n, uint32_t idx)
{
	node_skew *s = n->skew;
	if (!s || !s->active || idx >= n->n_children)
		return;
	skew_link *l = &s->links[idx];
	l->waiting_result = 0;
	if (l->inflight) {
		l->inflight = 0;
		s->inflight--;
	}
	if (!s->sending) {
		pump(s);
		run_rounds(s);
	}
}

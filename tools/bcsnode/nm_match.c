/* Message scheduling microphase (MSM): matches the slice's fresh
 * descriptors in a fixed order, so that timing differences smaller than
 * a slice never change a match:
 *   1. fresh sends, by sender world rank then posting order, each against
 *      its destination's posted receives (oldest first), else into the
 *      destination's unexpected queue;
 *   2. blocking probes from earlier slices, against the unexpected queues;
 *   3. every other fresh descriptor, by poster world rank then posting
 *      order: receives against the unexpected queue (oldest first), else
 *      posted; probes; cancels; collectives; notes.
 * Within that order MPI's rules hold: messages between a pair on one
 * context and tag are non-overtaking, and receives match in the order
 * they were posted. */
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "nm_impl.h"

static bool
matches(const struct bcs_desc *recv, const struct nm_msg *m)
{
	return recv->ctx == m->d.ctx && m->taken_by == 0 &&
	       (recv->peer < 0 || recv->peer == m->d.me) &&
	       (recv->tag < 0 || recv->tag == m->d.tag);
}

/* Starts moving m into the receive described by recv (of world rank
 * dst): the transfer runs in the point-to-point microphase. */
static int
pair(struct nm *nm, struct nm_msg *m, const struct bcs_desc *recv, int dst,
     int64_t wild_k, struct nm_counts *c)
{
	struct nm_xfer *x = calloc(1, sizeof(*x));
	if (!x)
		return -1;
	x->msg = m;
	m->next = NULL;
	x->recv = *recv;
	x->dst = dst;
	x->len = m->d.bytes < recv->bytes ? m->d.bytes : recv->bytes;
	*nm->xfers_tail = x;
	nm->xfers_tail = &x->next;
	c->np2pmsm++;
	nm->progressed = true;
	if (wild_k >= 0)
		nm_record_wild(nm, dst, wild_k, m->d.me);
	return 0;
}

static int
fresh_send(struct nm *nm, int src, const struct bcs_desc *d,
           struct nm_counts *c, char *err, size_t errlen)
{
	if (d->peer_world < 0 || d->peer_world >= nm->n) {
		snprintf(err, errlen, "rank %d sent to world rank %d, which is "
		         "not in the job of %d ranks", src, d->peer_world, nm->n);
		return -1;
	}
	struct nm_msg *m = calloc(1, sizeof(*m));
	if (!m)
		goto oom;
	m->d = *d;
	m->src = src;
	struct nm_rank *to = &nm->r[d->peer_world];
	for (struct nm_rq **pp = &to->posted.head; *pp; pp = &(*pp)->next) {
		struct nm_rq *q = *pp;
		if (!(q->d.flags & BCS_F_TAKEN) && matches(&q->d, m)) {
			*pp = q->next;
			if (to->posted.tail == &q->next)
				to->posted.tail = pp;
			int rc = pair(nm, m, &q->d, d->peer_world, q->wild_k, c);
			free(q);
			if (rc)
				goto oom;
			return 0;
		}
	}
	*to->unexpected.tail = m;
	to->unexpected.tail = &m->next;
	return 0;
oom:
	snprintf(err, errlen, "out of memory scheduling a message of rank %d",
	         src);
	return -1;
}

/* Removes and returns the oldest unexpected message of rank r matching
 * d (or only looks when take is false). */
static struct nm_msg *
find_unexpected(struct nm_rank *r, const struct bcs_desc *d, bool take)
{
	for (struct nm_msg **pp = &r->unexpected.head; *pp; pp = &(*pp)->next) {
		struct nm_msg *m = *pp;
		if (!matches(d, m))
			continue;
		if (take) {
			*pp = m->next;
			if (r->unexpected.tail == &m->next)
				r->unexpected.tail = pp;
			m->next = NULL;
		}
		return m;
	}
	return NULL;
}

static void
answer_probe(struct nm *nm, int rank, const struct bcs_desc *d,
             struct nm_msg *m)
{
	struct bcs_done dn = {
		.req = d->req, .slice = nm->slice, .kind = BCS_D_PROBE,
		.found = m != NULL, .source = -1, .tag = -1,
	};
	if (m) {
		dn.source = m->d.me;
		dn.tag = m->d.tag;
		dn.bytes = m->d.bytes;
	}
	nm_complete(nm, rank, d, &dn);
}

/* A probe: answered now when a message is there or it does not block;
 * else kept for later slices. */
static int
probe(struct nm *nm, int rank, const struct bcs_desc *d)
{
	struct nm_rank *r = &nm->r[rank];
	bool take = d->flags & BCS_F_TAKE;
	struct nm_msg *m = find_unexpected(r, d, take);
	if (m || !(d->flags & BCS_F_BLOCKING)) {
		if (m && take) {
			m->taken_by = d->req;
			m->next = r->taken;
			r->taken = m;
		}
		answer_probe(nm, rank, d, m);
		return 0;
	}
	struct nm_probe *p = calloc(1, sizeof(*p));
	if (!p)
		return -1;
	p->d = *d;
	p->rank = rank;
	p->next = r->probes;
	r->probes = p;
	return 0;
}

static void
waiting_probes(struct nm *nm)
{
	for (int i = 0; i < nm->n; i++) {
		struct nm_rank *r = &nm->r[i];
		/* Kept newest first: answer the oldest first. */
		struct nm_probe *rev = NULL;
		while (r->probes) {
			struct nm_probe *p = r->probes;
			r->probes = p->next;
			p->next = rev;
			rev = p;
		}
		struct nm_probe **keep = &r->probes;
		while (rev) {
			struct nm_probe *p = rev;
			rev = p->next;
			bool take = p->d.flags & BCS_F_TAKE;
			struct nm_msg *m = find_unexpected(r, &p->d, take);
			if (m) {
				if (take) {
					m->taken_by = p->d.req;
					m->next = r->taken;
					r->taken = m;
				}
				answer_probe(nm, i, &p->d, m);
				free(p);
			} else {
				p->next = NULL;
				*keep = p;
				keep = &p->next;
			}
		}
	}
}

static int
fresh_recv(struct nm *nm, int rank, const struct bcs_desc *d,
           struct nm_counts *c)
{
	struct nm_rank *r = &nm->r[rank];
	int64_t wild_k = d->peer < 0 ? r->wild_k++ : -1;
	struct nm_msg *m = NULL;
	if (d->flags & BCS_F_TAKEN) {
		/* MPI_Mrecv: the message its probe took. */
		for (struct nm_msg **pp = &r->taken; *pp; pp = &(*pp)->next)
			if ((*pp)->taken_by == d->addr2) {
				m = *pp;
				*pp = m->next;
				m->next = NULL;
				m->taken_by = 0;
				break;
			}
		if (!m) {
			struct bcs_done dn = {
				.req = d->req, .slice = nm->slice, .kind = BCS_D_RECV,
				.source = -1, .tag = -1, .error = MPI_ERR_REQUEST,
			};
			nm_say("rank %d received a message no probe of it took "
			       "(id %#llx)", rank, (unsigned long long)d->addr2);
			nm_complete(nm, rank, d, &dn);
			return 0;
		}
	} else {
		m = find_unexpected(r, d, true);
	}
	if (m)
		return pair(nm, m, d, rank, wild_k, c);
	struct nm_rq *q = calloc(1, sizeof(*q));
	if (!q)
		return -1;
	q->d = *d;
	q->wild_k = wild_k;
	*r->posted.tail = q;
	r->posted.tail = &q->next;
	return 0;
}

static void
cancel(struct nm *nm, int rank, const struct bcs_desc *d)
{
	struct nm_rank *r = &nm->r[rank];
	bool found = false;
	for (struct nm_rq **pp = &r->posted.head; *pp; pp = &(*pp)->next) {
		struct nm_rq *q = *pp;
		if (q->d.req != d->req)
			continue;
		*pp = q->next;
		if (r->posted.tail == &q->next)
			r->posted.tail = pp;
		/* The receive will never complete: it no longer blocks. */
		if ((q->d.flags & BCS_F_BLOCKING) && r->blocking > 0)
			r->blocking--;
		free(q);
		found = true;
		break;
	}
	struct bcs_done dn = {
		.req = d->req, .slice = nm->slice, .kind = BCS_D_CANCEL,
		.found = found, .source = -1, .tag = -1,
	};
	nm_complete(nm, rank, NULL, &dn);
}

static int
other(struct nm *nm, int rank, const struct bcs_desc *d, struct nm_counts *c,
      char *err, size_t errlen)
{
	switch (d->kind) {
	case BCS_D_SEND:
		return 0; /* done in the first pass */
	case BCS_D_RECV:
		if (fresh_recv(nm, rank, d, c) != 0)
			break;
		return 0;
	case BCS_D_PROBE:
		if (probe(nm, rank, d) != 0)
			break;
		return 0;
	case BCS_D_CANCEL:
		cancel(nm, rank, d);
		return 0;
	case BCS_D_BARRIER:
	case BCS_D_BCAST:
	case BCS_D_REDUCE:
	case BCS_D_ALLREDUCE:
		return nm_coll_add(nm, rank, d, err, errlen);
	case BCS_D_NOTE:
		nm_record_note(nm, rank, d);
		return 0;
	case BCS_D_FINALIZE:
		nm->r[rank].finalized = true;
		return 0;
	default:
		snprintf(err, errlen, "rank %d posted a descriptor of unknown "
		         "kind %d (ring record type %d)", rank, d->kind,
		         d->kind ? MPI_W_BCS : d->tag);
		return -1;
	}
	snprintf(err, errlen, "out of memory scheduling rank %d's requests",
	         rank);
	return -1;
}

int
nm_msm(struct nm *nm, struct nm_counts *c, char *err, size_t errlen)
{
	/* Transfers that go on from earlier slices count as scheduled. */
	for (struct nm_xfer *x = nm->xfers; x; x = x->next)
		c->np2pmsm++;
	for (int i = 0; i < nm->n; i++)
		for (size_t k = 0; k < nm->r[i].nfresh; k++)
			if (nm->r[i].fresh[k].kind == BCS_D_SEND &&
			    fresh_send(nm, i, &nm->r[i].fresh[k], c, err, errlen))
				return -1;
	waiting_probes(nm);
	for (int i = 0; i < nm->n; i++) {
		struct nm_rank *r = &nm->r[i];
		for (size_t k = 0; k < r->nfresh; k++)
			if (other(nm, i, &r->fresh[k], c, err, errlen) != 0)
				return -1;
		r->nfresh = 0;
	}
	return 0;
}

/* Shares kept for re-parenting, on a node's upward side
 * (docs/recovery.md, "Keeping shares until the grandparent has them"):
 * the shares a CP sends up are kept until its grandparent holds them,
 * parents ack what they took in (WAVE_ACK) and relay their own parent's
 * acks, and an orphan tells its new parent its streams (ADOPT) and sends
 * again from the resume points it is given (RESUME). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/wire.h"
#include "core/log.h"
#include "grove/error.h"
#include "tbon/node.h"
#include "tbon/proto.h"

/* A parent acks a child after this many shares or bytes taken in from
 * it: a child keeps about two steps plus what is in flight above it.
 * Each ack wakes its child, and wake-ups are what a tree's processes
 * sharing a few cores pay for most (docs/internals.md): a large step
 * keeps them to about two per child per 1024 waves, for some 200 KB
 * kept per stream and node with small shares. */
#define KEEP_ACK_SHARES 1024u
#define KEEP_ACK_BYTES (1u << 20)

/* Downstream frames a node with CP children keeps per stream for the
 * children of one that is lost (the last ones, at most this many and
 * bytes, but always the last: no acks come up for them, and a child that
 * was away for longer misses the older ones, which the log says). */
#define KEEP_DOWN_FRAMES 1024u
#define KEEP_DOWN_BYTES ((size_t)8 << 20)

/* Whether this node's shares on s may have to be sent again: a CP whose
 * parent is a CP (or which has none now, or whose new one has yet to
 * say where to resume), on a stream whose waves pair shares by count. */
static int
keeps(const node *n, const node_stream *s)
{
	return n->reparent_ms >= 0 && !n->place.is_fe &&
	    s->sync_kind == SYNC_WAIT_FOR_ALL && (n->parent_id != 0 ||
	    !n->parent || n->resuming);
}

void
node_keep_share_up(node *n, node_stream *s, grove_packet *announce,
    grove_packet *const *pkts, size_t k)
{
	uint64_t num = s->released - 1;
	/* The new parent has this wave from the lost one (RESUME). */
	if (num < s->skip_below)
		return;
	int kept = keeps(n, s);
	if (kept) {
		uint64_t dropped = s->keep.dropped;
		if (share_keep_push(&s->keep, num, announce, pkts,
		    (uint32_t)k) != 0)
			log_warn("node %u: out of memory keeping share %llu of "
			    "stream %u: it cannot be sent again if the parent is "
			    "lost", n->id, (unsigned long long)num, s->id);
		else if (s->keep.dropped > dropped && (s->keep.dropped &
		    (s->keep.dropped - 1)) == 0)
			log_warn("node %u: stream %u keeps more shares than it may "
			    "(%llu dropped so far): the parent acks none", n->id,
			    s->id, (unsigned long long)s->keep.dropped);
	}
	/* Orphaned, or waiting for the new parent's resume points: kept
	 * shares go out with the resend. */
	if (!n->parent || (kept && n->resuming))
		return;
	if (announce)
		n->hooks->up(n, announce);
	for (size_t i = 0; i < k; i++)
		n->hooks->up(n, pkts[i]);
}

static void
send_ack(node *n, node_stream *s, uint32_t slot, uint64_t held)
{
	node_child *ch = &n->children[s->slot_child[slot]];
	s->acked[slot] = held;
	s->ack_bytes[slot] = 0;
	if (!ch->c)
		return;
	uint64_t above = n->place.is_fe ? UINT64_MAX : s->parent_held;
	grove_packet *p = NULL;
	if (wire_pack(&p, WIRE_T_WAVE_ACK, s->id, 0, n->rank, 0, PROTO_WAVE_ACK,
	    held, above) != 0)
		return;
	node_send(n, ch->c, p);
	grove_packet_unref(p);
}

/* The shares of slot's child this node has taken in, counted from the
 * stream's creation. */
static uint64_t
held_of(const node_stream *s, uint32_t slot)
{
	return s->base[slot] + sync_shares_in(s->sync, slot);
}

/* Whether a child of n can be a CP whose children come here: n has CP
 * children (or has adopted some). */
static int
has_cp_children(const node *n)
{
	for (uint32_t i = 0; i < n->n_children; i++)
		if (n->children[i].role == GROVE_ROLE_CP)
			return 1;
	return 0;
}

/* share_keep_emit's callbacks: a kept frame to a child, a kept share's
 * packet up. */
struct to_child {
	node *n;
	conn *c;
};

static int
emit_down(void *arg, grove_packet *p)
{
	struct to_child *tc = arg;
	node_send(tc->n, tc->c, p);
	return 0;
}

static int
emit_up(void *arg, grove_packet *p)
{
	node *n = arg;
	n->hooks->up(n, p);
	return 0;
}

void
node_keep_down(node *n, node_stream *s, grove_packet *p)
{
	if (n->reparent_ms < 0 || !s->down_is_null)
		return;
	uint64_t num = s->down_in++;
	if (!has_cp_children(n))
		return;
	s->down_keep.max_shares = KEEP_DOWN_FRAMES;
	s->down_keep.max_bytes = KEEP_DOWN_BYTES;
	(void)share_keep_push(&s->down_keep, num, NULL, &p, 1);
}

void
node_keep_down_resend(node *n, node_stream *s, uint32_t idx, uint64_t from)
{
	node_child *ch = &n->children[idx];
	if (!ch->c || !s->down_is_null || from >= s->down_in)
		return;
	uint64_t first = share_keep_first(&s->down_keep);
	if (first > from)
		log_warn("node %u: node %u missed %llu frames of stream %u that "
		    "are no longer kept", n->id, ch->node_id,
		    (unsigned long long)(first - from), s->id);
	struct to_child tc = {n, ch->c};
	for (uint32_t i = 0; i < share_keep_count(&s->down_keep); i++)
		if (share_keep_at(&s->down_keep, i)->num >= from &&
		    share_keep_emit(&s->down_keep, i, emit_down, &tc) != 0)
			log_warn("node %u: out of memory sending node %u the "
			    "frames of stream %u it missed", n->id, ch->node_id,
			    s->id);
}

void
node_keep_share_in(node *n, node_stream *s, uint32_t slot, size_t bytes)
{
	if (n->reparent_ms < 0 || s->sync_kind != SYNC_WAIT_FOR_ALL)
		return;
	/* The FE's own back-ends keep nothing (they cannot outlive it);
	 * its CPs pass its acks on to theirs. */
	if (n->place.is_fe &&
	    n->children[s->slot_child[slot]].role != GROVE_ROLE_CP)
		return;
	s->ack_bytes[slot] += bytes;
	uint64_t held = held_of(s, slot);
	if (held - s->acked[slot] >= KEEP_ACK_SHARES ||
	    s->ack_bytes[slot] >= KEEP_ACK_BYTES)
		send_ack(n, s, slot, held);
}

void
node_keep_parent_ack(node *n, grove_packet *p)
{
	uint64_t held = 0, above = 0;
	node_stream *s = node_stream_find(n, grove_packet_stream(p));
	if (!s || grove_packet_unpack(p, PROTO_WAVE_ACK, &held, &above) != 0)
		return;
	share_keep_trim(&s->keep, above);
	if (held <= s->parent_held)
		return;
	s->parent_held = held;
	/* The children's shares inside mine that my parent holds are safe
	 * for them to drop: tell them. */
	for (uint32_t k = 0; k < s->nslots; k++)
		send_ack(n, s, k, held_of(s, k));
}

int
node_keep_adopt_packet(node *n, grove_packet **out)
{
	size_t cap = n->n_streams ? n->n_streams : 1, k = 0, pos = 0;
	uint32_t *ids = malloc(cap * sizeof *ids);
	uint64_t *next = malloc(cap * sizeof *next);
	uint64_t *down = malloc(cap * sizeof *down);
	node_stream *s;
	int rc = GROVE_ENOMEM;
	if (ids && next && down) {
		while ((s = node_stream_next(n, &pos)) && k < cap) {
			ids[k] = s->id;
			down[k] = s->down_in;
			next[k++] = s->released;
		}
		rc = wire_pack(out, WIRE_T_ADOPT, 0, 0, n->rank, 0, PROTO_ADOPT, ids,
		    (uint64_t)k, next, (uint64_t)k, down, (uint64_t)k);
	}
	free(ids);
	free(next);
	free(down);
	return rc;
}

/* An empty share for wave num whose packets were lost with the old
 * parent and are no longer kept here: the new parent's wave goes on,
 * with this node's whole range missing (lost with node lost). */
static void
send_lost_share(node *n, node_stream *s, uint32_t lost)
{
	uint32_t quad[4] = {n->place.be_lo, n->place.be_hi, GROVE_MISSING_LOST,
	    lost};
	int32_t code = GROVE_ELOST;
	grove_packet *p = NULL;
	if (wire_pack(&p, WIRE_T_WAVE_SHARE, s->id, 0, n->rank, 0,
	    PROTO_WAVE_SHARE, 0u, quad, (uint64_t)4, &code, (uint64_t)1) != 0)
		return;
	n->hooks->up(n, p);
	grove_packet_unref(p);
}

/* Stream s resumes at share r with the new parent. */
static void
resume_stream(node *n, node_stream *s, uint64_t r, uint32_t lost)
{
	/* Called with n->resuming cleared: keeps() says what the new parent
	 * needs from here on. */
	/* My shares below r are inside the lost parent's, which the new
	 * parent holds: my children may drop theirs. */
	s->parent_held = r;
	if (n->reparent_ms < 0 || s->sync_kind != SYNC_WAIT_FOR_ALL)
		return;
	if (r >= s->released) {
		s->skip_below = r;
		share_keep_trim(&s->keep, keeps(n, s) ? r : UINT64_MAX);
		return;
	}
	uint64_t first = share_keep_first(&s->keep);
	uint64_t num = r;
	for (; num < first && num < s->released; num++)
		send_lost_share(n, s, lost);
	if (num > r)
		log_warn("node %u: stream %u: waves %llu..%llu were no longer "
		    "kept here; sent as lost", n->id, s->id,
		    (unsigned long long)r, (unsigned long long)num - 1);
	for (uint32_t i = 0; i < share_keep_count(&s->keep); i++)
		if (share_keep_at(&s->keep, i)->num >= r &&
		    share_keep_emit(&s->keep, i, emit_up, n) != 0)
			log_error("node %u: out of memory sending share %llu of "
			    "stream %u again: the new parent's waves wait for it",
			    n->id, (unsigned long long)share_keep_at(&s->keep,
			    i)->num, s->id);
	/* Kept on until the new grandparent holds them; under the FE,
	 * nothing is kept. */
	share_keep_trim(&s->keep, keeps(n, s) ? r : UINT64_MAX);
}

void
node_keep_resume(node *n, grove_packet *p, uint32_t lost)
{
	const uint32_t *ids = NULL;
	const uint64_t *points = NULL;
	uint64_t ni = 0, np = 0;
	n->resuming = 0;
	if (grove_packet_unpack(p, PROTO_RESUME, &ids, &ni, &points, &np) != 0 ||
	    ni != np) {
		log_warn("node %u: malformed RESUME from the new parent: its "
		    "streams are kept as they are", n->id);
		return;
	}
	size_t pos = 0, ngone = 0;
	node_stream *s;
	uint32_t *gone = malloc((n->n_streams ? n->n_streams : 1) *
	    sizeof *gone);
	while ((s = node_stream_next(n, &pos))) {
		uint64_t j = 0;
		while (j < ni && ids[j] != s->id)
			j++;
		if (j < ni)
			resume_stream(n, s, points[j], lost);
		else if (gone)
			gone[ngone++] = s->id;
	}
	/* Destroyed while this node was away: so here and below. */
	for (size_t i = 0; i < ngone; i++) {
		log_info("node %u: stream %u is gone at the new parent", n->id,
		    gone[i]);
		node_stream_destroy(n, gone[i], 1);
	}
	free(gone);
}

/* Upstream waves of a node's streams: packets and wave shares from the
 * children through the sync and transformation filters to the parent,
 * the sync timer, children that leave or refuse a stream, and the
 * back-pressure of deep sync queues (the stream table and membership:
 * node_stream.c; downstream and the parent's messages: node_down.c). */
#include <stdio.h>
#include <stdlib.h>

#include "codec/wire.h"
#include "core/log.h"
#include "grove/error.h"
#include "net/sockio.h"
#include "tbon/node.h"
#include "tbon/proto.h"

/* A sync queue deeper than this (packets or bytes) stops reads from the
 * child that is ahead, so one fast producer cannot grow a node's memory
 * without bound; reads start again below the RESUME marks.  The byte
 * marks are a link's (CONN_HWM, CONN_LWM). */
#define SYNC_PAUSE_PKTS 4096
#define SYNC_RESUME_PKTS 1024
#define SYNC_PAUSE_BYTES (8u << 20)
#define SYNC_RESUME_BYTES (2u << 20)

static uint64_t
now_ns(void)
{
	return sockio_now_ms() * 1000000u;
}

static int run_waves(node *n, node_stream *s, uint64_t now, uint64_t *t_first);

/* ---- back-pressure from sync queues ------------------------------------
 *
 * A child is paused only while no stream waits for it: a wave that needs
 * a packet still in a paused child's link would never complete, and two
 * streams that each wait for the child the other paused would hang the
 * tree.  Such a child is resumed the moment a stream waits for it; its
 * other streams' queues then grow as the application's traffic demands
 * (holding those packets is the only way its waves can complete). */

static int
slot_over(const node_stream *s, uint32_t slot)
{
	return sync_queued(s->sync, slot) > SYNC_PAUSE_PKTS ||
	    sync_queued_bytes(s->sync, slot) > SYNC_PAUSE_BYTES;
}

static int
slot_drained(const node_stream *s, uint32_t slot)
{
	return sync_queued(s->sync, slot) < SYNC_RESUME_PKTS &&
	    sync_queued_bytes(s->sync, slot) < SYNC_RESUME_BYTES;
}

/* 1 when a wave of some stream waits for a packet of this child. */
static int
child_awaited(node *n, uint32_t child)
{
	size_t pos = 0;
	node_stream *s;
	while ((s = node_stream_next(n, &pos)))
		if (s->child_slot[child] >= 0 &&
		    sync_waits_on(s->sync, (uint32_t)s->child_slot[child]))
			return 1;
	return 0;
}

static void
child_pause(node *n, uint32_t child)
{
	node_child *ch = &n->children[child];
	if (ch->paused || !ch->c)
		return;
	if (!n->sync_paused && !(n->sync_paused = calloc(n->cap_children ?
	    n->cap_children : 1, sizeof *n->sync_paused)))
		return; /* no room to remember it: do not pause */
	ch->paused = 1;
	n->sync_paused[n->n_sync_paused++] = child;
	conn_read_stop(ch->c);
}

void
node_streams_resume_child(node *n, uint32_t child)
{
	node_child *ch = &n->children[child];
	if (!ch->paused)
		return;
	ch->paused = 0;
	for (uint32_t i = 0; i < n->n_sync_paused; i++)
		if (n->sync_paused[i] == child) {
			n->sync_paused[i] = n->sync_paused[--n->n_sync_paused];
			break;
		}
	if (ch->c && !n->children_paused)
		conn_read_start(ch->c);
}

/* After s changed: paused children it now waits for go on. */
static void
resume_awaited(node *n, const node_stream *s)
{
	for (uint32_t i = 0; i < n->n_sync_paused;) {
		uint32_t child = n->sync_paused[i];
		int32_t slot = s->child_slot[child];
		/* A resumed child's entry gets the last one: i again. */
		if (slot >= 0 && sync_waits_on(s->sync, (uint32_t)slot))
			node_streams_resume_child(n, child);
		else
			i++;
	}
}

/* ---- upstream: waves ------------------------------------------------ */

/* A CP whose every child on a stream is gone (lost, or refused the
 * stream) contributes nothing to it any more, but is itself still up:
 * it tells its parent, whose waves then stop waiting for it (as for a
 * refusal), or every wait_for_all wave above would wait for it forever.
 * Once per stream; the FE has no parent to tell. */
void
node_stream_check_empty(node *n, node_stream *s)
{
	if (n->place.is_fe || s->told_empty || sync_live_slots(s->sync) != 0)
		return;
	s->told_empty = 1;
	char text[120];
	snprintf(text, sizeof text, "node %u: every member of stream %u below "
	    "it is lost", n->id, s->id);
	node_up_ctl(n, WIRE_T_STREAM_REFUSED, 0, PROTO_STREAM_REFUSED, n->id,
	    s->id, (int32_t)GROVE_ELOST, text);
}

static void
report_filter_error(node *n, node_stream *s, int rc, const char *what)
{
	char text[200];
	/* The code as the filter returned it: a custom filter's own codes
	 * mean nothing to grove_strerror. */
	snprintf(text, sizeof text, "node %u: %s filter '%s' on stream %u failed: "
	    "%s (%d)", n->id, what, what[0] == 'u' ? s->up->name : s->down->name,
	    s->id, grove_strerror(rc), rc);
	log_warn("%s", text);
	node_up_ctl(n, WIRE_T_FILTER_ERROR, 0, PROTO_FILTER_ERROR, n->id, s->id, rc,
	    text);
}

static void sync_timer_arm(node *n, node_stream *s);

/* Data from a child on a stream this node cannot take it on: dropped, and
 * said upward (the FE raises GROVE_EV_DROPPED), at most once a second
 * for the same child and stream: a back-end that keeps sending must not
 * flood the tree with reports. */
static void
report_dropped(node *n, uint32_t child, uint32_t stream, uint32_t src,
    const char *why)
{
	uint64_t now = sockio_now_ms();
	if (n->drop_ms && n->drop_stream == stream && n->drop_child == child &&
	    now - n->drop_ms < 1000)
		return;
	n->drop_ms = now;
	n->drop_stream = stream;
	n->drop_child = child;
	char who[160], text[400];
	node_describe_child(n, &n->children[child], who, sizeof who);
	snprintf(text, sizeof text, "node %u: data from %s (source rank %u) on "
	    "stream %u, %s: dropped", n->id, who, src, stream, why);
	log_warn("%s", text);
	node_up_ctl(n, WIRE_T_FILTER_ERROR, PROTO_DROPPED_TAG,
	    PROTO_FILTER_ERROR, n->id, stream, (int32_t)GROVE_ENOENT, text);
}

/* A CP's share of the wave just released on s goes up: its announcement
 * when the parent cannot assume one packet, then the packets the filter
 * emitted (n->fout, npackets of them), kept for a resend when the parent
 * may die (node_keep.c).  dont_wait pairs nothing: the packets go as
 * they are. */
static void
share_up(node *n, node_stream *s, int32_t tag, size_t npackets,
    const wave_gaps *gaps)
{
	flt_out *o = &n->fout;
	if (s->sync_kind == SYNC_DONT_WAIT) {
		for (size_t i = 0; i < o->n_up; i++)
			n->hooks->up(n, o->up[i]);
		return;
	}
	grove_packet *ann = NULL;
	node_wave_share_packet(n, s, tag, &npackets, gaps, &ann);
	node_keep_share_up(n, s, ann, npackets ? o->up : NULL, npackets);
	grove_packet_unref(ann);
}

/* run_waves when a wave may be ready (or the sync has a timeout).  Kept
 * out of line: its frame is large and most packets complete no wave. */
static __attribute__((noinline)) int
release_waves(node *n, node_stream *s, uint64_t now, uint64_t *t_first)
{
	size_t k;
	int released = 0;
	if (t_first)
		*t_first = 0;
	while (sync_wave_ready(s->sync, now)) {
		uint64_t t0 = grove_trace_begin();
		grove_packet **wave;
		uint32_t *slots;
		if (!sync_pop_wave(s->sync, now, &wave, &slots, &k))
			break;
		uint64_t t1 = grove_trace_begin();
		if (released++ == 0 && t_first)
			*t_first = t0;
		grove_trace_record(&s->tc_sync, GROVE_OP_FILTER_SYNC, (int32_t)k, t0,
		    t1);
		int32_t tag = node_wave_collect(n, s, k ? wire_packet_hdr(wave[0])->tag
		    : 0);
		/* The number of this node's share of the wave (recovery). */
		s->released++;
		if (k == 0) {
			/* Every share was empty: so is ours, with their gaps. */
			if (n->hooks->wave)
				n->hooks->wave(n, s, tag, 0, &n->fout, &n->gaps);
			else
				share_up(n, s, tag, 0, &n->gaps);
			continue;
		}
		/* The sync's slots become children, in place (the array is
		 * ours until the next pop). */
		for (size_t i = 0; i < k; i++)
			slots[i] = s->slot_child[slots[i]];
		flt_out *o = &n->fout;
		int rc = flt_run(s->up, s->id, tag, n->rank, wave, slots, k,
		    s->params[0], &s->up_state, &n->place, o);
		uint64_t t2 = grove_trace_begin();
		grove_trace_record(&s->tc_up, GROVE_OP_FILTER_TRANSFORM, rc ? rc :
		    (int32_t)k, t1, t2);
		for (size_t i = 0; i < k; i++)
			grove_packet_unref(wave[i]);
		if (rc == 0 && o->n_up > SYNC_MAX_SHARE && !n->place.is_fe)
			rc = GROVE_ERANGE; /* more than a parent takes in one share */
		if (rc != 0) {
			flt_out_reset(o);
			report_filter_error(n, s, rc, "upstream");
			/* The wave is dropped here; the parent still gets
			 * this node's (empty) share of it, so that its next
			 * waves do not pair this node's next wave with the
			 * siblings' share of this one, and learns which
			 * back-ends the failure left out. */
			node_wave_failed(n, s, rc);
			if (n->hooks->wave)
				n->hooks->wave(n, s, tag, rc, o, &n->gaps);
			else
				share_up(n, s, tag, 0, &n->gaps);
			continue;
		}
		if (n->hooks->wave)
			n->hooks->wave(n, s, tag, 0, o, &n->gaps);
		else
			share_up(n, s, tag, o->n_up, &n->gaps);
		/* Reverse output goes to each child of the wave once (a
		 * child's packets are adjacent). */
		for (size_t i = 0; i < o->n_down; i++)
			for (size_t j = 0; j < k; j++)
				if (j == 0 || slots[j] != slots[j - 1])
					node_send(n, n->children[slots[j]].c,
					    o->down[i]);
		flt_out_reset(o);
		/* The wave ends where its transformation did (one clock read
		 * less per wave). */
		grove_trace_record(&s->tc_wave, GROVE_OP_WAVE, (int32_t)k, t0, t2);
	}
	/* Resume children paused on this stream once their queues drained.
	 * Queues shrink only when waves leave: without one, nothing to do. */
	for (uint32_t j = 0; released && j < s->nslots; j++)
		if (n->children[s->slot_child[j]].paused && slot_drained(s, j))
			node_streams_resume_child(n, s->slot_child[j]);
	if (n->n_sync_paused)
		resume_awaited(n, s);
	if (s->sync_kind == SYNC_TIMEOUT)
		sync_timer_arm(n, s);
	return released;
}

/* Slot's child is gone from the stream (lost: code GROVE_ELOST; else it
 * refused the stream, code why; node: the node that went or refused):
 * its waves stop waiting for it. */
static void
stream_slot_gone(node *n, node_stream *s, uint32_t slot, uint32_t node_id,
    int32_t code)
{
	if (!s->gone_node[slot] && !s->gone_code[slot]) {
		s->gone_node[slot] = node_id;
		s->gone_code[slot] = code ? code : GROVE_ELOST;
	}
	sync_slot_gone(s->sync, slot);
	run_waves(n, s, now_ns(), NULL);
	node_stream_check_empty(n, s);
}

/* Releases every wave ready at time now (ns); returns how many.  With
 * t_first, *t_first gets the trace time at which the first of them was
 * found complete (0 if none, or tracing is off).  The clock is read only
 * for a wave that is released (three reads: sync start, transformation
 * start, end): most packets complete no wave, and reading the clock for
 * them cost two reads per packet that no tuple kept. */
static int
run_waves(node *n, node_stream *s, uint64_t now, uint64_t *t_first)
{
	/* No wave, no timer to arm: nothing to do, unless s now waits for
	 * a child that is paused. */
	if (s->sync_kind != SYNC_TIMEOUT && !sync_wave_ready(s->sync, now)) {
		if (t_first)
			*t_first = 0;
		if (n->n_sync_paused)
			resume_awaited(n, s);
		return 0;
	}
	return release_waves(n, s, now, t_first);
}

void
node_stream_slots_changed(node *n, node_stream *s, uint64_t now)
{
	run_waves(n, s, now, NULL);
	node_stream_check_empty(n, s);
}

static void
on_sync_timer(uv_timer_t *t)
{
	node *n = t->data;
	n->sync_deadline = 0;
	uint64_t now = now_ns();
	size_t pos = 0;
	node_stream *s;
	while ((s = node_stream_next(n, &pos)))
		if (s->sync_kind == SYNC_TIMEOUT)
			run_waves(n, s, now, NULL);
}

static void
sync_timer_arm(node *n, node_stream *s)
{
	uint64_t d = sync_next_deadline(s->sync);
	if (d == UINT64_MAX)
		return;
	if (n->sync_deadline && n->sync_deadline <= d)
		return;
	n->sync_deadline = d;
	uint64_t now = now_ns();
	uint64_t ms = d > now ? (d - now + 999999) / 1000000 : 0;
	n->sync_timer.data = n;
	uv_timer_start(&n->sync_timer, on_sync_timer, ms, 0);
}

void
node_stream_upstream(node *n, uint32_t child, grove_packet *p)
{
	const wire_hdr *h = wire_packet_hdr(p);
	node_stream *s = node_stream_find(n, h->stream);
	if (!s) {
		report_dropped(n, child, h->stream, h->src, "which does not exist "
		    "at this node (never created, or destroyed)");
		return;
	}
	int32_t slot = s->child_slot[child];
	if (slot < 0) {
		report_dropped(n, child, h->stream, h->src, "which the sender is "
		    "not a member of");
		return;
	}
	/* One clock read serves the push and the waves it completes; only a
	 * timeout sync looks at arrival times (the kind never changes). */
	uint64_t now = s->sync_kind == SYNC_TIMEOUT ? now_ns() : 0;
	if (sync_push(s->sync, (uint32_t)slot, grove_packet_ref(p), now) != 0)
		return;
	node_keep_share_in(n, s, (uint32_t)slot, grove_packet_size(p));
	node_child *ch = &n->children[child];
	uint64_t t;
	if (run_waves(n, s, now, &t) > 0 && s->sync_kind != SYNC_DONT_WAIT &&
	    t != 0) {
		/* This packet completed a wave: its sender was the last in.
		 * The instant is when the sync filter found the wave whole. */
		if (ch->role == GROVE_ROLE_BE)
			grove_trace_record(&s->tc_last_be, GROVE_OP_WAVE,
			    (int32_t)ch->be_lo, t, t);
		else
			grove_trace_record(&s->tc_last_cp, GROVE_OP_WAVE,
			    (int32_t)ch->node_id, t, t);
	}
	if (!ch->paused && ch->c && slot_over(s, (uint32_t)slot) &&
	    !child_awaited(n, child))
		child_pause(n, child);
}

/* A CP child announces that its share of the next wave on a stream is
 * not one packet (node_wave_share_packet). */
void
node_stream_share(node *n, uint32_t child, grove_packet *p)
{
	const wire_hdr *h = wire_packet_hdr(p);
	uint32_t npackets = 0;
	node_child *ch = &n->children[child];
	const uint32_t *quads = NULL;
	const int32_t *codes = NULL;
	uint64_t nq = 0, nc = 0;
	char why[200] = "a malformed wave share";
	if (ch->role != GROVE_ROLE_CP ||
	    grove_packet_unpack(p, PROTO_WAVE_SHARE, &npackets, &quads, &nq,
	    &codes, &nc) != 0 ||
	    wave_share_wrong(p, ch->be_lo, ch->be_hi, why, sizeof why)) {
		log_warn("node %u: %s from child node %u dropped", n->id,
		    ch->role != GROVE_ROLE_CP ? "a back-end's wave share" : why,
		    ch->node_id);
		if (ch->c)
			conn_close(ch->c, GROVE_EPROTO, "a bad wave share");
		return;
	}
	node_stream *s = node_stream_find(n, h->stream);
	if (!s || s->child_slot[child] < 0)
		return; /* as for its data: a stream gone or not through it */
	uint64_t now = s->sync_kind == SYNC_TIMEOUT ? now_ns() : 0;
	uint32_t slot = (uint32_t)s->child_slot[child];
	/* The share's gaps travel with it: the packet itself is its info. */
	int rc = sync_push_share_info(s->sync, slot, npackets,
	    nc ? grove_packet_ref(p) : NULL, now);
	if (rc == GROVE_EPROTO || rc == GROVE_ERANGE) {
		log_warn("node %u: child node %u announced a wave share of %u "
		    "packets on stream %u %s", n->id, ch->node_id, npackets,
		    s->id, rc == GROVE_EPROTO ? "before completing the last "
		    "one" : "(over the limit)");
		if (ch->c)
			conn_close(ch->c, GROVE_EPROTO, "a bad wave share");
		return;
	}
	if (rc == 0)
		node_keep_share_in(n, s, slot, grove_packet_size(p));
	if (rc != 0 || npackets != 0)
		return;
	/* An empty share is complete at once, and may complete a wave: its
	 * sender was then the last in, as for a packet. */
	uint64_t t;
	if (run_waves(n, s, now, &t) > 0 && t != 0)
		grove_trace_record(&s->tc_last_cp, GROVE_OP_WAVE,
		    (int32_t)ch->node_id, t, t);
	/* Empty shares queue like packets, and pause like them. */
	if (!ch->paused && ch->c && slot_over(s, slot) &&
	    !child_awaited(n, child))
		child_pause(n, child);
}

void
node_streams_child_gone(node *n, uint32_t child)
{
	size_t pos = 0;
	node_stream *s;
	while ((s = node_stream_next(n, &pos)))
		if (s->child_slot[child] >= 0)
			stream_slot_gone(n, s, (uint32_t)s->child_slot[child],
			    n->children[child].node_id, GROVE_ELOST);
	/* Its link is closed (child_lost cleared it): only forgotten. */
	node_streams_resume_child(n, child);
}

/* A child refused a stream (STREAM_REFUSED): its subtree never sends on
 * it, so the stream's waves here stop waiting for it, as for a child that
 * is gone.  Only the refusing node's own parent acts: further up, the
 * child that passes the message on still takes part.  The message goes
 * on up to the FE (a GROVE_EV_FILTER_ERROR there), unless it says the
 * child's members on the stream are lost (GROVE_ELOST, from
 * node_stream_check_empty): the FE had a GROVE_EV_LOST for them. */
void
node_stream_refused(node *n, uint32_t child, grove_packet *p)
{
	uint32_t node_id = 0, id = 0;
	int32_t code = 0;
	const char *text = NULL;
	if (grove_packet_unpack(p, PROTO_STREAM_REFUSED, &node_id, &id, &code,
		&text) != 0) {
		log_warn("node %u: malformed stream refusal dropped", n->id);
		return;
	}
	node_child *ch = &n->children[child];
	/* Only a CP creates streams, and it speaks for itself alone: a
	 * refusal from a back-end, or one naming another node, would cut
	 * others out of the stream. */
	if (ch->role != GROVE_ROLE_CP || node_id != ch->node_id) {
		log_warn("node %u: stream refusal for node %u from child node "
		    "%u (%s) refused", n->id, node_id, ch->node_id,
		    ch->role == GROVE_ROLE_CP ? "not its own" : "a back-end");
		if (ch->c)
			conn_close(ch->c, GROVE_EPROTO,
			    "a stream refusal it may not send");
		return;
	}
	node_stream *s = node_stream_find(n, id);
	if (s && s->child_slot[child] >= 0)
		stream_slot_gone(n, s, (uint32_t)s->child_slot[child], node_id,
		    code);
	if (code == GROVE_ELOST)
		return;
	/* Upward it is a report only: as a filter error, no node above acts
	 * on it (they still wait for this node's other children). */
	grove_packet *q = NULL;
	if (wire_repack(&q, p, WIRE_T_FILTER_ERROR, grove_packet_stream(p),
	    grove_packet_tag(p), grove_packet_src(p)) != 0)
		return;
	n->hooks->up(n, q);
	grove_packet_unref(q);
}

/* For node_down.c: a filter of s failed; the sync timeout of s changed. */
void
node_stream_filter_error(node *n, node_stream *s, int rc, const char *what)
{
	report_filter_error(n, s, rc, what);
}

void
node_stream_timeout_changed(node *n, node_stream *s)
{
	/* A wave already waiting goes by the new window: release it now if
	 * that has passed, or re-arm. */
	if (s->sync_kind == SYNC_TIMEOUT)
		run_waves(n, s, now_ns(), NULL);
}

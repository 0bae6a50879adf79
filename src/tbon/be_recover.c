/* Re-parenting, the back-end's side (docs/recovery.md): its ancestors
 * (LINEAGE), the packets it sent on wait_for_all streams kept until its
 * grandparent holds them (WAVE_ACK), its parent's silence, and, inside
 * the Grove call that finds the parent lost, the search for a new one
 * (ADOPT, then RESUME and the resend). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "codec/wire.h"
#include "core/log.h"
#include "grove/error.h"
#include "net/sockio.h"
#include "tbon/be_internal.h"
#include "tbon/proto.h"

/* When an ancestor lives but does not expect this back-end yet (it has
 * not seen the loss), the search waits BE_RETRY_FIRST_MS, doubling up
 * to BE_RETRY_MAX_MS, and tries again. */
#define BE_RETRY_FIRST_MS 2
#define BE_RETRY_MAX_MS 50

static be_sent *
sent_of(grove_be *be, uint32_t stream, int create)
{
	for (size_t i = 0; i < be->n_sent; i++)
		if (be->sent[i].stream == stream)
			return &be->sent[i];
	if (!create)
		return NULL;
	if (be->n_sent == be->cap_sent) {
		size_t cap = be->cap_sent ? be->cap_sent * 2 : 8;
		be_sent *s = realloc(be->sent, cap * sizeof *s);
		if (!s)
			return NULL;
		be->sent = s;
		be->cap_sent = cap;
	}
	be_sent *s = &be->sent[be->n_sent++];
	memset(s, 0, sizeof *s);
	s->stream = stream;
	return s;
}

static void
sent_drop(grove_be *be, uint32_t stream)
{
	for (size_t i = 0; i < be->n_sent; i++)
		if (be->sent[i].stream == stream) {
			share_keep_fini(&be->sent[i].keep);
			be->sent[i] = be->sent[--be->n_sent];
			return;
		}
}

/* Whether this back-end keeps what it sends: re-parenting is on and its
 * parent is a CP (a back-end of the FE cannot outlive it). */
static int
keeps(const grove_be *be)
{
	return be->lineage.reparent_ms >= 0 && be->lineage.n >= 2;
}

/* ---- the parent's silence ----------------------------------------- */

static void
on_hb_timer(uv_timer_t *t)
{
	grove_be *be = t->data;
	uint64_t now = sockio_now_ms();
	uint64_t hb = (uint64_t)be->lineage.heartbeat_ms;
	/* Not in a Grove call for a while: what waits in the link is read
	 * before the parent is judged (as the FE does). */
	int stale = be->hb_last_ms && now - be->hb_last_ms > 2 * hb;
	be->hb_last_ms = now;
	if (!be->parent)
		return;
	if (stale)
		be->parent->last_rx_ms = now;
	else if (conn_silent_ms(be->parent, now) > 5 * hb)
		conn_close(be->parent, GROVE_ETIMEDOUT,
		    "parent silent for too long (no heartbeat)");
}

void
be_recover_watch(grove_be *be)
{
	int want = keeps(be) && be->lineage.heartbeat_ms > 0;
	if (want == be->hb_on)
		return;
	be->hb_on = want;
	if (!want) {
		uv_timer_stop(&be->hb_timer);
		return;
	}
	be->hb_last_ms = sockio_now_ms();
	uv_timer_start(&be->hb_timer, on_hb_timer,
	    (uint64_t)be->lineage.heartbeat_ms,
	    (uint64_t)be->lineage.heartbeat_ms);
}

/* ---- messages from the parent -------------------------------------- */

static void
on_lineage(grove_be *be, grove_packet *p)
{
	char why[200];
	if (lineage_from_packet(p, &be->lineage, why, sizeof why) != 0) {
		log_warn("be %u: %s from the parent: ignored", be->rank, why);
		return;
	}
	if (be->lineage.n > 0)
		be->parent_id = be->lineage.hop[be->lineage.n - 1].node;
	/* Spawned with the parent-death signal; a back-end that may
	 * re-parent outlives its parent. */
	if (keeps(be))
		prctl(PR_SET_PDEATHSIG, 0);
	/* Under the FE nothing needs keeping, but an orphan being taken in
	 * keeps all until RESUME says what goes again. */
	if (!keeps(be) && !be->orphaned)
		for (size_t i = 0; i < be->n_sent; i++)
			share_keep_trim(&be->sent[i].keep, UINT64_MAX);
	be_recover_watch(be);
}

static void
on_ack(grove_be *be, grove_packet *p)
{
	uint64_t held = 0, above = 0;
	be_sent *s = sent_of(be, grove_packet_stream(p), 0);
	if (s && grove_packet_unpack(p, PROTO_WAVE_ACK, &held, &above) == 0)
		share_keep_trim(&s->keep, above);
}

/* share_keep_emit's callback: a kept packet to the (new) parent. */
static int
emit_parent(void *arg, grove_packet *p)
{
	grove_be *be = arg;
	return be->parent ? conn_send(be->parent, p) : GROVE_ECLOSED;
}

/* Stream s resumes at packet r with the new parent: what it kept from
 * there on goes again, and packets below r not yet sent never go. */
static void
resume_stream(grove_be *be, be_sent *s, uint64_t r)
{
	if (!s->counted)
		return;
	if (r >= s->next) {
		s->skip_below = r;
	} else {
		uint64_t first = share_keep_first(&s->keep);
		if (first > r)
			log_error("be %u: stream %u: packets %llu..%llu were no "
			    "longer kept and cannot be sent again: the stream's "
			    "waves from %llu wait for them", be->rank, s->stream,
			    (unsigned long long)r, (unsigned long long)(first <
			    s->next ? first : s->next) - 1, (unsigned long long)r);
		for (uint32_t i = 0; i < share_keep_count(&s->keep) &&
		    be->parent; i++)
			if (share_keep_at(&s->keep, i)->num >= r &&
			    share_keep_emit(&s->keep, i, emit_parent, be) != 0)
				log_error("be %u: out of memory sending packet %llu "
				    "of stream %u again", be->rank,
				    (unsigned long long)share_keep_at(&s->keep,
				    i)->num, s->stream);
	}
	share_keep_trim(&s->keep, keeps(be) ? r : UINT64_MAX);
}

static void
on_resume(grove_be *be, grove_packet *p)
{
	const uint32_t *ids = NULL;
	const uint64_t *pts = NULL;
	uint64_t ni = 0, np = 0;
	be->resumed = 1;
	if (grove_packet_unpack(p, PROTO_RESUME, &ids, &ni, &pts, &np) != 0 ||
	    ni != np) {
		log_warn("be %u: malformed RESUME from the new parent", be->rank);
		return;
	}
	for (uint64_t j = 0; j < ni; j++) {
		be_sent *s = sent_of(be, ids[j], 0);
		if (s)
			resume_stream(be, s, pts[j]);
	}
	/* Streams the new parent does not name were destroyed meanwhile. */
	for (size_t i = 0; i < be->streams.n;) {
		uint32_t id = be->streams.ids[i];
		uint64_t j = 0;
		while (j < ni && ids[j] != id)
			j++;
		if (j < ni) {
			i++;
			continue;
		}
		be_streams_del(&be->streams, id);
		sent_drop(be, id);
	}
	if (be->parent)
		conn_flush(be->parent);
}

int
be_recover_on_packet(grove_be *be, grove_packet *p)
{
	const wire_hdr *h = wire_packet_hdr(p);
	switch (h->type) {
	case WIRE_T_LINEAGE:
		on_lineage(be, p);
		return 1;
	case WIRE_T_WAVE_ACK:
		on_ack(be, p);
		return 1;
	case WIRE_T_RESUME:
		on_resume(be, p);
		return 1;
	case WIRE_T_STREAM_NEW: {
		/* Whether its waves pair shares by count (only then are they
		 * numbered and kept). */
		uint32_t id = 0, timeout = 0;
		const uint32_t *members = NULL;
		uint64_t nm = 0;
		const char *up = NULL, *sync = NULL, *down = NULL;
		be_sent *s;
		if (grove_packet_unpack(p, PROTO_STREAM_NEW, &id, &members, &nm,
		    &up, &sync, &down, &timeout) == 0 &&
		    (s = sent_of(be, h->stream, 1)))
			s->counted = !strcmp(sync, "wait_for_all");
		return 0;
	}
	case WIRE_T_STREAM_DEL:
		sent_drop(be, h->stream);
		return 0;
	case WIRE_T_DATA:
	case WIRE_T_SEGMENT: {
		/* Counted for a new parent, which sends again what the lost
		 * one had not passed on (ADOPT). */
		be_sent *s = h->stream ? sent_of(be, h->stream, 0) : NULL;
		if (s)
			s->down_in++;
		return 0;
	}
	default:
		return 0;
	}
}

int
be_recover_sending(grove_be *be, uint32_t stream, grove_packet *q)
{
	be_sent *s = sent_of(be, stream, 0);
	if (!s || !s->counted)
		return 1;
	uint64_t num = s->next++;
	if (num < s->skip_below)
		return 0;
	if (keeps(be) && share_keep_push(&s->keep, num, NULL, &q, 1) != 0)
		log_warn("be %u: out of memory keeping packet %llu of stream %u: "
		    "it cannot be sent again if the parent is lost", be->rank,
		    (unsigned long long)num, stream);
	return 1;
}

/* ---- losing the parent, finding another ------------------------------- */

int
be_recover_lost(grove_be *be, int err, const char *why)
{
	(void)err;
	if (!keeps(be) || be->orphaned)
		return be->orphaned;
	be->orphaned = 1;
	be->orphan_since_ms = sockio_now_ms();
	be->lost_parent = be->parent_id;
	log_warn("be %u: parent node %u lost (%s); looking for a new parent",
	    be->rank, be->parent_id, why);
	return 1;
}

extern const conn_ops be_ops;

/* ADOPT: its streams and the number of its next packet on each. */
static int
send_adopt(grove_be *be)
{
	size_t n = be->streams.n;
	uint64_t *next = calloc(n ? n : 1, sizeof *next);
	uint64_t *down = calloc(n ? n : 1, sizeof *down);
	if (!next || !down) {
		free(next);
		free(down);
		return GROVE_ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		be_sent *s = sent_of(be, be->streams.ids[i], 0);
		next[i] = s ? s->next : 0;
		down[i] = s ? s->down_in : 0;
	}
	grove_packet *p = NULL;
	int rc = wire_pack(&p, WIRE_T_ADOPT, 0, 0, be->rank, 0, PROTO_ADOPT,
	    be->streams.ids, (uint64_t)n, next, (uint64_t)n, down, (uint64_t)n);
	free(next);
	free(down);
	if (rc == 0) {
		rc = conn_send(be->parent, p);
		grove_packet_unref(p);
		conn_flush(be->parent);
	}
	return rc;
}

/* Taken in by hop `which`: the new parent link, ADOPT, and its answer. */
static int
adopted(grove_be *be, uplink *up, uint32_t which, uint64_t deadline)
{
	const lineage_hop *h = &be->lineage.hop[which];
	uint32_t node = h->node;
	int rc = uplink_conn(&be->loop, up, &be_ops, be, -1, &be->parent);
	if (rc != 0)
		return rc;
	be->parent->authed = 1;
	snprintf(be->parent->peer, sizeof be->parent->peer, "node %u", node);
	char sw[48], rw[48];
	snprintf(sw, sizeof sw, "link:%u->%u", be->node, node);
	snprintf(rw, sizeof rw, "link:%u->%u", node, be->node);
	conn_trace_register(be->parent, sw, rw);
	be->parent_id = node;
	be->lineage.n = which + 1;
	be->resumed = 0;
	if ((rc = send_adopt(be)) != 0)
		return rc;
	while (!be->resumed && be->parent) {
		uint64_t now = sockio_now_ms();
		if (now >= deadline)
			return GROVE_ETIMEDOUT;
		loop_run_for(&be->loop, &be->wait_timer, (int)(deadline - now));
	}
	if (!be->parent)
		return GROVE_ECLOSED;
	log_warn("be %u: re-parented to node %u %llu ms after node %u was lost",
	    be->rank, node, (unsigned long long)(sockio_now_ms() -
	    be->orphan_since_ms), be->lost_parent);
	return 0;
}

int
be_recover_reparent(grove_be *be)
{
	if (!be->orphaned)
		return 0;
	uint64_t deadline = be->orphan_since_ms +
	    (uint64_t)be->lineage.reparent_ms +
	    (uint64_t)be->lineage.heartbeat_ms;
	char err[1024];
	int rc;
	unsigned wait_ms = BE_RETRY_FIRST_MS;
	for (;;) {
		uplink up;
		uint32_t which = 0;
		rc = lineage_reparent(&be->lineage, be->node, be->rank, be->secret,
		    deadline, &up, &which, err, sizeof err);
		if (rc == 0) {
			rc = adopted(be, &up, which, deadline);
			if (rc == 0) {
				be->orphaned = 0;
				be->hb_last_ms = sockio_now_ms();
				be_recover_watch(be);
				waitfd_set(&be->wfd, be->q.n > 0);
				return 0;
			}
			if (be->parent)
				conn_close(be->parent, rc, "re-parenting failed");
			be->parent = NULL;
			snprintf(err, sizeof err, "the new parent did not answer "
			    "its ADOPT (%s)", grove_strerror(rc));
			break;
		}
		if (rc != GROVE_EAGAIN || sockio_now_ms() + wait_ms >= deadline)
			break;
		usleep(wait_ms * 1000);
		wait_ms = wait_ms * 2 < BE_RETRY_MAX_MS ? wait_ms * 2 :
		    BE_RETRY_MAX_MS;
	}
	be->orphaned = 0;
	be->closed = 1;
	waitfd_set(&be->wfd, 1);
	snprintf(be->err, sizeof be->err, "be %u: link to parent closed, and "
	    "no ancestor took this back-end in after node %u was lost (%s): %s",
	    be->rank, be->lost_parent, rc == GROVE_ELOST ? "none could be "
	    "reached" : "time is up", err);
	log_error("%s", be->err);
	return GROVE_ECLOSED;
}

void
be_recover_fini(grove_be *be)
{
	for (size_t i = 0; i < be->n_sent; i++)
		share_keep_fini(&be->sent[i].keep);
	free(be->sent);
	be->sent = NULL;
	be->n_sent = be->cap_sent = 0;
	lineage_fini(&be->lineage);
	auth_wipe(be->secret, sizeof be->secret);
}

/* Front-end API: receiving from streams and point-to-point (blocking,
 * with a timeout, non-blocking), and knowing when nothing more can come. */
#include <stdio.h>
#include <string.h>

#include "grove/trace.h"
#include "net/sockio.h"
#include "tbon/fe_internal.h"

static int
take(grove_net *net, pktq *q, int32_t *tag, grove_packet **p)
{
	grove_packet *pk = pktq_pop(q);
	if (!pk)
		return GROVE_EAGAIN;
	net->queued--;
	fe_update_waitfd(net);
	if (tag)
		*tag = wire_packet_hdr(pk)->tag;
	/* A failed wave takes its place in the queue as a marker: its
	 * error is this receive's. */
	int rc = fe_wave_failed(net, pk);
	if (rc != 0) {
		grove_packet_unref(pk);
		return rc;
	}
	*p = pk;
	return 0;
}

/* Appends to buf the ranks of the members of s whose share the FE's own
 * sync filter of s does not hold (the children it still waits for). */
static void
describe_waiting(grove_net *net, const grove_stream *s, char *buf,
    size_t cap)
{
	node *n = &net->n;
	node_stream *ns = node_stream_find(n, s->id);
	size_t len = strlen(buf);
	if (!ns || ns->sync_kind == SYNC_DONT_WAIT) {
		snprintf(buf + len, cap - len, "; nothing from any member");
		return;
	}
	uint32_t have = 0, shown = 0;
	for (uint32_t k = 0; k < ns->nslots && len < cap; k++) {
		const node_child *ch = &n->children[ns->slot_child[k]];
		if (sync_has_share(ns->sync, k)) {
			have++;
			continue;
		}
		/* A lost CP whose children took its place: they are named. */
		if (ns->replaced[k])
			continue;
		if (shown++ == 0)
			len += (size_t)snprintf(buf + len, cap - len,
			    "; waiting for");
		else
			len += (size_t)snprintf(buf + len, cap - len, ",");
		if (len >= cap)
			break;
		if (ch->role == GROVE_ROLE_BE)
			len += (size_t)snprintf(buf + len, cap - len, " rank %u",
			    ch->be_lo);
		else
			len += (size_t)snprintf(buf + len, cap - len, " ranks "
			    "%u-%u (below node %u on %s)", ch->be_lo,
			    ch->be_hi - 1, ch->node_id, ch->host);
	}
	if (len < cap && shown == 0)
		snprintf(buf + len, cap - len, "; the front-end waits for no "
		    "member (the back-ends have not sent)");
	else if (len < cap && have == 0)
		snprintf(buf + len, cap - len, " (nothing arrived from any)");
}

/* The last error of a receive that timed out: which members it was
 * waiting for, as far as the front-end can tell. */
static void
timeout_error(grove_net *net, const grove_stream *only, int timeout_ms)
{
	char buf[1024];
	if (!only) {
		int len = snprintf(buf, sizeof buf, "nothing received within %d ms "
		    "on any stream or point-to-point", timeout_ms);
		for (const grove_stream *t = net->streams; t && len > 0 &&
		    (size_t)len < sizeof buf - 64; t = t->next) {
			node_stream *ns = node_stream_find(&net->n, t->id);
			if (ns && sync_queued_total(ns->sync) > 0)
				len += snprintf(buf + len, sizeof buf - (size_t)len,
				    "; stream %u holds part of a wave", t->id);
		}
		fe_set_error(net, "%s", buf);
		return;
	}
	snprintf(buf, sizeof buf, "stream %u: no wave within %d ms", only->id,
	    timeout_ms);
	describe_waiting(net, only, buf, sizeof buf);
	fe_set_error(net, "%s", buf);
}

/* Whether the FE's own sync filter of stream s holds packets that it
 * will release at a deadline (the timeout filter): after its members are
 * lost too.  Packets that wait for a wave to complete are not counted:
 * with no member left to complete it, they never come out. */
static int
wave_due(grove_net *net, const grove_stream *s)
{
	node_stream *ns = node_stream_find(&net->n, s->id);
	return ns && sync_next_deadline(ns->sync) != UINT64_MAX;
}

/* Whether a packet can still reach the tool: on stream s, from one of its
 * members that is up or may still attach; on any stream or point to point
 * (s NULL), from any such BE; or from a wave the FE releases at its
 * deadline.  Lost ranks never come back, so once this is 0 a receive that
 * finds its queue empty can never be satisfied. */
static int
can_arrive(grove_net *net, const grove_stream *s)
{
	if (!s) {
		if (net->be_up + fe_be_pending(net) > 0)
			return 1;
		for (const grove_stream *t = net->streams; t; t = t->next)
			if (wave_due(net, t))
				return 1;
		return 0;
	}
	for (size_t i = 0; i < s->n_members; i++)
		if (net->be_state[s->members[i]] != FE_BE_LOST)
			return 1;
	return wave_due(net, s);
}

static int
recv_common(grove_net *net, grove_stream *only, grove_stream **sout,
    int32_t *tag, grove_packet **p, int timeout_ms)
{
	if (!fe_net_usable(net) || !p)
		return GROVE_EINVAL;
	uint64_t t0 = grove_trace_begin();
	uint64_t deadline = sockio_now_ms() + (uint64_t)(timeout_ms > 0 ? timeout_ms : 0);
	uint32_t only_id = only ? only->id : 0;
	uint64_t frees = net->stream_frees;
	int rc;
	for (int first = 1;; first = 0) {
		/* An event callback run by the last pass may have destroyed
		 * the stream this call waits on, or this call runs in a
		 * callback of that stream's destroy: nothing can arrive. */
		if (only && (rc = fe_stream_usable(net, only, only_id,
		    frees)) != 0)
			break;
		if (only) {
			if (only->q.n) {
				rc = take(net, &only->q, tag, p);
				break;
			}
		} else if (net->queued) {
			/* The oldest packet across all queues. */
			pktq *best = &net->p2p;
			grove_stream *bs = NULL;
			for (grove_stream *s = net->streams; s; s = s->next)
				if (pktq_head_seq(&s->q) < pktq_head_seq(best)) {
					best = &s->q;
					bs = s;
				}
			if (sout)
				*sout = bs;
			rc = take(net, best, tag, p);
			break;
		}
		/* Only once the queue is empty: what arrived before the
		 * losses is handed out first. */
		if (!can_arrive(net, only)) {
			if (only)
				fe_set_error(net, "stream %u: %s", only_id,
				    only->n_members ? "every member is lost" :
				    "it has no members");
			else
				fe_set_error(net, "%s", net->be_lost ?
				    "every back-end is lost" :
				    "the network has no back-ends");
			rc = GROVE_ECLOSED;
			break;
		}
		int left = fe_deadline_left(deadline, timeout_ms);
		if (left == 0 && !first) {
			rc = timeout_ms == 0 ? GROVE_EAGAIN : GROVE_ETIMEDOUT;
			if (rc == GROVE_ETIMEDOUT)
				timeout_error(net, only, timeout_ms);
			break;
		}
		fe_run(net, left);
	}
	/* The result is the bytes received (the statistics' message sizes),
	 * or the error. */
	grove_trace_record(&net->tc_api_recv, GROVE_OP_API_RECV,
	    rc == 0 ? (int32_t)grove_packet_size(*p) : rc, t0,
	    grove_trace_begin());
	return rc;
}

int
grove_stream_recv(grove_stream *s, int32_t *tag, grove_packet **p,
    int timeout_ms)
{
	if (!s)
		return GROVE_EINVAL;
	return recv_common(s->net, s, NULL, tag, p, timeout_ms);
}

int
grove_net_recv(grove_net *net, grove_stream **s, int32_t *tag,
    grove_packet **p, int timeout_ms)
{
	if (s)
		*s = NULL;
	return recv_common(net, NULL, s, tag, p, timeout_ms);
}

/* A node's downstream side: stream data, point-to-point packets and
 * segments on their way to the back-ends, and the control messages from
 * the parent (stream creation, parameters, filters, shutdown's trace
 * requests, clock-skew probes). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/wire.h"
#include "core/log.h"
#include "grove/error.h"
#include "tbon/node.h"
#include "tbon/node_scope.h"
#include "tbon/proto.h"
#include "tbon/ship.h"
#include "tbon/skew.h"

/* ---- downstream ------------------------------------------------------- */

void
node_send_down(node *n, node_stream *s, grove_packet *p, int cp_only)
{
	if (!s) {
		for (uint32_t c = 0; c < n->n_children; c++)
			if (n->children[c].c && (!cp_only ||
			    n->children[c].role == GROVE_ROLE_CP))
				node_send(n, n->children[c].c, p);
		return;
	}
	for (uint32_t k = 0; k < s->nslots; k++) {
		node_child *ch = &n->children[s->slot_child[k]];
		/* A child back from a lost CP gets what it missed, and what
		 * comes meanwhile, once it said what it has (its ADOPT). */
		if (ch->c && (ch->adopt_of < 0 || ch->adopt_said))
			node_send(n, ch->c, p);
	}
}

static void
downstream_data(node *n, grove_packet *p)
{
	const wire_hdr *h = wire_packet_hdr(p);
	node_stream *s = node_stream_find(n, h->stream);
	if (!s) {
		log_debug("node %u: downstream data for unknown stream %u dropped",
		    n->id, h->stream);
		return;
	}
	if (s->down_is_null) {
		node_keep_down(n, s, p);
		node_send_down(n, s, p, 0);
		return;
	}
	flt_out *o = &n->fout;
	int rc = flt_run_down(s->down, s->id, h->tag, n->rank, p, s->params[2],
	    &s->down_state, &n->place, o);
	if (rc != 0) {
		flt_out_reset(o);
		node_stream_filter_error(n, s, rc, "downstream");
		return;
	}
	for (size_t i = 0; i < o->n_up; i++)
		node_send_down(n, s, o->up[i], 0);
	flt_out_reset(o);
}

/* A segment of a large multicast goes on at once, the same buffer to
 * every child on the stream (segment.h); filters see only whole packets,
 * and the FE segments only streams without a downstream filter. */
static void
downstream_segment(node *n, grove_packet *p)
{
	const wire_hdr *h = wire_packet_hdr(p);
	node_stream *s = node_stream_find(n, h->stream);
	if (!s) {
		log_debug("node %u: segment for unknown stream %u dropped", n->id,
		    h->stream);
		return;
	}
	node_keep_down(n, s, p);
	node_send_down(n, s, p, 0);
}

static void
downstream_p2p(node *n, grove_packet *p)
{
	const wire_hdr *h = wire_packet_hdr(p);
	int c = node_route(n, h->aux);
	if (c < 0 || !n->children[c].c) {
		log_warn("node %u: no route to BE rank %u; packet dropped", n->id,
		    h->aux);
		return;
	}
	node_send(n, n->children[c].c, p);
}

static void
stream_new_msg(node *n, grove_packet *p)
{
	uint32_t id = 0, timeout = 0;
	const uint32_t *members = NULL;
	uint64_t nm = 0;
	const char *up = NULL, *sync = NULL, *down = NULL;
	char err[200];
	if (grove_packet_unpack(p, PROTO_STREAM_NEW, &id, &members, &nm, &up,
		&sync, &down, &timeout) != 0) {
		log_warn("node %u: malformed stream creation dropped", n->id);
		return;
	}
	int rc = node_stream_create(n, id, members, nm, up, sync, down, timeout,
	    err, sizeof err);
	if (rc != 0) {
		/* The parent must stop waiting for this subtree's share of
		 * the stream's waves, or they would never complete. */
		log_warn("%s", err);
		node_up_ctl(n, WIRE_T_STREAM_REFUSED, 0, PROTO_STREAM_REFUSED,
		    n->id, id, rc, err);
	}
}

static void
stream_params_msg(node *n, grove_packet *p)
{
	uint32_t id = 0;
	int32_t which = 0;
	const uint8_t *bytes = NULL;
	uint64_t len = 0;
	if (grove_packet_unpack(p, PROTO_STREAM_PARAMS, &id, &which, &bytes,
		&len) != 0 || which < 0 || which > 2) {
		log_warn("node %u: malformed stream parameters dropped", n->id);
		return;
	}
	node_stream *s = node_stream_find(n, id);
	if (!s)
		return;
	grove_packet *params = NULL;
	if (wire_packet_from_bytes(bytes, (size_t)len, &params) != 0) {
		log_warn("node %u: bad parameter packet for stream %u", n->id, id);
		return;
	}
	grove_packet_unref(s->params[which]);
	s->params[which] = params;
	if (which == 1) {
		uint32_t ms = 0;
		if (grove_packet_unpack(params, "%ud", &ms) == 0) {
			s->timeout_ms = ms;
			sync_set_timeout(s->sync, ms);
			node_stream_timeout_changed(n, s);
		}
	}
	node_send_down(n, s, p, 1);
}

void
node_stream_set_params_local(node *n, grove_packet *ctl)
{
	stream_params_msg(n, ctl);
}

/* ---- from the parent ---------------------------------------------- */

void
node_from_parent(node *n, grove_packet *p)
{
	const wire_hdr *h = wire_packet_hdr(p);
	switch (h->type) {
	case WIRE_T_DATA:
		downstream_data(n, p);
		break;
	case WIRE_T_P2P:
		downstream_p2p(n, p);
		break;
	case WIRE_T_SEGMENT:
		downstream_segment(n, p);
		break;
	case WIRE_T_STREAM_NEW:
		stream_new_msg(n, p);
		break;
	case WIRE_T_STREAM_DEL: {
		uint32_t id = 0;
		if (grove_packet_unpack(p, PROTO_STREAM_DEL, &id) == 0)
			node_stream_destroy(n, id, 1);
		break;
	}
	case WIRE_T_STREAM_PARAMS:
		stream_params_msg(n, p);
		break;
	case WIRE_T_FILTER_LOAD: {
		const char *name = NULL, *path = NULL, *sym = NULL;
		if (grove_packet_unpack(p, PROTO_FILTER_LOAD, &name, &path, &sym) == 0)
			node_filter_load(n, (uint32_t)h->tag, name, path, sym);
		break;
	}
	case WIRE_T_FILTER_UNLOAD: {
		const char *name = NULL;
		if (grove_packet_unpack(p, PROTO_FILTER_UNLOAD, &name) == 0)
			node_filter_unload(n, (uint32_t)h->tag, name);
		break;
	}
	case WIRE_T_HEARTBEAT:
		break;
	case WIRE_T_LINEAGE:
		node_lineage_from_parent(n, p);
		break;
	case WIRE_T_WAVE_ACK:
		node_keep_parent_ack(n, p);
		break;
	case WIRE_T_RESUME:
		node_orphan_resumed(n, p);
		break;
	case WIRE_T_SKEW_REQ:
	case WIRE_T_SKEW_PROBE:
		node_skew_from_parent(n, p);
		break;
	case WIRE_T_SCOPE_PULL:
	case WIRE_T_SCOPE_END:
		if (n->scope_ops)
			n->scope_ops->from_parent(n, p);
		break;
	case WIRE_T_TRACE_REQ: {
		/* Everyone below answers; so do we, unless we are the FE. */
		node_send_down(n, NULL, p, 0);
		grove_packet *ans = NULL;
		if (n->id != 0 && ship_answer(p, n->rank, &ans) == 0) {
			n->hooks->up(n, ans);
			grove_packet_unref(ans);
		}
		break;
	}
	default:
		log_warn("node %u: unexpected message type %u from parent dropped",
		    n->id, h->type);
	}
}

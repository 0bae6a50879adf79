/* BCS manager engine: sending on its streams, taking what the nodes
 * send, noticing lost nodes, and waiting.
 *
 * The manager is the network's front-end.  It reads the front-end's own
 * account of its back-ends (tbon/fe_internal.h) instead of the event
 * queue, which stays the tool's: a loss is seen here whether or not the
 * tool takes its GROVE_EV_LOST.  Waiting runs the front-end's loop
 * (fe_run), which returns as soon as anything arrives.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bcs/bcs_impl.h"
#include "core/log.h"
#include "tbon/fe_internal.h"

/* Encodes m into a buffer (stack for small ones): *blob and its length;
 * *heap is set when it must be freed. */
static int
encode(grove_bcs *b, const bcs_msg *m, const bcs_wire_tables *t,
    uint8_t *stack, size_t cap, uint8_t **blob, size_t *len, uint8_t **heap)
{
	*heap = NULL;
	size_t n = bcs_wire_encode(m, t, stack, cap);
	if (n == 0) {
		bcs_set_error(b, "cannot encode a BCS %s message",
		    bcs_wire_type_name(m->type));
		return GROVE_EINVAL;
	}
	if (n > cap) {
		*heap = malloc(n);
		if (!*heap) {
			bcs_set_error(b, "out of memory for a %zu-byte BCS "
			    "message", n);
			return GROVE_ENOMEM;
		}
		bcs_wire_encode(m, t, *heap, n);
		*blob = *heap;
	} else {
		*blob = stack;
	}
	*len = n;
	return 0;
}

int
bcs_mgr_multicast(grove_bcs *b, const bcs_msg *m, const bcs_wire_tables *t,
    const void *payload, size_t plen)
{
	uint8_t stack[512], *blob, *heap;
	size_t len;
	int rc = encode(b, m, t, stack, sizeof stack, &blob, &len, &heap);
	if (rc != 0)
		return rc;
	rc = grove_stream_send(b->sc, BCS_TAG(m->type), "%auc %auc", blob,
	    (uint64_t)len, payload ? payload : (const void *)blob,
	    (uint64_t)plen);
	free(heap);
	if (rc != 0)
		bcs_set_error(b, "sending a BCS %s to every node: %s",
		    bcs_wire_type_name(m->type), grove_net_last_error(b->net));
	return rc;
}

int
bcs_mgr_send_to(grove_bcs *b, uint32_t node, const bcs_msg *m,
    const bcs_wire_tables *t, const void *payload, size_t plen)
{
	uint8_t stack[512], *blob, *heap;
	size_t len;
	int rc = encode(b, m, t, stack, sizeof stack, &blob, &len, &heap);
	if (rc != 0)
		return rc;
	rc = grove_net_send_to(b->net, node, BCS_TAG(m->type), "%auc %auc",
	    blob, (uint64_t)len, payload ? payload : (const void *)blob,
	    (uint64_t)plen);
	free(heap);
	if (rc != 0)
		bcs_set_error(b, "sending a BCS %s to node %u: %s",
		    bcs_wire_type_name(m->type), node,
		    grove_net_last_error(b->net));
	return rc;
}

int
bcs_mgr_expect_wave(grove_bcs *b, uint64_t id, int is_caw)
{
	if (b->wave_n == b->wave_cap) {
		size_t cap = b->wave_cap ? b->wave_cap * 2 : 16;
		bcs_wave_wait *w = malloc(cap * sizeof *w);
		if (!w) {
			bcs_set_error(b, "out of memory for a reply wave");
			return GROVE_ENOMEM;
		}
		for (size_t i = 0; i < b->wave_n; i++)
			w[i] = b->waves[(b->wave_head + i) % b->wave_cap];
		free(b->waves);
		b->waves = w;
		b->wave_cap = cap;
		b->wave_head = 0;
	}
	bcs_wave_wait *w = &b->waves[(b->wave_head + b->wave_n) % b->wave_cap];
	w->id = id;
	w->is_caw = is_caw;
	b->wave_n++;
	return 0;
}

/* The reason a lost rank is gone, from the front-end's event queue when
 * the event is still there. */
static void
lost_reason(grove_net *net, uint32_t rank, char *buf, size_t cap)
{
	for (size_t i = 0; i < net->ev_n; i++) {
		const grove_event *e =
		    &net->events[(net->ev_head + i) % net->ev_cap].ev;
		if (e->type == GROVE_EV_LOST && rank >= e->rank_lo &&
		    rank < e->rank_hi) {
			snprintf(buf, cap, "%s", e->text);
			return;
		}
	}
	snprintf(buf, cap, "its back-end (rank %u) was lost: its process "
	    "died or its link went silent", rank);
}

/* New losses in the front-end's account of its back-ends. */
static void
scan_lost(grove_bcs *b)
{
	grove_net *net = b->net;
	if (net->be_lost == b->seen_lost)
		return;
	b->seen_lost = net->be_lost;
	for (uint32_t r = 0; r < b->nodes; r++) {
		if (net->be_state[r] != FE_BE_LOST || b->peers[r].lost)
			continue;
		char why[256];
		lost_reason(net, r, why, sizeof why);
		bcs_node_lost(b, r, 0, why);
	}
}

/* The reduction stream: one reply wave per multicast that asked for one,
 * in order; a failed wave (a filter error) is a receive error in its
 * place. */
static void
drain_replies(grove_bcs *b)
{
	while (grove_stream_queued(b->sc, NULL) > 0) {
		int32_t tag = 0;
		grove_packet *p = NULL;
		int rc = grove_stream_recv(b->sc, &tag, &p, 0);
		if (rc == GROVE_EAGAIN)
			break;
		if (rc == 0 && tag != BCS_TAG_REPLY) {
			log_warn("bcs: unexpected tag %d on the reduction stream",
			    tag);
			grove_packet_unref(p);
			continue;
		}
		bcs_mgr_reply_wave(b, p, rc);
		if (p)
			grove_packet_unref(p);
	}
}

/* The data stream: each node's messages to the manager, one by one. */
static void
drain_data(grove_bcs *b)
{
	while (grove_stream_queued(b->sd, NULL) > 0) {
		int32_t tag = 0;
		grove_packet *p = NULL;
		int rc = grove_stream_recv(b->sd, &tag, &p, 0);
		if (rc != 0)
			break;
		uint32_t from = grove_packet_src(p);
		const uint8_t *blob = NULL, *pay = NULL;
		uint64_t bl = 0, pl = 0;
		bcs_msg m;
		char why[300];
		if (from >= b->nodes) {
			log_warn("bcs: packet from rank %u, beyond the machine",
			    from);
		} else if (grove_packet_unpack(p, "%auc %auc", &blob, &bl, &pay,
		    &pl) != 0) {
			log_warn("bcs: node %u sent a packet of format \"%s\", "
			    "not a BCS message (dropped)", from,
			    grove_packet_format(p));
		} else if (bcs_wire_decode(blob, bl, pay, pl, &m, why,
		    sizeof why) != 0) {
			log_warn("bcs: from node %u: %s (dropped)", from, why);
		} else if (tag != BCS_TAG(m.type)) {
			log_warn("bcs: node %u: tag %d does not match its %s "
			    "message (dropped)", from, tag,
			    bcs_wire_type_name(m.type));
		} else {
			bcs_dispatch(b, from, &m, NULL);
		}
		grove_packet_unref(p);
	}
}

int
bcs_mgr_poll(grove_bcs *b)
{
	/* One non-blocking pass reads what the links hold; the queues are
	 * read without more passes. */
	int rc = grove_net_progress(b->net);
	if (rc != 0 && rc != GROVE_EAGAIN) {
		bcs_set_error(b, "the network failed: %s",
		    grove_net_last_error(b->net));
		return rc;
	}
	/* Losses first: a wave that lacks a node is explained by them. */
	scan_lost(b);
	drain_data(b);
	drain_replies(b);
	if (b->open_done)
		bcs_caw_pump(b);
	return 0;
}

void
bcs_mgr_block(grove_bcs *b, int ms)
{
	if (grove_stream_queued(b->sc, NULL) || grove_stream_queued(b->sd,
	    NULL) || b->net->be_lost != b->seen_lost)
		return;
	fe_run(b->net, ms);
}

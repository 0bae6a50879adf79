/* What a node checks of the messages a child sends up before it acts on
 * them or passes them on.  Every peer knows the network secret, so a child
 * may lie about anything beyond itself; what it says is held against the
 * topology, which this node knows without asking it:
 *
 *   NODE_LOST      only a CP reports losses, and only of a node strictly
 *                  below it, with that node's own range of ranks (the
 *                  loss of the child itself is this node's to report);
 *   REPARENTED     likewise for the lost node, and the new parent is the
 *                  child or a node below it and above the lost one, and
 *                  the nodes that moved are below the lost one;
 *   BE_ATTACHED    only a CP reports attaches, of a rank below it (a
 *                  back-end attached here is reported by this node);
 *   LAUNCH_ERROR   only a CP launches anything;
 *   FILTER_ERROR   names the child or a node below it;
 *   DATA, P2P      the source rank is the back-end child's own rank; from
 *                  a CP, a rank below it, or for DATA also the node rank
 *                  (PROTO_NODE_RANK) of a CP of its subtree, the source
 *                  of what a CP's filter builds;
 *   TRACE_DATA     the same, node ranks included: a process answers for
 *                  its own event space (the FE counts answers per
 *                  process, by source, and keeps only a copy named after
 *                  it: fe.c, ship.c);
 *   SCOPE_SHARE    only from a CP (back-ends are never asked); one per
 *                  pull that asked it, checked by node_scope.c.
 *
 * A message that fails is a protocol error of that child: its link is
 * closed, with a reason naming the child and the message, and the message
 * goes nowhere.  Before these checks the front-end trusted them: one
 * back-end could mark every other rank lost, or attached, or send data and
 * point-to-point messages under another rank's name.
 */
#include <stdio.h>

#include "codec/wire.h"
#include "tbon/node.h"
#include "tbon/proto.h"

/* Whether node id is root or a node below it. */
static int
in_subtree(const grove_topo *t, uint32_t root, uint32_t id)
{
	const grove_topo_node *k = grove_topo_node_at(t, id);
	/* Parents have smaller ids (pre-order): the walk ends. */
	while (k) {
		if (k->id == root)
			return 1;
		if (k->parent < 0 || k->id <= root)
			return 0;
		k = grove_topo_node_at(t, (uint32_t)k->parent);
	}
	return 0;
}

/* Whether a packet's source rank may come up through child ch. */
static int
src_ok(const node *n, const node_child *ch, uint32_t src, int node_ranks)
{
	if (ch->role == GROVE_ROLE_BE)
		return src == ch->be_lo;
	if (src >= ch->be_lo && src < ch->be_hi)
		return 1;
	if (!node_ranks || !(src & PROTO_NODE_RANK(0)))
		return 0;
	uint32_t id = src & ~PROTO_NODE_RANK(0);
	const grove_topo_node *k = grove_topo_node_at(n->topo, id);
	return k && k->role == GROVE_ROLE_CP &&
	    in_subtree(n->topo, ch->node_id, id);
}

static int
lost_wrong(const node *n, const node_child *ch, const grove_packet *p,
    char *why, size_t len)
{
	uint32_t id = 0, lo = 0, hi = 0;
	const char *text = NULL;
	if (grove_packet_unpack(p, PROTO_NODE_LOST, &id, &lo, &hi, &text) != 0) {
		snprintf(why, len, "malformed NODE_LOST from node %u",
		    ch->node_id);
		return 1;
	}
	const grove_topo_node *k = grove_topo_node_at(n->topo, id);
	if (ch->role != GROVE_ROLE_CP)
		snprintf(why, len, "NODE_LOST from node %u, a back-end",
		    ch->node_id);
	else if (!k || id == ch->node_id ||
	    !in_subtree(n->topo, ch->node_id, id))
		snprintf(why, len, "NODE_LOST from node %u for node %u, not a "
		    "node below it", ch->node_id, id);
	else if (lo != k->be_lo || hi != k->be_hi)
		snprintf(why, len, "NODE_LOST from node %u gives node %u ranks "
		    "[%u, %u), not its [%u, %u)", ch->node_id, id, lo, hi,
		    k->be_lo, k->be_hi);
	else
		return 0;
	return 1;
}

static int
reparented_wrong(const node *n, const node_child *ch, const grove_packet *p,
    char *why, size_t len)
{
	uint32_t id = 0, lo = 0, hi = 0, parent = 0;
	const char *text = NULL;
	const uint32_t *moved = NULL;
	uint64_t nm = 0;
	if (grove_packet_unpack(p, PROTO_REPARENTED, &id, &lo, &hi, &parent,
	    &text, &moved, &nm) != 0) {
		snprintf(why, len, "malformed REPARENTED from node %u",
		    ch->node_id);
		return 1;
	}
	const grove_topo_node *k = grove_topo_node_at(n->topo, id);
	if (ch->role != GROVE_ROLE_CP)
		snprintf(why, len, "REPARENTED from node %u, a back-end",
		    ch->node_id);
	else if (!k || id == ch->node_id ||
	    !in_subtree(n->topo, ch->node_id, id))
		snprintf(why, len, "REPARENTED from node %u for node %u, not a "
		    "node below it", ch->node_id, id);
	else if (lo != k->be_lo || hi != k->be_hi)
		snprintf(why, len, "REPARENTED from node %u gives node %u ranks "
		    "[%u, %u), not its [%u, %u)", ch->node_id, id, lo, hi,
		    k->be_lo, k->be_hi);
	else if (parent == id || !in_subtree(n->topo, ch->node_id, parent) ||
	    !in_subtree(n->topo, parent, id))
		snprintf(why, len, "REPARENTED from node %u names node %u the new "
		    "parent of node %u's children", ch->node_id, parent, id);
	else {
		for (uint64_t i = 0; i < nm; i++) {
			/* A child of the lost node then: one of its own, or
			 * one it had adopted from below it. */
			if (moved[i] == id || !in_subtree(n->topo, id,
			    moved[i])) {
				snprintf(why, len, "REPARENTED from node %u moves "
				    "node %u, not below node %u", ch->node_id,
				    moved[i], id);
				return 1;
			}
		}
		return 0;
	}
	return 1;
}

static int
attached_wrong(const node_child *ch, const grove_packet *p, char *why,
    size_t len)
{
	uint32_t r = 0;
	if (grove_packet_unpack(p, PROTO_BE_ATTACHED, &r) != 0)
		snprintf(why, len, "malformed BE_ATTACHED from node %u",
		    ch->node_id);
	else if (ch->role != GROVE_ROLE_CP)
		snprintf(why, len, "BE_ATTACHED from node %u, a back-end",
		    ch->node_id);
	else if (r < ch->be_lo || r >= ch->be_hi)
		snprintf(why, len, "BE_ATTACHED from node %u for rank %u, not a "
		    "rank below it", ch->node_id, r);
	else
		return 0;
	return 1;
}

static int
filter_error_wrong(const node *n, const node_child *ch, const grove_packet *p,
    char *why, size_t len)
{
	uint32_t id = 0, stream = 0;
	int32_t code = 0;
	const char *text = NULL;
	if (grove_packet_unpack(p, PROTO_FILTER_ERROR, &id, &stream, &code,
		&text) != 0)
		snprintf(why, len, "malformed FILTER_ERROR from node %u",
		    ch->node_id);
	else if (!in_subtree(n->topo, ch->node_id, id))
		snprintf(why, len, "FILTER_ERROR from node %u for node %u, not "
		    "it or a node below it", ch->node_id, id);
	else
		return 0;
	return 1;
}

int
node_child_msg_wrong(const node *n, uint32_t idx, const grove_packet *p,
    char *why, size_t len)
{
	const node_child *ch = &n->children[idx];
	const wire_hdr *h = wire_packet_hdr(p);
	switch (h->type) {
	case WIRE_T_DATA:
	case WIRE_T_P2P:
		if (src_ok(n, ch, h->src, h->type == WIRE_T_DATA))
			return 0;
		snprintf(why, len, "%s from node %u with source rank %u%s",
		    h->type == WIRE_T_DATA ? "DATA" : "P2P", ch->node_id, h->src,
		    ch->role == GROVE_ROLE_BE ? ", not its own" :
		    ", not a rank below it");
		return 1;
	case WIRE_T_TRACE_DATA:
		if (src_ok(n, ch, h->src, 1))
			return 0;
		snprintf(why, len, "TRACE_DATA from node %u with source %s %u%s",
		    ch->node_id, h->src & PROTO_NODE_RANK(0) ? "node" : "rank",
		    h->src & ~PROTO_NODE_RANK(0),
		    ch->role == GROVE_ROLE_BE ? ", not its own" :
		    ", not it or one below it");
		return 1;
	case WIRE_T_NODE_LOST:
		return lost_wrong(n, ch, p, why, len);
	case WIRE_T_REPARENTED:
		return reparented_wrong(n, ch, p, why, len);
	case WIRE_T_BE_ATTACHED:
		return attached_wrong(ch, p, why, len);
	case WIRE_T_LAUNCH_ERROR:
		if (ch->role == GROVE_ROLE_CP)
			return 0;
		snprintf(why, len, "LAUNCH_ERROR from node %u, a back-end",
		    ch->node_id);
		return 1;
	case WIRE_T_FILTER_ERROR:
		return filter_error_wrong(n, ch, p, why, len);
	case WIRE_T_SCOPE_SHARE:
		if (ch->role == GROVE_ROLE_CP)
			return 0;
		snprintf(why, len, "SCOPE_SHARE from node %u, a back-end (only "
		    "CPs are asked)", ch->node_id);
		return 1;
	default:
		return 0;
	}
}

/* A child's READY: its subtree is up, with how many back-ends, and the
 * listening endpoints of the CPs below it that take attaching back-ends.
 *
 * Only a CP child has a subtree to report, and it reports it once (the
 * CP's report_ready runs once).  Anything else is a protocol error that
 * closes that child's link: a back-end's READY, a second READY, more
 * endpoints than there are CPs below the child, an endpoint of a node
 * that is not a CP below it, more back-ends than are below it.  So what a
 * node keeps from its children is bounded by the topology (one endpoint
 * per CP), not by what they send: every peer knows the secret, and a
 * back-end that sent READY after READY used to grow its parent by every
 * endpoint in every one.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "grove/error.h"
#include "tbon/node.h"
#include "tbon/proto.h"

/* The ids of ch's subtree, [ch->node_id, *end): ids are in pre-order, so
 * a subtree is the run of deeper nodes that follows its root.  Returns
 * the number of CPs in it (ch itself included). */
static uint32_t
subtree_cps(const node *n, const node_child *ch, uint32_t *end)
{
	const grove_topo_node *root = grove_topo_node_at(n->topo, ch->node_id);
	uint32_t id = ch->node_id, cps = 0;
	if (!root) {
		*end = id;
		return 0;
	}
	const grove_topo_node *k = root;
	do {
		cps += k->role == GROVE_ROLE_CP;
		k = grove_topo_node_at(n->topo, ++id);
	} while (k && k->depth > root->depth);
	*end = id;
	return cps;
}

/* Why the READY of child ch, with bes back-ends and the endpoints of
 * nodes ids[0..ni), is not one its subtree can send (in why), or 0 if it
 * is. */
static int
ready_wrong(const node *n, const node_child *ch, uint32_t bes,
    const uint32_t *ids, uint64_t ni, char *why, size_t len)
{
	if (ch->role != GROVE_ROLE_CP) {
		snprintf(why, len, "READY from node %u, a back-end (only a CP "
		    "has a subtree to report)", ch->node_id);
		return 1;
	}
	if (ch->state != CHILD_UP) {
		snprintf(why, len, "a second READY from node %u", ch->node_id);
		return 1;
	}
	if (bes > ch->be_hi - ch->be_lo) {
		snprintf(why, len, "READY from node %u counts %" PRIu32
		    " back-ends, more than the %" PRIu32 " below it", ch->node_id,
		    bes, ch->be_hi - ch->be_lo);
		return 1;
	}
	uint32_t end = 0;
	uint32_t cps = subtree_cps(n, ch, &end);
	if (ni > cps) {
		snprintf(why, len, "READY from node %u with %" PRIu64
		    " endpoints; its subtree has %" PRIu32 " CP%s", ch->node_id,
		    ni, cps, cps == 1 ? "" : "s");
		return 1;
	}
	for (uint64_t i = 0; i < ni; i++) {
		const grove_topo_node *k = grove_topo_node_at(n->topo, ids[i]);
		if (ids[i] < ch->node_id || ids[i] >= end || !k ||
		    k->role != GROVE_ROLE_CP) {
			snprintf(why, len, "READY from node %u gives an endpoint "
			    "of node %" PRIu32 ", not a CP below it", ch->node_id,
			    ids[i]);
			return 1;
		}
	}
	return 0;
}

/* Room for more endpoints; the arrays grow geometrically (a tree's
 * READYs arrive one child at a time).  0 or GROVE_ENOMEM. */
static int
ep_reserve(node *n, size_t more)
{
	if (n->n_ep + more <= n->cap_ep)
		return 0;
	size_t cap = n->cap_ep ? 2 * n->cap_ep : 8;
	if (cap < n->n_ep + more)
		cap = n->n_ep + more;
	/* Each array that grows is kept (with n_ep valid entries) even if a
	 * later one fails; cap_ep is what all three hold. */
	uint32_t *a = realloc(n->ep_node, cap * sizeof *a);
	if (!a)
		return GROVE_ENOMEM;
	n->ep_node = a;
	uint32_t *b = realloc(n->ep_port, cap * sizeof *b);
	if (!b)
		return GROVE_ENOMEM;
	n->ep_port = b;
	char **h = realloc(n->ep_host, cap * sizeof *h);
	if (!h)
		return GROVE_ENOMEM;
	n->ep_host = h;
	n->cap_ep = cap;
	return 0;
}

static void
ready_refuse(node *n, node_child *ch, int err, const char *why)
{
	log_warn("node %u: %s", n->id, why);
	if (ch->c)
		conn_close(ch->c, err, why);
}

void
node_child_ready_msg(node *n, uint32_t idx, grove_packet *p)
{
	node_child *ch = &n->children[idx];
	uint32_t bes = 0;
	const uint32_t *ids = NULL, *ports = NULL;
	const char *const *hosts = NULL;
	uint64_t ni = 0, np = 0, nh = 0;
	char why[160];
	if (grove_packet_unpack(p, PROTO_READY, &bes, &ids, &ni, &ports, &np,
		&hosts, &nh) != 0 || ni != np || ni != nh) {
		snprintf(why, sizeof why, "malformed READY from node %u",
		    ch->node_id);
		ready_refuse(n, ch, GROVE_EPROTO, why);
		return;
	}
	if (ready_wrong(n, ch, bes, ids, ni, why, sizeof why)) {
		ready_refuse(n, ch, GROVE_EPROTO, why);
		return;
	}
	if (ep_reserve(n, (size_t)ni) != 0) {
		snprintf(why, sizeof why, "out of memory for the endpoints in "
		    "the READY from node %u", ch->node_id);
		ready_refuse(n, ch, GROVE_ENOMEM, why);
		return;
	}
	for (uint64_t i = 0; i < ni; i++) {
		char *h = strdup(hosts[i]);
		if (!h) {
			snprintf(why, sizeof why, "out of memory for the "
			    "endpoints in the READY from node %u", ch->node_id);
			ready_refuse(n, ch, GROVE_ENOMEM, why);
			return;
		}
		n->ep_node[n->n_ep] = ids[i];
		n->ep_port[n->n_ep] = ports[i];
		n->ep_host[n->n_ep] = h;
		n->n_ep++;
	}
	node_child_mark_ready(n, ch, bes);
}

/* Re-parenting, the adopting side (docs/recovery.md, "The adopter"): a
 * node that loses a CP child expects that child's children back, takes
 * them in when they come (ADOPT, answered with the streams they lack and
 * RESUME), gives up on those that do not come in time, and reports the
 * move up (REPARENTED).  Also the LINEAGE every child gets, and routes
 * through adopted children. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

#include "codec/wire.h"
#include "core/log.h"
#include "grove/error.h"
#include "net/sockio.h"
#include "tbon/node.h"
#include "tbon/proto.h"

/* ---- ancestors ------------------------------------------------------ */

void
node_send_lineage(node *n, uint32_t idx)
{
	node_child *ch = &n->children[idx];
	/* During the launch its children get theirs together at its end,
	 * in their order (a broadcast's), not one by one as they come. */
	if (!ch->c || !n->launched)
		return;
	lineage_hop self;
	memset(&self, 0, sizeof self);
	self.node = n->id;
	self.port = n->port;
	snprintf(self.host, sizeof self.host, "%s",
	    grove_topo_node_at(n->topo, n->id)->host);
	snprintf(self.addr, sizeof self.addr, "%s", n->attach_host);
	snprintf(self.uname, sizeof self.uname, "%s", n->uname);
	lineage l = n->lineage;
	l.heartbeat_ms = n->heartbeat_ms;
	l.reparent_ms = n->reparent_ms;
	grove_packet *p = NULL;
	if (lineage_pack(&l, &self, n->rank, &p) != 0) {
		log_warn("node %u: cannot tell node %u its ancestors: it cannot "
		    "re-parent should this node be lost", n->id, ch->node_id);
		return;
	}
	node_send(n, ch->c, p);
	grove_packet_unref(p);
}

void
node_send_lineage_all(node *n)
{
	for (uint32_t i = 0; i < n->n_children; i++)
		node_send_lineage(n, i);
}

void
node_lineage_from_parent(node *n, grove_packet *p)
{
	char why[200];
	if (lineage_from_packet(p, &n->lineage, why, sizeof why) != 0) {
		log_warn("node %u: %s from the parent: ignored", n->id, why);
		return;
	}
	if (n->lineage.n > 0)
		n->parent_id = n->lineage.hop[n->lineage.n - 1].node;
	node_outlive_parent(n);
	node_send_lineage_all(n);
}

void
node_outlive_parent(node *n)
{
	/* Started with the parent-death signal, so that a launch that fails
	 * leaves nothing behind; once it may re-parent, its parent's death
	 * is no longer its own. */
	if (node_orphan_possible(n))
		prctl(PR_SET_PDEATHSIG, 0);
}

/* ---- routes ---------------------------------------------------------- */

int
node_route(const node *n, uint32_t rank)
{
	int c = grove_topo_route(n->topo, n->id, rank);
	while (c >= 0 && (uint32_t)c < n->n_children && n->children[c].replaced) {
		int next = -1;
		for (uint32_t i = n->n_topo_children; i < n->n_children; i++) {
			const node_child *k = &n->children[i];
			if (k->adopt_of == c && rank >= k->be_lo && rank < k->be_hi) {
				next = (int)i;
				break;
			}
		}
		c = next;
	}
	return c;
}

/* ---- who hangs from whom now -------------------------------------- */

/* In moved_parent: a node that is gone (lost, or replaced by its
 * children). */
#define PARENT_GONE UINT32_MAX

static uint32_t
parent_now(const node *n, uint32_t id)
{
	if (n->moved_parent)
		return n->moved_parent[id];
	int32_t p = grove_topo_node_at(n->topo, id)->parent;
	return p > 0 ? (uint32_t)p : 0;
}

/* The table of current parents, made from the topology when first
 * needed; NULL without memory. */
static uint32_t *
parents(node *n)
{
	uint32_t size = grove_topo_size(n->topo);
	if (n->moved_parent)
		return n->moved_parent;
	n->moved_parent = malloc((size ? size : 1) * sizeof *n->moved_parent);
	if (!n->moved_parent) {
		log_error("node %u: out of memory noting who moved where: a "
		    "later loss below may expect the wrong children", n->id);
		return NULL;
	}
	for (uint32_t i = 0; i < size; i++) {
		int32_t q = grove_topo_node_at(n->topo, i)->parent;
		n->moved_parent[i] = q > 0 ? (uint32_t)q : 0;
	}
	return n->moved_parent;
}

void
node_adopt_note_gone(node *n, uint32_t id)
{
	uint32_t *par = id < grove_topo_size(n->topo) ? parents(n) : NULL;
	if (par)
		par[id] = PARENT_GONE;
}

void
node_adopt_note_moves(node *n, const grove_packet *p)
{
	uint32_t lost = 0, lo = 0, hi = 0, parent = 0;
	const char *why = NULL;
	const uint32_t *moved = NULL;
	uint64_t nm = 0;
	uint32_t size = grove_topo_size(n->topo);
	uint32_t *par;
	if (grove_packet_unpack(p, PROTO_REPARENTED, &lost, &lo, &hi, &parent,
	    &why, &moved, &nm) != 0 || !(par = parents(n)))
		return;
	if (lost < size)
		par[lost] = PARENT_GONE;
	for (uint64_t i = 0; i < nm; i++)
		if (moved[i] < size)
			par[moved[i]] = parent;
}

/* ---- expecting a lost CP's children ------------------------------------ */

static node_adoption *
adoption_of(node *n, uint32_t idx, node_adoption ***link)
{
	for (node_adoption **l = &n->adoptions; *l; l = &(*l)->next)
		if (idx >= (*l)->first && idx < (*l)->first + (*l)->n) {
			if (link)
				*link = l;
			return *l;
		}
	return NULL;
}

static void on_adopt_timer(uv_timer_t *t);

static void
arm(node *n)
{
	uint64_t next = UINT64_MAX;
	for (node_adoption *a = n->adoptions; a; a = a->next)
		for (uint32_t i = a->first; i < a->first + a->n; i++)
			if (n->children[i].adopt_pending &&
			    n->children[i].adopt_until < next)
				next = n->children[i].adopt_until;
	if (next == UINT64_MAX) {
		uv_timer_stop(&n->adopt_timer);
		return;
	}
	uint64_t now = sockio_now_ms();
	/* libuv's clock may lag ours: the callback checks and re-arms. */
	uv_timer_start(&n->adopt_timer, on_adopt_timer,
	    next > now ? next - now + 1 : 1, 0);
}

static void
on_adopt_timer(uv_timer_t *t)
{
	node *n = t->data;
	uint64_t now = sockio_now_ms();
	for (uint32_t i = n->n_topo_children; i < n->n_children; i++) {
		node_child *ch = &n->children[i];
		if (!ch->adopt_pending || ch->adopt_until > now)
			continue;
		char why[300];
		snprintf(why, sizeof why, "did not come back within %d ms after "
		    "its parent, node %u, was lost", n->reparent_ms,
		    n->children[ch->adopt_of].node_id);
		node_child_lose(n, i, why);
	}
	arm(n);
}

int
node_adopt_begin(node *n, uint32_t idx, const char *why)
{
	node_child *lost = &n->children[idx];
	if (n->reparent_ms < 0 || lost->role != GROVE_ROLE_CP || !n->launched ||
	    n->shutting_down)
		return 0;
	/* Its children now: those of the topology, and those it adopted
	 * (its lost children were replaced by theirs). */
	uint32_t size = grove_topo_size(n->topo), nk = 0;
	for (uint32_t id = lost->node_id + 1; id < size; id++)
		nk += parent_now(n, id) == lost->node_id;
	if (nk == 0)
		return 0;
	if (n->n_children + nk > n->cap_children) {
		log_error("node %u: no room for node %u's %u children (%u of %u "
		    "used): its subtree is lost", n->id, lost->node_id, nk,
		    n->n_children, n->cap_children);
		return 0;
	}
	node_adoption *a = calloc(1, sizeof *a);
	if (!a)
		return 0;
	a->lost = idx;
	a->first = n->n_children;
	a->n = a->pending = nk;
	snprintf(a->why, sizeof a->why, "%s", why);
	uint64_t until = sockio_now_ms() + (uint64_t)n->reparent_ms;
	for (uint32_t id = lost->node_id + 1; id < size; id++) {
		if (parent_now(n, id) != lost->node_id)
			continue;
		const grove_topo_node *k = grove_topo_node_at(n->topo, id);
		node_child *ch = &n->children[n->n_children++];
		memset(ch, 0, sizeof *ch);
		ch->node_id = k->id;
		ch->role = k->role;
		ch->be_lo = k->be_lo;
		ch->be_hi = k->be_hi;
		ch->host = k->host;
		ch->state = CHILD_PENDING;
		ch->adopt_of = (int32_t)idx;
		ch->adopt_pending = 1;
		ch->adopt_until = until;
	}
	lost->replaced = 1;
	a->next = n->adoptions;
	n->adoptions = a;
	log_warn("node %u: node %u lost (%s); expecting its %u children back "
	    "within %d ms", n->id, lost->node_id, why, a->n, n->reparent_ms);
	node_streams_adopt(n, idx, a->first, a->n);
	arm(n);
	return 1;
}

/* Every expected child came or was given up: the move goes up. */
static void
adoption_done(node *n, node_adoption *a, node_adoption **link)
{
	const node_child *lost = &n->children[a->lost];
	uint32_t *moved = malloc((a->n ? a->n : 1) * sizeof *moved);
	uint32_t k = 0;
	for (uint32_t i = a->first; moved && i < a->first + a->n; i++)
		if (n->children[i].adopt_said)
			moved[k++] = n->children[i].node_id;
	if (k == 0) {
		/* None came: the loss is the whole subtree's, as without
		 * recovery. */
		node_up_ctl(n, WIRE_T_NODE_LOST, 0, PROTO_NODE_LOST, lost->node_id,
		    lost->be_lo, lost->be_hi, a->why);
		node_adopt_note_gone(n, lost->node_id);
	} else {
		log_warn("node %u: %u of node %u's %u children moved here", n->id,
		    k, lost->node_id, a->n);
		grove_packet *p = NULL;
		if (wire_pack(&p, WIRE_T_REPARENTED, 0, 0, n->rank, 0,
		    PROTO_REPARENTED, lost->node_id, lost->be_lo, lost->be_hi,
		    n->id, a->why, moved, (uint64_t)k) == 0) {
			node_adopt_note_moves(n, p);
			n->hooks->up(n, p);
			grove_packet_unref(p);
		}
		for (uint32_t i = a->first; i < a->first + a->n; i++) {
			const node_child *ch = &n->children[i];
			char why[300];
			if (ch->adopt_said)
				continue;
			snprintf(why, sizeof why, "did not come back within %d ms "
			    "after its parent, node %u, was lost (%s)",
			    n->reparent_ms, lost->node_id, a->why);
			node_up_ctl(n, WIRE_T_NODE_LOST, 0, PROTO_NODE_LOST,
			    ch->node_id, ch->be_lo, ch->be_hi, why);
			node_adopt_note_gone(n, ch->node_id);
		}
	}
	free(moved);
	*link = a->next;
	free(a);
}

void
node_adopt_child_gone(node *n, uint32_t idx)
{
	node_child *ch = &n->children[idx];
	node_adoption **link = NULL;
	node_adoption *a = adoption_of(n, idx, &link);
	if (!a || !ch->adopt_pending)
		return;
	ch->adopt_pending = 0;
	if (--a->pending == 0)
		adoption_done(n, a, link);
}

void
node_adopt_msg(node *n, uint32_t idx, grove_packet *p)
{
	node_child *ch = &n->children[idx];
	const uint32_t *ids = NULL;
	const uint64_t *next = NULL, *down = NULL;
	uint64_t ni = 0, nn = 0, nd = 0;
	const char *bad = NULL;
	if (ch->adopt_of < 0 || ch->adopt_said)
		bad = ch->adopt_of < 0 ? "an ADOPT from a child that was not "
		    "expected back" : "a second ADOPT";
	else if (grove_packet_unpack(p, PROTO_ADOPT, &ids, &ni, &next, &nn,
	    &down, &nd) != 0 || ni != nn || ni != nd)
		bad = "a malformed ADOPT";
	if (bad) {
		log_warn("node %u: %s from node %u", n->id, bad, ch->node_id);
		if (ch->c)
			conn_close(ch->c, GROVE_EPROTO, bad);
		return;
	}
	ch->adopt_said = 1;
	size_t cap = n->n_streams ? n->n_streams : 1, k = 0, pos = 0;
	uint32_t *rid = malloc(cap * sizeof *rid);
	uint64_t *rpt = malloc(cap * sizeof *rpt);
	node_stream *s;
	while (rid && rpt && (s = node_stream_next(n, &pos)) && k < cap) {
		int32_t slot = s->child_slot[idx];
		if (slot < 0)
			continue;
		uint64_t j = 0;
		while (j < ni && ids[j] != s->id)
			j++;
		rid[k] = s->id;
		if (j == ni) {
			/* Created while it was away: it starts it now, with
			 * what was sent on it meanwhile. */
			node_stream_tell_child(n, s, idx);
			node_keep_down_resend(n, s, idx, 0);
			rpt[k++] = 0;
		} else {
			node_keep_down_resend(n, s, idx, down[j]);
			rpt[k++] = s->sync_kind == SYNC_WAIT_FOR_ALL ?
			    s->base[slot] : 0;
		}
	}
	grove_packet *r = NULL;
	if (rid && rpt && wire_pack(&r, WIRE_T_RESUME, 0, 0, n->rank, 0,
	    PROTO_RESUME, rid, (uint64_t)k, rpt, (uint64_t)k) == 0) {
		node_send(n, ch->c, r);
		grove_packet_unref(r);
	} else {
		log_error("node %u: out of memory answering node %u's ADOPT",
		    n->id, ch->node_id);
		if (ch->c)
			conn_close(ch->c, GROVE_ENOMEM, "out of memory");
	}
	free(rid);
	free(rpt);
	log_info("node %u: node %u is back (its parent, node %u, was lost)",
	    n->id, ch->node_id, n->children[ch->adopt_of].node_id);
	node_adopt_child_gone(n, idx);
}

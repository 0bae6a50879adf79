/* Loading custom filters on every node: a load request goes down the
 * tree, each node registers the library and answers, and the answers are
 * gathered on the way up (FILTER_LOAD / FILTER_ACK).  A load that failed
 * anywhere is undone with FILTER_UNLOAD, each node dropping only what
 * that request registered (see fe_filters.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/wire.h"
#include "core/log.h"
#include "grove/error.h"
#include "tbon/node.h"
#include "tbon/proto.h"

void
node_load_req_free(node *n, node_load_req *r)
{
	for (node_load_req **pp = &n->loads; *pp; pp = &(*pp)->next) {
		if (*pp == r) {
			*pp = r->next;
			break;
		}
	}
	for (size_t i = 0; i < r->n_errors; i++)
		free(r->errors[i]);
	free(r->errors);
	free(r->pending);
	free(r);
}

static void
load_add_error(node_load_req *r, const char *text)
{
	char **e = realloc(r->errors, (r->n_errors + 1) * sizeof *e);
	if (!e)
		return;
	r->errors = e;
	if ((r->errors[r->n_errors] = strdup(text)))
		r->n_errors++;
}

static void
load_maybe_done(node *n, node_load_req *r)
{
	if (r->waiting || r->done)
		return;
	r->done = 1;
	if (n->id == 0)
		return; /* the FE collects the result itself */
	grove_packet *p = NULL;
	if (wire_pack(&p, WIRE_T_FILTER_ACK, 0, (int32_t)r->req, n->rank, 0,
		PROTO_FILTER_ACK, r->ok, (const char *const *)r->errors,
		(uint64_t)r->n_errors) == 0) {
		n->hooks->up(n, p);
		grove_packet_unref(p);
	}
	node_load_req_free(n, r);
}

node_load_req *
node_filter_load(node *n, uint32_t req, const char *name, const char *path,
    const char *symbol)
{
	node_load_req *r = calloc(1, sizeof *r);
	if (!r)
		return NULL;
	r->req = req;
	if (n->cap_children && !(r->pending = calloc(n->cap_children, 1))) {
		free(r);
		return NULL;
	}
	r->next = n->loads;
	n->loads = r;
	char err[512];
	if (flt_load(n->filters, name, path, symbol, req, err, sizeof err) ==
	    0) {
		r->ok++;
	} else {
		char text[700];
		const grove_topo_node *me = grove_topo_node_at(n->topo, n->id);
		snprintf(text, sizeof text, "node %u (%s on %s): %s", n->id,
		    n->id == 0 ? "fe" : "cp", me ? me->host : "?", err);
		load_add_error(r, text);
	}
	grove_packet *p = NULL;
	if (wire_pack(&p, WIRE_T_FILTER_LOAD, 0, (int32_t)req, n->rank, 0,
		PROTO_FILTER_LOAD, name, path, symbol) == 0) {
		for (uint32_t c = 0; c < n->n_children; c++) {
			node_child *ch = &n->children[c];
			if (ch->role == GROVE_ROLE_CP && ch->c) {
				node_send(n, ch->c, p);
				r->pending[c] = 1;
				r->waiting++;
			}
		}
		grove_packet_unref(p);
	}
	load_maybe_done(n, r);
	return r;
}

/* CPs in the subtree of node id (itself included): topology ids are in
 * pre-order, so the subtree runs up to the next node no deeper than it. */
static uint32_t
subtree_cps(const grove_topo *t, uint32_t id)
{
	const grove_topo_node *top = grove_topo_node_at(t, id);
	uint32_t cps = 0;
	if (!top)
		return 0;
	for (uint32_t i = id; i < grove_topo_size(t); i++) {
		const grove_topo_node *k = grove_topo_node_at(t, i);
		if (i > id && k->depth <= top->depth)
			break;
		if (k->role == GROVE_ROLE_CP)
			cps++;
	}
	return cps;
}

void
node_load_ack(node *n, uint32_t child, grove_packet *p)
{
	uint32_t ok = 0;
	const char *const *errs = NULL;
	uint64_t ne = 0;
	int32_t req = wire_packet_hdr(p)->tag;
	node_load_req *r = n->loads;
	while (r && r->req != (uint32_t)req)
		r = r->next;
	if (!r || r->done)
		return;
	/* Only a CP child asked, and only its first answer: a BE child is
	 * never asked, and a second answer would stand for a sibling that
	 * has not answered yet. */
	if (child >= n->n_children || !r->pending[child]) {
		log_warn("node %u: filter-load answer from node %u dropped: %s",
		    n->id, child < n->n_children ? n->children[child].node_id : 0,
		    child < n->n_children && n->children[child].role ==
		    GROVE_ROLE_CP ? "it has answered already" : "it was not asked");
		return;
	}
	r->pending[child] = 0;
	if (grove_packet_unpack(p, PROTO_FILTER_ACK, &ok, &errs, &ne) != 0) {
		load_add_error(r, "malformed filter-load answer");
	} else {
		/* A subtree loads on its CPs at most. */
		uint32_t cps = subtree_cps(n->topo, n->children[child].node_id);
		r->ok += ok < cps ? ok : cps;
		for (uint64_t i = 0; i < ne; i++)
			load_add_error(r, errs[i]);
	}
	r->waiting--;
	load_maybe_done(n, r);
}

/* No answer is awaited: a CP that is gone has nothing to undo, and the
 * message reaches every live CP after the load it undoes (links keep
 * order), and before any later load or stream of the same name.  No
 * stream can use what the load registered: the FE creates none while its
 * load is under way, nor after it failed. */
void
node_filter_unload(node *n, uint32_t req, const char *name)
{
	if (flt_unload(n->filters, name, req))
		log_debug("node %u: filter '%s' unloaded (its load failed "
		    "elsewhere)", n->id, name);
	grove_packet *p = NULL;
	if (wire_pack(&p, WIRE_T_FILTER_UNLOAD, 0, (int32_t)req, n->rank, 0,
		PROTO_FILTER_UNLOAD, name) != 0)
		return;
	for (uint32_t c = 0; c < n->n_children; c++) {
		node_child *ch = &n->children[c];
		if (ch->role == GROVE_ROLE_CP && ch->c)
			node_send(n, ch->c, p);
	}
	grove_packet_unref(p);
}

/* A CP child that dies while a load is outstanding must not stall it. */
void
node_loads_child_gone(node *n, uint32_t child)
{
	node_child *ch = &n->children[child];
	if (ch->role != GROVE_ROLE_CP)
		return;
	for (node_load_req *r = n->loads, *next; r; r = next) {
		next = r->next;
		if (r->done || !r->pending || !r->pending[child])
			continue;
		r->pending[child] = 0;
		char text[128];
		snprintf(text, sizeof text, "node %u: lost before answering",
		    ch->node_id);
		load_add_error(r, text);
		r->waiting--;
		load_maybe_done(n, r);
	}
}

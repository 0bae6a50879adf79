/* Event scopes through the tree, at every node (internal, src/tbon;
 * docs/monitoring.md, "Event scopes through the tree").
 *
 * A monitor attached to the front-end's control socket (fe_scope.c) owns
 * a scope: an id and what it selects.  Each pull of it travels down as
 * SCOPE_PULL to every CP.  A node that is a reader (scope/placement.h)
 * reads, lazily and only now, the event spaces that are its to read
 * (scope/scope.h: cursors kept from the last pull, tuples selected where
 * they are read) and turns them into its share (monitor/share.h): its
 * accumulators (the distributed analysis) or the raw tuples (the single
 * scope).  Every node waits for the shares of its CP children, merges
 * them with its own (mon_analysis_merge, or concatenation of raw
 * blocks), and sends one share up: only merged results cross hosts.
 * Back-ends take no part: they are the monitored processes.
 *
 * A CP keeps a scope's readers until SCOPE_END (the monitor left) or
 * until NODE_SCOPE_MAX newer scopes pushed it out. */
#ifndef GROVE_NODE_SCOPE_H
#define GROVE_NODE_SCOPE_H

#include <stddef.h>
#include <stdint.h>

#include "grove/packet.h"

struct node;

/* Scopes a node keeps at once; a newer one ends the least recently
 * pulled (the front-end serves FE_CTL_MAX_CLIENTS clients). */
#define NODE_SCOPE_MAX 8

/* What a scope selects, as SCOPE_PULL carries it. */
struct node_scope_params {
	uint32_t kind;       /* enum mon_share_kind */
	uint32_t readers;    /* enum scope_readers */
	int32_t op;          /* enum grove_trace_op, -1: any */
	char layer[16];      /* "": any */
	char name[48];       /* "": any */
	uint32_t last_only;
};

/* The front-end's pull is complete: the share of the whole tree (NULL
 * with err when it could not be built), and how many CP children of the
 * front-end answered of those asked. */
typedef void (*node_scope_done_fn)(struct node *n, uint32_t scope,
                                   uint32_t pull, const uint8_t *share,
                                   size_t len, uint32_t answered,
                                   uint32_t asked, const char *err);

/* The front-end starts pull `pull` of scope `scope` (the node's own
 * reading and the request to its CPs); done is called when every CP
 * child answered or was lost (maybe before this returns).  0 or a
 * grove_err (nothing was sent). */
int node_scope_pull_start(struct node *n, uint32_t scope, uint32_t pull,
                          const struct node_scope_params *sp,
                          node_scope_done_fn done);
/* The front-end gives up waiting for pull `pull` of scope `scope`: its
 * share so far, as node_scope_done_fn takes it (len 0 when nothing). */
void node_scope_pull_now(struct node *n, uint32_t scope, uint32_t pull);
/* The monitor of scope `scope` left: the readers of this node close its
 * spaces, and (forward) its CPs are told. */
void node_scope_end(struct node *n, uint32_t scope, int forward);

/* What the node engine calls (through n->scope_ops): SCOPE_PULL and
 * SCOPE_END from the parent, SCOPE_SHARE from child idx, a child lost
 * while a pull waits for it, every scope freed (the node ends). */
struct node_scope_ops {
	void (*from_parent)(struct node *n, grove_packet *p);
	void (*share)(struct node *n, uint32_t idx, grove_packet *p);
	void (*child_gone)(struct node *n, uint32_t idx);
	void (*fini)(struct node *n);
};
/* This node serves event scopes (the front-end, grove-commnode). */
void node_scope_enable(struct node *n);

#endif

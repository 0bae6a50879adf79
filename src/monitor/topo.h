/* The TBON's tree as the pathmap shows it (internal, src/monitor).
 *
 * Every process registers its links as "link:<sender node>-><receiver
 * node>", so the links of all event spaces give the tree's edges, and
 * each process's own node id (a CP's rank, the front-end's 0, a
 * back-end's from its link).  The tree is rooted at node 0, the
 * front-end.  A node that some link names but whose event space is
 * missing is still a node of the tree (labelled "node N"), so the
 * picture shows where the gap is. */
#ifndef GROVE_MONITOR_TOPO_H
#define GROVE_MONITOR_TOPO_H

#include <stddef.h>
#include <stdint.h>

#include "monitor/pathmap.h"

struct mon_topo_node {
	int64_t node;               /* TBON node id */
	char label[MON_LABEL_LEN];  /* "cp 4", or "node 9" without a space */
	int64_t proc;               /* pathmap index, -1 without a space */
	int64_t parent;             /* index in the array, -1 for a root */
	uint32_t depth;
	uint32_t children;
};

/* The nodes of every tree in the pathmap, parents before their
 * children, the root's tree (node 0) first; siblings by node id.  Nodes
 * not connected to node 0 come after it as roots of their own.
 * *out is malloc'ed (free it); none when no process has links.
 * GROVE_ENOMEM. */
int mon_topo_build(const struct mon_pathmap *pm, struct mon_topo_node **out,
                   size_t *n);

#endif

/* Grove topologies: the shape of a network, as pure data.
 *
 * A topology is a rooted tree.  The root is the front-end (FE), inner nodes
 * are communication processes (CPs) and leaves are back-ends (BEs).  Nodes
 * are numbered in depth-first pre-order (the FE is node 0); BE ranks 0..N-1
 * are given to the leaves in the same order, so the BEs below any node have
 * consecutive ranks [be_lo, be_hi).
 *
 * Specifications (grove_topo_generate):
 *   flat            the FE is the parent of every BE
 *   kary:K          every FE/CP has at most K children, as shallow as
 *                   possible, balanced
 *   knomial:K       a k-nomial tree (K >= 2)
 *   levels:AxBxC    per-level fan-outs; the product is the BE count
 *                   ("4x8x8" alone is accepted too)
 * Files (grove_topo_parse_string, grove_topo_parse_file): MRNet's grammar, "host:N => host:N host:N ;"
 * with '#' comments; hostnames may contain dots.  Leaves are BEs.
 *
 * No function here performs I/O except the print/parse-file helpers that
 * take a FILE* or path, and none of them exits or asserts on bad input.
 */
#ifndef GROVE_TOPOLOGY_H
#define GROVE_TOPOLOGY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "grove/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct grove_topo grove_topo;

typedef enum grove_node_role {
	GROVE_ROLE_FE = 0,
	GROVE_ROLE_CP = 1,
	GROVE_ROLE_BE = 2,
} grove_node_role;

typedef struct grove_topo_node {
	uint32_t id;          /* pre-order index, FE = 0 */
	int32_t parent;       /* parent node id, -1 for the FE */
	grove_node_role role;
	const char *host;     /* owned by the topology */
	uint32_t instance;    /* the N of "host:N" */
	uint32_t depth;       /* FE = 0 */
	uint32_t first_child; /* index into grove_topo_children() */
	uint32_t n_children;
	uint32_t be_lo, be_hi; /* BE ranks in this subtree: [be_lo, be_hi) */
	uint32_t be_rank;      /* for BEs: its rank; else UINT32_MAX */
} grove_topo_node;

/* A host list: "host[:slots]" per line, '#' comments. */
typedef struct grove_hostlist grove_hostlist;
int grove_hostlist_parse_file(const char *path, grove_hostlist **out,
    char *err, size_t errlen);
int grove_hostlist_parse_string(const char *text, grove_hostlist **out,
    char *err, size_t errlen);
void grove_hostlist_destroy(grove_hostlist *hl);
/* Hosts in the list, and the sum of their slots (what a tool that runs one
 * back-end per slot starts). */
uint32_t grove_hostlist_size(const grove_hostlist *hl);
uint64_t grove_hostlist_slots(const grove_hostlist *hl);

/* Generate from a spec.  hosts may be NULL (every node on "localhost").
 * With hosts, the FE stays on the first host and CPs/BEs are placed
 * round-robin over the hosts, each host taking up to its slot count per
 * round.  backends is required for flat/kary/knomial; for levels: it may be
 * 0 (use the product) or must equal the product. */
int grove_topo_generate(const char *spec, uint32_t backends,
    const grove_hostlist *hosts, grove_topo **out, char *err, size_t errlen);

/* Parse MRNet-format text or a file.  Errors are line-numbered, e.g.
 * "line 7: node 'n2:0' has two parents ('n0:0' at line 3 and 'n1:0')". */
int grove_topo_parse_string(const char *text, grove_topo **out, char *err,
    size_t errlen);
int grove_topo_parse_file(const char *path, grove_topo **out, char *err,
    size_t errlen);

void grove_topo_destroy(grove_topo *t);

uint32_t grove_topo_size(const grove_topo *t);     /* number of nodes */
uint32_t grove_topo_backends(const grove_topo *t); /* number of BEs */
uint32_t grove_topo_depth(const grove_topo *t);    /* max node depth */
const grove_topo_node *grove_topo_node_at(const grove_topo *t, uint32_t id);
/* The children ids of node id, n = node->n_children of them. */
const uint32_t *grove_topo_children(const grove_topo *t, uint32_t id);
/* The node id of BE rank r, or -1. */
int64_t grove_topo_be_node(const grove_topo *t, uint32_t rank);
/* Which child of node `id` leads to BE rank r: returns the child's index
 * (0..n_children-1) or -1 when r is not below id. O(log fan-out). */
int grove_topo_route(const grove_topo *t, uint32_t id, uint32_t rank);

typedef enum grove_topo_format {
	GROVE_TOPO_TEXT = 0,  /* indented tree with roles, hosts and ranks */
	GROVE_TOPO_DOT = 1,   /* Graphviz */
	GROVE_TOPO_MRNET = 2, /* MRNet topology file; parses back identically */
} grove_topo_format;

int grove_topo_print(const grove_topo *t, grove_topo_format f, FILE *out);
/* The same into a malloc'd NUL-terminated string (caller frees). */
int grove_topo_to_string(const grove_topo *t, grove_topo_format f,
    char **out);
int grove_topo_format_parse(const char *name, grove_topo_format *out);

#ifdef __cplusplus
}
#endif
#endif

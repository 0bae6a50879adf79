/* Topology internals shared by the generator, the parser and the printers.
 *
 * Every topology is built the same way: the producer (generator or parser)
 * lays the nodes out in depth-first pre-order and gives each node's parent;
 * topo_create() derives everything else (children, depths, roles, BE ranks
 * and ranges).  Keeping one builder means every producer gets the same
 * numbering rules for free.
 */
#ifndef GROVE_TOPO_IMPL_H
#define GROVE_TOPO_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "core/errfmt.h"
#include "grove/topology.h"
#include "topo/spec.h"

/* Upper bounds that keep a typo ("levels:1000x1000x1000") from asking for
 * gigabytes; far above any tree a tool would start.  (TOPO_MAX_BACKENDS
 * is in topo/spec.h, for the tools' messages.) */
#define TOPO_MAX_NODES (1u << 25)
#define TOPO_MAX_LEVELS 32

/* The longest host name accepted (RFC 1035 limit for a full name). */
#define TOPO_MAX_HOSTNAME 253

struct grove_topo {
	uint32_t n;           /* nodes */
	uint32_t n_be;        /* back-ends */
	uint32_t depth;       /* max node depth */
	uint32_t max_fanout;  /* max children of a node */
	grove_topo_node *nodes;
	uint32_t *children;   /* grouped by parent, each group in pre-order */
	uint32_t *be_node;    /* BE rank -> node id */
	char **hosts;         /* distinct host names; nodes point into them */
	uint32_t n_hosts, cap_hosts;
	uint32_t root_line;   /* parsed: the root's first line; else 0 */
};

struct topo_host {
	char *name;
	uint32_t slots;
	uint32_t line;
};

struct grove_hostlist {
	struct topo_host *v;
	uint32_t n, cap;
};

/* Build a topology from parents given in pre-order: parent[0] == -1 and
 * node i's subtree is the contiguous id range that follows it.  Hosts are
 * left unset (NULL, instance 0).  Returns 0, GROVE_ENOMEM or GROVE_EINVAL
 * when parent[] is not a pre-order layout. */
int topo_create(uint32_t n, const int32_t *parent, grove_topo **out);

/* Copy a host name into t; the copy lives as long as t.  NULL on ENOMEM. */
const char *topo_add_host(grove_topo *t, const char *name, size_t len);

/* Every node on "localhost", instance = node id. */
int topo_place_localhost(grove_topo *t);
/* Place nodes on a host list (see grove_topo_generate). */
int topo_place_hosts(grove_topo *t, const grove_hostlist *hl);

/* Read a whole text file into a malloc'd NUL-terminated string. */
int topo_read_file(const char *path, char **text, char *err, size_t errlen);

/* True for the characters a host name may contain. */
int topo_is_host_char(int c);


#endif

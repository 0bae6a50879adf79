/* Which node of a Grove network reads which event spaces for an event
 * scope (internal, src/scope; docs/monitoring.md, "Event scopes through
 * the tree").
 *
 * A reader is the front-end or a CP: never a back-end, which is a
 * monitored process.  Two placements:
 *
 *   SCOPE_READERS_HOST  one reader per host name of the topology: the
 *       first front-end or CP in the topology's order (pre-order, the
 *       front-end first) whose host name is that host's reads the
 *       spaces of every node with that host name.  Each space is read
 *       once, and one process per host does the reading.  A host name
 *       with back-ends only has no reader: its nodes are not read (the
 *       views count them as unread_nodes).
 *   SCOPE_READERS_NODE  every front-end and CP reads its own space and
 *       those of its back-end children with its host name (others as
 *       above).  Several readers per host, each space still read once:
 *       the distributed analysis with its merges on one host, as the
 *       tests use it.
 *
 * Host names are compared as the topology writes them: two names of one
 * machine are two hosts (each space is still read at most once, by the
 * reader its node is assigned to). */
#ifndef GROVE_SCOPE_PLACEMENT_H
#define GROVE_SCOPE_PLACEMENT_H

#include <stdint.h>

#include "grove/topology.h"

enum scope_readers {
	SCOPE_READERS_HOST = 0,
	SCOPE_READERS_NODE = 1,
};

/* The node id of the reader of node `id`'s event space, or -1 (none,
 * or id is no node). */
int64_t scope_reader_of(const grove_topo *t, uint32_t id, int readers);

/* The reader of the processes that are no node of the tree (another
 * role's spaces of the network, a tool's own) found on the host of node
 * `id`: the host reader of its host name, or -1. */
int64_t scope_host_reader(const grove_topo *t, uint32_t id);

/* How many readers the placement has. */
uint32_t scope_readers_count(const grove_topo *t, int readers);

/* The TBON node of the process (role, rank) named by an event space
 * ("fe" 0, "cp" node, "be" rank), or -1 for another role. */
int64_t scope_node_of(const grove_topo *t, const char *role, uint32_t rank);

#endif

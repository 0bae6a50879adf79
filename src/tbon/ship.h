/* Event spaces travelling to the front-end (internal): at shutdown, and on
 * request while the network runs (grove_net_trace_collect). */
#ifndef GROVE_SHIP_H
#define GROVE_SHIP_H

#include <stdint.h>

#include "grove/packet.h"
#include "grove/topology.h"

/* 1 if this SHUTDOWN asks this process to ship its event space: the FE
 * collects event spaces, and this process does not keep its segment for
 * the FE to read (kept: the FE told it to, as it does for children on its
 * own host), or the FE asks everyone.  Whether a process keeps, not
 * whether its host name differs from the FE's, decides: a host list may
 * name the FE's machine by an alias, and such a child, not told to keep,
 * would otherwise neither keep nor ship. */
int ship_wanted(grove_packet *shutdown, int kept);
/* Finish this process's event space and pack it as TRACE_DATA. */
int ship_event_space(uint32_t src, grove_packet **out);
/* Answer a TRACE_REQ: a snapshot of the live event space when this
 * process is on another host than the FE (or the request asks everyone),
 * else an empty answer; tag = the request's. */
int ship_answer(grove_packet *req, uint32_t src, grove_packet **out);
/* The topology node that sends event spaces as src (a BE rank, or
 * PROTO_NODE_RANK of a CP); -1 if none does. */
int64_t ship_src_node(const grove_topo *t, uint32_t src);
struct trace_fe_offsets;
/* FE: recreate a shipped event space of network netid on this host, and
 * write into it the process's clock offset from `offsets` (may be NULL).
 * Only the sender's own segment is recreated: the name must be
 * grove.<netid>.be.<rank> or grove.<netid>.cp.<node> for the packet's
 * source (which the child links have checked: node_child_msg.c, and
 * whose answer the caller has checked to be expected), so that
 * no copy lands on a segment of another process, the FE's own included.
 * Returns 1 if one was recreated, 0 for an empty answer, < 0 on error
 * (GROVE_EINVAL: a name that is not the sender's). */
int ship_receive(const char *netid, grove_packet *p,
    struct trace_fe_offsets *offsets);

#endif

/* Shipping a process's event space to the front-end at shutdown
 * (internal; see PROTO_SHUTDOWN in proto.h). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "codec/wire.h"
#include "core/log.h"
#include "grove/trace.h"
#include "tbon/proto.h"
#include "tbon/ship.h"
#include "trace/align.h"
#include "trace/space.h"
#include "trace/trace_impl.h"

/* A source is a BE rank, or a node's PROTO_NODE_RANK. */
#define SRC_IS_NODE(s) (((s) & PROTO_NODE_RANK(0)) != 0)
#define SRC_NODE(s) ((s) & ~PROTO_NODE_RANK(0))

/* Whether a request from the FE on fe_host concerns this process. */
static int
remote_from(const char *fe_host, int32_t all)
{
	char me[256] = "";
	gethostname(me, sizeof me - 1);
	return all || strcmp(me, fe_host) != 0;
}

int
ship_wanted(grove_packet *shutdown, int kept)
{
	const char *fe_host = NULL;
	int32_t all = 0;
	if (wire_packet_hdr(shutdown)->tag != PROTO_SHUTDOWN_SHIP ||
	    grove_packet_unpack(shutdown, PROTO_SHUTDOWN, &fe_host, &all) != 0)
		return 0;
	return all || !kept;
}

int
ship_answer(grove_packet *req, uint32_t src, grove_packet **out)
{
	const char *fe_host = NULL;
	int32_t all = 0;
	int32_t tag = wire_packet_hdr(req)->tag;
	char name[256] = "";
	uint8_t *snap = NULL;
	size_t len = 0;
	*out = NULL;
	if (grove_packet_unpack(req, PROTO_TRACE_REQ, &fe_host, &all) != 0)
		return GROVE_EPROTO;
	if (remote_from(fe_host, all) &&
	    trace_space_snapshot(name, sizeof name, &snap, &len, 0) != 0)
		name[0] = 0;
	int rc = wire_pack(out, WIRE_T_TRACE_DATA, 0, tag, src, 0,
	    PROTO_TRACE_DATA, name, snap, (uint64_t)len);
	free(snap);
	return rc;
}

int
ship_event_space(uint32_t src, grove_packet **out)
{
	char name[256];
	uint8_t *snap = NULL;
	size_t len = 0;
	*out = NULL;
	int rc = trace_space_finish_snapshot(name, sizeof name, &snap, &len);
	if (rc != 0)
		return rc;
	/* The FE gets the copy: ours goes now, so that on a shared host the
	 * FE can recreate it under the same name. */
	grove_trace_fini(0);
	rc = wire_pack(out, WIRE_T_TRACE_DATA, 0, 0, src, 0, PROTO_TRACE_DATA, name,
	    snap, (uint64_t)len);
	free(snap);
	if (rc != 0)
		log_warn("cannot ship the event space %s: %s", name,
		    grove_strerror(rc));
	return rc;
}

int64_t
ship_src_node(const grove_topo *t, uint32_t src)
{
	if (!SRC_IS_NODE(src))
		return grove_topo_be_node(t, src);
	uint32_t id = SRC_NODE(src);
	const grove_topo_node *k = grove_topo_node_at(t, id);
	return k && k->role == GROVE_ROLE_CP ? (int64_t)id : -1;
}

int
ship_receive(const char *netid, grove_packet *p,
    struct trace_fe_offsets *offsets)
{
	const char *name = NULL;
	const uint8_t *bytes = NULL;
	uint64_t len = 0;
	if (grove_packet_unpack(p, PROTO_TRACE_DATA, &name, &bytes, &len) != 0)
		return GROVE_EPROTO;
	if (!name[0])
		return 0; /* on the FE's host: nothing to copy */
	/* Only the sender's own segment of this network may be created. */
	uint32_t src = wire_packet_hdr(p)->src;
	char own[128];
	if (trace_segment_name(own, sizeof own, netid,
		SRC_IS_NODE(src) ? "cp" : "be",
		SRC_IS_NODE(src) ? SRC_NODE(src) : src) != 0 ||
	    strcmp(name, own) != 0) {
		log_warn("event space %s from %s %u not kept: not its own (%s)",
		    name, SRC_IS_NODE(src) ? "node" : "rank",
		    SRC_IS_NODE(src) ? SRC_NODE(src) : src, own);
		return GROVE_EINVAL;
	}
	/* Answers to a live request (tag != 0) replace an earlier copy. */
	int rc = wire_packet_hdr(p)->tag
	    ? trace_space_materialize_replace(name, bytes, (size_t)len)
	    : trace_space_materialize(name, bytes, (size_t)len);
	if (rc != 0) {
		log_warn("event space %s from rank %u not kept: %s", name,
		    wire_packet_hdr(p)->src, grove_strerror(rc));
		return rc;
	}
	int arc = trace_fe_offsets_apply(offsets, name);
	if (arc != 0)
		log_warn("event space %s: clock offset not recorded: %s", name,
		    grove_strerror(arc));
	return 1;
}

/* Control messages of the TBON (internal): their payload formats.
 * Each travels as a frame of the given wire type (src/codec/wire.h); the
 * shared validated decoder checks them like any packet, and a mismatch is
 * a protocol error of the sending peer. */
#ifndef GROVE_PROTO_H
#define GROVE_PROTO_H

/* READY, child -> parent: BEs up below, and the listening endpoints of the
 * CPs below that have BE children (attach mode): node ids, ports, hosts. */
#define PROTO_READY "%ud %aud %aud %as"
/* LAUNCH_ERROR, child -> parent: what failed, naming node/host/program. */
#define PROTO_LAUNCH_ERROR "%s"
/* STREAM_NEW, parent -> child: id, member BE ranks below the child,
 * up filter, sync filter, down filter, sync timeout (ms). */
#define PROTO_STREAM_NEW "%ud %aud %s %s %s %ud"
#define PROTO_STREAM_DEL "%ud"
/* STREAM_PARAMS: stream, which filter (grove_filter_slot), the parameter
 * packet's frame. */
#define PROTO_STREAM_PARAMS "%ud %d %auc"
/* FILTER_LOAD (tag = request id): name, path, symbol. */
#define PROTO_FILTER_LOAD "%s %s %s"
/* FILTER_ACK (tag = request id): nodes that loaded it, errors. */
#define PROTO_FILTER_ACK "%ud %as"
/* FILTER_UNLOAD (tag = request id of a load that failed somewhere): name.
 * Each node removes the filter if that very load registered it. */
#define PROTO_FILTER_UNLOAD "%s"
/* NODE_LOST, child -> parent: lost node id, its BE range, reason. */
#define PROTO_NODE_LOST "%ud %ud %ud %s"
/* BE_ATTACHED, child -> parent: BE rank. */
#define PROTO_BE_ATTACHED "%ud"
/* FILTER_ERROR: node id, stream, error code, text. */
#define PROTO_FILTER_ERROR "%ud %ud %d %s"
/* STREAM_REFUSED: as FILTER_ERROR, from a node that could not create the
 * stream: its parent stops waiting for it on that stream. */
#define PROTO_STREAM_REFUSED PROTO_FILTER_ERROR
/* FILTER_ERROR with this tag: not a filter's failure but data a node
 * dropped because it came on a stream the node does not have, or from a
 * child that is not on the stream (the FE raises GROVE_EV_DROPPED). */
#define PROTO_DROPPED_TAG 1

/* WAVE_SHARE (stream, tag in the header): how many DATA packets on that
 * stream that follow form the CP's share of one wave (0: none), and the
 * back-ends missing from that share: quads (rank lo, rank hi,
 * grove_missing_reason, node id), one code per quad (src/tbon/wave.h). */
#define PROTO_WAVE_SHARE "%ud %aud %ad"

/* Re-parenting after a lost CP (docs/recovery.md).
 *
 * LINEAGE, parent -> child, after the child authenticated and whenever
 * the parent's own ancestors change: the network's heartbeat interval
 * and reparent_ms (< 0: no recovery), then per ancestor of the child,
 * from the FE down to the sender: node id, host in the topology, name
 * and TCP port it is reached at from any host, abstract Unix socket name
 * ("" when it has none).  Decoded by lineage_from_packet (lineage.h). */
#define PROTO_LINEAGE "%d %d %aud %as %as %aud %as"
/* WAVE_ACK, parent -> child (stream in the header): held, the child's
 * complete shares on the stream the sender has taken in (counted from
 * the stream's creation); above, the sender's shares its own parent has
 * taken in (UINT64_MAX from the FE).  The child drops the shares it
 * keeps below `above`. */
#define PROTO_WAVE_ACK "%uld %uld"
/* ADOPT, adopted child -> new parent, first after its handshake: its
 * stream ids and, per stream, the number of its next share and how many
 * downstream frames (DATA, SEGMENT) it has had on it. */
#define PROTO_ADOPT "%aud %auld %auld"
/* RESUME, new parent -> adopted child, after the STREAM_NEWs of the
 * streams it lacked: stream ids and, per stream, the number of the first
 * share the parent wants (the child re-sends what it kept from there on
 * and skips shares below it; 0: from its next one).  Streams of the
 * child that are not named are gone. */
#define PROTO_RESUME "%aud %auld"
/* REPARENTED, up from the node that adopted a lost CP's children: the
 * lost CP, its rank range, the new parent, why it was lost, the node ids
 * of its children that moved (the others are reported by NODE_LOST). */
#define PROTO_REPARENTED "%ud %ud %ud %ud %s %aud"

/* SHUTDOWN with tag PROTO_SHUTDOWN_SHIP: the FE collects event spaces;
 * every process not on the FE's host (or every process, ship_all = 1) sends
 * its own as TRACE_DATA before leaving. */
#define PROTO_SHUTDOWN_SHIP 1
#define PROTO_SHUTDOWN "%s %d"
/* TRACE_REQ (tag = request id, > 0), FE -> all: FE host, ship_all.
 * Every process answers with one TRACE_DATA of the same tag: its event
 * space if it is on another host (or ship_all), else an empty name. */
#define PROTO_TRACE_REQ "%s %d"
/* TRACE_DATA, child -> FE: segment name, snapshot (trace_impl.h). */
#define PROTO_TRACE_DATA "%s %auc"

/* Clock-skew detection (tbon/skew.c, docs/clock-skew.md); tag = request
 * id on all four.  SKEW_REQ, parent -> CP: rounds, time budget (ms). */
#define PROTO_SKEW_REQ "%ud %ud"
/* SKEW_PROBE (aux = round), parent -> child: t1 (parent clock, ns). */
#define PROTO_SKEW_PROBE "%ld"
/* SKEW_REPLY (aux = round), child -> parent: t1 echoed, t2, t3 (child
 * clock, ns). */
#define PROTO_SKEW_REPLY "%ld %ld %ld"
/* SKEW_RESULT, CP -> parent: BE ranks of its subtree, their offsets to
 * the CP's clock (ns), error bounds (ns); unmeasured ranks are absent. */
#define PROTO_SKEW_RESULT "%aud %ald %auld"
/* SEGMENT, parent -> child (header: stream, tag and source of the whole
 * packet): message id (per FE, increasing), offset of these bytes in the
 * whole DATA frame, the frame's total length (padding included), the bytes.
 * See src/tbon/segment.h. */
#define PROTO_SEGMENT "%ud %uld %uld %auc"

/* Event scopes (tbon/node_scope.c, docs/monitoring.md).  SCOPE_PULL
 * (tag = pull id, > 0), parent -> CP: scope id, share kind
 * (monitor/share.h), readers (scope/placement.h), op (-1: any), layer
 * and collector name ("": any), last arrivals only (0/1).  Every CP
 * passes it to its CP children, reads the event spaces that are its to
 * read, and answers once the children did. */
#define PROTO_SCOPE_PULL "%ud %ud %ud %d %s %s %ud"
/* SCOPE_SHARE (tag = the pull's id), CP -> parent: scope id, the share
 * of its subtree (monitor/share.h). */
#define PROTO_SCOPE_SHARE "%ud %auc"
/* SCOPE_END, parent -> CP: scope id; the monitor left, the readers close
 * what they held for it. */
#define PROTO_SCOPE_END "%ud"

/* Ranks that CPs and the FE put in packets they build: never a BE rank. */
#define PROTO_NODE_RANK(node_id) (0x80000000u | (node_id))

#endif

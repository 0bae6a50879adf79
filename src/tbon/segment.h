/* Segmented multicast (internal).
 *
 * A large downstream DATA packet is cut into SEGMENT frames (wire type 50,
 * payload PROTO_SEGMENT in proto.h) that each carry a piece of the whole
 * frame's bytes.  CPs forward every segment to their children on the
 * stream as soon as it arrives (the same buffer to all of them), so a big
 * message moves through the tree as a pipeline instead of being stored
 * and forwarded whole at every level.  Back-ends put the pieces together
 * again and hand the application the very DATA packet the front-end would
 * have sent whole.
 *
 * Segments of one message travel in order on every link (one TCP stream,
 * FIFO forwarding), so a receiver takes them strictly in offset order and
 * rejects anything else as a protocol error.
 */
#ifndef GROVE_SEGMENT_H
#define GROVE_SEGMENT_H

#include <stddef.h>
#include <stdint.h>

#include "codec/wire.h"
#include "core/buf.h"
#include "grove/cluster.h"
#include "grove/logp.h"
#include "grove/packet.h"
#include "grove/topology.h"

/* The segment size used when the caller leaves the choice to Grove and no
 * model of the network says otherwise (see seg_auto_size). */
#define SEG_DEFAULT_SIZE (64u << 10)
/* Smallest segment a caller may ask for: below it the per-segment header
 * (about 80 bytes) would dominate. */
#define SEG_MIN_SIZE 256u
/* Larger pieces would make a SEGMENT frame (the piece and about 80 bytes
 * of header and fields) longer than WIRE_MAX_FRAME. */
#define SEG_MAX_SIZE (WIRE_MAX_FRAME - 256u)
/* What one receiver holds at most while reassembling: messages in
 * progress, and the sum of their total lengths.  Beyond that a sender is
 * broken or hostile and the link is closed. */
#define SEG_MAX_MSGS 64u
#define SEG_MAX_PENDING_BYTES (1ull << 30)

/* The network as the P-LogP model sees it (seg_model.c): its parameters
 * (a private copy), the two-layer system of the paper that its topology
 * and cluster map amount to, that tree's degrees across clusters (d_w)
 * and inside them (d_l), and its depths: the most links across clusters
 * (h_w) and inside one (h_l) on a path from the root. */
typedef struct seg_model {
	grove_logp_params *params;
	grove_logp_system sys;
	uint32_t d_w, d_l;
	uint32_t h_w, h_l;
} seg_model;

/* GROVE_EINVAL / GROVE_ENOENT with err saying why when p does not cover
 * the link classes the network needs. */
int seg_model_new(const grove_logp_params *p, const grove_topo *t,
    const grove_cluster_map *m, seg_model **out, char *err, size_t errlen);
void seg_model_free(seg_model *sm);
/* The segment size the model's search finds best for a frame of
 * frame_len bytes; 0 when sending it whole is best. */
size_t seg_model_size(const seg_model *sm, size_t frame_len);

/* The segment size for a frame of frame_len bytes when the caller chose
 * automatic sizing: the one place where the choice is made.  From the
 * model when the network has one (sm != NULL), else SEG_DEFAULT_SIZE;
 * 0: send it whole. */
size_t seg_auto_size(const seg_model *sm, size_t frame_len);

/* The segment size to use for a frame of frame_len bytes under a stream's
 * setting (0: automatic, SIZE_MAX: never segment, else bytes); 0 when the
 * frame goes whole. */
size_t seg_size_for(size_t setting, const seg_model *sm, size_t frame_len);

/* Cut the frame of p (a DATA packet) into segments of at most seg bytes,
 * in order, each a SEGMENT packet with p's stream, tag and source; emit
 * gets each one lent (it refs what it keeps).  Returns 0 or the first
 * error (of packing or of emit). */
int seg_split(const grove_packet *p, uint32_t msg_id, size_t seg,
    int (*emit)(void *arg, grove_packet *segment), void *arg);

/* One message being put together. */
typedef struct seg_msg {
	uint32_t stream, id;
	int32_t tag;
	uint32_t src;
	uint64_t total, got;
	grove_buf *buf; /* grows with what arrived, up to total */
} seg_msg;

typedef struct seg_reasm {
	seg_msg *msgs;
	size_t n, cap;
	uint64_t pending; /* sum of the totals of the messages in progress */
} seg_reasm;

void seg_reasm_init(seg_reasm *r);
void seg_reasm_fini(seg_reasm *r);

/* Take one SEGMENT packet.  Returns 0 when the message needs more, 1 with
 * *whole set (a new reference to the complete DATA packet) when this was
 * its last piece, or GROVE_EPROTO / GROVE_ENOMEM with the reason in err:
 * a segment that does not decode, does not continue its message, claims
 * an impossible length, exceeds the limits above, or completes a frame
 * that is not a valid DATA frame of the segment's stream and tag.  The
 * message concerned is dropped; the others stay. */
int seg_reasm_push(seg_reasm *r, grove_packet *segment, grove_packet **whole,
    char *err, size_t errlen);

#endif

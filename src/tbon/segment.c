/* Segmented multicast: cutting a DATA frame into segments (see
 * segment.h).  Putting them together again is seg_reasm.c, apart so that
 * a back-end, which only reassembles, does not link the P-LogP model the
 * segment size comes from (and libm with it). */
#include "tbon/segment.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/wire.h"
#include "grove/error.h"
#include "tbon/proto.h"

size_t
seg_auto_size(const seg_model *sm, size_t frame_len)
{
	if (sm)
		return seg_model_size(sm, frame_len);
	/* Without parameters of the links there is nothing to trade off: a
	 * fixed size large enough that the ~80 bytes of a segment's header
	 * are noise and small enough that a tree of a few levels pipelines
	 * well. */
	return frame_len > SEG_DEFAULT_SIZE ? SEG_DEFAULT_SIZE : 0;
}

size_t
seg_size_for(size_t setting, const seg_model *sm, size_t frame_len)
{
	if (setting == SIZE_MAX)
		return 0;
	size_t seg = setting ? setting : seg_auto_size(sm, frame_len);
	if (!seg)
		return 0;
	if (seg < SEG_MIN_SIZE)
		seg = SEG_MIN_SIZE;
	/* A segment is its piece plus a SEGMENT frame's header and fields,
	 * and that frame must not pass the largest one a peer takes. */
	if (seg > SEG_MAX_SIZE)
		seg = SEG_MAX_SIZE;
	return frame_len > seg ? seg : 0;
}

int
seg_split(const grove_packet *p, uint32_t msg_id, size_t seg,
    int (*emit)(void *arg, grove_packet *segment), void *arg)
{
	size_t total;
	const uint8_t *bytes = wire_packet_bytes(p, &total);
	const wire_hdr *h = wire_packet_hdr(p);
	if (!seg || h->type != WIRE_T_DATA)
		return GROVE_EINVAL;
	for (size_t off = 0; off < total; off += seg) {
		size_t len = total - off < seg ? total - off : seg;
		grove_packet *s = NULL;
		int rc = wire_pack(&s, WIRE_T_SEGMENT, h->stream, h->tag, h->src, 0,
		    PROTO_SEGMENT, msg_id, (uint64_t)off, (uint64_t)total,
		    bytes + off, (uint64_t)len);
		if (rc != 0)
			return rc;
		rc = emit(arg, s);
		grove_packet_unref(s);
		if (rc != 0)
			return rc;
	}
	return 0;
}

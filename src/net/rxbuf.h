/* Receive buffering and framing shared by every kind of link (internal).
 *
 * Bytes are read into reference-counted chunks; each complete frame becomes
 * a packet pointing into its chunk, so nothing is copied except a partial
 * frame carried over into the next chunk.  The packet structs themselves
 * are built at the top end of the chunk, growing down towards the bytes
 * read, so a packet costs no allocation of its own: the chunk is freed
 * with the last packet that uses it.
 */
#ifndef GROVE_RXBUF_H
#define GROVE_RXBUF_H

#include <stddef.h>
#include <stdint.h>

#include "codec/wire.h"
#include "core/buf.h"
#include "grove/packet.h"

typedef struct rxbuf {
	grove_buf *buf;
	size_t len;  /* bytes of buf holding data */
	size_t pos;  /* start of the first unparsed frame */
	size_t top;  /* packet structs are in [top, cap); reads stop at top */
	wire_fmt_memo memo; /* the format of the last frame */
} rxbuf;

/* Where the next read may put bytes (at least a few KiB, or a whole large
 * frame).  GROVE_ENOMEM when no chunk could be allocated. */
int rxbuf_space(rxbuf *r, uint8_t **p, size_t *len);
static inline void
rxbuf_commit(rxbuf *r, size_t n)
{
	r->len += n;
}
int rxbuf_next_frame_(rxbuf *r, size_t max_frame, grove_packet **pkt,
    size_t *frame_len);

/* The next complete frame as a packet: returns 1 (and *frame_len), 0 when
 * more bytes are needed, GROVE_EPROTO for bytes that cannot be a frame or a
 * frame larger than max_frame.  Inline: every parse loop ends with a call
 * that finds nothing buffered. */
static inline int
rxbuf_next(rxbuf *r, size_t max_frame, grove_packet **pkt, size_t *frame_len)
{
	if (!r->buf || r->pos == r->len)
		return 0;
	return rxbuf_next_frame_(r, max_frame, pkt, frame_len);
}
void rxbuf_fini(rxbuf *r);

#endif

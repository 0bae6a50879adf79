#include "net/rxbuf.h"

#include <string.h>

#include "codec/wire.h"
#include "grove/error.h"

/* Big enough that one read() picks up many small frames, small enough that
 * a packet kept by the application pins little memory. */
#define CHUNK_SIZE (64u << 10)
#define CHUNK_MIN_FREE (4u << 10)

int
rxbuf_space(rxbuf *r, uint8_t **p, size_t *len)
{
	if (!r->buf || r->buf->cap - r->len < CHUNK_MIN_FREE) {
		/* Start a new chunk, carrying over the partial frame at the
		 * tail; if that frame is large, size the chunk to hold it. */
		size_t tail = r->buf ? r->len - r->pos : 0;
		size_t want = CHUNK_SIZE;
		if (tail >= WIRE_HDR_SIZE) {
			wire_hdr hdr;
			size_t need = 0;
			if (wire_peek(r->buf->data + r->pos, tail, &hdr, &need) == 0 &&
			    need > want)
				want = need + CHUNK_MIN_FREE;
		}
		grove_buf *nb = grove_buf_new(want);
		if (!nb)
			return GROVE_ENOMEM;
		if (tail)
			memcpy(nb->data, r->buf->data + r->pos, tail);
		grove_buf_unref(r->buf);
		r->buf = nb;
		r->len = tail;
		r->pos = 0;
	}
	*p = r->buf->data + r->len;
	*len = r->buf->cap - r->len;
	return 0;
}

int
rxbuf_next(rxbuf *r, size_t max_frame, grove_packet **pkt, size_t *frame_len)
{
	if (!r->buf)
		return 0;
	const uint8_t *p = r->buf->data + r->pos;
	size_t avail = r->len - r->pos;
	wire_hdr hdr;
	size_t need = 0;
	long n = wire_peek(p, avail, &hdr, &need);
	if (n < 0 || (n == 0 && need > max_frame) || (size_t)n > max_frame)
		return GROVE_EPROTO;
	if (n == 0 || (size_t)n > avail)
		return 0;
	int rc = wire_packet_from_frame(r->buf, p, (size_t)n, pkt);
	r->pos += (size_t)n;
	if (rc != 0)
		return GROVE_EPROTO;
	*frame_len = (size_t)n;
	return 1;
}

void
rxbuf_fini(rxbuf *r)
{
	grove_buf_unref(r->buf);
	r->buf = NULL;
	r->len = r->pos = 0;
}

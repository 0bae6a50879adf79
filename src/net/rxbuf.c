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
	if (!r->buf || r->top - r->len < CHUNK_MIN_FREE) {
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
		grove_buf *nb = buf_new(want);
		if (!nb)
			return GROVE_ENOMEM;
		if (tail)
			memcpy(nb->data, r->buf->data + r->pos, tail);
		buf_unref(r->buf);
		r->buf = nb;
		r->len = tail;
		r->pos = 0;
		r->top = want & ~(size_t)7u;
	}
	*p = r->buf->data + r->len;
	*len = r->top - r->len;
	return 0;
}

/* Room for a packet struct of mem bytes at the top of the chunk, below
 * the structs already there and above the bytes read; NULL when the chunk
 * is too full (the packet is then allocated on its own). */
static void *
carve(rxbuf *r, size_t mem)
{
	if (r->top - r->len < mem)
		return NULL;
	r->top -= mem;
	return r->buf->data + r->top;
}

int
rxbuf_next_frame_(rxbuf *r, size_t max_frame, grove_packet **pkt,
    size_t *frame_len)
{
	const uint8_t *p = r->buf->data + r->pos;
	size_t avail = r->len - r->pos;
	wire_hdr hdr;
	size_t need = 0;
	long n = wire_peek(p, avail, &hdr, &need);
	if (n < 0 || (n == 0 && need > max_frame) || (size_t)n > max_frame)
		return GROVE_EPROTO;
	if (n == 0 || (size_t)n > avail)
		return 0;
	*pkt = NULL;
	size_t mem = wire_packet_mem(p, &hdr);
	void *at = carve(r, mem);
	int rc = wire_packet_wrap(r->buf, p, (size_t)n, &hdr, &r->memo, at, pkt);
	if (rc != 0 && at)
		r->top += mem; /* nobody holds it: the next packet may */
	r->pos += (size_t)n;
	if (rc != 0)
		return GROVE_EPROTO;
	*frame_len = (size_t)n;
	return 1;
}

void
rxbuf_fini(rxbuf *r)
{
	buf_unref(r->buf);
	r->buf = NULL;
	r->len = r->pos = r->top = 0;
	r->memo.valid = 0;
}

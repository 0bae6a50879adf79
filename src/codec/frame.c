/* Finding frames in a byte stream and wrapping them as packets. */
#include "codec/codec_impl.h"

#include <string.h>

#include "codec/codec_endian.h"
#include "core/log.h"

long
wire_peek(const uint8_t *p, size_t avail, wire_hdr *hdr, size_t *need)
{
	wire_hdr h = {0};

	/* Reject garbage as soon as the bytes that show it have arrived, so
	 * a bad peer is dropped without waiting for a full header. */
	if (avail >= 4) {
		h.len = codec_ld32(p);
		if (h.len < WIRE_HDR_SIZE || h.len > WIRE_MAX_FRAME) {
			log_debug("frame: bad length %u", (unsigned)h.len);
			return GROVE_EPROTO;
		}
	}
	if (avail >= 6) {
		h.type = codec_ld16(p + 4);
		if (h.type == 0 || h.type >= WIRE_T_MAX_) {
			log_debug("frame: bad type %u", (unsigned)h.type);
			return GROVE_EPROTO;
		}
	}
	if (avail >= 8) {
		h.fmt_len = codec_ld16(p + 6);
		if (h.fmt_len > WIRE_MAX_FMT ||
		    wire_pad8(h.fmt_len) > h.len - WIRE_HDR_SIZE) {
			log_debug("frame: bad format length %u (frame %u)",
			    (unsigned)h.fmt_len, (unsigned)h.len);
			return GROVE_EPROTO;
		}
	}
	if (avail < WIRE_HDR_SIZE) {
		if (need)
			*need = WIRE_HDR_SIZE;
		return 0;
	}
	h.stream = codec_ld32(p + 8);
	h.tag = (int32_t)codec_ld32(p + 12);
	h.src = codec_ld32(p + 16);
	h.aux = codec_ld32(p + 20);
	if (hdr)
		*hdr = h;
	size_t total = wire_pad8(h.len);
	if (avail < total) {
		if (need)
			*need = total;
		return 0;
	}
	return (long)total;
}

int
wire_packet_wrap(grove_buf *buf, const uint8_t *frame, size_t n,
    const wire_hdr *hdr, wire_fmt_memo *memo, void *mem, grove_packet **out)
{
	grove_buf_ref(buf);
	/* The frame sits in a buffer we hold a reference on; writing through
	 * it is only done by wire_packet_set_src on a sole owner. */
	int rc = codec_packet_wrap(buf, (uint8_t *)frame, n, hdr, memo, mem,
	    out);
	if (rc < 0)
		buf_unref(buf);
	return rc;
}

int
wire_packet_from_frame(grove_buf *buf, const uint8_t *frame, size_t len,
    grove_packet **out)
{
	wire_hdr h;
	size_t need;

	*out = NULL;
	if (!buf || !frame || frame < buf->data ||
	    len > buf->cap - (size_t)(frame - buf->data))
		return GROVE_EINVAL;
	long n = wire_peek(frame, len, &h, &need);
	if (n < 0)
		return (int)n;
	if (n == 0)
		return GROVE_EPROTO; /* truncated frame */
	return wire_packet_wrap(buf, frame, (size_t)n, &h, NULL, NULL, out);
}

int
wire_packet_from_bytes(const void *bytes, size_t len, grove_packet **out)
{
	wire_hdr h;
	size_t need;

	*out = NULL;
	if (!bytes)
		return GROVE_EINVAL;
	long n = wire_peek(bytes, len, &h, &need);
	if (n < 0)
		return (int)n;
	/* Accept the frame with or without its trailing padding. */
	if (n == 0 && (len < WIRE_HDR_SIZE || len < h.len))
		return GROVE_EPROTO;
	size_t total = wire_pad8(h.len);
	if (len > total)
		return GROVE_EPROTO; /* trailing bytes after the frame */
	grove_buf *buf = buf_new(total);
	if (!buf)
		return GROVE_ENOMEM;
	memcpy(buf->data, bytes, len);
	memset(buf->data + len, 0, total - len);
	int rc = codec_packet_wrap(buf, buf->data, total, &h, NULL, NULL,
	    out);
	if (rc < 0)
		buf_unref(buf);
	return rc;
}

/* Building packets: one sizing pass, one allocation, one writing pass. */
#include "codec/codec_impl.h"

#include <inttypes.h>
#include <stdalign.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/codec_endian.h"
#include "codec/codec_err.h"
#include "core/log.h"

/* Formats up to this many items are packed without a temporary array. */
#define ENC_STACK_ITEMS 16

static size_t
align_to(size_t o, size_t a)
{
	return (o + a - 1) & ~(a - 1);
}

static int
type_ok(grove_type t)
{
	return t >= GROVE_T_INT8 && t <= GROVE_T_STRING;
}

/* The last error for item i (0-based) of a packet being built: "pack
 * "%d %s": item 2 (string (%s)): ...".  fmt: the canonical format, or
 * NULL when the items are all there is. */
static int enc_fail(int code, const char *fmt, const grove_item *it, int i,
    const char *what, ...) __attribute__((format(printf, 5, 6)));

static int
enc_fail(int code, const char *fmt, const grove_item *it, int i,
    const char *what, ...)
{
	char q[96] = "", d[48], w[160];
	if (fmt)
		codec_quote(q, sizeof q, fmt, strlen(fmt), '"');
	codec_describe(d, sizeof d, it->type, it->is_array);
	va_list ap;
	va_start(ap, what);
	vsnprintf(w, sizeof w, what, ap);
	va_end(ap);
	return codec_fail(code, "pack%s%s: item %d (%s): %s", fmt ? " " : "",
	    q, i + 1, d, w);
}

/* Bytes of the payload for items, or a negative error (with the last
 * error saying which item). */
static int
enc_size(const char *fmt, const grove_item *items, int n, size_t *out)
{
	size_t o = 0;

	for (int i = 0; i < n; i++) {
		const grove_item *it = &items[i];
		if (!type_ok(it->type))
			return codec_fail(GROVE_EINVAL, "pack: item %d: %d is "
			    "not a grove_type", i + 1, (int)it->type);
		size_t s = grove_type_size(it->type);
		if (!it->is_array) {
			if (!it->data)
				return enc_fail(GROVE_EINVAL, fmt, it, i, "%s",
				    it->type == GROVE_T_STRING ?
				    "the string is NULL" : "no value (NULL)");
			if (it->type == GROVE_T_STRING)
				o = align_to(o, 4) + 4 + strlen(it->data) + 1;
			else
				o = align_to(o, s) + s;
		} else {
			if (it->count && !it->data)
				return enc_fail(GROVE_EINVAL, fmt, it, i,
				    "the array is NULL but its count is %"
				    PRIu64, it->count);
			o = wire_pad8(o) + 8;
			/* Before the count check below: it divides by what
			 * is left of the frame, which must not be negative. */
			if (o > WIRE_MAX_FRAME)
				goto big;
			if (it->type == GROVE_T_STRING) {
				const char *const *v = it->data;
				for (uint64_t j = 0; j < it->count; j++) {
					if (!v[j])
						return enc_fail(GROVE_EINVAL,
						    fmt, it, i, "string %" PRIu64
						    " of the array is NULL", j);
					o = align_to(o, 4) + 4 + strlen(v[j]) + 1;
					if (o > WIRE_MAX_FRAME)
						goto big;
				}
			} else {
				if (it->count > (WIRE_MAX_FRAME - o) / s)
					return enc_fail(GROVE_ERANGE, fmt, it,
					    i, "%" PRIu64 " elements do not "
					    "fit in a packet (1 GiB at most; "
					    "a count near 2^64 is a negative "
					    "int converted)", it->count);
				o += (size_t)it->count * s;
			}
		}
		if (o > WIRE_MAX_FRAME)
			goto big;
		continue;
big:
		return enc_fail(GROVE_ERANGE, fmt, it, i, "the packet would "
		    "exceed the 1 GiB frame limit here");
	}
	*out = o;
	return 0;
}

/* Zero the alignment gap [o, a) and return a. */
static size_t
enc_gap(uint8_t *P, size_t o, size_t a)
{
	if (a > o)
		memset(P + o, 0, a - o);
	return a;
}

static size_t
enc_string(uint8_t *P, size_t o, const char *s)
{
	size_t len = strlen(s);
	o = enc_gap(P, o, align_to(o, 4));
	codec_st32(P + o, (uint32_t)len);
	memcpy(P + o + 4, s, len + 1);
	return o + 4 + len + 1;
}

static size_t
enc_scalar(uint8_t *P, size_t o, const void *v, size_t s)
{
	uint16_t v16;
	uint32_t v32;
	uint64_t v64;

	o = enc_gap(P, o, align_to(o, s));
	switch (s) {
	case 1:
		P[o] = *(const uint8_t *)v;
		break;
	case 2:
		memcpy(&v16, v, 2);
		codec_st16(P + o, v16);
		break;
	case 4:
		memcpy(&v32, v, 4);
		codec_st32(P + o, v32);
		break;
	default:
		memcpy(&v64, v, 8);
		codec_st64(P + o, v64);
		break;
	}
	return o + s;
}

/* Write the payload; sizes were checked by enc_size. */
static size_t
enc_payload(uint8_t *P, const grove_item *items, int n)
{
	size_t o = 0;

	for (int i = 0; i < n; i++) {
		const grove_item *it = &items[i];
		size_t s = codec_type_size(it->type);
		if (!it->is_array) {
			if (it->type == GROVE_T_STRING)
				o = enc_string(P, o, it->data);
			else
				o = enc_scalar(P, o, it->data, s);
			continue;
		}
		o = enc_gap(P, o, wire_pad8(o));
		codec_st64(P + o, it->count);
		o += 8;
		if (it->type == GROVE_T_STRING) {
			const char *const *v = it->data;
			for (uint64_t j = 0; j < it->count; j++)
				o = enc_string(P, o, v[j]);
		} else if (it->count) {
			codec_copy_elems(P + o, it->data, it->count, s);
			o += (size_t)it->count * s;
		}
	}
	return o;
}

static void
enc_header(uint8_t *f, const wire_hdr *h)
{
	codec_st32(f, h->len);
	codec_st16(f + 4, h->type);
	codec_st16(f + 6, h->fmt_len);
	codec_st32(f + 8, h->stream);
	codec_st32(f + 12, (uint32_t)h->tag);
	codec_st32(f + 16, h->src);
	codec_st32(f + 20, h->aux);
}

/* One allocation holds a frame of total bytes, then the packet struct,
 * then, when extra > 0, a copy of the format (extra: its length + 1,
 * for a frame with no NUL after the format).  The packet owns a
 * reference to the buffer like any received packet; freeing the buffer
 * frees the struct too.  NULL when out of memory. */
static grove_buf *
frame_buf_new(size_t total, size_t extra, grove_packet **pkt)
{
	size_t poff = align_to(total, alignof(grove_packet));
	grove_buf *buf = buf_new(poff + sizeof(grove_packet) + extra);
	if (buf)
		*pkt = (grove_packet *)(buf->data + poff);
	return buf;
}

/* Sets up the packet of a frame_buf_new buffer whose frame is written:
 * its format is read in the frame, or copied after the struct when
 * fmt_copy (the frame has no NUL after it). */
static void
frame_packet_init(grove_packet *p, grove_buf *buf, size_t total,
    const wire_hdr *h, const char *fmt, size_t fmt_len, int fmt_copy,
    int nitems, const uint8_t *kinds)
{
	const char *cfmt = (const char *)buf->data + WIRE_HDR_SIZE;
	if (fmt_copy) {
		memcpy(p->fmt_copy, fmt, fmt_len);
		p->fmt_copy[fmt_len] = '\0';
		cfmt = p->fmt_copy;
	}
	codec_packet_init(p, buf, buf->data, total, h, nitems, kinds, cfmt, 1);
}

int
codec_encode(grove_packet **out, const wire_hdr *hdr_in, const char *fmt,
    size_t fmt_len, const grove_item *items, int nitems)
{
	size_t plen = 0;
	int rc = enc_size(fmt, items, nitems, &plen);
	if (rc < 0)
		return rc;
	size_t fpad = wire_pad8(fmt_len);
	if (plen > WIRE_MAX_FRAME - WIRE_HDR_SIZE - fpad)
		return codec_fail(GROVE_ERANGE, "pack: %zu bytes of items "
		    "exceed the 1 GiB frame limit", plen);
	size_t len = WIRE_HDR_SIZE + fpad + plen;
	size_t total = wire_pad8(len);

	size_t extra = fmt_len % 8 == 0 ? fmt_len + 1 : 0;
	grove_packet *p;
	grove_buf *buf = frame_buf_new(total, extra, &p);
	if (!buf)
		return codec_fail(GROVE_ENOMEM, "pack: no memory for a %zu-byte "
		    "packet", total);

	wire_hdr h = *hdr_in;
	h.len = (uint32_t)len;
	h.fmt_len = (uint16_t)fmt_len;
	uint8_t *f = buf->data;
	enc_header(f, &h);
	memcpy(f + WIRE_HDR_SIZE, fmt, fmt_len);
	memset(f + WIRE_HDR_SIZE + fmt_len, 0, fpad - fmt_len);
	uint8_t *P = f + WIRE_HDR_SIZE + fpad;
	size_t end = enc_payload(P, items, nitems);
	memset(P + end, 0, total - (WIRE_HDR_SIZE + fpad + end));

	uint8_t kinds[CODEC_INLINE_ITEMS] = {0};
	for (int i = 0; i < nitems && i < CODEC_INLINE_ITEMS; i++)
		kinds[i] = codec_kind(items[i].type, items[i].is_array);
	frame_packet_init(p, buf, total, &h, fmt, fmt_len, extra != 0, nitems,
	    kinds);
	*out = p;
	return 0;
}

/* Values of scalar arguments, converted from their promoted vararg types
 * to the item's width so items can point at them. */
union enc_val {
	int8_t i8;
	uint8_t u8;
	int16_t i16;
	uint16_t u16;
	int32_t i32;
	uint32_t u32;
	int64_t i64;
	uint64_t u64;
	float f;
	double d;
};

static int
enc_args(const wire_fmt_item *f, int n, grove_item *items,
    union enc_val *vals, va_list ap)
{
	for (int i = 0; i < n; i++) {
		grove_item *it = &items[i];
		it->type = f[i].type;
		it->is_array = f[i].is_array;
		it->count = 1;
		if (f[i].is_array) {
			it->data = va_arg(ap, const void *);
			it->count = va_arg(ap, uint64_t);
			continue;
		}
		it->data = &vals[i];
		switch (f[i].type) {
		case GROVE_T_INT8:
			vals[i].i8 = (int8_t)va_arg(ap, int);
			break;
		case GROVE_T_UINT8:
			vals[i].u8 = (uint8_t)va_arg(ap, unsigned);
			break;
		case GROVE_T_INT16:
			vals[i].i16 = (int16_t)va_arg(ap, int);
			break;
		case GROVE_T_UINT16:
			vals[i].u16 = (uint16_t)va_arg(ap, unsigned);
			break;
		case GROVE_T_INT32:
			vals[i].i32 = va_arg(ap, int32_t);
			break;
		case GROVE_T_UINT32:
			vals[i].u32 = va_arg(ap, uint32_t);
			break;
		case GROVE_T_INT64:
			vals[i].i64 = va_arg(ap, int64_t);
			break;
		case GROVE_T_UINT64:
			vals[i].u64 = va_arg(ap, uint64_t);
			break;
		case GROVE_T_FLOAT:
			vals[i].f = (float)va_arg(ap, double);
			break;
		case GROVE_T_DOUBLE:
			vals[i].d = va_arg(ap, double);
			break;
		case GROVE_T_STRING:
			it->data = va_arg(ap, const char *);
			break; /* NULL: refused by enc_size, with the item */
		}
	}
	return 0;
}

int
wire_vpack(grove_packet **out, uint16_t type, uint32_t stream, int32_t tag,
    uint32_t src, uint32_t aux, const char *fmt, va_list ap)
{
	wire_fmt_item fs[ENC_STACK_ITEMS];
	grove_item is[ENC_STACK_ITEMS];
	union enc_val vs[ENC_STACK_ITEMS];
	char canon[WIRE_MAX_FMT + 1];
	wire_fmt_item *f = fs;
	grove_item *items = is;
	union enc_val *vals = vs;
	void *heap = NULL;

	if (!out)
		return codec_fail(GROVE_EINVAL, "pack: out is NULL");
	*out = NULL;
	if (type == 0 || type >= WIRE_T_MAX_)
		return codec_fail(GROVE_EINVAL, "pack: bad frame type %u",
		    (unsigned)type);
	if (!fmt)
		return codec_fail(GROVE_EFORMAT, "pack: the format is NULL");
	size_t flen = strlen(fmt);
	int n = codec_fmt_parse_n(fmt, flen, 0, fs, ENC_STACK_ITEMS, canon,
	    sizeof canon);
	if (n < 0)
		return n;
	if (n > ENC_STACK_ITEMS) {
		heap = malloc((size_t)n * (sizeof *f + sizeof *items +
		    sizeof *vals));
		if (!heap)
			return codec_fail(GROVE_ENOMEM, "pack: no memory for "
			    "%d items", n);
		vals = heap;
		items = (grove_item *)(vals + n);
		f = (wire_fmt_item *)(items + n);
		codec_fmt_parse_n(fmt, flen, 0, f, n, NULL, 0);
	}
	int rc = enc_args(f, n, items, vals, ap);
	if (rc == 0) {
		wire_hdr h = {.type = type, .stream = stream, .tag = tag,
		    .src = src, .aux = aux};
		rc = codec_encode(out, &h, canon, strlen(canon), items, n);
	}
	free(heap);
	return rc;
}

int
wire_pack(grove_packet **out, uint16_t type, uint32_t stream, int32_t tag,
    uint32_t src, uint32_t aux, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = wire_vpack(out, type, stream, tag, src, aux, fmt, ap);
	va_end(ap);
	return rc;
}

int
grove_packet_vpack(grove_packet **out, uint32_t stream_id, int32_t tag,
    const char *fmt, va_list ap)
{
	int rc = wire_vpack(out, WIRE_T_DATA, stream_id, tag, 0, 0, fmt, ap);
	if (rc == 0)
		(*out)->src_unset = 1; /* the first send stamps its sender */
	return rc;
}

int
grove_packet_pack(grove_packet **out, uint32_t stream_id, int32_t tag,
    const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = grove_packet_vpack(out, stream_id, tag, fmt, ap);
	va_end(ap);
	return rc;
}

int
wire_pack_items(grove_packet **out, uint16_t type, uint32_t stream,
    int32_t tag, uint32_t src, const grove_item *items, int nitems)
{
	char canon[WIRE_MAX_FMT + 1];
	size_t clen = 0;

	if (!out)
		return codec_fail(GROVE_EINVAL, "pack: out is NULL");
	*out = NULL;
	if (type == 0 || type >= WIRE_T_MAX_ || nitems < 0 ||
	    (nitems > 0 && !items))
		return codec_fail(GROVE_EINVAL, "pack: bad frame type %u or "
		    "item list (%d items at %p)", (unsigned)type, nitems,
		    (const void *)items);
	for (int i = 0; i < nitems; i++) {
		const char *name = codec_type_name(items[i].type);
		if (!name)
			return codec_fail(GROVE_EINVAL, "pack: item %d: %d is "
			    "not a grove_type", i + 1, (int)items[i].type);
		size_t nl = strlen(name);
		size_t need = clen + (i ? 1 : 0) + 1 + (items[i].is_array != 0) +
		    nl;
		if (need > WIRE_MAX_FMT)
			return codec_fail(GROVE_EFORMAT, "pack: %d items make a "
			    "format longer than %u bytes (at item %d)", nitems,
			    WIRE_MAX_FMT, i + 1);
		if (i)
			canon[clen++] = ' ';
		canon[clen++] = '%';
		if (items[i].is_array)
			canon[clen++] = 'a';
		memcpy(canon + clen, name, nl);
		clen += nl;
	}
	canon[clen] = '\0';
	wire_hdr h = {.type = type, .stream = stream, .tag = tag, .src = src};
	return codec_encode(out, &h, canon, clen, items, nitems);
}

/* p's frame under the header h: the bytes after the header are copied as
 * they are (p's items decoded from them, so they are valid).  Same layout
 * as codec_encode's; the padding after the format holds its NUL only if
 * it did in p. */
static int
enc_reframe(grove_packet **out, const grove_packet *p, const wire_hdr *hdr)
{
	size_t fmt_len = p->hdr.fmt_len;
	size_t len = p->hdr.len;
	size_t total = p->wire_len;
	size_t extra = codec_fmt_needs_copy(p->frame, fmt_len) ? fmt_len + 1 :
	    0;
	grove_packet *q;
	grove_buf *buf = frame_buf_new(total, extra, &q);
	if (!buf)
		return GROVE_ENOMEM;

	wire_hdr h = *hdr;
	h.len = (uint32_t)len;
	h.fmt_len = (uint16_t)fmt_len;
	uint8_t *f = buf->data;
	memcpy(f + WIRE_HDR_SIZE, p->frame + WIRE_HDR_SIZE,
	    total - WIRE_HDR_SIZE);
	enc_header(f, &h);

	frame_packet_init(q, buf, total, &h, p->fmt, fmt_len, extra != 0,
	    p->nitems, p->kinds);
	*out = q;
	return 0;
}

int
wire_repack(grove_packet **out, grove_packet *p, uint16_t type,
    uint32_t stream, int32_t tag, uint32_t src)
{
	const wire_hdr *h = &p->hdr;
	if (h->type == type && h->stream == stream && h->tag == tag &&
	    h->src == src) {
		*out = grove_packet_ref(p);
		return 0;
	}
	/* A payload that does not decode is refused, as re-encoding its
	 * items would refuse it; one that does decode is what re-encoding
	 * would write, but for the contents of alignment padding, which no
	 * decoder reads.  So it is copied instead. */
	int n = p->nitems;
	if (n > 0) {
		const codec_table *t;
		int rc = codec_table_get(p, &t);
		if (rc < 0)
			return rc;
	}
	wire_hdr nh = {.type = type, .stream = stream, .tag = tag, .src = src};
	return n > 0 ? enc_reframe(out, p, &nh) :
	    wire_pack_items(out, type, stream, tag, src, NULL, 0);
}

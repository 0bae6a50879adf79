/* The packet object: wrapping frames, reference counts, accessors. */
#include "codec/codec_impl.h"

#include <stdlib.h>
#include <string.h>

#include "codec/codec_endian.h"
#include "core/log.h"

/* Is the format of fmt_len bytes at fmt the one memo holds? */
static int
memo_hit(const wire_fmt_memo *memo, const char *fmt, size_t fmt_len)
{
	return memo && memo->valid && memo->len == fmt_len &&
	    memcmp(memo->fmt, fmt, fmt_len) == 0;
}

static void
memo_store(wire_fmt_memo *memo, const char *fmt, size_t fmt_len, int n,
    const uint8_t *kinds)
{
	if (!memo || fmt_len > WIRE_MEMO_FMT || n > WIRE_MEMO_ITEMS)
		return;
	memcpy(memo->fmt, fmt, fmt_len);
	memcpy(memo->kinds, kinds, sizeof memo->kinds);
	memo->len = (uint16_t)fmt_len;
	memo->nitems = (uint8_t)n;
	memo->valid = 1;
}

int
codec_packet_wrap(grove_buf *buf, uint8_t *frame, size_t wire_len,
    const wire_hdr *hdr, wire_fmt_memo *memo, void *mem, grove_packet **out)
{
	const char *fmt = (const char *)frame + WIRE_HDR_SIZE;
	uint8_t kinds[CODEC_INLINE_ITEMS] = {0};
	int n;
	if (memo_hit(memo, fmt, hdr->fmt_len)) {
		n = memo->nitems;
		memcpy(kinds, memo->kinds, sizeof kinds);
	} else {
		n = codec_fmt_kinds(fmt, hdr->fmt_len, kinds);
		if (n < 0) {
			log_debug("frame: type %u: format is not canonical",
			    (unsigned)hdr->type);
			return GROVE_EFORMAT;
		}
		memo_store(memo, fmt, hdr->fmt_len, n, kinds);
	}
	/* The format is used as a C string; most frames have a NUL in its
	 * padding, the rest get a copy at the end of the struct. */
	size_t extra = codec_fmt_needs_copy(frame, hdr->fmt_len) ?
	    (size_t)hdr->fmt_len + 1 : 0;
	grove_packet *p = mem ? mem : malloc(sizeof *p + extra);
	if (!p)
		return GROVE_ENOMEM;
	if (extra) {
		memcpy(p->fmt_copy, fmt, hdr->fmt_len);
		p->fmt_copy[hdr->fmt_len] = '\0';
		fmt = p->fmt_copy;
	}
	codec_packet_init(p, buf, frame, wire_len, hdr, n, kinds, fmt, mem != NULL);
	*out = p;
	return 0;
}

_Static_assert(_Alignof(grove_packet) <= 8,
    "wire_packet_mem promises 8-aligned memory is enough");

size_t
wire_packet_mem(const uint8_t *frame, const wire_hdr *hdr)
{
	size_t extra = codec_fmt_needs_copy(frame, hdr->fmt_len) ?
	    (size_t)hdr->fmt_len + 1 : 0;
	return wire_pad8(sizeof(grove_packet) + extra);
}

int
wire_packet_same_format(const grove_packet *a, const grove_packet *b)
{
	if (a->fmt == b->fmt)
		return 1;
	if (a->nitems != b->nitems)
		return 0;
	/* Canonical formats are equal exactly when their items are. */
	if (a->nitems <= CODEC_INLINE_ITEMS)
		return memcmp(a->kinds, b->kinds, sizeof a->kinds) == 0;
	return strcmp(a->fmt, b->fmt) == 0;
}

grove_packet *
grove_packet_ref(grove_packet *p)
{
	if (p)
		atomic_fetch_add_explicit(&p->refs, 1, memory_order_relaxed);
	return p;
}

void
grove_packet_unref(grove_packet *p)
{
	if (!p || atomic_fetch_sub_explicit(&p->refs, 1,
	    memory_order_acq_rel) != 1)
		return;
	codec_table *t = atomic_load_explicit(&p->table, memory_order_acquire);
	if (t && (t != &p->inline_tab || t->scratch))
		codec_table_free(p, t);
	if (p->note_free)
		p->note_free(p->note);
	if (p->in_buf) {
		/* The struct lives in the buffer: this may free it. */
		buf_unref(p->buf);
	} else {
		buf_unref(p->buf);
		free(p);
	}
}

const char *
grove_packet_format(const grove_packet *p)
{
	return p ? p->fmt : "";
}

uint32_t
grove_packet_stream(const grove_packet *p)
{
	return p ? p->hdr.stream : 0;
}

int32_t
grove_packet_tag(const grove_packet *p)
{
	return p ? p->hdr.tag : 0;
}

uint32_t
grove_packet_src(const grove_packet *p)
{
	return p ? p->hdr.src : 0;
}

size_t
grove_packet_size(const grove_packet *p)
{
	return p ? p->wire_len : 0;
}

int
grove_packet_nitems(const grove_packet *p)
{
	return p ? p->nitems : GROVE_EINVAL;
}

const wire_hdr *
wire_packet_hdr(const grove_packet *p)
{
	return &p->hdr;
}

const uint8_t *
wire_packet_bytes(const grove_packet *p, size_t *len)
{
	if (len)
		*len = p->wire_len;
	return p->frame;
}

int
wire_packet_src_unset(const grove_packet *p)
{
	return p->src_unset;
}

void
wire_packet_set_note(grove_packet *p, void *note, void (*note_free)(void *))
{
	if (p->note_free)
		p->note_free(p->note);
	p->note = note;
	p->note_free = note_free;
}

void *
wire_packet_note(const grove_packet *p, void (*note_free)(void *))
{
	return p && p->note_free == note_free ? p->note : NULL;
}

int
wire_packet_set_src(grove_packet *p, uint32_t src)
{
	/* Anyone else holding the packet may be reading or sending the
	 * bytes; only a sole owner may change them. */
	if (atomic_load_explicit(&p->refs, memory_order_acquire) != 1)
		return GROVE_EINVAL;
	p->hdr.src = src;
	codec_st32(p->frame + 16, src);
	return 0;
}

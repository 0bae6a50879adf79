/* Packet codec internals shared by the codec's source files.
 *
 * A packet is a view of one frame inside a reference-counted grove_buf.
 * The header is decoded and checked when the packet is made; the payload
 * is decoded into an item table the first time someone looks at an item.
 */
#ifndef CODEC_IMPL_H
#define CODEC_IMPL_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "codec/wire.h"

/* Items decoded into the packet itself; larger tables are allocated.  Eight
 * covers every control message and typical tool data without a malloc. */
#define CODEC_INLINE_ITEMS 8
_Static_assert(CODEC_INLINE_ITEMS == WIRE_MEMO_ITEMS,
    "a format memo holds the kinds a packet keeps");

/* An item's kind in one byte: its grove_type, CODEC_KIND_ARRAY for arrays.
 * A packet keeps the kinds of a short format so that decoding it does not
 * parse the format a second time. */
#define CODEC_KIND_ARRAY 0x80u

/* grove_type_size for a type known to be valid, inline for the decoder's
 * and encoder's loops. */
static inline size_t
codec_type_size(grove_type t)
{
	static const uint8_t size[GROVE_T_STRING + 1] = {
		[GROVE_T_INT8] = 1, [GROVE_T_UINT8] = 1,
		[GROVE_T_INT16] = 2, [GROVE_T_UINT16] = 2,
		[GROVE_T_INT32] = 4, [GROVE_T_UINT32] = 4, [GROVE_T_FLOAT] = 4,
		[GROVE_T_INT64] = 8, [GROVE_T_UINT64] = 8, [GROVE_T_DOUBLE] = 8,
	};
	return size[t];
}

static inline uint8_t
codec_kind(grove_type t, int is_array)
{
	return (uint8_t)((unsigned)t | (is_array ? CODEC_KIND_ARRAY : 0u));
}

/* The decoded payload.  Data pointers point into the frame, or into
 * scratch when the frame bytes cannot be used as they are (misaligned, or
 * a big-endian host, or the pointer array of a %as). */
typedef struct codec_table {
	grove_item *items;
	void *scratch;
	int n;
} codec_table;

struct grove_packet {
	atomic_uint refs;
	int nitems;          /* from the format, known at wrap time */
	wire_hdr hdr;
	grove_buf *buf;      /* holds the frame; one reference is ours */
	uint8_t *frame;      /* first byte of the frame inside buf */
	size_t wire_len;     /* frame bytes including trailing padding */
	const char *fmt;     /* canonical format, NUL-terminated */
	int in_buf;          /* this struct lives inside buf's allocation */
	int src_unset;       /* built by grove_packet_pack: no sender yet */
	/* What a higher layer attached (the front-end's wave account,
	 * src/tbon/wave.h), released with the packet; NULL: nothing. */
	void *note;
	void (*note_free)(void *);
	/* The items' kinds when nitems <= CODEC_INLINE_ITEMS (else unused:
	 * the decoder parses fmt). */
	uint8_t kinds[CODEC_INLINE_ITEMS];

	/* Lazily decoded payload.  Published once with a compare-exchange so
	 * that concurrent first decodes on two threads are safe; the loser
	 * frees its private copy.  decode_err caches a failed validation. */
	_Atomic(codec_table *) table;
	atomic_int decode_err;
	atomic_flag inline_claim; /* who may build into inline_tab */
	codec_table inline_tab;
	grove_item inline_items[CODEC_INLINE_ITEMS];

	char fmt_copy[]; /* the format when the frame has no NUL after it */
};

/* Format parsing.  Parses n bytes at s.  strict: only the canonical form
 * is accepted (single spaces, no leading/trailing space) and nothing is
 * written to canon.  Fills at most max_items items (items may be NULL) and
 * returns the total number of items, or GROVE_EFORMAT.  canon (if not
 * NULL) gets the NUL-terminated canonical form; canon_cap must hold it. */
int codec_fmt_parse_n(const char *s, size_t n, int strict,
    wire_fmt_item *items, int max_items, char *canon, size_t canon_cap);

/* Iterate over the conversions of a format already known to be valid:
 * returns 1 and the next item, 0 at the end, GROVE_EFORMAT on garbage. */
int codec_fmt_next(const char *fmt, size_t n, size_t *pos, wire_fmt_item *it);

/* The conversion name of a type without '%' and 'a' ("uhd", "lf"...). */
const char *codec_type_name(grove_type t);

/* Check a frame's format (strict, canonical form only): returns the
 * number of items, with their kinds in kinds[] when there are at most
 * CODEC_INLINE_ITEMS (the rest of kinds[] is left as it is), or
 * GROVE_EFORMAT. */
int codec_fmt_kinds(const char *s, size_t n, uint8_t kinds[CODEC_INLINE_ITEMS]);

/* Make a packet over the frame at frame (wire_len bytes, header already
 * checked by wire_peek and given in hdr) inside buf, taking over the
 * caller's reference on buf.  Checks the format string, unless memo (may
 * be NULL) already holds it.  The packet is built in mem (see
 * wire_packet_wrap), or with one malloc when mem is NULL. */
int codec_packet_wrap(grove_buf *buf, uint8_t *frame, size_t wire_len,
    const wire_hdr *hdr, wire_fmt_memo *memo, void *mem, grove_packet **out);

/* Fill in a packet struct (p's memory provided by the caller).  kinds:
 * the items' kinds, CODEC_INLINE_ITEMS bytes (unused ones zero), read only
 * when nitems <= CODEC_INLINE_ITEMS.  Inline: every packet made, sent or
 * received, goes through it. */
static inline void
codec_packet_init(grove_packet *p, grove_buf *buf, uint8_t *frame,
    size_t wire_len, const wire_hdr *hdr, int nitems, const uint8_t *kinds,
    const char *fmt, int in_buf)
{
	atomic_init(&p->refs, 1);
	p->nitems = nitems;
	p->hdr = *hdr;
	p->buf = buf;
	p->frame = frame;
	p->wire_len = wire_len;
	p->fmt = fmt;
	p->in_buf = in_buf;
	p->src_unset = 0;
	p->note = NULL;
	p->note_free = NULL;
	if (nitems <= CODEC_INLINE_ITEMS)
		memcpy(p->kinds, kinds, sizeof p->kinds);
	atomic_init(&p->table, NULL);
	atomic_init(&p->decode_err, 0);
	atomic_flag_clear(&p->inline_claim);
	p->inline_tab.items = p->inline_items;
	p->inline_tab.scratch = NULL;
	p->inline_tab.n = 0;
}


/* Does the frame's format need copying to get a NUL terminator? */
static inline int
codec_fmt_needs_copy(const uint8_t *frame, size_t fmt_len)
{
	return fmt_len % 8 == 0 || frame[WIRE_HDR_SIZE + fmt_len] != 0;
}

/* The decoded item table, decoding and validating it on first use.
 * Returns 0 and *out, or GROVE_EPROTO/GROVE_ENOMEM. */
int codec_table_get(const grove_packet *p, const codec_table **out);
void codec_table_free(grove_packet *p, codec_table *t);

/* Build the frame for items (fmt already canonical, fmt_len bytes). */
int codec_encode(grove_packet **out, const wire_hdr *hdr, const char *fmt,
    size_t fmt_len, const grove_item *items, int nitems);

#endif

/* Grove wire format (internal).
 *
 * Every message on a Grove connection is one frame.  All integers are
 * little-endian.  A frame is:
 *
 *   offset size
 *   0      4    len       bytes of the frame, header included, padding not
 *   4      2    type      WIRE_T_* below
 *   6      2    fmt_len   bytes of the canonical format string, no NUL
 *   8      4    stream    stream id (0: none)
 *   12     4    tag       application tag (int32)
 *   16     4    src       originating rank
 *   20     4    aux       type-specific (destination rank of WIRE_T_P2P)
 *   24     fmt_len        canonical format string, then zero padding to 8
 *   ...                   payload, then zero padding to 8
 *
 * Frames are padded to a multiple of 8 bytes, so that in a receive buffer
 * every frame, and every array inside it, is naturally aligned and decodes
 * to pointers into the buffer.  len = 24 + pad8(fmt_len) + payload_len.
 *
 * Payload: the items of the format in order.  Scalars at natural width,
 * aligned to their size relative to the payload start.  %s: u32 length
 * (without NUL, aligned to 4 like any u32), bytes, NUL.  Arrays: padding to
 * 8, u64 count, then the elements aligned to their size (numeric) or, for
 * %as, count strings each encoded like %s.  Padding bytes are zero; the
 * payload ends exactly after its last item (len says where).
 */
#ifndef GROVE_WIRE_H
#define GROVE_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "grove/packet.h"
#include "core/buf.h"

/* The protocol version this Grove speaks.  Every process of a network must
 * speak the same one: it travels on the first line of the bootstrap, in
 * the aux field of AUTH_CHALLENGE and AUTH_HELLO, and on the first line of
 * the connection file, so that a peer of another version is refused with
 * both versions named instead of failing on a key, a format or a proof it
 * does not know.  Bump it with any change another version would misread:
 * a bootstrap key or block, a message type or the format of its payload,
 * the handshake, the connection file (docs/internals.md).  Those three
 * places themselves never change.  Releases from before the number
 * existed are protocol 1: their bootstrap began "grove-bootstrap 1" and
 * their handshake frames have aux 0. */
#define GROVE_PROTOCOL 5u
/* A version that was never sent: a header from before the number. */
#define GROVE_PROTOCOL_UNSET 0u
#define GROVE_PROTOCOL_FIRST 1u /* what GROVE_PROTOCOL_UNSET stands for */

#define WIRE_HDR_SIZE 24u
#define WIRE_MAX_FRAME (1u << 30) /* 1 GiB: larger frames are rejected */
#define WIRE_MAX_FMT 4096u        /* longest canonical format string */

static inline size_t
wire_pad8(size_t n)
{
	return (n + 7u) & ~(size_t)7u;
}

/* Message types.  Data first; control messages carry their arguments as a
 * regular payload so they share the validated decoder. */
enum wire_type {
	WIRE_T_DATA = 1,          /* stream data, either direction */
	WIRE_T_P2P = 2,           /* FE -> one BE (aux = BE rank) or BE -> FE */
	WIRE_T_AUTH_CHALLENGE = 10, /* parent -> child: nonce; aux = the
	                               parent's GROVE_PROTOCOL */
	WIRE_T_AUTH_HELLO = 11,   /* child -> parent: proof, identity, nonce;
	                             aux = the child's GROVE_PROTOCOL */
	WIRE_T_AUTH_OK = 12,      /* parent -> child: proof of parent */
	WIRE_T_READY = 13,        /* child -> parent: subtree is up */
	WIRE_T_LAUNCH_ERROR = 14, /* child -> parent: a node could not start */
	WIRE_T_AUTH_REJECT = 15,  /* parent -> child: proof, why it is refused */
	WIRE_T_STREAM_NEW = 20,
	WIRE_T_STREAM_DEL = 21,
	WIRE_T_STREAM_PARAMS = 22,
	WIRE_T_FILTER_LOAD = 23,
	WIRE_T_FILTER_ACK = 24,
	WIRE_T_FILTER_UNLOAD = 25, /* parent -> CP: undo a failed load */
	/* 26-28, 37-38: re-parenting after a lost CP (docs/recovery.md) */
	WIRE_T_LINEAGE = 26,      /* parent -> child: its ancestors */
	WIRE_T_WAVE_ACK = 27,     /* parent -> child: shares held above */
	WIRE_T_RESUME = 28,       /* new parent -> adopted child: resume
	                             points per stream */
	WIRE_T_SHUTDOWN = 30,
	WIRE_T_NODE_LOST = 31,    /* child -> parent: ranks lost below */
	WIRE_T_HEARTBEAT = 32,
	WIRE_T_BE_ATTACHED = 33,  /* child -> parent: a BE attached */
	WIRE_T_FILTER_ERROR = 34, /* child -> parent: a filter failed */
	WIRE_T_STREAM_REFUSED = 35, /* child -> parent: no stream here */
	WIRE_T_WAVE_SHARE = 36,   /* CP -> parent: its share of the next wave
	                             on a stream is N packets, not one */
	WIRE_T_ADOPT = 37,        /* adopted child -> new parent: its streams
	                             and next share numbers */
	WIRE_T_REPARENTED = 38,   /* child -> parent: a lost CP's children
	                             moved to a new parent */
	WIRE_T_TRACE_REQ = 40,    /* parent -> child: send your event space */
	WIRE_T_TRACE_DATA = 41,   /* child -> parent: event space contents */
	WIRE_T_SKEW_REQ = 42,     /* parent -> CP: measure the links below */
	WIRE_T_SKEW_PROBE = 43,   /* parent -> child: t1 */
	WIRE_T_SKEW_REPLY = 44,   /* child -> parent: t1, t2, t3 */
	WIRE_T_SKEW_RESULT = 45,  /* CP -> parent: offsets of its BEs */
	/* 46-48: event scopes (docs/monitoring.md, tbon/node_scope.c) */
	WIRE_T_SCOPE_PULL = 46,   /* parent -> CP: read your host, answer */
	WIRE_T_SCOPE_SHARE = 47,  /* CP -> parent: its subtree's share */
	WIRE_T_SCOPE_END = 48,    /* parent -> CP: the monitor left */
	/* 50-59: segmented multicast (src/tbon/segment.h) */
	WIRE_T_SEGMENT = 50,      /* parent -> child: a piece of a DATA frame */
	WIRE_T_MAX_
};

/* Decoded frame header. */
typedef struct wire_hdr {
	uint32_t len;
	uint16_t type;
	uint16_t fmt_len;
	uint32_t stream;
	int32_t tag;
	uint32_t src;
	uint32_t aux;
} wire_hdr;

/* Inspect the start of a byte stream.  Returns
 *   > 0: a complete frame of that many bytes (padding included) is there,
 *   0:   more bytes are needed (at least *need in total),
 *   < 0: GROVE_EPROTO, the bytes cannot be a frame (bad length, type,
 *        format length), with no further reading of the stream possible. */
long wire_peek(const uint8_t *p, size_t avail, wire_hdr *hdr, size_t *need);

/* The last format a link's frames carried, already checked.  The frames
 * of a link mostly share one format; with a memo it is parsed once
 * instead of once per frame.  Zero-initialise; holds formats of up to
 * WIRE_MEMO_FMT bytes and WIRE_MEMO_ITEMS items (others are parsed every
 * time). */
#define WIRE_MEMO_FMT 48u
#define WIRE_MEMO_ITEMS 8
typedef struct wire_fmt_memo {
	uint16_t len;     /* bytes of fmt; meaningful only if valid */
	uint8_t valid;
	uint8_t nitems;
	uint8_t kinds[WIRE_MEMO_ITEMS];
	char fmt[WIRE_MEMO_FMT];
} wire_fmt_memo;

/* Bytes a packet over the frame at frame (header hdr) takes besides the
 * frame; a multiple of 8. */
size_t wire_packet_mem(const uint8_t *frame, const wire_hdr *hdr);

/* Wrap the complete frame wire_peek has just found at frame (n > 0 bytes
 * from its return value, header in hdr) as a packet, like
 * wire_packet_from_frame without peeking again.  memo may be NULL.  mem:
 * wire_packet_mem bytes inside buf, 8-aligned, that nothing else uses, to
 * hold the packet (it then costs no allocation); NULL to allocate it. */
int wire_packet_wrap(grove_buf *buf, const uint8_t *frame, size_t n,
    const wire_hdr *hdr, wire_fmt_memo *memo, void *mem, grove_packet **out);

/* Wrap a complete frame found in a receive buffer as a packet.  The packet
 * takes a reference on buf and points into it (no copy).  The format string
 * is validated here; the payload is validated lazily at first decode.
 * Returns GROVE_EPROTO or GROVE_EFORMAT for a bad frame. */
int wire_packet_from_frame(grove_buf *buf, const uint8_t *frame, size_t len,
    grove_packet **out);

/* Same from a plain byte range (copies the bytes; used by the fuzzer and
 * by tests).  */
int wire_packet_from_bytes(const void *bytes, size_t len, grove_packet **out);

/* Build a packet with full header control (control messages, p2p). */
int wire_pack(grove_packet **out, uint16_t type, uint32_t stream, int32_t tag,
    uint32_t src, uint32_t aux, const char *fmt, ...);
int wire_vpack(grove_packet **out, uint16_t type, uint32_t stream,
    int32_t tag, uint32_t src, uint32_t aux, const char *fmt, va_list ap);

/* Build a packet from decoded items (filters use this to emit results). */
int wire_pack_items(grove_packet **out, uint16_t type, uint32_t stream,
    int32_t tag, uint32_t src, const grove_item *items, int nitems);

/* The same payload under another header: a new reference to p when the
 * header already matches, else a re-encoding of p's items. */
int wire_repack(grove_packet **out, grove_packet *p, uint16_t type,
    uint32_t stream, int32_t tag, uint32_t src);

/* The header of a packet, and the frame bytes to put on the wire
 * (*len includes the trailing padding). */
const wire_hdr *wire_packet_hdr(const grove_packet *p);
const uint8_t *wire_packet_bytes(const grove_packet *p, size_t *len);

/* 1 when a and b have the same format (cheaper than comparing the
 * strings), else 0. */
int wire_packet_same_format(const grove_packet *a, const grove_packet *b);

/* Set the originating rank.  Allowed only on a packet nobody else holds
 * yet (refcount 1, not yet sent); returns GROVE_EINVAL otherwise. */
int wire_packet_set_src(grove_packet *p, uint32_t src);

/* 1 for a packet the tool built with grove_packet_pack and has not had
 * sent (its src 0 names nobody yet), else 0. */
int wire_packet_src_unset(const grove_packet *p);

/* A note a higher layer keeps on a packet (the front-end's wave account):
 * set replaces (and frees) the one before; note_free is called when the
 * packet goes.  wire_packet_note returns the note only when it was set
 * with this note_free (which tells whose it is), else NULL. */
void wire_packet_set_note(grove_packet *p, void *note,
    void (*note_free)(void *));
void *wire_packet_note(const grove_packet *p, void (*note_free)(void *));

/* Parse a user format into its canonical form ("%d %alf ..." with single
 * spaces) and item list.  Returns the number of items or GROVE_EFORMAT. */
typedef struct wire_fmt_item {
	grove_type type;
	int is_array;
} wire_fmt_item;
int wire_fmt_parse(const char *fmt, wire_fmt_item *items, int max_items,
    char *canon, size_t canon_cap);

#endif

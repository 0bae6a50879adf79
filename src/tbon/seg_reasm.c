/* Segmented multicast: putting a DATA frame together again from its
 * segments (see segment.h). */
#include "tbon/segment.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/wire.h"
#include "grove/error.h"
#include "tbon/proto.h"

void
seg_reasm_init(seg_reasm *r)
{
	memset(r, 0, sizeof *r);
}

static void
msg_drop(seg_reasm *r, size_t i)
{
	r->pending -= r->msgs[i].total;
	buf_unref(r->msgs[i].buf);
	r->msgs[i] = r->msgs[--r->n];
}

void
seg_reasm_fini(seg_reasm *r)
{
	while (r->n)
		msg_drop(r, r->n - 1);
	free(r->msgs);
	memset(r, 0, sizeof *r);
}

static seg_msg *
msg_find(seg_reasm *r, uint32_t stream, uint32_t id, size_t *idx)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->msgs[i].stream == stream && r->msgs[i].id == id) {
			*idx = i;
			return &r->msgs[i];
		}
	return NULL;
}

/* Starts a message at its first segment; NULL with err set when it breaks
 * a limit. */
static seg_msg *
msg_start(seg_reasm *r, const wire_hdr *h, uint32_t id, uint64_t total,
    char *err, size_t errlen, int *rc)
{
	*rc = GROVE_EPROTO;
	if (total < WIRE_HDR_SIZE || total > WIRE_MAX_FRAME || total % 8) {
		snprintf(err, errlen, "segmented message %u on stream %u claims "
		    "an impossible length of %llu bytes", id, h->stream,
		    (unsigned long long)total);
		return NULL;
	}
	if (r->n >= SEG_MAX_MSGS || r->pending + total > SEG_MAX_PENDING_BYTES) {
		snprintf(err, errlen, "segmented message %u on stream %u (%llu "
		    "bytes) exceeds the reassembly limits (%u messages, %llu bytes "
		    "in progress)", id, h->stream, (unsigned long long)total,
		    SEG_MAX_MSGS, (unsigned long long)SEG_MAX_PENDING_BYTES);
		return NULL;
	}
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 4;
		seg_msg *m = realloc(r->msgs, cap * sizeof *m);
		if (!m) {
			*rc = GROVE_ENOMEM;
			snprintf(err, errlen, "out of memory");
			return NULL;
		}
		r->msgs = m;
		r->cap = cap;
	}
	seg_msg *m = &r->msgs[r->n++];
	memset(m, 0, sizeof *m);
	m->stream = h->stream;
	m->id = id;
	m->tag = h->tag;
	m->src = h->src;
	m->total = total;
	r->pending += total;
	return m;
}

/* Room for `need` bytes in m's buffer.  The buffer grows with what has
 * arrived (doubling, capped at the total), so a sender that announces a
 * huge message costs memory only for the bytes it really sends. */
static int
msg_reserve(seg_msg *m, uint64_t need)
{
	size_t cap = m->buf ? m->buf->cap : 0;
	if (need <= cap)
		return 0;
	uint64_t want = cap ? (uint64_t)cap * 2 : need;
	if (want < need)
		want = need;
	if (want > m->total)
		want = m->total;
	grove_buf *b = m->buf ? buf_resize(m->buf, (size_t)want)
	    : buf_new((size_t)want);
	if (!b)
		return GROVE_ENOMEM;
	m->buf = b;
	return 0;
}

/* The complete frame of m as a packet, checked against its segments. */
static int
msg_finish(seg_msg *m, grove_packet **whole, char *err, size_t errlen)
{
	wire_hdr fh;
	size_t need;
	long n = wire_peek(m->buf->data, (size_t)m->total, &fh, &need);
	if (n != (long)m->total) {
		snprintf(err, errlen, "segmented message %u on stream %u does not "
		    "hold one frame of %llu bytes", m->id, m->stream,
		    (unsigned long long)m->total);
		return GROVE_EPROTO;
	}
	if (fh.type != WIRE_T_DATA || fh.stream != m->stream ||
	    fh.tag != m->tag || fh.src != m->src) {
		snprintf(err, errlen, "segmented message %u on stream %u holds a "
		    "frame of type %u, stream %u, tag %d that its segments did not "
		    "announce", m->id, m->stream, fh.type, fh.stream, fh.tag);
		return GROVE_EPROTO;
	}
	int rc = wire_packet_from_frame(m->buf, m->buf->data, (size_t)m->total,
	    whole);
	if (rc != 0) {
		snprintf(err, errlen, "segmented message %u on stream %u: bad "
		    "frame: %s", m->id, m->stream, grove_strerror(rc));
		return GROVE_EPROTO;
	}
	return 0;
}

int
seg_reasm_push(seg_reasm *r, grove_packet *segment, grove_packet **whole,
    char *err, size_t errlen)
{
	const wire_hdr *h = wire_packet_hdr(segment);
	uint32_t id = 0;
	uint64_t off = 0, total = 0, len = 0;
	const uint8_t *bytes = NULL;
	*whole = NULL;
	if (h->type != WIRE_T_SEGMENT || grove_packet_unpack(segment,
	    PROTO_SEGMENT, &id, &off, &total, &bytes, &len) != 0) {
		snprintf(err, errlen, "malformed segment on stream %u", h->stream);
		return GROVE_EPROTO;
	}
	size_t i = 0;
	int rc;
	seg_msg *m = msg_find(r, h->stream, id, &i);
	if (!m) {
		if (off != 0) {
			snprintf(err, errlen, "segment of message %u on stream %u "
			    "starts at offset %llu of a message never begun", id,
			    h->stream, (unsigned long long)off);
			return GROVE_EPROTO;
		}
		m = msg_start(r, h, id, total, err, errlen, &rc);
		if (!m)
			return rc;
		i = (size_t)(m - r->msgs);
	}
	rc = GROVE_EPROTO;
	if (total != m->total || h->tag != m->tag || h->src != m->src) {
		snprintf(err, errlen, "segment of message %u on stream %u "
		    "changes its total length, tag or source", id, h->stream);
	} else if (off != m->got) {
		snprintf(err, errlen, "segment of message %u on stream %u at "
		    "offset %llu, expected %llu (out of order or lost)", id,
		    h->stream, (unsigned long long)off,
		    (unsigned long long)m->got);
	} else if (len == 0 || len > m->total - m->got) {
		snprintf(err, errlen, "segment of message %u on stream %u carries "
		    "%llu bytes at offset %llu of %llu", id, h->stream,
		    (unsigned long long)len, (unsigned long long)off,
		    (unsigned long long)m->total);
	} else if ((rc = msg_reserve(m, m->got + len)) != 0) {
		snprintf(err, errlen, "out of memory reassembling message %u on "
		    "stream %u", id, h->stream);
	} else {
		memcpy(m->buf->data + m->got, bytes, (size_t)len);
		m->got += len;
		if (m->got < m->total)
			return 0;
		rc = msg_finish(m, whole, err, errlen);
		if (rc == 0) {
			msg_drop(r, i); /* the packet holds its own reference */
			return 1;
		}
	}
	msg_drop(r, i);
	return rc;
}

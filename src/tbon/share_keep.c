/* Shares kept for a resend after re-parenting (share_keep.h). */
#include "tbon/share_keep.h"

#include <stdlib.h>
#include <string.h>

#include "codec/wire.h"
#include "grove/error.h"

#define ARENA_MIN 4096u

static kept_share *
slot_at(const share_keep *k, uint32_t i)
{
	return &k->ring[(k->head + i) & (k->cap - 1)];
}

/* ---- the ring of bytes of the copied shares --------------------------
 *
 * Copies are added at tail and dropped from the oldest, in order.  The
 * live bytes are [head, tail), or, once the end was reached, [head, wrap)
 * then [0, tail).  head is the off of the oldest copied share. */

static size_t
arena_head(const share_keep *k)
{
	for (uint32_t i = 0; i < k->n; i++)
		if (slot_at(k, i)->copied)
			return slot_at(k, i)->off;
	return k->tail;
}

/* Copies every live copy into a larger ring, in order. */
static int
arena_grow(share_keep *k, size_t need)
{
	size_t live = 0;
	for (uint32_t i = 0; i < k->n; i++)
		if (slot_at(k, i)->copied)
			live += slot_at(k, i)->bytes;
	size_t cap = k->arena_cap ? k->arena_cap * 2 : ARENA_MIN;
	while (cap < live + need)
		cap *= 2;
	uint8_t *a = malloc(cap);
	if (!a)
		return GROVE_ENOMEM;
	size_t o = 0;
	for (uint32_t i = 0; i < k->n; i++) {
		kept_share *s = slot_at(k, i);
		if (!s->copied)
			continue;
		memcpy(a + o, k->arena + s->off, s->bytes);
		s->off = o;
		o += s->bytes;
	}
	free(k->arena);
	k->arena = a;
	k->arena_cap = cap;
	k->tail = o;
	k->wrap = 0;
	return 0;
}

/* Where `len` more bytes go (set up for them), or (size_t)-1 without
 * memory. */
static size_t
arena_take(share_keep *k, size_t len)
{
	size_t head = arena_head(k);
	int any = head != k->tail || k->wrap;
	if (!any) {
		k->tail = k->wrap = 0;
		head = 0;
	}
	if (!k->wrap) {
		if (k->arena_cap - k->tail >= len) {
			k->tail += len;
			return k->tail - len;
		}
		if (head >= len && any) {
			k->wrap = k->tail;
			k->tail = len;
			return 0;
		}
	} else if (head - k->tail >= len) {
		k->tail += len;
		return k->tail - len;
	}
	if (arena_grow(k, len) != 0)
		return (size_t)-1;
	k->tail += len;
	return k->tail - len;
}

/* The oldest copied share at off, of len bytes, is dropped. */
static void
arena_drop(share_keep *k, const kept_share *s)
{
	size_t end = s->off + s->bytes;
	if (k->wrap && end == k->wrap)
		k->wrap = 0; /* the upper part is empty: live is [0, tail) */
}

/* ---- shares --------------------------------------------------------- */

static void
share_release(share_keep *k, kept_share *s)
{
	if (s->copied)
		arena_drop(k, s);
	uint32_t refs = s->copied ? 0 : s->n + (s->has_announce ? 1 : 0);
	for (uint32_t i = 0; i < refs; i++)
		grove_packet_unref(s->many[i]);
	free(s->many);
	memset(s, 0, sizeof *s);
}

static void
pop_oldest(share_keep *k)
{
	kept_share *s = slot_at(k, 0);
	k->bytes -= s->bytes;
	share_release(k, s);
	k->head = (k->head + 1) & (k->cap - 1);
	k->n--;
	if (k->n == 0)
		k->tail = k->wrap = 0;
}

static int
grow(share_keep *k)
{
	uint32_t ncap = k->cap ? k->cap * 2 : 16;
	kept_share *r = malloc((size_t)ncap * sizeof *r);
	if (!r)
		return GROVE_ENOMEM;
	for (uint32_t i = 0; i < k->n; i++)
		r[i] = *slot_at(k, i);
	free(k->ring);
	k->ring = r;
	k->cap = ncap;
	k->head = 0;
	return 0;
}

/* Appends p's frame to the copy at *at. */
static void
copy_frame(share_keep *k, size_t *at, const grove_packet *p)
{
	size_t len = 0;
	const uint8_t *b = wire_packet_bytes(p, &len);
	memcpy(k->arena + *at, b, len);
	*at += len;
}

int
share_keep_push(share_keep *k, uint64_t num, grove_packet *announce,
    grove_packet *const *pkts, uint32_t n)
{
	if (k->n && slot_at(k, k->n - 1)->num >= num)
		return GROVE_EINVAL;
	if (k->n == k->cap && grow(k) != 0)
		return GROVE_ENOMEM;
	kept_share s = {.num = num, .n = n, .has_announce = announce != NULL};
	if (announce)
		s.bytes += grove_packet_size(announce);
	for (uint32_t i = 0; i < n; i++)
		s.bytes += grove_packet_size(pkts[i]);
	if (s.bytes <= SHARE_KEEP_COPY_MAX) {
		size_t at = arena_take(k, s.bytes);
		if (at == (size_t)-1)
			return GROVE_ENOMEM;
		s.copied = 1;
		s.off = at;
		if (announce)
			copy_frame(k, &at, announce);
		for (uint32_t i = 0; i < n; i++)
			copy_frame(k, &at, pkts[i]);
	} else {
		uint32_t refs = n + (announce ? 1 : 0);
		if (!(s.many = malloc((size_t)refs * sizeof *s.many)))
			return GROVE_ENOMEM;
		uint32_t j = 0;
		if (announce)
			s.many[j++] = grove_packet_ref(announce);
		for (uint32_t i = 0; i < n; i++)
			s.many[j++] = grove_packet_ref(pkts[i]);
	}
	*slot_at(k, k->n) = s;
	k->n++;
	k->bytes += s.bytes;
	uint32_t max_n = k->max_shares ? k->max_shares : SHARE_KEEP_MAX_SHARES;
	size_t max_b = k->max_bytes ? k->max_bytes : SHARE_KEEP_MAX_BYTES;
	while (k->n > 1 && (k->n > max_n || k->bytes > max_b)) {
		pop_oldest(k);
		k->dropped++;
	}
	return 0;
}

void
share_keep_trim(share_keep *k, uint64_t below)
{
	while (k->n && slot_at(k, 0)->num < below)
		pop_oldest(k);
}

const kept_share *
share_keep_at(const share_keep *k, uint32_t i)
{
	return i < k->n ? slot_at(k, i) : NULL;
}

int
share_keep_emit(const share_keep *k, uint32_t i,
    int (*emit)(void *arg, grove_packet *p), void *arg)
{
	const kept_share *s = share_keep_at(k, i);
	if (!s)
		return GROVE_EINVAL;
	if (!s->copied) {
		uint32_t refs = s->n + (s->has_announce ? 1 : 0);
		for (uint32_t j = 0; j < refs; j++) {
			int rc = emit(arg, s->many[j]);
			if (rc != 0)
				return rc;
		}
		return 0;
	}
	/* The copy holds whole frames, back to back, as they were sent. */
	const uint8_t *b = k->arena + s->off;
	size_t left = s->bytes;
	while (left > 0) {
		wire_hdr h;
		size_t need = 0;
		long len = wire_peek(b, left, &h, &need);
		grove_packet *p = NULL;
		if (len <= 0 || (size_t)len > left)
			return GROVE_EPROTO; /* cannot be: copied from packets */
		int rc = wire_packet_from_bytes(b, (size_t)len, &p);
		if (rc != 0)
			return rc;
		rc = emit(arg, p);
		grove_packet_unref(p);
		if (rc != 0)
			return rc;
		b += len;
		left -= (size_t)len;
	}
	return 0;
}

uint64_t
share_keep_first(const share_keep *k)
{
	return k->n ? slot_at(k, 0)->num : UINT64_MAX;
}

void
share_keep_fini(share_keep *k)
{
	while (k->n)
		pop_oldest(k);
	free(k->ring);
	free(k->arena);
	k->ring = NULL;
	k->arena = NULL;
	k->head = k->cap = 0;
	k->arena_cap = k->tail = k->wrap = 0;
	k->bytes = 0;
	k->dropped = 0;
}

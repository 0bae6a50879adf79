/* Shares kept for a resend after re-parenting (share_keep.h). */
#include "tbon/share_keep.h"

#include <stdlib.h>
#include <string.h>

#include "grove/error.h"

static kept_share *
slot_at(const share_keep *k, uint32_t i)
{
	return &k->ring[(k->head + i) & (k->cap - 1)];
}

static void
share_release(kept_share *s)
{
	grove_packet_unref(s->announce);
	if (s->n == 1)
		grove_packet_unref(s->one);
	for (uint32_t i = 0; s->n > 1 && i < s->n; i++)
		grove_packet_unref(s->many[i]);
	free(s->many);
	memset(s, 0, sizeof *s);
}

static void
pop_oldest(share_keep *k)
{
	kept_share *s = slot_at(k, 0);
	k->bytes -= s->bytes;
	share_release(s);
	k->head = (k->head + 1) & (k->cap - 1);
	k->n--;
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

int
share_keep_push(share_keep *k, uint64_t num, grove_packet *announce,
    grove_packet *const *pkts, uint32_t n)
{
	if (k->n && slot_at(k, k->n - 1)->num >= num)
		return GROVE_EINVAL;
	if (k->n == k->cap && grow(k) != 0)
		return GROVE_ENOMEM;
	kept_share s = {.num = num, .n = n};
	if (n > 1 && !(s.many = malloc((size_t)n * sizeof *s.many)))
		return GROVE_ENOMEM;
	if (announce) {
		s.announce = grove_packet_ref(announce);
		s.bytes += grove_packet_size(announce);
	}
	for (uint32_t i = 0; i < n; i++) {
		grove_packet *p = grove_packet_ref(pkts[i]);
		if (n == 1)
			s.one = p;
		else
			s.many[i] = p;
		s.bytes += grove_packet_size(p);
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
	k->ring = NULL;
	k->head = k->cap = 0;
	k->bytes = 0;
	k->dropped = 0;
}

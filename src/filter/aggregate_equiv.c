/* Decoding an "equiv" result on the front-end (grove/aggregate.h).  The
 * set points into the packet it holds a reference on, plus one index of
 * where each class's ranges start, so every accessor is O(1) or a binary
 * search over one class's ranges. */
#include <stdlib.h>

#include "filter/equiv_core.h"
#include "grove/aggregate.h"

struct grove_equiv_set {
	grove_packet *p;
	eq_view v;
	uint64_t *first; /* c + 1: class i has ranges first[i] .. first[i+1] */
};

int
grove_equiv_decode(const grove_packet *p, grove_equiv_set **out)
{
	if (!out)
		return GROVE_EINVAL;
	*out = NULL;
	if (!p)
		return GROVE_EINVAL;
	eq_view v;
	int rc = eq_view_parse(p, &v);
	if (rc == 0)
		rc = eq_view_check_sorted(&v);
	if (rc < 0)
		return rc;
	grove_equiv_set *s = calloc(1, sizeof *s);
	if (!s)
		return GROVE_ENOMEM;
	s->first = malloc(((size_t)v.c + 1) * sizeof *s->first);
	if (!s->first) {
		free(s);
		return GROVE_ENOMEM;
	}
	s->first[0] = 0;
	for (uint64_t i = 0; i < v.c; i++)
		s->first[i + 1] = s->first[i] + v.nranges[i];
	s->v = v;
	/* The packet is immutable; the reference only keeps it alive. */
	s->p = grove_packet_ref((grove_packet *)p);
	*out = s;
	return 0;
}

void
grove_equiv_free(grove_equiv_set *s)
{
	if (!s)
		return;
	grove_packet_unref(s->p);
	free(s->first);
	free(s);
}

size_t
grove_equiv_count(const grove_equiv_set *s)
{
	return s ? (size_t)s->v.c : 0;
}

const char *
grove_equiv_key(const grove_equiv_set *s, size_t c)
{
	return s && c < s->v.c ? s->v.keys[c] : NULL;
}

size_t
grove_equiv_nranges(const grove_equiv_set *s, size_t c)
{
	return s && c < s->v.c ? s->v.nranges[c] : 0;
}

int
grove_equiv_range(const grove_equiv_set *s, size_t c, size_t i,
    uint32_t *lo, uint32_t *hi)
{
	if (!s || c >= s->v.c || i >= s->v.nranges[c])
		return GROVE_ERANGE;
	uint64_t r = s->first[c] + i;
	if (lo)
		*lo = s->v.ranges[2 * r];
	if (hi)
		*hi = s->v.ranges[2 * r + 1];
	return 0;
}

uint64_t
grove_equiv_members(const grove_equiv_set *s, size_t c)
{
	if (!s || c >= s->v.c)
		return 0;
	uint64_t n = 0;
	for (uint64_t r = s->first[c]; r < s->first[c + 1]; r++)
		n += s->v.ranges[2 * r + 1] - s->v.ranges[2 * r];
	return n;
}

int
grove_equiv_representative(const grove_equiv_set *s, size_t c,
    uint32_t *rank)
{
	if (!s || !rank || c >= s->v.c)
		return GROVE_ERANGE;
	/* Ranges are sorted and a class has at least one (checked at
	 * decode): the lowest rank opens the first. */
	*rank = s->v.ranges[2 * s->first[c]];
	return 0;
}

int
grove_equiv_contains(const grove_equiv_set *s, size_t c, uint32_t rank)
{
	if (!s || c >= s->v.c)
		return 0;
	uint64_t lo = s->first[c], hi = s->first[c + 1];
	/* First range whose hi is above rank. */
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (s->v.ranges[2 * mid + 1] <= rank)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->first[c + 1] && s->v.ranges[2 * lo] <= rank;
}

int
grove_equiv_class_of(const grove_equiv_set *s, uint32_t rank)
{
	if (!s)
		return GROVE_EINVAL;
	for (uint64_t c = 0; c < s->v.c; c++)
		if (grove_equiv_contains(s, (size_t)c, rank))
			return c > INT32_MAX ? GROVE_ERANGE : (int)c;
	return GROVE_ENOENT;
}

/* The "equiv" filter: partitions back-ends into equivalence classes by the
 * key each one reports (MRNet paper, section 3.1: a checksum of data that
 * is likely the same on many back-ends; the front-end then asks one
 * representative per class for the data itself).
 *
 * Input: "%s" (a key) or "%uld" (an integer key, as its decimal string)
 * from a back-end, whose rank is the packet's source; or a result from a
 * node below (source rank not a back-end's), "%as %aud %aud" = keys[C],
 * nranges[C], ranges[2*sum] as (lo, hi) pairs, hi exclusive.  Output: the same result shape for the
 * whole wave, classes sorted by key, ranges sorted and merged.  Meant for
 * "wait_for_all".
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filter/builtin.h"
#include "filter/equiv_core.h"
#include "grove/aggregate.h"

/* Decimal digits of a uint64_t, plus the NUL. */
#define EQ_NUMKEY 21

typedef enum { EQ_STR, EQ_NUM, EQ_AGG } eq_kind;

/* A result from a back-end is refused (flt_src_is_node). */
static int
eq_kind_of(const grove_filter_call *call, const grove_packet *p, eq_kind *k)
{
	const char *f = grove_packet_format(p);
	if (!f)
		return GROVE_EFORMAT;
	if (strcmp(f, "%s") == 0)
		*k = EQ_STR;
	else if (strcmp(f, "%uld") == 0)
		*k = EQ_NUM;
	else if (strcmp(f, GROVE_EQUIV_FMT) == 0 && flt_src_is_node(call, p))
		*k = EQ_AGG;
	else
		return GROVE_EFORMAT;
	return 0;
}

/* Emit the merged entries e[0..n) as one result. */
static int
eq_emit(grove_filter_call *call, const eq_entry *e, size_t n)
{
	size_t c = 0;
	for (size_t i = 0; i < n; i++)
		if (i == 0 || strcmp(e[i - 1].key, e[i].key) != 0)
			c++;
	const char **keys = malloc((c ? c : 1) * sizeof *keys);
	uint32_t *nranges = malloc((c ? c : 1) * sizeof *nranges);
	uint32_t *ranges = malloc((n ? 2 * n : 1) * sizeof *ranges);
	int rc = GROVE_ENOMEM;
	if (!keys || !nranges || !ranges)
		goto out;
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (i == 0 || strcmp(e[i - 1].key, e[i].key) != 0) {
			keys[k] = e[i].key;
			nranges[k++] = 0;
		}
		nranges[k - 1]++;
		ranges[2 * i] = e[i].lo;
		ranges[2 * i + 1] = e[i].hi;
	}
	grove_packet *p = NULL;
	rc = grove_filter_pack(call, &p, GROVE_EQUIV_FMT, keys, (uint64_t)c,
	    nranges, (uint64_t)c, ranges, (uint64_t)(2 * n));
	if (rc == 0)
		rc = grove_filter_emit(call, p);
out:
	free(keys);
	free(nranges);
	free(ranges);
	return rc;
}

int
flt_builtin_equiv(grove_filter_call *call)
{
	if (call->n_in == 0)
		return 0;
	/* Count first, so one allocation holds every range. */
	size_t n = 0, nnum = 0;
	for (size_t i = 0; i < call->n_in; i++) {
		eq_kind k;
		if (!call->in[i])
			return GROVE_EINVAL;
		int rc = eq_kind_of(call, call->in[i], &k);
		if (rc < 0)
			return rc;
		if (k == EQ_AGG) {
			eq_view v;
			rc = eq_view_parse(call->in[i], &v);
			if (rc < 0)
				return rc;
			n += (size_t)v.nr;
		} else {
			n++;
			nnum += k == EQ_NUM;
		}
	}
	eq_entry *e = malloc((n ? n : 1) * sizeof *e);
	char (*num)[EQ_NUMKEY] = malloc((nnum ? nnum : 1) * sizeof *num);
	int rc = 0;
	if (!e || !num) {
		rc = GROVE_ENOMEM;
		goto out;
	}
	size_t at = 0, atnum = 0;
	for (size_t i = 0; i < call->n_in; i++) {
		const grove_packet *p = call->in[i];
		uint32_t src = grove_packet_src(p);
		eq_kind k = EQ_STR;
		eq_kind_of(call, p, &k); /* checked in the first pass */
		if (k == EQ_AGG) {
			eq_view v;
			eq_view_parse(p, &v);
			uint64_t r = 0;
			for (uint64_t c = 0; c < v.c; c++)
				for (uint32_t j = 0; j < v.nranges[c]; j++, r++)
					e[at++] = (eq_entry){v.keys[c],
					    v.ranges[2 * r], v.ranges[2 * r + 1]};
			continue;
		}
		if (src == UINT32_MAX) {
			rc = GROVE_ERANGE; /* [src, src + 1) must fit */
			goto out;
		}
		const char *key;
		if (k == EQ_STR) {
			rc = grove_packet_unpack(p, "%s", &key);
		} else {
			uint64_t x;
			rc = grove_packet_unpack(p, "%uld", &x);
			snprintf(num[atnum], sizeof num[atnum], "%" PRIu64, x);
			key = num[atnum++];
		}
		if (rc < 0)
			goto out;
		e[at++] = (eq_entry){key, src, src + 1};
	}
	rc = eq_emit(call, e, eq_sort_merge(e, n));
out:
	free(e);
	free(num);
	return rc;
}

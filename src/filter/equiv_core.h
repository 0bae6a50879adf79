/* Equivalence classes (internal): the pure part of the "equiv" filter and
 * of its front-end decoder.
 *
 * A class is a key and the back-end ranks that reported it, kept as
 * half-open rank ranges [lo, hi).  Ranks of one class are usually
 * contiguous blocks (the same executable on a block of nodes), so ranges
 * make the result a few hundred bytes where a rank list would be kilobytes.
 */
#ifndef GROVE_FILTER_EQUIV_CORE_H
#define GROVE_FILTER_EQUIV_CORE_H

#include <stddef.h>
#include <stdint.h>

#include "grove/packet.h"

/* One range of ranks [lo, hi) of the class `key`. */
typedef struct eq_entry {
	const char *key;
	uint32_t lo, hi;
} eq_entry;

/* Sort entries by key, then by lo, and merge the ranges of each key that
 * overlap or touch (hi == next lo).  Works in place; returns the number of
 * entries left.  Entries with lo >= hi must not be passed. */
size_t eq_sort_merge(eq_entry *e, size_t n);

/* An "equiv" result "%as %aud %aud" read in place: c classes, their keys
 * and range counts, and 2 * nr range bounds.  eq_view_parse checks that
 * the lengths agree and that every range has lo < hi; ordering is not
 * checked (eq_view_check_sorted does that). */
typedef struct eq_view {
	const char *const *keys;
	const uint32_t *nranges;
	const uint32_t *ranges;
	uint64_t c, nr;
} eq_view;

int eq_view_parse(const grove_packet *p, eq_view *v);
/* GROVE_EPROTO unless keys are strictly increasing, every class has a
 * range, and the ranges of each class are increasing, neither overlapping
 * nor touching. */
int eq_view_check_sorted(const eq_view *v);

#endif

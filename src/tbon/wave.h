/* Wave accounts (internal): the back-ends missing from a wave, carried up
 * the tree with each CP's share (WAVE_SHARE), and the front-end's note on
 * each packet it delivers (include/grove/wave.h).
 *
 * A node lists gaps: ranges of back-end ranks with a reason, as the
 * topology gives them (a child's [be_lo, be_hi), which may hold ranks
 * that are not members) and in the order it learnt of them; ranges may
 * overlap (a CP whose filter failed lists its children's own gaps first,
 * then its whole range).  Only the front-end, which knows the members,
 * turns them into exact runs: the first gap that names a member says
 * why it is missing.
 */
#ifndef GROVE_TBON_WAVE_H
#define GROVE_TBON_WAVE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "grove/wave.h"

typedef struct wave_gap {
	uint32_t lo, hi;  /* back-end ranks [lo, hi) */
	uint32_t reason;  /* grove_missing_reason */
	uint32_t node;
	int32_t code;
} wave_gap;

typedef struct wave_gaps {
	wave_gap *g;
	size_t n, cap;
} wave_gaps;

/* Appends a gap (0 or GROVE_ENOMEM). */
int wave_gaps_add(wave_gaps *w, uint32_t lo, uint32_t hi, uint32_t reason,
    uint32_t node, int32_t code);
/* Appends the gaps of a WAVE_SHARE packet (PROTO_WAVE_SHARE); 0, or
 * GROVE_EPROTO when they are malformed. */
int wave_gaps_from_share(wave_gaps *w, const grove_packet *share);
/* 1 when a gap has this reason. */
int wave_gaps_has(const wave_gaps *w, uint32_t reason);
void wave_gaps_fini(wave_gaps *w);

/* Checks the gaps of a WAVE_SHARE from a child whose ranks are [lo, hi):
 * 0, or 1 with why set (malformed, or a range outside the child's). */
int wave_share_wrong(const grove_packet *share, uint32_t lo, uint32_t hi,
    char *why, size_t len);

/* The front-end's note on a delivered packet (refcounted: a stream's
 * packets of whole waves share one). */
typedef struct wave_note {
	atomic_uint refs;
	uint32_t members, contributed;
	int failed;       /* a failed wave's marker: the receive's error */
	char *why;        /* its message (malloc'd) */
	size_t n_missing;
	grove_missing missing[];
} wave_note;

/* A note for a wave of a stream with these members (sorted) and gaps;
 * NULL without memory. */
wave_note *wave_note_new(const uint32_t *members, size_t n_members,
    const wave_gaps *gaps);
wave_note *wave_note_ref(wave_note *w);
void wave_note_unref(void *w); /* the packet's note_free */
/* Attaches a reference to w to p (replacing any note it had). */
void wave_note_attach(grove_packet *p, wave_note *w);
/* p's note, or NULL. */
const wave_note *wave_note_of(const grove_packet *p);

#endif

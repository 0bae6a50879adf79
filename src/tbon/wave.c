/* Wave accounts: the gaps a node lists for a wave, their trip up the tree
 * in WAVE_SHARE, and the front-end's note on what it delivers, read
 * through include/grove/wave.h. */
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

#include "codec/wire.h"
#include "grove/error.h"
#include "tbon/proto.h"
#include "tbon/wave.h"

int
wave_gaps_add(wave_gaps *w, uint32_t lo, uint32_t hi, uint32_t reason,
    uint32_t node, int32_t code)
{
	if (lo >= hi)
		return 0;
	if (w->n == w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 8;
		wave_gap *g = realloc(w->g, cap * sizeof *g);
		if (!g)
			return GROVE_ENOMEM;
		w->g = g;
		w->cap = cap;
	}
	w->g[w->n++] = (wave_gap){lo, hi, reason, node, code};
	return 0;
}

/* The gap arrays of a WAVE_SHARE: quads (lo, hi, reason, node) and one
 * code per quad. */
static int
share_arrays(const grove_packet *share, const uint32_t **quads,
    const int32_t **codes, uint64_t *n)
{
	uint32_t npackets = 0;
	uint64_t nq = 0, nc = 0;
	if (grove_packet_unpack(share, PROTO_WAVE_SHARE, &npackets, quads, &nq,
	    codes, &nc) != 0 || nq % 4 != 0 || nq / 4 != nc)
		return GROVE_EPROTO;
	*n = nc;
	return 0;
}

int
wave_gaps_from_share(wave_gaps *w, const grove_packet *share)
{
	const uint32_t *q = NULL;
	const int32_t *c = NULL;
	uint64_t n = 0;
	int rc = share_arrays(share, &q, &c, &n);
	for (uint64_t i = 0; rc == 0 && i < n; i++)
		rc = wave_gaps_add(w, q[4 * i], q[4 * i + 1], q[4 * i + 2],
		    q[4 * i + 3], c[i]);
	return rc;
}

int
wave_share_wrong(const grove_packet *share, uint32_t lo, uint32_t hi,
    char *why, size_t len)
{
	const uint32_t *q = NULL;
	const int32_t *c = NULL;
	uint64_t n = 0;
	if (share_arrays(share, &q, &c, &n) != 0) {
		snprintf(why, len, "a malformed wave share");
		return 1;
	}
	for (uint64_t i = 0; i < n; i++) {
		const uint32_t *g = q + 4 * i;
		if (g[0] >= g[1] || g[0] < lo || g[1] > hi ||
		    g[2] < GROVE_MISSING_LOST || g[2] > GROVE_MISSING_TIMEOUT) {
			snprintf(why, len, "a wave share naming ranks [%u, %u) "
			    "(reason %u) outside its ranks [%u, %u)", g[0], g[1],
			    g[2], lo, hi);
			return 1;
		}
	}
	return 0;
}

int
wave_gaps_has(const wave_gaps *w, uint32_t reason)
{
	for (size_t i = 0; i < w->n; i++)
		if (w->g[i].reason == reason)
			return 1;
	return 0;
}

void
wave_gaps_fini(wave_gaps *w)
{
	free(w->g);
	memset(w, 0, sizeof *w);
}

/* ---- the front-end's notes ------------------------------------------ */

/* Index of the first member >= r. */
static size_t
member_at(const uint32_t *m, size_t n, uint32_t r)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m[mid] < r)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Whether gaps a and b (indices, -1: none) say the same thing: the
 * members they name form one run when their ranks are consecutive. */
static int
same_gap(const wave_gaps *gaps, int32_t a, int32_t b)
{
	if (a < 0 || b < 0)
		return 0;
	const wave_gap *x = &gaps->g[a], *y = &gaps->g[b];
	return x->reason == y->reason && x->node == y->node &&
	    x->code == y->code;
}

wave_note *
wave_note_new(const uint32_t *members, size_t n_members,
    const wave_gaps *gaps)
{
	size_t ng = gaps ? gaps->n : 0;
	/* Which gap names each member first (-1: none), then runs of
	 * consecutive ranks with the same gap. */
	int32_t *by = NULL;
	size_t runs = 0;
	if (ng) {
		if (!(by = malloc((n_members ? n_members : 1) * sizeof *by)))
			return NULL;
		for (size_t i = 0; i < n_members; i++)
			by[i] = -1;
		for (size_t k = 0; k < ng; k++)
			for (size_t i = member_at(members, n_members, gaps->g[k].lo);
			    i < n_members && members[i] < gaps->g[k].hi; i++)
				if (by[i] < 0)
					by[i] = (int32_t)k;
		for (size_t i = 0; i < n_members; i++)
			if (by[i] >= 0 && !(i > 0 && members[i - 1] + 1 == members[i] &&
			    same_gap(gaps, by[i - 1], by[i])))
				runs++;
	}
	wave_note *w = calloc(1, sizeof *w + runs * sizeof w->missing[0]);
	if (!w) {
		free(by);
		return NULL;
	}
	atomic_init(&w->refs, 1);
	w->members = (uint32_t)n_members;
	w->contributed = (uint32_t)n_members;
	for (size_t i = 0; ng && i < n_members; i++) {
		if (by[i] < 0)
			continue;
		w->contributed--;
		grove_missing *m = &w->missing[w->n_missing];
		if (w->n_missing && m[-1].rank_hi == members[i] &&
		    same_gap(gaps, by[i - 1], by[i])) {
			m[-1].rank_hi++;
			continue;
		}
		const wave_gap *g = &gaps->g[by[i]];
		*m = (grove_missing){members[i], members[i] + 1,
		    (grove_missing_reason)g->reason, g->node, g->code};
		w->n_missing++;
	}
	free(by);
	return w;
}

wave_note *
wave_note_ref(wave_note *w)
{
	if (w)
		atomic_fetch_add_explicit(&w->refs, 1, memory_order_relaxed);
	return w;
}

void
wave_note_unref(void *v)
{
	wave_note *w = v;
	if (!w || atomic_fetch_sub_explicit(&w->refs, 1,
	    memory_order_acq_rel) != 1)
		return;
	free(w->why);
	free(w);
}

void
wave_note_attach(grove_packet *p, wave_note *w)
{
	wire_packet_set_note(p, wave_note_ref(w), wave_note_unref);
}

const wave_note *
wave_note_of(const grove_packet *p)
{
	return wire_packet_note(p, wave_note_unref);
}

/* ---- public ------------------------------------------------------------ */

int
grove_packet_contributors(const grove_packet *p, uint32_t *contributed,
    uint32_t *members)
{
	if (!p || !contributed)
		return GROVE_EINVAL;
	const wave_note *w = wave_note_of(p);
	if (!w)
		return GROVE_ENOENT;
	*contributed = w->contributed;
	if (members)
		*members = w->members;
	return 0;
}

int
grove_packet_missing(const grove_packet *p, grove_missing *out, size_t cap)
{
	if (!p || (cap && !out))
		return GROVE_EINVAL;
	const wave_note *w = wave_note_of(p);
	if (!w)
		return GROVE_ENOENT;
	for (size_t i = 0; i < w->n_missing && i < cap; i++)
		out[i] = w->missing[i];
	return (int)w->n_missing;
}

const char *
grove_missing_reason_name(int reason)
{
	switch (reason) {
	case GROVE_MISSING_LOST: return "lost";
	case GROVE_MISSING_FILTER: return "filter failed";
	case GROVE_MISSING_TIMEOUT: return "timed out";
	default: return "unknown reason";
	}
}

/* Synchronization filters: turn packets arriving one at a time from a
 * node's children into waves.
 *
 * wait_for_all and timeout keep one FIFO ring per slot and a count of live
 * slots that hold at least one packet, so "is a full wave ready" is O(1)
 * and taking a wave is O(nslots).  timeout also caches the arrival time of
 * the oldest queued packet (the minimum over the slots' heads: each ring is
 * in arrival order); it changes only when a slot goes from empty to
 * non-empty (O(1)) or when heads are taken (rescanned along with the wave).
 * dont_wait keeps a single ring in global arrival order, plus per-slot
 * counts for back-pressure.  Rings grow by doubling and are never shrunk,
 * so a stream in steady state queues packets without allocating.
 *
 * A slot's contribution to a wave is a share: one packet from a back-end,
 * and from a CP whatever its filter made of its own wave, which may be
 * several packets (the null filter passes every member's packet on) or
 * none (an empty wave, a filter that failed or kept its output).  The CP
 * announces a share of other than one packet (sync_push_share) before its
 * packets, so that waves here pair the children's shares of the same wave
 * and never one child's packets of two waves with each other.  A ring
 * entry records how many entries its share spans (on the share's first
 * entry; continuations hold 0), and an empty share is one entry without a
 * packet.  Only complete shares make a slot count as holding a wave's
 * share.
 */
#include <stdlib.h>
#include <string.h>

#include "filter/filter_impl.h"

typedef struct sync_ent {
	grove_packet *p; /* NULL: an empty share */
	/* On a share's first entry: what the child said of the share (the
	 * back-ends missing from it, sync_push_share_info); else NULL. */
	grove_packet *info;
	uint64_t t;      /* arrival, ns */
	uint32_t slot;
	uint32_t len;    /* entries of the share starting here; 0 inside one */
} sync_ent;

/* FIFO ring; cap is 0 or a power of two. */
typedef struct sync_ring {
	sync_ent *e;
	uint32_t head, n, cap;
} sync_ring;

struct sync_state {
	sync_kind kind;
	uint32_t nslots;
	uint32_t live;      /* slots not gone */
	/* Slots with a complete share queued (not dont_wait): all of them,
	 * and the live ones.  A slot that is gone still hands out the
	 * shares it sent in full, but no wave waits for it. */
	uint32_t nonempty;
	uint32_t live_ready;
	uint64_t timeout_ns;
	uint64_t oldest;    /* timeout: min head arrival, UINT64_MAX if none */
	size_t total;
	size_t *nq;         /* packets queued per slot */
	size_t *nbytes;     /* their bytes on the wire, per slot */
	unsigned char *gone;
	sync_ring *rings;   /* per slot; not dont_wait */
	uint32_t *complete; /* complete shares queued per slot */
	uint64_t *received; /* complete shares ever received per slot
	                       (placeholders of sync_pad aside) */
	uint32_t *expect;   /* packets still to come of an announced share */
	uint32_t *share_len; /* the length that share was announced with */
	grove_packet **pending_info; /* info for the share announced next */
	/* The last wave popped: which slots gave a share, and the info of
	 * each share (the caller takes those, sync_wave_parts). */
	unsigned char *took;
	grove_packet **took_info;
	sync_ring all;      /* dont_wait: every packet in arrival order */
	/* The wave handed out by sync_pop_wave; room for every queued
	 * packet, grown on push so that popping never allocates. */
	grove_packet **out;
	uint32_t *out_slots;
	size_t out_cap;
};

static const char *const kind_names[] = {
	[SYNC_WAIT_FOR_ALL] = "wait_for_all",
	[SYNC_TIMEOUT] = "timeout",
	[SYNC_DONT_WAIT] = "dont_wait",
};

int
sync_kind_parse(const char *name, sync_kind *out)
{
	if (!name)
		return GROVE_EINVAL;
	for (unsigned i = 0; i < sizeof kind_names / sizeof kind_names[0]; i++)
		if (strcmp(name, kind_names[i]) == 0) {
			if (out)
				*out = (sync_kind)i;
			return 0;
		}
	return GROVE_ENOENT;
}

const char *
sync_kind_name(sync_kind k)
{
	if ((unsigned)k < sizeof kind_names / sizeof kind_names[0])
		return kind_names[k];
	return "unknown";
}

/* ---- rings ----------------------------------------------------------- */

static int
ring_push(sync_ring *r, sync_ent ent)
{
	if (r->n == r->cap) {
		if (r->cap >= (UINT32_MAX >> 1) + 1)
			return GROVE_ENOMEM;
		uint32_t ncap = r->cap ? r->cap * 2 : 4;
		sync_ent *ne = malloc((size_t)ncap * sizeof *ne);
		if (!ne)
			return GROVE_ENOMEM;
		/* Unwrap into the new array so head starts at 0. */
		for (uint32_t i = 0; i < r->n; i++)
			ne[i] = r->e[(r->head + i) & (r->cap - 1)];
		free(r->e);
		r->e = ne;
		r->head = 0;
		r->cap = ncap;
	}
	r->e[(r->head + r->n) & (r->cap - 1)] = ent;
	r->n++;
	return 0;
}

/* The newest entry (a share cut short by its slot's loss). */
static sync_ent
ring_pop_tail(sync_ring *r)
{
	r->n--;
	return r->e[(r->head + r->n) & (r->cap - 1)];
}

static sync_ent
ring_pop(sync_ring *r)
{
	sync_ent ent = r->e[r->head];
	r->head = (r->head + 1) & (r->cap - 1);
	r->n--;
	return ent;
}

static const sync_ent *
ring_head(const sync_ring *r)
{
	return &r->e[r->head];
}

static void
ring_clear(sync_ring *r)
{
	while (r->n) {
		sync_ent ent = ring_pop(r);
		if (ent.p)
			grove_packet_unref(ent.p);
		if (ent.info)
			grove_packet_unref(ent.info);
	}
	r->head = 0;
}

static void
ring_free(sync_ring *r)
{
	ring_clear(r);
	free(r->e);
	memset(r, 0, sizeof *r);
}

/* ---- state ------------------------------------------------------------ */

sync_state *
sync_new(sync_kind k, uint32_t nslots, uint32_t timeout_ms)
{
	if ((unsigned)k > SYNC_DONT_WAIT)
		return NULL;
	sync_state *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	size_t ns = nslots ? nslots : 1;
	s->kind = k;
	s->nslots = nslots;
	s->live = nslots;
	s->oldest = UINT64_MAX;
	s->nq = calloc(ns, sizeof *s->nq);
	s->nbytes = calloc(ns, sizeof *s->nbytes);
	s->gone = calloc(ns, sizeof *s->gone);
	if (k != SYNC_DONT_WAIT) {
		s->rings = calloc(ns, sizeof *s->rings);
		s->complete = calloc(ns, sizeof *s->complete);
		s->received = calloc(ns, sizeof *s->received);
		s->expect = calloc(ns, sizeof *s->expect);
		s->share_len = calloc(ns, sizeof *s->share_len);
		s->pending_info = calloc(ns, sizeof *s->pending_info);
		s->took = calloc(ns, sizeof *s->took);
		s->took_info = calloc(ns, sizeof *s->took_info);
	}
	if (!s->nq || !s->nbytes || !s->gone || (k != SYNC_DONT_WAIT &&
	    (!s->rings || !s->complete || !s->received || !s->expect ||
	    !s->share_len ||
	    !s->pending_info || !s->took || !s->took_info))) {
		sync_destroy(s);
		return NULL;
	}
	sync_set_timeout(s, timeout_ms);
	return s;
}

void
sync_destroy(sync_state *s)
{
	if (!s)
		return;
	if (s->rings)
		for (uint32_t i = 0; i < s->nslots; i++)
			ring_free(&s->rings[i]);
	ring_free(&s->all);
	for (uint32_t i = 0; i < s->nslots; i++) {
		if (s->pending_info)
			grove_packet_unref(s->pending_info[i]);
		if (s->took_info)
			grove_packet_unref(s->took_info[i]);
	}
	free(s->pending_info);
	free(s->took);
	free(s->took_info);
	free(s->rings);
	free(s->complete);
	free(s->received);
	free(s->expect);
	free(s->share_len);
	free(s->out);
	free(s->out_slots);
	free(s->nq);
	free(s->nbytes);
	free(s->gone);
	free(s);
}

void
sync_set_timeout(sync_state *s, uint32_t timeout_ms)
{
	if (s)
		s->timeout_ns = (uint64_t)timeout_ms * 1000000u;
}

/* Recompute the oldest head (timeout only). */
static void
rescan_oldest(sync_state *s)
{
	if (s->kind != SYNC_TIMEOUT)
		return;
	uint64_t o = UINT64_MAX;
	for (uint32_t i = 0; i < s->nslots; i++)
		if (s->complete[i] && ring_head(&s->rings[i])->t < o)
			o = ring_head(&s->rings[i])->t;
	s->oldest = o;
}

/* Room in the output arrays for every queued packet. */
static int
out_reserve(sync_state *s, size_t need)
{
	if (need <= s->out_cap)
		return 0;
	size_t ncap = s->out_cap ? s->out_cap * 2 : 8;
	while (ncap < need)
		ncap *= 2;
	grove_packet **o = realloc(s->out, ncap * sizeof *o);
	if (!o)
		return GROVE_ENOMEM;
	s->out = o;
	uint32_t *os = realloc(s->out_slots, ncap * sizeof *os);
	if (!os)
		return GROVE_ENOMEM;
	s->out_slots = os;
	s->out_cap = ncap;
	return 0;
}

/* A share of slot is complete: a wave may take it. */
static void
share_done(sync_state *s, uint32_t slot)
{
	s->received[slot]++;
	if (s->complete[slot]++ == 0) {
		s->nonempty++;
		s->live_ready++; /* only a live slot receives */
		uint64_t t = ring_head(&s->rings[slot])->t;
		if (s->kind == SYNC_TIMEOUT && t < s->oldest)
			s->oldest = t;
	}
}

int
sync_push(sync_state *s, uint32_t slot, grove_packet *p, uint64_t now_ns)
{
	if (!s || !p) {
		grove_packet_unref(p);
		return GROVE_EINVAL;
	}
	if (slot >= s->nslots) {
		grove_packet_unref(p);
		return GROVE_ERANGE;
	}
	if (s->gone[slot]) {
		grove_packet_unref(p);
		return GROVE_ECLOSED;
	}
	sync_ent ent = {.p = p, .t = now_ns, .slot = slot, .len = 1};
	int rc = out_reserve(s, s->total + 1);
	if (rc == 0 && s->kind == SYNC_DONT_WAIT) {
		rc = ring_push(&s->all, ent);
	} else if (rc == 0) {
		uint32_t *ex = &s->expect[slot];
		if (*ex)
			ent.len = *ex == s->share_len[slot] ? *ex : 0;
		if (ent.len)
			ent.info = s->pending_info[slot];
		rc = ring_push(&s->rings[slot], ent);
		if (rc == 0 && ent.len)
			s->pending_info[slot] = NULL;
		if (rc == 0 && (*ex == 0 || --*ex == 0))
			share_done(s, slot);
	}
	if (rc < 0) {
		grove_packet_unref(p);
		return rc;
	}
	s->nq[slot]++;
	s->nbytes[slot] += grove_packet_size(p);
	s->total++;
	return 0;
}

int
sync_push_share(sync_state *s, uint32_t slot, uint32_t npackets,
    uint64_t now_ns)
{
	return sync_push_share_info(s, slot, npackets, NULL, now_ns);
}

int
sync_push_share_info(sync_state *s, uint32_t slot, uint32_t npackets,
    grove_packet *info, uint64_t now_ns)
{
	int rc = GROVE_EINVAL;
	if (!s)
		goto refuse;
	rc = GROVE_ERANGE;
	if (slot >= s->nslots)
		goto refuse;
	rc = GROVE_ECLOSED;
	if (s->gone[slot])
		goto refuse;
	/* dont_wait has no waves to pair; one packet is a share as is. */
	if (s->kind == SYNC_DONT_WAIT || (npackets == 1 && !info)) {
		grove_packet_unref(info);
		return 0;
	}
	rc = GROVE_EPROTO; /* the share before is not complete */
	if (s->expect[slot])
		goto refuse;
	rc = GROVE_ERANGE;
	if (npackets > SYNC_MAX_SHARE)
		goto refuse;
	if (npackets >= 1) {
		s->expect[slot] = npackets;
		s->share_len[slot] = npackets;
		grove_packet_unref(s->pending_info[slot]);
		s->pending_info[slot] = info;
		return 0;
	}
	sync_ent ent = {.p = NULL, .info = info, .t = now_ns, .slot = slot,
	    .len = 1};
	rc = ring_push(&s->rings[slot], ent);
	if (rc != 0)
		grove_packet_unref(info);
	if (rc == 0) {
		/* Counted as a packet for back-pressure: a child whose waves
		 * are all empty must not queue them without bound while a
		 * sibling holds the waves up. */
		s->nq[slot]++;
		share_done(s, slot);
	}
	return rc;
refuse:
	grove_packet_unref(info);
	return rc;
}

void
sync_slot_gone(sync_state *s, uint32_t slot)
{
	if (!s || slot >= s->nslots || s->gone[slot])
		return;
	s->gone[slot] = 1;
	s->live--;
	/* What the child sent before it went is data like any other: its
	 * packets (dont_wait) and complete shares stay queued and go out in
	 * the next waves.  Only a share it had not finished is dropped. */
	if (s->kind == SYNC_DONT_WAIT)
		return;
	sync_ring *r = &s->rings[slot];
	if (s->expect[slot]) {
		for (uint32_t k = s->share_len[slot] - s->expect[slot]; k; k--) {
			sync_ent ent = ring_pop_tail(r);
			s->nq[slot]--;
			s->nbytes[slot] -= grove_packet_size(ent.p);
			s->total--;
			grove_packet_unref(ent.p);
			grove_packet_unref(ent.info);
		}
		s->expect[slot] = 0;
		grove_packet_unref(s->pending_info[slot]);
		s->pending_info[slot] = NULL;
	}
	if (s->complete[slot])
		s->live_ready--;
	else
		ring_free(r); /* the slot never comes back */
}

uint64_t
sync_next_deadline(const sync_state *s)
{
	if (!s || s->kind != SYNC_TIMEOUT || s->oldest == UINT64_MAX)
		return UINT64_MAX;
	if (s->oldest > UINT64_MAX - s->timeout_ns)
		return UINT64_MAX - 1; /* saturate, still "a deadline" */
	return s->oldest + s->timeout_ns;
}

int
sync_wave_ready(const sync_state *s, uint64_t now_ns)
{
	if (!s)
		return 0;
	if (s->kind == SYNC_DONT_WAIT)
		return s->all.n != 0;
	if (s->nonempty == 0)
		return 0;
	return s->live_ready >= s->live ||
	    (s->kind == SYNC_TIMEOUT && now_ns >= sync_next_deadline(s));
}

int
sync_pop_wave(sync_state *s, uint64_t now_ns, grove_packet ***wave,
    uint32_t **slots, size_t *n)
{
	if (n)
		*n = 0;
	if (!s || !wave || !slots || !n)
		return 0;
	*wave = s->out;
	*slots = s->out_slots;
	if (s->kind == SYNC_DONT_WAIT) {
		if (s->all.n == 0)
			return 0;
		sync_ent ent = ring_pop(&s->all);
		s->nq[ent.slot]--;
		s->nbytes[ent.slot] -= grove_packet_size(ent.p);
		s->total--;
		s->out[0] = ent.p;
		s->out_slots[0] = ent.slot;
		*n = 1;
		return 1;
	}
	if (!sync_wave_ready(s, now_ns))
		return 0;

	/* One complete share from every slot that has one. */
	size_t k = 0;
	for (uint32_t i = 0; i < s->nslots; i++) {
		s->took[i] = 0;
		if (!s->complete[i])
			continue;
		sync_ring *r = &s->rings[i];
		s->took[i] = 1;
		grove_packet_unref(s->took_info[i]); /* not taken by the caller */
		s->took_info[i] = ring_head(r)->info;
		for (uint32_t left = ring_head(r)->len; left; left--) {
			grove_packet *p = ring_pop(r).p;
			if (!p) {
				s->nq[i]--; /* an empty share */
				continue;
			}
			s->out[k] = p;
			s->out_slots[k] = i;
			s->nq[i]--;
			s->nbytes[i] -= grove_packet_size(p);
			k++;
		}
		if (--s->complete[i] == 0) {
			s->nonempty--;
			if (!s->gone[i])
				s->live_ready--;
			else
				ring_free(r); /* drained, and never refilled */
		}
	}
	s->total -= k;
	*n = k;
	rescan_oldest(s);
	return 1;
}

int
sync_wave_parts(sync_state *s, const unsigned char **took,
    grove_packet ***info)
{
	if (!s || s->kind == SYNC_DONT_WAIT)
		return 0;
	*took = s->took;
	*info = s->took_info;
	return 1;
}

size_t
sync_queued(const sync_state *s, uint32_t slot)
{
	if (!s || slot >= s->nslots)
		return 0;
	return s->nq[slot];
}

size_t
sync_queued_bytes(const sync_state *s, uint32_t slot)
{
	if (!s || slot >= s->nslots)
		return 0;
	return s->nbytes[slot];
}

int
sync_waits_on(const sync_state *s, uint32_t slot)
{
	if (!s || s->kind == SYNC_DONT_WAIT || slot >= s->nslots ||
	    s->gone[slot])
		return 0;
	/* Part-way through a share, only the rest of it can complete the
	 * slot's part of a wave, whatever the kind. */
	if (s->expect[slot])
		return 1;
	if (s->kind != SYNC_WAIT_FOR_ALL)
		return 0;
	return s->complete[slot] == 0 && s->nonempty > 0;
}

int
sync_has_share(const sync_state *s, uint32_t slot)
{
	if (!s || slot >= s->nslots)
		return 0;
	if (s->kind == SYNC_DONT_WAIT)
		return s->nq[slot] > 0;
	return s->complete[slot] > 0;
}

size_t
sync_queued_total(const sync_state *s)
{
	return s ? s->total : 0;
}

uint32_t
sync_live_slots(const sync_state *s)
{
	return s ? s->live : 0;
}

/* ---- slots added later (re-parenting, docs/recovery.md) ------------- */

/* Grows one per-slot array by one zeroed element. */
static int
grow(void *pp, size_t elem, uint32_t n)
{
	void **p = pp;
	char *q = realloc(*p, ((size_t)n + 1) * elem);
	if (!q)
		return GROVE_ENOMEM;
	memset(q + (size_t)n * elem, 0, elem);
	*p = q;
	return 0;
}

int
sync_add_slot(sync_state *s)
{
	if (!s)
		return GROVE_EINVAL;
	if (s->nslots >= UINT32_MAX - 1)
		return GROVE_ERANGE;
	uint32_t n = s->nslots;
	/* Arrays were allocated for at least one slot: sync_new(k, 0, ...)
	 * has room for slot 0 already. */
	int rc = 0;
	if (n > 0) {
		rc |= grow(&s->nq, sizeof *s->nq, n);
		rc |= grow(&s->nbytes, sizeof *s->nbytes, n);
		rc |= grow(&s->gone, sizeof *s->gone, n);
		if (s->kind != SYNC_DONT_WAIT) {
			rc |= grow(&s->rings, sizeof *s->rings, n);
			rc |= grow(&s->complete, sizeof *s->complete, n);
			rc |= grow(&s->received, sizeof *s->received, n);
			rc |= grow(&s->expect, sizeof *s->expect, n);
			rc |= grow(&s->share_len, sizeof *s->share_len, n);
			rc |= grow(&s->pending_info, sizeof *s->pending_info, n);
			rc |= grow(&s->took, sizeof *s->took, n);
			rc |= grow(&s->took_info, sizeof *s->took_info, n);
		}
	}
	/* A failed grow leaves the arrays of the ones that grew larger than
	 * needed, which is harmless: nslots is what counts. */
	if (rc != 0)
		return GROVE_ENOMEM;
	s->nslots = n + 1;
	s->live++;
	return (int)n;
}

int
sync_pad(sync_state *s, uint32_t slot, uint64_t n)
{
	if (!s || slot >= s->nslots)
		return GROVE_EINVAL;
	if (n == 0)
		return 0;
	if (s->kind != SYNC_WAIT_FOR_ALL)
		return GROVE_EINVAL; /* only its waves pair shares by count */
	if (s->gone[slot] || s->expect[slot])
		return GROVE_EPROTO;
	for (uint64_t i = 0; i < n; i++) {
		sync_ent ent = {.p = NULL, .info = NULL, .t = 0, .slot = slot,
		    .len = 1};
		int rc = ring_push(&s->rings[slot], ent);
		if (rc != 0)
			return rc;
		s->nq[slot]++;
		share_done(s, slot);
		s->received[slot]--; /* a placeholder, not the child's */
	}
	return 0;
}

uint64_t
sync_shares_in(const sync_state *s, uint32_t slot)
{
	if (!s || slot >= s->nslots || s->kind == SYNC_DONT_WAIT)
		return 0;
	return s->received[slot];
}

/* Synchronization filters: wave formation for wait_for_all, timeout and
 * dont_wait, lost children, deadlines, queue counts and packet ownership.
 * Time is an argument, so nothing here sleeps.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "filter/filter_impl.h"

#define MS(x) ((uint64_t)(x) * 1000000u)

/* A packet whose payload names where it came from: slot and sequence. */
static grove_packet *
pkt(uint32_t slot, int32_t seq)
{
	grove_packet *p = NULL;
	assert_int_equal(grove_packet_pack(&p, 1, 0, "%ud %d", slot, seq), 0);
	return p;
}

static void
check_pkt(const grove_packet *p, uint32_t slot, int32_t seq)
{
	uint32_t s;
	int32_t q;
	assert_int_equal(grove_packet_unpack(p, "%ud %d", &s, &q), 0);
	assert_int_equal(s, slot);
	assert_int_equal(q, seq);
}

typedef struct wave {
	grove_packet *p[64];
	uint32_t slot[64];
	size_t n;
} wave;

/* Every pop also checks that sync_wave_ready predicted it (the node
 * reads the trace clock only when it says a wave is ready). */
static int
pop(sync_state *s, uint64_t now, wave *w)
{
	int ready = sync_wave_ready(s, now);
	grove_packet **p = NULL;
	uint32_t *slot = NULL;
	int r = sync_pop_wave(s, now, &p, &slot, &w->n);
	assert_int_equal(ready, r);
	assert_true(w->n <= 64);
	for (size_t i = 0; i < w->n; i++) {
		w->p[i] = p[i];
		w->slot[i] = slot[i];
	}
	assert_int_equal(sync_wave_ready(NULL, now), 0);
	return r;
}

static void
wave_free(wave *w)
{
	for (size_t i = 0; i < w->n; i++)
		grove_packet_unref(w->p[i]);
	w->n = 0;
}

static void
push(sync_state *s, uint32_t slot, int32_t seq, uint64_t now)
{
	assert_int_equal(sync_push(s, slot, pkt(slot, seq), now), 0);
}

static void
test_kind_names(void **unused)
{
	sync_kind k;
	assert_int_equal(sync_kind_parse("wait_for_all", &k), 0);
	assert_int_equal(k, SYNC_WAIT_FOR_ALL);
	assert_int_equal(sync_kind_parse("timeout", &k), 0);
	assert_int_equal(k, SYNC_TIMEOUT);
	assert_int_equal(sync_kind_parse("dont_wait", &k), 0);
	assert_int_equal(k, SYNC_DONT_WAIT);
	assert_int_equal(sync_kind_parse("sometimes", &k), GROVE_ENOENT);
	assert_int_equal(sync_kind_parse("", &k), GROVE_ENOENT);
	for (int i = SYNC_WAIT_FOR_ALL; i <= SYNC_DONT_WAIT; i++) {
		assert_int_equal(sync_kind_parse(sync_kind_name(i), &k), 0);
		assert_int_equal(k, i);
	}
	assert_null(sync_new((sync_kind)7, 2, 0));
}

/* A CP's share of several packets is one slot's part of one wave: slot 0
 * (a CP with three members) and slot 1 (one member) pair wave by wave,
 * where one packet per slot would pair slot 0's second packet with slot
 * 1's next wave. */
static void
test_shares_pair_waves(void **unused)
{
	sync_state *s = sync_new(SYNC_WAIT_FOR_ALL, 2, 0);
	assert_non_null(s);
	wave w;
	for (int32_t round = 1; round <= 3; round++) {
		assert_int_equal(sync_push_share(s, 0, 3, 0), 0);
		push(s, 0, round * 10 + 1, 0);
		push(s, 0, round * 10 + 2, 0);
		/* Two of three: slot 0 has no complete share yet. */
		push(s, 1, round * 10, 0);
		assert_int_equal(pop(s, 0, &w), 0);
		assert_int_equal(sync_waits_on(s, 0), 1);
		push(s, 0, round * 10 + 3, 0);
		assert_int_equal(sync_waits_on(s, 0), 0);
		assert_int_equal(pop(s, 0, &w), 1);
		assert_int_equal(w.n, 4);
		for (int32_t i = 0; i < 3; i++) {
			assert_int_equal(w.slot[i], 0);
			check_pkt(w.p[i], 0, round * 10 + 1 + i);
		}
		assert_int_equal(w.slot[3], 1);
		check_pkt(w.p[3], 1, round * 10);
		wave_free(&w);
		assert_int_equal(sync_queued_total(s), 0);
	}
	/* A share of one changes nothing. */
	assert_int_equal(sync_push_share(s, 1, 1, 0), 0);
	push(s, 1, 7, 0);
	push(s, 0, 7, 0);
	assert_int_equal(pop(s, 0, &w), 1);
	assert_int_equal(w.n, 2);
	wave_free(&w);
	sync_destroy(s);
}

/* An empty share (a CP whose filter failed or emitted nothing) completes
 * its slot's part of a wave; a wave of empty shares is released empty. */
static void
test_empty_shares(void **unused)
{
	sync_state *s = sync_new(SYNC_WAIT_FOR_ALL, 2, 0);
	assert_non_null(s);
	wave w;
	push(s, 1, 1, 0);
	assert_int_equal(sync_push_share(s, 0, 0, 0), 0);
	/* An empty share counts as a queued packet (back-pressure). */
	assert_int_equal(sync_queued(s, 0), 1);
	assert_int_equal(pop(s, 0, &w), 1);
	assert_int_equal(sync_queued(s, 0), 0);
	assert_int_equal(w.n, 1);
	assert_int_equal(w.slot[0], 1);
	check_pkt(w.p[0], 1, 1);
	wave_free(&w);
	/* The next wave pairs the next shares. */
	push(s, 0, 2, 0);
	push(s, 1, 2, 0);
	assert_int_equal(pop(s, 0, &w), 1);
	assert_int_equal(w.n, 2);
	check_pkt(w.p[0], 0, 2);
	check_pkt(w.p[1], 1, 2);
	wave_free(&w);
	assert_int_equal(sync_push_share(s, 0, 0, 0), 0);
	assert_int_equal(sync_push_share(s, 1, 0, 0), 0);
	assert_int_equal(pop(s, 0, &w), 1);
	assert_int_equal(w.n, 0);
	assert_int_equal(pop(s, 0, &w), 0);
	/* Queued empty shares of a slot that goes are dropped with it. */
	assert_int_equal(sync_push_share(s, 0, 0, 0), 0);
	sync_slot_gone(s, 0);
	assert_int_equal(pop(s, 0, &w), 0);
	push(s, 1, 3, 0);
	assert_int_equal(pop(s, 0, &w), 1);
	assert_int_equal(w.n, 1);
	wave_free(&w);
	sync_destroy(s);

	/* dont_wait ignores shares. */
	s = sync_new(SYNC_DONT_WAIT, 2, 0);
	assert_int_equal(sync_push_share(s, 0, 0, 0), 0);
	assert_int_equal(sync_push_share(s, 0, 3, 0), 0);
	assert_int_equal(pop(s, 0, &w), 0);
	push(s, 0, 1, 0);
	assert_int_equal(pop(s, 0, &w), 1);
	assert_int_equal(w.n, 1);
	wave_free(&w);
	sync_destroy(s);
}

static void
test_share_errors(void **unused)
{
	sync_state *s = sync_new(SYNC_WAIT_FOR_ALL, 2, 0);
	assert_int_equal(sync_push_share(NULL, 0, 2, 0), GROVE_EINVAL);
	assert_int_equal(sync_push_share(s, 2, 2, 0), GROVE_ERANGE);
	assert_int_equal(sync_push_share(s, 0, SYNC_MAX_SHARE + 1, 0),
	    GROVE_ERANGE);
	assert_int_equal(sync_push_share(s, 0, 2, 0), 0);
	/* Part-way through a share the slot holds the wave up, and its
	 * producer must not be paused. */
	assert_int_equal(sync_waits_on(s, 0), 1);
	/* Announced again before the share is complete. */
	assert_int_equal(sync_push_share(s, 0, 2, 0), GROVE_EPROTO);
	assert_int_equal(sync_push_share(s, 0, 0, 0), GROVE_EPROTO);
	push(s, 0, 1, 0);
	push(s, 0, 2, 0);
	assert_int_equal(sync_push_share(s, 0, 0, 0), 0);
	sync_slot_gone(s, 1);
	assert_int_equal(sync_push_share(s, 1, 2, 0), GROVE_ECLOSED);
	wave w;
	assert_int_equal(pop(s, 0, &w), 1);
	assert_int_equal(w.n, 2);
	wave_free(&w);
	assert_int_equal(pop(s, 0, &w), 1);
	assert_int_equal(w.n, 0);
	/* A slot that goes in the middle of a share forgets it. */
	sync_destroy(s);
	s = sync_new(SYNC_WAIT_FOR_ALL, 2, 0);
	assert_int_equal(sync_push_share(s, 0, 3, 0), 0);
	push(s, 0, 1, 0);
	sync_slot_gone(s, 0);
	push(s, 1, 1, 0);
	assert_int_equal(pop(s, 0, &w), 1);
	assert_int_equal(w.n, 1);
	wave_free(&w);
	sync_destroy(s);
}

/* timeout releases complete shares only, whole, and times them from the
 * arrival of the share's first packet. */
static void
test_timeout_takes_whole_shares(void **unused)
{
	sync_state *s = sync_new(SYNC_TIMEOUT, 3, 10);
	wave w;
	assert_int_equal(sync_push_share(s, 0, 2, MS(0)), 0);
	push(s, 0, 1, MS(0));
	/* Incomplete: no deadline yet, and the slot holds its part of the
	 * wave up even under timeout. */
	assert_true(sync_next_deadline(s) == UINT64_MAX);
	assert_int_equal(sync_waits_on(s, 0), 1);
	push(s, 1, 1, MS(3));
	assert_true(sync_next_deadline(s) == MS(13));
	push(s, 0, 2, MS(5));
	assert_true(sync_next_deadline(s) == MS(10));
	assert_int_equal(pop(s, MS(9), &w), 0);
	assert_int_equal(pop(s, MS(10), &w), 1);
	assert_int_equal(w.n, 3);
	check_pkt(w.p[0], 0, 1);
	check_pkt(w.p[1], 0, 2);
	check_pkt(w.p[2], 1, 1);
	wave_free(&w);
	assert_int_equal(sync_queued_total(s), 0);
	sync_destroy(s);
}

static void
test_wait_for_all_basic(void **unused)
{
	sync_state *s = sync_new(SYNC_WAIT_FOR_ALL, 3, 0);
	assert_non_null(s);
	assert_int_equal(sync_live_slots(s), 3);
	wave w;
	push(s, 0, 1, 0);
	push(s, 0, 2, 0);
	push(s, 1, 1, 0);
	assert_int_equal(pop(s, MS(100000), &w), 0);
	assert_int_equal(w.n, 0);
	assert_int_equal(sync_queued(s, 0), 2);
	assert_int_equal(sync_queued(s, 1), 1);
	assert_int_equal(sync_queued(s, 2), 0);
	assert_int_equal(sync_queued_total(s), 3);
	assert_true(sync_next_deadline(s) == UINT64_MAX);

	push(s, 2, 1, 0);
	assert_int_equal(pop(s, 0, &w), 1);
	assert_int_equal(w.n, 3);
	for (uint32_t i = 0; i < 3; i++) {
		assert_int_equal(w.slot[i], i);
		check_pkt(w.p[i], i, 1);
	}
	wave_free(&w);
	assert_int_equal(sync_queued_total(s), 1);
	assert_int_equal(pop(s, 0, &w), 0);

	/* slot 0's second packet belongs to the next wave */
	push(s, 1, 2, 0);
	push(s, 2, 2, 0);
	assert_int_equal(pop(s, 0, &w), 1);
	for (uint32_t i = 0; i < 3; i++)
		check_pkt(w.p[i], i, 2);
	wave_free(&w);
	assert_int_equal(sync_queued_total(s), 0);
	sync_destroy(s);
}

/* The bytes queued per slot follow pushes, pops and a lost slot; a
 * wait_for_all state says which empty slots hold a wave up. */
static void
test_bytes_and_waits_on(void **unused)
{
	sync_state *s = sync_new(SYNC_WAIT_FOR_ALL, 3, 0);
	assert_non_null(s);
	grove_packet *p = pkt(0, 1);
	size_t sz = grove_packet_size(p);
	grove_packet_unref(p);
	assert_true(sz > 0);
	for (uint32_t k = 0; k < 3; k++)
		assert_int_equal(sync_waits_on(s, k), 0); /* nothing pending */
	push(s, 0, 1, 0);
	push(s, 0, 2, 0);
	assert_int_equal(sync_queued_bytes(s, 0), 2 * sz);
	assert_int_equal(sync_queued_bytes(s, 1), 0);
	assert_int_equal(sync_waits_on(s, 0), 0);
	assert_int_equal(sync_waits_on(s, 1), 1);
	assert_int_equal(sync_waits_on(s, 2), 1);
	assert_int_equal(sync_waits_on(s, 3), 0); /* no such slot */
	push(s, 1, 1, 0);
	assert_int_equal(sync_waits_on(s, 1), 0);
	sync_slot_gone(s, 2); /* a wave is whole without slot 2 now */
	assert_int_equal(sync_waits_on(s, 2), 0);
	wave w;
	assert_int_equal(pop(s, 0, &w), 1);
	wave_free(&w);
	assert_int_equal(sync_queued_bytes(s, 0), sz);
	assert_int_equal(sync_queued_bytes(s, 1), 0);
	assert_int_equal(sync_waits_on(s, 1), 1);
	sync_slot_gone(s, 0); /* its packet stays queued for the next wave */
	assert_int_equal(sync_queued_bytes(s, 0), sz);
	sync_destroy(s);

	/* Other kinds never hold a wave for one slot. */
	s = sync_new(SYNC_TIMEOUT, 2, 10);
	push(s, 0, 1, 0);
	assert_int_equal(sync_waits_on(s, 1), 0);
	sync_destroy(s);
	s = sync_new(SYNC_DONT_WAIT, 2, 0);
	push(s, 0, 1, 0);
	assert_int_equal(sync_queued_bytes(s, 0), sz);
	assert_int_equal(pop(s, 0, &w), 1);
	wave_free(&w);
	assert_int_equal(sync_queued_bytes(s, 0), 0);
	assert_int_equal(sync_waits_on(s, 1), 0);
	sync_destroy(s);
}

/* A lost child must never make the others wait forever. */
static void
test_wait_for_all_slot_gone(void **unused)
{
	sync_state *s = sync_new(SYNC_WAIT_FOR_ALL, 4, 0);
	wave w;
	push(s, 0, 1, 0);
	push(s, 0, 2, 0);
	push(s, 1, 1, 0);
	push(s, 1, 2, 0);
	push(s, 3, 1, 0);  /* slot 3 has one packet, slot 2 none */
	assert_int_equal(pop(s, 0, &w), 0);

	sync_slot_gone(s, 2);
	assert_int_equal(sync_live_slots(s), 3);
	assert_int_equal(pop(s, 0, &w), 1);
	assert_int_equal(w.n, 3);
	assert_int_equal(w.slot[0], 0);
	assert_int_equal(w.slot[1], 1);
	assert_int_equal(w.slot[2], 3);
	wave_free(&w);
	assert_int_equal(pop(s, 0, &w), 0);

	/* the gone slot's packets are refused (and freed) */
	assert_int_equal(sync_push(s, 2, pkt(2, 9), 0), GROVE_ECLOSED);
	assert_int_equal(sync_queued(s, 2), 0);

	/* losing slot 3 with its queue empty releases slots 0 and 1 */
	sync_slot_gone(s, 3);
	assert_int_equal(pop(s, 0, &w), 1);
	assert_int_equal(w.n, 2);
	check_pkt(w.p[0], 0, 2);
	check_pkt(w.p[1], 1, 2);
	wave_free(&w);

	/* A slot lost with packets queued still hands them out, one per
	 * wave, paired with the live slot's; no wave waits for it. */
	push(s, 1, 3, 0);
	push(s, 1, 4, 0);
	assert_int_equal(sync_queued_total(s), 2);
	sync_slot_gone(s, 1);
	sync_slot_gone(s, 1); /* twice is harmless */
	sync_slot_gone(s, 99);
	assert_int_equal(sync_live_slots(s), 1);
	assert_int_equal(sync_queued(s, 1), 2);
	assert_int_equal(sync_waits_on(s, 0), 1);
	assert_int_equal(sync_waits_on(s, 1), 0);
	assert_int_equal(pop(s, 0, &w), 0);
	push(s, 0, 3, 0);
	assert_int_equal(pop(s, 0, &w), 1);
	assert_int_equal(w.n, 2);
	check_pkt(w.p[0], 0, 3);
	check_pkt(w.p[1], 1, 3);
	wave_free(&w);
	push(s, 0, 4, 0);
	assert_int_equal(pop(s, 0, &w), 1);
	assert_int_equal(w.n, 2);
	check_pkt(w.p[1], 1, 4);
	wave_free(&w);
	assert_int_equal(sync_queued_total(s), 0);

	/* one live slot: every packet is a wave */
	push(s, 0, 5, 0);
	assert_int_equal(pop(s, 0, &w), 1);
	assert_int_equal(w.n, 1);
	check_pkt(w.p[0], 0, 5);
	wave_free(&w);

	/* all gone: what is queued goes out, then nothing; pushes are
	 * refused */
	push(s, 0, 6, 0);
	push(s, 0, 7, 0);
	sync_slot_gone(s, 0);
	assert_int_equal(sync_live_slots(s), 0);
	assert_int_equal(pop(s, 0, &w), 1);
	assert_int_equal(w.n, 1);
	check_pkt(w.p[0], 0, 6);
	wave_free(&w);
	assert_int_equal(pop(s, 0, &w), 1);
	check_pkt(w.p[0], 0, 7);
	wave_free(&w);
	assert_int_equal(pop(s, 0, &w), 0);
	assert_int_equal(sync_push(s, 0, pkt(0, 8), 0), GROVE_ECLOSED);
	assert_int_equal(sync_queued_total(s), 0);
	sync_destroy(s);

	/* A share cut short by the loss is dropped; whole ones are kept. */
	s = sync_new(SYNC_WAIT_FOR_ALL, 2, 0);
	assert_int_equal(sync_push_share(s, 0, 2, 0), 0);
	push(s, 0, 1, 0);
	push(s, 0, 2, 0);
	assert_int_equal(sync_push_share(s, 0, 3, 0), 0);
	push(s, 0, 3, 0);
	sync_slot_gone(s, 0);
	assert_int_equal(sync_queued(s, 0), 2);
	push(s, 1, 1, 0);
	assert_int_equal(pop(s, 0, &w), 1);
	assert_int_equal(w.n, 3);
	check_pkt(w.p[0], 0, 1);
	check_pkt(w.p[1], 0, 2);
	check_pkt(w.p[2], 1, 1);
	wave_free(&w);
	push(s, 1, 2, 0);
	assert_int_equal(pop(s, 0, &w), 1);
	assert_int_equal(w.n, 1);
	wave_free(&w);
	assert_int_equal(sync_queued_total(s), 0);
	sync_destroy(s);
}

static void
test_bad_slot_and_ownership(void **unused)
{
	sync_state *s = sync_new(SYNC_WAIT_FOR_ALL, 2, 0);
	assert_int_equal(sync_push(s, 2, pkt(2, 0), 0), GROVE_ERANGE);
	assert_int_equal(sync_push(s, 0, NULL, 0), GROVE_EINVAL);
	assert_int_equal(sync_queued(s, 2), 0);
	/* destroy frees whatever is still queued (checked by ASan) */
	for (int i = 0; i < 100; i++)
		push(s, 0, i, 0);
	sync_destroy(s);
	sync_destroy(NULL);

	s = sync_new(SYNC_DONT_WAIT, 2, 0);
	assert_int_equal(sync_push(s, 5, pkt(5, 0), 0), GROVE_ERANGE);
	push(s, 1, 0, 0);
	sync_destroy(s);

	s = sync_new(SYNC_TIMEOUT, 2, 5);
	push(s, 1, 0, 0);
	sync_destroy(s);

	/* a stream with no children at this node releases nothing */
	s = sync_new(SYNC_WAIT_FOR_ALL, 0, 0);
	assert_non_null(s);
	wave w;
	assert_int_equal(sync_push(s, 0, pkt(0, 0), 0), GROVE_ERANGE);
	assert_int_equal(pop(s, 0, &w), 0);
	sync_destroy(s);
}

static void
test_timeout_partial_waves(void **unused)
{
	sync_state *s = sync_new(SYNC_TIMEOUT, 3, 10);
	wave w;
	assert_true(sync_next_deadline(s) == UINT64_MAX);

	push(s, 0, 1, MS(0));
	assert_true(sync_next_deadline(s) == MS(10));
	assert_int_equal(pop(s, MS(9), &w), 0);
	assert_int_equal(pop(s, MS(10), &w), 1);
	assert_int_equal(w.n, 1);
	assert_int_equal(w.slot[0], 0);
	check_pkt(w.p[0], 0, 1);
	wave_free(&w);
	assert_true(sync_next_deadline(s) == UINT64_MAX);

	/* the deadline follows the oldest packet, not the newest */
	push(s, 1, 1, MS(20));
	push(s, 2, 1, MS(25));
	assert_true(sync_next_deadline(s) == MS(30));
	assert_int_equal(pop(s, MS(29), &w), 0);
	assert_int_equal(pop(s, MS(30), &w), 1);
	assert_int_equal(w.n, 2);
	assert_int_equal(w.slot[0], 1);
	assert_int_equal(w.slot[1], 2);
	wave_free(&w);

	/* after a partial wave the next deadline is the next oldest's */
	push(s, 0, 2, MS(40));
	push(s, 0, 3, MS(41));
	push(s, 1, 2, MS(45));
	assert_true(sync_next_deadline(s) == MS(50));
	assert_int_equal(pop(s, MS(50), &w), 1);
	assert_int_equal(w.n, 2);
	check_pkt(w.p[0], 0, 2);
	check_pkt(w.p[1], 1, 2);
	wave_free(&w);
	assert_true(sync_next_deadline(s) == MS(51));
	assert_int_equal(sync_queued(s, 0), 1);
	assert_int_equal(pop(s, MS(50), &w), 0);

	/* a full wave does not wait for the deadline */
	push(s, 1, 3, MS(52));
	push(s, 2, 3, MS(52));
	assert_int_equal(pop(s, MS(52), &w), 1);
	assert_int_equal(w.n, 3);
	check_pkt(w.p[0], 0, 3);
	wave_free(&w);
	assert_true(sync_next_deadline(s) == UINT64_MAX);

	/* changing the timeout moves the deadline */
	push(s, 2, 4, MS(60));
	sync_set_timeout(s, 100);
	assert_true(sync_next_deadline(s) == MS(160));
	sync_set_timeout(s, 0);
	assert_true(sync_next_deadline(s) == MS(60));
	assert_int_equal(pop(s, MS(60), &w), 1);
	assert_int_equal(w.n, 1);
	wave_free(&w);

	/* a slot going away keeps what it sent, and its deadline */
	sync_set_timeout(s, 10);
	push(s, 0, 5, MS(70));
	push(s, 1, 5, MS(75));
	assert_true(sync_next_deadline(s) == MS(80));
	sync_slot_gone(s, 0);
	assert_true(sync_next_deadline(s) == MS(80));
	/* and may complete a wave: slots 1 and 2 are live, 2 is empty */
	assert_int_equal(pop(s, MS(76), &w), 0);
	push(s, 2, 5, MS(76));
	assert_int_equal(pop(s, MS(76), &w), 1);
	assert_int_equal(w.n, 3);
	check_pkt(w.p[0], 0, 5);
	wave_free(&w);
	sync_destroy(s);
}

static void
test_dont_wait_order(void **unused)
{
	sync_state *s = sync_new(SYNC_DONT_WAIT, 3, 0);
	wave w;
	push(s, 2, 1, 0);
	push(s, 0, 1, 0);
	push(s, 2, 2, 0);
	push(s, 1, 1, 0);
	push(s, 0, 2, 0);
	assert_int_equal(sync_queued(s, 0), 2);
	assert_int_equal(sync_queued(s, 2), 2);
	assert_int_equal(sync_queued_total(s), 5);
	assert_true(sync_next_deadline(s) == UINT64_MAX);

	static const uint32_t slots[] = {2, 0, 2, 1, 0};
	static const int32_t seqs[] = {1, 1, 2, 1, 2};
	for (int i = 0; i < 3; i++) {
		assert_int_equal(pop(s, 0, &w), 1);
		assert_int_equal(w.n, 1);
		assert_int_equal(w.slot[0], slots[i]);
		check_pkt(w.p[0], slots[i], seqs[i]);
		wave_free(&w);
	}
	/* left: (1,1) (0,2); add more and lose slot 0 */
	push(s, 0, 3, 0);
	push(s, 2, 3, 0);
	sync_slot_gone(s, 0);
	assert_int_equal(sync_queued_total(s), 4);
	static const uint32_t left_slots[] = {1, 0, 0, 2};
	static const int32_t left_seqs[] = {1, 2, 3, 3};
	for (int i = 0; i < 4; i++) {
		assert_int_equal(pop(s, 0, &w), 1);
		check_pkt(w.p[0], left_slots[i], left_seqs[i]);
		wave_free(&w);
	}
	assert_int_equal(pop(s, 0, &w), 0);
	assert_int_equal(sync_queued_total(s), 0);
	sync_destroy(s);
}

/* Many waves over 64 slots with packets arriving out of step: every wave
 * has one packet per slot, each slot's packets stay in order, and the ring
 * wraps and grows along the way. */
static void
test_many_waves(void **unused)
{
	enum { SLOTS = 64, ROUNDS = 500 };
	sync_state *s = sync_new(SYNC_WAIT_FOR_ALL, SLOTS, 0);
	int32_t next_seq[SLOTS] = {0};
	int32_t want_seq = 0;
	size_t waves = 0;
	wave w;
	for (int r = 0; r < ROUNDS; r++) {
		/* every slot sends one packet a round, and a burst of four
		 * every fourth round, each slot in a different round */
		for (uint32_t i = 0; i < SLOTS; i++) {
			int k = (r % 4 == (int)(i % 4)) ? 4 : 1;
			for (int j = 0; j < k && next_seq[i] < ROUNDS; j++)
				push(s, i, next_seq[i]++, 0);
		}
		while (pop(s, 0, &w)) {
			assert_int_equal(w.n, SLOTS);
			for (uint32_t i = 0; i < SLOTS; i++) {
				assert_int_equal(w.slot[i], i);
				check_pkt(w.p[i], i, want_seq);
			}
			want_seq++;
			waves++;
			wave_free(&w);
		}
	}
	assert_int_equal(waves, ROUNDS);
	assert_int_equal(sync_queued_total(s), 0);
	sync_destroy(s);
}

/* Re-parenting: slot 1 (a lost CP) has sent waves 0-2 and is gone; its
 * two children join as slots 2 and 3, each with placeholders for the
 * waves slot 1's queue feeds (1 and 2; wave 0 is out already), so their
 * first real shares go into wave 3 together with slot 0's fourth. */
static void
test_added_slots_padded(void **unused)
{
	sync_state *s = sync_new(SYNC_WAIT_FOR_ALL, 2, 0);
	assert_non_null(s);
	wave w;
	for (int32_t i = 0; i < 3; i++)
		push(s, 1, i, 0);
	push(s, 0, 0, 0);
	assert_int_equal(pop(s, 0, &w), 1);
	assert_int_equal(w.n, 2);
	wave_free(&w);
	assert_int_equal(sync_shares_in(s, 1), 3);
	/* A share part-way in is dropped with the slot; complete ones stay. */
	assert_int_equal(sync_push_share(s, 1, 2, 0), 0);
	push(s, 1, 99, 0);
	sync_slot_gone(s, 1);
	assert_int_equal(sync_shares_in(s, 1), 3);
	assert_int_equal(sync_add_slot(s), 2);
	assert_int_equal(sync_add_slot(s), 3);
	assert_int_equal(sync_live_slots(s), 3);
	for (uint32_t k = 2; k <= 3; k++) {
		assert_int_equal(sync_pad(s, k, 2), 0);
		assert_int_equal(sync_shares_in(s, k), 0);
		assert_int_equal(sync_queued(s, k), 2);
	}
	/* Waves 1 and 2: slot 0 and slot 1's queued shares, with the
	 * placeholders (taken, empty, without info). */
	for (int32_t i = 1; i <= 2; i++) {
		push(s, 0, i, 0);
		assert_int_equal(pop(s, 0, &w), 1);
		assert_int_equal(w.n, 2);
		check_pkt(w.p[0], 0, i);
		check_pkt(w.p[1], 1, i);
		const unsigned char *took = NULL;
		grove_packet **info = NULL;
		assert_int_equal(sync_wave_parts(s, &took, &info), 1);
		assert_int_equal(took[2], 1);
		assert_int_equal(took[3], 1);
		assert_null(info[2]);
		wave_free(&w);
	}
	/* Wave 3 waits for both new slots. */
	push(s, 0, 3, 0);
	push(s, 2, 3, 0);
	assert_int_equal(pop(s, 0, &w), 0);
	assert_true(sync_waits_on(s, 3));
	push(s, 3, 3, 0);
	assert_int_equal(pop(s, 0, &w), 1);
	assert_int_equal(w.n, 3);
	for (size_t i = 0; i < 3; i++)
		check_pkt(w.p[i], w.slot[i], 3);
	wave_free(&w);
	assert_int_equal(sync_shares_in(s, 2), 1);
	/* Placeholders only for wait_for_all, and never in a gone slot. */
	assert_int_equal(sync_pad(s, 1, 1), GROVE_EPROTO);
	assert_int_equal(sync_pad(s, 9, 1), GROVE_EINVAL);
	sync_destroy(s);
	s = sync_new(SYNC_TIMEOUT, 0, 100);
	assert_int_equal(sync_add_slot(s), 0);
	assert_int_equal(sync_pad(s, 0, 1), GROVE_EINVAL);
	assert_int_equal(sync_pad(s, 0, 0), 0);
	push(s, 0, 1, 0);
	assert_int_equal(pop(s, MS(100), &w), 1);
	wave_free(&w);
	sync_destroy(s);
	s = sync_new(SYNC_DONT_WAIT, 1, 0);
	assert_int_equal(sync_add_slot(s), 1);
	push(s, 1, 1, 0);
	assert_int_equal(sync_shares_in(s, 1), 0);
	assert_int_equal(pop(s, 0, &w), 1);
	wave_free(&w);
	sync_destroy(s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kind_names),
		cmocka_unit_test(test_wait_for_all_basic),
		cmocka_unit_test(test_bytes_and_waits_on),
		cmocka_unit_test(test_wait_for_all_slot_gone),
		cmocka_unit_test(test_bad_slot_and_ownership),
		cmocka_unit_test(test_timeout_partial_waves),
		cmocka_unit_test(test_dont_wait_order),
		cmocka_unit_test(test_many_waves),
		cmocka_unit_test(test_shares_pair_waves),
		cmocka_unit_test(test_empty_shares),
		cmocka_unit_test(test_share_errors),
		cmocka_unit_test(test_timeout_takes_whole_shares),
		cmocka_unit_test(test_added_slots_padded),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

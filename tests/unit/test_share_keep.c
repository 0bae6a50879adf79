/* The shares a node keeps for a resend after re-parenting
 * (src/tbon/share_keep.h): order, trimming, references, the caps. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "grove/error.h"
#include "grove/packet.h"
#include "tbon/share_keep.h"

static grove_packet *
pkt(int32_t v)
{
	grove_packet *p = NULL;
	assert_int_equal(grove_packet_pack(&p, 1, 0, "%d", v), 0);
	return p;
}

static int32_t
val(const grove_packet *p)
{
	int32_t v = 0;
	assert_int_equal(grove_packet_unpack(p, "%d", &v), 0);
	return v;
}

/* What share_keep_emit hands out, as values ("%d" packets). */
typedef struct got {
	int32_t v[64];
	size_t n;
} got;

static int
take(void *arg, grove_packet *p)
{
	got *g = arg;
	assert_true(g->n < 64);
	g->v[g->n++] = val(p);
	return 0;
}

static got
emitted(const share_keep *k, uint32_t i)
{
	got g = {.n = 0};
	assert_int_equal(share_keep_emit(k, i, take, &g), 0);
	return g;
}

/* Shares of one packet, of several with an announcement, and empty ones
 * come back in order with their packets; trimming drops the old ones. */
static void
test_order_and_trim(void **unused)
{
	(void)unused;
	share_keep k = {0};
	assert_int_equal(share_keep_first(&k), UINT64_MAX);
	grove_packet *a = pkt(1), *b = pkt(2), *c = pkt(3), *ann = pkt(99);
	grove_packet *two[2] = {b, c};
	assert_int_equal(share_keep_push(&k, 5, NULL, &a, 1), 0);
	assert_int_equal(share_keep_push(&k, 6, ann, two, 2), 0);
	assert_int_equal(share_keep_push(&k, 7, ann, NULL, 0), 0);
	/* Numbers only grow. */
	assert_int_equal(share_keep_push(&k, 7, NULL, &a, 1), GROVE_EINVAL);
	assert_int_equal(share_keep_count(&k), 3);
	assert_int_equal(share_keep_first(&k), 5);
	const kept_share *s = share_keep_at(&k, 1);
	assert_int_equal(s->num, 6);
	assert_true(s->has_announce);
	assert_int_equal(s->n, 2);
	got g = emitted(&k, 1);
	assert_int_equal(g.n, 3);
	assert_int_equal(g.v[0], 99);
	assert_int_equal(g.v[1], 2);
	assert_int_equal(g.v[2], 3);
	g = emitted(&k, 0);
	assert_int_equal(g.n, 1);
	assert_int_equal(g.v[0], 1);
	assert_int_equal(share_keep_at(&k, 2)->n, 0);
	assert_int_equal(emitted(&k, 2).n, 1); /* its announcement */
	assert_null(share_keep_at(&k, 3));
	size_t bytes = k.bytes;
	assert_true(bytes >= 4 * grove_packet_size(a));
	/* The caller's references are its own. */
	grove_packet_unref(a);
	grove_packet_unref(b);
	grove_packet_unref(c);
	grove_packet_unref(ann);
	share_keep_trim(&k, 6);
	assert_int_equal(share_keep_count(&k), 2);
	assert_int_equal(share_keep_first(&k), 6);
	assert_true(k.bytes < bytes);
	share_keep_trim(&k, 6);
	assert_int_equal(share_keep_count(&k), 2);
	share_keep_trim(&k, UINT64_MAX);
	assert_int_equal(share_keep_count(&k), 0);
	assert_int_equal(k.bytes, 0);
	share_keep_fini(&k);
}

/* The ring grows and wraps over many shares pushed and trimmed. */
static void
test_wraps(void **unused)
{
	(void)unused;
	share_keep k = {0};
	uint64_t next = 0;
	for (int round = 0; round < 50; round++) {
		for (int i = 0; i < 37; i++, next++) {
			grove_packet *p = pkt((int32_t)next);
			assert_int_equal(share_keep_push(&k, next, NULL, &p, 1), 0);
			grove_packet_unref(p);
		}
		share_keep_trim(&k, next - 20);
		assert_int_equal(share_keep_count(&k), 20);
		for (uint32_t i = 0; i < 20; i++) {
			got g = emitted(&k, i);
			assert_int_equal(g.n, 1);
			assert_int_equal(g.v[0], (int32_t)(next - 20 + i));
		}
	}
	share_keep_fini(&k);
}

/* Past a cap the oldest go, counted, but never the newest one. */
static void
test_caps(void **unused)
{
	(void)unused;
	share_keep k = {0};
	k.max_shares = 3;
	for (uint64_t i = 0; i < 5; i++) {
		grove_packet *p = pkt((int32_t)i);
		assert_int_equal(share_keep_push(&k, i, NULL, &p, 1), 0);
		grove_packet_unref(p);
	}
	assert_int_equal(share_keep_count(&k), 3);
	assert_int_equal(k.dropped, 2);
	assert_int_equal(share_keep_first(&k), 2);
	share_keep_fini(&k);
	share_keep b = {0};
	uint8_t bytes[1000] = {0};
	b.max_bytes = 2500;
	for (uint64_t i = 0; i < 4; i++) {
		grove_packet *p = NULL;
		assert_int_equal(grove_packet_pack(&p, 1, 0, "%auc", bytes,
		    (uint64_t)sizeof bytes), 0);
		assert_int_equal(share_keep_push(&b, i, NULL, &p, 1), 0);
		grove_packet_unref(p);
	}
	assert_int_equal(share_keep_count(&b), 2);
	assert_true(b.bytes <= 2500);
	/* One share over the cap on its own is kept all the same. */
	b.max_bytes = 10;
	grove_packet *p = pkt(7);
	assert_int_equal(share_keep_push(&b, 9, NULL, &p, 1), 0);
	grove_packet_unref(p);
	assert_int_equal(share_keep_count(&b), 1);
	assert_int_equal(share_keep_first(&b), 9);
	share_keep_fini(&b);
}

/* Large shares are kept by reference between small copied ones; the
 * ring of copies wraps and grows; everything comes back whole. */
static void
test_copied_and_referenced(void **unused)
{
	(void)unused;
	share_keep k = {0};
	uint8_t big[SHARE_KEEP_COPY_MAX] = {0};
	uint64_t next = 0, first = 0;
	for (int round = 0; round < 300; round++) {
		grove_packet *p = NULL;
		if (round % 7 == 3) {
			big[0] = (uint8_t)round;
			assert_int_equal(grove_packet_pack(&p, 1, 0, "%auc", big,
			    (uint64_t)sizeof big), 0);
		} else {
			p = pkt((int32_t)next);
		}
		assert_int_equal(share_keep_push(&k, next, NULL, &p, 1), 0);
		assert_int_equal(share_keep_at(&k, share_keep_count(&k) -
		    1)->copied, round % 7 != 3);
		grove_packet_unref(p);
		next++;
		/* Trim unevenly: the ring's live part moves and wraps. */
		if (round % 5 == 4) {
			first += 3 + (uint64_t)(round % 4);
			share_keep_trim(&k, first);
		}
	}
	for (uint32_t i = 0; i < share_keep_count(&k); i++) {
		const kept_share *s = share_keep_at(&k, i);
		if (!s->copied)
			continue;
		got g = emitted(&k, i);
		assert_int_equal(g.n, 1);
		assert_int_equal(g.v[0], (int32_t)s->num);
	}
	share_keep_fini(&k);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order_and_trim),
		cmocka_unit_test(test_wraps),
		cmocka_unit_test(test_caps),
		cmocka_unit_test(test_copied_and_referenced),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

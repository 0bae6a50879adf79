/* Unit tests for the shared-memory rings of Grove MPI (src/mpi/ring.c):
 * records in order, wrap-around with pad records, a full ring refused and
 * flagged, the space-wanted flag handed to the consumer once. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mpi/ring.h"

#define CAP 4096u

/* The producer's copy of the consumer's head (one producer per test). */
static uint64_t head_cache;

struct test_ring {
	struct mpi_ring_hdr hdr;
	char data[CAP];
};

static struct test_ring *
ring_new(void)
{
	head_cache = 0;
	struct test_ring *r = aligned_alloc(64, sizeof(*r));
	assert_non_null(r);
	memset(r, 0, sizeof(*r));
	return r;
}

static void
put(struct test_ring *r, uint32_t payload, uint8_t mark)
{
	struct mpi_wire *w = mpi_ring_reserve(&r->hdr, CAP,
	                                      mpi_wire_rec_bytes(payload),
	                                      &head_cache);
	assert_non_null(w);
	w->type = MPI_W_EAGER;
	w->tag = mark;
	w->bytes = payload;
	memset((char *)w + MPI_WIRE_HDR, mark, payload);
	mpi_ring_commit(&r->hdr, CAP, w);
}

static void
get(struct test_ring *r, uint32_t payload, uint8_t mark)
{
	struct mpi_wire *w = mpi_ring_peek(&r->hdr, CAP);
	assert_non_null(w);
	assert_int_equal(w->type, MPI_W_EAGER);
	assert_int_equal(w->tag, mark);
	assert_int_equal(w->bytes, payload);
	const unsigned char *p = (const unsigned char *)w + MPI_WIRE_HDR;
	for (uint32_t i = 0; i < payload; i++)
		assert_int_equal(p[i], mark);
	mpi_ring_release(&r->hdr, CAP, w);
}

static void
test_rec_bytes(void **state)
{
	(void)state;
	/* A 56-byte header: up to 8 payload bytes share its line. */
	assert_int_equal(mpi_wire_rec_bytes(0), 64);
	assert_int_equal(mpi_wire_rec_bytes(8), 64);
	assert_int_equal(mpi_wire_rec_bytes(9), 128);
	assert_int_equal(mpi_wire_rec_bytes(72), 128);
	assert_int_equal(mpi_wire_rec_bytes(73), 192);
}

static void
test_order_and_empty(void **state)
{
	(void)state;
	struct test_ring *r = ring_new();
	assert_null(mpi_ring_peek(&r->hdr, CAP));
	for (int i = 0; i < 10; i++)
		put(r, (uint32_t)i * 10, (uint8_t)(i + 1));
	for (int i = 0; i < 10; i++)
		get(r, (uint32_t)i * 10, (uint8_t)(i + 1));
	assert_null(mpi_ring_peek(&r->hdr, CAP));
	free(r);
}

static void
test_wrap_with_pad(void **state)
{
	(void)state;
	struct test_ring *r = ring_new();
	/* Many rounds of records whose sizes do not divide the ring: every
	 * position of the wrap is crossed, records stay whole. */
	for (int round = 0; round < 500; round++) {
		uint32_t a = (uint32_t)(round * 37) % 900;
		uint32_t b = (uint32_t)(round * 91) % 1500;
		put(r, a, (uint8_t)round);
		put(r, b, (uint8_t)(round + 100));
		get(r, a, (uint8_t)round);
		get(r, b, (uint8_t)(round + 100));
	}
	assert_null(mpi_ring_peek(&r->hdr, CAP));
	free(r);
}

static void
test_full_is_refused_and_flagged(void **state)
{
	(void)state;
	struct test_ring *r = ring_new();
	int n = 0;
	struct mpi_wire *w;
	while ((w = mpi_ring_reserve(&r->hdr, CAP, 1024, &head_cache)) != NULL) {
		w->type = MPI_W_EAGER;
		w->bytes = 0;
		w->tag = n;
		mpi_ring_commit(&r->hdr, CAP, w);
		n++;
	}
	assert_int_equal(n, (int)(CAP / 1024));
	assert_int_equal(r->hdr.want_space, 1);
	/* A record larger than the ring never fits. */
	assert_null(mpi_ring_reserve(&r->hdr, CAP, CAP + 64, &head_cache));
	/* The consumer frees one and is told, once, to wake the producer. */
	w = mpi_ring_peek(&r->hdr, CAP);
	assert_non_null(w);
	assert_int_equal(w->tag, 0);
	mpi_ring_release(&r->hdr, CAP, w);
	assert_int_equal(mpi_ring_space_wanted(&r->hdr), 1);
	assert_int_equal(mpi_ring_space_wanted(&r->hdr), 0);
	assert_non_null(mpi_ring_reserve(&r->hdr, CAP, 1024, &head_cache));
	free(r);
}

static void
test_stale_payload_is_not_a_stamp(void **state)
{
	(void)state;
	struct test_ring *r = ring_new();
	/* Payloads full of the numbers a stamp could take: once consumed,
	 * no word of them may look like a record where the next one will
	 * start, however the records fall on later laps. */
	for (int round = 0; round < 300; round++) {
		uint32_t n = 64 + (uint32_t)(round * 40) % 1900;
		struct mpi_wire *w =
			mpi_ring_reserve(&r->hdr, CAP, mpi_wire_rec_bytes(n), &head_cache);
		assert_non_null(w);
		w->type = MPI_W_EAGER;
		w->tag = round;
		w->bytes = n;
		/* Every payload word holds the stamp a record starting at its
		 * line on the next lap would carry. */
		uint64_t pos = r->hdr.tail; /* where w starts in the stream */
		for (uint32_t o = MPI_WIRE_HDR; o + 8 <= MPI_WIRE_HDR + n; o += 8)
			*(uint64_t *)((char *)w + o) = pos + (o & ~63u) + CAP + 1;
		mpi_ring_commit(&r->hdr, CAP, w);
		struct mpi_wire *got = mpi_ring_peek(&r->hdr, CAP);
		assert_ptr_equal(got, w);
		assert_int_equal(got->tag, round);
		mpi_ring_release(&r->hdr, CAP, got);
		assert_null(mpi_ring_peek(&r->hdr, CAP));
	}
	free(r);
}

static void
test_sizes_round_to_lines(void **state)
{
	(void)state;
	struct test_ring *r = ring_new();
	/* A header alone (56 bytes) still takes a whole line: the next
	 * record, and its stamp, start on the next line. */
	struct mpi_wire *a = mpi_ring_reserve(&r->hdr, CAP, MPI_WIRE_HDR, &head_cache);
	assert_non_null(a);
	a->type = MPI_W_FIN;
	mpi_ring_commit(&r->hdr, CAP, a);
	struct mpi_wire *b = mpi_ring_reserve(&r->hdr, CAP, 100, &head_cache);
	assert_non_null(b);
	assert_int_equal((char *)b - (char *)a, 64);
	assert_int_equal(b->rec_bytes, 128);
	b->type = MPI_W_ACK;
	mpi_ring_commit(&r->hdr, CAP, b);
	struct mpi_wire *w = mpi_ring_peek(&r->hdr, CAP);
	assert_int_equal(w->type, MPI_W_FIN);
	mpi_ring_release(&r->hdr, CAP, w);
	w = mpi_ring_peek(&r->hdr, CAP);
	assert_non_null(w);
	assert_int_equal(w->type, MPI_W_ACK);
	mpi_ring_release(&r->hdr, CAP, w);
	assert_null(mpi_ring_peek(&r->hdr, CAP));
	free(r);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rec_bytes),
		cmocka_unit_test(test_order_and_empty),
		cmocka_unit_test(test_wrap_with_pad),
		cmocka_unit_test(test_full_is_refused_and_flagged),
		cmocka_unit_test(test_stale_payload_is_not_a_stamp),
		cmocka_unit_test(test_sizes_round_to_lines),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

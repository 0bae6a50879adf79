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

struct test_ring {
	struct mpi_ring_hdr hdr;
	char data[CAP];
};

static struct test_ring *
ring_new(void)
{
	struct test_ring *r = aligned_alloc(64, sizeof(*r));
	assert_non_null(r);
	memset(r, 0, sizeof(*r));
	return r;
}

static void
put(struct test_ring *r, uint32_t payload, uint8_t mark)
{
	struct mpi_wire *w =
		mpi_ring_reserve(&r->hdr, CAP, mpi_wire_rec_bytes(payload));
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
	assert_int_equal(mpi_wire_rec_bytes(0), 64);
	assert_int_equal(mpi_wire_rec_bytes(1), 128);
	assert_int_equal(mpi_wire_rec_bytes(64), 128);
	assert_int_equal(mpi_wire_rec_bytes(65), 192);
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
	while (mpi_ring_reserve(&r->hdr, CAP, 1024) != NULL) {
		struct mpi_wire *w = (struct mpi_wire *)(r->data +
		                                         (r->hdr.tail & (CAP - 1)));
		w->type = MPI_W_EAGER;
		w->bytes = 0;
		w->tag = n;
		mpi_ring_commit(&r->hdr, CAP, w);
		n++;
	}
	assert_int_equal(n, (int)(CAP / 1024));
	assert_int_equal(r->hdr.want_space, 1);
	/* A record larger than the ring never fits. */
	assert_null(mpi_ring_reserve(&r->hdr, CAP, CAP + 64));
	/* The consumer frees one and is told, once, to wake the producer. */
	struct mpi_wire *w = mpi_ring_peek(&r->hdr, CAP);
	assert_non_null(w);
	assert_int_equal(w->tag, 0);
	mpi_ring_release(&r->hdr, CAP, w);
	assert_int_equal(mpi_ring_space_wanted(&r->hdr), 1);
	assert_int_equal(mpi_ring_space_wanted(&r->hdr), 0);
	assert_non_null(mpi_ring_reserve(&r->hdr, CAP, 1024));
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
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

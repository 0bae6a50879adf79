/* Unit tests of Grove MPI's matching, in one process (a singleton job:
 * no launcher), where every message is a send to oneself and the test
 * decides exactly what is posted and what is unexpected: non-overtaking
 * order across the eager/rendezvous boundary, MPI_ANY_TAG, the first
 * posted receive wins, truncation, cancel, probes, persistent requests.
 * Run twice by CTest: with single-copy transfers and with
 * GROVE_MPI_CMA=0 (chunks through the rings). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <mpi.h>

static const int sizes[] = {0, 1, 100, 4095, 4096, 4097, 16384, 70001, 1 << 20};
#define NSIZES ((int)(sizeof(sizes) / sizeof(sizes[0])))

static void
fill(unsigned char *b, int n, int seed)
{
	for (int i = 0; i < n; i++)
		b[i] = (unsigned char)(seed * 31 + i * 7);
}

static void
check(const unsigned char *b, int n, int seed)
{
	for (int i = 0; i < n; i++)
		if (b[i] != (unsigned char)(seed * 31 + i * 7))
			fail_msg("byte %d of message %d is %u", i, seed, b[i]);
}

static void
test_non_overtaking_across_protocols(void **state)
{
	(void)state;
	/* Sends first (all unexpected), then receives in the same order with
	 * a buffer as large as the largest: each must get its own message. */
	MPI_Request reqs[2 * NSIZES];
	unsigned char *out[2 * NSIZES];
	for (int i = 0; i < 2 * NSIZES; i++) {
		int n = sizes[i % NSIZES];
		out[i] = malloc((size_t)n + 1);
		fill(out[i], n, i);
		assert_int_equal(MPI_Isend(out[i], n, MPI_BYTE, 0, 7, MPI_COMM_WORLD,
		                           &reqs[i]),
		                 MPI_SUCCESS);
	}
	unsigned char *in = malloc(1 << 20);
	for (int i = 0; i < 2 * NSIZES; i++) {
		MPI_Status st;
		assert_int_equal(MPI_Recv(in, 1 << 20, MPI_BYTE, MPI_ANY_SOURCE, 7,
		                          MPI_COMM_WORLD, &st),
		                 MPI_SUCCESS);
		int count;
		MPI_Get_count(&st, MPI_BYTE, &count);
		assert_int_equal(count, sizes[i % NSIZES]);
		assert_int_equal(st.MPI_SOURCE, 0);
		assert_int_equal(st.MPI_TAG, 7);
		check(in, count, i);
	}
	assert_int_equal(MPI_Waitall(2 * NSIZES, reqs, MPI_STATUSES_IGNORE),
	                 MPI_SUCCESS);
	for (int i = 0; i < 2 * NSIZES; i++)
		free(out[i]);
	free(in);
}

static void
test_any_tag_and_tag_selection(void **state)
{
	(void)state;
	int v[3] = {50, 30, 90}, got;
	MPI_Request r[3];
	for (int i = 0; i < 3; i++)
		MPI_Isend(&v[i], 1, MPI_INT, 0, v[i] / 10, MPI_COMM_WORLD, &r[i]);
	MPI_Status st;
	/* A specific tag skips earlier messages of other tags... */
	MPI_Recv(&got, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, &st);
	assert_int_equal(got, 30);
	/* ...and MPI_ANY_TAG takes the oldest that is left. */
	MPI_Recv(&got, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
	assert_int_equal(got, 50);
	assert_int_equal(st.MPI_TAG, 5);
	MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
	assert_int_equal(got, 90);
	MPI_Waitall(3, r, MPI_STATUSES_IGNORE);
}

static void
test_first_posted_receive_wins(void **state)
{
	(void)state;
	int a = -1, b = -1, v1 = 11, v2 = 22;
	MPI_Request ra, rb;
	MPI_Irecv(&a, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &ra);
	MPI_Irecv(&b, 1, MPI_INT, 0, 4, MPI_COMM_WORLD, &rb);
	MPI_Send(&v1, 1, MPI_INT, 0, 4, MPI_COMM_WORLD);
	MPI_Send(&v2, 1, MPI_INT, 0, 4, MPI_COMM_WORLD);
	MPI_Wait(&ra, MPI_STATUS_IGNORE);
	MPI_Wait(&rb, MPI_STATUS_IGNORE);
	assert_int_equal(a, 11);
	assert_int_equal(b, 22);
}

static void
test_truncation_is_reported(void **state)
{
	(void)state;
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	for (int k = 0; k < 2; k++) {
		int n = k ? 100000 : 10; /* eager, then rendezvous */
		int *out = malloc((size_t)n * sizeof(int));
		int *in = calloc((size_t)n, sizeof(int));
		for (int i = 0; i < n; i++)
			out[i] = i + 1;
		MPI_Request r;
		MPI_Isend(out, n, MPI_INT, 0, 1, MPI_COMM_WORLD, &r);
		MPI_Status st;
		int rc = MPI_Recv(in, n / 2, MPI_INT, 0, 1, MPI_COMM_WORLD, &st);
		int cls;
		MPI_Error_class(rc, &cls);
		assert_int_equal(cls, MPI_ERR_TRUNCATE);
		int count;
		MPI_Get_count(&st, MPI_INT, &count);
		assert_int_equal(count, n / 2);
		for (int i = 0; i < n / 2; i++)
			assert_int_equal(in[i], i + 1);
		assert_int_equal(in[n / 2], 0);
		MPI_Wait(&r, MPI_STATUS_IGNORE);
		free(out);
		free(in);
	}
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static void
test_cancel_and_probe(void **state)
{
	(void)state;
	int x = 0, v = 5, flag = 0;
	MPI_Request r;
	MPI_Irecv(&x, 1, MPI_INT, 0, 99, MPI_COMM_WORLD, &r);
	MPI_Cancel(&r);
	MPI_Status st;
	MPI_Wait(&r, &st);
	MPI_Test_cancelled(&st, &flag);
	assert_true(flag);
	/* The cancelled receive must not take a later message. */
	MPI_Send(&v, 1, MPI_INT, 0, 99, MPI_COMM_WORLD);
	MPI_Iprobe(0, 99, MPI_COMM_WORLD, &flag, &st);
	assert_true(flag);
	int count;
	MPI_Get_count(&st, MPI_INT, &count);
	assert_int_equal(count, 1);
	MPI_Iprobe(0, 98, MPI_COMM_WORLD, &flag, &st);
	assert_false(flag);
	MPI_Recv(&x, 1, MPI_INT, 0, 99, MPI_COMM_WORLD, &st);
	assert_int_equal(x, 5);
	assert_false(MPI_Test_cancelled(&st, &flag) != MPI_SUCCESS || flag);
}

static void
test_persistent_requests(void **state)
{
	(void)state;
	int out = 0, in = -1;
	MPI_Request rs, rr;
	MPI_Send_init(&out, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, &rs);
	MPI_Recv_init(&in, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, &rr);
	for (int i = 0; i < 50; i++) {
		out = i * i;
		MPI_Start(&rr);
		MPI_Start(&rs);
		MPI_Request both[2] = {rs, rr};
		MPI_Waitall(2, both, MPI_STATUSES_IGNORE);
		assert_int_equal(in, i * i);
		/* Persistent requests stay allocated. */
		assert_ptr_equal(both[0], rs);
		assert_ptr_equal(both[1], rr);
	}
	MPI_Request_free(&rs);
	MPI_Request_free(&rr);
	assert_ptr_equal(rs, MPI_REQUEST_NULL);
}

static void
test_derived_types_both_sides(void **state)
{
	(void)state;
	/* A vector sent, received as contiguous, in both protocols. */
	for (int k = 0; k < 2; k++) {
		int n = k ? 20000 : 100;
		int *src = malloc((size_t)n * 2 * sizeof(int));
		int *dst = calloc((size_t)n, sizeof(int));
		for (int i = 0; i < 2 * n; i++)
			src[i] = i;
		MPI_Datatype every_other;
		MPI_Type_vector(n, 1, 2, MPI_INT, &every_other);
		MPI_Type_commit(&every_other);
		MPI_Request r;
		MPI_Isend(src, 1, every_other, 0, 8, MPI_COMM_WORLD, &r);
		MPI_Type_free(&every_other); /* still in use by r: must survive */
		MPI_Recv(dst, n, MPI_INT, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Wait(&r, MPI_STATUS_IGNORE);
		for (int i = 0; i < n; i++)
			assert_int_equal(dst[i], 2 * i);
		free(src);
		free(dst);
	}
}

static int
setup(void **state)
{
	(void)state;
	int argc = 0;
	char **argv = NULL;
	return MPI_Init(&argc, &argv) == MPI_SUCCESS ? 0 : -1;
}

static int
teardown(void **state)
{
	(void)state;
	return MPI_Finalize() == MPI_SUCCESS ? 0 : -1;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_non_overtaking_across_protocols),
		cmocka_unit_test(test_any_tag_and_tag_selection),
		cmocka_unit_test(test_first_posted_receive_wins),
		cmocka_unit_test(test_truncation_is_reported),
		cmocka_unit_test(test_cancel_and_probe),
		cmocka_unit_test(test_persistent_requests),
		cmocka_unit_test(test_derived_types_both_sides),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}

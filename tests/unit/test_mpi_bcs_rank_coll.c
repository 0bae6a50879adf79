/* Unit tests of the rank side of Grove MPI's BCS mode: collectives as
 * descriptors (barrier, broadcast, reductions of predefined ops), and a
 * user op's reduction as a schedule of point-to-point steps
 * (mpi_bcs_fixture.h: the fake node manager). */
#include "mpi_bcs_fixture.h"

static void
user_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
	(void)dt;
	for (int i = 0; i < *len; i++)
		((int *)inout)[i] += ((int *)in)[i];
}

static void
test_collectives_are_descriptors(void **state)
{
	(void)state;
	MPI_Comm w = MPI_COMM_WORLD;
	uint32_t seq = w->coll_seq;
	size_t from = log_mark();
	assert_int_equal(MPI_Barrier(w), 0);
	struct bcs_desc d = next_desc(&from, BCS_D_BARRIER);
	/* MPI_COMM_WORLD's rank 0 is world rank 0: ctx is ctx_coll itself. */
	assert_int_equal(d.ctx, w->ctx_coll);
	assert_int_equal(d.seq, seq);
	assert_int_equal(d.tag, NRANKS);
	assert_int_equal(d.me, 0);
	assert_int_equal(d.peer, -1);
	assert_int_equal(d.flags, BCS_F_BLOCKING);
	MPI_Request r;
	assert_int_equal(MPI_Ibarrier(w, &r), 0);
	assert_int_equal(MPI_Wait(&r, MPI_STATUS_IGNORE), 0);
	d = next_desc(&from, BCS_D_BARRIER);
	assert_int_equal(d.seq, seq + 1);
	assert_int_equal(d.flags, 0);

	/* Broadcast from rank 2 (the fake root's pattern). */
	unsigned char b[20] = {0};
	assert_int_equal(MPI_Bcast(b, 5, MPI_INT, 2, w), 0);
	for (int i = 0; i < 20; i++)
		assert_int_equal(b[i], 0xB0 + i % 16);
	d = next_desc(&from, BCS_D_BCAST);
	assert_int_equal(d.seq, seq + 2);
	assert_int_equal(d.peer, 2);
	assert_int_equal(d.peer_world, 2);
	assert_int_equal(d.bytes, 20);
	assert_int_equal(d.addr, id(b));
	/* A non-contiguous datatype: packed at the root, unpacked elsewhere. */
	MPI_Datatype vec;
	MPI_Type_vector(2, 1, 2, MPI_INT, &vec);
	MPI_Type_commit(&vec);
	int v[4] = {1, 2, 3, 4};
	assert_int_equal(MPI_Bcast(v, 1, vec, 0, w), 0);
	d = next_desc(&from, BCS_D_BCAST);
	assert_int_not_equal(d.addr, id(v));
	assert_int_equal(v[1], 2);
	assert_int_equal(MPI_Ibcast(v, 1, vec, 1, w, &r), 0);
	MPI_Type_free(&vec); /* the request keeps it */
	assert_int_equal(MPI_Wait(&r, MPI_STATUS_IGNORE), 0);
	unsigned char pat[8] = {0xB0, 0xB1, 0xB2, 0xB3, 0xB4, 0xB5, 0xB6, 0xB7};
	assert_memory_equal(&v[0], pat, 4);
	assert_int_equal(v[1], 2);
	assert_memory_equal(&v[2], pat + 4, 4);

	/* Reductions of predefined ops on basic types. */
	int in[3] = {1, 2, 3}, out[3] = {0};
	assert_int_equal(MPI_Reduce(in, out, 3, MPI_INT, MPI_SUM, 0, w), 0);
	assert_int_equal(out[2], 12);
	d = next_desc(&from, BCS_D_REDUCE);
	assert_int_equal(d.op, MPI_OPI_SUM);
	assert_int_equal(d.basic, MPI_B_INT);
	assert_int_equal(d.count, 3);
	assert_int_equal(d.bytes, 12);
	assert_int_equal(d.peer, 0);
	assert_int_equal(d.addr, id(in));
	assert_int_equal(d.addr2, id(out));
	assert_int_equal(MPI_Reduce(in, out, 3, MPI_INT, MPI_SUM, 1, w), 0);
	d = next_desc(&from, BCS_D_REDUCE);
	assert_int_equal(d.addr2, 0);
	int io[2] = {5, 6};
	assert_int_equal(MPI_Allreduce(MPI_IN_PLACE, io, 2, MPI_INT, MPI_SUM, w),
	                 0);
	assert_int_equal(io[0], 20);
	d = next_desc(&from, BCS_D_ALLREDUCE);
	assert_int_equal(d.flags, BCS_F_BLOCKING | BCS_F_IN_PLACE);
	assert_int_equal(d.addr, 0);
	assert_int_equal(d.addr2, id(io));
	MPI_Datatype pair;
	MPI_Type_contiguous(2, MPI_INT, &pair);
	MPI_Type_commit(&pair);
	int pin[4] = {1, 2, 3, 4}, pout[4] = {0};
	assert_int_equal(MPI_Iallreduce(pin, pout, 2, pair, MPI_SUM, w, &r), 0);
	assert_int_equal(MPI_Wait(&r, MPI_STATUS_IGNORE), 0);
	assert_int_equal(pout[3], 16);
	d = next_desc(&from, BCS_D_ALLREDUCE);
	assert_int_equal(d.count, 4);
	assert_int_equal(d.flags, 0);
	MPI_Type_free(&pair);
	assert_int_equal(w->coll_seq, seq + 9);
}

static void
test_user_op_runs_as_a_schedule(void **state)
{
	(void)state;
	MPI_Op op;
	assert_int_equal(MPI_Op_create(user_sum, 1, &op), 0);
	int in[3] = {1, 2, 3}, out[3] = {0};
	size_t from = log_mark();
	MPI_Request r;
	assert_int_equal(MPI_Ireduce(in, out, 3, MPI_INT, op, 0, MPI_COMM_WORLD,
	                             &r),
	                 0);
	assert_int_equal(MPI_Wait(&r, MPI_STATUS_IGNORE), 0);
	/* Binomial tree rooted at 0: ten from ranks 1 and 2 each. */
	assert_int_equal(out[0], 21);
	assert_int_equal(out[2], 23);
	assert_int_equal(count_kind(from, BCS_D_REDUCE), 0);
	struct bcs_desc d = next_desc(&from, BCS_D_RECV);
	assert_int_equal(d.ctx, MPI_COMM_WORLD->ctx_coll);
	assert_int_equal(d.peer, 1);
	d = next_desc(&from, BCS_D_RECV);
	assert_int_equal(d.peer, 2);
	MPI_Op_free(&op);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_collectives_are_descriptors),
		cmocka_unit_test(test_user_op_runs_as_a_schedule),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}

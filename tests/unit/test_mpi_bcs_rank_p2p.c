/* Unit tests of the rank side of Grove MPI's BCS mode: start-up (a node
 * manager must take the job) and point-to-point as descriptors: sends and
 * receives, packing, zero bytes and MPI_PROC_NULL, truncation, cancel,
 * probes and matched probes, buffered and persistent sends, a full ring
 * (mpi_bcs_fixture.h: the fake node manager). */
#include "mpi_bcs_fixture.h"

static void
test_init_needs_a_node_manager(void **state)
{
	(void)state;
	char err[256];
	assert_int_equal(mpi_bcs_detect(&job, err, sizeof(err)), 1);
	struct mpi_job direct;
	assert_int_equal(mpi_job_create(&direct, 1, "bcs-unit-direct", 0), 0);
	assert_int_equal(mpi_bcs_detect(&direct, err, sizeof(err)), 0);
	setenv("GROVE_MPI_BCS", "1", 1);
	assert_int_equal(mpi_bcs_detect(&direct, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "no BCS area"));
	unsetenv("GROVE_MPI_BCS");
	mpi_job_close(&direct);

	/* A segment no node manager took: a clear error when the wait ends. */
	struct mpi_job alone;
	assert_int_equal(mpi_job_create(&alone, NRANKS, "bcs-unit-alone", RING),
	                 0);
	mpi_bcs_fini();
	assert_int_equal(mpi_bcs_init(&alone, 0, NRANKS, 0.0, err, sizeof(err)),
	                 -1);
	assert_non_null(strstr(err, "no node manager took the job"));
	assert_false(mpi_bcs_mode);
	mpi_job_close(&alone);
	assert_int_equal(start_bcs(), 0);
	assert_true(mpi_bcs_mode);
	assert_false(mpi_bcs_rr);
}

static void
test_send_and_receive(void **state)
{
	(void)state;
	size_t from = log_mark();
	int out = 42, in = 0;
	MPI_Request r;
	MPI_Status st;
	assert_int_equal(MPI_Isend(&out, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, &r), 0);
	uint64_t rid = id(r);
	assert_int_equal(MPI_Recv(&in, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG,
	                          MPI_COMM_WORLD, &st),
	                 0);
	assert_int_equal(MPI_Wait(&r, MPI_STATUS_IGNORE), 0);
	assert_int_equal(in, 42);
	assert_int_equal(st.MPI_SOURCE, 0);
	assert_int_equal(st.MPI_TAG, 5);
	int n;
	MPI_Get_count(&st, MPI_INT, &n);
	assert_int_equal(n, 1);

	struct bcs_desc s = next_desc(&from, BCS_D_SEND);
	assert_int_equal(s.flags, 0);
	assert_int_equal(s.ctx, MPI_COMM_WORLD->ctx_p2p);
	assert_int_equal(s.me, 0);
	assert_int_equal(s.peer, 0);
	assert_int_equal(s.peer_world, 0);
	assert_int_equal(s.tag, 5);
	assert_int_equal(s.bytes, sizeof(int));
	assert_int_equal(s.addr, id(&out));
	assert_int_equal(s.req, rid);
	struct bcs_desc rv = next_desc(&from, BCS_D_RECV);
	assert_int_equal(rv.flags, BCS_F_BLOCKING);
	assert_int_equal(rv.peer, -1);
	assert_int_equal(rv.peer_world, -1);
	assert_int_equal(rv.tag, -1);
	assert_int_equal(rv.bytes, sizeof(int));
	assert_int_equal(rv.addr, id(&in));

	/* Synchronous and blocking sends say so. */
	from = log_mark();
	assert_int_equal(MPI_Issend(&out, 1, MPI_INT, 0, 6, MPI_COMM_WORLD, &r), 0);
	assert_int_equal(MPI_Recv(&in, 1, MPI_INT, 0, 6, MPI_COMM_WORLD, &st), 0);
	assert_int_equal(MPI_Wait(&r, MPI_STATUS_IGNORE), 0);
	s = next_desc(&from, BCS_D_SEND);
	assert_int_equal(s.flags, BCS_F_SYNC);
	rv = next_desc(&from, BCS_D_RECV);
	assert_int_equal(rv.peer, 0);
	assert_int_equal(rv.peer_world, 0);
	assert_int_equal(rv.tag, 6);
	from = log_mark();
	MPI_Request rr;
	assert_int_equal(MPI_Irecv(&in, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, &rr), 0);
	assert_int_equal(MPI_Send(&out, 1, MPI_INT, 0, 7, MPI_COMM_WORLD), 0);
	assert_int_equal(MPI_Wait(&rr, MPI_STATUS_IGNORE), 0);
	rv = next_desc(&from, BCS_D_RECV);
	assert_int_equal(rv.flags, 0);
	s = next_desc(&from, BCS_D_SEND);
	assert_int_equal(s.flags, BCS_F_BLOCKING);
}

static void
test_noncontiguous_is_packed(void **state)
{
	(void)state;
	MPI_Datatype vec;
	assert_int_equal(MPI_Type_vector(3, 1, 2, MPI_INT, &vec), 0);
	assert_int_equal(MPI_Type_commit(&vec), 0);
	int out[6] = {10, 11, 12, 13, 14, 15}, in[6] = {0};
	MPI_Request r;
	size_t from = log_mark();
	assert_int_equal(MPI_Isend(out, 1, vec, 0, 8, MPI_COMM_WORLD, &r), 0);
	assert_int_equal(MPI_Recv(in, 1, vec, 0, 8, MPI_COMM_WORLD,
	                          MPI_STATUS_IGNORE),
	                 0);
	assert_int_equal(MPI_Wait(&r, MPI_STATUS_IGNORE), 0);
	int want[6] = {10, 0, 12, 0, 14, 0};
	assert_memory_equal(in, want, sizeof(want));
	struct bcs_desc s = next_desc(&from, BCS_D_SEND);
	assert_int_equal(s.bytes, 3 * sizeof(int));
	assert_int_not_equal(s.addr, id(out));
	struct bcs_desc rv = next_desc(&from, BCS_D_RECV);
	assert_int_equal(rv.bytes, 3 * sizeof(int));
	assert_int_not_equal(rv.addr, id(in));
	MPI_Type_free(&vec);
}

static void
test_zero_bytes_and_proc_null(void **state)
{
	(void)state;
	size_t from = log_mark();
	MPI_Request r;
	MPI_Status st;
	assert_int_equal(MPI_Isend(NULL, 0, MPI_INT, 0, 9, MPI_COMM_WORLD, &r), 0);
	assert_int_equal(MPI_Recv(NULL, 0, MPI_INT, 0, 9, MPI_COMM_WORLD, &st), 0);
	assert_int_equal(MPI_Wait(&r, MPI_STATUS_IGNORE), 0);
	int n = -1;
	MPI_Get_count(&st, MPI_INT, &n);
	assert_int_equal(n, 0);
	struct bcs_desc s = next_desc(&from, BCS_D_SEND);
	assert_int_equal(s.bytes, 0);
	next_desc(&from, BCS_D_RECV);

	/* MPI_PROC_NULL posts nothing: only the barrier's descriptor. */
	from = log_mark();
	int x = 1;
	assert_int_equal(MPI_Send(&x, 1, MPI_INT, MPI_PROC_NULL, 1,
	                          MPI_COMM_WORLD),
	                 0);
	assert_int_equal(MPI_Recv(&x, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD,
	                          &st),
	                 0);
	assert_int_equal(st.MPI_SOURCE, MPI_PROC_NULL);
	assert_int_equal(MPI_Isend(&x, 1, MPI_INT, MPI_PROC_NULL, 1,
	                           MPI_COMM_WORLD, &r),
	                 0);
	assert_int_equal(MPI_Wait(&r, MPI_STATUS_IGNORE), 0);
	assert_int_equal(MPI_Barrier(MPI_COMM_WORLD), 0);
	assert_int_equal(log_mark() - from, 1);
	assert_int_equal(count_kind(from, BCS_D_BARRIER), 1);
}

static void
test_truncation(void **state)
{
	(void)state;
	int out[4] = {1, 2, 3, 4}, in[4] = {0};
	MPI_Request r;
	MPI_Status st;
	assert_int_equal(MPI_Isend(out, 4, MPI_INT, 0, 10, MPI_COMM_WORLD, &r), 0);
	assert_int_equal(MPI_Recv(in, 2, MPI_INT, 0, 10, MPI_COMM_WORLD, &st),
	                 MPI_ERR_TRUNCATE);
	assert_int_equal(st.MPI_ERROR, MPI_ERR_TRUNCATE);
	int n;
	MPI_Get_count(&st, MPI_INT, &n);
	assert_int_equal(n, 2);
	assert_int_equal(in[0], 1);
	assert_int_equal(in[1], 2);
	assert_int_equal(in[2], 0);
	assert_int_equal(MPI_Wait(&r, MPI_STATUS_IGNORE), 0);
}

static void
test_cancel(void **state)
{
	(void)state;
	int x = 17, flag = -1;
	MPI_Request r;
	MPI_Status st;
	size_t from = log_mark();
	assert_int_equal(MPI_Irecv(&x, 1, MPI_INT, 0, 99, MPI_COMM_WORLD, &r), 0);
	uint64_t rid = id(r);
	assert_int_equal(MPI_Cancel(&r), 0);
	assert_int_equal(MPI_Wait(&r, &st), 0);
	MPI_Test_cancelled(&st, &flag);
	assert_int_equal(flag, 1);
	assert_int_equal(x, 17);
	struct bcs_desc c = next_desc(&from, BCS_D_CANCEL);
	assert_int_equal(c.req, rid);
	assert_int_equal(c.ctx, MPI_COMM_WORLD->ctx_p2p);

	/* Too late: the receive completes with its message. */
	int y = 5;
	MPI_Request s;
	assert_int_equal(MPI_Irecv(&x, 1, MPI_INT, 0, 98, MPI_COMM_WORLD, &r), 0);
	assert_int_equal(MPI_Isend(&y, 1, MPI_INT, 0, 98, MPI_COMM_WORLD, &s), 0);
	assert_int_equal(MPI_Wait(&s, MPI_STATUS_IGNORE), 0);
	assert_int_equal(MPI_Cancel(&r), 0);
	assert_int_equal(MPI_Wait(&r, &st), 0);
	MPI_Test_cancelled(&st, &flag);
	assert_int_equal(flag, 0);
	assert_int_equal(x, 5);
	/* The "not cancelled" answer comes after the request is gone: it
	 * must not be touched (ASan says when it is). */
	assert_int_equal(MPI_Barrier(MPI_COMM_WORLD), 0);
}

static void
test_iprobe(void **state)
{
	(void)state;
	int v = 77, got = 0, flag = -1;
	MPI_Request s;
	MPI_Status st;
	size_t from = log_mark();
	assert_int_equal(MPI_Isend(&v, 1, MPI_INT, 0, 12, MPI_COMM_WORLD, &s), 0);
	/* The first call asks; the answer comes with a later one. */
	assert_int_equal(MPI_Iprobe(0, 12, MPI_COMM_WORLD, &flag, &st), 0);
	assert_int_equal(flag, 0);
	while (!flag)
		assert_int_equal(MPI_Iprobe(0, 12, MPI_COMM_WORLD, &flag, &st), 0);
	assert_int_equal(st.MPI_SOURCE, 0);
	assert_int_equal(st.MPI_TAG, 12);
	int n;
	MPI_Get_count(&st, MPI_INT, &n);
	assert_int_equal(n, 1);
	struct bcs_desc p = next_desc(&from, BCS_D_PROBE);
	assert_int_equal(p.flags, 0);
	assert_int_equal(p.peer, 0);
	assert_int_equal(p.tag, 12);
	assert_int_equal(MPI_Recv(&got, 1, MPI_INT, 0, 12, MPI_COMM_WORLD,
	                          MPI_STATUS_IGNORE),
	                 0);
	assert_int_equal(got, 77);
	assert_int_equal(MPI_Wait(&s, MPI_STATUS_IGNORE), 0);

	/* Nothing there: "no" answers, and each answered call asks anew. */
	from = log_mark();
	while (count_kind(from, BCS_D_PROBE) < 3) {
		assert_int_equal(MPI_Iprobe(MPI_ANY_SOURCE, 13, MPI_COMM_WORLD, &flag,
		                            MPI_STATUS_IGNORE),
		                 0);
		assert_int_equal(flag, 0);
	}
	p = next_desc(&from, BCS_D_PROBE);
	assert_int_equal(p.peer, -1);
	assert_int_equal(p.peer_world, -1);
}

static void
test_probe_and_matched_probe(void **state)
{
	(void)state;
	int v[2] = {3, 4}, got[2] = {0};
	MPI_Request s;
	MPI_Status st;
	size_t from = log_mark();
	assert_int_equal(MPI_Isend(v, 2, MPI_INT, 0, 14, MPI_COMM_WORLD, &s), 0);
	assert_int_equal(MPI_Probe(MPI_ANY_SOURCE, 14, MPI_COMM_WORLD, &st), 0);
	assert_int_equal(st.MPI_SOURCE, 0);
	assert_int_equal(st.MPI_TAG, 14);
	struct bcs_desc p = next_desc(&from, BCS_D_PROBE);
	assert_int_equal(p.flags, BCS_F_BLOCKING);

	MPI_Message msg;
	assert_int_equal(MPI_Mprobe(0, 14, MPI_COMM_WORLD, &msg, &st), 0);
	struct bcs_desc mp = next_desc(&from, BCS_D_PROBE);
	assert_int_equal(mp.flags, BCS_F_BLOCKING | BCS_F_TAKE);
	/* Taken: a receive does not get it, only MPI_Mrecv does. */
	assert_int_equal(MPI_Mrecv(got, 2, MPI_INT, &msg, &st), 0);
	assert_true(msg == MPI_MESSAGE_NULL);
	assert_int_equal(got[1], 4);
	struct bcs_desc rv = next_desc(&from, BCS_D_RECV);
	assert_int_equal(rv.flags, BCS_F_TAKEN | BCS_F_BLOCKING);
	assert_int_equal(rv.addr2, mp.req);
	assert_int_equal(rv.peer, 0);
	assert_int_equal(MPI_Wait(&s, MPI_STATUS_IGNORE), 0);

	/* Improbe and Imrecv. */
	int flag = 0;
	assert_int_equal(MPI_Isend(v, 2, MPI_INT, 0, 15, MPI_COMM_WORLD, &s), 0);
	while (!flag)
		assert_int_equal(MPI_Improbe(0, 15, MPI_COMM_WORLD, &flag, &msg, &st),
		                 0);
	MPI_Request r;
	memset(got, 0, sizeof(got));
	assert_int_equal(MPI_Imrecv(got, 2, MPI_INT, &msg, &r), 0);
	assert_int_equal(MPI_Wait(&r, &st), 0);
	assert_int_equal(got[0], 3);
	assert_int_equal(st.MPI_TAG, 15);
	assert_int_equal(MPI_Wait(&s, MPI_STATUS_IGNORE), 0);
}

static void
test_bsend_completes_at_once(void **state)
{
	(void)state;
	static char buf[1024];
	assert_int_equal(MPI_Buffer_attach(buf, sizeof(buf)), 0);
	int v = 9, got = 0;
	assert_int_equal(MPI_Bsend(&v, 1, MPI_INT, 0, 16, MPI_COMM_WORLD), 0);
	v = 10; /* the message is a copy */
	assert_int_equal(MPI_Recv(&got, 1, MPI_INT, 0, 16, MPI_COMM_WORLD,
	                          MPI_STATUS_IGNORE),
	                 0);
	assert_int_equal(got, 9);
	void *b;
	int size;
	assert_int_equal(MPI_Buffer_detach(&b, &size), 0);
	assert_ptr_equal(b, buf);
}

static void
test_persistent(void **state)
{
	(void)state;
	int out = 0, in = -1;
	MPI_Request rq[2];
	assert_int_equal(MPI_Send_init(&out, 1, MPI_INT, 0, 17, MPI_COMM_WORLD,
	                               &rq[0]),
	                 0);
	assert_int_equal(MPI_Recv_init(&in, 1, MPI_INT, MPI_ANY_SOURCE, 17,
	                               MPI_COMM_WORLD, &rq[1]),
	                 0);
	for (int i = 0; i < 3; i++) {
		out = 100 + i;
		assert_int_equal(MPI_Startall(2, rq), 0);
		assert_int_equal(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE), 0);
		assert_int_equal(in, 100 + i);
	}
	MPI_Request_free(&rq[0]);
	MPI_Request_free(&rq[1]);
}

static void
test_full_ring_waits_for_room(void **state)
{
	(void)state;
	enum { N = 100 }; /* more than three rings' worth */
	int out[N], in[N];
	MPI_Request s[N];
	pthread_mutex_lock(&NM.mu);
	NM.hold = true;
	pthread_mutex_unlock(&NM.mu);
	for (int i = 0; i < N; i++) {
		out[i] = i;
		assert_int_equal(MPI_Isend(&out[i], 1, MPI_INT, 0, 18, MPI_COMM_WORLD,
		                           &s[i]),
		                 0);
	}
	/* In order: the ring never reorders descriptors. */
	for (int i = 0; i < N; i++)
		assert_int_equal(MPI_Recv(&in[i], 1, MPI_INT, 0, 18, MPI_COMM_WORLD,
		                          MPI_STATUS_IGNORE),
		                 0);
	for (int i = 0; i < N; i++)
		assert_int_equal(in[i], i);
	assert_int_equal(MPI_Waitall(N, s, MPI_STATUSES_IGNORE), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init_needs_a_node_manager),
		cmocka_unit_test(test_send_and_receive),
		cmocka_unit_test(test_noncontiguous_is_packed),
		cmocka_unit_test(test_zero_bytes_and_proc_null),
		cmocka_unit_test(test_truncation),
		cmocka_unit_test(test_cancel),
		cmocka_unit_test(test_iprobe),
		cmocka_unit_test(test_probe_and_matched_probe),
		cmocka_unit_test(test_bsend_completes_at_once),
		cmocka_unit_test(test_persistent),
		cmocka_unit_test(test_full_ring_waits_for_room),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}

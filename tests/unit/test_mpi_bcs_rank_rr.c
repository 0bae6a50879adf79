/* Unit tests of the rank side of Grove MPI's BCS mode: record and
 * replay (GROVE_BCS_RECORD, GROVE_BCS_REPLAY): what tests and wildcard
 * receives return is noted as descriptors, and a replay forces them
 * (mpi_bcs_fixture.h: the fake node manager). */
#include "mpi_bcs_fixture.h"

static void
test_record_notes_what_tests_return(void **state)
{
	(void)state;
	restart("GROVE_BCS_RECORD", "1");
	assert_true(mpi_bcs_rr);
	size_t from = log_mark();
	int v = 1, got = 0, flag = 0, calls = 0;
	MPI_Request rq[3];
	assert_int_equal(MPI_Irecv(&got, 1, MPI_INT, 0, 30, MPI_COMM_WORLD, &rq[0]),
	                 0);
	assert_int_equal(MPI_Isend(&v, 1, MPI_INT, 0, 30, MPI_COMM_WORLD, &rq[1]),
	                 0);
	while (!flag) {
		assert_int_equal(MPI_Test(&rq[0], &flag, MPI_STATUS_IGNORE), 0);
		calls++;
	}
	struct bcs_desc n = await_desc(&from, BCS_D_NOTE);
	assert_int_equal(n.seq, calls - 1);
	assert_int_equal(n.peer, MPI_FN_Test);
	assert_int_equal(n.count, 1);
	assert_int_equal(n.addr, 1);
	assert_int_equal(MPI_Wait(&rq[1], MPI_STATUS_IGNORE), 0);

	/* Testany: the index in the mask. */
	rq[0] = MPI_REQUEST_NULL;
	assert_int_equal(MPI_Irecv(&got, 1, MPI_INT, 0, 31, MPI_COMM_WORLD, &rq[1]),
	                 0);
	assert_int_equal(MPI_Isend(&v, 1, MPI_INT, 0, 31, MPI_COMM_WORLD, &rq[2]),
	                 0);
	assert_int_equal(MPI_Wait(&rq[2], MPI_STATUS_IGNORE), 0);
	int idx = -1;
	flag = 0;
	while (!flag) {
		assert_int_equal(MPI_Testany(2, rq, &idx, &flag, MPI_STATUS_IGNORE), 0);
		calls++;
	}
	assert_int_equal(idx, 1);
	n = await_desc(&from, BCS_D_NOTE);
	assert_int_equal(n.seq, calls - 1);
	assert_int_equal(n.peer, MPI_FN_Testany);
	assert_int_equal(n.addr, 2);

	/* Waitany: what completed first. */
	assert_int_equal(MPI_Irecv(&got, 1, MPI_INT, 0, 33, MPI_COMM_WORLD, &rq[0]),
	                 0);
	assert_int_equal(MPI_Irecv(&got, 1, MPI_INT, 0, 34, MPI_COMM_WORLD, &rq[1]),
	                 0);
	assert_int_equal(MPI_Send(&v, 1, MPI_INT, 0, 34, MPI_COMM_WORLD), 0);
	assert_int_equal(MPI_Waitany(2, rq, &idx, MPI_STATUS_IGNORE), 0);
	calls++;
	assert_int_equal(idx, 1);
	n = await_desc(&from, BCS_D_NOTE);
	assert_int_equal(n.seq, calls - 1);
	assert_int_equal(n.peer, MPI_FN_Waitany);
	assert_int_equal(n.addr, 2);
	assert_int_equal(MPI_Cancel(&rq[0]), 0);
	assert_int_equal(MPI_Wait(&rq[0], MPI_STATUS_IGNORE), 0);

	/* Iprobe: the message's envelope. */
	assert_int_equal(MPI_Isend(&v, 1, MPI_INT, 0, 32, MPI_COMM_WORLD, &rq[0]),
	                 0);
	flag = 0;
	while (!flag) {
		assert_int_equal(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
		                            &flag, MPI_STATUS_IGNORE),
		                 0);
		calls++;
	}
	n = await_desc(&from, BCS_D_NOTE);
	assert_int_equal(n.seq, calls - 1);
	assert_int_equal(n.peer, MPI_FN_Iprobe);
	assert_int_equal(n.peer_world, 0);
	assert_int_equal(n.tag, 32);
	assert_int_equal(MPI_Recv(&got, 1, MPI_INT, 0, 32, MPI_COMM_WORLD,
	                          MPI_STATUS_IGNORE),
	                 0);
	assert_int_equal(MPI_Wait(&rq[0], MPI_STATUS_IGNORE), 0);
	/* Tests of nothing active are the same in every run: not noted. */
	rq[0] = rq[1] = MPI_REQUEST_NULL;
	size_t notes = count_kind(from, BCS_D_NOTE);
	assert_int_equal(MPI_Testall(2, rq, &flag, MPI_STATUSES_IGNORE), 0);
	assert_int_equal(flag, 1);
	assert_int_equal(MPI_Barrier(MPI_COMM_WORLD), 0);
	assert_int_equal(count_kind(from, BCS_D_NOTE), notes);
	restart(NULL, NULL);
}

static void
test_replay_forces_tests_and_wildcards(void **state)
{
	(void)state;
	char path[] = "/tmp/test_mpi_bcs_rank.XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "w");
	/* Call 0 (MPI_Test) true; call 1 not recorded (false); call 2
	 * (MPI_Testany) true with index 1; call 3 (MPI_Iprobe) true with a
	 * message from 0, tag 24; call 4 (MPI_Waitany) index 1.  The first
	 * wildcard receive matched 0. */
	fprintf(f, "# grove-bcs-record 1\n# ranks %d slice_ns 1000000\n"
	           "W 2 0 0 0\n"
	           "T 3 0 0 %d 1 0x1 -1 -1\n"
	           "T 5 0 2 %d 1 0x2 -1 -1\n"
	           "T 6 0 3 %d 1 0x1 0 24\n"
	           "T 7 0 4 %d 1 0x2 -1 -1\n",
	        NRANKS, MPI_FN_Test, MPI_FN_Testany, MPI_FN_Iprobe,
	        MPI_FN_Waitany);
	fclose(f);
	restart("GROVE_BCS_REPLAY", path);
	assert_true(mpi_bcs_rr);

	/* Call 0: recorded true, so it waits; the wildcard receive asked
	 * the node manager for source 0. */
	size_t from = log_mark();
	int v = 3, got = 0, flag = 0;
	MPI_Request r, s;
	MPI_Status st;
	assert_int_equal(MPI_Irecv(&got, 1, MPI_INT, MPI_ANY_SOURCE, 20,
	                           MPI_COMM_WORLD, &r),
	                 0);
	assert_int_equal(MPI_Isend(&v, 1, MPI_INT, 0, 20, MPI_COMM_WORLD, &s), 0);
	assert_int_equal(MPI_Test(&r, &flag, &st), 0);
	assert_int_equal(flag, 1);
	assert_int_equal(got, 3);
	assert_int_equal(st.MPI_SOURCE, 0);
	struct bcs_desc d = next_desc(&from, BCS_D_RECV);
	assert_int_equal(d.peer, 0);
	assert_int_equal(d.peer_world, 0);
	assert_int_equal(MPI_Wait(&s, MPI_STATUS_IGNORE), 0);

	/* Call 1: not recorded: false although the receive completed. */
	assert_int_equal(MPI_Irecv(&got, 1, MPI_INT, 0, 21, MPI_COMM_WORLD, &r), 0);
	assert_int_equal(MPI_Isend(&v, 1, MPI_INT, 0, 21, MPI_COMM_WORLD, &s), 0);
	flag = 0;
	while (!flag)
		assert_int_equal(MPI_Request_get_status(r, &flag, MPI_STATUS_IGNORE),
		                 0);
	assert_int_equal(MPI_Test(&r, &flag, MPI_STATUS_IGNORE), 0);
	assert_int_equal(flag, 0);
	assert_int_equal(MPI_Wait(&r, MPI_STATUS_IGNORE), 0);
	assert_int_equal(MPI_Wait(&s, MPI_STATUS_IGNORE), 0);

	/* Call 2: index 1, even though index 0 completes first. */
	MPI_Request rq[2];
	int g0 = 0, g1 = 0, idx = -1;
	assert_int_equal(MPI_Irecv(&g0, 1, MPI_INT, 0, 22, MPI_COMM_WORLD, &rq[0]),
	                 0);
	assert_int_equal(MPI_Irecv(&g1, 1, MPI_INT, 0, 23, MPI_COMM_WORLD, &rq[1]),
	                 0);
	assert_int_equal(MPI_Send(&v, 1, MPI_INT, 0, 22, MPI_COMM_WORLD), 0);
	assert_int_equal(MPI_Isend(&v, 1, MPI_INT, 0, 23, MPI_COMM_WORLD, &s), 0);
	assert_int_equal(MPI_Testany(2, rq, &idx, &flag, MPI_STATUS_IGNORE), 0);
	assert_int_equal(flag, 1);
	assert_int_equal(idx, 1);
	assert_int_equal(g1, 3);
	assert_true(rq[0] != MPI_REQUEST_NULL);
	assert_int_equal(MPI_Wait(&rq[0], MPI_STATUS_IGNORE), 0);
	assert_int_equal(MPI_Wait(&s, MPI_STATUS_IGNORE), 0);

	/* Call 3: the recorded message, found by its envelope. */
	assert_int_equal(MPI_Isend(&v, 1, MPI_INT, 0, 24, MPI_COMM_WORLD, &s), 0);
	assert_int_equal(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
	                            &flag, &st),
	                 0);
	assert_int_equal(flag, 1);
	assert_int_equal(st.MPI_TAG, 24);
	assert_int_equal(MPI_Recv(&got, 1, MPI_INT, 0, 24, MPI_COMM_WORLD,
	                          MPI_STATUS_IGNORE),
	                 0);
	assert_int_equal(MPI_Wait(&s, MPI_STATUS_IGNORE), 0);
	/* Call 4: index 1, though index 0 completed first. */
	assert_int_equal(MPI_Irecv(&g0, 1, MPI_INT, 0, 25, MPI_COMM_WORLD, &rq[0]),
	                 0);
	assert_int_equal(MPI_Irecv(&g1, 1, MPI_INT, 0, 26, MPI_COMM_WORLD, &rq[1]),
	                 0);
	assert_int_equal(MPI_Send(&v, 1, MPI_INT, 0, 25, MPI_COMM_WORLD), 0);
	assert_int_equal(MPI_Isend(&v, 1, MPI_INT, 0, 26, MPI_COMM_WORLD, &s), 0);
	assert_int_equal(MPI_Waitany(2, rq, &idx, MPI_STATUS_IGNORE), 0);
	assert_int_equal(idx, 1);
	assert_int_equal(MPI_Wait(&rq[0], MPI_STATUS_IGNORE), 0);
	assert_int_equal(MPI_Wait(&s, MPI_STATUS_IGNORE), 0);
	/* Call 5, past the record: false. */
	assert_int_equal(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
	                            &flag, &st),
	                 0);
	assert_int_equal(flag, 0);
	unlink(path);
	restart(NULL, NULL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_record_notes_what_tests_return),
		cmocka_unit_test(test_replay_forces_tests_and_wildcards),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}

/* grove-mpi-test ranks=1,2,3,4,8 */
/* p2p_requests: non-blocking requests on a ring (left -> me -> right).
 * Isend/Issend/Irecv, Wait/Waitall/Waitany/Waitsome, Test/Testall/Testany/
 * Testsome (also on arrays holding MPI_REQUEST_NULL and all-null arrays),
 * MPI_STATUS_IGNORE/MPI_STATUSES_IGNORE, Issend not completing before the
 * receive is posted, Request_free of an active send, Cancel of a posted
 * receive + Test_cancelled, persistent Send_init/Ssend_init/Recv_init with
 * Start/Startall over several rounds. */
#include "mpitest.h"

#define NREQ 6
static int rank, size, left, right;

static int val(int r, int k, int i) { return mt_ival(r, i) + 100000 * k; }

/* Left sends NREQ messages with tags 0..NREQ-1 in reverse order, each
 * carrying 4 ints; the caller completes the receives its own way. */
static void post_ring(int base, int bufs[NREQ][4], MPI_Request rr[NREQ], MPI_Request sr[NREQ],
                      int sbufs[NREQ][4])
{
    for (int k = 0; k < NREQ; k++) {
        for (int i = 0; i < 4; i++) bufs[k][i] = -1;
        MPI_Irecv(bufs[k], 4, MPI_INT, left, base + k, MPI_COMM_WORLD, &rr[k]);
    }
    for (int k = NREQ - 1; k >= 0; k--) {
        for (int i = 0; i < 4; i++) sbufs[k][i] = val(rank, base + k, i);
        MPI_Isend(sbufs[k], 4, MPI_INT, right, base + k, MPI_COMM_WORLD, &sr[k]);
    }
}

static void check_buf(const int *b, int base, int k)
{
    for (int i = 0; i < 4; i++) MT_CHECK_EQ(b[i], val(left, base + k, i));
}

static void test_wait_family(void)
{
    int bufs[NREQ][4], sbufs[NREQ][4], done[NREQ];
    MPI_Request rr[NREQ], sr[NREQ];
    MPI_Status sts[NREQ], st;
    int idx = -1, outcount = -1, indices[NREQ], flag = -1;

    mt_section("MPI_Wait each");
    post_ring(0, bufs, rr, sr, sbufs);
    for (int k = 0; k < NREQ; k++) {
        MPI_Wait(&rr[k], &st);
        MT_CHECK(rr[k] == MPI_REQUEST_NULL, "request %d not MPI_REQUEST_NULL", k);
        MT_CHECK_EQ(st.MPI_SOURCE, left);
        MT_CHECK_EQ(st.MPI_TAG, k);
        check_buf(bufs[k], 0, k);
    }
    MPI_Waitall(NREQ, sr, MPI_STATUSES_IGNORE);

    mt_section("MPI_Waitall with statuses");
    post_ring(10, bufs, rr, sr, sbufs);
    MPI_Waitall(NREQ, rr, sts);
    for (int k = 0; k < NREQ; k++) {
        MT_CHECK(rr[k] == MPI_REQUEST_NULL, "request %d not null", k);
        MT_CHECK_EQ(sts[k].MPI_TAG, 10 + k);
        MT_CHECK_EQ(sts[k].MPI_SOURCE, left);
        check_buf(bufs[k], 10, k);
    }
    MPI_Waitall(NREQ, sr, sts);

    mt_section("MPI_Waitany (with a null request in the array)");
    post_ring(20, bufs, rr, sr, sbufs);
    MPI_Wait(&rr[2], MPI_STATUS_IGNORE); /* rr[2] becomes MPI_REQUEST_NULL */
    check_buf(bufs[2], 20, 2);
    memset(done, 0, sizeof done);
    done[2] = 1;
    for (int n = 0; n < NREQ - 1; n++) {
        MPI_Waitany(NREQ, rr, &idx, &st);
        if (!MT_CHECK(idx >= 0 && idx < NREQ && !done[idx], "Waitany index %d", idx)) break;
        done[idx] = 1;
        MT_CHECK_EQ(st.MPI_TAG, 20 + idx);
        check_buf(bufs[idx], 20, idx);
    }
    MPI_Waitany(NREQ, rr, &idx, &st); /* all null now */
    MT_CHECK_EQ(idx, MPI_UNDEFINED);
    MPI_Waitall(NREQ, sr, MPI_STATUSES_IGNORE);

    mt_section("MPI_Waitsome");
    post_ring(30, bufs, rr, sr, sbufs);
    memset(done, 0, sizeof done);
    int total = 0;
    while (total < NREQ) {
        MPI_Waitsome(NREQ, rr, &outcount, indices, sts);
        if (!MT_CHECK(outcount >= 1 && outcount <= NREQ - total, "outcount %d", outcount))
            break;
        for (int j = 0; j < outcount; j++) {
            int k = indices[j];
            if (!MT_CHECK(k >= 0 && k < NREQ && !done[k], "index %d", k)) continue;
            done[k] = 1;
            MT_CHECK_EQ(sts[j].MPI_TAG, 30 + k);
            check_buf(bufs[k], 30, k);
        }
        total += outcount;
    }
    MPI_Waitsome(NREQ, rr, &outcount, indices, MPI_STATUSES_IGNORE);
    MT_CHECK_EQ(outcount, MPI_UNDEFINED);
    MPI_Waitall(NREQ, sr, MPI_STATUSES_IGNORE);

    mt_section("Test family on all-null arrays");
    MPI_Testany(NREQ, rr, &idx, &flag, &st);
    MT_CHECK_EQ(flag, 1);
    MT_CHECK_EQ(idx, MPI_UNDEFINED);
    flag = -1;
    MPI_Testall(NREQ, rr, &flag, MPI_STATUSES_IGNORE);
    MT_CHECK_EQ(flag, 1);
    MPI_Testsome(NREQ, rr, &outcount, indices, MPI_STATUSES_IGNORE);
    MT_CHECK_EQ(outcount, MPI_UNDEFINED);
    MPI_Request nul = MPI_REQUEST_NULL;
    MPI_Test(&nul, &flag, &st);
    MT_CHECK_EQ(flag, 1);
    MPI_Wait(&nul, MPI_STATUS_IGNORE);
}

/* Completion that cannot happen before a barrier: the sender sends only
 * after the barrier, so Test before it must say "not yet". */
static void test_test_family(void)
{
    int bufs[NREQ][4], sbufs[NREQ][4], done[NREQ];
    MPI_Request rr[NREQ], sr[NREQ];
    MPI_Status st, sts[NREQ];
    int flag = -1, idx = -1, outcount = -1, indices[NREQ];

    mt_section("MPI_Test before the message is sent");
    int x = -1, y = mt_ival(rank, 77);
    MPI_Request r;
    MPI_Irecv(&x, 1, MPI_INT, left, 40, MPI_COMM_WORLD, &r);
    MPI_Test(&r, &flag, &st);
    MT_CHECK_EQ(flag, 0);
    MT_CHECK(r != MPI_REQUEST_NULL, "incomplete request was freed");
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Send(&y, 1, MPI_INT, right, 40, MPI_COMM_WORLD);
    flag = 0;
    while (!flag) MPI_Test(&r, &flag, &st);
    MT_CHECK(r == MPI_REQUEST_NULL, "completed request not freed");
    MT_CHECK_EQ(st.MPI_TAG, 40);
    MT_CHECK_EQ(x, mt_ival(left, 77));

    mt_section("MPI_Testall loop");
    post_ring(50, bufs, rr, sr, sbufs);
    flag = 0;
    while (!flag) MPI_Testall(NREQ, rr, &flag, sts);
    for (int k = 0; k < NREQ; k++) {
        MT_CHECK_EQ(sts[k].MPI_TAG, 50 + k);
        check_buf(bufs[k], 50, k);
    }
    flag = 0;
    while (!flag) MPI_Testall(NREQ, sr, &flag, MPI_STATUSES_IGNORE);

    mt_section("MPI_Testany loop");
    post_ring(60, bufs, rr, sr, sbufs);
    memset(done, 0, sizeof done);
    for (int n = 0; n < NREQ;) {
        MPI_Testany(NREQ, rr, &idx, &flag, &st);
        if (!flag) continue;
        if (!MT_CHECK(idx >= 0 && idx < NREQ && !done[idx], "Testany index %d", idx)) break;
        done[idx] = 1;
        MT_CHECK_EQ(st.MPI_TAG, 60 + idx);
        check_buf(bufs[idx], 60, idx);
        n++;
    }
    MPI_Waitall(NREQ, sr, MPI_STATUSES_IGNORE);

    mt_section("MPI_Testsome loop");
    post_ring(70, bufs, rr, sr, sbufs);
    memset(done, 0, sizeof done);
    for (int n = 0; n < NREQ;) {
        MPI_Testsome(NREQ, rr, &outcount, indices, sts);
        if (!MT_CHECK(outcount >= 0 && outcount <= NREQ - n, "outcount %d", outcount)) break;
        for (int j = 0; j < outcount; j++) {
            int k = indices[j];
            if (!MT_CHECK(k >= 0 && k < NREQ && !done[k], "index %d", k)) continue;
            done[k] = 1;
            MT_CHECK_EQ(sts[j].MPI_TAG, 70 + k);
            check_buf(bufs[k], 70, k);
        }
        n += outcount;
    }
    MPI_Waitall(NREQ, sr, MPI_STATUSES_IGNORE);
}

static void test_issend(void)
{
    mt_section("MPI_Issend completes only after the receive is posted");
    int v = mt_ival(rank, 5), got = -1, flag = -1;
    MPI_Request s;
    MPI_Issend(&v, 1, MPI_INT, right, 80, MPI_COMM_WORLD, &s);
    for (int i = 0; i < 100; i++) {
        MPI_Test(&s, &flag, MPI_STATUS_IGNORE);
        if (!MT_CHECK(flag == 0, "Issend completed before any receive was posted")) break;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Recv(&got, 1, MPI_INT, left, 80, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (!flag) MPI_Wait(&s, MPI_STATUS_IGNORE);
    MT_CHECK_EQ(got, mt_ival(left, 5));

    mt_section("MPI_Issend large");
    int n = 100000;
    unsigned char *a = mt_malloc((size_t)n), *b = mt_malloc((size_t)n);
    mt_fill(a, (size_t)n, (unsigned)rank + 11);
    MPI_Request rq[2];
    MPI_Irecv(b, n, MPI_BYTE, left, 81, MPI_COMM_WORLD, &rq[0]);
    MPI_Issend(a, n, MPI_BYTE, right, 81, MPI_COMM_WORLD, &rq[1]);
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    MT_CHECK_PAT(b, (size_t)n, (unsigned)left + 11);
    free(a);
    free(b);
}

static void test_free_cancel(void)
{
    mt_section("MPI_Request_free of an active send");
    int v[64], got[64];
    for (int i = 0; i < 64; i++) v[i] = mt_ival(rank, i);
    MPI_Request s, r;
    MPI_Isend(v, 64, MPI_INT, right, 90, MPI_COMM_WORLD, &s);
    MPI_Request_free(&s);
    MT_CHECK(s == MPI_REQUEST_NULL, "Request_free did not set MPI_REQUEST_NULL");
    MPI_Recv(got, 64, MPI_INT, left, 90, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int i = 0; i < 64; i++) MT_CHECK_EQ(got[i], mt_ival(left, i));
    /* v may be reused once the receiver has it: the barrier orders that. */
    MPI_Barrier(MPI_COMM_WORLD);

    mt_section("MPI_Cancel of a posted receive");
    MPI_Status st;
    int flag = -1, x = 17;
    MPI_Irecv(&x, 1, MPI_INT, left, 91, MPI_COMM_WORLD, &r); /* never sent */
    MPI_Cancel(&r);
    MPI_Wait(&r, &st);
    MT_CHECK(r == MPI_REQUEST_NULL, "cancelled request not freed by Wait");
    MPI_Test_cancelled(&st, &flag);
    MT_CHECK_EQ(flag, 1);
    MT_CHECK_EQ(x, 17);

    mt_section("MPI_Cancel of a ANY_SOURCE receive, then traffic on the same tag");
    MPI_Irecv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 92, MPI_COMM_WORLD, &r);
    MPI_Cancel(&r);
    flag = 0;
    while (!flag) MPI_Test(&r, &flag, &st);
    MPI_Test_cancelled(&st, &flag);
    MT_CHECK_EQ(flag, 1);
    MPI_Barrier(MPI_COMM_WORLD); /* nobody sends tag 92 before all cancelled */
    int y = mt_ival(rank, 3);
    MPI_Sendrecv(&y, 1, MPI_INT, right, 92, &x, 1, MPI_INT, left, 92, MPI_COMM_WORLD, &st);
    MT_CHECK_EQ(x, mt_ival(left, 3));
    MPI_Test_cancelled(&st, &flag);
    MT_CHECK_EQ(flag, 0);

    mt_section("MPI_Cancel of a completed receive");
    MPI_Irecv(&x, 1, MPI_INT, left, 93, MPI_COMM_WORLD, &r);
    MPI_Send(&y, 1, MPI_INT, right, 93, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD); /* the message has been sent everywhere */
    /* Cancelling may or may not succeed while the message is in flight; it
     * must not lose it if it completes. */
    MPI_Cancel(&r);
    MPI_Wait(&r, &st);
    MPI_Test_cancelled(&st, &flag);
    if (flag) {
        MPI_Recv(&x, 1, MPI_INT, left, 93, MPI_COMM_WORLD, &st);
    }
    MT_CHECK_EQ(x, mt_ival(left, 3));
}

static void test_persistent(void)
{
    enum { N = 300, ROUNDS = 5 };
    int sb[N], rb[N], sb2[N], rb2[N];
    MPI_Request req[4];
    MPI_Status sts[4];

    mt_section("persistent Send_init/Recv_init + Start/Wait");
    MPI_Recv_init(rb, N, MPI_INT, left, 100, MPI_COMM_WORLD, &req[0]);
    MPI_Send_init(sb, N, MPI_INT, right, 100, MPI_COMM_WORLD, &req[1]);
    MPI_Recv_init(rb2, N, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_SELF, &req[2]);
    MPI_Ssend_init(sb2, N, MPI_INT, 0, 101, MPI_COMM_SELF, &req[3]);
    /* Inactive persistent requests complete at once with an empty status. */
    MPI_Wait(&req[0], &sts[0]);
    MT_CHECK(req[0] != MPI_REQUEST_NULL, "inactive persistent request freed by Wait");
    for (int round = 0; round < ROUNDS; round++) {
        mt_section("persistent round %d", round);
        for (int i = 0; i < N; i++) {
            sb[i] = val(rank, round, i);
            sb2[i] = val(rank, round + 50, i);
            rb[i] = rb2[i] = -1;
        }
        if (round % 2 == 0) {
            MPI_Start(&req[0]);
            MPI_Start(&req[1]);
            MPI_Start(&req[2]);
            MPI_Start(&req[3]);
        } else {
            MPI_Startall(4, req);
        }
        if (round == 3) {
            int flag = 0;
            while (!flag) MPI_Testall(4, req, &flag, sts);
        } else {
            MPI_Waitall(4, req, sts);
        }
        for (int k = 0; k < 4; k++)
            MT_CHECK(req[k] != MPI_REQUEST_NULL, "persistent request %d freed by completion", k);
        MT_CHECK_EQ(sts[0].MPI_SOURCE, left);
        MT_CHECK_EQ(sts[0].MPI_TAG, 100);
        MT_CHECK_EQ(sts[2].MPI_SOURCE, 0);
        MT_CHECK_EQ(sts[2].MPI_TAG, 101);
        for (int i = 0; i < N; i++) {
            if (!MT_CHECK_EQ(rb[i], val(left, round, i))) break;
            if (!MT_CHECK_EQ(rb2[i], val(rank, round + 50, i))) break;
        }
    }
    for (int k = 0; k < 4; k++) {
        MPI_Request_free(&req[k]);
        MT_CHECK(req[k] == MPI_REQUEST_NULL, "Request_free of persistent request %d", k);
    }
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "p2p_requests");
    rank = mt_rank();
    size = mt_size();
    left = (rank + size - 1) % size;
    right = (rank + 1) % size;
    test_wait_family();
    test_test_family();
    test_issend();
    test_free_cancel();
    test_persistent();
    return mt_finish();
}

/* grove-mpi-test ranks=1,2,3,4,8 */
/* coll_nonblocking: Ibarrier, Ibcast, Ireduce, Iallreduce, Igather, Iscatter,
 * Iallgather, Ialltoall. Each alone (Wait), then many outstanding at once on
 * one communicator (completed with Waitall, or with Test/Testany loops in
 * varying order), then interleaved on two communicators (a dup and a split)
 * started in different orders per communicator, overlapped with
 * point-to-point traffic on the parent. Small and large (256 KiB) buffers. */
#include "mpitest.h"

static int rank, size;

static long long sum_upto(int n, int i) { return 1000LL * n * (n + 1) / 2 + (long long)n * (i % 997); }
static int ev(int from, int to, int i) { return from * 1000003 + to * 10007 + i; }

/* One set of eight collectives on comm, count n, started into reqs[0..7]. */
typedef struct {
    int n, crank, csize, root;
    unsigned char *bc;          /* Ibcast (n*4 bytes) */
    int *rs, *rr, *ars, *arr;   /* Ireduce, Iallreduce (n ints) */
    int *gs, *gr, *ss, *sr;     /* Igather, Iscatter (n per rank) */
    int *ags, *agr, *a2s, *a2r; /* Iallgather, Ialltoall (n per rank) */
} set_t;

static void set_init(set_t *t, MPI_Comm comm, int n, int root)
{
    MPI_Comm_rank(comm, &t->crank);
    MPI_Comm_size(comm, &t->csize);
    t->n = n;
    t->root = root % t->csize;
    size_t nn = (size_t)n, np = (size_t)n * (size_t)t->csize;
    t->bc = mt_malloc(nn * 4);
    t->rs = mt_malloc(nn * 4); t->rr = mt_malloc(nn * 4);
    t->ars = mt_malloc(nn * 4); t->arr = mt_malloc(nn * 4);
    t->gs = mt_malloc(nn * 4); t->gr = mt_malloc(np * 4);
    t->ss = mt_malloc(np * 4); t->sr = mt_malloc(nn * 4);
    t->ags = mt_malloc(nn * 4); t->agr = mt_malloc(np * 4);
    t->a2s = mt_malloc(np * 4); t->a2r = mt_malloc(np * 4);
    int r = t->crank;
    if (r == t->root) mt_fill(t->bc, nn * 4, (unsigned)(n + t->root));
    else memset(t->bc, 0, nn * 4);
    for (int i = 0; i < n; i++) {
        t->rs[i] = t->ars[i] = mt_ival(r, i);
        t->rr[i] = t->arr[i] = t->sr[i] = -1;
        t->gs[i] = ev(r, t->root, i);
        t->ags[i] = ev(r, 0, i);
    }
    for (int q = 0; q < t->csize; q++)
        for (int i = 0; i < n; i++) {
            size_t k = (size_t)q * nn + (size_t)i;
            t->gr[k] = t->agr[k] = t->a2r[k] = -1;
            t->ss[k] = ev(t->root, q, i);
            t->a2s[k] = ev(r, q, i);
        }
}

/* Starts collective `which` (0..7) of the set. */
static void set_start_one(set_t *t, MPI_Comm comm, int which, MPI_Request *q)
{
    switch (which) {
    case 0: MPI_Ibarrier(comm, q); break;
    case 1: MPI_Ibcast(t->bc, t->n * 4, MPI_BYTE, t->root, comm, q); break;
    case 2: MPI_Ireduce(t->rs, t->rr, t->n, MPI_INT, MPI_SUM, t->root, comm, q); break;
    case 3: MPI_Iallreduce(t->ars, t->arr, t->n, MPI_INT, MPI_SUM, comm, q); break;
    case 4: MPI_Igather(t->gs, t->n, MPI_INT, t->gr, t->n, MPI_INT, t->root, comm, q); break;
    case 5: MPI_Iscatter(t->ss, t->n, MPI_INT, t->sr, t->n, MPI_INT, t->root, comm, q); break;
    case 6: MPI_Iallgather(t->ags, t->n, MPI_INT, t->agr, t->n, MPI_INT, comm, q); break;
    case 7: MPI_Ialltoall(t->a2s, t->n, MPI_INT, t->a2r, t->n, MPI_INT, comm, q); break;
    }
}

/* Starts the eight collectives in the order perm (the same on every rank of
 * comm); reqs[k] is collective k's request. */
static void set_start(set_t *t, MPI_Comm comm, const int *perm, MPI_Request *reqs)
{
    for (int j = 0; j < 8; j++) set_start_one(t, comm, perm[j], &reqs[perm[j]]);
}

static void set_check_free(set_t *t)
{
    int n = t->n, r = t->crank, cs = t->csize;
    MT_CHECK_PAT(t->bc, (size_t)n * 4, (unsigned)(n + t->root));
    for (int i = 0; i < n; i++) {
        if (r == t->root && !MT_CHECK_EQ(t->rr[i], sum_upto(cs, i))) break;
        if (!MT_CHECK_EQ(t->arr[i], sum_upto(cs, i))) break;
        if (!MT_CHECK_EQ(t->sr[i], ev(t->root, r, i))) break;
    }
    for (int q = 0; q < cs; q++)
        for (int i = 0; i < n; i++) {
            size_t k = (size_t)q * (size_t)n + (size_t)i;
            if (r == t->root && !MT_CHECK_EQ(t->gr[k], ev(q, t->root, i))) { q = cs; break; }
            if (!MT_CHECK_EQ(t->agr[k], ev(q, 0, i))) { q = cs; break; }
            if (!MT_CHECK_EQ(t->a2r[k], ev(q, r, i))) { q = cs; break; }
        }
    free(t->bc); free(t->rs); free(t->rr); free(t->ars); free(t->arr); free(t->gs); free(t->gr);
    free(t->ss); free(t->sr); free(t->ags); free(t->agr); free(t->a2s); free(t->a2r);
}

static const int in_order[8] = {0, 1, 2, 3, 4, 5, 6, 7};
static const int shuffled[8] = {6, 2, 7, 0, 4, 1, 5, 3};
static const int reversed[8] = {7, 6, 5, 4, 3, 2, 1, 0};
static const char *names[8] = {"Ibarrier", "Ibcast",   "Ireduce",    "Iallreduce",
                               "Igather",  "Iscatter", "Iallgather", "Ialltoall"};

static void one_at_a_time(int n)
{
    set_t t;
    MPI_Request reqs[8];
    MPI_Status st;
    set_init(&t, MPI_COMM_WORLD, n, size - 1);
    for (int j = 0; j < 8; j++) {
        mt_section("%s alone n=%d", names[j], n);
        set_start_one(&t, MPI_COMM_WORLD, j, &reqs[j]);
        MPI_Wait(&reqs[j], &st);
        MT_CHECK(reqs[j] == MPI_REQUEST_NULL, "request not freed");
    }
    mt_section("check one-at-a-time results n=%d", n);
    set_check_free(&t);
}

/* All eight outstanding on one communicator; completion style 0 = Waitall,
 * 1 = Testall loop, 2 = Testany loop, 3 = Wait in reverse order. */
static void all_outstanding(MPI_Comm comm, int n, int root, const int *perm, int style)
{
    set_t t;
    MPI_Request reqs[8];
    mt_section("8 outstanding n=%d root=%d style=%d", n, root, style);
    set_init(&t, comm, n, root);
    set_start(&t, comm, perm, reqs);
    int flag = 0, idx, done = 0;
    switch (style) {
    case 0: MPI_Waitall(8, reqs, MPI_STATUSES_IGNORE); break;
    case 1: while (!flag) MPI_Testall(8, reqs, &flag, MPI_STATUSES_IGNORE); break;
    case 2:
        while (done < 8) {
            MPI_Testany(8, reqs, &idx, &flag, MPI_STATUS_IGNORE);
            if (flag && idx != MPI_UNDEFINED) done++;
        }
        break;
    case 3: for (int k = 7; k >= 0; k--) MPI_Wait(&reqs[k], MPI_STATUS_IGNORE); break;
    }
    for (int k = 0; k < 8; k++) MT_CHECK(reqs[k] == MPI_REQUEST_NULL, "request %d left", k);
    set_check_free(&t);
}

/* Two communicators, sixteen collectives outstanding plus point-to-point
 * traffic on the parent with the same tag space. */
static void two_comms(int n)
{
    MPI_Comm dup, half;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half); /* reversed order inside */
    set_t a, b;
    MPI_Request reqs[18];
    mt_section("dup + split, 16 outstanding + p2p n=%d", n);
    set_init(&a, dup, n, 1);
    set_init(&b, half, n, 0);
    int left = (rank + size - 1) % size, right = (rank + 1) % size, pin = -1, pout = mt_ival(rank, 1);
    MPI_Irecv(&pin, 1, MPI_INT, left, 0, MPI_COMM_WORLD, &reqs[16]);
    set_start(&a, dup, shuffled, reqs);
    set_start(&b, half, reversed, reqs + 8);
    MPI_Isend(&pout, 1, MPI_INT, right, 0, MPI_COMM_WORLD, &reqs[17]);
    int flag = 0;
    while (!flag) MPI_Testall(18, reqs, &flag, MPI_STATUSES_IGNORE);
    MT_CHECK_EQ(pin, mt_ival(left, 1));
    set_check_free(&a);
    set_check_free(&b);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&half);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "coll_nonblocking");
    rank = mt_rank();
    size = mt_size();
    static const int ns[] = {0, 1, 100, 8192};
    for (int k = 0; k < 4; k++) one_at_a_time(ns[k]);
    for (int k = 0; k < 4; k++) {
        int n = ns[k];
        if (n >= 8192 && size > 4) n /= 2;
        all_outstanding(MPI_COMM_WORLD, n, k, k % 2 ? shuffled : in_order, k);
    }
    for (int k = 0; k < 4; k++) two_comms(ns[k]);
    return mt_finish();
}

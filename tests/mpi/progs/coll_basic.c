/* grove-mpi-test ranks=1,2,3,4,8 */
/* coll_basic: Barrier, Bcast, Reduce, Allreduce, Scan, Exscan, Reduce_scatter
 * and Reduce_scatter_block on MPI_COMM_WORLD and on a reversed-order
 * communicator; counts 0, 1, small and large (up to 1 MiB of data), every
 * root (or first, middle and last at larger sizes), MPI_IN_PLACE wherever
 * the standard allows it. Rank r contributes element i = mt_ival(r, i), so
 * every sum is an exact integer (in int and in double). */
#include "mpitest.h"

static const int counts[] = {0, 1, 7, 1000, 65536, 262144}; /* ints: up to 1 MiB */
#define NCOUNTS ((int)(sizeof counts / sizeof counts[0]))

static int rank, size;

/* sum over ranks 0..n-1 of mt_ival(r, i) */
static long long sum_upto(int n, int i) { return 1000LL * n * (n + 1) / 2 + (long long)n * (i % 997); }

static int nroots(int count) { return count <= 1000 ? size : (size < 3 ? size : 3); }
static int root_at(int k) { return k == 0 ? size - 1 : k == 1 ? 0 : size / 2 + (k > 2 ? k : 0) % size; }

static void test_barrier(MPI_Comm comm)
{
    mt_section("MPI_Barrier");
    for (int i = 0; i < 5; i++) MPI_Barrier(comm);
    /* A barrier orders: ranks send to 0 after it, 0 sets a flag before it. */
}

static void test_bcast(MPI_Comm comm, int crank, int csize)
{
    for (int c = 0; c < NCOUNTS; c++) {
        int n = counts[c] * 4; /* bytes: up to 1 MiB */
        unsigned char *buf = mt_malloc((size_t)n + 8);
        for (int k = 0; k < nroots(counts[c]) && k < csize; k++) {
            int root = root_at(k) % csize;
            mt_section("MPI_Bcast %d bytes root %d", n, root);
            if (crank == root) mt_fill(buf, (size_t)n, (unsigned)(root + c * 7));
            else memset(buf, 0xCC, (size_t)n);
            memset(buf + n, 0xDD, 8);
            MPI_Bcast(buf, n, MPI_BYTE, root, comm);
            MT_CHECK_PAT(buf, (size_t)n, (unsigned)(root + c * 7));
            MT_CHECK_BYTE_RANGE(buf, (size_t)n, (size_t)n + 8, 0xDD);
        }
        free(buf);
    }
    mt_section("MPI_Bcast of doubles and a 3-int struct-like block");
    double d[3] = {0, 0, 0};
    if (crank == csize - 1) { d[0] = 1.5; d[1] = -2.25; d[2] = 1e300; }
    MPI_Bcast(d, 3, MPI_DOUBLE, csize - 1, comm);
    MT_CHECK_FEQ(d[0], 1.5);
    MT_CHECK_FEQ(d[1], -2.25);
    MT_CHECK_FEQ(d[2], 1e300);
}

/* Reductions; vr = value rank (rank in comm order). */
static void test_reduce(MPI_Comm comm, int crank, int csize)
{
    for (int c = 0; c < NCOUNTS; c++) {
        int n = counts[c];
        int *s = mt_malloc(sizeof(int) * (size_t)n), *r = mt_malloc(sizeof(int) * (size_t)n);
        double *ds = mt_malloc(sizeof(double) * (size_t)n), *dr = mt_malloc(sizeof(double) * (size_t)n);
        for (int i = 0; i < n; i++) { s[i] = mt_ival(crank, i); ds[i] = s[i]; }
        for (int k = 0; k < nroots(n) && k < csize; k++) {
            int root = root_at(k) % csize;
            mt_section("MPI_Reduce SUM int n=%d root %d", n, root);
            for (int i = 0; i < n; i++) r[i] = -7;
            MPI_Reduce(s, r, n, MPI_INT, MPI_SUM, root, comm);
            for (int i = 0; i < n; i++) {
                if (crank == root) { if (!MT_CHECK_EQ(r[i], sum_upto(csize, i))) break; }
                else if (!MT_CHECK_EQ(r[i], -7)) break; /* non-root recvbuf untouched */
            }
            mt_section("MPI_Reduce MAX double MPI_IN_PLACE n=%d root %d", n, root);
            for (int i = 0; i < n; i++) dr[i] = ds[i];
            /* MPICH 4.0.2 crashes on MPI_IN_PLACE at a non-zero root above
             * ~256 elements (its reduce-scatter-gather algorithm). */
            int mpich_bug = MT_PEER_MPICH && root != 0 && n > 100;
            if (crank == root && mpich_bug)
                MPI_Reduce(ds, dr, n, MPI_DOUBLE, MPI_MAX, root, comm);
            else if (crank == root)
                MPI_Reduce(MPI_IN_PLACE, dr, n, MPI_DOUBLE, MPI_MAX, root, comm);
            else MPI_Reduce(dr, NULL, n, MPI_DOUBLE, MPI_MAX, root, comm);
            if (crank == root)
                for (int i = 0; i < n; i++) if (!MT_CHECK_FEQ(dr[i], mt_ival(csize - 1, i))) break;
        }
        mt_section("MPI_Allreduce SUM int n=%d", n);
        MPI_Allreduce(s, r, n, MPI_INT, MPI_SUM, comm);
        for (int i = 0; i < n; i++) if (!MT_CHECK_EQ(r[i], sum_upto(csize, i))) break;
        mt_section("MPI_Allreduce SUM double MPI_IN_PLACE n=%d", n);
        for (int i = 0; i < n; i++) dr[i] = ds[i];
        MPI_Allreduce(MPI_IN_PLACE, dr, n, MPI_DOUBLE, MPI_SUM, comm);
        for (int i = 0; i < n; i++) if (!MT_CHECK_FEQ(dr[i], (double)sum_upto(csize, i))) break;
        mt_section("MPI_Allreduce MIN int n=%d", n);
        MPI_Allreduce(s, r, n, MPI_INT, MPI_MIN, comm);
        for (int i = 0; i < n; i++) if (!MT_CHECK_EQ(r[i], mt_ival(0, i))) break;

        mt_section("MPI_Scan SUM int n=%d", n);
        MPI_Scan(s, r, n, MPI_INT, MPI_SUM, comm);
        for (int i = 0; i < n; i++) if (!MT_CHECK_EQ(r[i], sum_upto(crank + 1, i))) break;
        mt_section("MPI_Scan SUM double MPI_IN_PLACE n=%d", n);
        for (int i = 0; i < n; i++) dr[i] = ds[i];
        MPI_Scan(MPI_IN_PLACE, dr, n, MPI_DOUBLE, MPI_SUM, comm);
        for (int i = 0; i < n; i++) if (!MT_CHECK_FEQ(dr[i], (double)sum_upto(crank + 1, i))) break;
        mt_section("MPI_Exscan SUM int n=%d", n);
        for (int i = 0; i < n; i++) r[i] = -7;
        MPI_Exscan(s, r, n, MPI_INT, MPI_SUM, comm);
        if (crank > 0) /* rank 0's result is undefined */
            for (int i = 0; i < n; i++) if (!MT_CHECK_EQ(r[i], sum_upto(crank, i))) break;
        mt_section("MPI_Exscan MAX int MPI_IN_PLACE n=%d", n);
        for (int i = 0; i < n; i++) r[i] = s[i];
        MPI_Exscan(MPI_IN_PLACE, r, n, MPI_INT, MPI_MAX, comm);
        if (crank > 0)
            for (int i = 0; i < n; i++) if (!MT_CHECK_EQ(r[i], mt_ival(crank - 1, i))) break;
        free(s); free(r); free(ds); free(dr);
    }
}

static void test_reduce_scatter(MPI_Comm comm, int crank, int csize)
{
    static const int blocks[] = {0, 1, 5, 4096};
    for (int b = 0; b < 4; b++) {
        int blk = blocks[b], n = blk * csize;
        int *s = mt_malloc(sizeof(int) * (size_t)n), *r = mt_malloc(sizeof(int) * (size_t)n);
        for (int i = 0; i < n; i++) s[i] = mt_ival(crank, i);
        mt_section("MPI_Reduce_scatter_block SUM block=%d", blk);
        MPI_Reduce_scatter_block(s, r, blk, MPI_INT, MPI_SUM, comm);
        for (int i = 0; i < blk; i++) if (!MT_CHECK_EQ(r[i], sum_upto(csize, crank * blk + i))) break;
        mt_section("MPI_Reduce_scatter_block SUM MPI_IN_PLACE block=%d", blk);
        for (int i = 0; i < n; i++) r[i] = s[i];
        MPI_Reduce_scatter_block(MPI_IN_PLACE, r, blk, MPI_INT, MPI_SUM, comm);
        for (int i = 0; i < blk; i++) if (!MT_CHECK_EQ(r[i], sum_upto(csize, crank * blk + i))) break;
        free(s); free(r);
    }
    /* Uneven counts: rank q gets (q * 3 + base) % 7 elements (some get 0). */
    for (int base = 0; base < 3; base++) {
        int *rc = mt_malloc(sizeof(int) * (size_t)csize), n = 0, off = 0;
        for (int q = 0; q < csize; q++) { rc[q] = (q * 3 + base) % 7 + (base == 2 ? 3000 : 0); n += rc[q]; }
        for (int q = 0; q < crank; q++) off += rc[q];
        int *s = mt_malloc(sizeof(int) * (size_t)n), *r = mt_malloc(sizeof(int) * (size_t)n);
        for (int i = 0; i < n; i++) s[i] = mt_ival(crank, i);
        mt_section("MPI_Reduce_scatter SUM uneven counts (base %d)", base);
        MPI_Reduce_scatter(s, r, rc, MPI_INT, MPI_SUM, comm);
        for (int i = 0; i < rc[crank]; i++) if (!MT_CHECK_EQ(r[i], sum_upto(csize, off + i))) break;
        mt_section("MPI_Reduce_scatter MAX MPI_IN_PLACE (base %d)", base);
        for (int i = 0; i < n; i++) r[i] = s[i];
        MPI_Reduce_scatter(MPI_IN_PLACE, r, rc, MPI_INT, MPI_MAX, comm);
        for (int i = 0; i < rc[crank]; i++) if (!MT_CHECK_EQ(r[i], mt_ival(csize - 1, off + i))) break;
        free(s); free(r); free(rc);
    }
}

static void run_all(MPI_Comm comm, const char *name)
{
    int crank, csize;
    MPI_Comm_rank(comm, &crank);
    MPI_Comm_size(comm, &csize);
    mt_section("%s", name);
    test_barrier(comm);
    test_bcast(comm, crank, csize);
    test_reduce(comm, crank, csize);
    test_reduce_scatter(comm, crank, csize);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "coll_basic");
    rank = mt_rank();
    size = mt_size();
    run_all(MPI_COMM_WORLD, "world");
    /* Same tests where comm rank order is the reverse of world order. */
    MPI_Comm rev;
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &rev);
    run_all(rev, "reversed");
    MPI_Comm_free(&rev);
    return mt_finish();
}

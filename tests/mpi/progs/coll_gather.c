/* grove-mpi-test ranks=1,2,3,4,8 */
/* coll_gather: Scatter, Scatterv, Gather, Gatherv, Allgather, Allgatherv,
 * Alltoall, Alltoallv, Alltoallw, each with per-rank blocks of 0, 1, small
 * and large size (up to ~1 MiB in total), non-zero roots, uneven counts
 * (some 0) and displacements out of rank order with gaps for the v/w forms,
 * and MPI_IN_PLACE where the standard allows it (root of Scatter(v)/
 * Gather(v), Allgather(v), Alltoall(v/w)). Element values encode
 * (sender, receiver, index) so misplaced data is seen at once. */
#include "mpitest.h"

static int rank, size;
static const int blocks[] = {0, 1, 13, 32768}; /* ints per rank pair: 32768*4*8 = 1 MiB */
#define NBLK 4
#define GUARD (-999)

/* Value of element i of the block that rank `from` sends to rank `to`. */
static int ev(int from, int to, int i) { return from * 1000003 + to * 10007 + i; }

static int *alloc_ints(size_t n, int v)
{
    int *p = mt_malloc(sizeof(int) * (n ? n : 1));
    for (size_t i = 0; i < n; i++) p[i] = v;
    return p;
}

/* The uneven layout used by the v forms: rank q's block has cnt[q] ints at
 * displacement dsp[q]; blocks are placed in reverse rank order with a gap. */
static int layout(int blk, int *cnt, int *dsp)
{
    int off = 0;
    for (int q = size - 1; q >= 0; q--) {
        cnt[q] = (q % 3 == 1) ? 0 : blk + q;
        dsp[q] = off;
        off += cnt[q] + 2; /* 2-int gap stays GUARD */
    }
    return off;
}

static void test_scatter_gather(int blk)
{
    int n = blk * size;
    for (int root = size - 1; root >= 0; root -= (size > 3 ? size / 2 + 1 : 1)) {
        int *all = alloc_ints((size_t)n, GUARD), *mine = alloc_ints((size_t)blk, GUARD);
        mt_section("MPI_Scatter block=%d root=%d", blk, root);
        if (rank == root)
            for (int q = 0; q < size; q++)
                for (int i = 0; i < blk; i++) all[q * blk + i] = ev(root, q, i);
        MPI_Scatter(all, blk, MPI_INT, mine, blk, MPI_INT, root, MPI_COMM_WORLD);
        for (int i = 0; i < blk; i++) if (!MT_CHECK_EQ(mine[i], ev(root, rank, i))) break;

        mt_section("MPI_Scatter MPI_IN_PLACE block=%d root=%d", blk, root);
        if (rank == root) {
            MPI_Scatter(all, blk, MPI_INT, MPI_IN_PLACE, blk, MPI_INT, root, MPI_COMM_WORLD);
            for (int i = 0; i < blk; i++) MT_CHECK_EQ(all[root * blk + i], ev(root, root, i));
        } else {
            for (int i = 0; i < blk; i++) mine[i] = GUARD;
            MPI_Scatter(NULL, 0, MPI_DATATYPE_NULL, mine, blk, MPI_INT, root, MPI_COMM_WORLD);
            for (int i = 0; i < blk; i++) if (!MT_CHECK_EQ(mine[i], ev(root, rank, i))) break;
        }

        mt_section("MPI_Gather block=%d root=%d", blk, root);
        for (int i = 0; i < blk; i++) mine[i] = ev(rank, root, i);
        for (int i = 0; i < n; i++) all[i] = GUARD;
        MPI_Gather(mine, blk, MPI_INT, all, blk, MPI_INT, root, MPI_COMM_WORLD);
        if (rank == root)
            for (int q = 0; q < size; q++)
                for (int i = 0; i < blk; i++)
                    if (!MT_CHECK_EQ(all[q * blk + i], ev(q, root, i))) { q = size; break; }

        mt_section("MPI_Gather MPI_IN_PLACE block=%d root=%d", blk, root);
        if (rank == root) {
            for (int i = 0; i < n; i++) all[i] = GUARD;
            for (int i = 0; i < blk; i++) all[root * blk + i] = ev(root, root, i);
            MPI_Gather(MPI_IN_PLACE, blk, MPI_INT, all, blk, MPI_INT, root, MPI_COMM_WORLD);
            for (int q = 0; q < size; q++)
                for (int i = 0; i < blk; i++)
                    if (!MT_CHECK_EQ(all[q * blk + i], ev(q, root, i))) { q = size; break; }
        } else {
            MPI_Gather(mine, blk, MPI_INT, NULL, 0, MPI_DATATYPE_NULL, root, MPI_COMM_WORLD);
        }
        free(all);
        free(mine);
    }
}

static void test_scatterv_gatherv(int blk)
{
    int *cnt = mt_malloc(sizeof(int) * (size_t)size), *dsp = mt_malloc(sizeof(int) * (size_t)size);
    int total = layout(blk, cnt, dsp);
    int root = size / 2;
    int *all = alloc_ints((size_t)total, GUARD), *mine = alloc_ints((size_t)blk + (size_t)size, GUARD);
    mt_section("MPI_Scatterv block=%d root=%d", blk, root);
    if (rank == root)
        for (int q = 0; q < size; q++)
            for (int i = 0; i < cnt[q]; i++) all[dsp[q] + i] = ev(root, q, i);
    MPI_Scatterv(all, cnt, dsp, MPI_INT, mine, cnt[rank], MPI_INT, root, MPI_COMM_WORLD);
    for (int i = 0; i < cnt[rank]; i++) if (!MT_CHECK_EQ(mine[i], ev(root, rank, i))) break;
    MT_CHECK_EQ(mine[cnt[rank]], GUARD);

    mt_section("MPI_Scatterv MPI_IN_PLACE block=%d root=%d", blk, root);
    for (int i = 0; i < cnt[rank]; i++) mine[i] = GUARD;
    if (rank == root)
        MPI_Scatterv(all, cnt, dsp, MPI_INT, MPI_IN_PLACE, 0, MPI_INT, root, MPI_COMM_WORLD);
    else
        MPI_Scatterv(NULL, NULL, NULL, MPI_INT, mine, cnt[rank], MPI_INT, root, MPI_COMM_WORLD);
    if (rank != root)
        for (int i = 0; i < cnt[rank]; i++) if (!MT_CHECK_EQ(mine[i], ev(root, rank, i))) break;

    for (int inplace = 0; inplace < 2; inplace++) {
        mt_section("MPI_Gatherv%s block=%d root=%d", inplace ? " MPI_IN_PLACE" : "", blk, root);
        for (int i = 0; i < cnt[rank]; i++) mine[i] = ev(rank, root, i);
        for (int i = 0; i < total; i++) all[i] = GUARD;
        if (rank == root && inplace) {
            for (int i = 0; i < cnt[rank]; i++) all[dsp[rank] + i] = mine[i];
            MPI_Gatherv(MPI_IN_PLACE, 0, MPI_INT, all, cnt, dsp, MPI_INT, root, MPI_COMM_WORLD);
        } else {
            MPI_Gatherv(mine, cnt[rank], MPI_INT, all, cnt, dsp, MPI_INT, root, MPI_COMM_WORLD);
        }
        if (rank == root)
            for (int q = 0; q < size; q++) {
                for (int i = 0; i < cnt[q]; i++)
                    if (!MT_CHECK_EQ(all[dsp[q] + i], ev(q, root, i))) break;
                MT_CHECK_EQ(all[dsp[q] + cnt[q]], GUARD); /* gaps untouched */
            }
    }

    for (int inplace = 0; inplace < 2; inplace++) {
        mt_section("MPI_Allgatherv%s block=%d", inplace ? " MPI_IN_PLACE" : "", blk);
        for (int i = 0; i < cnt[rank]; i++) mine[i] = ev(rank, 0, i);
        for (int i = 0; i < total; i++) all[i] = GUARD;
        if (inplace) {
            for (int i = 0; i < cnt[rank]; i++) all[dsp[rank] + i] = mine[i];
            MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, cnt, dsp, MPI_INT, MPI_COMM_WORLD);
        } else {
            MPI_Allgatherv(mine, cnt[rank], MPI_INT, all, cnt, dsp, MPI_INT, MPI_COMM_WORLD);
        }
        for (int q = 0; q < size; q++) {
            for (int i = 0; i < cnt[q]; i++) if (!MT_CHECK_EQ(all[dsp[q] + i], ev(q, 0, i))) break;
            MT_CHECK_EQ(all[dsp[q] + cnt[q]], GUARD);
        }
    }
    free(all); free(mine); free(cnt); free(dsp);
}

static void test_allgather(int blk)
{
    int n = blk * size;
    int *all = alloc_ints((size_t)n, GUARD), *mine = alloc_ints((size_t)blk, 0);
    for (int i = 0; i < blk; i++) mine[i] = ev(rank, 0, i);
    mt_section("MPI_Allgather block=%d", blk);
    MPI_Allgather(mine, blk, MPI_INT, all, blk, MPI_INT, MPI_COMM_WORLD);
    for (int q = 0; q < size; q++)
        for (int i = 0; i < blk; i++) if (!MT_CHECK_EQ(all[q * blk + i], ev(q, 0, i))) { q = size; break; }
    mt_section("MPI_Allgather MPI_IN_PLACE block=%d", blk);
    for (int i = 0; i < n; i++) all[i] = GUARD;
    for (int i = 0; i < blk; i++) all[rank * blk + i] = mine[i];
    MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, blk, MPI_INT, MPI_COMM_WORLD);
    for (int q = 0; q < size; q++)
        for (int i = 0; i < blk; i++) if (!MT_CHECK_EQ(all[q * blk + i], ev(q, 0, i))) { q = size; break; }
    free(all); free(mine);
}

static void test_alltoall(int blk)
{
    int n = blk * size;
    int *s = alloc_ints((size_t)n, 0), *r = alloc_ints((size_t)n, GUARD);
    for (int q = 0; q < size; q++)
        for (int i = 0; i < blk; i++) s[q * blk + i] = ev(rank, q, i);
    mt_section("MPI_Alltoall block=%d", blk);
    MPI_Alltoall(s, blk, MPI_INT, r, blk, MPI_INT, MPI_COMM_WORLD);
    for (int q = 0; q < size; q++)
        for (int i = 0; i < blk; i++) if (!MT_CHECK_EQ(r[q * blk + i], ev(q, rank, i))) { q = size; break; }
    mt_section("MPI_Alltoall MPI_IN_PLACE block=%d", blk);
    memcpy(r, s, sizeof(int) * (size_t)n);
    MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r, blk, MPI_INT, MPI_COMM_WORLD);
    for (int q = 0; q < size; q++)
        for (int i = 0; i < blk; i++) if (!MT_CHECK_EQ(r[q * blk + i], ev(q, rank, i))) { q = size; break; }
    free(s); free(r);
}

/* Alltoallv / Alltoallw: rank p sends (p + q) % 3 == 0 ? 0 : blk + p + q ints
 * to rank q, placed in reverse order with gaps on both sides. */
static int vcount(int p, int q, int blk) { return (p + q) % 3 == 0 ? 0 : blk + p + q; }

static void test_alltoallv(int blk)
{
    int *sc = mt_malloc(sizeof(int) * (size_t)size), *sd = mt_malloc(sizeof(int) * (size_t)size);
    int *rc = mt_malloc(sizeof(int) * (size_t)size), *rd = mt_malloc(sizeof(int) * (size_t)size);
    int *sdb = mt_malloc(sizeof(int) * (size_t)size), *rdb = mt_malloc(sizeof(int) * (size_t)size);
    MPI_Datatype *types = mt_malloc(sizeof(MPI_Datatype) * (size_t)size);
    int soff = 0, roff = 0;
    for (int q = size - 1; q >= 0; q--) {
        sc[q] = vcount(rank, q, blk); sd[q] = soff; soff += sc[q] + 1;
        rc[q] = vcount(q, rank, blk); rd[q] = roff; roff += rc[q] + 1;
        sdb[q] = sd[q] * (int)sizeof(int); rdb[q] = rd[q] * (int)sizeof(int);
        types[q] = MPI_INT;
    }
    int *s = alloc_ints((size_t)soff, GUARD), *r = alloc_ints((size_t)roff, GUARD);
    for (int q = 0; q < size; q++)
        for (int i = 0; i < sc[q]; i++) s[sd[q] + i] = ev(rank, q, i);
    for (int variant = 0; variant < 4; variant++) {
        static const char *vn[] = {"MPI_Alltoallv", "MPI_Alltoallw", "MPI_Alltoallv MPI_IN_PLACE",
                                   "MPI_Alltoallw MPI_IN_PLACE"};
        mt_section("%s block=%d", vn[variant], blk);
        for (int i = 0; i < roff; i++) r[i] = GUARD;
        if (variant >= 2) { /* in place: receive layout holds what we send to q at rd[q] */
            for (int q = 0; q < size; q++) {
                if (vcount(rank, q, blk) != rc[q]) continue; /* in place needs symmetric counts */
                for (int i = 0; i < rc[q]; i++) r[rd[q] + i] = ev(rank, q, i);
            }
        }
        switch (variant) {
        case 0: MPI_Alltoallv(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, MPI_COMM_WORLD); break;
        case 1: MPI_Alltoallw(s, sc, sdb, types, r, rc, rdb, types, MPI_COMM_WORLD); break;
        case 2: MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, r, rc, rd, MPI_INT, MPI_COMM_WORLD); break;
        case 3: MPI_Alltoallw(MPI_IN_PLACE, NULL, NULL, NULL, r, rc, rdb, types, MPI_COMM_WORLD); break;
        }
        for (int q = 0; q < size; q++) {
            for (int i = 0; i < rc[q]; i++) if (!MT_CHECK_EQ(r[rd[q] + i], ev(q, rank, i))) break;
            MT_CHECK_EQ(r[rd[q] + rc[q]], GUARD);
        }
    }
    free(s); free(r); free(sc); free(sd); free(rc); free(rd); free(sdb); free(rdb); free(types);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "coll_gather");
    rank = mt_rank();
    size = mt_size();
    for (int b = 0; b < NBLK; b++) {
        int blk = blocks[b];
        if (size > 4 && blk > 8192) blk = 8192 * 4 / size * 4; /* keep ~1 MiB totals */
        test_scatter_gather(blk);
        test_scatterv_gatherv(blk);
        test_allgather(blk);
        test_alltoall(blk);
        test_alltoallv(blk);
    }
    return mt_finish();
}

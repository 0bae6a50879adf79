/* grove-mpi-test ranks=1,2,3,4,8 */
/* comm_groups: MPI_COMM_WORLD/MPI_COMM_SELF, Comm_dup, Comm_split (with
 * MPI_UNDEFINED colour and key ordering), Comm_split_type(MPI_COMM_TYPE_
 * SHARED), Comm_create, Comm_free, Comm_compare (IDENT, CONGRUENT, SIMILAR,
 * UNEQUAL), Comm_group, Group_incl/excl/size/rank/translate_ranks/compare/
 * free, MPI_GROUP_EMPTY; traffic on derived communicators never matches
 * receives on the parent or siblings, even with equal tags and
 * MPI_ANY_SOURCE/MPI_ANY_TAG; collectives on split communicators at once. */
#include "mpitest.h"

static int rank, size;

static void test_compare(void)
{
    MPI_Comm dup, rev, half;
    int res = -1;
    mt_section("MPI_Comm_compare");
    MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_WORLD, &res);
    MT_CHECK_EQ(res, MPI_IDENT);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_compare(MPI_COMM_WORLD, dup, &res);
    MT_CHECK_EQ(res, MPI_CONGRUENT);
    MPI_Comm_split(MPI_COMM_WORLD, 7, size - rank, &rev); /* same group, reversed order */
    MPI_Comm_compare(MPI_COMM_WORLD, rev, &res);
    MT_CHECK_EQ(res, size == 1 ? MPI_CONGRUENT : MPI_SIMILAR);
    MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_SELF, &res);
    MT_CHECK_EQ(res, size == 1 ? MPI_CONGRUENT : MPI_UNEQUAL);
    MPI_Comm_split(MPI_COMM_WORLD, rank < (size + 1) / 2, rank, &half);
    MPI_Comm_compare(MPI_COMM_WORLD, half, &res);
    MT_CHECK_EQ(res, size == 1 ? MPI_CONGRUENT : MPI_UNEQUAL);
    int rr = -1;
    MPI_Comm_rank(rev, &rr);
    MT_CHECK_EQ(rr, size - 1 - rank);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&rev);
    MPI_Comm_free(&half);
    MT_CHECK(dup == MPI_COMM_NULL && rev == MPI_COMM_NULL && half == MPI_COMM_NULL,
             "Comm_free did not set MPI_COMM_NULL");
}

static void test_split(void)
{
    mt_section("MPI_Comm_split colour rank%%3, key -rank, MPI_UNDEFINED for rank%%4==3");
    MPI_Comm c;
    int colour = rank % 4 == 3 ? MPI_UNDEFINED : rank % 3;
    MPI_Comm_split(MPI_COMM_WORLD, colour, -rank, &c);
    if (colour == MPI_UNDEFINED) {
        MT_CHECK(c == MPI_COMM_NULL, "undefined colour got a communicator");
        return;
    }
    int crank = -1, csize = -1, want_size = 0, want_rank = 0;
    for (int q = 0; q < size; q++) {
        if (q % 4 == 3 || q % 3 != colour) continue;
        want_size++;
        if (q > rank) want_rank++; /* key -q: higher world ranks come first */
    }
    MPI_Comm_rank(c, &crank);
    MPI_Comm_size(c, &csize);
    MT_CHECK_EQ(csize, want_size);
    MT_CHECK_EQ(crank, want_rank);
    /* the members really are who we think: allgather world ranks */
    int *w = mt_malloc(sizeof(int) * (size_t)csize);
    MPI_Allgather(&rank, 1, MPI_INT, w, 1, MPI_INT, c);
    for (int k = 1; k < csize; k++) MT_CHECK(w[k] < w[k - 1], "order %d %d", w[k - 1], w[k]);
    for (int k = 0; k < csize; k++) MT_CHECK_EQ(w[k] % 3, colour);
    free(w);
    MPI_Comm_free(&c);
}

static void test_split_type(void)
{
    mt_section("MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)");
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    MT_CHECK(node != MPI_COMM_NULL, "no node communicator");
    int nsize = -1, nrank = -1;
    MPI_Comm_size(node, &nsize);
    MPI_Comm_rank(node, &nrank);
    /* Members are exactly the world ranks on this host (by processor name). */
    char name[MPI_MAX_PROCESSOR_NAME] = {0}, *all;
    int len;
    MPI_Get_processor_name(name, &len);
    all = mt_malloc((size_t)size * MPI_MAX_PROCESSOR_NAME);
    MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all, MPI_MAX_PROCESSOR_NAME, MPI_CHAR,
                  MPI_COMM_WORLD);
    int same = 0, before = 0;
    for (int q = 0; q < size; q++)
        if (strcmp(all + (size_t)q * MPI_MAX_PROCESSOR_NAME, name) == 0) {
            same++;
            if (q < rank) before++;
        }
    MT_CHECK_EQ(nsize, same);
    MT_CHECK_EQ(nrank, before); /* key = world rank keeps world order */
    int sum = 0;
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, node);
    MT_CHECK(sum >= rank, "sum %d", sum);
    free(all);
    MPI_Comm_free(&node);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_UNDEFINED, 0, MPI_INFO_NULL, &node);
    MT_CHECK(node == MPI_COMM_NULL, "MPI_UNDEFINED split type gave a communicator");
}

static void test_groups(void)
{
    MPI_Group world, even, odd, empty_check;
    int gs = -1, gr = -1, res = -1;
    mt_section("MPI_Comm_group / Group_size / Group_rank");
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_size(world, &gs);
    MPI_Group_rank(world, &gr);
    MT_CHECK_EQ(gs, size);
    MT_CHECK_EQ(gr, rank);

    mt_section("MPI_Group_incl (even ranks, reversed) / excl");
    int neven = (size + 1) / 2, *ranks = mt_malloc(sizeof(int) * (size_t)size);
    for (int k = 0; k < neven; k++) ranks[k] = 2 * (neven - 1 - k);
    MPI_Group_incl(world, neven, ranks, &even);
    MPI_Group_size(even, &gs);
    MT_CHECK_EQ(gs, neven);
    MPI_Group_rank(even, &gr);
    MT_CHECK_EQ(gr, rank % 2 ? MPI_UNDEFINED : neven - 1 - rank / 2);
    for (int k = 0; k < neven; k++) ranks[k] = 2 * k;
    MPI_Group_excl(world, neven, ranks, &odd);
    MPI_Group_size(odd, &gs);
    MT_CHECK_EQ(gs, size - neven);
    MPI_Group_rank(odd, &gr);
    MT_CHECK_EQ(gr, rank % 2 ? rank / 2 : MPI_UNDEFINED);

    mt_section("MPI_Group_translate_ranks");
    int *in = mt_malloc(sizeof(int) * (size_t)size), *out = mt_malloc(sizeof(int) * (size_t)size);
    for (int k = 0; k < size; k++) in[k] = k;
    MPI_Group_translate_ranks(world, size, in, even, out);
    for (int k = 0; k < size; k++) MT_CHECK_EQ(out[k], k % 2 ? MPI_UNDEFINED : neven - 1 - k / 2);
    MPI_Group_translate_ranks(even, neven, in, world, out);
    for (int k = 0; k < neven; k++) MT_CHECK_EQ(out[k], 2 * (neven - 1 - k));
    in[0] = MPI_PROC_NULL;
    MPI_Group_translate_ranks(world, 1, in, even, out);
    MT_CHECK_EQ(out[0], MPI_PROC_NULL);

    mt_section("MPI_Group_compare / MPI_GROUP_EMPTY");
    MPI_Group_compare(world, world, &res);
    MT_CHECK_EQ(res, MPI_IDENT);
    MPI_Group_excl(world, 0, ranks, &empty_check); /* excluding nobody = same group */
    MPI_Group_compare(world, empty_check, &res);
    MT_CHECK_EQ(res, MPI_IDENT);
    MPI_Group_free(&empty_check);
    MPI_Group_compare(even, odd, &res);
    MT_CHECK_EQ(res, MPI_UNEQUAL);
    MPI_Group_size(MPI_GROUP_EMPTY, &gs);
    MT_CHECK_EQ(gs, 0);
    MPI_Group_rank(MPI_GROUP_EMPTY, &gr);
    MT_CHECK_EQ(gr, MPI_UNDEFINED);
    if (size > 1) {
        MPI_Group rev;
        for (int k = 0; k < size; k++) ranks[k] = size - 1 - k;
        MPI_Group_incl(world, size, ranks, &rev);
        MPI_Group_compare(world, rev, &res);
        MT_CHECK_EQ(res, MPI_SIMILAR);
        MPI_Group_free(&rev);
    }

    mt_section("MPI_Comm_create from the even group");
    MPI_Comm ec;
    MPI_Comm_create(MPI_COMM_WORLD, even, &ec);
    if (rank % 2) {
        MT_CHECK(ec == MPI_COMM_NULL, "odd rank got a communicator");
    } else {
        int r = -1, s = -1, sum = 0;
        MPI_Comm_rank(ec, &r);
        MPI_Comm_size(ec, &s);
        MT_CHECK_EQ(r, neven - 1 - rank / 2);
        MT_CHECK_EQ(s, neven);
        MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, ec);
        MT_CHECK_EQ(sum, neven * (neven - 1)); /* 0+2+...+2(neven-1) */
        MPI_Group g2;
        MPI_Comm_group(ec, &g2);
        MPI_Group_compare(g2, even, &res);
        MT_CHECK_EQ(res, MPI_IDENT);
        MPI_Group_free(&g2);
        MPI_Comm_free(&ec);
    }
    MPI_Group_free(&even);
    MPI_Group_free(&odd);
    MPI_Group_free(&world);
    MT_CHECK(world == MPI_GROUP_NULL, "Group_free did not set MPI_GROUP_NULL");
    free(ranks);
    free(in);
    free(out);
}

/* Same source, same tag on three communicators: each receive gets the
 * message of its own communicator, whatever the posting order. */
static void test_isolation(void)
{
    MPI_Comm a, b;
    MPI_Comm_dup(MPI_COMM_WORLD, &a);
    MPI_Comm_dup(a, &b);
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    int v[3], got[3] = {-1, -1, -1};
    MPI_Request rq[6];
    MPI_Status st[6];
    MPI_Comm comms[3] = {MPI_COMM_WORLD, a, b};

    mt_section("traffic isolation: same tag, three communicators, receives pre-posted");
    for (int k = 2; k >= 0; k--)
        MPI_Irecv(&got[k], 1, MPI_INT, left, 5, comms[k], &rq[k]);
    for (int k = 0; k < 3; k++) {
        v[k] = mt_ival(rank, k);
        MPI_Isend(&v[k], 1, MPI_INT, right, 5, comms[k], &rq[3 + k]);
    }
    MPI_Waitall(6, rq, st);
    for (int k = 0; k < 3; k++) MT_CHECK_EQ(got[k], mt_ival(left, k));

    mt_section("traffic isolation: ANY_SOURCE/ANY_TAG posted after the sends");
    for (int k = 0; k < 3; k++) MPI_Isend(&v[k], 1, MPI_INT, right, 6 + k, comms[k], &rq[3 + k]);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int k = 2; k >= 0; k--) {
        got[k] = -1;
        MPI_Recv(&got[k], 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, comms[k], &st[k]);
        MT_CHECK_EQ(got[k], mt_ival(left, k));
        MT_CHECK_EQ(st[k].MPI_TAG, 6 + k);
        MT_CHECK_EQ(st[k].MPI_SOURCE, left);
    }
    MPI_Waitall(3, rq + 3, MPI_STATUSES_IGNORE);

    mt_section("collectives on two split communicators and the world, interleaved");
    MPI_Comm h;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &h);
    int hs, x = rank + 1, s1 = 0, s2 = 0, s3 = 0;
    MPI_Comm_size(h, &hs);
    MPI_Request cr[3];
    MPI_Iallreduce(&x, &s1, 1, MPI_INT, MPI_SUM, h, &cr[0]);
    MPI_Iallreduce(&x, &s2, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &cr[1]);
    MPI_Iallreduce(&x, &s3, 1, MPI_INT, MPI_MAX, h, &cr[2]);
    MPI_Waitall(3, cr, MPI_STATUSES_IGNORE);
    int e1 = 0, e3 = 0;
    for (int q = rank % 2; q < size; q += 2) { e1 += q + 1; e3 = q + 1; }
    MT_CHECK_EQ(s1, e1);
    MT_CHECK_EQ(s2, size * (size + 1) / 2);
    MT_CHECK_EQ(s3, e3);
    MPI_Comm_free(&h);
    MPI_Comm_free(&b);
    MPI_Comm_free(&a);
}

static void test_self(void)
{
    mt_section("MPI_COMM_SELF");
    int r = -1, s = -1, v = rank, w = -1;
    MPI_Comm_rank(MPI_COMM_SELF, &r);
    MPI_Comm_size(MPI_COMM_SELF, &s);
    MT_CHECK_EQ(r, 0);
    MT_CHECK_EQ(s, 1);
    MPI_Allreduce(&v, &w, 1, MPI_INT, MPI_SUM, MPI_COMM_SELF);
    MT_CHECK_EQ(w, rank);
    MPI_Sendrecv(&v, 1, MPI_INT, 0, 1, &w, 1, MPI_INT, 0, 1, MPI_COMM_SELF, MPI_STATUS_IGNORE);
    MT_CHECK_EQ(w, rank);
    MPI_Comm d;
    MPI_Comm_dup(MPI_COMM_SELF, &d);
    MPI_Bcast(&v, 1, MPI_INT, 0, d);
    MT_CHECK_EQ(v, rank);
    MPI_Comm_free(&d);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "comm_groups");
    rank = mt_rank();
    size = mt_size();
    test_compare();
    test_split();
    test_split_type();
    test_groups();
    test_isolation();
    test_self();
    /* Many dup/free cycles: context ids must be recycled. */
    mt_section("dup/free 200 times");
    for (int i = 0; i < 200; i++) {
        MPI_Comm d;
        MPI_Comm_dup(MPI_COMM_WORLD, &d);
        if (i % 50 == 0) MPI_Barrier(d);
        MPI_Comm_free(&d);
    }
    return mt_finish();
}

/* grove-mpi-test ranks=1,2,3,4,8 */
/* topology: MPI_Dims_create (free and fixed dimensions), Cart_create (2-D
 * and 3-D, periodic and not, reorder 0), Topo_test, Cartdim_get, Cart_get,
 * Cart_coords, Cart_rank (including periodic wrap of out-of-range
 * coordinates), Cart_shift (MPI_PROC_NULL at open edges) with a halo
 * exchange by Sendrecv, Cart_sub, and Dist_graph_create_adjacent +
 * Dist_graph_neighbors_count/neighbors with data sent along the edges. */
#include "mpitest.h"

static int rank, size;

static void test_dims(void)
{
    mt_section("MPI_Dims_create");
    int d2[2] = {0, 0};
    MPI_Dims_create(6, 2, d2);
    MT_CHECK(d2[0] == 3 && d2[1] == 2, "6 in 2-D: %d x %d", d2[0], d2[1]);
    int d3[3] = {0, 0, 0};
    MPI_Dims_create(8, 3, d3);
    MT_CHECK(d3[0] == 2 && d3[1] == 2 && d3[2] == 2, "8 in 3-D: %d %d %d", d3[0], d3[1], d3[2]);
    int p[2] = {0, 0};
    MPI_Dims_create(7, 2, p);
    MT_CHECK(p[0] == 7 && p[1] == 1, "7 in 2-D: %d x %d", p[0], p[1]);
    int f[3] = {0, 3, 0};
    MPI_Dims_create(12, 3, f);
    MT_CHECK(f[0] == 2 && f[1] == 3 && f[2] == 2, "12 with dims[1]=3: %d %d %d", f[0], f[1], f[2]);
    int one[2] = {0, 0};
    MPI_Dims_create(1, 2, one);
    MT_CHECK(one[0] == 1 && one[1] == 1, "1 in 2-D: %d x %d", one[0], one[1]);
    int w[2] = {0, 0};
    MPI_Dims_create(size, 2, w);
    MT_CHECK(w[0] * w[1] == size && w[0] >= w[1], "%d in 2-D: %d x %d", size, w[0], w[1]);
}

static void test_cart2d(int periodic)
{
    MPI_Comm cart;
    int dims[2] = {0, 0}, periods[2] = {periodic, 0}, coords[2], c2[2], r = -1, t = -1;
    MPI_Dims_create(size, 2, dims);
    mt_section("2-D cart %dx%d periods=(%d,0)", dims[0], dims[1], periodic);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    if (!MT_CHECK(cart != MPI_COMM_NULL, "no cart communicator")) return;
    MPI_Topo_test(cart, &t);
    MT_CHECK_EQ(t, MPI_CART);
    MPI_Topo_test(MPI_COMM_WORLD, &t);
    MT_CHECK_EQ(t, MPI_UNDEFINED);
    int nd = -1;
    MPI_Cartdim_get(cart, &nd);
    MT_CHECK_EQ(nd, 2);
    int gd[2], gp[2], gc[2];
    MPI_Cart_get(cart, 2, gd, gp, gc);
    MT_CHECK(gd[0] == dims[0] && gd[1] == dims[1] && gp[0] == periodic && gp[1] == 0,
             "Cart_get dims %d %d periods %d %d", gd[0], gd[1], gp[0], gp[1]);
    int crank;
    MPI_Comm_rank(cart, &crank);
    MT_CHECK_EQ(crank, rank); /* reorder = 0 */
    MPI_Cart_coords(cart, crank, 2, coords);
    /* row-major: rank = coords[0]*dims[1] + coords[1] */
    MT_CHECK_EQ(coords[0], rank / dims[1]);
    MT_CHECK_EQ(coords[1], rank % dims[1]);
    MT_CHECK(gc[0] == coords[0] && gc[1] == coords[1], "Cart_get coords");
    MPI_Cart_rank(cart, coords, &r);
    MT_CHECK_EQ(r, rank);
    for (int q = 0; q < size; q++) {
        MPI_Cart_coords(cart, q, 2, c2);
        MPI_Cart_rank(cart, c2, &r);
        MT_CHECK_EQ(r, q);
    }
    if (periodic) { /* out-of-range coordinate in a periodic dimension wraps */
        c2[0] = coords[0] + dims[0];
        c2[1] = coords[1];
        MPI_Cart_rank(cart, c2, &r);
        MT_CHECK_EQ(r, rank);
        c2[0] = coords[0] - 1;
        MPI_Cart_rank(cart, c2, &r);
        MT_CHECK_EQ(r, ((coords[0] - 1 + dims[0]) % dims[0]) * dims[1] + coords[1]);
    }

    mt_section("Cart_shift + halo exchange periods=(%d,0)", periodic);
    for (int dim = 0; dim < 2; dim++) {
        for (int disp = 1; disp <= 2; disp++) {
            int src = -5, dst = -5;
            MPI_Cart_shift(cart, dim, disp, &src, &dst);
            int n = dims[dim], me = coords[dim];
            int es = me - disp, ed = me + disp;
            if (gp[dim]) { es = ((es % n) + n) % n; ed = ed % n; }
            int exp_src = MPI_PROC_NULL, exp_dst = MPI_PROC_NULL;
            if (es >= 0) {
                c2[0] = coords[0]; c2[1] = coords[1]; c2[dim] = es;
                MPI_Cart_rank(cart, c2, &exp_src);
            }
            if (ed < n) {
                c2[0] = coords[0]; c2[1] = coords[1]; c2[dim] = ed;
                MPI_Cart_rank(cart, c2, &exp_dst);
            }
            MT_CHECK(src == exp_src && dst == exp_dst, "dim %d disp %d: src %d dst %d, expected %d %d",
                     dim, disp, src, dst, exp_src, exp_dst);
            int out = mt_ival(rank, dim * 10 + disp), in = -7;
            MPI_Sendrecv(&out, 1, MPI_INT, dst, disp, &in, 1, MPI_INT, src, disp, cart, MPI_STATUS_IGNORE);
            MT_CHECK_EQ(in, src == MPI_PROC_NULL ? -7 : mt_ival(src, dim * 10 + disp));
        }
    }

    mt_section("MPI_Cart_sub rows");
    MPI_Comm row;
    int remain[2] = {0, 1};
    MPI_Cart_sub(cart, remain, &row);
    int rs = -1, rr = -1, sum = 0;
    MPI_Comm_size(row, &rs);
    MPI_Comm_rank(row, &rr);
    MT_CHECK_EQ(rs, dims[1]);
    MT_CHECK_EQ(rr, coords[1]);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, row);
    int base = coords[0] * dims[1];
    MT_CHECK_EQ(sum, dims[1] * base + dims[1] * (dims[1] - 1) / 2);
    MPI_Topo_test(row, &t);
    MT_CHECK_EQ(t, MPI_CART);
    MPI_Comm_free(&row);
    MPI_Comm_free(&cart);
}

static void test_cart3d(void)
{
    mt_section("3-D periodic cart");
    int dims[3] = {0, 0, 0}, periods[3] = {1, 1, 1}, coords[3], r;
    MPI_Dims_create(size, 3, dims);
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 0, &cart);
    MPI_Cart_coords(cart, rank, 3, coords);
    MT_CHECK_EQ(coords[0] * dims[1] * dims[2] + coords[1] * dims[2] + coords[2], rank);
    MPI_Cart_rank(cart, coords, &r);
    MT_CHECK_EQ(r, rank);
    MPI_Comm_free(&cart);

    mt_section("cart smaller than the world: extra ranks get MPI_COMM_NULL");
    int d1[1] = {(size + 1) / 2}, p1[1] = {0};
    MPI_Cart_create(MPI_COMM_WORLD, 1, d1, p1, 0, &cart);
    if (rank >= d1[0]) {
        MT_CHECK(cart == MPI_COMM_NULL, "rank %d outside the grid got a communicator", rank);
    } else {
        MT_CHECK(cart != MPI_COMM_NULL, "rank inside the grid got MPI_COMM_NULL");
        if (cart != MPI_COMM_NULL) MPI_Comm_free(&cart);
    }
}

static void test_dist_graph(void)
{
    mt_section("MPI_Dist_graph_create_adjacent (in: r-1, r-2; out: r+1, r+2)");
    int src[2] = {(rank + size - 1) % size, ((rank - 2) % size + size) % size};
    int dst[2] = {(rank + 1) % size, (rank + 2) % size};
    int sw[2] = {1, 2}, dw[2] = {1, 2};
    MPI_Comm g;
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, src, sw, 2, dst, dw, MPI_INFO_NULL, 0, &g);
    int t = -1, indeg = -1, outdeg = -1, weighted = -1;
    MPI_Topo_test(g, &t);
    MT_CHECK_EQ(t, MPI_DIST_GRAPH);
    MPI_Dist_graph_neighbors_count(g, &indeg, &outdeg, &weighted);
    MT_CHECK_EQ(indeg, 2);
    MT_CHECK_EQ(outdeg, 2);
    MT_CHECK_EQ(weighted, 1);
    int gs[2], gsw[2], gd[2], gdw[2];
    MPI_Dist_graph_neighbors(g, 2, gs, gsw, 2, gd, gdw);
    for (int k = 0; k < 2; k++) {
        MT_CHECK_EQ(gs[k], src[k]);
        MT_CHECK_EQ(gd[k], dst[k]);
        MT_CHECK_EQ(gsw[k], sw[k]);
        MT_CHECK_EQ(gdw[k], dw[k]);
    }
    mt_section("data along the dist-graph edges");
    int out[2], in[2] = {-1, -1};
    MPI_Request rq[4];
    for (int k = 0; k < 2; k++) MPI_Irecv(&in[k], 1, MPI_INT, gs[k], 10 + k, g, &rq[k]);
    for (int k = 0; k < 2; k++) {
        out[k] = mt_ival(rank, k);
        MPI_Isend(&out[k], 1, MPI_INT, gd[k], 10 + k, g, &rq[2 + k]);
    }
    MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);
    for (int k = 0; k < 2; k++) MT_CHECK_EQ(in[k], mt_ival(gs[k], k));
    MPI_Comm_free(&g);

    mt_section("unweighted dist graph with no edges on odd ranks");
    int deg = rank % 2 ? 0 : 1, one_src = rank, one_dst = rank;
    /* MPI_UNWEIGHTED is a sentinel pointer; GCC >= 11 takes it for an empty
     * array and warns (a false positive). */
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 11
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overread"
#endif
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, deg, &one_src, MPI_UNWEIGHTED, deg, &one_dst,
                                   MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g);
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 11
#pragma GCC diagnostic pop
#endif
    MPI_Dist_graph_neighbors_count(g, &indeg, &outdeg, &weighted);
    MT_CHECK_EQ(indeg, deg);
    MT_CHECK_EQ(outdeg, deg);
    MT_CHECK_EQ(weighted, 0);
    MPI_Comm_free(&g);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "topology");
    rank = mt_rank();
    size = mt_size();
    test_dims();
    test_cart2d(0);
    test_cart2d(1);
    test_cart3d();
    test_dist_graph();
    return mt_finish();
}

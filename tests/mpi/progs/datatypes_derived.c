/* grove-mpi-test ranks=1,2,3,4,8 */
/* datatypes_derived: Type_contiguous, Type_vector, Type_create_hvector,
 * Type_indexed, Type_create_struct (displacements from MPI_Get_address, and
 * absolute addresses with MPI_BOTTOM), Type_create_resized, Type_commit/
 * Type_free (a type stays usable through types built from it), Type_size,
 * Type_get_extent, Type_get_true_extent, Type_set_name/get_name, Get_elements
 * on a partial receive. Each derived type travels against a different type
 * with the same signature on the other side, and derived types are used in
 * Bcast, Scatter/Gather (resized column type), Allgather and Alltoall. */
#include "mpitest.h"

static int rank, size, left, right;

static void check_size_extent(MPI_Datatype t, int want_size, MPI_Aint want_lb, MPI_Aint want_ext)
{
    int sz = -1;
    MPI_Aint lb = -1, ext = -1;
    MPI_Type_size(t, &sz);
    MPI_Type_get_extent(t, &lb, &ext);
    MT_CHECK_EQ(sz, want_size);
    MT_CHECK_EQ(lb, want_lb);
    MT_CHECK_EQ(ext, want_ext);
}

/* Sends count x stype from sbuf to the right and receives rcount x rtype
 * from the left into rbuf (Irecv first, so it works with one rank). */
static void xfer(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                 MPI_Datatype rtype, int tag)
{
    MPI_Request rq;
    MPI_Irecv(rbuf, rcount, rtype, left, tag, MPI_COMM_WORLD, &rq);
    MPI_Send(sbuf, scount, stype, right, tag, MPI_COMM_WORLD);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
}

static void test_contiguous_vector(void)
{
    MPI_Datatype c5, vec, hvec, cc;
    int a[40], b[40];

    mt_section("MPI_Type_contiguous");
    MPI_Type_contiguous(5, MPI_INT, &c5);
    MPI_Type_commit(&c5);
    check_size_extent(c5, 20, 0, 20);
    for (int i = 0; i < 40; i++) { a[i] = mt_ival(rank, i); b[i] = -1; }
    xfer(a, 2, c5, b, 10, MPI_INT, 1);
    for (int i = 0; i < 10; i++) MT_CHECK_EQ(b[i], mt_ival(left, i));
    MT_CHECK_EQ(b[10], -1);
    /* contiguous of contiguous, then free the inner type: still usable */
    MPI_Type_contiguous(2, c5, &cc);
    MPI_Type_free(&c5);
    MT_CHECK(c5 == MPI_DATATYPE_NULL, "Type_free did not set MPI_DATATYPE_NULL");
    MPI_Type_commit(&cc);
    check_size_extent(cc, 40, 0, 40);
    for (int i = 0; i < 40; i++) b[i] = -1;
    xfer(a, 20, MPI_INT, b, 2, cc, 2);
    for (int i = 0; i < 20; i++) MT_CHECK_EQ(b[i], mt_ival(left, i));
    MPI_Type_free(&cc);

    mt_section("MPI_Type_vector count=4 blocklen=2 stride=3");
    MPI_Type_vector(4, 2, 3, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    check_size_extent(vec, 32, 0, (3 * 3 + 2) * 4);
    for (int i = 0; i < 40; i++) b[i] = -1;
    xfer(a, 1, vec, b, 8, MPI_INT, 3); /* vector -> contiguous */
    for (int k = 0; k < 4; k++)
        for (int j = 0; j < 2; j++) MT_CHECK_EQ(b[k * 2 + j], mt_ival(left, k * 3 + j));
    for (int i = 0; i < 40; i++) b[i] = -1;
    xfer(a, 8, MPI_INT, b, 1, vec, 4); /* contiguous -> vector */
    for (int i = 0; i < 12; i++) {
        int k = i / 3, j = i % 3;
        MT_CHECK_EQ(b[i], j < 2 ? mt_ival(left, k * 2 + j) : -1);
    }
    /* two vectors in a row: the second starts one extent after the first */
    for (int i = 0; i < 40; i++) b[i] = -1;
    xfer(a, 16, MPI_INT, b, 2, vec, 5);
    MT_CHECK_EQ(b[11], mt_ival(left, 8));
    MT_CHECK_EQ(b[12], mt_ival(left, 9));
    MT_CHECK_EQ(b[10], mt_ival(left, 7));
    MT_CHECK_EQ(b[13], -1); /* gaps stay untouched */
    MT_CHECK_EQ(b[2], -1);
    MT_CHECK_EQ(b[21], mt_ival(left, 15));
    MT_CHECK_EQ(b[22], -1);

    mt_section("MPI_Type_create_hvector of doubles (stride 24 bytes)");
    double da[12], db[12];
    for (int i = 0; i < 12; i++) { da[i] = mt_ival(rank, i) + 0.5; db[i] = -1; }
    MPI_Type_create_hvector(4, 1, 3 * sizeof(double), MPI_DOUBLE, &hvec);
    MPI_Type_commit(&hvec);
    check_size_extent(hvec, 32, 0, 10 * sizeof(double));
    xfer(da, 1, hvec, db, 4, MPI_DOUBLE, 6);
    for (int k = 0; k < 4; k++) MT_CHECK_FEQ(db[k], mt_ival(left, 3 * k) + 0.5);
    /* vector on one side, hvector on the other (same signature) */
    for (int i = 0; i < 12; i++) db[i] = -1;
    MPI_Datatype dvec;
    MPI_Type_vector(4, 1, 3, MPI_DOUBLE, &dvec);
    MPI_Type_commit(&dvec);
    xfer(da, 1, dvec, db, 1, hvec, 7);
    for (int i = 0; i < 12; i++) MT_CHECK_FEQ(db[i], i % 3 ? -1.0 : mt_ival(left, i) + 0.5);
    MPI_Type_free(&dvec);
    MPI_Type_free(&hvec);
    MPI_Type_free(&vec);
}

static void test_indexed(void)
{
    mt_section("MPI_Type_indexed");
    int lens[3] = {1, 3, 2}, disp[3] = {5, 0, 10};
    int a[16], b[16];
    MPI_Datatype idx;
    MPI_Type_indexed(3, lens, disp, MPI_INT, &idx);
    MPI_Type_commit(&idx);
    check_size_extent(idx, 24, 0, 12 * 4);
    MPI_Aint tlb, text;
    MPI_Type_get_true_extent(idx, &tlb, &text);
    MT_CHECK_EQ(tlb, 0);
    MT_CHECK_EQ(text, 48);
    for (int i = 0; i < 16; i++) { a[i] = mt_ival(rank, i); b[i] = -1; }
    xfer(a, 1, idx, b, 6, MPI_INT, 10);
    /* typemap order: element 5, then 0,1,2, then 10,11 */
    const int order[6] = {5, 0, 1, 2, 10, 11};
    for (int i = 0; i < 6; i++) MT_CHECK_EQ(b[i], mt_ival(left, order[i]));

    mt_section("partial receive: MPI_Get_elements with a derived type");
    MPI_Request rq;
    MPI_Status st;
    int cnt = -1;
    for (int i = 0; i < 16; i++) b[i] = -1;
    MPI_Irecv(b, 2, idx, left, 11, MPI_COMM_WORLD, &rq);
    MPI_Send(a, 4, MPI_INT, right, 11, MPI_COMM_WORLD); /* 4 of 6 ints of one idx */
    MPI_Wait(&rq, &st);
    MPI_Get_count(&st, idx, &cnt);
    MT_CHECK_EQ(cnt, MPI_UNDEFINED);
    MPI_Get_elements(&st, idx, &cnt);
    MT_CHECK_EQ(cnt, 4);
    MT_CHECK_EQ(b[5], mt_ival(left, 0));
    MT_CHECK_EQ(b[0], mt_ival(left, 1));
    MT_CHECK_EQ(b[2], mt_ival(left, 3));
    MT_CHECK_EQ(b[10], -1);
    MPI_Type_free(&idx);
}

struct rec { char c; double d[2]; int i; };

static MPI_Datatype make_rec_type(void)
{
    struct rec r = {0}; /* only its addresses are used; gcc warns on a const void * to an unset object */
    int bl[3] = {1, 2, 1};
    MPI_Aint base, disp[3];
    MPI_Datatype types[3] = {MPI_CHAR, MPI_DOUBLE, MPI_INT}, t, tr;
    MPI_Get_address(&r, &base);
    MPI_Get_address(&r.c, &disp[0]);
    MPI_Get_address(&r.d[0], &disp[1]);
    MPI_Get_address(&r.i, &disp[2]);
    for (int k = 0; k < 3; k++) disp[k] = MPI_Aint_diff(disp[k], base);
    MT_CHECK_EQ(disp[1], offsetof(struct rec, d));
    MT_CHECK_EQ(disp[2], offsetof(struct rec, i));
    MPI_Type_create_struct(3, bl, disp, types, &t);
    MPI_Type_create_resized(t, 0, sizeof(struct rec), &tr);
    MPI_Type_free(&t);
    MPI_Type_commit(&tr);
    return tr;
}

static void test_struct(void)
{
    mt_section("MPI_Type_create_struct + resized");
    MPI_Datatype rt = make_rec_type();
    check_size_extent(rt, 1 + 16 + 4, 0, sizeof(struct rec));
    char nm[MPI_MAX_OBJECT_NAME];
    int len = -1;
    MPI_Type_set_name(rt, "grove_rec");
    MPI_Type_get_name(rt, nm, &len);
    MT_CHECK(strcmp(nm, "grove_rec") == 0, "name \"%s\"", nm);
    MT_CHECK_EQ(len, 9);

    struct rec s[3], r[3];
    memset(r, 0, sizeof r);
    for (int k = 0; k < 3; k++) {
        s[k].c = (char)('a' + rank % 26);
        s[k].d[0] = mt_ival(rank, k) + 0.25;
        s[k].d[1] = -k * 0.5;
        s[k].i = mt_ival(rank, 100 + k);
    }
    xfer(s, 3, rt, r, 3, rt, 20);
    for (int k = 0; k < 3; k++) {
        MT_CHECK_EQ(r[k].c, 'a' + left % 26);
        MT_CHECK_FEQ(r[k].d[0], mt_ival(left, k) + 0.25);
        MT_CHECK_FEQ(r[k].d[1], -k * 0.5);
        MT_CHECK_EQ(r[k].i, mt_ival(left, 100 + k));
    }

    mt_section("struct -> separate arrays through absolute addresses and MPI_BOTTOM");
    char cs[3];
    double ds[6];
    int is[3];
    MPI_Datatype abs_t;
    MPI_Aint ad[3 * 3];
    int bl[9];
    MPI_Datatype ty[9];
    for (int k = 0; k < 3; k++) {
        MPI_Get_address(&cs[k], &ad[3 * k]);
        MPI_Get_address(&ds[2 * k], &ad[3 * k + 1]);
        MPI_Get_address(&is[k], &ad[3 * k + 2]);
        bl[3 * k] = 1; ty[3 * k] = MPI_CHAR;
        bl[3 * k + 1] = 2; ty[3 * k + 1] = MPI_DOUBLE;
        bl[3 * k + 2] = 1; ty[3 * k + 2] = MPI_INT;
    }
    MPI_Type_create_struct(9, bl, ad, ty, &abs_t);
    MPI_Type_commit(&abs_t);
    xfer(s, 3, rt, MPI_BOTTOM, 1, abs_t, 21);
    for (int k = 0; k < 3; k++) {
        MT_CHECK_EQ(cs[k], 'a' + left % 26);
        MT_CHECK_FEQ(ds[2 * k], mt_ival(left, k) + 0.25);
        MT_CHECK_EQ(is[k], mt_ival(left, 100 + k));
    }
    MPI_Type_free(&abs_t);

    mt_section("MPI_Bcast of struct type from the last rank");
    memset(r, 0, sizeof r);
    if (rank == size - 1) memcpy(r, s, sizeof r);
    MPI_Bcast(r, 3, rt, size - 1, MPI_COMM_WORLD);
    for (int k = 0; k < 3; k++) {
        MT_CHECK_FEQ(r[k].d[0], mt_ival(size - 1, k) + 0.25);
        MT_CHECK_EQ(r[k].i, mt_ival(size - 1, 100 + k));
    }
    MPI_Type_free(&rt);
}

/* Matrix with `size` columns and R rows, row-major at the root. The column
 * type (vector resized to one int) scatters column q to rank q. */
static void test_collectives(void)
{
    enum { R = 5 };
    int root = size / 2;
    int *m = mt_malloc(sizeof(int) * R * (size_t)size), col[R];
    MPI_Datatype colv, colt;
    MPI_Type_vector(R, 1, size, MPI_INT, &colv);
    MPI_Type_create_resized(colv, 0, sizeof(int), &colt);
    MPI_Type_commit(&colt);
    check_size_extent(colt, R * 4, 0, 4);

    mt_section("MPI_Scatter with a resized column type");
    for (int i = 0; i < R * size; i++) m[i] = rank == root ? mt_ival(root, i) : -1;
    MPI_Scatter(m, 1, colt, col, R, MPI_INT, root, MPI_COMM_WORLD);
    for (int i = 0; i < R; i++) MT_CHECK_EQ(col[i], mt_ival(root, i * size + rank));

    mt_section("MPI_Gather into a resized column type");
    for (int i = 0; i < R; i++) col[i] = mt_ival(rank, i);
    for (int i = 0; i < R * size; i++) m[i] = -1;
    MPI_Gather(col, R, MPI_INT, m, 1, colt, root, MPI_COMM_WORLD);
    if (rank == root)
        for (int q = 0; q < size; q++)
            for (int i = 0; i < R; i++) MT_CHECK_EQ(m[i * size + q], mt_ival(q, i));

    mt_section("MPI_Allgather into a resized column type");
    for (int i = 0; i < R * size; i++) m[i] = -1;
    MPI_Allgather(col, R, MPI_INT, m, 1, colt, MPI_COMM_WORLD);
    for (int q = 0; q < size; q++)
        for (int i = 0; i < R; i++) MT_CHECK_EQ(m[i * size + q], mt_ival(q, i));

    mt_section("MPI_Alltoall transpose: send columns, receive rows");
    /* Each rank owns a size x size block row-major; sending column q (as a
     * column type) to rank q and receiving contiguous rows transposes it. */
    int *a = mt_malloc(sizeof(int) * (size_t)size * (size_t)size);
    int *t = mt_malloc(sizeof(int) * (size_t)size * (size_t)size);
    MPI_Datatype c2v, c2;
    MPI_Type_vector(size, 1, size, MPI_INT, &c2v);
    MPI_Type_create_resized(c2v, 0, sizeof(int), &c2);
    MPI_Type_commit(&c2);
    for (int i = 0; i < size * size; i++) { a[i] = mt_ival(rank, i); t[i] = -1; }
    MPI_Alltoall(a, 1, c2, t, size, MPI_INT, MPI_COMM_WORLD);
    /* t row q = column `rank` of rank q's a: t[q*size + i] = a_q[i*size + rank] */
    for (int q = 0; q < size; q++)
        for (int i = 0; i < size; i++)
            MT_CHECK_EQ(t[q * size + i], mt_ival(q, i * size + rank));
    MPI_Type_free(&c2v);
    MPI_Type_free(&c2);
    MPI_Type_free(&colv);
    MPI_Type_free(&colt);
    free(m);
    free(a);
    free(t);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "datatypes_derived");
    rank = mt_rank();
    size = mt_size();
    left = (rank + size - 1) % size;
    right = (rank + 1) % size;
    test_contiguous_vector();
    test_indexed();
    test_struct();
    test_collectives();
    return mt_finish();
}

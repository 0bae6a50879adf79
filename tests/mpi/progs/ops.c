/* grove-mpi-test ranks=1,2,3,4,8 */
/* ops: predefined reduction operations on every type they apply to, with
 * MPI_Allreduce and MPI_Reduce to the last rank. Integer types (including
 * MPI_CHAR, fixed-width and MPI_AINT/OFFSET/COUNT): SUM PROD MIN MAX LAND
 * LOR LXOR BAND BOR BXOR; MPI_BYTE: BAND BOR BXOR; floating types: SUM PROD
 * MIN MAX; MPI_C_BOOL: LAND LOR LXOR; MINLOC/MAXLOC on all pair types (ties
 * resolve to the lower index). User ops from MPI_Op_create: commutative and
 * non-commutative (composition of affine maps, so rank order matters) in
 * Reduce, Allreduce, Scan, Exscan and Reduce_scatter_block; Op_commutative;
 * Op_free. Expected values are folded locally in C; all exact. */
#include "mpitest.h"
#include <stdbool.h>

#define N 37
static int rank, size;

enum { SUM, PROD, MIN, MAX, LAND, LOR, LXOR, BAND, BOR, BXOR, NOPS };
static const char *opname[NOPS] = {"SUM", "PROD", "MIN", "MAX", "LAND", "LOR", "LXOR", "BAND", "BOR", "BXOR"};
static MPI_Op ophandle(int op)
{
    const MPI_Op h[NOPS] = {MPI_SUM, MPI_PROD, MPI_MIN, MPI_MAX, MPI_LAND,
                            MPI_LOR, MPI_LXOR, MPI_BAND, MPI_BOR, MPI_BXOR};
    return h[op];
}

/* Input of rank r, element i, for op: small enough that nothing overflows
 * even int8_t with 8 ranks, and exact in float. Signed types see negatives. */
static long long input(int op, int r, int i, int is_signed)
{
    switch (op) {
    case SUM: return (r + i) % 5 - (is_signed ? 2 : 0);
    case PROD: return (r + i) % 4 == 1 ? 2 : ((r + i) % 7 == 3 && is_signed ? -1 : 1);
    case MIN: case MAX: return (r * 7 + i * 3) % 11 - (is_signed ? 5 : 0);
    case LAND: return (r + i) % 4 != 0 || i % 3 == 0 ? (r % 2 ? 5 : 1) : 0;
    case LOR: return (r == i % (size + 1)) ? 3 : 0;
    case LXOR: return (r + i) % 3 == 0 ? 2 : 0;
    default: return ((r * 5 + i) % 7 + 1) | (i % 2 ? 0x40 : 0x10); /* bit ops, < 0x80 */
    }
}

static long long fold(int op, long long a, long long b)
{
    switch (op) {
    case SUM: return a + b;
    case PROD: return a * b;
    case MIN: return a < b ? a : b;
    case MAX: return a > b ? a : b;
    case LAND: return (a != 0) && (b != 0);
    case LOR: return (a != 0) || (b != 0);
    case LXOR: return (a != 0) != (b != 0);
    case BAND: return a & b;
    case BOR: return a | b;
    default: return a ^ b;
    }
}

static long long expected(int op, int i, int is_signed)
{
    long long acc = input(op, 0, i, is_signed);
    for (int r = 1; r < size; r++) acc = fold(op, acc, input(op, r, i, is_signed));
    return acc;
}

/* Test one integer-like C type T with MPI type MT for the ops in [op0,op1]
 * (floating types too: their inputs are small integers). */
#define TEST_TYPE(T, MT, TNAME, IS_SIGNED, FIRST, LAST)                                    \
    do {                                                                                   \
        for (int op = FIRST; op <= LAST; op++) {                                           \
            T s[N], r[N];                                                                  \
            mt_section("%s on %s", opname[op], TNAME);                                     \
            for (int i = 0; i < N; i++) { s[i] = (T)input(op, rank, i, IS_SIGNED); r[i] = (T)99; } \
            MPI_Allreduce(s, r, N, MT, ophandle(op), MPI_COMM_WORLD);                      \
            for (int i = 0; i < N; i++)                                                    \
                if (!MT_CHECK(r[i] == (T)expected(op, i, IS_SIGNED),                        \
                              "Allreduce element %d: got %lld expected %lld", i,           \
                              (long long)r[i], expected(op, i, IS_SIGNED)))                \
                    break;                                                                 \
            for (int i = 0; i < N; i++) r[i] = (T)99;                                      \
            MPI_Reduce(s, r, N, MT, ophandle(op), size - 1, MPI_COMM_WORLD);               \
            if (rank == size - 1)                                                          \
                for (int i = 0; i < N; i++)                                                \
                    if (!MT_CHECK(r[i] == (T)expected(op, i, IS_SIGNED),                    \
                                  "Reduce element %d", i))                                 \
                        break;                                                             \
        }                                                                                  \
    } while (0)

/* ---- MINLOC / MAXLOC ---------------------------------------------------- */
#define TEST_LOC(T, VT, MT, TNAME)                                                         \
    do {                                                                                   \
        T s[N], r[N];                                                                      \
        for (int i = 0; i < N; i++) {                                                      \
            s[i].v = (VT)((rank * 3 + i) % 4); /* ties across ranks */                     \
            s[i].k = rank * 10 + i;                                                        \
        }                                                                                  \
        for (int m = 0; m < 2; m++) {                                                      \
            mt_section("%s on %s", m ? "MAXLOC" : "MINLOC", TNAME);                        \
            MPI_Allreduce(s, r, N, MT, m ? MPI_MAXLOC : MPI_MINLOC, MPI_COMM_WORLD);       \
            for (int i = 0; i < N; i++) {                                                  \
                int best = 0;                                                              \
                for (int q = 1; q < size; q++) {                                           \
                    int vq = (q * 3 + i) % 4, vb = (best * 3 + i) % 4;                     \
                    if (m ? vq > vb : vq < vb) best = q; /* ties keep lower index */       \
                }                                                                          \
                if (!MT_CHECK(r[i].v == (VT)((best * 3 + i) % 4) && r[i].k == best * 10 + i, \
                              "element %d: got (%lld,%d), expected (%d,%d)", i,            \
                              (long long)r[i].v, r[i].k, (best * 3 + i) % 4, best * 10 + i)) \
                    break;                                                                 \
            }                                                                              \
        }                                                                                  \
    } while (0)

struct float_int { float v; int k; };
struct double_int { double v; int k; };
struct long_int { long v; int k; };
struct two_int { int v; int k; };
struct short_int { short v; int k; };
struct long_double_int { long double v; int k; };

/* ---- user-defined ops --------------------------------------------------- */
/* Affine map x -> a*x + b over uint32 (wrapping): composition is associative
 * and not commutative. inout = in o inout means "apply inout after in":
 * (in then inout)(x) = inout.a*(in.a*x + in.b) + inout.b. MPI computes
 * inout = in op inout with in from lower ranks, so the result is
 * f_{n-1} o ... o f_0, i.e. apply rank 0's map first. */
typedef struct { uint32_t a, b; } affine;

static void affine_op(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    affine *x = in, *y = inout;
    for (int i = 0; i < *len; i++) {
        affine r = {y[i].a * x[i].a, y[i].a * x[i].b + y[i].b};
        y[i] = r;
    }
}

static affine affine_of(int r, int i) { return (affine){(uint32_t)(2 * r + 3 + i), (uint32_t)(r * 7 + i + 1)}; }

static affine affine_fold(int from, int to, int i) /* ranks from..to-1 in order */
{
    affine acc = {1, 0};
    for (int r = from; r < to; r++) {
        affine f = affine_of(r, i);
        acc = (affine){f.a * acc.a, f.a * acc.b + f.b};
    }
    return acc;
}

static void sum_mod_op(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    int *x = in, *y = inout;
    for (int i = 0; i < *len; i++) y[i] = (x[i] + y[i]) % 1000;
}

static void test_user_ops(void)
{
    MPI_Op comm_op, noncomm_op;
    MPI_Datatype aff;
    int c = -1;
    MPI_Op_create(sum_mod_op, 1, &comm_op);
    MPI_Op_create(affine_op, 0, &noncomm_op);
    MPI_Op_commutative(comm_op, &c);
    MT_CHECK_EQ(c, 1);
    MPI_Op_commutative(noncomm_op, &c);
    MT_CHECK_EQ(c, 0);
    MPI_Op_commutative(MPI_SUM, &c);
    MT_CHECK_EQ(c, 1);
    MPI_Type_contiguous(2, MPI_UINT32_T, &aff);
    MPI_Type_commit(&aff);

    mt_section("commutative user op (sum mod 1000), Allreduce");
    int s[N], r[N];
    for (int i = 0; i < N; i++) s[i] = (rank * 311 + i * 17) % 1000;
    MPI_Allreduce(s, r, N, MPI_INT, comm_op, MPI_COMM_WORLD);
    for (int i = 0; i < N; i++) {
        int e = 0;
        for (int q = 0; q < size; q++) e = (e + (q * 311 + i * 17) % 1000) % 1000;
        if (!MT_CHECK_EQ(r[i], e)) break;
    }

    affine as[N], ar[N];
    for (int i = 0; i < N; i++) as[i] = affine_of(rank, i);
    for (int root = 0; root < size; root += (size > 2 ? size - 1 : 1)) {
        mt_section("non-commutative user op, Reduce root %d", root);
        memset(ar, 0, sizeof ar);
        MPI_Reduce(as, ar, N, aff, noncomm_op, root, MPI_COMM_WORLD);
        if (rank == root)
            for (int i = 0; i < N; i++) {
                affine e = affine_fold(0, size, i);
                if (!MT_CHECK(ar[i].a == e.a && ar[i].b == e.b, "element %d: (%u,%u) vs (%u,%u)",
                              i, ar[i].a, ar[i].b, e.a, e.b)) break;
            }
    }
    mt_section("non-commutative user op, Allreduce");
    MPI_Allreduce(as, ar, N, aff, noncomm_op, MPI_COMM_WORLD);
    for (int i = 0; i < N; i++) {
        affine e = affine_fold(0, size, i);
        if (!MT_CHECK(ar[i].a == e.a && ar[i].b == e.b, "element %d", i)) break;
    }
    mt_section("non-commutative user op, Allreduce MPI_IN_PLACE, large count");
    enum { BIG = 20000 };
    affine *big = mt_malloc(sizeof(affine) * BIG);
    for (int i = 0; i < BIG; i++) big[i] = affine_of(rank, i);
    MPI_Allreduce(MPI_IN_PLACE, big, BIG, aff, noncomm_op, MPI_COMM_WORLD);
    for (int i = 0; i < BIG; i += 97) {
        affine e = affine_fold(0, size, i);
        if (!MT_CHECK(big[i].a == e.a && big[i].b == e.b, "element %d", i)) break;
    }
    free(big);
    mt_section("non-commutative user op, Scan and Exscan");
    MPI_Scan(as, ar, N, aff, noncomm_op, MPI_COMM_WORLD);
    for (int i = 0; i < N; i++) {
        affine e = affine_fold(0, rank + 1, i);
        if (!MT_CHECK(ar[i].a == e.a && ar[i].b == e.b, "scan element %d", i)) break;
    }
    MPI_Exscan(as, ar, N, aff, noncomm_op, MPI_COMM_WORLD);
    if (rank > 0)
        for (int i = 0; i < N; i++) {
            affine e = affine_fold(0, rank, i);
            if (!MT_CHECK(ar[i].a == e.a && ar[i].b == e.b, "exscan element %d", i)) break;
        }
    mt_section("non-commutative user op, Reduce_scatter_block");
    affine *rs = mt_malloc(sizeof(affine) * 3 * (size_t)size), rr[3];
    for (int i = 0; i < 3 * size; i++) rs[i] = affine_of(rank, i);
    MPI_Reduce_scatter_block(rs, rr, 3, aff, noncomm_op, MPI_COMM_WORLD);
    for (int i = 0; i < 3; i++) {
        affine e = affine_fold(0, size, rank * 3 + i);
        MT_CHECK(rr[i].a == e.a && rr[i].b == e.b, "element %d", i);
    }
    free(rs);

    MPI_Op_free(&comm_op);
    MPI_Op_free(&noncomm_op);
    MT_CHECK(comm_op == MPI_OP_NULL && noncomm_op == MPI_OP_NULL, "Op_free did not set MPI_OP_NULL");
    MPI_Type_free(&aff);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "ops");
    rank = mt_rank();
    size = mt_size();

    TEST_TYPE(char, MPI_CHAR, "MPI_CHAR", 0, SUM, MAX); /* arithmetic on MPI_CHAR (MPI 3.x) */
    TEST_TYPE(signed char, MPI_SIGNED_CHAR, "MPI_SIGNED_CHAR", 1, SUM, BXOR);
    TEST_TYPE(unsigned char, MPI_UNSIGNED_CHAR, "MPI_UNSIGNED_CHAR", 0, SUM, BXOR);
    TEST_TYPE(short, MPI_SHORT, "MPI_SHORT", 1, SUM, BXOR);
    TEST_TYPE(unsigned short, MPI_UNSIGNED_SHORT, "MPI_UNSIGNED_SHORT", 0, SUM, BXOR);
    TEST_TYPE(int, MPI_INT, "MPI_INT", 1, SUM, BXOR);
    TEST_TYPE(unsigned, MPI_UNSIGNED, "MPI_UNSIGNED", 0, SUM, BXOR);
    TEST_TYPE(long, MPI_LONG, "MPI_LONG", 1, SUM, BXOR);
    TEST_TYPE(unsigned long, MPI_UNSIGNED_LONG, "MPI_UNSIGNED_LONG", 0, SUM, BXOR);
    TEST_TYPE(long long, MPI_LONG_LONG, "MPI_LONG_LONG", 1, SUM, BXOR);
    TEST_TYPE(unsigned long long, MPI_UNSIGNED_LONG_LONG, "MPI_UNSIGNED_LONG_LONG", 0, SUM, BXOR);
    TEST_TYPE(int8_t, MPI_INT8_T, "MPI_INT8_T", 1, SUM, BXOR);
    TEST_TYPE(int16_t, MPI_INT16_T, "MPI_INT16_T", 1, SUM, BXOR);
    TEST_TYPE(int32_t, MPI_INT32_T, "MPI_INT32_T", 1, SUM, BXOR);
    TEST_TYPE(int64_t, MPI_INT64_T, "MPI_INT64_T", 1, SUM, BXOR);
    TEST_TYPE(uint8_t, MPI_UINT8_T, "MPI_UINT8_T", 0, SUM, BXOR);
    TEST_TYPE(uint16_t, MPI_UINT16_T, "MPI_UINT16_T", 0, SUM, BXOR);
    TEST_TYPE(uint32_t, MPI_UINT32_T, "MPI_UINT32_T", 0, SUM, BXOR);
    TEST_TYPE(uint64_t, MPI_UINT64_T, "MPI_UINT64_T", 0, SUM, BXOR);
    TEST_TYPE(MPI_Aint, MPI_AINT, "MPI_AINT", 1, SUM, BXOR);
    /* Open MPI 4.1 computes MIN/MAX on MPI_OFFSET as if unsigned: give it
     * non-negative inputs only. */
    TEST_TYPE(MPI_Offset, MPI_OFFSET, "MPI_OFFSET", !MT_PEER_OMPI, SUM, BXOR);
    TEST_TYPE(MPI_Count, MPI_COUNT, "MPI_COUNT", 1, SUM, BXOR);
    TEST_TYPE(unsigned char, MPI_BYTE, "MPI_BYTE", 0, BAND, BXOR);
    TEST_TYPE(float, MPI_FLOAT, "MPI_FLOAT", 1, SUM, MAX);
    TEST_TYPE(double, MPI_DOUBLE, "MPI_DOUBLE", 1, SUM, MAX);
    TEST_TYPE(long double, MPI_LONG_DOUBLE, "MPI_LONG_DOUBLE", 1, SUM, MAX);
    TEST_TYPE(bool, MPI_C_BOOL, "MPI_C_BOOL", 0, LAND, LXOR);

    TEST_LOC(struct float_int, float, MPI_FLOAT_INT, "MPI_FLOAT_INT");
    TEST_LOC(struct double_int, double, MPI_DOUBLE_INT, "MPI_DOUBLE_INT");
    TEST_LOC(struct long_int, long, MPI_LONG_INT, "MPI_LONG_INT");
    TEST_LOC(struct two_int, int, MPI_2INT, "MPI_2INT");
    TEST_LOC(struct short_int, short, MPI_SHORT_INT, "MPI_SHORT_INT");
    TEST_LOC(struct long_double_int, long double, MPI_LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT");

    test_user_ops();
    return mt_finish();
}

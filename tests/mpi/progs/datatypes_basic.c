/* grove-mpi-test ranks=1,2,3,4,8 */
/* datatypes_basic: every predefined C datatype in point-to-point and Bcast:
 * MPI_CHAR, SIGNED_CHAR, UNSIGNED_CHAR, BYTE, SHORT, UNSIGNED_SHORT, INT,
 * UNSIGNED, LONG, UNSIGNED_LONG, LONG_LONG, UNSIGNED_LONG_LONG, FLOAT,
 * DOUBLE, LONG_DOUBLE, C_BOOL, INT8_T..UINT64_T, AINT, OFFSET, COUNT, WCHAR
 * and the pair types FLOAT_INT, DOUBLE_INT, LONG_INT, 2INT, SHORT_INT,
 * LONG_DOUBLE_INT. Values include each type's extremes; also checks
 * MPI_Type_size against sizeof, MPI_Type_get_extent, MPI_Type_get_name
 * (standard names) and MPI_Get_count/Get_elements per type. */
#include "mpitest.h"
#include <float.h>
#include <limits.h>
#include <stdbool.h>
#include <wchar.h>

static int rank, size, left, right;

static int name_is(const char *got, const char *name, const char *alt)
{
    return strcmp(got, name) == 0 || (alt != NULL && strcmp(got, alt) == 0);
}

static void check_meta(MPI_Datatype t, size_t csize, const char *name, const char *alt)
{
    int sz = -1, len = -1;
    MPI_Aint lb = -1, ext = -1;
    char got[MPI_MAX_OBJECT_NAME];
    MPI_Type_size(t, &sz);
    MT_CHECK_EQ(sz, csize);
    MPI_Type_get_extent(t, &lb, &ext);
    MT_CHECK_EQ(lb, 0);
    MT_CHECK_EQ(ext, csize);
    MPI_Type_get_name(t, got, &len);
    MT_CHECK(name_is(got, name, alt), "MPI_Type_get_name gave \"%s\", expected \"%s\"", got, name);
    MT_CHECK_EQ(len, strlen(got));
}

/* Ring exchange of N values: element N-1 carries the sender's rank. Then a
 * Bcast from the last rank. Compares element by element with ==. */
#define N 6
#define BASIC(T, MT, NAME, ALT, v0, v1, v2, v3, v4)                                      \
    do {                                                                                 \
        mt_section("%s", NAME);                                                          \
        check_meta(MT, sizeof(T), NAME, ALT);                                            \
        T s[N] = {v0, v1, v2, v3, v4, (T)(rank + 1)}, r[N];                              \
        MPI_Status st;                                                                   \
        int cnt = -1;                                                                    \
        memset(r, 0, sizeof r);                                                          \
        MPI_Sendrecv(s, N, MT, right, 1, r, N, MT, left, 1, MPI_COMM_WORLD, &st);        \
        MPI_Get_count(&st, MT, &cnt);                                                    \
        MT_CHECK_EQ(cnt, N);                                                             \
        MPI_Get_elements(&st, MT, &cnt);                                                 \
        MT_CHECK_EQ(cnt, N);                                                             \
        for (int i = 0; i < N - 1; i++) MT_CHECK(r[i] == s[i], "%s element %d", NAME, i); \
        MT_CHECK(r[N - 1] == (T)(left + 1), "%s: rank element", NAME);                   \
        memset(r, 0, sizeof r);                                                          \
        if (rank == size - 1) memcpy(r, s, sizeof r);                                    \
        MPI_Bcast(r, N, MT, size - 1, MPI_COMM_WORLD);                                   \
        for (int i = 0; i < N - 1; i++) MT_CHECK(r[i] == s[i], "bcast %s element %d", NAME, i); \
        MT_CHECK(r[N - 1] == (T)size, "bcast %s: rank element", NAME);                   \
    } while (0)

#define PAIR(T, VT, MT, NAME, ALT)                                                       \
    do {                                                                                 \
        mt_section("%s", NAME);                                                          \
        T s[3], r[3];                                                                    \
        memset(s, 0, sizeof s);                                                          \
        memset(r, 0, sizeof r);                                                          \
        for (int i = 0; i < 3; i++) {                                                    \
            s[i].v = (VT)(i * 3 - 2 + rank);                                             \
            s[i].k = INT_MAX - i - rank;                                                 \
        }                                                                                \
        int sz = -1;                                                                     \
        MPI_Type_size(MT, &sz);                                                          \
        MT_CHECK_EQ(sz, sizeof(VT) + sizeof(int));                                       \
        MPI_Aint lb, ext;                                                                \
        MPI_Type_get_extent(MT, &lb, &ext);                                              \
        MT_CHECK_EQ(ext, sizeof(T));                                                     \
        char got[MPI_MAX_OBJECT_NAME];                                                   \
        int len;                                                                         \
        MPI_Type_get_name(MT, got, &len);                                                \
        MT_CHECK(name_is(got, NAME, ALT), "MPI_Type_get_name gave \"%s\"", got);        \
        MPI_Sendrecv(s, 3, MT, right, 2, r, 3, MT, left, 2, MPI_COMM_WORLD,              \
                     MPI_STATUS_IGNORE);                                                 \
        for (int i = 0; i < 3; i++) {                                                    \
            MT_CHECK(r[i].v == (VT)(i * 3 - 2 + left), "%s value %d", NAME, i);          \
            MT_CHECK_EQ(r[i].k, INT_MAX - i - left);                                     \
        }                                                                                \
    } while (0)

struct float_int { float v; int k; };
struct double_int { double v; int k; };
struct long_int { long v; int k; };
struct two_int { int v; int k; };
struct short_int { short v; int k; };
struct long_double_int { long double v; int k; };

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "datatypes_basic");
    rank = mt_rank();
    size = mt_size();
    left = (rank + size - 1) % size;
    right = (rank + 1) % size;

    BASIC(char, MPI_CHAR, "MPI_CHAR", NULL, 'a', 'Z', '\0', CHAR_MAX, CHAR_MIN);
    BASIC(signed char, MPI_SIGNED_CHAR, "MPI_SIGNED_CHAR", NULL, -1, 1, 0, SCHAR_MAX, SCHAR_MIN);
    BASIC(unsigned char, MPI_UNSIGNED_CHAR, "MPI_UNSIGNED_CHAR", NULL, 0, 1, 128, UCHAR_MAX, 77);
    BASIC(unsigned char, MPI_BYTE, "MPI_BYTE", NULL, 0, 0xFF, 0x80, 0x7F, 0x01);
    BASIC(short, MPI_SHORT, "MPI_SHORT", NULL, -1, 1, 0, SHRT_MAX, SHRT_MIN);
    BASIC(unsigned short, MPI_UNSIGNED_SHORT, "MPI_UNSIGNED_SHORT", NULL, 0, 1, 0x8000, USHRT_MAX, 12345);
    BASIC(int, MPI_INT, "MPI_INT", NULL, -1, 1, 0, INT_MAX, INT_MIN);
    BASIC(unsigned, MPI_UNSIGNED, "MPI_UNSIGNED", NULL, 0, 1, 0x80000000u, UINT_MAX, 123456789u);
    BASIC(long, MPI_LONG, "MPI_LONG", NULL, -1, 1, 0, LONG_MAX, LONG_MIN);
    BASIC(unsigned long, MPI_UNSIGNED_LONG, "MPI_UNSIGNED_LONG", NULL, 0, 1, 2, ULONG_MAX, 99);
    BASIC(long long, MPI_LONG_LONG, "MPI_LONG_LONG", "MPI_LONG_LONG_INT", -1, 1, 0, LLONG_MAX, LLONG_MIN);
    BASIC(long long, MPI_LONG_LONG_INT, "MPI_LONG_LONG_INT", "MPI_LONG_LONG", -2, 2, 0, LLONG_MAX - 1, LLONG_MIN + 1);
    BASIC(unsigned long long, MPI_UNSIGNED_LONG_LONG, "MPI_UNSIGNED_LONG_LONG", NULL, 0, 1, 1ULL << 63, ULLONG_MAX, 42);
    BASIC(float, MPI_FLOAT, "MPI_FLOAT", NULL, -1.5f, 0.25f, 0.0f, FLT_MAX, FLT_MIN);
    BASIC(double, MPI_DOUBLE, "MPI_DOUBLE", NULL, -1.5, 0.125, -0.0, DBL_MAX, DBL_MIN);
    BASIC(long double, MPI_LONG_DOUBLE, "MPI_LONG_DOUBLE", NULL, -1.5L, 1.0L / 3.0L, 0.0L, LDBL_MAX, LDBL_MIN);
    BASIC(bool, MPI_C_BOOL, "MPI_C_BOOL", NULL, true, false, true, true, false);
    BASIC(wchar_t, MPI_WCHAR, "MPI_WCHAR", NULL, L'a', L'\0', (wchar_t)0x263A, WCHAR_MAX, WCHAR_MIN);
    BASIC(int8_t, MPI_INT8_T, "MPI_INT8_T", NULL, -1, 1, 0, INT8_MAX, INT8_MIN);
    BASIC(int16_t, MPI_INT16_T, "MPI_INT16_T", NULL, -1, 1, 0, INT16_MAX, INT16_MIN);
    BASIC(int32_t, MPI_INT32_T, "MPI_INT32_T", NULL, -1, 1, 0, INT32_MAX, INT32_MIN);
    BASIC(int64_t, MPI_INT64_T, "MPI_INT64_T", NULL, -1, 1, 0, INT64_MAX, INT64_MIN);
    BASIC(uint8_t, MPI_UINT8_T, "MPI_UINT8_T", NULL, 0, 1, 0x80, UINT8_MAX, 3);
    BASIC(uint16_t, MPI_UINT16_T, "MPI_UINT16_T", NULL, 0, 1, 0x8000, UINT16_MAX, 3);
    BASIC(uint32_t, MPI_UINT32_T, "MPI_UINT32_T", NULL, 0, 1, 0x80000000u, UINT32_MAX, 3);
    BASIC(uint64_t, MPI_UINT64_T, "MPI_UINT64_T", NULL, 0, 1, 1ULL << 63, UINT64_MAX, 3);
    BASIC(MPI_Aint, MPI_AINT, "MPI_AINT", NULL, 0, -1, (MPI_Aint)0x123456789abcLL, PTRDIFF_MAX,
          PTRDIFF_MIN);
    BASIC(MPI_Offset, MPI_OFFSET, "MPI_OFFSET", NULL, 0, -1, (MPI_Offset)1 << 40, INT64_MAX, INT64_MIN);
    BASIC(MPI_Count, MPI_COUNT, "MPI_COUNT", NULL, 0, -1, (MPI_Count)1 << 40, INT64_MAX, INT64_MIN);

    PAIR(struct float_int, float, MPI_FLOAT_INT, "MPI_FLOAT_INT", NULL);
    PAIR(struct double_int, double, MPI_DOUBLE_INT, "MPI_DOUBLE_INT", NULL);
    PAIR(struct long_int, long, MPI_LONG_INT, "MPI_LONG_INT", NULL);
    PAIR(struct two_int, int, MPI_2INT, "MPI_2INT", NULL);
    PAIR(struct short_int, short, MPI_SHORT_INT, "MPI_SHORT_INT", NULL);
    PAIR(struct long_double_int, long double, MPI_LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT", NULL);

    mt_section("MPI_Get_count across types");
    /* 12 bytes sent as 3 ints: 6 shorts, 12 bytes, 1.5 doubles (undefined). */
    int v[3] = {1, 2, 3}, cnt = -1;
    MPI_Status st;
    MPI_Request req;
    MPI_Isend(v, 3, MPI_INT, right, 3, MPI_COMM_WORLD, &req);
    MPI_Probe(left, 3, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, MPI_SHORT, &cnt);
    MT_CHECK_EQ(cnt, 3 * sizeof(int) / sizeof(short));
    MPI_Get_count(&st, MPI_BYTE, &cnt);
    MT_CHECK_EQ(cnt, 3 * sizeof(int));
    MPI_Get_count(&st, MPI_DOUBLE, &cnt);
    MT_CHECK_EQ(cnt, MPI_UNDEFINED);
    int w[3];
    MPI_Recv(w, 3, MPI_INT, left, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    return mt_finish();
}

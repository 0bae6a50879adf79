/* Grove MPI reduction operators: every predefined operator on every
 * predefined type it applies to, with exact results; the combinations
 * MPI refuses and their messages; MINLOC/MAXLOC ties; integer
 * wrap-around; derived types (in place, packed in chunks); REPLACE and
 * NO_OP; user operators' argument order.  Calls mpi_op_apply/check
 * directly, so no MPI_Init is needed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <complex.h>
#include <limits.h>
#include <wchar.h>

#include <cmocka.h>

#include "mpi/op.h"

static const char *why;

#define OK(call)                                                   \
	do {                                                       \
		why = "";                                          \
		int rc_ = (call);                                  \
		if (rc_ != MPI_SUCCESS)                            \
			fail_msg("%s -> %d: %s", #call, rc_, why); \
	} while (0)

/* ---- one value of any basic kind, in and out of a buffer ----------- */

#define SCALARS_(X)                                                        \
	X(CHAR, char) X(SCHAR, signed char) X(UCHAR, unsigned char)        \
	X(BYTE, unsigned char) X(WCHAR, wchar_t) X(SHORT, short)           \
	X(USHORT, unsigned short) X(INT, int) X(UINT, unsigned) X(LONG, long) \
	X(ULONG, unsigned long) X(LLONG, long long)                        \
	X(ULLONG, unsigned long long) X(FLOAT, float) X(DOUBLE, double)    \
	X(LDOUBLE, long double) X(BOOL, _Bool) X(INT8, int8_t)             \
	X(INT16, int16_t) X(INT32, int32_t) X(INT64, int64_t)              \
	X(UINT8, uint8_t) X(UINT16, uint16_t) X(UINT32, uint32_t)          \
	X(UINT64, uint64_t) X(AINT, MPI_Aint) X(OFFSET, MPI_Offset)        \
	X(COUNT, MPI_Count) X(PACKED, unsigned char)                       \
	X(CFLOAT, float complex) X(CDOUBLE, double complex)                \
	X(CLDOUBLE, long double complex)

static void
put(enum mpi_basic b, void *p, size_t i, long long v)
{
	switch (b) {
#define PUT_(B, T)                            \
	case MPI_B_##B:                       \
		((T *)p)[i] = (T)v;           \
		break;
		SCALARS_(PUT_)
	default:
		fail_msg("put: kind %d", b);
	}
}

static long double
get(enum mpi_basic b, const void *p, size_t i)
{
	switch (b) {
#define GET_(B, T)        \
	case MPI_B_##B:   \
		return (long double)creall((long double complex)((const T *)p)[i]);
		SCALARS_(GET_)
	default:
		fail_msg("get: kind %d", b);
	}
	return 0;
}

/* ---- the matrix ----------------------------------------------------- */

enum cls { C_INT, C_FLOAT, C_COMPLEX, C_BOOL, C_BYTE, C_NONE };

static const struct {
	MPI_Datatype t;
	enum cls cls;
} types[] = {
	{MPI_CHAR, C_INT}, {MPI_SIGNED_CHAR, C_INT}, {MPI_UNSIGNED_CHAR, C_INT},
	{MPI_WCHAR, C_INT}, {MPI_SHORT, C_INT}, {MPI_UNSIGNED_SHORT, C_INT},
	{MPI_INT, C_INT}, {MPI_UNSIGNED, C_INT}, {MPI_LONG, C_INT},
	{MPI_UNSIGNED_LONG, C_INT}, {MPI_LONG_LONG_INT, C_INT},
	{MPI_UNSIGNED_LONG_LONG, C_INT}, {MPI_INT8_T, C_INT},
	{MPI_INT16_T, C_INT}, {MPI_INT32_T, C_INT}, {MPI_INT64_T, C_INT},
	{MPI_UINT8_T, C_INT}, {MPI_UINT16_T, C_INT}, {MPI_UINT32_T, C_INT},
	{MPI_UINT64_T, C_INT}, {MPI_AINT, C_INT}, {MPI_OFFSET, C_INT},
	{MPI_COUNT, C_INT}, {MPI_FLOAT, C_FLOAT}, {MPI_DOUBLE, C_FLOAT},
	{MPI_LONG_DOUBLE, C_FLOAT}, {MPI_C_FLOAT_COMPLEX, C_COMPLEX},
	{MPI_C_DOUBLE_COMPLEX, C_COMPLEX}, {MPI_C_LONG_DOUBLE_COMPLEX, C_COMPLEX},
	{MPI_C_BOOL, C_BOOL}, {MPI_BYTE, C_BYTE}, {MPI_PACKED, C_NONE},
};

static const struct {
	MPI_Op op;
	/* Which classes it applies to. */
	bool on[C_NONE + 1];
	long long want[6];
} ops[] = {
	{MPI_MAX, {1, 1, 0, 0, 0, 0}, {4, 6, 0, 7, 12, 5}},
	{MPI_MIN, {1, 1, 0, 0, 0, 0}, {1, 3, 0, 0, 10, 5}},
	{MPI_SUM, {1, 1, 1, 0, 0, 0}, {5, 9, 0, 7, 22, 10}},
	{MPI_PROD, {1, 1, 1, 0, 0, 0}, {4, 18, 0, 0, 120, 25}},
	{MPI_LAND, {1, 0, 0, 1, 0, 0}, {1, 1, 0, 0, 1, 1}},
	{MPI_LOR, {1, 0, 0, 1, 0, 0}, {1, 1, 0, 1, 1, 1}},
	{MPI_LXOR, {1, 0, 0, 1, 0, 0}, {0, 0, 0, 1, 0, 0}},
	{MPI_BAND, {1, 0, 0, 0, 1, 0}, {0, 2, 0, 0, 8, 5}},
	{MPI_BOR, {1, 0, 0, 0, 1, 0}, {5, 7, 0, 7, 14, 5}},
	{MPI_BXOR, {1, 0, 0, 0, 1, 0}, {5, 5, 0, 7, 6, 0}},
};

static const long long in_v[6] = {1, 6, 0, 0, 12, 5};
static const long long io_v[6] = {4, 3, 0, 7, 10, 5};

static void
test_matrix(void **state)
{
	(void)state;
	for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++) {
		MPI_Datatype t = types[ti].t;
		enum mpi_basic b = t->basic;
		for (size_t oi = 0; oi < sizeof ops / sizeof ops[0]; oi++) {
			MPI_Op op = ops[oi].op;
			bool on = ops[oi].on[types[ti].cls];
			int rc = mpi_op_check(op, t, &why);
			if (!on) {
				if (rc != MPI_ERR_OP)
					fail_msg("%s on %s: accepted", op->name, t->name);
				char want[160];
				snprintf(want, sizeof want, "%s does not apply to %s",
				         op->name, t->name);
				assert_string_equal(why, want);
				char buf[64] = {0};
				assert_int_equal(mpi_op_apply(op, buf, buf + 32, 1, t, &why),
				                 MPI_ERR_OP);
				continue;
			}
			if (rc != MPI_SUCCESS)
				fail_msg("%s on %s: refused: %s", op->name, t->name, why);
			_Alignas(32) unsigned char in[6 * 32], io[6 * 32];
			for (size_t i = 0; i < 6; i++) {
				put(b, in, i, in_v[i]);
				put(b, io, i, io_v[i]);
			}
			OK(mpi_op_apply(op, in, io, 6, t, &why));
			for (size_t i = 0; i < 6; i++) {
				long double got = get(b, io, i);
				if (got != (long double)ops[oi].want[i])
					fail_msg("%s on %s [%zu]: %Lg, want %lld", op->name,
					         t->name, i, got, ops[oi].want[i]);
				/* in is never written. */
				assert_true(get(b, in, i) == (long double)
				            (b == MPI_B_BOOL ? !!in_v[i] : in_v[i]));
			}
		}
		/* Pairs only for MINLOC/MAXLOC. */
		assert_int_equal(mpi_op_check(MPI_MINLOC, t, &why), MPI_ERR_OP);
		assert_non_null(strstr(why, "needs a pair type"));
		/* REPLACE and NO_OP apply to everything. */
		OK(mpi_op_check(MPI_REPLACE, t, &why));
		OK(mpi_op_check(MPI_NO_OP, t, &why));
	}
	assert_int_equal(mpi_op_check(MPI_BAND, MPI_DOUBLE, &why), MPI_ERR_OP);
	assert_string_equal(why, "MPI_BAND does not apply to MPI_DOUBLE");
	assert_int_equal(mpi_op_check(MPI_SUM, MPI_UB, &why), MPI_ERR_OP);
	assert_string_equal(why, "MPI_SUM does not apply to MPI_UB");
	assert_int_equal(mpi_op_check(MPI_SUM, MPI_2INT, &why), MPI_ERR_OP);
	assert_string_equal(why, "MPI_SUM does not apply to MPI_2INT");
}

static void
test_wrap_and_sign(void **state)
{
	(void)state;
	int8_t a8[2] = {100, -3}, b8[2] = {100, 50};
	OK(mpi_op_apply(MPI_SUM, a8, b8, 1, MPI_INT8_T, &why));
	assert_int_equal(b8[0], -56);
	OK(mpi_op_apply(MPI_PROD, a8 + 1, b8 + 1, 1, MPI_INT8_T, &why));
	assert_int_equal(b8[1], 106); /* -150 wraps */
	int ai = INT_MAX, bi = 1;
	OK(mpi_op_apply(MPI_SUM, &ai, &bi, 1, MPI_INT, &why));
	assert_int_equal(bi, INT_MIN);
	uint8_t u1 = 200, u2 = 100;
	OK(mpi_op_apply(MPI_SUM, &u1, &u2, 1, MPI_UINT8_T, &why));
	assert_int_equal(u2, 44);
	int n1[3] = {-5, 7, -1}, n2[3] = {3, -8, -1};
	OK(mpi_op_apply(MPI_MIN, n1, n2, 3, MPI_INT, &why));
	assert_int_equal(n2[0], -5);
	assert_int_equal(n2[1], -8);
	unsigned m1 = 0xffffffffu, m2 = 1;
	OK(mpi_op_apply(MPI_MAX, &m1, &m2, 1, MPI_UNSIGNED, &why));
	assert_int_equal(m2, 0xffffffffu);
	signed char s1 = -2, s2 = 5;
	OK(mpi_op_apply(MPI_MIN, &s1, &s2, 1, MPI_SIGNED_CHAR, &why));
	assert_int_equal(s2, -2);
	double d1 = -0.5, d2 = 0.25;
	OK(mpi_op_apply(MPI_PROD, &d1, &d2, 1, MPI_DOUBLE, &why));
	assert_true(d2 == -0.125);
}

static void
test_complex(void **state)
{
	(void)state;
	double complex a = 1 + 2 * I, b = 3 + 4 * I;
	OK(mpi_op_apply(MPI_PROD, &a, &b, 1, MPI_C_DOUBLE_COMPLEX, &why));
	assert_true(b == -5 + 10 * I);
	float complex fa[2] = {1 + 1 * I, 2}, fb[2] = {-1 + 3 * I, 2 * I};
	OK(mpi_op_apply(MPI_SUM, fa, fb, 2, MPI_C_FLOAT_COMPLEX, &why));
	assert_true(fb[0] == 0 + 4 * I);
	assert_true(fb[1] == 2 + 2 * I);
	assert_int_equal(mpi_op_check(MPI_MAX, MPI_C_FLOAT_COMPLEX, &why), MPI_ERR_OP);
	assert_string_equal(why, "MPI_MAX does not apply to MPI_C_FLOAT_COMPLEX");
}

/* ---- MINLOC / MAXLOC -------------------------------------------------- */

/* For each pair: in, inout, MINLOC result, MAXLOC result (value, index). */
static const int loc[][8] = {
	{1, 5, 2, 0, 1, 5, 2, 0},   /* in smaller */
	{7, 1, 2, 0, 2, 0, 7, 1},   /* in larger */
	{3, 4, 3, 2, 3, 2, 3, 2},   /* tie: smaller index (inout's) */
	{3, 1, 3, 9, 3, 1, 3, 1},   /* tie: smaller index (in's) */
	{-4, 6, -4, 6, -4, 6, -4, 6}, /* equal */
};
#define NLOC (sizeof loc / sizeof loc[0])

#define PAIR_TEST_(S, V, DT)                                                  \
	do {                                                                  \
		struct S { V v; int i; } x[NLOC], y[NLOC], z[NLOC];             \
		memset(x, 0, sizeof x);                                         \
		memset(y, 0, sizeof y);                                         \
		for (size_t k = 0; k < NLOC; k++) {                              \
			x[k].v = (V)loc[k][0];                                   \
			x[k].i = loc[k][1];                                      \
			y[k].v = (V)loc[k][2];                                   \
			y[k].i = loc[k][3];                                      \
		}                                                               \
		memcpy(z, y, sizeof y);                                         \
		OK(mpi_op_apply(MPI_MINLOC, x, y, NLOC, DT, &why));             \
		OK(mpi_op_apply(MPI_MAXLOC, x, z, NLOC, DT, &why));             \
		for (size_t k = 0; k < NLOC; k++) {                              \
			assert_true(y[k].v == (V)loc[k][4]);                     \
			assert_int_equal(y[k].i, loc[k][5]);                     \
			assert_true(z[k].v == (V)loc[k][6]);                     \
			assert_int_equal(z[k].i, loc[k][7]);                     \
		}                                                               \
		assert_int_equal(mpi_op_check(MPI_SUM, DT, &why), MPI_ERR_OP);  \
	} while (0)

static void
test_loc(void **state)
{
	(void)state;
	PAIR_TEST_(fi, float, MPI_FLOAT_INT);
	PAIR_TEST_(di, double, MPI_DOUBLE_INT);
	PAIR_TEST_(li, long, MPI_LONG_INT);
	PAIR_TEST_(ii, int, MPI_2INT);
	PAIR_TEST_(si, short, MPI_SHORT_INT);
	PAIR_TEST_(ldi, long double, MPI_LONG_DOUBLE_INT);
}

static void
test_loc_derived(void **state)
{
	(void)state;
	/* Every other DOUBLE_INT: not contiguous, so packed, reduced in the
	 * packed form (no padding) and unpacked. */
	struct di { double v; int i; } x[2 * NLOC], y[2 * NLOC];
	memset(x, 0, sizeof x);
	memset(y, 0, sizeof y);
	for (size_t k = 0; k < NLOC; k++) {
		x[2 * k] = (struct di){loc[k][0], loc[k][1]};
		y[2 * k] = (struct di){loc[k][2], loc[k][3]};
		y[2 * k + 1] = (struct di){99, 99};
	}
	MPI_Datatype v;
	OK(mpi_dt_vector((int)NLOC, 1, 2, MPI_DOUBLE_INT, &v, &why));
	OK(mpi_dt_commit(v, &why));
	OK(mpi_op_apply(MPI_MINLOC, x, y, 1, v, &why));
	for (size_t k = 0; k < NLOC; k++) {
		assert_true(y[2 * k].v == loc[k][4]);
		assert_int_equal(y[2 * k].i, loc[k][5]);
		assert_true(y[2 * k + 1].v == 99);
	}
	OK(mpi_dt_free(&v, &why));

	/* A contiguous of 2INT is one run: reduced in place. */
	int a[6] = {5, 0, 1, 1, 9, 2}, b[6] = {5, 3, 2, 0, 1, 7};
	OK(mpi_dt_contiguous(3, MPI_2INT, &v, &why));
	OK(mpi_dt_commit(v, &why));
	OK(mpi_op_apply(MPI_MAXLOC, a, b, 1, v, &why));
	const int want[6] = {5, 0, 2, 0, 9, 2};
	assert_memory_equal(b, want, sizeof want);
	OK(mpi_dt_free(&v, &why));
}

/* ---- derived types, REPLACE, NO_OP ------------------------------------ */

static void
test_derived(void **state)
{
	(void)state;
	MPI_Datatype c, v, s;
	int a[12], b[12];
	for (int i = 0; i < 12; i++) {
		a[i] = i;
		b[i] = 100 * i;
	}
	OK(mpi_dt_contiguous(3, MPI_INT, &c, &why));
	OK(mpi_dt_commit(c, &why));
	OK(mpi_op_apply(MPI_SUM, a, b, 2, c, &why));
	for (int i = 0; i < 6; i++)
		assert_int_equal(b[i], 101 * i);
	assert_int_equal(b[6], 600);

	/* Every other int: the gaps stay as they were. */
	for (int i = 0; i < 12; i++)
		b[i] = 100 * i;
	OK(mpi_dt_vector(3, 1, 2, MPI_INT, &v, &why));
	OK(mpi_dt_commit(v, &why));
	OK(mpi_op_apply(MPI_MAX, a, b, 1, v, &why));
	for (int i = 0; i < 12; i++)
		assert_int_equal(b[i], 100 * i);
	for (int i = 0; i < 12; i++)
		b[i] = -i;
	OK(mpi_op_apply(MPI_MAX, a, b, 2, v, &why)); /* extent 5 ints */
	const int want[12] = {0, -1, 2, -3, 4, 5, -6, 7, -8, 9, -10, -11};
	assert_memory_equal(b, want, sizeof want);

	/* REPLACE writes only the type's data; NO_OP nothing. */
	for (int i = 0; i < 12; i++)
		b[i] = -1;
	OK(mpi_op_apply(MPI_REPLACE, a, b, 1, v, &why));
	const int want2[12] = {0, -1, 2, -1, 4, -1, -1, -1, -1, -1, -1, -1};
	assert_memory_equal(b, want2, sizeof want2);
	OK(mpi_op_apply(MPI_NO_OP, a, b, 2, v, &why));
	assert_memory_equal(b, want2, sizeof want2);
	OK(mpi_op_apply(MPI_REPLACE, a, b, 12, MPI_INT, &why));
	assert_memory_equal(b, a, sizeof a);

	/* A struct of mixed types is refused by arithmetic, allowed by
	 * REPLACE. */
	const int bl[] = {1, 1};
	const MPI_Aint di[] = {0, 8};
	const MPI_Datatype ty[] = {MPI_INT, MPI_DOUBLE};
	OK(mpi_dt_struct(2, bl, di, ty, &s, &why));
	OK(mpi_dt_commit(s, &why));
	assert_int_equal(mpi_op_check(MPI_SUM, s, &why), MPI_ERR_OP);
	assert_string_equal(why, "MPI_SUM does not apply to a datatype that "
	                         "mixes basic types");
	OK(mpi_op_check(MPI_REPLACE, s, &why));
	OK(mpi_dt_set_name(v, "strided", &why));
	assert_int_equal(mpi_op_check(MPI_BXOR, MPI_FLOAT, &why), MPI_ERR_OP);
	MPI_Datatype fv;
	OK(mpi_dt_vector(2, 1, 2, MPI_FLOAT, &fv, &why));
	OK(mpi_dt_commit(fv, &why));
	OK(mpi_dt_set_name(fv, "fv", &why));
	assert_int_equal(mpi_op_check(MPI_BXOR, fv, &why), MPI_ERR_OP);
	assert_string_equal(why, "MPI_BXOR does not apply to MPI_FLOAT (the "
	                         "elements of derived datatype fv)");

	/* Uncommitted and null types, null and freed ops. */
	MPI_Datatype u;
	OK(mpi_dt_contiguous(2, MPI_INT, &u, &why));
	assert_int_equal(mpi_op_apply(MPI_SUM, a, b, 1, u, &why), MPI_ERR_TYPE);
	assert_int_equal(mpi_op_check(MPI_SUM, MPI_DATATYPE_NULL, &why),
	                 MPI_ERR_TYPE);
	assert_int_equal(mpi_op_check(MPI_OP_NULL, MPI_INT, &why), MPI_ERR_OP);
	assert_string_equal(why, "op is MPI_OP_NULL");

	OK(mpi_dt_free(&u, &why));
	OK(mpi_dt_free(&fv, &why));
	OK(mpi_dt_free(&s, &why));
	OK(mpi_dt_free(&v, &why));
	OK(mpi_dt_free(&c, &why));
}

static void
test_chunked(void **state)
{
	(void)state;
	/* 40000 strided doubles: 320 KB packed, several scratch chunks. */
	enum { N = 40000 };
	double *a = malloc(2 * N * sizeof *a), *b = malloc(2 * N * sizeof *b);
	for (int i = 0; i < 2 * N; i++) {
		a[i] = i;
		b[i] = 0.5;
	}
	MPI_Datatype v;
	OK(mpi_dt_vector(N, 1, 2, MPI_DOUBLE, &v, &why));
	OK(mpi_dt_commit(v, &why));
	OK(mpi_op_apply(MPI_SUM, a, b, 1, v, &why));
	for (int i = 0; i < 2 * N; i++)
		assert_true(b[i] == (i % 2 ? 0.5 : i + 0.5));
	OK(mpi_dt_free(&v, &why));
	free(a);
	free(b);
}

/* ---- user operators --------------------------------------------------- */

static int seen_len;
static MPI_Datatype seen_dt;

/* Not commutative: inout = 10 * in + inout shows which is which.  Items
 * are MPI_INT, or (any other type) the resized vector of test_user: ints
 * 0 and 2 of every 3. */
static void
shift_add(void *in, void *inout, int *len, MPI_Datatype *dt)
{
	seen_len = *len;
	seen_dt = *dt;
	const int *x = in;
	int *y = inout;
	bool plain = *dt == MPI_INT;
	for (int k = 0; k < *len; k++) {
		if (plain) {
			y[k] = 10 * x[k] + y[k];
			continue;
		}
		y[3 * k] = 10 * x[3 * k] + y[3 * k];
		y[3 * k + 2] = 10 * x[3 * k + 2] + y[3 * k + 2];
	}
}

static void
test_user(void **state)
{
	(void)state;
	struct grove_mpi_op_s user = {
		.predefined = false, .commute = false, .refs = 1, .which = -1,
		.user = shift_add, .name = "user operator",
	};
	int a[3] = {1, 2, 3}, b[3] = {4, 5, 6};
	OK(mpi_op_apply(&user, a, b, 3, MPI_INT, &why));
	assert_int_equal(b[0], 14);
	assert_int_equal(b[1], 25);
	assert_int_equal(b[2], 36);
	assert_int_equal(seen_len, 3);
	assert_ptr_equal(seen_dt, MPI_INT);

	/* The user op sees the caller's layout, not a packed copy, and the
	 * item count, not the element count; any type goes. */
	MPI_Datatype v;
	OK(mpi_dt_vector(2, 1, 2, MPI_INT, &v, &why));
	MPI_Datatype r;
	OK(mpi_dt_resized(v, 0, 3 * sizeof(int), &r, &why));
	OK(mpi_dt_commit(r, &why));
	int x[6] = {1, 2, 3, 4, 5, 6}, y[6] = {0, 0, 0, 0, 0, 0};
	OK(mpi_op_apply(&user, x, y, 2, r, &why));
	assert_int_equal(seen_len, 2);
	assert_ptr_equal(seen_dt, r);
	const int want[6] = {10, 0, 30, 40, 0, 60};
	assert_memory_equal(y, want, sizeof want);
	OK(mpi_dt_free(&r, &why));
	OK(mpi_dt_free(&v, &why));

	/* Zero items: not called. */
	seen_len = -1;
	OK(mpi_op_apply(&user, a, b, 0, MPI_INT, &why));
	assert_int_equal(seen_len, -1);

	/* References: a retained op survives one release. */
	struct grove_mpi_op_s *h = calloc(1, sizeof *h);
	h->refs = 1;
	h->user = shift_add;
	mpi_op_retain(h);
	mpi_op_release(h);
	assert_int_equal(h->refs, 1);
	mpi_op_release(h); /* freed (ASan checks) */
	h = NULL;
	user.refs = 0;
	assert_int_equal(mpi_op_check(&user, MPI_INT, &why), MPI_ERR_OP);
	assert_string_equal(why, "op was freed");
}

static void
test_predefined_ops(void **state)
{
	(void)state;
#define CHECK_OP_(n)                                                   \
	assert_true(GROVE_MPI_OP_(n)->predefined);                      \
	assert_string_equal(GROVE_MPI_OP_(n)->name, "MPI_" #n);         \
	assert_int_equal(GROVE_MPI_OP_(n)->which, MPI_OPI_##n);
	GROVE_MPI_OPS_(CHECK_OP_)
	assert_true(MPI_SUM->commute);
	assert_true(MPI_MAXLOC->commute);
	assert_false(MPI_REPLACE->commute);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_matrix),
		cmocka_unit_test(test_wrap_and_sign),
		cmocka_unit_test(test_complex),
		cmocka_unit_test(test_loc),
		cmocka_unit_test(test_loc_derived),
		cmocka_unit_test(test_derived),
		cmocka_unit_test(test_chunked),
		cmocka_unit_test(test_user),
		cmocka_unit_test(test_predefined_ops),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

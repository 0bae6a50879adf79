/* Grove MPI: the predefined reduction operators and applying an operator
 * to buffers of a datatype.
 *
 * Each (operator, basic kind) pair that MPI allows has a kernel over an
 * array of that C type; the table of kernels is also the table of what
 * is allowed, so mpi_op_check and mpi_op_apply cannot disagree.  A
 * derived type made of one basic kind is reduced as basic_count * count
 * elements: in place when its elements are one run, else packed a chunk
 * at a time into scratch buffers, reduced there and unpacked.
 */
#include "mpi/op.h"

#include <complex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

/* ---- the predefined objects ----------------------------------------- */

/* REPLACE and NO_OP are only meaningful in accumulate-style updates,
 * where their result depends on the order; the others commute. */
#define MPI_OP_DEF_(n)                                                     \
	struct grove_mpi_op_s grove_mpi_op_##n##_ = {                      \
		.predefined = true,                                        \
		.commute = MPI_OPI_##n != MPI_OPI_REPLACE &&               \
		           MPI_OPI_##n != MPI_OPI_NO_OP,                   \
		.refs = 1, .which = MPI_OPI_##n, .user = NULL,             \
		.name = "MPI_" #n,                                         \
	};
GROVE_MPI_OPS_(MPI_OP_DEF_)
#undef MPI_OP_DEF_

MPI_Op
mpi_op_of_index(int which)
{
	static struct grove_mpi_op_s *const table[] = {
#define MPI_OP_REF_(n) &grove_mpi_op_##n##_,
		GROVE_MPI_OPS_(MPI_OP_REF_)
#undef MPI_OP_REF_
	};
	if (which < 0 || which >= (int)(sizeof(table) / sizeof(table[0])))
		return NULL;
	return table[which];
}

/* ---- kernels: inout[i] = in[i] op inout[i] -------------------------- */

typedef void mpi_kern(const void *in, void *inout, size_t n);

#define LOOP_(T, expr)                                         \
	const T *x = in;                                       \
	T *y = inout;                                          \
	for (size_t i = 0; i < n; i++)                         \
		y[i] = (expr)

/* Integer arithmetic goes through unsigned long long so that overflow
 * wraps (as every MPI does) instead of being undefined for signed types. */
#define ULL_(v) ((unsigned long long)(v))
#define K_INT_(B, T)                                                           \
	static void k_max_##B(const void *in, void *inout, size_t n)           \
	{ LOOP_(T, x[i] > y[i] ? x[i] : y[i]); }                               \
	static void k_min_##B(const void *in, void *inout, size_t n)           \
	{ LOOP_(T, x[i] < y[i] ? x[i] : y[i]); }                               \
	static void k_sum_##B(const void *in, void *inout, size_t n)           \
	{ LOOP_(T, (T)(ULL_(x[i]) + ULL_(y[i]))); }                            \
	static void k_prod_##B(const void *in, void *inout, size_t n)          \
	{ LOOP_(T, (T)(ULL_(x[i]) * ULL_(y[i]))); }                            \
	static void k_land_##B(const void *in, void *inout, size_t n)          \
	{ LOOP_(T, (T)(x[i] && y[i])); }                                       \
	static void k_lor_##B(const void *in, void *inout, size_t n)           \
	{ LOOP_(T, (T)(x[i] || y[i])); }                                       \
	static void k_lxor_##B(const void *in, void *inout, size_t n)          \
	{ LOOP_(T, (T)(!x[i] != !y[i])); }                                     \
	static void k_band_##B(const void *in, void *inout, size_t n)          \
	{ LOOP_(T, (T)(x[i] & y[i])); }                                        \
	static void k_bor_##B(const void *in, void *inout, size_t n)           \
	{ LOOP_(T, (T)(x[i] | y[i])); }                                        \
	static void k_bxor_##B(const void *in, void *inout, size_t n)          \
	{ LOOP_(T, (T)(x[i] ^ y[i])); }
#define K_FLOAT_(B, T)                                                         \
	static void k_max_##B(const void *in, void *inout, size_t n)           \
	{ LOOP_(T, x[i] > y[i] ? x[i] : y[i]); }                               \
	static void k_min_##B(const void *in, void *inout, size_t n)           \
	{ LOOP_(T, x[i] < y[i] ? x[i] : y[i]); }                               \
	static void k_sum_##B(const void *in, void *inout, size_t n)           \
	{ LOOP_(T, x[i] + y[i]); }                                             \
	static void k_prod_##B(const void *in, void *inout, size_t n)          \
	{ LOOP_(T, x[i] * y[i]); }
#define K_COMPLEX_(B, T)                                                       \
	static void k_sum_##B(const void *in, void *inout, size_t n)           \
	{ LOOP_(T, x[i] + y[i]); }                                             \
	static void k_prod_##B(const void *in, void *inout, size_t n)          \
	{ LOOP_(T, x[i] * y[i]); }
#define K_LOGICAL_(B, T)                                                       \
	static void k_land_##B(const void *in, void *inout, size_t n)          \
	{ LOOP_(T, x[i] && y[i]); }                                            \
	static void k_lor_##B(const void *in, void *inout, size_t n)           \
	{ LOOP_(T, x[i] || y[i]); }                                            \
	static void k_lxor_##B(const void *in, void *inout, size_t n)          \
	{ LOOP_(T, !x[i] != !y[i]); }
#define K_BITS_(B, T)                                                          \
	static void k_band_##B(const void *in, void *inout, size_t n)          \
	{ LOOP_(T, (T)(x[i] & y[i])); }                                        \
	static void k_bor_##B(const void *in, void *inout, size_t n)           \
	{ LOOP_(T, (T)(x[i] | y[i])); }                                        \
	static void k_bxor_##B(const void *in, void *inout, size_t n)          \
	{ LOOP_(T, (T)(x[i] ^ y[i])); }

/* MPI's C integer types, plus MPI_CHAR and MPI_WCHAR which Open MPI and
 * MPICH also reduce. */
#define INT_TYPES_(X)                                                     \
	X(CHAR, char) X(SCHAR, signed char) X(UCHAR, unsigned char)       \
	X(WCHAR, wchar_t) X(SHORT, short) X(USHORT, unsigned short)       \
	X(INT, int) X(UINT, unsigned) X(LONG, long) X(ULONG, unsigned long) \
	X(LLONG, long long) X(ULLONG, unsigned long long) X(INT8, int8_t) \
	X(INT16, int16_t) X(INT32, int32_t) X(INT64, int64_t)             \
	X(UINT8, uint8_t) X(UINT16, uint16_t) X(UINT32, uint32_t)         \
	X(UINT64, uint64_t) X(AINT, MPI_Aint) X(OFFSET, MPI_Offset)       \
	X(COUNT, MPI_Count)
#define FLOAT_TYPES_(X) X(FLOAT, float) X(DOUBLE, double) X(LDOUBLE, long double)
#define COMPLEX_TYPES_(X)                                                  \
	X(CFLOAT, float complex) X(CDOUBLE, double complex)                \
	X(CLDOUBLE, long double complex)

INT_TYPES_(K_INT_)
FLOAT_TYPES_(K_FLOAT_)
COMPLEX_TYPES_(K_COMPLEX_)
K_LOGICAL_(BOOL, _Bool)
K_BITS_(BYTE, unsigned char)

#define E_INT_(B, T)                                                       \
	[MPI_OPI_MAX][MPI_B_##B] = k_max_##B, [MPI_OPI_MIN][MPI_B_##B] = k_min_##B, \
	[MPI_OPI_SUM][MPI_B_##B] = k_sum_##B, [MPI_OPI_PROD][MPI_B_##B] = k_prod_##B, \
	[MPI_OPI_LAND][MPI_B_##B] = k_land_##B, [MPI_OPI_LOR][MPI_B_##B] = k_lor_##B, \
	[MPI_OPI_LXOR][MPI_B_##B] = k_lxor_##B, [MPI_OPI_BAND][MPI_B_##B] = k_band_##B, \
	[MPI_OPI_BOR][MPI_B_##B] = k_bor_##B, [MPI_OPI_BXOR][MPI_B_##B] = k_bxor_##B,
#define E_FLOAT_(B, T)                                                     \
	[MPI_OPI_MAX][MPI_B_##B] = k_max_##B, [MPI_OPI_MIN][MPI_B_##B] = k_min_##B, \
	[MPI_OPI_SUM][MPI_B_##B] = k_sum_##B, [MPI_OPI_PROD][MPI_B_##B] = k_prod_##B,
#define E_COMPLEX_(B, T)                                                   \
	[MPI_OPI_SUM][MPI_B_##B] = k_sum_##B, [MPI_OPI_PROD][MPI_B_##B] = k_prod_##B,

static mpi_kern *const kernels[MPI_OPI_COUNT_][MPI_B_COUNT_] = {
	INT_TYPES_(E_INT_)
	FLOAT_TYPES_(E_FLOAT_)
	COMPLEX_TYPES_(E_COMPLEX_)
	[MPI_OPI_LAND][MPI_B_BOOL] = k_land_BOOL,
	[MPI_OPI_LOR][MPI_B_BOOL] = k_lor_BOOL,
	[MPI_OPI_LXOR][MPI_B_BOOL] = k_lxor_BOOL,
	[MPI_OPI_BAND][MPI_B_BYTE] = k_band_BYTE,
	[MPI_OPI_BOR][MPI_B_BYTE] = k_bor_BYTE,
	[MPI_OPI_BXOR][MPI_B_BYTE] = k_bxor_BYTE,
};

/* MINLOC/MAXLOC over pairs {V v; int i;}: `stride` bytes apart, the
 * index `ioff` bytes into each (the packed form has no padding, so the
 * members are read with memcpy).  Ties keep the smaller index, as MPI
 * defines. */
typedef void mpi_pair_kern(const char *in, char *inout, size_t n,
                           size_t stride, size_t ioff, bool max);
#define K_PAIR_(B, V)                                                          \
	static void p_##B(const char *in, char *inout, size_t n, size_t stride, \
	                  size_t ioff, bool max)                                \
	{                                                                      \
		for (size_t k = 0; k < n; k++, in += stride, inout += stride) { \
			V a, b;                                                \
			int ai, bi;                                            \
			memcpy(&a, in, sizeof a);                              \
			memcpy(&b, inout, sizeof b);                           \
			memcpy(&ai, in + ioff, sizeof ai);                     \
			memcpy(&bi, inout + ioff, sizeof bi);                  \
			if (max ? a > b : a < b) {                             \
				memcpy(inout, &a, sizeof a);                   \
				memcpy(inout + ioff, &ai, sizeof ai);          \
			} else if (a == b && ai < bi) {                        \
				memcpy(inout + ioff, &ai, sizeof ai);          \
			}                                                      \
		}                                                              \
	}
#define PAIR_TYPES_(X)                                                   \
	X(FLOAT_INT, float) X(DOUBLE_INT, double) X(LONG_INT, long)      \
	X(2INT, int) X(SHORT_INT, short) X(LDOUBLE_INT, long double)
PAIR_TYPES_(K_PAIR_)
#define E_PAIR_(B, V) [MPI_B_##B] = p_##B,
static mpi_pair_kern *const pair_kernels[MPI_B_COUNT_] = {PAIR_TYPES_(E_PAIR_)};

/* ---- checking --------------------------------------------------------- */

static char why_buf[200];

static int
fail(const char **why, int errclass, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int
fail(const char **why, int errclass, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why_buf, sizeof why_buf, fmt, ap);
	va_end(ap);
	if (why)
		*why = why_buf;
	return errclass;
}

static bool
is_loc(int which)
{
	return which == MPI_OPI_MINLOC || which == MPI_OPI_MAXLOC;
}

int
mpi_op_check(MPI_Op op, MPI_Datatype dt, const char **why)
{
	if (!op)
		return fail(why, MPI_ERR_OP, "op is MPI_OP_NULL");
	if (op->refs <= 0)
		return fail(why, MPI_ERR_OP, "op was freed");
	int rc = mpi_dt_check(dt, why);
	if (rc)
		return rc;
	if (op->user || op->which == MPI_OPI_REPLACE || op->which == MPI_OPI_NO_OP)
		return MPI_SUCCESS;
	if ((unsigned)op->which >= MPI_OPI_COUNT_)
		return fail(why, MPI_ERR_OP, "op is not a valid operator");
	enum mpi_basic b = dt->basic;
	if (b == MPI_B_NONE)
		return fail(why, MPI_ERR_OP,
		            "%s does not apply to %s%s", op->name,
		            dt->predefined ? dt->name : "a datatype that mixes",
		            dt->predefined ? "" : " basic types");
	bool ok = is_loc(op->which) ? pair_kernels[b] != NULL
	                            : kernels[op->which][b] != NULL;
	if (ok)
		return MPI_SUCCESS;
	MPI_Datatype bt = mpi_dt_of_basic(b);
	const char *hint = is_loc(op->which)
		? " (it needs a pair type such as MPI_2INT or MPI_DOUBLE_INT)" : "";
	if (dt->predefined)
		return fail(why, MPI_ERR_OP, "%s does not apply to %s%s", op->name,
		            bt->name, hint);
	return fail(why, MPI_ERR_OP, "%s does not apply to %s (the elements of "
	            "derived datatype%s%s)%s", op->name, bt->name,
	            dt->name[0] ? " " : "", dt->name, hint);
}

/* ---- applying --------------------------------------------------------- */

/* Scratch per chunk of the packed route: large enough to amortize the
 * calls, small enough to stay in cache. */
#define MPI_OP_CHUNK 65536

/* n basic elements at in/inout.  packed: the elements lie `size` bytes
 * apart with no padding; otherwise a pair type's own layout (its extent
 * and member offsets). */
static void
reduce(int which, enum mpi_basic b, const char *in, char *inout, size_t n,
       bool packed)
{
	if (is_loc(which)) {
		MPI_Datatype pt = mpi_dt_of_basic(b);
		size_t first = mpi_dt_pair_first(b);
		size_t stride = packed ? pt->size : (size_t)pt->extent;
		size_t ioff = packed || pt->nblocks == 1 ? first
		                                         : (size_t)pt->blocks[1].disp;
		pair_kernels[b](in, inout, n, stride, ioff, which == MPI_OPI_MAXLOC);
		return;
	}
	kernels[which][b](in, inout, n);
}

static int
user_apply(MPI_Op op, const void *in, void *inout, size_t count,
           MPI_Datatype dt)
{
	/* The callback's count is an int: larger reductions go in pieces. */
	const size_t max = 1u << 30;
	while (count) {
		size_t c = count < max ? count : max;
		int len = (int)c;
		MPI_Datatype d = dt;
		op->user((void *)in, inout, &len, &d);
		in = (const char *)in + (MPI_Aint)c * dt->extent;
		inout = (char *)inout + (MPI_Aint)c * dt->extent;
		count -= c;
	}
	return MPI_SUCCESS;
}

int
mpi_op_apply(MPI_Op op, const void *in, void *inout, size_t count,
             MPI_Datatype dt, const char **why)
{
	int rc = mpi_op_check(op, dt, why);
	if (rc)
		return rc;
	if (!count || !dt->size)
		return MPI_SUCCESS;
	if (op->user)
		return user_apply(op, in, inout, count, dt);
	int which = op->which;
	if (which == MPI_OPI_NO_OP)
		return MPI_SUCCESS;
	size_t bytes = count * dt->size;
	if (mpi_dt_is_contig(dt, count)) {
		/* One run: reduce in place where the data lies. */
		const char *x = (const char *)in + dt->blocks[0].disp;
		char *y = (char *)inout + dt->blocks[0].disp;
		if (which == MPI_OPI_REPLACE)
			memmove(y, x, bytes);
		else
			reduce(which, dt->basic, x, y, count * dt->basic_count, true);
		return MPI_SUCCESS;
	}
	if (dt->predefined && which != MPI_OPI_REPLACE) {
		/* A pair type with padding: reduced in its own layout. */
		reduce(which, dt->basic, in, inout, count, false);
		return MPI_SUCCESS;
	}
	/* The packed route: chunks of whole basic elements. */
	size_t esize = which == MPI_OPI_REPLACE
		? 1 : mpi_dt_of_basic(dt->basic)->size;
	size_t chunk = MPI_OP_CHUNK / esize * esize;
	if (!chunk)
		chunk = esize;
	char *a = malloc(chunk), *c = malloc(chunk);
	if (!a || !c) {
		free(a);
		free(c);
		return fail(why, MPI_ERR_NO_MEM, "out of memory for a reduction's "
		            "scratch buffer (%zu bytes)", 2 * chunk);
	}
	for (size_t off = 0; off < bytes; off += chunk) {
		size_t len = mpi_dt_pack(dt, in, count, a, off, chunk);
		if (which != MPI_OPI_REPLACE) {
			mpi_dt_pack(dt, inout, count, c, off, len);
			reduce(which, dt->basic, a, c, len / esize, true);
		}
		mpi_dt_unpack(dt, inout, count, which == MPI_OPI_REPLACE ? a : c,
		              off, len);
	}
	free(a);
	free(c);
	return MPI_SUCCESS;
}

/* ---- references ------------------------------------------------------- */

void
mpi_op_retain(MPI_Op op)
{
	if (op && !op->predefined)
		op->refs++;
}

void
mpi_op_release(MPI_Op op)
{
	if (op && !op->predefined && --op->refs <= 0)
		free(op);
}

/* Grove MPI: the predefined datatype objects behind MPI_INT and friends,
 * and the facts about them the rest of the datatype code asks for.
 *
 * Every predefined type carries its block list (one block, or two for
 * MPI_SHORT_INT whose int is not next to its short), so code that walks
 * blocks needs no special case for them.
 */
#include "mpi/datatype.h"

#include <complex.h>
#include <stdalign.h>
#include <stdarg.h>
#include <stdio.h>
#include <wchar.h>

/* The pair types of MINLOC/MAXLOC, laid out as C lays out the struct. */
struct mpi_pair_float_int { float v; int i; };
struct mpi_pair_double_int { double v; int i; };
struct mpi_pair_long_int { long v; int i; };
struct mpi_pair_2int { int v; int i; };
struct mpi_pair_short_int { short v; int i; };
struct mpi_pair_long_double_int { long double v; int i; };

/* One basic type: one block of sizeof(T) bytes. */
#define MPI_DT_BASIC_(NAME, T, B)                                          \
	static struct mpi_dt_block mpi_dt_blk_##NAME##_[1] = {{0, sizeof(T)}}; \
	struct grove_mpi_datatype_s grove_mpi_dt_##NAME##_ = {                 \
		.refs = 1, .predefined = true, .committed = true,              \
		.contig = true, .basic = B, .basic_count = 1,                  \
		.size = sizeof(T), .lb = 0, .extent = sizeof(T),               \
		.true_lb = 0, .true_extent = sizeof(T), .nblocks = 1,          \
		.blocks = mpi_dt_blk_##NAME##_,                                \
		.combiner = MPI_COMBINER_NAMED, .name = "MPI_" #NAME,          \
	};

/* A pair {V v; int i;}: the data is sizeof(V) + sizeof(int) bytes; the
 * extent is the struct's (padding included); two blocks when padding
 * separates the members (short, int). */
#define MPI_DT_PAIR_GAP_(S) (offsetof(struct S, i) != sizeof(((struct S *)0)->v))
#define MPI_DT_PAIR_(NAME, S, B)                                           \
	static struct mpi_dt_block mpi_dt_blk_##NAME##_[2] = {                 \
		{0, MPI_DT_PAIR_GAP_(S) ? sizeof(((struct S *)0)->v)           \
		                        : sizeof(((struct S *)0)->v) + sizeof(int)}, \
		{offsetof(struct S, i), sizeof(int)},                           \
	};                                                                     \
	struct grove_mpi_datatype_s grove_mpi_dt_##NAME##_ = {                 \
		.refs = 1, .predefined = true, .committed = true,              \
		.contig = !MPI_DT_PAIR_GAP_(S) &&                              \
		          sizeof(struct S) == sizeof(((struct S *)0)->v) + sizeof(int), \
		.basic = B, .basic_count = 1,                                  \
		.size = sizeof(((struct S *)0)->v) + sizeof(int),              \
		.lb = 0, .extent = sizeof(struct S), .true_lb = 0,            \
		.true_extent = offsetof(struct S, i) + sizeof(int),            \
		.nblocks = MPI_DT_PAIR_GAP_(S) ? 2 : 1,                        \
		.blocks = mpi_dt_blk_##NAME##_,                                \
		.combiner = MPI_COMBINER_NAMED, .name = "MPI_" #NAME,          \
	};

/* MPI_LB / MPI_UB: bound markers with no data. */
#define MPI_DT_MARKER_(NAME)                                               \
	struct grove_mpi_datatype_s grove_mpi_dt_##NAME##_ = {                 \
		.refs = 1, .predefined = true, .committed = true,              \
		.contig = true, .basic = MPI_B_NONE, .basic_count = 0,         \
		.size = 0, .lb = 0, .extent = 0, .true_lb = 0,                 \
		.true_extent = 0, .nblocks = 0, .blocks = NULL,                \
		.combiner = MPI_COMBINER_NAMED, .name = "MPI_" #NAME,          \
	};

MPI_DT_BASIC_(CHAR, char, MPI_B_CHAR)
MPI_DT_BASIC_(SIGNED_CHAR, signed char, MPI_B_SCHAR)
MPI_DT_BASIC_(UNSIGNED_CHAR, unsigned char, MPI_B_UCHAR)
MPI_DT_BASIC_(BYTE, unsigned char, MPI_B_BYTE)
MPI_DT_BASIC_(WCHAR, wchar_t, MPI_B_WCHAR)
MPI_DT_BASIC_(SHORT, short, MPI_B_SHORT)
MPI_DT_BASIC_(UNSIGNED_SHORT, unsigned short, MPI_B_USHORT)
MPI_DT_BASIC_(INT, int, MPI_B_INT)
MPI_DT_BASIC_(UNSIGNED, unsigned, MPI_B_UINT)
MPI_DT_BASIC_(LONG, long, MPI_B_LONG)
MPI_DT_BASIC_(UNSIGNED_LONG, unsigned long, MPI_B_ULONG)
MPI_DT_BASIC_(LONG_LONG_INT, long long, MPI_B_LLONG)
MPI_DT_BASIC_(UNSIGNED_LONG_LONG, unsigned long long, MPI_B_ULLONG)
MPI_DT_BASIC_(FLOAT, float, MPI_B_FLOAT)
MPI_DT_BASIC_(DOUBLE, double, MPI_B_DOUBLE)
MPI_DT_BASIC_(LONG_DOUBLE, long double, MPI_B_LDOUBLE)
MPI_DT_BASIC_(C_BOOL, _Bool, MPI_B_BOOL)
MPI_DT_BASIC_(INT8_T, int8_t, MPI_B_INT8)
MPI_DT_BASIC_(INT16_T, int16_t, MPI_B_INT16)
MPI_DT_BASIC_(INT32_T, int32_t, MPI_B_INT32)
MPI_DT_BASIC_(INT64_T, int64_t, MPI_B_INT64)
MPI_DT_BASIC_(UINT8_T, uint8_t, MPI_B_UINT8)
MPI_DT_BASIC_(UINT16_T, uint16_t, MPI_B_UINT16)
MPI_DT_BASIC_(UINT32_T, uint32_t, MPI_B_UINT32)
MPI_DT_BASIC_(UINT64_T, uint64_t, MPI_B_UINT64)
MPI_DT_BASIC_(AINT, MPI_Aint, MPI_B_AINT)
MPI_DT_BASIC_(OFFSET, MPI_Offset, MPI_B_OFFSET)
MPI_DT_BASIC_(COUNT, MPI_Count, MPI_B_COUNT)
MPI_DT_BASIC_(PACKED, unsigned char, MPI_B_PACKED)
MPI_DT_BASIC_(C_FLOAT_COMPLEX, float complex, MPI_B_CFLOAT)
MPI_DT_BASIC_(C_DOUBLE_COMPLEX, double complex, MPI_B_CDOUBLE)
MPI_DT_BASIC_(C_LONG_DOUBLE_COMPLEX, long double complex, MPI_B_CLDOUBLE)
MPI_DT_PAIR_(FLOAT_INT, mpi_pair_float_int, MPI_B_FLOAT_INT)
MPI_DT_PAIR_(DOUBLE_INT, mpi_pair_double_int, MPI_B_DOUBLE_INT)
MPI_DT_PAIR_(LONG_INT, mpi_pair_long_int, MPI_B_LONG_INT)
MPI_DT_PAIR_(2INT, mpi_pair_2int, MPI_B_2INT)
MPI_DT_PAIR_(SHORT_INT, mpi_pair_short_int, MPI_B_SHORT_INT)
MPI_DT_PAIR_(LONG_DOUBLE_INT, mpi_pair_long_double_int, MPI_B_LDOUBLE_INT)
MPI_DT_MARKER_(UB)
MPI_DT_MARKER_(LB)

/* mpi.h's list and the definitions above must agree: a type declared
 * there but not defined here would only fail when a program links. */
#define MPI_DT_ONE_(n) +1
_Static_assert(0 GROVE_MPI_DATATYPES_(MPI_DT_ONE_) == 40,
               "define every type of GROVE_MPI_DATATYPES_ in datatype.c");

static MPI_Datatype const mpi_dt_basic_table[MPI_B_COUNT_] = {
	[MPI_B_CHAR] = MPI_CHAR, [MPI_B_SCHAR] = MPI_SIGNED_CHAR,
	[MPI_B_UCHAR] = MPI_UNSIGNED_CHAR, [MPI_B_BYTE] = MPI_BYTE,
	[MPI_B_WCHAR] = MPI_WCHAR, [MPI_B_SHORT] = MPI_SHORT,
	[MPI_B_USHORT] = MPI_UNSIGNED_SHORT, [MPI_B_INT] = MPI_INT,
	[MPI_B_UINT] = MPI_UNSIGNED, [MPI_B_LONG] = MPI_LONG,
	[MPI_B_ULONG] = MPI_UNSIGNED_LONG, [MPI_B_LLONG] = MPI_LONG_LONG_INT,
	[MPI_B_ULLONG] = MPI_UNSIGNED_LONG_LONG, [MPI_B_FLOAT] = MPI_FLOAT,
	[MPI_B_DOUBLE] = MPI_DOUBLE, [MPI_B_LDOUBLE] = MPI_LONG_DOUBLE,
	[MPI_B_BOOL] = MPI_C_BOOL, [MPI_B_INT8] = MPI_INT8_T,
	[MPI_B_INT16] = MPI_INT16_T, [MPI_B_INT32] = MPI_INT32_T,
	[MPI_B_INT64] = MPI_INT64_T, [MPI_B_UINT8] = MPI_UINT8_T,
	[MPI_B_UINT16] = MPI_UINT16_T, [MPI_B_UINT32] = MPI_UINT32_T,
	[MPI_B_UINT64] = MPI_UINT64_T, [MPI_B_AINT] = MPI_AINT,
	[MPI_B_OFFSET] = MPI_OFFSET, [MPI_B_COUNT] = MPI_COUNT,
	[MPI_B_PACKED] = MPI_PACKED, [MPI_B_CFLOAT] = MPI_C_FLOAT_COMPLEX,
	[MPI_B_CDOUBLE] = MPI_C_DOUBLE_COMPLEX,
	[MPI_B_CLDOUBLE] = MPI_C_LONG_DOUBLE_COMPLEX,
	[MPI_B_FLOAT_INT] = MPI_FLOAT_INT, [MPI_B_DOUBLE_INT] = MPI_DOUBLE_INT,
	[MPI_B_LONG_INT] = MPI_LONG_INT, [MPI_B_2INT] = MPI_2INT,
	[MPI_B_SHORT_INT] = MPI_SHORT_INT,
	[MPI_B_LDOUBLE_INT] = MPI_LONG_DOUBLE_INT,
};

MPI_Datatype
mpi_dt_of_basic(enum mpi_basic b)
{
	return (unsigned)b < MPI_B_COUNT_ ? mpi_dt_basic_table[b] : NULL;
}

static size_t
basic_align(enum mpi_basic b)
{
	switch (b) {
	case MPI_B_NONE: return 1;
	case MPI_B_CHAR: case MPI_B_SCHAR: case MPI_B_UCHAR: case MPI_B_BYTE:
	case MPI_B_PACKED: case MPI_B_INT8: case MPI_B_UINT8: return 1;
	case MPI_B_BOOL: return alignof(_Bool);
	case MPI_B_WCHAR: return alignof(wchar_t);
	case MPI_B_SHORT: case MPI_B_USHORT: case MPI_B_INT16:
	case MPI_B_UINT16: return alignof(short);
	case MPI_B_INT: case MPI_B_UINT: case MPI_B_INT32:
	case MPI_B_UINT32: return alignof(int);
	case MPI_B_LONG: case MPI_B_ULONG: return alignof(long);
	case MPI_B_LLONG: case MPI_B_ULLONG: case MPI_B_INT64: case MPI_B_UINT64:
		return alignof(long long);
	case MPI_B_AINT: return alignof(MPI_Aint);
	case MPI_B_OFFSET: return alignof(MPI_Offset);
	case MPI_B_COUNT: return alignof(MPI_Count);
	case MPI_B_FLOAT: return alignof(float);
	case MPI_B_DOUBLE: return alignof(double);
	case MPI_B_LDOUBLE: return alignof(long double);
	case MPI_B_CFLOAT: return alignof(float complex);
	case MPI_B_CDOUBLE: return alignof(double complex);
	case MPI_B_CLDOUBLE: return alignof(long double complex);
	case MPI_B_FLOAT_INT: return alignof(struct mpi_pair_float_int);
	case MPI_B_DOUBLE_INT: return alignof(struct mpi_pair_double_int);
	case MPI_B_LONG_INT: return alignof(struct mpi_pair_long_int);
	case MPI_B_2INT: return alignof(struct mpi_pair_2int);
	case MPI_B_SHORT_INT: return alignof(struct mpi_pair_short_int);
	case MPI_B_LDOUBLE_INT: return alignof(struct mpi_pair_long_double_int);
	case MPI_B_COUNT_: break;
	}
	return 1;
}

size_t
mpi_dt_pair_first(enum mpi_basic b)
{
	switch (b) {
	case MPI_B_FLOAT_INT: return sizeof(float);
	case MPI_B_DOUBLE_INT: return sizeof(double);
	case MPI_B_LONG_INT: return sizeof(long);
	case MPI_B_2INT: return sizeof(int);
	case MPI_B_SHORT_INT: return sizeof(short);
	case MPI_B_LDOUBLE_INT: return sizeof(long double);
	default: return 0;
	}
}

bool
mpi_dt_is_marker(MPI_Datatype dt)
{
	return dt == MPI_LB || dt == MPI_UB;
}

size_t
mpi_dt_align(MPI_Datatype dt)
{
	const struct mpi_dt_ext *x = mpi_dt_ext(dt);
	return x ? x->align : basic_align(dt->basic);
}

MPI_Count
mpi_dt_nelems(MPI_Datatype dt)
{
	const struct mpi_dt_ext *x = mpi_dt_ext(dt);
	if (x)
		return x->nelems;
	if (mpi_dt_is_marker(dt))
		return 0;
	/* A pair is two basic elements (a value and an index), as MPI
	 * defines the pair types as structs. */
	return mpi_dt_pair_first(dt->basic) ? 2 : 1;
}

bool
mpi_dt_sticky_lb(MPI_Datatype dt)
{
	const struct mpi_dt_ext *x = mpi_dt_ext(dt);
	return x ? x->sticky_lb : dt == MPI_LB;
}

bool
mpi_dt_sticky_ub(MPI_Datatype dt)
{
	const struct mpi_dt_ext *x = mpi_dt_ext(dt);
	return x ? x->sticky_ub : dt == MPI_UB;
}

/* One message buffer for the module: MPI is at most
 * MPI_THREAD_SERIALIZED here, and callers copy the text at once. */
static char mpi_dt_why_buf[256];

int
mpi_dt_fail(const char **why, int errclass, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(mpi_dt_why_buf, sizeof mpi_dt_why_buf, fmt, ap);
	va_end(ap);
	if (why)
		*why = mpi_dt_why_buf;
	return errclass;
}

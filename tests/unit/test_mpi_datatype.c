/* Grove MPI datatypes: the predefined types' sizes, extents and names;
 * every constructor's size, bounds, blocks and contents; pack/unpack
 * round trips split at every byte; element counts.  Calls the module's
 * internal functions, so no MPI_Init is needed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <complex.h>
#include <wchar.h>

#include <cmocka.h>

#include "mpi/datatype.h"

static const char *why;

/* Fails the test with the module's reason when a call fails. */
#define OK(call)                                                   \
	do {                                                       \
		why = "";                                          \
		int rc_ = (call);                                  \
		if (rc_ != MPI_SUCCESS)                            \
			fail_msg("%s -> %d: %s", #call, rc_, why); \
	} while (0)

static void
check_bounds(MPI_Datatype t, size_t size, MPI_Aint lb, MPI_Aint extent,
             MPI_Aint true_lb, MPI_Aint true_extent)
{
	assert_int_equal(t->size, size);
	assert_int_equal(t->lb, lb);
	assert_int_equal(t->extent, extent);
	assert_int_equal(t->true_lb, true_lb);
	assert_int_equal(t->true_extent, true_extent);
}

static void
check_blocks(MPI_Datatype t, size_t n, const MPI_Aint *disp, const size_t *len)
{
	assert_int_equal(t->nblocks, n);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(t->blocks[i].disp, disp[i]);
		assert_int_equal(t->blocks[i].len, len[i]);
	}
}

static void
drop(MPI_Datatype *t)
{
	OK(mpi_dt_free(t, &why));
	assert_null(*t);
}

/* ---- predefined --------------------------------------------------------- */

struct pre {
	MPI_Datatype t;
	size_t size;
	MPI_Aint extent;
	const char *name;
	enum mpi_basic basic;
};

static void
test_predefined(void **state)
{
	(void)state;
	struct fi { float v; int i; };
	struct di { double v; int i; };
	struct li { long v; int i; };
	struct si { short v; int i; };
	struct ldi { long double v; int i; };
	const struct pre pre[] = {
		{MPI_CHAR, 1, 1, "MPI_CHAR", MPI_B_CHAR},
		{MPI_SIGNED_CHAR, 1, 1, "MPI_SIGNED_CHAR", MPI_B_SCHAR},
		{MPI_UNSIGNED_CHAR, 1, 1, "MPI_UNSIGNED_CHAR", MPI_B_UCHAR},
		{MPI_BYTE, 1, 1, "MPI_BYTE", MPI_B_BYTE},
		{MPI_WCHAR, sizeof(wchar_t), sizeof(wchar_t), "MPI_WCHAR", MPI_B_WCHAR},
		{MPI_SHORT, sizeof(short), sizeof(short), "MPI_SHORT", MPI_B_SHORT},
		{MPI_UNSIGNED_SHORT, sizeof(short), sizeof(short),
		 "MPI_UNSIGNED_SHORT", MPI_B_USHORT},
		{MPI_INT, sizeof(int), sizeof(int), "MPI_INT", MPI_B_INT},
		{MPI_UNSIGNED, sizeof(int), sizeof(int), "MPI_UNSIGNED", MPI_B_UINT},
		{MPI_LONG, sizeof(long), sizeof(long), "MPI_LONG", MPI_B_LONG},
		{MPI_UNSIGNED_LONG, sizeof(long), sizeof(long), "MPI_UNSIGNED_LONG",
		 MPI_B_ULONG},
		{MPI_LONG_LONG_INT, sizeof(long long), sizeof(long long),
		 "MPI_LONG_LONG_INT", MPI_B_LLONG},
		{MPI_LONG_LONG, sizeof(long long), sizeof(long long),
		 "MPI_LONG_LONG_INT", MPI_B_LLONG},
		{MPI_UNSIGNED_LONG_LONG, sizeof(long long), sizeof(long long),
		 "MPI_UNSIGNED_LONG_LONG", MPI_B_ULLONG},
		{MPI_FLOAT, sizeof(float), sizeof(float), "MPI_FLOAT", MPI_B_FLOAT},
		{MPI_DOUBLE, sizeof(double), sizeof(double), "MPI_DOUBLE", MPI_B_DOUBLE},
		{MPI_LONG_DOUBLE, sizeof(long double), sizeof(long double),
		 "MPI_LONG_DOUBLE", MPI_B_LDOUBLE},
		{MPI_C_BOOL, sizeof(_Bool), sizeof(_Bool), "MPI_C_BOOL", MPI_B_BOOL},
		{MPI_INT8_T, 1, 1, "MPI_INT8_T", MPI_B_INT8},
		{MPI_INT16_T, 2, 2, "MPI_INT16_T", MPI_B_INT16},
		{MPI_INT32_T, 4, 4, "MPI_INT32_T", MPI_B_INT32},
		{MPI_INT64_T, 8, 8, "MPI_INT64_T", MPI_B_INT64},
		{MPI_UINT8_T, 1, 1, "MPI_UINT8_T", MPI_B_UINT8},
		{MPI_UINT16_T, 2, 2, "MPI_UINT16_T", MPI_B_UINT16},
		{MPI_UINT32_T, 4, 4, "MPI_UINT32_T", MPI_B_UINT32},
		{MPI_UINT64_T, 8, 8, "MPI_UINT64_T", MPI_B_UINT64},
		{MPI_AINT, sizeof(MPI_Aint), sizeof(MPI_Aint), "MPI_AINT", MPI_B_AINT},
		{MPI_OFFSET, 8, 8, "MPI_OFFSET", MPI_B_OFFSET},
		{MPI_COUNT, 8, 8, "MPI_COUNT", MPI_B_COUNT},
		{MPI_PACKED, 1, 1, "MPI_PACKED", MPI_B_PACKED},
		{MPI_C_FLOAT_COMPLEX, sizeof(float complex), sizeof(float complex),
		 "MPI_C_FLOAT_COMPLEX", MPI_B_CFLOAT},
		{MPI_C_COMPLEX, sizeof(float complex), sizeof(float complex),
		 "MPI_C_FLOAT_COMPLEX", MPI_B_CFLOAT},
		{MPI_C_DOUBLE_COMPLEX, sizeof(double complex), sizeof(double complex),
		 "MPI_C_DOUBLE_COMPLEX", MPI_B_CDOUBLE},
		{MPI_C_LONG_DOUBLE_COMPLEX, sizeof(long double complex),
		 sizeof(long double complex), "MPI_C_LONG_DOUBLE_COMPLEX",
		 MPI_B_CLDOUBLE},
		{MPI_FLOAT_INT, sizeof(float) + sizeof(int), sizeof(struct fi),
		 "MPI_FLOAT_INT", MPI_B_FLOAT_INT},
		{MPI_DOUBLE_INT, sizeof(double) + sizeof(int), sizeof(struct di),
		 "MPI_DOUBLE_INT", MPI_B_DOUBLE_INT},
		{MPI_LONG_INT, sizeof(long) + sizeof(int), sizeof(struct li),
		 "MPI_LONG_INT", MPI_B_LONG_INT},
		{MPI_2INT, 2 * sizeof(int), 2 * sizeof(int), "MPI_2INT", MPI_B_2INT},
		{MPI_SHORT_INT, sizeof(short) + sizeof(int), sizeof(struct si),
		 "MPI_SHORT_INT", MPI_B_SHORT_INT},
		{MPI_LONG_DOUBLE_INT, sizeof(long double) + sizeof(int),
		 sizeof(struct ldi), "MPI_LONG_DOUBLE_INT", MPI_B_LDOUBLE_INT},
		{MPI_UB, 0, 0, "MPI_UB", MPI_B_NONE},
		{MPI_LB, 0, 0, "MPI_LB", MPI_B_NONE},
	};
	for (size_t i = 0; i < sizeof pre / sizeof pre[0]; i++) {
		MPI_Datatype t = pre[i].t;
		assert_string_equal(t->name, pre[i].name);
		assert_int_equal(t->size, pre[i].size);
		assert_int_equal(t->extent, pre[i].extent);
		assert_int_equal(t->lb, 0);
		assert_int_equal(t->basic, pre[i].basic);
		assert_true(t->predefined);
		assert_true(t->committed);
		assert_int_equal(t->combiner, MPI_COMBINER_NAMED);
		assert_int_equal(mpi_dt_check(t, &why), MPI_SUCCESS);
		/* The blocks hold exactly the data. */
		size_t sum = 0;
		for (size_t b = 0; b < t->nblocks; b++)
			sum += t->blocks[b].len;
		assert_int_equal(sum, t->size);
		if (pre[i].basic != MPI_B_NONE)
			assert_ptr_equal(mpi_dt_of_basic(pre[i].basic),
			                 pre[i].t == MPI_LONG_LONG ? MPI_LONG_LONG_INT
			                 : pre[i].t == MPI_C_COMPLEX ? MPI_C_FLOAT_COMPLEX
			                 : pre[i].t);
	}
	/* The short's padding is not data: two blocks, and not contiguous. */
	const MPI_Aint d[] = {0, offsetof(struct si, i)};
	const size_t l[] = {sizeof(short), sizeof(int)};
	check_blocks(MPI_SHORT_INT, 2, d, l);
	assert_false(mpi_dt_is_contig(MPI_SHORT_INT, 1));
	assert_true(mpi_dt_is_contig(MPI_DOUBLE_INT, 1));
	assert_false(mpi_dt_is_contig(MPI_DOUBLE_INT, 2));
	assert_true(mpi_dt_is_contig(MPI_2INT, 5));
	assert_true(mpi_dt_is_contig(MPI_INT, 1000));
	assert_int_equal(mpi_dt_nelems(MPI_2INT), 2);
	assert_int_equal(mpi_dt_nelems(MPI_INT), 1);
	assert_int_equal(mpi_dt_nelems(MPI_UB), 0);
}

/* ---- constructors ------------------------------------------------------- */

static void
check_envelope(MPI_Datatype t, int ni, int na, int nd, int combiner)
{
	int a, b, c, d;
	mpi_dt_envelope(t, &a, &b, &c, &d);
	assert_int_equal(a, ni);
	assert_int_equal(b, na);
	assert_int_equal(c, nd);
	assert_int_equal(d, combiner);
}

static void
test_contiguous(void **state)
{
	(void)state;
	MPI_Datatype t;
	OK(mpi_dt_contiguous(5, MPI_INT, &t, &why));
	check_bounds(t, 20, 0, 20, 0, 20);
	assert_true(t->contig);
	assert_int_equal(t->basic, MPI_B_INT);
	assert_int_equal(t->basic_count, 5);
	assert_int_equal(t->nblocks, 1);
	assert_false(t->committed);
	assert_int_equal(mpi_dt_check(t, &why), MPI_ERR_TYPE);
	assert_non_null(strstr(why, "not committed"));
	OK(mpi_dt_commit(t, &why));
	assert_int_equal(mpi_dt_check(t, &why), MPI_SUCCESS);
	check_envelope(t, 1, 0, 1, MPI_COMBINER_CONTIGUOUS);
	int ints[1];
	MPI_Datatype types[1];
	OK(mpi_dt_contents(t, 1, 0, 1, ints, NULL, types, &why));
	assert_int_equal(ints[0], 5);
	assert_ptr_equal(types[0], MPI_INT);
	drop(&t);

	OK(mpi_dt_contiguous(0, MPI_INT, &t, &why));
	check_bounds(t, 0, 0, 0, 0, 0);
	assert_int_equal(t->basic, MPI_B_INT);
	drop(&t);

	assert_int_equal(mpi_dt_contiguous(-1, MPI_INT, &t, &why), MPI_ERR_COUNT);
	assert_string_equal(why, "count -1 is negative");
	assert_int_equal(mpi_dt_contiguous(1, MPI_DATATYPE_NULL, &t, &why),
	                 MPI_ERR_TYPE);
	assert_string_equal(why, "oldtype is MPI_DATATYPE_NULL");
}

static void
test_vector(void **state)
{
	(void)state;
	MPI_Datatype t;
	/* 3 blocks of 2 doubles every 4 doubles. */
	OK(mpi_dt_vector(3, 2, 4, MPI_DOUBLE, &t, &why));
	check_bounds(t, 48, 0, 80, 0, 80);
	const MPI_Aint d[] = {0, 32, 64};
	const size_t l[] = {16, 16, 16};
	check_blocks(t, 3, d, l);
	assert_false(t->contig);
	assert_int_equal(t->basic, MPI_B_DOUBLE);
	assert_int_equal(t->basic_count, 6);
	check_envelope(t, 3, 0, 1, MPI_COMBINER_VECTOR);
	int ints[3];
	MPI_Datatype types[1];
	OK(mpi_dt_contents(t, 3, 0, 1, ints, NULL, types, &why));
	assert_int_equal(ints[0], 3);
	assert_int_equal(ints[1], 2);
	assert_int_equal(ints[2], 4);
	drop(&t);

	/* A stride equal to the block length is contiguous. */
	OK(mpi_dt_vector(4, 3, 3, MPI_INT, &t, &why));
	assert_true(t->contig);
	assert_int_equal(t->nblocks, 1);
	drop(&t);

	/* Negative stride: the lower bound moves left. */
	OK(mpi_dt_vector(3, 1, -2, MPI_INT, &t, &why));
	check_bounds(t, 12, -16, 20, -16, 20);
	drop(&t);

	/* hvector: stride in bytes. */
	OK(mpi_dt_hvector(2, 1, 10, MPI_SHORT, &t, &why));
	check_bounds(t, 4, 0, 12, 0, 12);
	check_envelope(t, 2, 1, 1, MPI_COMBINER_HVECTOR);
	MPI_Aint addrs[1];
	OK(mpi_dt_contents(t, 2, 1, 1, ints, addrs, types, &why));
	assert_int_equal(addrs[0], 10);
	drop(&t);

	assert_int_equal(mpi_dt_vector(2, -1, 1, MPI_INT, &t, &why), MPI_ERR_ARG);
}

static void
test_indexed(void **state)
{
	(void)state;
	MPI_Datatype t;
	const int bl[] = {2, 1, 3};
	const int di[] = {4, 0, 6}; /* not sorted: typemap order is kept */
	OK(mpi_dt_indexed(3, bl, di, MPI_INT, &t, &why));
	check_bounds(t, 24, 0, 36, 0, 36);
	/* Blocks at 16 (8 bytes), 0 (4 bytes), 24 (12 bytes): the first and
	 * the third are adjacent in memory but not in typemap order. */
	const MPI_Aint d[] = {16, 0, 24};
	const size_t l[] = {8, 4, 12};
	check_blocks(t, 3, d, l);
	check_envelope(t, 7, 0, 1, MPI_COMBINER_INDEXED);
	int ints[7];
	MPI_Datatype types[1];
	OK(mpi_dt_contents(t, 7, 0, 1, ints, NULL, types, &why));
	const int want[] = {3, 2, 1, 3, 4, 0, 6};
	assert_memory_equal(ints, want, sizeof want);
	/* Too small arrays are refused. */
	assert_int_equal(mpi_dt_contents(t, 6, 0, 1, ints, NULL, types, &why),
	                 MPI_ERR_ARG);
	drop(&t);

	/* Adjacent in both orders: merged. */
	const int bl2[] = {1, 2};
	const int di2[] = {1, 2};
	OK(mpi_dt_indexed(2, bl2, di2, MPI_INT, &t, &why));
	const MPI_Aint d2[] = {4};
	const size_t l2[] = {12};
	check_blocks(t, 1, d2, l2);
	check_bounds(t, 12, 4, 12, 4, 12);
	assert_false(t->contig); /* lb is not 0 */
	assert_true(mpi_dt_is_contig(t, 1));
	assert_true(mpi_dt_is_contig(t, 2)); /* extent 12 == len: items abut */
	drop(&t);

	const MPI_Aint hd[] = {0, 100};
	OK(mpi_dt_hindexed(2, bl2, hd, MPI_CHAR, &t, &why));
	check_bounds(t, 3, 0, 102, 0, 102);
	check_envelope(t, 3, 2, 1, MPI_COMBINER_HINDEXED);
	drop(&t);

	const int bd[] = {5, 1};
	OK(mpi_dt_indexed_block(2, 2, bd, MPI_SHORT, &t, &why));
	check_bounds(t, 8, 2, 12, 2, 12);
	check_envelope(t, 4, 0, 1, MPI_COMBINER_INDEXED_BLOCK);
	OK(mpi_dt_contents(t, 4, 0, 1, ints, NULL, types, &why));
	const int want2[] = {2, 2, 5, 1};
	assert_memory_equal(ints, want2, sizeof want2);
	drop(&t);

	const MPI_Aint hbd[] = {8, 0};
	OK(mpi_dt_hindexed_block(2, 1, hbd, MPI_DOUBLE, &t, &why));
	check_bounds(t, 16, 0, 16, 0, 16);
	/* 8 then 0: two blocks, not merged, not contiguous. */
	assert_int_equal(t->nblocks, 2);
	assert_false(mpi_dt_is_contig(t, 1));
	check_envelope(t, 2, 2, 1, MPI_COMBINER_HINDEXED_BLOCK);
	drop(&t);

	const int neg[] = {1, -1};
	assert_int_equal(mpi_dt_indexed(2, neg, di2, MPI_INT, &t, &why), MPI_ERR_ARG);
	assert_string_equal(why, "blocklength[1] = -1 is negative");
}

struct s3 {
	char c;
	double d;
	int i[2];
};

static MPI_Datatype
make_s3(void)
{
	const int bl[] = {1, 1, 2};
	const MPI_Aint di[] = {offsetof(struct s3, c), offsetof(struct s3, d),
	                       offsetof(struct s3, i)};
	const MPI_Datatype ty[] = {MPI_CHAR, MPI_DOUBLE, MPI_INT};
	MPI_Datatype t;
	OK(mpi_dt_struct(3, bl, di, ty, &t, &why));
	OK(mpi_dt_commit(t, &why));
	return t;
}

static void
test_struct(void **state)
{
	(void)state;
	MPI_Datatype t = make_s3();
	/* {char; double; int[2]}: 17 bytes of data, the C struct's extent. */
	check_bounds(t, 17, 0, sizeof(struct s3), 0,
	             offsetof(struct s3, i) + 2 * sizeof(int));
	assert_int_equal(t->basic, MPI_B_NONE);
	assert_int_equal(t->nblocks, 2); /* double and ints are adjacent */
	check_envelope(t, 4, 3, 3, MPI_COMBINER_STRUCT);
	assert_int_equal(mpi_dt_nelems(t), 4);
	drop(&t);

	/* Padding rounds to the strictest alignment: {int; char} is 8. */
	const int bl[] = {1, 1};
	const MPI_Aint di[] = {0, 4};
	const MPI_Datatype ty[] = {MPI_INT, MPI_CHAR};
	OK(mpi_dt_struct(2, bl, di, ty, &t, &why));
	check_bounds(t, 5, 0, 8, 0, 5);
	drop(&t);

	/* MPI_LB / MPI_UB markers fix the bounds and stop the rounding. */
	const int bl2[] = {1, 1, 1};
	const MPI_Aint di2[] = {-4, 0, 20};
	const MPI_Datatype ty2[] = {MPI_LB, MPI_INT, MPI_UB};
	OK(mpi_dt_struct(3, bl2, di2, ty2, &t, &why));
	check_bounds(t, 4, -4, 24, 0, 4);
	/* They stick: a contiguous of it keeps the marked bounds. */
	MPI_Datatype c;
	OK(mpi_dt_contiguous(2, t, &c, &why));
	check_bounds(c, 8, -4, 48, 0, 28);
	drop(&c);
	drop(&t);

	/* Same basic type everywhere: reducible. */
	const MPI_Datatype ty3[] = {MPI_INT, MPI_INT};
	const MPI_Aint di3[] = {0, 8};
	OK(mpi_dt_struct(2, bl, di3, ty3, &t, &why));
	assert_int_equal(t->basic, MPI_B_INT);
	assert_int_equal(t->basic_count, 2);
	drop(&t);

	const MPI_Datatype bad[] = {MPI_INT, MPI_DATATYPE_NULL};
	assert_int_equal(mpi_dt_struct(2, bl, di, bad, &t, &why), MPI_ERR_TYPE);
	assert_string_equal(why, "array_of_types[1] is MPI_DATATYPE_NULL");
}

static void
test_subarray(void **state)
{
	(void)state;
	MPI_Datatype t;
	/* 2x3 block at (1, 2) of a 4x5 int array, C order. */
	const int sizes[] = {4, 5}, sub[] = {2, 3}, starts[] = {1, 2};
	OK(mpi_dt_subarray(2, sizes, sub, starts, MPI_ORDER_C, MPI_INT, &t, &why));
	check_bounds(t, 24, 0, 80, 28, 32);
	const MPI_Aint d[] = {28, 48};
	const size_t l[] = {12, 12};
	check_blocks(t, 2, d, l);
	check_envelope(t, 8, 0, 1, MPI_COMBINER_SUBARRAY);
	drop(&t);

	/* Fortran order: the first dimension is the fastest. */
	OK(mpi_dt_subarray(2, sizes, sub, starts, MPI_ORDER_FORTRAN, MPI_INT, &t,
	                   &why));
	/* rows of 2 elements at (1 + 4*2), (1 + 4*3), (1 + 4*4) */
	const MPI_Aint d2[] = {36, 52, 68};
	const size_t l2[] = {8, 8, 8};
	check_blocks(t, 3, d2, l2);
	check_bounds(t, 24, 0, 80, 36, 40);
	drop(&t);

	/* 3-D round trip against a hand-written gather. */
	const int s3[] = {3, 4, 5}, u3[] = {2, 2, 3}, o3[] = {1, 1, 1};
	OK(mpi_dt_subarray(3, s3, u3, o3, MPI_ORDER_C, MPI_INT, &t, &why));
	int a[60], out[12], want[12], k = 0;
	for (int i = 0; i < 60; i++)
		a[i] = i;
	for (int x = 1; x < 3; x++)
		for (int y = 1; y < 3; y++)
			for (int z = 1; z < 4; z++)
				want[k++] = a[x * 20 + y * 5 + z];
	assert_int_equal(mpi_dt_pack(t, a, 1, out, 0, sizeof out), sizeof out);
	assert_memory_equal(out, want, sizeof want);
	drop(&t);

	const int bad[] = {3, 2};
	assert_int_equal(mpi_dt_subarray(2, sizes, sub, bad, MPI_ORDER_C, MPI_INT,
	                                 &t, &why), MPI_ERR_ARG);
	assert_non_null(strstr(why, "dimension 0"));
}

static void
test_resized_dup(void **state)
{
	(void)state;
	MPI_Datatype t, r, d;
	OK(mpi_dt_contiguous(3, MPI_INT, &t, &why));
	OK(mpi_dt_resized(t, -4, 20, &r, &why));
	check_bounds(r, 12, -4, 20, 0, 12);
	assert_false(r->contig);
	check_envelope(r, 0, 2, 1, MPI_COMBINER_RESIZED);
	MPI_Aint addrs[2];
	MPI_Datatype types[1];
	OK(mpi_dt_contents(r, 0, 2, 1, NULL, addrs, types, &why));
	assert_int_equal(addrs[0], -4);
	assert_int_equal(addrs[1], 20);
	assert_ptr_equal(types[0], t);
	/* The handed-out type is a reference of its own. */
	assert_int_equal(t->refs, 3);
	mpi_dt_release(types[0]);

	/* Two resized items: the second starts 20 bytes after the first. */
	OK(mpi_dt_commit(r, &why));
	int buf[10], out[6];
	for (int i = 0; i < 10; i++)
		buf[i] = i;
	assert_int_equal(mpi_dt_pack(r, buf, 2, out, 0, sizeof out), 24);
	const int want[] = {0, 1, 2, 5, 6, 7};
	assert_memory_equal(out, want, sizeof want);

	/* A dup keeps everything but the name and committed state follows. */
	OK(mpi_dt_set_name(r, "three ints", &why));
	OK(mpi_dt_dup(r, &d, &why));
	check_bounds(d, 12, -4, 20, 0, 12);
	assert_true(d->committed);
	assert_string_equal(d->name, "");
	assert_string_equal(r->name, "three ints");
	check_envelope(d, 0, 0, 1, MPI_COMBINER_DUP);
	drop(&d);
	drop(&r);
	drop(&t);
}

static void
test_names_and_free(void **state)
{
	(void)state;
	MPI_Datatype t;
	OK(mpi_dt_contiguous(2, MPI_INT, &t, &why));
	assert_string_equal(t->name, "");
	char longname[100];
	memset(longname, 'x', sizeof longname - 1);
	longname[sizeof longname - 1] = '\0';
	OK(mpi_dt_set_name(t, longname, &why));
	assert_int_equal(strlen(t->name), MPI_MAX_OBJECT_NAME - 1);
	OK(mpi_dt_set_name(t, "pair", &why));
	assert_string_equal(t->name, "pair");

	/* A request holding it keeps it alive past MPI_Type_free. */
	mpi_dt_retain(t);
	MPI_Datatype h = t;
	drop(&t);
	assert_int_equal(h->refs, 1);
	assert_string_equal(h->name, "pair");
	mpi_dt_release(h);

	MPI_Datatype p = MPI_INT;
	assert_int_equal(mpi_dt_free(&p, &why), MPI_ERR_TYPE);
	assert_string_equal(why, "MPI_INT is predefined and cannot be freed");
	assert_ptr_equal(p, MPI_INT);
	int a, b, c, d;
	mpi_dt_envelope(MPI_DOUBLE, &a, &b, &c, &d);
	assert_int_equal(d, MPI_COMBINER_NAMED);
	assert_int_equal(a + b + c, 0);
	assert_int_equal(mpi_dt_contents(MPI_DOUBLE, 0, 0, 0, NULL, NULL, NULL, &why),
	                 MPI_ERR_TYPE);
	assert_int_equal(mpi_dt_check(MPI_DATATYPE_NULL, &why), MPI_ERR_TYPE);
}

/* ---- pack / unpack ------------------------------------------------------ */

/* Packs `count` items of t from src in two pieces split at every byte,
 * checks the stream equals the one-shot pack, then unpacks in two pieces
 * split at every byte and checks the data came back. */
static void
round_trip(MPI_Datatype t, const void *src, size_t count, size_t span)
{
	size_t n = count * t->size;
	unsigned char *whole = malloc(n + 1), *piece = malloc(n + 1);
	unsigned char *back = malloc(span), *ref = malloc(span);
	assert_int_equal(mpi_dt_pack(t, src, count, whole, 0, n + 100), n);
	/* What unpack must produce: src's data, zero elsewhere. */
	memset(ref, 0, span);
	assert_int_equal(mpi_dt_unpack(t, ref, count, whole, 0, n), n);
	for (size_t split = 0; split <= n; split++) {
		memset(piece, 0xee, n + 1);
		assert_int_equal(mpi_dt_pack(t, src, count, piece, 0, split), split);
		assert_int_equal(mpi_dt_pack(t, src, count, piece + split, split,
		                             n + 7), n - split);
		assert_int_equal(piece[n], 0xee);
		assert_memory_equal(piece, whole, n);
		memset(back, 0, span);
		assert_int_equal(mpi_dt_unpack(t, back, count, whole, 0, split), split);
		assert_int_equal(mpi_dt_unpack(t, back, count, whole + split, split,
		                               n - split), n - split);
		assert_memory_equal(back, ref, span);
	}
	/* Nothing past the end. */
	assert_int_equal(mpi_dt_pack(t, src, count, piece, n, 10), 0);
	/* Three-way splits too (the middle piece starts inside a block). */
	for (size_t a = 0; a <= n; a += 3)
		for (size_t b = a; b <= n; b += 5) {
			memset(piece, 0, n);
			mpi_dt_pack(t, src, count, piece, 0, a);
			mpi_dt_pack(t, src, count, piece + a, a, b - a);
			mpi_dt_pack(t, src, count, piece + b, b, n - b);
			assert_memory_equal(piece, whole, n);
		}
	free(whole);
	free(piece);
	free(back);
	free(ref);
}

static void
test_pack_struct(void **state)
{
	(void)state;
	MPI_Datatype t = make_s3();
	struct s3 v[3];
	memset(v, 0x55, sizeof v); /* padding bytes are not packed */
	for (int k = 0; k < 3; k++) {
		v[k].c = (char)('a' + k);
		v[k].d = 1.5 + k;
		v[k].i[0] = 10 * k;
		v[k].i[1] = 10 * k + 1;
	}
	unsigned char out[51];
	assert_int_equal(mpi_dt_pack(t, v, 3, out, 0, sizeof out), 51);
	assert_int_equal(out[0], 'a');
	double d;
	memcpy(&d, out + 1, sizeof d);
	assert_true(d == 1.5);
	assert_int_equal(out[17], 'b');
	int i1;
	memcpy(&i1, out + 17 + 13, sizeof i1);
	assert_int_equal(i1, 11);
	round_trip(t, v, 3, sizeof v);
	drop(&t);
}

static void
test_pack_nested(void **state)
{
	(void)state;
	/* A vector of the struct: 2 blocks of 2 structs, stride 3 structs. */
	MPI_Datatype s = make_s3(), v, r;
	OK(mpi_dt_vector(2, 2, 3, s, &v, &why));
	OK(mpi_dt_commit(v, &why));
	check_bounds(v, 4 * 17, 0, 5 * sizeof(struct s3), 0,
	             4 * sizeof(struct s3) + offsetof(struct s3, i) + 8);
	assert_int_equal(mpi_dt_nelems(v), 16);
	struct s3 a[12];
	memset(a, 0, sizeof a);
	for (int k = 0; k < 12; k++) {
		a[k].c = (char)k;
		a[k].d = k * 0.25;
		a[k].i[0] = k;
		a[k].i[1] = -k;
	}
	round_trip(v, a, 2, sizeof a); /* items at 0 and 5 structs */
	unsigned char out[8 * 17];
	assert_int_equal(mpi_dt_pack(v, a, 2, out, 0, sizeof out), 8 * 17);
	/* Item 2's first struct is a[5], its block's second a[6], then a[8]. */
	assert_int_equal(out[4 * 17], 5);
	assert_int_equal(out[5 * 17], 6);
	assert_int_equal(out[6 * 17], 8);

	/* Resized vector of ints, and a struct of it: nesting of nesting. */
	OK(mpi_dt_vector(2, 1, 2, MPI_INT, &r, &why));
	MPI_Datatype rr, st;
	OK(mpi_dt_resized(r, 0, 4, &rr, &why));
	const int bl[] = {3, 1};
	const MPI_Aint di[] = {0, 40};
	const MPI_Datatype ty[] = {rr, MPI_SHORT_INT};
	OK(mpi_dt_struct(2, bl, di, ty, &st, &why));
	OK(mpi_dt_commit(st, &why));
	/* rr items at 0, 4, 8 interleave: ints 0,2,1,3,2,4. */
	int buf[16];
	for (int k = 0; k < 16; k++)
		buf[k] = k;
	int out2[6];
	assert_int_equal(mpi_dt_pack(st, buf, 1, out2, 0, 24), 24);
	const int want[] = {0, 2, 1, 3, 2, 4};
	assert_memory_equal(out2, want, sizeof want);
	assert_int_equal(st->size, 24 + 6);
	round_trip(st, buf, 1, sizeof buf);
	drop(&st);
	drop(&rr);
	drop(&r);
	drop(&v);
	drop(&s);
}

static void
test_pack_contig_fast(void **state)
{
	(void)state;
	int a[100], b[100];
	for (int i = 0; i < 100; i++)
		a[i] = i * 3;
	assert_int_equal(mpi_dt_pack(MPI_INT, a, 100, b, 40, 1000), 360);
	assert_int_equal(b[0], 30);
	memset(b, 0, sizeof b);
	assert_int_equal(mpi_dt_unpack(MPI_INT, b, 100, a, 4, 8), 8);
	assert_int_equal(b[1], 0);
	assert_int_equal(b[2], 3);
	round_trip(MPI_SHORT_INT, a, 5, sizeof a);
	round_trip(MPI_DOUBLE_INT, a, 3, sizeof a);
}

/* ---- counting ----------------------------------------------------------- */

static void
test_counts(void **state)
{
	(void)state;
	assert_int_equal(mpi_dt_count(MPI_INT, 12), 3);
	assert_int_equal(mpi_dt_count(MPI_INT, 13), MPI_UNDEFINED);
	assert_int_equal(mpi_dt_count(MPI_UB, 0), 0);
	assert_int_equal(mpi_dt_elements(MPI_INT, 12), 3);
	assert_int_equal(mpi_dt_elements(MPI_INT, 13), MPI_UNDEFINED);
	assert_int_equal(mpi_dt_elements(MPI_2INT, 12), 3);
	assert_int_equal(mpi_dt_elements(MPI_DOUBLE_INT, 12 + 8), 3);
	assert_int_equal(mpi_dt_elements(MPI_DOUBLE_INT, 12 + 4), MPI_UNDEFINED);

	MPI_Datatype t = make_s3(); /* char, double, int, int: 17 bytes */
	assert_int_equal(mpi_dt_count(t, 34), 2);
	assert_int_equal(mpi_dt_count(t, 35), MPI_UNDEFINED);
	assert_int_equal(mpi_dt_elements(t, 34), 8);
	assert_int_equal(mpi_dt_elements(t, 17 + 1), 5);
	assert_int_equal(mpi_dt_elements(t, 17 + 9), 6);
	assert_int_equal(mpi_dt_elements(t, 17 + 13), 7);
	assert_int_equal(mpi_dt_elements(t, 17 + 5), MPI_UNDEFINED);
	for (MPI_Count e = 0; e <= 12; e++)
		assert_int_equal(mpi_dt_elements(t, mpi_dt_elements_bytes(t, e)), e);
	assert_int_equal(mpi_dt_elements_bytes(t, 5), 18);

	MPI_Datatype v;
	OK(mpi_dt_vector(3, 2, 5, t, &v, &why));
	assert_int_equal(mpi_dt_elements(v, 17 * 7), 28);
	assert_int_equal(mpi_dt_elements_bytes(v, 29), 17 * 7 + 1);
	drop(&v);
	drop(&t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_predefined),
		cmocka_unit_test(test_contiguous),
		cmocka_unit_test(test_vector),
		cmocka_unit_test(test_indexed),
		cmocka_unit_test(test_struct),
		cmocka_unit_test(test_subarray),
		cmocka_unit_test(test_resized_dup),
		cmocka_unit_test(test_names_and_free),
		cmocka_unit_test(test_pack_struct),
		cmocka_unit_test(test_pack_nested),
		cmocka_unit_test(test_pack_contig_fast),
		cmocka_unit_test(test_counts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

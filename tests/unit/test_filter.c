/* Transformation filters: the built-ins on every numeric type, format
 * checks, averages over two levels, concat with ranks, the emit/pack ABI,
 * and loading the example custom filter (filter_intmaxloc.so, built next to
 * this test program).
 */
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "codec/wire.h"
#include "filter/filter_impl.h"

enum { STREAM = 7, TAG = 3, MYRANK = 99 };

/* Directory of this program: the build directory, where the example
 * filter module is built too. */
static char build_dir[PATH_MAX];

static const grove_filter_place place = {
	.node_id = 1, .depth = 1, .n_children = 4,
	.be_lo = 0, .be_hi = 16, .n_backends = 16, .is_fe = 0,
};

static const grove_type num_types[] = {
	GROVE_T_INT8, GROVE_T_UINT8, GROVE_T_INT16, GROVE_T_UINT16,
	GROVE_T_INT32, GROVE_T_UINT32, GROVE_T_INT64, GROVE_T_UINT64,
	GROVE_T_FLOAT, GROVE_T_DOUBLE,
};
#define N_NUM_TYPES (sizeof num_types / sizeof num_types[0])

static int
type_signed(grove_type t)
{
	return t == GROVE_T_INT8 || t == GROVE_T_INT16 || t == GROVE_T_INT32 ||
	    t == GROVE_T_INT64 || t == GROVE_T_FLOAT || t == GROVE_T_DOUBLE;
}

static int
type_float(grove_type t)
{
	return t == GROVE_T_FLOAT || t == GROVE_T_DOUBLE;
}

static void
put_elem(grove_type t, void *base, size_t i, double v)
{
	switch (t) {
	case GROVE_T_INT8: ((int8_t *)base)[i] = (int8_t)v; break;
	case GROVE_T_UINT8: ((uint8_t *)base)[i] = (uint8_t)v; break;
	case GROVE_T_INT16: ((int16_t *)base)[i] = (int16_t)v; break;
	case GROVE_T_UINT16: ((uint16_t *)base)[i] = (uint16_t)v; break;
	case GROVE_T_INT32: ((int32_t *)base)[i] = (int32_t)v; break;
	case GROVE_T_UINT32: ((uint32_t *)base)[i] = (uint32_t)v; break;
	case GROVE_T_INT64: ((int64_t *)base)[i] = (int64_t)v; break;
	case GROVE_T_UINT64: ((uint64_t *)base)[i] = (uint64_t)v; break;
	case GROVE_T_FLOAT: ((float *)base)[i] = (float)v; break;
	case GROVE_T_DOUBLE: ((double *)base)[i] = v; break;
	default: fail_msg("not numeric: %d", (int)t);
	}
}

#define GET(T) do { T x; memcpy(&x, (const char *)base + i * sizeof x, \
	sizeof x); return (double)x; } while (0)

static double
get_elem(grove_type t, const void *base, size_t i)
{
	switch (t) {
	case GROVE_T_INT8: GET(int8_t);
	case GROVE_T_UINT8: GET(uint8_t);
	case GROVE_T_INT16: GET(int16_t);
	case GROVE_T_UINT16: GET(uint16_t);
	case GROVE_T_INT32: GET(int32_t);
	case GROVE_T_UINT32: GET(uint32_t);
	case GROVE_T_INT64: GET(int64_t);
	case GROVE_T_UINT64: GET(uint64_t);
	case GROVE_T_FLOAT: GET(float);
	case GROVE_T_DOUBLE: GET(double);
	default: fail_msg("not numeric: %d", (int)t);
	}
	return 0;
}

static grove_packet *
mk(uint32_t src, const char *fmt, ...)
{
	grove_packet *p = NULL;
	va_list ap;
	va_start(ap, fmt);
	int rc = wire_vpack(&p, WIRE_T_DATA, STREAM, TAG, src, 0, fmt, ap);
	va_end(ap);
	assert_int_equal(rc, 0);
	assert_non_null(p);
	return p;
}

static grove_packet *
mk_items(uint32_t src, const grove_item *items, int n)
{
	grove_packet *p = NULL;
	assert_int_equal(wire_pack_items(&p, WIRE_T_DATA, STREAM, TAG, src,
	    items, n), 0);
	return p;
}

/* One numeric item of type t (scalar if !is_array, then n must be 1). */
static grove_packet *
mk_num(uint32_t src, grove_type t, int is_array, const double *v, size_t n)
{
	_Alignas(8) unsigned char buf[8 * 32];
	assert_true(n <= 32);
	for (size_t i = 0; i < n; i++)
		put_elem(t, buf, i, v[i]);
	grove_item it = {.type = t, .is_array = is_array, .count = n,
	    .data = buf};
	return mk_items(src, &it, 1);
}

/* An avg input: value (scalar or array of vt) and a scalar count of ct. */
static grove_packet *
mk_avg(uint32_t src, grove_type vt, int is_array, const double *v, size_t n,
    grove_type ct, double count)
{
	_Alignas(8) unsigned char vbuf[8 * 32], cbuf[8];
	assert_true(n <= 32);
	for (size_t i = 0; i < n; i++)
		put_elem(vt, vbuf, i, v[i]);
	put_elem(ct, cbuf, 0, count);
	grove_item it[2] = {
		{.type = vt, .is_array = is_array, .count = n, .data = vbuf},
		{.type = ct, .is_array = 0, .count = 1, .data = cbuf},
	};
	return mk_items(src, it, 2);
}

static void
unref_all(grove_packet **p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		grove_packet_unref(p[i]);
}

static int
setup(void **st)
{
	flt_registry *r = flt_registry_new();
	if (!r)
		return -1;
	*st = r;
	return 0;
}

static int
teardown(void **st)
{
	flt_registry_destroy(*st);
	return 0;
}

static int
run_def(const flt_def *f, grove_packet **in, size_t n, void **state,
    flt_out *out)
{
	uint32_t child[64];
	assert_true(n <= 64);
	for (size_t i = 0; i < n; i++)
		child[i] = (uint32_t)i;
	return flt_run(f, STREAM, TAG, MYRANK, in, child, n, NULL, state,
	    &place, out);
}

/* Run a registered filter with a throw-away state. */
static int
run(void **st, const char *name, grove_packet **in, size_t n, flt_out *out)
{
	const flt_def *f = flt_lookup(*st, name);
	assert_non_null(f);
	void *state = NULL;
	int rc = run_def(f, in, n, &state, out);
	assert_null(state);
	return rc;
}

/* The single upstream output, with the wave's header checked. */
static grove_packet *
only_up(const flt_out *out)
{
	assert_int_equal(out->n_up, 1);
	assert_int_equal(out->n_down, 0);
	grove_packet *p = out->up[0];
	assert_int_equal(grove_packet_stream(p), STREAM);
	assert_int_equal(grove_packet_tag(p), TAG);
	assert_int_equal(grove_packet_src(p), MYRANK);
	return p;
}

static void
get_item(const grove_packet *p, int i, grove_item *it)
{
	assert_int_equal(grove_packet_item(p, i, it), 0);
}

/* ---- registry ------------------------------------------------------- */

static void
test_builtins_registered(void **st)
{
	static const char *names[] = {"null", "sum", "min", "max", "avg",
	    "concat"};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		const flt_def *f = flt_lookup(*st, names[i]);
		assert_non_null(f);
		assert_string_equal(f->name, names[i]);
		assert_non_null(f->fn);
		assert_null(f->dl_handle);
	}
	assert_null(flt_lookup(*st, "nope"));
	assert_null(flt_lookup(*st, ""));
	assert_null(flt_lookup(NULL, "sum"));
}

/* ---- sum / min / max -------------------------------------------------- */

static double
expect_op(const char *op, double a, double b)
{
	if (strcmp(op, "sum") == 0)
		return a + b;
	if (strcmp(op, "min") == 0)
		return a < b ? a : b;
	return a > b ? a : b;
}

static void
check_reduce(void **st, const char *op, grove_type t, int is_array)
{
	enum { NIN = 3, NEL = 5 };
	double v[NIN][NEL];
	size_t nel = is_array ? NEL : 1;
	for (size_t j = 0; j < NIN; j++)
		for (size_t e = 0; e < nel; e++) {
			v[j][e] = (double)((e * 3 + j * 5) % 11);
			if (type_signed(t))
				v[j][e] -= 5;
		}
	grove_packet *in[NIN];
	for (size_t j = 0; j < NIN; j++)
		in[j] = mk_num((uint32_t)j, t, is_array, v[j], nel);

	flt_out out;
	flt_out_init(&out);
	assert_int_equal(run(st, op, in, NIN, &out), 0);
	grove_packet *p = only_up(&out);
	assert_string_equal(grove_packet_format(p),
	    grove_packet_format(in[0]));
	grove_item it;
	get_item(p, 0, &it);
	assert_int_equal(it.type, t);
	assert_int_equal(it.is_array, is_array);
	assert_int_equal(it.count, nel);
	for (size_t e = 0; e < nel; e++) {
		double want = v[0][e];
		for (size_t j = 1; j < NIN; j++)
			want = expect_op(op, want, v[j][e]);
		double got = get_elem(t, it.data, e);
		if (got != want)
			fail_msg("%s type %d elem %zu: got %g want %g", op,
			    (int)t, e, got, want);
	}
	flt_out_fini(&out);
	unref_all(in, NIN);
}

static void
test_reduce_all_types(void **st)
{
	static const char *ops[] = {"sum", "min", "max"};
	for (size_t o = 0; o < 3; o++)
		for (size_t k = 0; k < N_NUM_TYPES; k++) {
			check_reduce(st, ops[o], num_types[k], 0);
			check_reduce(st, ops[o], num_types[k], 1);
		}
}

static void
test_sum_single_input(void **st)
{
	grove_packet *in = mk(4, "%d", -17);
	flt_out out;
	flt_out_init(&out);
	assert_int_equal(run(st, "sum", &in, 1, &out), 0);
	int32_t v = 0;
	assert_int_equal(grove_packet_unpack(only_up(&out), "%d", &v), 0);
	assert_int_equal(v, -17);
	flt_out_fini(&out);
	grove_packet_unref(in);
}

static void
test_empty_wave(void **st)
{
	static const char *names[] = {"null", "sum", "min", "max", "avg",
	    "concat"};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		flt_out out;
		flt_out_init(&out);
		assert_int_equal(run(st, names[i], NULL, 0, &out), 0);
		assert_int_equal(out.n_up, 0);
		flt_out_fini(&out);
	}
}

/* Integer sums wrap like unsigned arithmetic, for signed types too. */
static void
test_sum_wraps(void **st)
{
	flt_out out;
	flt_out_init(&out);
	grove_packet *in[2];

	in[0] = mk(0, "%c", 100);
	in[1] = mk(1, "%c", 100);
	assert_int_equal(run(st, "sum", in, 2, &out), 0);
	int8_t c;
	assert_int_equal(grove_packet_unpack(only_up(&out), "%c", &c), 0);
	assert_int_equal(c, -56);
	unref_all(in, 2);
	flt_out_reset(&out);

	in[0] = mk(0, "%uc", 200);
	in[1] = mk(1, "%uc", 100);
	assert_int_equal(run(st, "sum", in, 2, &out), 0);
	uint8_t uc;
	assert_int_equal(grove_packet_unpack(only_up(&out), "%uc", &uc), 0);
	assert_int_equal(uc, 44);
	unref_all(in, 2);
	flt_out_reset(&out);

	in[0] = mk(0, "%hd", 30000);
	in[1] = mk(1, "%hd", 30000);
	assert_int_equal(run(st, "sum", in, 2, &out), 0);
	int16_t h;
	assert_int_equal(grove_packet_unpack(only_up(&out), "%hd", &h), 0);
	assert_int_equal(h, 60000 - 65536);
	unref_all(in, 2);
	flt_out_reset(&out);

	in[0] = mk(0, "%d", INT32_MAX);
	in[1] = mk(1, "%d", 1);
	assert_int_equal(run(st, "sum", in, 2, &out), 0);
	int32_t d;
	assert_int_equal(grove_packet_unpack(only_up(&out), "%d", &d), 0);
	assert_int_equal(d, INT32_MIN);
	unref_all(in, 2);
	flt_out_reset(&out);

	in[0] = mk(0, "%ud", UINT32_MAX);
	in[1] = mk(1, "%ud", 2u);
	assert_int_equal(run(st, "sum", in, 2, &out), 0);
	uint32_t ud;
	assert_int_equal(grove_packet_unpack(only_up(&out), "%ud", &ud), 0);
	assert_int_equal(ud, 1);
	unref_all(in, 2);
	flt_out_reset(&out);

	in[0] = mk(0, "%ld", INT64_MAX);
	in[1] = mk(1, "%ld", (int64_t)1);
	assert_int_equal(run(st, "sum", in, 2, &out), 0);
	int64_t ld;
	assert_int_equal(grove_packet_unpack(only_up(&out), "%ld", &ld), 0);
	assert_true(ld == INT64_MIN);
	unref_all(in, 2);
	flt_out_reset(&out);

	in[0] = mk(0, "%uld", UINT64_MAX);
	in[1] = mk(1, "%uld", (uint64_t)2);
	assert_int_equal(run(st, "sum", in, 2, &out), 0);
	uint64_t uld;
	assert_int_equal(grove_packet_unpack(only_up(&out), "%uld", &uld), 0);
	assert_true(uld == 1);
	unref_all(in, 2);
	flt_out_fini(&out);
}

/* Extremes of 64-bit types survive min/max exactly. */
static void
test_minmax_extremes(void **st)
{
	flt_out out;
	flt_out_init(&out);
	grove_packet *in[3] = {
		mk(0, "%ld", (int64_t)5),
		mk(1, "%ld", INT64_MIN),
		mk(2, "%ld", INT64_MAX),
	};
	int64_t v;
	assert_int_equal(run(st, "min", in, 3, &out), 0);
	assert_int_equal(grove_packet_unpack(only_up(&out), "%ld", &v), 0);
	assert_true(v == INT64_MIN);
	flt_out_reset(&out);
	assert_int_equal(run(st, "max", in, 3, &out), 0);
	assert_int_equal(grove_packet_unpack(only_up(&out), "%ld", &v), 0);
	assert_true(v == INT64_MAX);
	unref_all(in, 3);
	flt_out_fini(&out);
}

/* Several items in one packet are reduced independently. */
static void
test_sum_multi_item(void **st)
{
	double a0[] = {1.5, -2.0}, a1[] = {0.25, 4.0};
	grove_packet *in[2] = {
		mk(0, "%d %alf %uc", 5, a0, (uint64_t)2, 7),
		mk(1, "%d %alf %uc", -8, a1, (uint64_t)2, 9),
	};
	flt_out out;
	flt_out_init(&out);
	assert_int_equal(run(st, "sum", in, 2, &out), 0);
	grove_packet *p = only_up(&out);
	assert_string_equal(grove_packet_format(p), "%d %alf %uc");
	int32_t d;
	const double *arr;
	uint64_t n;
	uint8_t uc;
	assert_int_equal(grove_packet_unpack(p, "%d %alf %uc", &d, &arr, &n,
	    &uc), 0);
	assert_int_equal(d, -3);
	assert_int_equal(n, 2);
	assert_true(arr[0] == 1.75 && arr[1] == 2.0);
	assert_int_equal(uc, 16);
	unref_all(in, 2);
	flt_out_fini(&out);
}

static void
expect_eformat(void **st, const char *name, grove_packet **in, size_t n)
{
	flt_out out;
	flt_out_init(&out);
	int rc = run(st, name, in, n, &out);
	if (rc != GROVE_EFORMAT)
		fail_msg("%s: got %s, want GROVE_EFORMAT", name,
		    grove_err_name(rc));
	assert_int_equal(out.n_up, 0);
	flt_out_fini(&out);
}

static void
test_reduce_bad_formats(void **st)
{
	static const char *ops[] = {"sum", "min", "max", "avg"};
	int32_t a2[] = {1, 2}, a3[] = {1, 2, 3};
	for (size_t o = 0; o < 4; o++) {
		grove_packet *in[2];
		/* different types */
		in[0] = mk(0, "%d", 1);
		in[1] = mk(1, "%ud", 1u);
		expect_eformat(st, ops[o], in, 2);
		unref_all(in, 2);
		/* strings */
		in[0] = mk(0, "%s", "a");
		in[1] = mk(1, "%s", "b");
		expect_eformat(st, ops[o], in, 2);
		unref_all(in, 2);
		/* arrays of different lengths */
		in[0] = mk(0, "%ad", a2, (uint64_t)2);
		in[1] = mk(1, "%ad", a3, (uint64_t)3);
		expect_eformat(st, ops[o], in, 2);
		unref_all(in, 2);
		/* scalar vs array */
		in[0] = mk(0, "%d", 1);
		in[1] = mk(1, "%ad", a2, (uint64_t)2);
		expect_eformat(st, ops[o], in, 2);
		unref_all(in, 2);
	}
	/* a string item among numbers, one input */
	grove_packet *one = mk(0, "%d %s", 1, "x");
	expect_eformat(st, "sum", &one, 1);
	grove_packet_unref(one);
	/* arrays of different lengths in an avg wave */
	grove_packet *in[2] = {
		mk(0, "%ad %d", a2, (uint64_t)2, 1),
		mk(1, "%ad %d", a3, (uint64_t)3, 1),
	};
	expect_eformat(st, "avg", in, 2);
	unref_all(in, 2);
}

/* ---- avg ---------------------------------------------------------------- */

static const grove_type count_types[] = {
	GROVE_T_INT32, GROVE_T_UINT32, GROVE_T_INT64, GROVE_T_UINT64,
};

/* Run avg and return its single output (caller resets out). */
static grove_packet *
avg_run(void **st, grove_packet **in, size_t n, flt_out *out)
{
	size_t before = out->n_up;
	assert_int_equal(run(st, "avg", in, n, out), 0);
	assert_int_equal(out->n_up, before + 1);
	grove_packet *p = out->up[before];
	assert_string_equal(grove_packet_format(p),
	    grove_packet_format(in[0]));
	assert_int_equal(grove_packet_src(p), MYRANK);
	return grove_packet_ref(p);
}

/* Two levels: CP A averages {1,2,3}, CP B averages {10,20}; the FE then
 * averages the two results and must get the mean of all five values. */
static void
check_avg_two_levels(void **st, grove_type vt, grove_type ct, int is_array)
{
	static const double be[5] = {1, 2, 3, 10, 20};
	size_t nel = is_array ? 3 : 1;
	grove_packet *leaf[5];
	for (size_t b = 0; b < 5; b++) {
		double v[3];
		for (size_t e = 0; e < nel; e++)
			v[e] = be[b] * (double)(e + 1);
		leaf[b] = mk_avg((uint32_t)b, vt, is_array, v, nel, ct, 1);
	}
	flt_out out;
	flt_out_init(&out);
	grove_packet *mid[2];
	mid[0] = avg_run(st, leaf, 3, &out);
	mid[1] = avg_run(st, leaf + 3, 2, &out);
	flt_out_reset(&out);
	grove_packet *top = avg_run(st, mid, 2, &out);

	grove_item val, cnt;
	get_item(top, 0, &val);
	get_item(top, 1, &cnt);
	assert_int_equal(val.count, nel);
	assert_int_equal(get_elem(ct, cnt.data, 0), 5.0);
	for (size_t e = 0; e < nel; e++) {
		double want = 36.0 / 5.0 * (double)(e + 1);
		if (!type_float(vt))
			want = round(want);
		double got = get_elem(vt, val.data, e);
		if (fabs(got - want) > 1e-6 * fabs(want))
			fail_msg("avg type %d count %d elem %zu: got %.9g "
			    "want %.9g", (int)vt, (int)ct, e, got, want);
	}
	grove_packet_unref(top);
	unref_all(mid, 2);
	unref_all(leaf, 5);
	flt_out_fini(&out);
}

static void
test_avg_two_levels_all_types(void **st)
{
	for (size_t k = 0; k < N_NUM_TYPES; k++)
		for (size_t c = 0; c < 4; c++) {
			check_avg_two_levels(st, num_types[k], count_types[c],
			    0);
			check_avg_two_levels(st, num_types[k], count_types[c],
			    1);
		}
}

static void
test_avg_rounding_and_limits(void **st)
{
	flt_out out;
	flt_out_init(&out);
	grove_packet *in[2];
	int32_t d, n;

	/* 1.5 rounds to 2, -1.5 to -2 (to nearest, halves away from 0) */
	in[0] = mk(0, "%d %d", 1, 1);
	in[1] = mk(1, "%d %d", 2, 1);
	assert_int_equal(run(st, "avg", in, 2, &out), 0);
	assert_int_equal(grove_packet_unpack(only_up(&out), "%d %d", &d, &n),
	    0);
	assert_int_equal(d, 2);
	assert_int_equal(n, 2);
	unref_all(in, 2);
	flt_out_reset(&out);

	in[0] = mk(0, "%d %d", -1, 1);
	in[1] = mk(1, "%d %d", -2, 1);
	assert_int_equal(run(st, "avg", in, 2, &out), 0);
	assert_int_equal(grove_packet_unpack(only_up(&out), "%d %d", &d, &n),
	    0);
	assert_int_equal(d, -2);
	unref_all(in, 2);
	flt_out_reset(&out);

	/* the mean of two INT64_MAX stays INT64_MAX despite double */
	in[0] = mk(0, "%ld %ud", INT64_MAX, 3u);
	in[1] = mk(1, "%ld %ud", INT64_MAX, 1u);
	assert_int_equal(run(st, "avg", in, 2, &out), 0);
	int64_t ld;
	uint32_t un;
	assert_int_equal(grove_packet_unpack(only_up(&out), "%ld %ud", &ld,
	    &un), 0);
	assert_true(ld == INT64_MAX);
	assert_int_equal(un, 4);
	unref_all(in, 2);
	flt_out_reset(&out);

	/* weights matter: (10*3 + 20*1) / 4 = 12.5 */
	in[0] = mk(0, "%lf %uld", 10.0, (uint64_t)3);
	in[1] = mk(1, "%lf %uld", 20.0, (uint64_t)1);
	assert_int_equal(run(st, "avg", in, 2, &out), 0);
	double lf;
	uint64_t ul;
	assert_int_equal(grove_packet_unpack(only_up(&out), "%lf %uld", &lf,
	    &ul), 0);
	assert_true(lf == 12.5);
	assert_true(ul == 4);
	unref_all(in, 2);
	flt_out_reset(&out);

	/* total count 0: value 0 */
	in[0] = mk(0, "%f %d", 5.0, 0);
	in[1] = mk(1, "%f %d", 7.0, 0);
	assert_int_equal(run(st, "avg", in, 2, &out), 0);
	float f;
	assert_int_equal(grove_packet_unpack(only_up(&out), "%f %d", &f, &n),
	    0);
	assert_true(f == 0.0f);
	assert_int_equal(n, 0);
	unref_all(in, 2);
	flt_out_reset(&out);

	/* negative count */
	in[0] = mk(0, "%d %d", 5, 1);
	in[1] = mk(1, "%d %d", 7, -1);
	assert_int_equal(run(st, "avg", in, 2, &out), GROVE_ERANGE);
	assert_int_equal(out.n_up, 0);
	unref_all(in, 2);

	/* total count does not fit the count type */
	in[0] = mk(0, "%d %d", 5, INT32_MAX);
	in[1] = mk(1, "%d %d", 7, 1);
	assert_int_equal(run(st, "avg", in, 2, &out), GROVE_ERANGE);
	assert_int_equal(out.n_up, 0);
	unref_all(in, 2);
	flt_out_fini(&out);
}

static void
test_avg_bad_shapes(void **st)
{
	grove_packet *p;
	double arr[] = {1, 2};
	int32_t cnts[] = {1, 1};
	p = mk(0, "%d", 1);                 /* no count */
	expect_eformat(st, "avg", &p, 1);
	grove_packet_unref(p);
	p = mk(0, "%d %d %d", 1, 1, 1);     /* too many items */
	expect_eformat(st, "avg", &p, 1);
	grove_packet_unref(p);
	p = mk(0, "%lf %lf", 1.0, 1.0);     /* count not an integer */
	expect_eformat(st, "avg", &p, 1);
	grove_packet_unref(p);
	p = mk(0, "%lf %hd", 1.0, 1);       /* count of a type not allowed */
	expect_eformat(st, "avg", &p, 1);
	grove_packet_unref(p);
	p = mk(0, "%alf %ad", arr, (uint64_t)2, cnts, (uint64_t)2);
	expect_eformat(st, "avg", &p, 1);   /* count is an array */
	grove_packet_unref(p);
	p = mk(0, "%s %d", "x", 1);         /* value not numeric */
	expect_eformat(st, "avg", &p, 1);
	grove_packet_unref(p);
}

/* ---- concat -------------------------------------------------------------- */

static void
check_cat(const grove_packet *p, const char *fmt, size_t n,
    const uint32_t *ranks)
{
	assert_string_equal(grove_packet_format(p), fmt);
	grove_item r;
	get_item(p, 1, &r);
	assert_int_equal(r.type, GROVE_T_UINT32);
	assert_int_equal(r.count, n);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(((const uint32_t *)r.data)[i], ranks[i]);
}

static void
test_concat_scalars_all_types(void **st)
{
	for (size_t k = 0; k < N_NUM_TYPES; k++) {
		grove_type t = num_types[k];
		double v[3] = {50, 20, 90};
		uint32_t src[3] = {5, 2, 9};
		grove_packet *in[3];
		for (size_t j = 0; j < 3; j++)
			in[j] = mk_num(src[j], t, 0, &v[j], 1);
		flt_out out;
		flt_out_init(&out);
		assert_int_equal(run(st, "concat", in, 3, &out), 0);
		grove_packet *p = only_up(&out);
		char fmt[32];
		snprintf(fmt, sizeof fmt, "%%a%s %%aud",
		    grove_packet_format(in[0]) + 1);
		check_cat(p, fmt, 3, src);
		grove_item it;
		get_item(p, 0, &it);
		assert_int_equal(it.type, t);
		for (size_t j = 0; j < 3; j++)
			assert_true(get_elem(t, it.data, j) == v[j]);
		unref_all(in, 3);
		flt_out_fini(&out);
	}
}

static void
test_concat_arrays(void **st)
{
	double a[] = {1.5, 2.5}, c[] = {7};
	grove_packet *in[3] = {
		mk(1, "%alf", a, (uint64_t)2),
		mk(4, "%alf", a, (uint64_t)0),
		mk(3, "%alf", c, (uint64_t)1),
	};
	flt_out out;
	flt_out_init(&out);
	assert_int_equal(run(st, "concat", in, 3, &out), 0);
	grove_packet *p = only_up(&out);
	static const uint32_t ranks[] = {1, 1, 3};
	check_cat(p, "%alf %aud", 3, ranks);
	const double *v;
	const uint32_t *r;
	uint64_t nv, nr;
	assert_int_equal(grove_packet_unpack(p, "%alf %aud", &v, &nv, &r,
	    &nr), 0);
	assert_int_equal(nv, 3);
	assert_true(v[0] == 1.5 && v[1] == 2.5 && v[2] == 7);
	unref_all(in, 3);
	flt_out_fini(&out);
}

static void
test_concat_strings(void **st)
{
	const char *sa[] = {"de", "", "fgh"};
	grove_packet *in[3] = {
		mk(10, "%s", "abc"),
		mk(11, "%as", sa, (uint64_t)3),
		mk(12, "%s", ""),
	};
	flt_out out;
	flt_out_init(&out);
	/* mixed %s and %as in one wave */
	assert_int_equal(run(st, "concat", in, 3, &out), 0);
	grove_packet *p = only_up(&out);
	static const uint32_t ranks[] = {10, 11, 11, 11, 12};
	check_cat(p, "%as %aud", 5, ranks);
	const char *const *s;
	const uint32_t *r;
	uint64_t ns, nr;
	assert_int_equal(grove_packet_unpack(p, "%as %aud", &s, &ns, &r, &nr),
	    0);
	assert_int_equal(ns, 5);
	assert_string_equal(s[0], "abc");
	assert_string_equal(s[1], "de");
	assert_string_equal(s[2], "");
	assert_string_equal(s[3], "fgh");
	assert_string_equal(s[4], "");

	/* a second level: the result concatenated with another leaf */
	grove_packet *lvl2[2] = {grove_packet_ref(p), mk(3, "%s", "z")};
	flt_out out2;
	flt_out_init(&out2);
	assert_int_equal(run(st, "concat", lvl2, 2, &out2), 0);
	static const uint32_t ranks2[] = {10, 11, 11, 11, 12, 3};
	grove_packet *q = only_up(&out2);
	check_cat(q, "%as %aud", 6, ranks2);
	assert_int_equal(grove_packet_unpack(q, "%as %aud", &s, &ns, &r, &nr),
	    0);
	assert_string_equal(s[0], "abc");
	assert_string_equal(s[5], "z");
	unref_all(lvl2, 2);
	unref_all(in, 3);
	flt_out_fini(&out);
	flt_out_fini(&out2);
}

/* A CP gets raw BE packets from some children and concatenated results
 * from others: all three shapes in one wave. */
static void
test_concat_mixed_shapes(void **st)
{
	int32_t a[] = {2, 3}, b[] = {4, 5};
	uint32_t br[] = {11, 12};
	grove_packet *in[3] = {
		mk(8, "%d", 1),
		mk(6, "%ad", a, (uint64_t)2),
		mk(77, "%ad %aud", b, (uint64_t)2, br, (uint64_t)2),
	};
	flt_out out;
	flt_out_init(&out);
	assert_int_equal(run(st, "concat", in, 3, &out), 0);
	grove_packet *p = only_up(&out);
	static const uint32_t ranks[] = {8, 6, 6, 11, 12};
	check_cat(p, "%ad %aud", 5, ranks);
	const int32_t *v;
	const uint32_t *r;
	uint64_t nv, nr;
	assert_int_equal(grove_packet_unpack(p, "%ad %aud", &v, &nv, &r, &nr),
	    0);
	for (int i = 0; i < 5; i++)
		assert_int_equal(v[i], i + 1);
	unref_all(in, 3);
	flt_out_fini(&out);

	/* "%aud %aud" is a concatenated uint32 result, not two arrays */
	uint32_t u[] = {40, 41}, ur[] = {1, 2};
	grove_packet *in2[2] = {
		mk(3, "%aud %aud", u, (uint64_t)2, ur, (uint64_t)2),
		mk(4, "%ud", 42u),
	};
	flt_out_init(&out);
	assert_int_equal(run(st, "concat", in2, 2, &out), 0);
	static const uint32_t ranks2[] = {1, 2, 4};
	check_cat(only_up(&out), "%aud %aud", 3, ranks2);
	unref_all(in2, 2);
	flt_out_fini(&out);
}

static void
test_concat_bad(void **st)
{
	int32_t a[] = {1, 2};
	uint32_t r1[] = {1};
	grove_packet *in[2];

	in[0] = mk(0, "%d", 1);             /* mixed element types */
	in[1] = mk(1, "%ud", 1u);
	expect_eformat(st, "concat", in, 2);
	unref_all(in, 2);

	in[0] = mk(0, "%s", "a");
	in[1] = mk(1, "%d", 1);
	expect_eformat(st, "concat", in, 2);
	unref_all(in, 2);

	in[0] = mk(0, "%ad %aud", a, (uint64_t)2, r1, (uint64_t)1);
	expect_eformat(st, "concat", in, 1); /* ranks count differs */
	grove_packet_unref(in[0]);

	in[0] = mk(0, "%ad %ad", a, (uint64_t)2, a, (uint64_t)2);
	expect_eformat(st, "concat", in, 1); /* ranks not %aud */
	grove_packet_unref(in[0]);

	in[0] = mk(0, "%d %ud", 1, 2u);     /* scalars are not a result */
	expect_eformat(st, "concat", in, 1);
	grove_packet_unref(in[0]);

	in[0] = mk(0, "%d %d %d", 1, 2, 3);
	expect_eformat(st, "concat", in, 1);
	grove_packet_unref(in[0]);
}

/* ---- null ----------------------------------------------------------------- */

static void
test_null_passes_through(void **st)
{
	grove_packet *in[3] = {mk(1, "%d", 1), mk(2, "%s", "x"),
	    mk(3, "%lf", 2.0)};
	flt_out out;
	flt_out_init(&out);
	assert_int_equal(run(st, "null", in, 3, &out), 0);
	assert_int_equal(out.n_up, 3);
	for (int i = 0; i < 3; i++) {
		assert_ptr_equal(out.up[i], in[i]); /* same packet, no copy */
		assert_int_equal(grove_packet_src(out.up[i]), i + 1);
	}
	unref_all(in, 3);
	/* out holds its own references */
	assert_string_equal(grove_packet_format(out.up[1]), "%s");
	flt_out_fini(&out);
}

/* ---- the filter ABI ------------------------------------------------------ */

/* Emits a packet made with the plain packet API (other stream and tag), a
 * packet made with grove_filter_pack, and one reverse packet. */
static int
abi_filter(grove_filter_call *call)
{
	grove_packet *p;
	int rc = grove_packet_pack(&p, 0, 0, "%d", 42);
	if (rc < 0)
		return rc;
	if ((rc = grove_filter_emit(call, p)) < 0)
		return rc;
	if ((rc = grove_filter_pack(call, &p, "%s", "up")) < 0)
		return rc;
	if ((rc = grove_filter_emit(call, p)) < 0)
		return rc;
	if ((rc = grove_filter_pack(call, &p, "%ud", (uint32_t)call->n_in)) <
	    0)
		return rc;
	if ((rc = grove_filter_emit_reverse(call, p)) < 0)
		return rc;
	/* the call carries what flt_run was given */
	if (call->abi != GROVE_FILTER_ABI || call->stream_id != STREAM ||
	    call->place != &place || call->in_child[1] != 1)
		return GROVE_EINVAL;
	return 0;
}

static int
failing_filter(grove_filter_call *call)
{
	grove_packet *p;
	int rc = grove_filter_pack(call, &p, "%d", 1);
	if (rc == 0)
		grove_filter_emit(call, p);
	return GROVE_EFILTER;
}

static void
test_emit_and_pack(void **st)
{
	flt_def f = {.name = "abi", .fn = abi_filter};
	grove_packet *in[2] = {mk(0, "%d", 1), mk(1, "%d", 2)};
	flt_out out;
	flt_out_init(&out);
	void *state = NULL;
	assert_int_equal(run_def(&f, in, 2, &state, &out), 0);
	assert_int_equal(out.n_up, 2);
	assert_int_equal(out.n_down, 1);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(grove_packet_stream(out.up[i]), STREAM);
		assert_int_equal(grove_packet_tag(out.up[i]), TAG);
	}
	int32_t d;
	assert_int_equal(grove_packet_unpack(out.up[0], "%d", &d), 0);
	assert_int_equal(d, 42);
	assert_int_equal(grove_packet_src(out.up[1]), MYRANK);
	uint32_t n;
	assert_int_equal(grove_packet_unpack(out.down[0], "%ud", &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(grove_packet_stream(out.down[0]), STREAM);

	/* reset keeps the arrays for the next wave */
	flt_out_reset(&out);
	assert_int_equal(out.n_up, 0);
	assert_int_equal(out.n_down, 0);
	assert_non_null(out.up);

	/* a failing filter's result is returned; what it emitted stays in
	 * out for the caller to drop */
	flt_def g = {.name = "fail", .fn = failing_filter};
	assert_int_equal(run_def(&g, in, 2, &state, &out), GROVE_EFILTER);
	assert_int_equal(out.n_up, 1);
	flt_out_fini(&out);
	unref_all(in, 2);

	/* the helpers refuse a call that is not from flt_run */
	grove_filter_call bogus = {.abi = GROVE_FILTER_ABI};
	grove_packet *p;
	assert_int_equal(grove_packet_pack(&p, 1, 1, "%d", 1), 0);
	assert_int_equal(grove_filter_emit(&bogus, p), GROVE_EINVAL);
	assert_int_equal(grove_filter_emit(NULL, NULL), GROVE_EINVAL);
	assert_int_equal(grove_filter_pack(&bogus, &p, "%d", 1), GROVE_EINVAL);
	assert_int_equal(flt_run(NULL, 0, 0, 0, NULL, NULL, 0, NULL, NULL,
	    NULL, &out), GROVE_EINVAL);
}

/* ---- custom filters --------------------------------------------------- */

static void
module_path(char *buf, size_t cap)
{
	int n = snprintf(buf, cap, "%s/filter_intmaxloc.so", build_dir);
	assert_true(n > 0 && (size_t)n < cap);
	if (access(buf, R_OK) != 0)
		fail_msg("example filter module not built: %s", buf);
}

static void
test_load_custom(void **st)
{
	char path[PATH_MAX + 32], err[512];
	module_path(path, sizeof path);
	assert_int_equal(flt_load(*st, "intmaxloc", path, "intmaxloc", err,
	    sizeof err), 0);
	const flt_def *f = flt_lookup(*st, "intmaxloc");
	assert_non_null(f);
	assert_non_null(f->dl_handle);
	assert_non_null(f->state_free);
	assert_string_equal(f->path, path);
	assert_string_equal(f->symbol, "intmaxloc");

	/* the same definition again is fine, a different one is not */
	assert_int_equal(flt_load(*st, "intmaxloc", path, "intmaxloc", err,
	    sizeof err), 0);
	assert_int_equal(flt_load(*st, "intmaxloc", path,
	    "intmaxloc_state_free", err, sizeof err), GROVE_EINVAL);
	assert_non_null(strstr(err, "intmaxloc"));
	/* built-in names are taken */
	assert_int_equal(flt_load(*st, "sum", path, "intmaxloc", err,
	    sizeof err), GROVE_EINVAL);
	assert_non_null(strstr(err, "built-in"));

	/* BE packets "%d" and a CP result "%d %ud" in one wave; the tie on 9
	 * goes to the lowest rank */
	grove_packet *in[4] = {
		mk(3, "%d", 5),
		mk(4, "%d", 9),
		mk(50, "%d %ud", 9, 2u),
		mk(1, "%d", -4),
	};
	flt_out out;
	flt_out_init(&out);
	void *state = NULL;
	assert_int_equal(run_def(f, in, 4, &state, &out), 0);
	int32_t v;
	uint32_t rank;
	assert_int_equal(grove_packet_unpack(only_up(&out), "%d %ud", &v,
	    &rank), 0);
	assert_int_equal(v, 9);
	assert_int_equal(rank, 2);
	assert_non_null(state);
	assert_int_equal(*(uint64_t *)state, 1);
	flt_out_reset(&out);

	assert_int_equal(run_def(f, in, 2, &state, &out), 0);
	assert_int_equal(grove_packet_unpack(only_up(&out), "%d %ud", &v,
	    &rank), 0);
	assert_int_equal(v, 9);
	assert_int_equal(rank, 4);
	assert_int_equal(*(uint64_t *)state, 2);
	flt_out_reset(&out);

	grove_packet *bad = mk(0, "%lf", 1.0);
	assert_int_equal(run_def(f, &bad, 1, &state, &out), GROVE_EFORMAT);
	grove_packet_unref(bad);
	flt_state_free(f, state);
	flt_state_free(f, NULL);

	/* definitions stay put while more filters are loaded */
	char name[32];
	for (int i = 0; i < 40; i++) {
		snprintf(name, sizeof name, "copy%d", i);
		assert_int_equal(flt_load(*st, name, path, "intmaxloc", err,
		    sizeof err), 0);
	}
	assert_ptr_equal(flt_lookup(*st, "intmaxloc"), f);
	assert_string_equal(f->name, "intmaxloc");
	assert_non_null(flt_lookup(*st, "copy39"));

	unref_all(in, 4);
	flt_out_fini(&out);
}

static void
test_load_errors(void **st)
{
	char path[PATH_MAX + 32], missing[PATH_MAX + 32], err[512];
	module_path(path, sizeof path);
	snprintf(missing, sizeof missing, "%s/no_such_filter.so", build_dir);

	int rc = flt_load(*st, "x", missing, "intmaxloc", err, sizeof err);
	assert_int_equal(rc, GROVE_EFILTER);
	assert_non_null(strstr(err, missing));
	assert_null(flt_lookup(*st, "x"));

	rc = flt_load(*st, "y", path, "no_such_symbol", err, sizeof err);
	assert_int_equal(rc, GROVE_EFILTER);
	assert_non_null(strstr(err, "no_such_symbol"));
	assert_non_null(strstr(err, path));
	assert_null(flt_lookup(*st, "y"));

	assert_int_equal(flt_load(*st, "", path, "intmaxloc", err, sizeof err),
	    GROVE_EINVAL);
	assert_int_equal(flt_load(*st, "z", path, "", err, sizeof err),
	    GROVE_EINVAL);
	assert_int_equal(flt_load(*st, "z", NULL, "intmaxloc", err,
	    sizeof err), GROVE_EINVAL);
	char longname[100];
	memset(longname, 'n', sizeof longname - 1);
	longname[sizeof longname - 1] = '\0';
	assert_int_equal(flt_load(*st, longname, path, "intmaxloc", err,
	    sizeof err), GROVE_EINVAL);
	/* no error buffer is fine too */
	assert_int_equal(flt_load(*st, "x", missing, "intmaxloc", NULL, 0),
	    GROVE_EFILTER);
}

int
main(int argc, char **argv)
{
	(void)argc;
	/* Test programs are built in the build directory, next to the
	 * example filter module. */
	char self[PATH_MAX];
	if (!realpath(argv[0], self)) {
		ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
		if (n < 0)
			n = 0;
		self[n] = '\0';
	}
	char *slash = strrchr(self, '/');
	if (slash)
		*slash = '\0';
	else
		snprintf(self, sizeof self, ".");
	snprintf(build_dir, sizeof build_dir, "%s", self);

	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_builtins_registered, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_reduce_all_types, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_sum_single_input, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_empty_wave, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_sum_wraps, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_minmax_extremes, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_sum_multi_item, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_reduce_bad_formats, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_avg_two_levels_all_types,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_avg_rounding_and_limits,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_avg_bad_shapes, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_concat_scalars_all_types,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_concat_arrays, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_concat_strings, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_concat_mixed_shapes, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_concat_bad, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_null_passes_through, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_emit_and_pack, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_load_custom, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_load_errors, setup,
		    teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

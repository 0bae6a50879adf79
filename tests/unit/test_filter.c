/* Transformation filters, arithmetic: the registry of built-ins, sum, min
 * and max on every numeric type (scalars, arrays, wrap-around, extremes,
 * several items), format checks, and averages over two levels.
 */
#include "filter_fixture.h"

/* ---- registry ------------------------------------------------------- */

static void
test_builtins_registered(void **st)
{
	static const char *names[] = {"null", "sum", "min", "max", "avg",
	    "concat", "timealign", "equiv", "report"};
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
	    "concat", "timealign", "equiv", "report"};
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

int
main(void)
{
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
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

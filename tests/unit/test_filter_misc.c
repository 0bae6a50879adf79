/* Transformation filters, the rest: concat with ranks (scalars, arrays,
 * strings, mixed shapes), null, the emit/pack ABI, and loading the example
 * custom filter (filter_intmaxloc.so, built next to this test program).
 */
#include "filter_fixture.h"

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

/* grove_packet_pack with the wave's own stream and tag: nothing to
 * re-address, but the source must still become this node's. */
static int
pack_same_filter(grove_filter_call *call)
{
	grove_packet *p;
	int rc = grove_packet_pack(&p, call->stream_id, TAG, "%d", 7);
	return rc < 0 ? rc : grove_filter_emit(call, p);
}

/* A downstream filter has no reverse direction: emit_reverse refuses,
 * instead of the packet vanishing. */
static int
reverse_filter(grove_filter_call *call)
{
	grove_packet *p;
	int rc = grove_filter_pack(call, &p, "%d", 1);
	return rc < 0 ? rc : grove_filter_emit_reverse(call, p);
}

static void
test_sources_and_directions(void **st)
{
	(void)st;
	flt_out out;
	flt_out_init(&out);
	void *state = NULL;
	grove_packet *in[1] = {mk(0, "%d", 1)};
	flt_def f = {.name = "same", .fn = pack_same_filter};
	assert_int_equal(run_def(&f, in, 1, &state, &out), 0);
	assert_int_equal(out.n_up, 1);
	assert_int_equal(grove_packet_src(out.up[0]), MYRANK);
	flt_out_reset(&out);
	assert_int_equal(flt_run_down(&f, STREAM, TAG, MYRANK, in[0], NULL,
	    &state, &place, &out), 0);
	assert_int_equal(out.n_up, 1);
	assert_int_equal(grove_packet_src(out.up[0]), MYRANK);
	flt_out_reset(&out);
	flt_def r = {.name = "rev", .fn = reverse_filter};
	assert_int_equal(run_def(&r, in, 1, &state, &out), 0);
	assert_int_equal(out.n_down, 1);
	flt_out_reset(&out);
	assert_int_equal(flt_run_down(&r, STREAM, TAG, MYRANK, in[0], NULL,
	    &state, &place, &out), GROVE_EINVAL);
	assert_int_equal(out.n_down, 0);
	flt_out_fini(&out);
	unref_all(in, 1);
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
	/* Built here, either way: this node's rank, not 0 (back-end 0's). */
	assert_int_equal(grove_packet_src(out.up[0]), MYRANK);
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
	assert_int_equal(flt_load(*st, "intmaxloc", path, "intmaxloc", 0, err,
	    sizeof err), 0);
	const flt_def *f = flt_lookup(*st, "intmaxloc");
	assert_non_null(f);
	assert_non_null(f->dl_handle);
	assert_non_null(f->state_free);
	assert_string_equal(f->path, path);
	assert_string_equal(f->symbol, "intmaxloc");

	/* the same definition again is fine, a different one is not */
	assert_int_equal(flt_load(*st, "intmaxloc", path, "intmaxloc", 0, err,
	    sizeof err), 0);
	assert_int_equal(flt_load(*st, "intmaxloc", path,
	    "intmaxloc_state_free", 0, err, sizeof err), GROVE_EINVAL);
	assert_non_null(strstr(err, "intmaxloc"));
	/* built-in names are taken */
	assert_int_equal(flt_load(*st, "sum", path, "intmaxloc", 0, err,
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
		assert_int_equal(flt_load(*st, name, path, "intmaxloc", 0, err,
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

	int rc = flt_load(*st, "x", missing, "intmaxloc", 0, err, sizeof err);
	assert_int_equal(rc, GROVE_EFILTER);
	assert_non_null(strstr(err, missing));
	assert_null(flt_lookup(*st, "x"));

	rc = flt_load(*st, "y", path, "no_such_symbol", 0, err, sizeof err);
	assert_int_equal(rc, GROVE_EFILTER);
	assert_non_null(strstr(err, "no_such_symbol"));
	assert_non_null(strstr(err, path));
	assert_null(flt_lookup(*st, "y"));

	assert_int_equal(flt_load(*st, "", path, "intmaxloc", 0, err, sizeof err),
	    GROVE_EINVAL);
	assert_int_equal(flt_load(*st, "z", path, "", 0, err, sizeof err),
	    GROVE_EINVAL);
	assert_int_equal(flt_load(*st, "z", NULL, "intmaxloc", 0, err,
	    sizeof err), GROVE_EINVAL);
	char longname[100];
	memset(longname, 'n', sizeof longname - 1);
	longname[sizeof longname - 1] = '\0';
	assert_int_equal(flt_load(*st, longname, path, "intmaxloc", 0, err,
	    sizeof err), GROVE_EINVAL);
	/* no error buffer is fine too */
	assert_int_equal(flt_load(*st, "x", missing, "intmaxloc", 0, NULL, 0),
	    GROVE_EFILTER);
}

/* Undoing a load removes only what that load (origin) registered. */
static void
test_unload(void **st)
{
	char path[PATH_MAX + 32], err[512];
	module_path(path, sizeof path);
	assert_int_equal(flt_load(*st, "m", path, "intmaxloc", 7, err,
	    sizeof err), 0);
	/* The same definition again: the first origin stays. */
	assert_int_equal(flt_load(*st, "m", path, "intmaxloc", 8, err,
	    sizeof err), 0);
	assert_int_equal(flt_lookup(*st, "m")->origin, 7);
	assert_int_equal(flt_unload(*st, "m", 8), 0);
	assert_non_null(flt_lookup(*st, "m"));
	/* Built-ins and absent names stay as they are. */
	assert_int_equal(flt_unload(*st, "sum", 0), 0);
	assert_non_null(flt_lookup(*st, "sum"));
	assert_int_equal(flt_unload(*st, "absent", 7), 0);
	assert_int_equal(flt_unload(NULL, "m", 7), 0);

	assert_int_equal(flt_load(*st, "other", path, "intmaxloc", 9, err,
	    sizeof err), 0);
	assert_int_equal(flt_unload(*st, "m", 7), 1);
	assert_null(flt_lookup(*st, "m"));
	assert_non_null(flt_lookup(*st, "other"));
	assert_non_null(flt_lookup(*st, "max"));
	/* The name is free: another definition may take it. */
	assert_int_equal(flt_load(*st, "m", path, "intmaxloc_state_free", 10,
	    err, sizeof err), 0);
	assert_string_equal(flt_lookup(*st, "m")->symbol,
	    "intmaxloc_state_free");
}

int
main(int argc, char **argv)
{
	(void)argc;
	find_build_dir(argv[0]);

	const struct CMUnitTest tests[] = {
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
		cmocka_unit_test_setup_teardown(test_sources_and_directions, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_emit_and_pack, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_load_custom, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_unload, setup, teardown),
		cmocka_unit_test_setup_teardown(test_load_errors, setup,
		    teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* The "timealign" filter (over the core of test_timealign.c): two levels
 * of nodes, whole waves, bad input alone and within a wave, and the
 * values-per-sample parameter.
 */
#include "filter_fixture.h"
#include "filter/timealign_core.h"
#include "grove/aggregate.h"

static grove_packet *
mk_sample(uint32_t src, uint64_t a, uint64_t b, const double *v, uint64_t m)
{
	return mk(src, GROVE_TIMEALIGN_SAMPLE_FMT, a, b, v, m);
}

/* Run the timealign filter with persistent state on one packet from
 * child. */
static int
ta_run1(const flt_def *f, grove_packet *p, uint32_t child,
    const grove_packet *params, void **state, flt_out *out)
{
	int rc = flt_run(f, STREAM, TAG, MYRANK, &p, &child, 1, params, state,
	    &place, out);
	grove_packet_unref(p);
	return rc;
}

static void
test_filter_two_levels(void **st)
{
	const flt_def *f = flt_lookup(*st, "timealign");
	assert_non_null(f);
	assert_non_null(f->state_free);
	grove_packet *params = mk(0, GROVE_TIMEALIGN_PARAMS_FMT,
	    (uint64_t)100, (uint32_t)2);
	/* Two CPs with four back-ends each (place: 4 children; the other
	 * two stay silent and are given up on after 2 * max_lag). */
	void *cp_state[2] = {NULL, NULL}, *fe_state = NULL;
	flt_out cp_out, fe_out;
	flt_out_init(&cp_out);
	flt_out_init(&fe_out);
	double total = 0;
	size_t fe_intervals = 0;
	double fe_total = 0;
	for (uint64_t step = 0; step < 20; step++) {
		for (uint32_t cp = 0; cp < 2; cp++) {
			for (uint32_t c = 0; c < 4; c++) {
				uint32_t rank = cp * 4 + c;
				/* Staggered: rank r samples [step*70 + r, ...) */
				uint64_t a = step == 0 ? 0 : step * 70 + rank;
				uint64_t b = (step + 1) * 70 + rank;
				double v = (double)(rank + 1) * (double)(b - a);
				total += v;
				assert_int_equal(ta_run1(f, mk_sample(rank, a, b,
				    &v, 1), c, params, &cp_state[cp], &cp_out), 0);
			}
			for (size_t i = 0; i < cp_out.n_up; i++)
				assert_int_equal(ta_run1(f,
				    grove_packet_ref(cp_out.up[i]), cp, params,
				    &fe_state, &fe_out), 0);
			flt_out_reset(&cp_out);
			for (size_t i = 0; i < fe_out.n_up; i++) {
				grove_timealign_interval t;
				assert_int_equal(grove_timealign_decode(fe_out.up[i],
				    &t), 0);
				assert_int_equal(grove_packet_src(fe_out.up[i]),
				    MYRANK);
				assert_int_equal(t.m, 1);
				assert_int_equal(t.end_ns - t.start_ns, 100);
				assert_int_equal(t.count, 8);
				/* Rank r accumulates (r + 1) per ns. */
				assert_true(fabs(t.sum[0] - 36 * 100.0) < 1e-6);
				assert_int_equal(t.min_rank[0], 0);
				assert_true(fabs(t.min[0] - 100.0) < 1e-9);
				assert_int_equal(t.max_rank[0], 7);
				assert_true(fabs(t.max[0] - 800.0) < 1e-9);
				fe_total += t.sum[0];
				fe_intervals++;
			}
			flt_out_reset(&fe_out);
		}
	}
	/* Everything up to 20 * 70 = 1400 (the slowest rank's end) but the
	 * last partial interval came through. */
	assert_int_equal(fe_intervals, 14);
	assert_true(fe_total < total);
	assert_true(fabs(fe_total - 36 * 1400.0) < 1e-6);
	flt_state_free(f, cp_state[0]);
	flt_state_free(f, cp_state[1]);
	flt_state_free(f, fe_state);
	flt_out_fini(&cp_out);
	flt_out_fini(&fe_out);
	grove_packet_unref(params);
}

/* Under wait_for_all a wave holds one packet per child: the same result as
 * one packet at a time. */
static void
test_filter_whole_waves(void **st)
{
	const flt_def *f = flt_lookup(*st, "timealign");
	grove_packet *params = mk(0, GROVE_TIMEALIGN_PARAMS_FMT,
	    (uint64_t)10, (uint32_t)4);
	void *state = NULL;
	flt_out out;
	flt_out_init(&out);
	size_t got = 0;
	for (uint64_t step = 0; step < 5; step++) {
		grove_packet *in[4];
		uint32_t child[4];
		for (uint32_t c = 0; c < 4; c++) {
			double v = 10.0 * (c + 1);
			in[c] = mk_sample(c, step * 10 + (step ? c : 0),
			    step * 10 + 10 + c, &v, 1);
			child[c] = c;
		}
		assert_int_equal(flt_run(f, STREAM, TAG, MYRANK, in, child, 4,
		    params, &state, &place, &out), 0);
		unref_all(in, 4);
		for (size_t i = 0; i < out.n_up; i++) {
			grove_timealign_interval t;
			assert_int_equal(grove_timealign_decode(out.up[i], &t), 0);
			assert_int_equal(t.start_ns, 10 * got);
			assert_int_equal(t.count, 4);
			got++;
		}
		flt_out_reset(&out);
	}
	/* Child 0 covers up to 50, the others beyond: 0..4 are done. */
	assert_int_equal(got, 5);
	flt_state_free(f, state);
	flt_out_fini(&out);
	grove_packet_unref(params);
}

static void
expect_rc(const flt_def *f, grove_packet *p, const grove_packet *params,
    void **state, int want)
{
	flt_out out;
	flt_out_init(&out);
	int rc = ta_run1(f, p, 0, params, state, &out);
	if (rc != want)
		fail_msg("got %s, want %s", grove_err_name(rc),
		    grove_err_name(want));
	flt_out_fini(&out);
}

static void
test_filter_bad_input(void **st)
{
	const flt_def *f = flt_lookup(*st, "timealign");
	void *state = NULL;
	double v[2] = {1, 2};
	uint32_t r[2] = {0, 1};
	/* Intervals come from a node below: a rank above the back-ends'. */
	const uint32_t cp = place.n_backends + 1;
	expect_rc(f, mk(0, "%d", 5), NULL, &state, GROVE_EFORMAT);
	expect_rc(f, mk(0, "%uld %uld %lf", (uint64_t)0, (uint64_t)10, 1.0),
	    NULL, &state, GROVE_EFORMAT);
	expect_rc(f, mk_sample(0, 10, 10, v, 1), NULL, &state, GROVE_EINVAL);
	expect_rc(f, mk_sample(0, 0, 10, v, 1), NULL, &state, 0);
	expect_rc(f, mk_sample(0, 10, 20, v, 1), NULL, &state, 0);
	/* M differs from the stream's first two samples. */
	expect_rc(f, mk_sample(0, 20, 30, v, 2), NULL, &state, GROVE_EFORMAT);
	/* Amounts that are not numbers. */
	double nan2[2] = {NAN, 1}, inf2[2] = {1, -INFINITY};
	expect_rc(f, mk_sample(0, 20, 30, nan2, 1), NULL, &state,
	    GROVE_EINVAL);
	expect_rc(f, mk(cp, GROVE_TIMEALIGN_FMT, (uint64_t)0,
	    (uint64_t)1000000000, (uint32_t)1, v, (uint64_t)1, &inf2[1],
	    (uint64_t)1, r, (uint64_t)1, v, (uint64_t)1, r, (uint64_t)1), NULL,
	    &state, GROVE_EINVAL);
	/* Aggregated: arrays of different lengths, off the grid. */
	expect_rc(f, mk(cp, GROVE_TIMEALIGN_FMT, (uint64_t)0,
	    (uint64_t)1000000000, (uint32_t)1, v, (uint64_t)1, v, (uint64_t)2,
	    r, (uint64_t)1, v, (uint64_t)1, r, (uint64_t)1), NULL, &state,
	    GROVE_EFORMAT);
	expect_rc(f, mk(cp, GROVE_TIMEALIGN_FMT, (uint64_t)7,
	    (uint64_t)1000000007, (uint32_t)1, v, (uint64_t)1, v, (uint64_t)1,
	    r, (uint64_t)1, v, (uint64_t)1, r, (uint64_t)1), NULL, &state,
	    GROVE_EINVAL);
	/* An interval from a back-end speaks for ranks it is not. */
	expect_rc(f, mk(3, GROVE_TIMEALIGN_FMT, (uint64_t)0,
	    (uint64_t)1000000000, (uint32_t)1000, v, (uint64_t)1, v,
	    (uint64_t)1, r, (uint64_t)1, v, (uint64_t)1, r, (uint64_t)1), NULL,
	    &state, GROVE_EFORMAT);
	expect_rc(f, mk(cp, GROVE_TIMEALIGN_FMT, (uint64_t)0,
	    (uint64_t)1000000000, (uint32_t)2, v, (uint64_t)1, v,
	    (uint64_t)1, r, (uint64_t)1, v, (uint64_t)1, r, (uint64_t)1), NULL,
	    &state, 0);
	/* Parameters: wrong format, zero width, another width later. */
	grove_packet *bad = mk(0, "%d", 1);
	expect_rc(f, mk_sample(0, 10, 20, v, 1), bad, &state, GROVE_EFORMAT);
	grove_packet_unref(bad);
	bad = mk(0, GROVE_TIMEALIGN_PARAMS_FMT, (uint64_t)0, (uint32_t)1);
	expect_rc(f, mk_sample(0, 10, 20, v, 1), bad, &state, GROVE_EINVAL);
	grove_packet_unref(bad);
	bad = mk(0, GROVE_TIMEALIGN_PARAMS_FMT, (uint64_t)5, (uint32_t)1);
	expect_rc(f, mk_sample(0, 10, 20, v, 1), bad, &state, GROVE_EINVAL);
	grove_packet_unref(bad);
	flt_state_free(f, state);

	/* The decoder on its own. */
	grove_timealign_interval t;
	grove_packet *p = mk(0, "%uld", (uint64_t)1);
	assert_int_equal(grove_timealign_decode(p, &t), GROVE_EFORMAT);
	grove_packet_unref(p);
	p = mk(0, GROVE_TIMEALIGN_FMT, (uint64_t)5, (uint64_t)5, (uint32_t)1,
	    v, (uint64_t)1, v, (uint64_t)1, r, (uint64_t)1, v, (uint64_t)1, r,
	    (uint64_t)1);
	assert_int_equal(grove_timealign_decode(p, &t), GROVE_EINVAL);
	grove_packet_unref(p);
	assert_int_equal(grove_timealign_decode(NULL, &t), GROVE_EINVAL);
}

/* Under dont_wait a wave holds whatever arrived: a bad sample in it is
 * refused on its own, the good ones beside it are kept. */
static void
test_filter_bad_input_in_wave(void **st)
{
	const flt_def *f = flt_lookup(*st, "timealign");
	grove_packet *params = mk(0, GROVE_TIMEALIGN_PARAMS_FMT,
	    (uint64_t)10, (uint32_t)4);
	grove_filter_place three = place;
	three.n_children = 3;
	void *state = NULL;
	flt_out out;
	flt_out_init(&out);
	size_t got = 0;
	for (uint64_t step = 0; step < 6; step++) {
		grove_packet *in[3];
		uint32_t child[3] = {0, 1, 2};
		for (uint32_t c = 0; c < 3; c++) {
			double v = 1;
			uint64_t a = step * 10;
			/* child 1's sample of step 2 is bad (end <= start) */
			in[c] = mk_sample(c, a, c == 1 && step == 2 ? a : a + 10,
			    &v, 1);
		}
		assert_int_equal(flt_run(f, STREAM, TAG, MYRANK, in, child, 3,
		    params, &state, &three, &out), 0);
		unref_all(in, 3);
		for (size_t i = 0; i < out.n_up; i++) {
			grove_timealign_interval t;
			assert_int_equal(grove_timealign_decode(out.up[i], &t), 0);
			assert_int_equal(t.start_ns, 10 * got);
			/* Only the bad sample's interval lacks child 1. */
			assert_int_equal(t.count, got == 2 ? 2 : 3);
			got++;
		}
		flt_out_reset(&out);
	}
	assert_int_equal(got, 6);
	/* A wave of bad input only is refused with the error. */
	double v = 1;
	expect_rc(f, mk_sample(0, 70, 70, &v, 1), params, &state,
	    GROVE_EINVAL);
	flt_state_free(f, state);
	flt_out_fini(&out);
	grove_packet_unref(params);
}

/* The filter: one back-end's malformed first sample (five values where
 * the stream has six) does not get every good sample refused; with M
 * given as a parameter, that sample is refused on its own. */
static void
test_filter_bad_first_m(void **st)
{
	const flt_def *f = flt_lookup(*st, "timealign");
	grove_filter_place three = place;
	three.n_children = 3;
	grove_packet *pm = mk(0, GROVE_TIMEALIGN_PARAMS_M_FMT, (uint64_t)10,
	    (uint32_t)4, (uint32_t)6);
	grove_packet *pw = mk(0, GROVE_TIMEALIGN_PARAMS_FMT, (uint64_t)10,
	    (uint32_t)4);
	const grove_packet *params[2] = {pw, pm};
	for (int with_m = 0; with_m < 2; with_m++) {
		void *state = NULL;
		flt_out out;
		flt_out_init(&out);
		double v[6] = {1, 1, 1, 1, 1, 1};
		uint32_t child = 2;
		grove_packet *p = mk_sample(2, 0, 10, v, 5);
		int rc = flt_run(f, STREAM, TAG, MYRANK, &p, &child, 1,
		    params[with_m], &state, &three, &out);
		grove_packet_unref(p);
		assert_int_equal(rc, with_m ? GROVE_EFORMAT : 0);
		size_t got = 0;
		for (uint64_t t = 1; t < 30; t++)
			for (uint32_t c = 0; c < 3; c++) {
				p = mk_sample(c, t * 10, t * 10 + 10, v, 6);
				assert_int_equal(flt_run(f, STREAM, TAG, MYRANK, &p,
				    &c, 1, params[with_m], &state, &three, &out),
				    0);
				grove_packet_unref(p);
				for (size_t i = 0; i < out.n_up; i++) {
					grove_timealign_interval t;
					assert_int_equal(grove_timealign_decode(
					    out.up[i], &t), 0);
					assert_int_equal(t.m, 6);
					assert_int_equal(t.count, 3);
					got++;
				}
				flt_out_reset(&out);
			}
		assert_true(got >= 28);
		/* Now fixed: another M is refused; with the parameter, so
		 * is a parameter with another M. */
		p = mk_sample(0, 300, 310, v, 5);
		child = 0;
		assert_int_equal(flt_run(f, STREAM, TAG, MYRANK, &p, &child, 1,
		    params[with_m], &state, &three, &out), GROVE_EFORMAT);
		grove_packet_unref(p);
		grove_packet *other = mk(0, GROVE_TIMEALIGN_PARAMS_M_FMT,
		    (uint64_t)10, (uint32_t)4, (uint32_t)5);
		p = mk_sample(0, 300, 310, v, 6);
		assert_int_equal(flt_run(f, STREAM, TAG, MYRANK, &p, &child, 1,
		    other, &state, &three, &out), GROVE_EINVAL);
		grove_packet_unref(p);
		grove_packet_unref(other);
		flt_state_free(f, state);
		flt_out_fini(&out);
	}
	/* A parameter M of 0 is refused. */
	grove_packet *zero = mk(0, GROVE_TIMEALIGN_PARAMS_M_FMT, (uint64_t)10,
	    (uint32_t)4, (uint32_t)0);
	void *state = NULL;
	double v = 1;
	expect_rc(f, mk_sample(0, 0, 10, &v, 1), zero, &state, GROVE_EINVAL);
	flt_state_free(f, state);
	grove_packet_unref(zero);
	grove_packet_unref(pm);
	grove_packet_unref(pw);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_filter_two_levels, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_filter_whole_waves, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_filter_bad_input_in_wave,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_filter_bad_input, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_filter_bad_first_m, setup,
		    teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

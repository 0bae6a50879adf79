/* Unit tests for the host CPU bound of the broadcast model
 * (grove_logp_system.cores): every scheme against values computed by
 * hand from flat parameters, and no change without cores or work. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "logp_fixture.h"

/* 3 clusters of 4, 1024 bytes, w = 400 us per hop, 2 cores.
 *
 * whole-nonblocking: coordinators have the message at r_w = 11000 and
 * s_w + r_w = 11005, the root's cluster starts at 2 s_w = 10; WAN done at
 * 11005.  A binomial tree of 4: the root's sends arrive at r_l = 12 and
 * s_l + r_l = 14, the second level at 12 + 12 = 24, lambda 24.  Bound: the
 * two coordinators' trees start 5 apart, so both run at once: 2 trees x
 * 3 hops x 400 / 2 cores = 1200 > 24.  T = 11005 + 1200 = 12205.
 *
 * original: blocking sends take max(s_w, g_w) = 1000, so coordinators
 * start 11000 and 12000, the root's cluster at 2000: the last tree runs
 * alone, 3 x 400 / 2 = 600.  T = 12000 + 600 = 12600. */
static void
test_whole_schemes(void **state)
{
	grove_logp_params *p = flat_params(400);

	(void)state;
	assert_true(NEAR(plan_T(p, 0, GROVE_LOGP_WHOLE_NONBLOCKING), 11029));
	assert_true(NEAR(plan_T(p, 2, GROVE_LOGP_WHOLE_NONBLOCKING), 12205));
	assert_true(NEAR(plan_T(p, 0, GROVE_LOGP_ORIGINAL), 12024));
	assert_true(NEAR(plan_T(p, 2, GROVE_LOGP_ORIGINAL), 12600));
	/* 4 cores halve the bound: 600 and 300 */
	assert_true(NEAR(plan_T(p, 4, GROVE_LOGP_WHOLE_NONBLOCKING), 11605));
	assert_true(NEAR(plan_T(p, 4, GROVE_LOGP_ORIGINAL), 12300));
	grove_logp_params_destroy(p);
}

/* The bound grows the set of trees it counts: with w = 40000 the last
 * of the original's trees (started at 12000) alone needs 3 x 40000 / 2 =
 * 60000, so it runs while the trees started at 11000 and (the root's)
 * 2000 still do: 3 trees, 180000, and no more trees to add.
 * T = 12000 + 180000. */
static void
test_overlap_fixed_point(void **state)
{
	grove_logp_params *p = flat_params(40000);

	(void)state;
	assert_true(NEAR(plan_T(p, 2, GROVE_LOGP_ORIGINAL), 192000));
	grove_logp_params_destroy(p);
}

/* optimized, k = 2, d_w = 2, d_l = 3, w = 400, 2 cores: segments of 512.
 * WAN: flat over 3, lambda_w = (d-1) s_w + r_w = 11005; LAN flat over 4:
 * lambda_l = 2 s_l + r_l = 16; gamma = max(g_w, or_w + d_w s_w + d_l s_l,
 * ...) = 1000.  Bound per segment: every one of the 11 receiving
 * processes takes it: 11 x 400 / 2 = 2200 > 1000.  First segment: the two
 * coordinators' trees start at 11000 and 11005 (the root's at 10): 2 x 3
 * x 400 / 2 = 1200.  T = 2200 + 11005 + 1200 = 14405; without cores
 * 1000 + 11005 + 16 = 12021. */
static void
test_optimized(void **state)
{
	grove_logp_params *p = flat_params(400);
	grove_logp_system sys = {3, 4, GROVE_LOGP_HOST, GROVE_LOGP_WAN, 0, 0};
	grove_logp_plan plan;
	char err[200];

	(void)state;
	assert_int_equal(grove_logp_bcast_eval(p, &sys, 1024, 1, 2, 2, 3,
	    &plan, err, sizeof err), 0);
	assert_true(NEAR(plan.T, 12021));
	sys.cores = 2;
	assert_int_equal(grove_logp_bcast_eval(p, &sys, 1024, 1, 2, 2, 3,
	    &plan, err, sizeof err), 0);
	assert_true(NEAR(plan.gamma, 2200));
	assert_true(NEAR(plan.lan.lambda, 1200));
	assert_true(NEAR(plan.T, 14405));
	grove_logp_params_destroy(p);
}

/* Without measured work, or with processes on hosts of their own, every
 * scheme predicts what it did before; with work it never predicts less. */
static void
test_no_work_no_change(void **state)
{
	grove_logp_params *none = flat_params(0), *some = flat_params(50);
	static const grove_logp_scheme all[] = {GROVE_LOGP_OPTIMIZED,
	    GROVE_LOGP_ORIGINAL, GROVE_LOGP_WHOLE_NONBLOCKING,
	    GROVE_LOGP_SEQUENTIAL};

	(void)state;
	for (unsigned i = 0; i < 4; i++) {
		double base = plan_T(none, 0, all[i]);

		assert_true(NEAR(plan_T(none, 2, all[i]), base));
		assert_true(NEAR(plan_T(some, 0, all[i]), base));
		assert_true(plan_T(some, 2, all[i]) >= base);
		assert_true(plan_T(some, 1, all[i]) >= plan_T(some, 2, all[i]));
	}
	grove_logp_params_destroy(none);
	grove_logp_params_destroy(some);
}

/* The sequential scheme: the LAN layer's trees all start together after
 * the WAN layer, 3 clusters x 3 hops x 400 / 2 cores = 1800 per segment
 * and for the first; the WAN layer's 2 hops, 400.  Whole messages (k = 1
 * is best: the bound does not shrink with the segment):
 * T_w = max(r_w + s_w = 11005, 400), T_l = max(16, 1800) = 1800. */
static void
test_sequential(void **state)
{
	grove_logp_params *p = flat_params(400);

	(void)state;
	assert_true(NEAR(plan_T(p, 2, GROVE_LOGP_SEQUENTIAL), 11005 + 1800));
	grove_logp_params_destroy(p);
}

/* sys.handoff: every forwarding process hands the message to one more
 * process of its own (a CP and its BE), 3 clusters of 4, w = 400, 2
 * cores.  Binomial trees of 4 have 2 forwarders (processes 0 and 2), so a
 * coordinator's tree makes 3 + 2 = 5 hops: whole-nonblocking 2 trees x 5
 * x 400 / 2 = 2000, T = 11005 + 2000; original, the last tree alone,
 * 5 x 400 / 2 = 1000, T = 12000 + 1000.  optimized (k = 2, d_w = 2,
 * d_l = 3): a 3-ary tree of 4 has one forwarder, so 3 x 1 - 1 = 2
 * hand-offs (the root has none): gamma = (11 + 2) x 400 / 2 = 2600, the
 * first segment's trees 2 x (3 + 1) x 400 / 2 = 1600, T = 2600 + 11005 +
 * 1600.  Without cores there is no bound to count them in. */
static void
test_handoff(void **state)
{
	grove_logp_params *p = flat_params(400);
	grove_logp_system sys = {3, 4, GROVE_LOGP_HOST, GROVE_LOGP_WAN, 2, 1};
	static const grove_logp_scheme all[] = {GROVE_LOGP_OPTIMIZED,
	    GROVE_LOGP_ORIGINAL, GROVE_LOGP_WHOLE_NONBLOCKING,
	    GROVE_LOGP_SEQUENTIAL};
	grove_logp_plan plan;
	char err[200];

	(void)state;
	assert_int_equal(grove_logp_bcast_plan(p, &sys,
	    GROVE_LOGP_WHOLE_NONBLOCKING, 1024, 1, GROVE_LOGP_HEURISTIC, &plan,
	    err, sizeof err), 0);
	assert_true(NEAR(plan.T, 13005));
	assert_int_equal(grove_logp_bcast_plan(p, &sys, GROVE_LOGP_ORIGINAL,
	    1024, 1, GROVE_LOGP_HEURISTIC, &plan, err, sizeof err), 0);
	assert_true(NEAR(plan.T, 13000));
	assert_int_equal(grove_logp_bcast_eval(p, &sys, 1024, 1, 2, 2, 3,
	    &plan, err, sizeof err), 0);
	assert_true(NEAR(plan.gamma, 2600));
	assert_true(NEAR(plan.lan.lambda, 1600));
	assert_true(NEAR(plan.T, 15205));
	/* Hand-offs only add work: never a shorter prediction. */
	for (unsigned i = 0; i < 4; i++) {
		double with, without;

		sys.handoff = 1;
		assert_int_equal(grove_logp_bcast_plan(p, &sys, all[i], 1024,
		    1, GROVE_LOGP_HEURISTIC, &plan, err, sizeof err), 0);
		with = plan.T;
		sys.handoff = 0;
		assert_int_equal(grove_logp_bcast_plan(p, &sys, all[i], 1024,
		    1, GROVE_LOGP_HEURISTIC, &plan, err, sizeof err), 0);
		without = plan.T;
		assert_true(with >= without);
		sys.cores = 0;
		sys.handoff = 1;
		assert_int_equal(grove_logp_bcast_plan(p, &sys, all[i], 1024,
		    1, GROVE_LOGP_HEURISTIC, &plan, err, sizeof err), 0);
		assert_true(NEAR(plan.T, plan_T(p, 0, all[i])));
		sys.cores = 2;
	}
	grove_logp_params_destroy(p);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_whole_schemes),
		cmocka_unit_test(test_overlap_fixed_point),
		cmocka_unit_test(test_optimized),
		cmocka_unit_test(test_no_work_no_change),
		cmocka_unit_test(test_sequential),
		cmocka_unit_test(test_handoff),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

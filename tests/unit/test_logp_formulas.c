/* Unit tests for the P-LogP formulas: s and r (section 2.1 of the
 * paper), tree heights, the flat and general tree bounds and the
 * two-layer gaps (section 3), checked against hand-computed values and
 * against the worked examples of the papers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "grove/logp.h"

/* The paper's platform, made linear: Myrinet LAN (20 us, 50 MB/s) and
 * the emulated WAN (10 ms, 1 MB/s), 1 MB = 10^6 bytes, times in us. */
static grove_logp_params *
paper_params(void)
{
	grove_logp_sample lan[2] = {
		{1, 10, 10, 20, 0},
		{1 << 20, 10 + (1 << 20) / 60.0, 10 + (1 << 20) / 60.0,
		    20 + (1 << 20) / 50.0, 0},
	};
	grove_logp_sample wan[2] = {
		{1, 30, 12, 1, 0},
		{1 << 20, 30 + (1 << 20) / 50.0, 12 + (1 << 20) / 50.0,
		    (double)(1 << 20), 0},
	};
	grove_logp_params *p = NULL;

	assert_int_equal(grove_logp_params_create(&p), 0);
	assert_int_equal(grove_logp_params_set_class(p, GROVE_LOGP_LAN, 20,
	    lan, 2, NULL, 0), 0);
	assert_int_equal(grove_logp_params_set_class(p, GROVE_LOGP_WAN,
	    10000, wan, 2, NULL, 0), 0);
	return p;
}

static void
test_s_and_r(void **state)
{
	grove_logp_params *p = paper_params();
	grove_logp_link l, w;
	double m = 1 << 20;

	(void)state;
	/* LAN: s_l = g_l, r_l = L_l + g_l. */
	assert_int_equal(grove_logp_link_single(p, GROVE_LOGP_LAN, m, &l), 0);
	assert_float_equal(l.s, 20 + m / 50, 1e-9);
	assert_float_equal(l.r, 20 + 20 + m / 50, 1e-9);
	/* WAN: s_w = max(g_l, os_w), r_w = L_w + g_w.  Here os_w and g_l
	 * are close: 30 + m/50 > 20 + m/50, so os_w wins ... */
	assert_int_equal(grove_logp_link_wide(p, GROVE_LOGP_LAN,
	    GROVE_LOGP_WAN, m, &w), 0);
	assert_float_equal(w.s, 30 + m / 50, 1e-9);
	assert_float_equal(w.r, 10000 + m, 1e-9);
	assert_float_equal(w.g, m, 1e-9);
	/* ... and for one byte g_l = 20 < os_w = 30 as well, while a slow
	 * LAN makes g_l win. */
	assert_int_equal(grove_logp_link_wide(p, GROVE_LOGP_LAN,
	    GROVE_LOGP_WAN, 1, &w), 0);
	assert_float_equal(w.s, 30, 1e-9);
	{
		grove_logp_sample slow = {1, 1, 1, 500, 0};

		assert_int_equal(grove_logp_params_set_class(p,
		    GROVE_LOGP_HOST, 1, &slow, 1, NULL, 0), 0);
		assert_int_equal(grove_logp_link_wide(p, GROVE_LOGP_HOST,
		    GROVE_LOGP_WAN, 1, &w), 0);
		assert_float_equal(w.s, 500, 1e-9);
	}
	/* Missing classes. */
	grove_logp_params_clear_class(p, GROVE_LOGP_WAN);
	assert_int_equal(grove_logp_link_wide(p, GROVE_LOGP_LAN,
	    GROVE_LOGP_WAN, 1, &w), GROVE_ENOENT);
	grove_logp_params_destroy(p);
}

/* Measured gaps below the send overhead (batched small sends): the
 * paper's s = g assumes g >= os, so s is the larger of the two, on one
 * layer and for the LAN hop of a WAN send. */
static void
test_s_gap_below_overhead(void **state)
{
	grove_logp_sample host[1] = {{1, 14, 3, 2, 0}};
	grove_logp_sample wan[1] = {{1, 5, 5, 1000, 0}};
	grove_logp_params *p = NULL;
	grove_logp_link l, w;
	double gamma, lambda;

	(void)state;
	assert_int_equal(grove_logp_params_create(&p), 0);
	assert_int_equal(grove_logp_params_set_class(p, GROVE_LOGP_HOST, 10,
	    host, 1, NULL, 0), 0);
	assert_int_equal(grove_logp_params_set_class(p, GROVE_LOGP_WAN, 100,
	    wan, 1, NULL, 0), 0);
	assert_int_equal(grove_logp_link_single(p, GROVE_LOGP_HOST, 1, &l), 0);
	assert_float_equal(l.g, 2, 1e-9);
	assert_float_equal(l.s, 14, 1e-9);
	assert_float_equal(l.r, 10 + 2, 1e-9);
	/* A flat tree over 5: the root's four sends take os each. */
	grove_logp_flat(&l, 5, &gamma, &lambda);
	assert_float_equal(lambda, 3 * 14 + 12, 1e-9);
	assert_float_equal(gamma, 4 * 14, 1e-9);
	/* s_w = max(g_l, os_l, os_w): os_l = 14 beats g_l = 2, os_w = 5. */
	assert_int_equal(grove_logp_link_wide(p, GROVE_LOGP_HOST,
	    GROVE_LOGP_WAN, 1, &w), 0);
	assert_float_equal(w.s, 14, 1e-9);
	grove_logp_params_destroy(p);
}

static void
test_min_height(void **state)
{
	(void)state;
	assert_int_equal(grove_logp_min_height(0, 3), 0);
	assert_int_equal(grove_logp_min_height(1, 3), 0);
	assert_int_equal(grove_logp_min_height(2, 1), 1);
	assert_int_equal(grove_logp_min_height(10, 1), 9); /* a chain */
	assert_int_equal(grove_logp_min_height(10, 9), 1); /* flat */
	assert_int_equal(grove_logp_min_height(11, 9), 2);
	/* 1 + 2 + 4 = 7 processes fit in height 2, 8 need 3. */
	assert_int_equal(grove_logp_min_height(7, 2), 2);
	assert_int_equal(grove_logp_min_height(8, 2), 3);
	/* 1 + 4 + 16 = 21: the MRNet paper's FE, 4 CPs and 16 BEs. */
	assert_int_equal(grove_logp_min_height(21, 4), 2);
	assert_int_equal(grove_logp_min_height(22, 4), 3);
	/* No overflow near the top of the range. */
	/* 2^(h+1) - 1 >= 2^64 - 1 */
	assert_int_equal(grove_logp_min_height(UINT64_MAX, 2), 63);
	assert_int_equal(grove_logp_min_height(UINT64_MAX, UINT32_MAX), 3);
	assert_int_equal(grove_logp_min_height(UINT32_MAX, 1), UINT32_MAX - 1);
}

static void
test_flat_tree_paper_numbers(void **state)
{
	/* MagPIe's flat WAN tree over 4 clusters, one 1 MB (10^6 bytes)
	 * segment on the paper's platform: g_w = 10^6 us (1 MB/s),
	 * s_w = 20000 us (50 MB/s into the gateway), L_w = 10 ms. */
	grove_logp_link w = {
		.L = 10000, .os = 20000, .or_ = 20000, .g = 1e6,
		.s = 20000, .r = 10000 + 1e6,
	};
	double gamma, lambda;

	(void)state;
	grove_logp_flat(&w, 4, &gamma, &lambda);
	/* gamma = max(g, (P-1) s) = max(10^6, 60000) */
	assert_float_equal(gamma, 1e6, 1e-6);
	/* lambda = (P-2) s + r = 40000 + 1010000 */
	assert_float_equal(lambda, 1050000, 1e-6);
	/* The root can keep g/s = 50 WAN links busy: with 51 clusters
	 * the root's sends and the link's gap balance exactly. */
	grove_logp_flat(&w, 51, &gamma, &lambda);
	assert_float_equal(gamma, 1e6, 1e-6);
	grove_logp_flat(&w, 52, &gamma, &lambda);
	assert_float_equal(gamma, 51 * 20000.0, 1e-6);
	/* T for k segments. */
	assert_float_equal(grove_logp_completion(4, 1e6, 1050000),
	    3e6 + 1050000, 1e-6);
	assert_float_equal(grove_logp_completion(1, 7, 5), 5, 1e-12);
	/* Degenerate sizes. */
	grove_logp_flat(&w, 1, &gamma, &lambda);
	assert_float_equal(gamma, 0, 0);
	assert_float_equal(lambda, 0, 0);
	grove_logp_flat(&w, 2, &gamma, &lambda);
	assert_float_equal(lambda, w.r, 1e-9);
}

static void
test_general_tree_mrnet_example(void **state)
{
	/* MRNet paper, section 2.6: a balanced tree of fan-out 4 from the
	 * FE to 16 BEs completes a broadcast in 8g + 4o + 2L.  In P-LogP
	 * terms (LogP with constant o and g): s = g and a transfer takes
	 * r = o + L + o + g; then lambda = h ((d-1) s + r) with d = 4,
	 * h = 2. */
	const double g = 3, o = 5, L = 70;
	grove_logp_link l = {.L = L, .os = o, .or_ = o, .g = g, .s = g,
	    .r = L + 2 * o + g};
	double gamma, lambda;

	(void)state;
	grove_logp_tree(&l, 4, grove_logp_min_height(21, 4), &gamma, &lambda);
	assert_float_equal(lambda, 8 * g + 4 * o + 2 * L, 1e-9);
	/* A new broadcast every 4g (plus the receive overhead our bound
	 * charges to inner nodes). */
	assert_float_equal(gamma, o + 4 * g, 1e-9);

	/* A hand-computed case where the network gap binds:
	 * g = 100, or = 3, s = 10, d = 3: max(100, 33) = 100;
	 * lambda for h = 4: 4 * (2 * 10 + 150) = 680. */
	l = (grove_logp_link){.L = 50, .os = 2, .or_ = 3, .g = 100, .s = 10,
	    .r = 150};
	grove_logp_tree(&l, 3, 4, &gamma, &lambda);
	assert_float_equal(gamma, 100, 1e-9);
	assert_float_equal(lambda, 680, 1e-9);
	/* The chain: d = 1. */
	grove_logp_tree(&l, 1, 9, &gamma, &lambda);
	assert_float_equal(lambda, 9 * 150, 1e-9);
	grove_logp_tree(&l, 3, 0, &gamma, &lambda);
	assert_float_equal(gamma, 0, 0);
	assert_float_equal(lambda, 0, 0);
}

/* Receive times of a binomial tree, simulated from its definition:
 * rank v's children are v + 2^j for 2^j below v's low bit (all j for
 * the root), served highest j first, each send s after the previous. */
static double
binomial_sim(const grove_logp_link *l, uint32_t P)
{
	double *t = calloc(P, sizeof *t), worst = 0;

	for (uint32_t v = 0; v < P; v++) {
		uint32_t low = v ? (v & -v) : 0x80000000u;
		unsigned i = 0;

		for (int j = 31; j >= 0; j--) {
			uint32_t mask = 1u << j;

			if (mask >= low || v + (uint64_t)mask >= P)
				continue;
			t[v + mask] = t[v] + i++ * l->s + l->r;
		}
		if (t[v] > worst)
			worst = t[v];
	}
	free(t);
	return worst;
}

static void
test_binomial_lambda(void **state)
{
	grove_logp_link l = {.L = 10, .os = 1, .or_ = 1, .g = 4, .s = 4,
	    .r = 14};
	grove_logp_link slow_s = {.L = 1, .os = 9, .or_ = 1, .g = 9, .s = 9,
	    .r = 10};

	(void)state;
	assert_float_equal(grove_logp_binomial_lambda(&l, 1), 0, 0);
	assert_float_equal(grove_logp_binomial_lambda(&l, 2), 14, 1e-9);
	/* 4 processes: two rounds of r. */
	assert_float_equal(grove_logp_binomial_lambda(&l, 4), 28, 1e-9);
	/* 3: the root's second send arrives at s + r = 18 > r. */
	assert_float_equal(grove_logp_binomial_lambda(&l, 3), 18, 1e-9);
	for (uint32_t P = 1; P <= 300; P++) {
		assert_float_equal(grove_logp_binomial_lambda(&l, P),
		    binomial_sim(&l, P), 1e-9);
		assert_float_equal(grove_logp_binomial_lambda(&slow_s, P),
		    binomial_sim(&slow_s, P), 1e-9);
	}
	assert_float_equal(grove_logp_binomial_lambda(&l, 1000),
	    binomial_sim(&l, 1000), 1e-9);
}

static void
test_pipelined_gamma(void **state)
{
	/* Hand-computed: g_w = 1000, or_w = 20, s_w = 50, s_l = 10. */
	grove_logp_link w = {.L = 10000, .os = 50, .or_ = 20, .g = 1000,
	    .s = 50, .r = 11000};
	grove_logp_link l = {.L = 20, .os = 8, .or_ = 9, .g = 10, .s = 10,
	    .r = 30};

	(void)state;
	/* 20 + 3 * 50 + 4 * 10 = 210 < 1000: the WAN gap rules. */
	assert_float_equal(grove_logp_pipelined_gamma(&w, 3, &l, 4), 1000,
	    1e-9);
	/* 20 + 10 * 50 + 60 * 10 = 1120 > 1000. */
	assert_float_equal(grove_logp_pipelined_gamma(&w, 10, &l, 60), 1120,
	    1e-9);
	/* gamma' = max(g_w - or_w - d_w s_w, s_l) = 1000 - 20 - 150 = 830:
	 * LAN trees up to 830 / 10 = 83 children fit. */
	assert_float_equal(grove_logp_gamma_prime(&w, 3, &l), 830, 1e-9);
	assert_float_equal(grove_logp_gamma_prime(&w, 30, &l), 10, 1e-9);
	/* One layer only. */
	assert_float_equal(grove_logp_pipelined_gamma(&w, 3, NULL, 0),
	    1000, 1e-9);
	assert_float_equal(grove_logp_pipelined_gamma(NULL, 0, &l, 4),
	    9 + 40, 1e-9);
	/* The LAN tree's own gap binds only when the LAN is the slow part:
	 * a LAN node receiving with or_l = 900 and forwarding 4 times,
	 * below a WAN of gap 500. */
	l.or_ = 900;
	w.g = 500;
	assert_float_equal(grove_logp_pipelined_gamma(&w, 3, &l, 4), 940,
	    1e-9);
	w.g = 2000;
	assert_float_equal(grove_logp_pipelined_gamma(&w, 3, &l, 4), 2000,
	    1e-9);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_s_and_r),
		cmocka_unit_test(test_s_gap_below_overhead),
		cmocka_unit_test(test_min_height),
		cmocka_unit_test(test_flat_tree_paper_numbers),
		cmocka_unit_test(test_general_tree_mrnet_example),
		cmocka_unit_test(test_binomial_lambda),
		cmocka_unit_test(test_pipelined_gamma),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

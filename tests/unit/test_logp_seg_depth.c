/* The P-LogP model on trees deeper than the complete tree of their
 * largest fan-out: grove_logp_bcast_eval_depth, and the automatic segment
 * size (seg_model) of a network whose topology is such a tree. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "grove/error.h"
#include "grove/logp.h"
#include "grove/topology.h"
#include "tbon/segment.h"

/* One fast local class: latency 30, os = or = 5 + m/4000, g = 10 + m/1000
 * (g >= os everywhere, so s = g). */
static grove_logp_params *
local_params(void)
{
	grove_logp_params *p = NULL;
	grove_logp_sample host[24];
	for (int i = 0; i < 24; i++) {
		double m = (double)(1ull << i);
		host[i].size = 1ull << i;
		host[i].os = host[i].or_ = 5 + m / 4000;
		host[i].g = 10 + m / 1000;
		host[i].w = 0;
	}
	assert_int_equal(grove_logp_params_create(&p), 0);
	assert_int_equal(grove_logp_params_set_class(p, GROVE_LOGP_HOST, 30,
	    host, 24, NULL, 0), 0);
	return p;
}

/* A given height replaces the minimal one in lambda; gamma does not
 * depend on it; heights no tree of that degree can have are refused. */
static void
test_eval_depth(void **state)
{
	(void)state;
	grove_logp_params *p = local_params();
	grove_logp_system sys = {1, 10, GROVE_LOGP_HOST, GROVE_LOGP_WAN, 0, 0};
	grove_logp_plan min, deep, zero;
	grove_logp_link l;
	char err[200];

	assert_int_equal(grove_logp_bcast_eval(p, &sys, 1 << 20, 1, 8, 0, 2,
	    &min, err, sizeof err), 0);
	assert_int_equal(min.lan.h, 3);
	assert_int_equal(grove_logp_bcast_eval_depth(p, &sys, 1 << 20, 1, 8,
	    0, 2, 0, 0, &zero, err, sizeof err), 0);
	assert_int_equal(zero.lan.h, 3);
	assert_float_equal(zero.T, min.T, 1e-9);
	assert_int_equal(grove_logp_bcast_eval_depth(p, &sys, 1 << 20, 1, 8,
	    0, 2, 0, 8, &deep, err, sizeof err), 0);
	assert_int_equal(deep.lan.h, 8);
	assert_int_equal(grove_logp_link_single(p, GROVE_LOGP_HOST,
	    (double)(1 << 17), &l), 0);
	assert_float_equal(deep.lan.lambda, 8 * (l.s + l.r), 1e-6);
	assert_float_equal(deep.gamma, min.gamma, 1e-9);
	assert_float_equal(deep.T, 7 * deep.gamma + deep.lan.lambda, 1e-6);
	/* Below the minimal height for degree 2, above a chain. */
	assert_int_equal(grove_logp_bcast_eval_depth(p, &sys, 1 << 20, 1, 8,
	    0, 2, 0, 2, &deep, err, sizeof err), GROVE_EINVAL);
	assert_non_null(strstr(err, "height"));
	assert_int_equal(grove_logp_bcast_eval_depth(p, &sys, 1 << 20, 1, 8,
	    0, 2, 0, 10, &deep, err, sizeof err), GROVE_EINVAL);
	grove_logp_params_destroy(p);
}

/* A chain of 9 processes as Grove maps it (each CP forwards to the next
 * CP and hands off to its own back-end: fan-out 2, depth 8).  The model
 * must see the depth, not the height 3 of a complete binary tree of the
 * same processes, and pick the segment count best for the chain. */
static void
test_seg_model_chain(void **state)
{
	(void)state;
	int32_t parent[9];
	grove_topo *t = NULL;
	char err[300];
	for (int i = 0; i < 9; i++)
		parent[i] = i - 1;
	assert_int_equal(grove_logp_tree_to_topo(parent, 9, NULL, &t, err,
	    sizeof err), 0);
	grove_logp_params *p = local_params();
	seg_model *sm = NULL;
	assert_int_equal(seg_model_new(p, t, NULL, &sm, err, sizeof err), 0);
	assert_int_equal(sm->sys.clusters, 1);
	assert_int_equal(sm->d_l, 2);
	assert_int_equal(sm->h_l, 8);

	/* The best k for the chain, over every k the search may take. */
	uint64_t n = 4u << 20, kmax = n / SEG_MIN_SIZE, best_k = 1;
	double best = 0;
	for (uint64_t k = 1; k <= kmax && k <= 4096; k++) {
		grove_logp_plan plan;
		assert_int_equal(grove_logp_bcast_eval_depth(p, &sm->sys, n, 1,
		    k, sm->d_w, sm->d_l, 0, 8, &plan, err, sizeof err), 0);
		if (k == 1 || plan.T < best) {
			best = plan.T;
			best_k = k;
		}
	}
	size_t seg = seg_model_size(sm, n);
	assert_true(seg > 0);
	/* The hill climbing may stop a step or two away from the best k
	 * on a flat optimum; it must land where the chain's T is within a
	 * hair of the best, which the height-3 model misses by percent. */
	uint64_t k = (n + seg - 1) / seg;
	grove_logp_plan got;
	assert_int_equal(grove_logp_bcast_eval_depth(p, &sm->sys, n, 1, k,
	    sm->d_w, sm->d_l, 0, 8, &got, err, sizeof err), 0);
	print_message("chain: best k %llu (T %.1f), model k %llu (T %.1f)\n",
	    (unsigned long long)best_k, best, (unsigned long long)k, got.T);
	assert_true(got.T <= best * 1.001);
	seg_model_free(sm);
	grove_logp_params_destroy(p);
	grove_topo_destroy(t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_eval_depth),
		cmocka_unit_test(test_seg_model_chain),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

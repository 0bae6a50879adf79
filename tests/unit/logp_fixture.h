/* Shared by the host CPU bound tests (test_logp_host.c,
 * test_logp_crowd.c): flat parameter curves and the plan of a small
 * clustered system. */
#ifndef GROVE_LOGP_FIXTURE_H
#define GROVE_LOGP_FIXTURE_H

#pragma GCC diagnostic ignored "-Wunused-function"
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "grove/logp.h"

static int
near(double a, double b)
{
	return fabs(a - b) < 1e-9 * (1 + fabs(b));
}
#define NEAR(a, b) near((a), (b))

/* Flat curves (two equal samples): every size costs the same.
 * host: L 10, os 1, or 1, g 2, w `work`; wan: L 10000, os 5, or 5,
 * g 1000, no w.  So s_l = 2, r_l = 12, s_w = max(g_l, os_w) = 5,
 * r_w = 11000. */
static grove_logp_params *
flat_params(double work)
{
	grove_logp_params *p = NULL;
	grove_logp_sample host[2] = {{1, 1, 1, 2, work},
	    {1ull << 30, 1, 1, 2, work}};
	grove_logp_sample wan[2] = {{1, 5, 5, 1000, 0},
	    {1ull << 30, 5, 5, 1000, 0}};

	assert_int_equal(grove_logp_params_create(&p), 0);
	assert_int_equal(grove_logp_params_set_class(p, GROVE_LOGP_HOST, 10,
	    host, 2, NULL, 0), 0);
	assert_int_equal(grove_logp_params_set_class(p, GROVE_LOGP_WAN, 10000,
	    wan, 2, NULL, 0), 0);
	return p;
}

/* T of the plan for 3 clusters of 4 processes, 1024 bytes, on hosts of
 * `cores` cores. */
static double
plan_T(const grove_logp_params *p, uint32_t cores, grove_logp_scheme s)
{
	grove_logp_system sys = {3, 4, GROVE_LOGP_HOST, GROVE_LOGP_WAN, cores, 0};
	grove_logp_plan plan;
	char err[200];

	assert_int_equal(grove_logp_bcast_plan(p, &sys, s, 1024, 1,
	    GROVE_LOGP_HEURISTIC, &plan, err, sizeof err), 0);
	return plan.T;
}

#endif

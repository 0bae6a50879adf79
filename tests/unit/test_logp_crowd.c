/* Unit tests for w in crowds (grove_logp_params_set_crowd, work_at, the
 * "crowd K SIZE W" lines of the file format) and for the host CPU bound
 * at a configuration's crowd size, against values computed by hand. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "logp_fixture.h"

/* A flat crowd of K processes: w everywhere. */
static void
set_flat_crowd(grove_logp_params *p, uint32_t K, double w)
{
	grove_logp_sample s[2] = {{1, 0, 0, 0, w}, {1ull << 30, 0, 0, 0, w}};

	assert_int_equal(grove_logp_params_set_crowd(p, GROVE_LOGP_HOST, K,
	    s, 2, NULL, 0), 0);
}

static void
test_work_without_crowds_is_w(void **state)
{
	grove_logp_params *p = flat_params(400);
	double w = -1;

	(void)state;
	assert_int_equal(grove_logp_params_crowds(p, GROVE_LOGP_HOST, NULL),
	    0);
	assert_int_equal(grove_logp_params_work_at(p, GROVE_LOGP_HOST, 1024,
	    100, &w), 0);
	assert_true(NEAR(w, 400));
	assert_int_equal(grove_logp_params_work_at(p, GROVE_LOGP_LAN, 1024,
	    100, &w), GROVE_ENOENT);
	assert_int_equal(grove_logp_params_work_at(p, GROVE_LOGP_HOST, -1, 2,
	    &w), GROVE_EINVAL);
	grove_logp_params_destroy(p);
}

/* Crowds of 2 (w 100) and 8 (w 400), a third of 32 (w 1000). */
static void
test_work_interpolates_in_log2_K(void **state)
{
	grove_logp_params *p = flat_params(50);
	double w = -1;

	(void)state;
	set_flat_crowd(p, 8, 400); /* out of order: kept sorted */
	set_flat_crowd(p, 2, 100);
	set_flat_crowd(p, 32, 1000);
	uint32_t K[GROVE_LOGP_MAX_CROWDS];
	assert_int_equal(grove_logp_params_crowds(p, GROVE_LOGP_HOST, K), 3);
	assert_int_equal(K[0], 2);
	assert_int_equal(K[1], 8);
	assert_int_equal(K[2], 32);
	static const struct {
		double per_core, w;
	} at[] = {
		{1, 100}, {2, 100},  /* below the first crowd and at it */
		{4, 250},            /* halfway between 2 and 8 in log2 K */
		{8, 400}, {16, 700}, /* at a crowd; halfway to 32 */
		{500, 1000},         /* above the last */
	};
	for (size_t i = 0; i < sizeof at / sizeof at[0]; i++) {
		assert_int_equal(grove_logp_params_work_at(p, GROVE_LOGP_HOST,
		    64, at[i].per_core, &w), 0);
		assert_true(NEAR(w, at[i].w));
	}
	/* replacing a crowd, and setting the class again clears them */
	set_flat_crowd(p, 8, 100);
	assert_int_equal(grove_logp_params_work_at(p, GROVE_LOGP_HOST, 64, 4,
	    &w), 0);
	assert_true(NEAR(w, 100));
	const grove_logp_sample *s;
	double L;
	size_t n = grove_logp_params_samples(p, GROVE_LOGP_HOST, &s, &L);
	assert_int_equal(grove_logp_params_set_class(p, GROVE_LOGP_HOST, L, s,
	    n, NULL, 0), 0);
	assert_int_equal(grove_logp_params_crowds(p, GROVE_LOGP_HOST, NULL),
	    0);
	grove_logp_params_destroy(p);
}

/* Inside a crowd, w is interpolated in m as the samples are: (1, 10),
 * (1024, 20) gives 10 + 10 * 511 / 1023 at 512. */
static void
test_work_interpolates_in_m(void **state)
{
	grove_logp_params *p = flat_params(50);
	grove_logp_sample s[2] = {{1, 0, 0, 0, 10}, {1024, 0, 0, 0, 20}};
	double w = -1;

	(void)state;
	assert_int_equal(grove_logp_params_set_crowd(p, GROVE_LOGP_HOST, 4, s,
	    2, NULL, 0), 0);
	assert_int_equal(grove_logp_params_work_at(p, GROVE_LOGP_HOST, 512, 4,
	    &w), 0);
	assert_true(NEAR(w, 10 + 10.0 * 511 / 1023));
	grove_logp_params_destroy(p);
}

static void
test_set_crowd_rejects(void **state)
{
	grove_logp_params *p = flat_params(50);
	grove_logp_sample bad_size[1] = {{3, 0, 0, 0, 1}};
	grove_logp_sample down[2] = {{4, 0, 0, 0, 1}, {2, 0, 0, 0, 1}};
	grove_logp_sample neg[1] = {{4, 0, 0, 0, -1}};
	grove_logp_sample ok[1] = {{4, 0, 0, 0, 1}};
	char err[200];

	(void)state;
	assert_int_equal(grove_logp_params_set_crowd(p, GROVE_LOGP_HOST, 1,
	    ok, 1, err, sizeof err), GROVE_EINVAL);
	assert_non_null(strstr(err, "K must be"));
	assert_int_equal(grove_logp_params_set_crowd(p, GROVE_LOGP_HOST, 2,
	    bad_size, 1, err, sizeof err), GROVE_EINVAL);
	assert_int_equal(grove_logp_params_set_crowd(p, GROVE_LOGP_HOST, 2,
	    down, 2, err, sizeof err), GROVE_EINVAL);
	assert_int_equal(grove_logp_params_set_crowd(p, GROVE_LOGP_HOST, 2,
	    neg, 1, err, sizeof err), GROVE_EINVAL);
	assert_int_equal(grove_logp_params_set_crowd(p, GROVE_LOGP_HOST, 2,
	    ok, 0, err, sizeof err), GROVE_EINVAL);
	assert_int_equal(grove_logp_params_set_crowd(p, GROVE_LOGP_LAN, 2,
	    ok, 1, err, sizeof err), GROVE_ENOENT);
	for (uint32_t k = 0; k < GROVE_LOGP_MAX_CROWDS; k++)
		assert_int_equal(grove_logp_params_set_crowd(p,
		    GROVE_LOGP_HOST, 2 + k, ok, 1, NULL, 0), 0);
	assert_int_equal(grove_logp_params_set_crowd(p, GROVE_LOGP_HOST, 100,
	    ok, 1, err, sizeof err), GROVE_EINVAL);
	grove_logp_params_destroy(p);
}

static const char old_file[] =
    "grove-logp 1\ncores 2\nclass host\nL 10\n"
    "1 1 1 2 400\n1073741824 1 1 2 400\n"
    "class wan\nL 10000\n1 5 5 1000\n1073741824 5 5 1000\n";

/* A file without crowds gives the predictions of test_logp_host.c. */
static void
test_old_file_same_predictions(void **state)
{
	grove_logp_params *p = NULL;
	char err[200];

	(void)state;
	assert_int_equal(grove_logp_params_parse_string(old_file, &p, err,
	    sizeof err), 0);
	assert_true(NEAR(plan_T(p, 2, GROVE_LOGP_WHOLE_NONBLOCKING), 12205));
	assert_true(NEAR(plan_T(p, 2, GROVE_LOGP_ORIGINAL), 12600));
	grove_logp_params_destroy(p);
}

/* 3 clusters of 4 on 2 cores: 6 processes per core.  Crowds of 2 (w 100)
 * and 8 (w 400): w = 100 + 300 (log2 6 - 1) / 2.  whole-nonblocking
 * (test_logp_host.c): both coordinators' trees at once after the WAN at
 * 11005, 2 x 3 hops x w / 2 cores: T = 11005 + 3 w.  On 4 cores, 3 per
 * core: w = 100 + 300 (log2 3 - 1) / 2, T = 11005 + 1.5 w.  Original:
 * the last tree alone from 12000, T = 12000 + 3 w / 2. */
static void
test_bound_uses_crowd_size(void **state)
{
	grove_logp_params *p = flat_params(10);
	double w6 = 100 + 300 * (log2(6) - 1) / 2;
	double w3 = 100 + 300 * (log2(3) - 1) / 2;

	(void)state;
	set_flat_crowd(p, 2, 100);
	set_flat_crowd(p, 8, 400);
	assert_true(NEAR(plan_T(p, 2, GROVE_LOGP_WHOLE_NONBLOCKING),
	    11005 + 3 * w6));
	assert_true(NEAR(plan_T(p, 4, GROVE_LOGP_WHOLE_NONBLOCKING),
	    11005 + 1.5 * w3));
	assert_true(NEAR(plan_T(p, 2, GROVE_LOGP_ORIGINAL),
	    12000 + 1.5 * w6));
	/* without cores the crowds change nothing */
	assert_true(NEAR(plan_T(p, 0, GROVE_LOGP_WHOLE_NONBLOCKING), 11029));
	grove_logp_params_destroy(p);
}

static void
test_file_round_trip(void **state)
{
	grove_logp_params *p = NULL, *q = NULL;
	char err[200], *text = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_int_equal(grove_logp_params_parse_string(
	    "grove-logp 1\nclass host\nL 10\n1 1 1 2 8\n1024 1 1 2 9\n"
	    "crowd 2 1 5.5\ncrowd 2 1024 6.25\ncrowd 32 1 20\n"
	    "crowd 32 4096 30.125\n", &p, err, sizeof err), 0);
	f = open_memstream(&text, &len);
	assert_non_null(f);
	assert_int_equal(grove_logp_params_write(p, f), 0);
	fclose(f);
	assert_non_null(strstr(text, "crowd 32 4096 30.125\n"));
	assert_int_equal(grove_logp_params_parse_string(text, &q, err,
	    sizeof err), 0);
	uint32_t K[GROVE_LOGP_MAX_CROWDS];
	assert_int_equal(grove_logp_params_crowds(q, GROVE_LOGP_HOST, K), 2);
	assert_int_equal(K[0], 2);
	assert_int_equal(K[1], 32);
	const grove_logp_sample *s;
	assert_int_equal(grove_logp_params_crowd_samples(q, GROVE_LOGP_HOST,
	    32, &s), 2);
	assert_int_equal(s[1].size, 4096);
	assert_true(s[1].w == 30.125);
	assert_int_equal(grove_logp_params_crowd_samples(q, GROVE_LOGP_HOST,
	    8, &s), 0);
	assert_null(s);
	free(text);
	grove_logp_params_destroy(p);
	grove_logp_params_destroy(q);
}

static void
expect_parse_error(const char *body, const char *why)
{
	char text[512], err[200];
	grove_logp_params *p = NULL;

	snprintf(text, sizeof text, "grove-logp 1\nclass host\nL 10\n"
	    "1 1 1 2 8\n%s", body);
	assert_int_equal(grove_logp_params_parse_string(text, &p, err,
	    sizeof err), GROVE_EINVAL);
	assert_null(p);
	if (!strstr(err, why))
		fail_msg("'%s': error '%s' lacks '%s'", body, err, why);
}

static void
test_file_errors(void **state)
{
	char err[200];
	grove_logp_params *p = NULL;

	(void)state;
	assert_int_equal(grove_logp_params_parse_string(
	    "grove-logp 1\ncrowd 2 1 5\nclass host\nL 1\n1 1 1 1\n", &p, err,
	    sizeof err), GROVE_EINVAL);
	assert_non_null(strstr(err, "line 2: 'crowd' before"));
	expect_parse_error("crowd 1 1 5\n", "line 5: expected 'crowd K");
	expect_parse_error("crowd 2 1\n", "line 5: expected 'crowd K");
	expect_parse_error("crowd 2 1 -3\n", "line 5: expected 'crowd K");
	expect_parse_error("crowd 2 1 5 6\n", "line 5: expected 'crowd K");
	expect_parse_error("crowd 2 3 5\n", "line 5: size '3' is not");
	expect_parse_error("crowd 8 1 5\ncrowd 2 1 5\n",
	    "line 6: crowd 2 after 8");
	expect_parse_error("crowd 2 4 5\ncrowd 2 4 5\n",
	    "line 6: crowd 2: size 4 after 4");
	expect_parse_error("crowd 2 1 1\ncrowd 3 1 1\ncrowd 4 1 1\n"
	    "crowd 5 1 1\ncrowd 6 1 1\ncrowd 7 1 1\ncrowd 8 1 1\n"
	    "crowd 9 1 1\ncrowd 10 1 1\n", "line 13: more than 8 crowds");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_work_without_crowds_is_w),
		cmocka_unit_test(test_work_interpolates_in_log2_K),
		cmocka_unit_test(test_work_interpolates_in_m),
		cmocka_unit_test(test_set_crowd_rejects),
		cmocka_unit_test(test_old_file_same_predictions),
		cmocka_unit_test(test_bound_uses_crowd_size),
		cmocka_unit_test(test_file_round_trip),
		cmocka_unit_test(test_file_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

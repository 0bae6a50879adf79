/* Unit tests for the division of CPUs among a node's local children
 * (src/net/cpu_share.c): contiguous runs whose sizes differ by at most
 * one, one CPU per child when there are more children than CPUs, the
 * shares of all children covering the parent's CPUs, gaps in the
 * parent's set skipped, and empty results for bad arguments. */
#define _GNU_SOURCE /* cpu_set_t */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "net/cpu_share.h"

/* A set from a list of CPUs ended by -1. */
static cpu_set_t
set_of(const int *cpus)
{
	cpu_set_t s;
	CPU_ZERO(&s);
	for (; *cpus >= 0; cpus++)
		CPU_SET(*cpus, &s);
	return s;
}

static void
expect_share(const int *all, uint32_t k, uint32_t i, const char *want)
{
	cpu_set_t a = set_of(all), out;
	int n = cpu_share_of(&a, k, i, &out);
	char got[256];
	cpu_set_text(&out, got, sizeof got);
	assert_string_equal(got, want);
	assert_int_equal(n, CPU_COUNT(&out));
}

static const int two[] = {0, 1, -1};
static const int eight[] = {0, 1, 2, 3, 4, 5, 6, 7, -1};
static const int gappy[] = {2, 5, 9, 10, 40, -1};
static const int one[] = {3, -1};

static void
test_more_children_than_cpus(void **state)
{
	(void)state;
	/* 8 children on 2 CPUs: the first 4 on CPU 0, the rest on CPU 1. */
	for (uint32_t i = 0; i < 8; i++)
		expect_share(two, 8, i, i < 4 ? "0" : "1");
	/* 3 on 2: two on the first CPU, one on the second. */
	expect_share(two, 3, 0, "0");
	expect_share(two, 3, 1, "0");
	expect_share(two, 3, 2, "1");
	/* One CPU: everyone shares it. */
	for (uint32_t i = 0; i < 5; i++)
		expect_share(one, 5, i, "3");
}

static void
test_more_cpus_than_children(void **state)
{
	(void)state;
	expect_share(eight, 2, 0, "0-3");
	expect_share(eight, 2, 1, "4-7");
	expect_share(eight, 3, 0, "0-1");
	expect_share(eight, 3, 1, "2-4");
	expect_share(eight, 3, 2, "5-7");
	expect_share(eight, 1, 0, "0-7");
	expect_share(eight, 8, 5, "5");
	/* Only the CPUs of the set, in order, however sparse. */
	expect_share(gappy, 2, 0, "2,5");
	expect_share(gappy, 2, 1, "9-10,40");
}

/* For many shapes: the shares are disjoint and cover the set when there
 * are at least as many CPUs as children; otherwise one CPU each, and the
 * children per CPU differ by at most one. */
static void
test_tiling(void **state)
{
	(void)state;
	for (int m = 1; m <= 17; m++) {
		cpu_set_t all;
		CPU_ZERO(&all);
		for (int c = 0; c < m; c++)
			CPU_SET(3 * c + 1, &all);
		for (uint32_t k = 1; k <= 40; k++) {
			int per_cpu[CPU_SETSIZE] = {0};
			cpu_set_t seen;
			CPU_ZERO(&seen);
			for (uint32_t i = 0; i < k; i++) {
				cpu_set_t s, both;
				int n = cpu_share_of(&all, k, i, &s);
				assert_true(n >= 1);
				CPU_AND(&both, &s, &all);
				assert_true(CPU_EQUAL(&both, &s));
				if ((uint32_t)m >= k) {
					CPU_AND(&both, &s, &seen);
					assert_int_equal(CPU_COUNT(&both), 0);
					assert_true(n == m / (int)k ||
					    n == m / (int)k + 1);
				} else {
					assert_int_equal(n, 1);
				}
				CPU_OR(&seen, &seen, &s);
				for (int c = 0; c < CPU_SETSIZE; c++)
					per_cpu[c] += CPU_ISSET(c, &s);
			}
			assert_true(CPU_EQUAL(&seen, &all) || (uint32_t)m > k);
			if ((uint32_t)m >= k)
				assert_true(CPU_EQUAL(&seen, &all));
			int lo = 1 << 30, hi = 0;
			for (int c = 0; c < CPU_SETSIZE; c++) {
				if (!CPU_ISSET(c, &all))
					continue;
				lo = per_cpu[c] < lo ? per_cpu[c] : lo;
				hi = per_cpu[c] > hi ? per_cpu[c] : hi;
			}
			assert_true(hi - lo <= 1);
		}
	}
}

static void
test_text(void **state)
{
	(void)state;
	cpu_set_t s = set_of(gappy);
	char buf[64];
	cpu_set_text(&s, buf, sizeof buf);
	assert_string_equal(buf, "2,5,9-10,40");
	/* Cut short at a whole entry. */
	cpu_set_text(&s, buf, 7);
	assert_string_equal(buf, "2,5");
	cpu_set_text(&s, buf, 1);
	assert_string_equal(buf, "");
	CPU_ZERO(&s);
	cpu_set_text(&s, buf, sizeof buf);
	assert_string_equal(buf, "");
	for (int c = 0; c < CPU_SETSIZE; c++)
		CPU_SET(c, &s);
	cpu_set_text(&s, buf, sizeof buf);
	char want[32];
	snprintf(want, sizeof want, "0-%d", CPU_SETSIZE - 1);
	assert_string_equal(buf, want);
}

static void
test_bad_arguments(void **state)
{
	(void)state;
	cpu_set_t all = set_of(two), none, out;
	CPU_ZERO(&none);
	assert_int_equal(cpu_share_of(&all, 0, 0, &out), 0);
	assert_int_equal(CPU_COUNT(&out), 0);
	assert_int_equal(cpu_share_of(&all, 4, 4, &out), 0);
	assert_int_equal(CPU_COUNT(&out), 0);
	assert_int_equal(cpu_share_of(&none, 4, 1, &out), 0);
	assert_int_equal(CPU_COUNT(&out), 0);
	/* The highest CPU a set can name. */
	cpu_set_t top;
	CPU_ZERO(&top);
	CPU_SET(CPU_SETSIZE - 1, &top);
	assert_int_equal(cpu_share_of(&top, 2, 1, &out), 1);
	assert_true(CPU_ISSET(CPU_SETSIZE - 1, &out));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_more_children_than_cpus),
		cmocka_unit_test(test_more_cpus_than_children),
		cmocka_unit_test(test_tiling),
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_bad_arguments),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

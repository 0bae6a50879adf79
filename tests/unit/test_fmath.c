/* Unit tests for the libm-free round and log2 of src/core/fmath.h,
 * against libm itself. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <math.h>

#include "core/fmath.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;

/* xorshift64*: reproducible test values without global library state. */
static uint64_t
next_u64(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545f4914f6cdd1dull;
}

static double
from_bits(uint64_t b)
{
	double d;
	memcpy(&d, &b, sizeof d);
	return d;
}

/* Same value and, for zeros, the same sign. */
static void
assert_same(double got, double want, double x)
{
	if (isnan(want)) {
		if (!isnan(got))
			fail_msg("x=%a: got %a, wanted NaN", x, got);
		return;
	}
	if (got != want || signbit(got) != signbit(want))
		fail_msg("x=%a: got %a, wanted %a", x, got, want);
}

static void
test_round_edges(void **state)
{
	(void)state;
	static const double xs[] = {
	    0.0, -0.0, 0.3, -0.3, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 2.4999999,
	    0.49999999999999994, -0.49999999999999994, 4503599627370495.5,
	    -4503599627370495.5, 4503599627370496.0, 9007199254740993.0,
	    1e300, -1e300, 4.9e-324, -4.9e-324, INFINITY, -INFINITY, NAN,
	    9223372036854775807.0, -9223372036854775808.0,
	};
	for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++)
		assert_same(fm_round(xs[i]), round(xs[i]), xs[i]);
}

static void
test_round_random(void **state)
{
	(void)state;
	for (int i = 0; i < 1000000; i++) {
		/* Any bit pattern: every binade, sign, NaN and infinity. */
		double x = from_bits(next_u64());
		assert_same(fm_round(x), round(x), x);
		/* Values near halves and integers, where rounding decides. */
		double y = (double)(int64_t)(next_u64() % 2000001) / 2.0 -
		    500000.0 + ((double)(next_u64() % 3) - 1) * 1e-9;
		assert_same(fm_round(y), round(y), y);
	}
}

static void
test_log2_edges(void **state)
{
	(void)state;
	assert_same(fm_log2(0.0), -INFINITY, 0.0);
	assert_same(fm_log2(-0.0), -INFINITY, -0.0);
	assert_same(fm_log2(INFINITY), INFINITY, INFINITY);
	assert_same(fm_log2(-1.0), NAN, -1.0);
	assert_same(fm_log2(NAN), NAN, NAN);
	/* Powers of two are exact, including subnormal ones. */
	for (int e = -1074; e <= 1023; e++)
		assert_same(fm_log2(ldexp(1.0, e)), (double)e, ldexp(1.0, e));
}

static void
test_log2_random(void **state)
{
	(void)state;
	for (int i = 0; i < 1000000; i++) {
		uint64_t b = next_u64() & 0x7fffffffffffffffull;
		double x = from_bits(b);
		if (!(x > 0) || isinf(x))
			continue;
		double want = log2(x), got = fm_log2(x);
		/* A few ulp of the result, or of 1 near x = 1 where the result
		 * goes to 0 and only an absolute error makes sense. */
		double tol = 4 * fmax(fabs(want), 1.0) * 2.220446049250313e-16;
		if (fabs(got - want) > tol)
			fail_msg("log2(%a): got %a, wanted %a", x, got, want);
	}
	/* Near 1, the crowd sizes' range (1 to thousands), and K = 3. */
	for (double x = 0.5; x < 5000; x *= 1.0001) {
		double want = log2(x), got = fm_log2(x);
		if (fabs(got - want) > 4 * fmax(fabs(want), 1.0) * 2.22e-16)
			fail_msg("log2(%a): got %a, wanted %a", x, got, want);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_round_edges),
	    cmocka_unit_test(test_round_random),
	    cmocka_unit_test(test_log2_edges),
	    cmocka_unit_test(test_log2_random),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

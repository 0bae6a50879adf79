/* Clock-skew arithmetic: the four-timestamp sample, its bound, the
 * minimum-delay choice, accumulation along a path, and the parsing of the
 * validation offsets.  Stamps are built from a known offset and known
 * one-way delays, so every expected value follows from the formulas.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "grove/error.h"
#include "tbon/skew.h"

/* One exchange: parent sends at t1 (parent clock); the child, theta ahead,
 * receives after d1, turns around in `turn`, the reply takes d2. */
static skew_sample
exchange(int64_t t1, int64_t theta, int64_t d1, int64_t turn, int64_t d2)
{
	int64_t t2 = t1 + d1 + theta;
	int64_t t3 = t2 + turn;
	int64_t t4 = t3 - theta + d2;
	skew_sample s;
	assert_int_equal(skew_sample_from_stamps(t1, t2, t3, t4, &s), 0);
	return s;
}

static void
symmetric_delay_gives_exact_offset(void **state)
{
	(void)state;
	skew_sample s = exchange(1000000000, 5000, 300, 40, 300);
	assert_int_equal(s.offset_ns, 5000);
	assert_int_equal(s.delay_ns, 600);
	s = exchange(1700000000000000000, -123456789, 10, 1000000, 10);
	assert_int_equal(s.offset_ns, -123456789);
	assert_int_equal(s.delay_ns, 20);
}

static void
asymmetric_delay_stays_within_bound(void **state)
{
	(void)state;
	/* All the delay on one side: the worst case, error = delay / 2. */
	skew_sample s = exchange(0, 1000, 800, 5, 0);
	assert_int_equal(s.delay_ns, 800);
	assert_int_equal(s.offset_ns, 1000 + 400);
	assert_int_equal(skew_error_of_delay(s.delay_ns), 400);
	s = exchange(0, -1000, 0, 5, 800);
	assert_int_equal(s.offset_ns, -1000 - 400);
	/* Every split of an odd delay: |offset - theta| <= bound, with the
	 * half nanosecond of rounding inside it. */
	for (int64_t d1 = 0; d1 <= 7; d1++) {
		for (int64_t theta = -3; theta <= 3; theta++) {
			s = exchange(100, theta, d1, 2, 7 - d1);
			int64_t dev = s.offset_ns - theta;
			uint64_t bound = skew_error_of_delay(s.delay_ns);
			assert_int_equal(s.delay_ns, 7);
			assert_int_equal(bound, 4);
			assert_true((uint64_t)(dev < 0 ? -dev : dev) <= bound);
		}
	}
}

static void
offset_rounds_down(void **state)
{
	(void)state;
	skew_sample s;
	/* (t2 - t1) + (t3 - t4) = 3 and -3: offsets 1 and -2. */
	assert_int_equal(skew_sample_from_stamps(0, 2, 3, 2, &s), 0);
	assert_int_equal(s.offset_ns, 1);
	assert_int_equal(s.delay_ns, 1);
	assert_int_equal(skew_sample_from_stamps(0, -1, 0, 2, &s), 0);
	assert_int_equal(s.offset_ns, -2);
	assert_int_equal(s.delay_ns, 1);
	assert_int_equal(skew_error_of_delay(0), 0);
	assert_int_equal(skew_error_of_delay(1), 1);
	assert_int_equal(skew_error_of_delay(UINT64_MAX - 1),
	    UINT64_MAX / 2);
}

static void
inconsistent_stamps_are_rejected(void **state)
{
	(void)state;
	skew_sample s;
	/* The child's turnaround longer than the round trip. */
	assert_int_equal(skew_sample_from_stamps(0, 10, 200, 100, &s),
	    GROVE_ERANGE);
	/* Time running backwards on one side. */
	assert_int_equal(skew_sample_from_stamps(100, 50, 40, 200, &s),
	    GROVE_ERANGE);
	assert_int_equal(skew_sample_from_stamps(100, 50, 60, 90, &s),
	    GROVE_ERANGE);
	/* Stamps a broken peer could send: no overflow, an error. */
	assert_int_equal(skew_sample_from_stamps(INT64_MIN, INT64_MAX, INT64_MAX,
	    0, &s), GROVE_ERANGE);
	assert_int_equal(skew_sample_from_stamps(0, INT64_MIN, INT64_MAX,
	    INT64_MAX, &s), GROVE_ERANGE);
}

static void
best_keeps_minimum_delay(void **state)
{
	(void)state;
	skew_best b;
	skew_best_init(&b);
	assert_int_equal(b.samples, 0);
	assert_true(b.error_ns == SKEW_UNKNOWN);
	skew_sample a = {.offset_ns = 70, .delay_ns = 900};
	skew_sample c = {.offset_ns = 10, .delay_ns = 100};
	skew_sample d = {.offset_ns = -5, .delay_ns = 100};
	skew_sample e = {.offset_ns = 99, .delay_ns = 5000};
	skew_best_add(&b, &a);
	assert_int_equal(b.offset_ns, 70);
	assert_int_equal(b.error_ns, 450);
	skew_best_add(&b, &c);
	assert_int_equal(b.offset_ns, 10);
	assert_int_equal(b.delay_ns, 100);
	assert_int_equal(b.error_ns, 50);
	skew_best_add(&b, &d); /* a tie keeps the earlier sample */
	skew_best_add(&b, &e);
	assert_int_equal(b.offset_ns, 10);
	assert_int_equal(b.error_ns, 50);
	assert_int_equal(b.samples, 4);
}

static void
accumulation_adds_offsets_and_bounds(void **state)
{
	(void)state;
	int64_t off;
	uint64_t err;
	/* FE -> CP (+700) -> CP (-300) -> BE (+2000): BE - FE = 2400. */
	assert_int_equal(skew_accumulate(-300, 5, 2000, 7, &off, &err), 0);
	assert_int_equal(off, 1700);
	assert_int_equal(err, 12);
	assert_int_equal(skew_accumulate(700, 3, off, err, &off, &err), 0);
	assert_int_equal(off, 2400);
	assert_int_equal(err, 15);
	/* Unknown stays unknown; overflow is an error, not a wrap. */
	assert_int_equal(skew_accumulate(1, SKEW_UNKNOWN, 0, 0, &off, &err),
	    GROVE_ERANGE);
	assert_int_equal(skew_accumulate(1, 0, 0, SKEW_UNKNOWN, &off, &err),
	    GROVE_ERANGE);
	assert_int_equal(skew_accumulate(INT64_MAX, 0, 1, 0, &off, &err),
	    GROVE_ERANGE);
	assert_int_equal(skew_accumulate(0, UINT64_MAX / 2 + 1, 0,
	    UINT64_MAX / 2, &off, &err), GROVE_ERANGE);
}

static void
inject_step(void **state)
{
	(void)state;
	char err[200];
	int64_t v = -1;
	assert_int_equal(clock_inject_parse(NULL, 0, 5, &v, err, sizeof err), 0);
	assert_int_equal(v, 0);
	assert_int_equal(clock_inject_parse("", 0, 5, &v, err, sizeof err), 0);
	assert_int_equal(v, 0);
	assert_int_equal(clock_inject_parse("1000000", 0, 5, &v, err, sizeof err),
	    0);
	assert_int_equal(v, 5000000);
	assert_int_equal(clock_inject_parse("-250", 0, 4, &v, err, sizeof err), 0);
	assert_int_equal(v, -1000);
	/* A step applies to BEs only. */
	assert_int_equal(clock_inject_parse("1000", 1, 5, &v, err, sizeof err), 0);
	assert_int_equal(v, 0);
	assert_int_equal(clock_inject_parse("9223372036854775807", 0, 2, &v, err,
	    sizeof err), GROVE_EINVAL);
	assert_int_equal(clock_inject_parse("50000000000000001", 0, 2, &v, err,
	    sizeof err), GROVE_EINVAL);
	assert_int_equal(clock_inject_parse("50000000000000000", 0, 2, &v, err,
	    sizeof err), 0);
	assert_int_equal(v, CLOCK_INJECT_MAX);
	assert_int_equal(clock_inject_parse("12ms", 0, 2, &v, err, sizeof err),
	    GROVE_EINVAL);
	assert_non_null(strstr(err, "12ms"));
}

static void
inject_list(void **state)
{
	(void)state;
	char err[200];
	int64_t v = -1;
	const char *spec = "0:-3000,7:2500,cp1:700,cp7:-900";
	assert_int_equal(clock_inject_parse(spec, 0, 0, &v, err, sizeof err), 0);
	assert_int_equal(v, -3000);
	assert_int_equal(clock_inject_parse(spec, 0, 7, &v, err, sizeof err), 0);
	assert_int_equal(v, 2500);
	assert_int_equal(clock_inject_parse(spec, 0, 1, &v, err, sizeof err), 0);
	assert_int_equal(v, 0);
	assert_int_equal(clock_inject_parse(spec, 1, 1, &v, err, sizeof err), 0);
	assert_int_equal(v, 700);
	assert_int_equal(clock_inject_parse(spec, 1, 7, &v, err, sizeof err), 0);
	assert_int_equal(v, -900);
	assert_int_equal(clock_inject_parse(spec, 1, 0, &v, err, sizeof err), 0);
	assert_int_equal(v, 0);
	const char *bad[] = {"1:", ":5", "1:5,,2:3", "x1:5", "cp:5", "-1:5",
	    "1:5;2:3", "4294967296:1", "1:1e3", "1:100000000000000001",
	    "cp2:-100000000000000001"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		err[0] = 0;
		assert_int_equal(clock_inject_parse(bad[i], 0, 1, &v, err,
		    sizeof err), GROVE_EINVAL);
		assert_non_null(strstr(err, "GROVE_CLOCK_INJECT_NS"));
	}
}

static void
clock_adds_offset(void **state)
{
	(void)state;
	int64_t a = skew_clock_ns(0);
	int64_t b = skew_clock_ns(1000000000000);
	int64_t c = skew_clock_ns(0);
	assert_true(a > 0);
	assert_true(b - 1000000000000 >= a);
	assert_true(b - 1000000000000 <= c);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(symmetric_delay_gives_exact_offset),
		cmocka_unit_test(asymmetric_delay_stays_within_bound),
		cmocka_unit_test(offset_rounds_down),
		cmocka_unit_test(inconsistent_stamps_are_rejected),
		cmocka_unit_test(best_keeps_minimum_delay),
		cmocka_unit_test(accumulation_adds_offsets_and_bounds),
		cmocka_unit_test(inject_step),
		cmocka_unit_test(inject_list),
		cmocka_unit_test(clock_adds_offset),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

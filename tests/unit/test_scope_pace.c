/* The pace of a monitor's pulls (src/scope/pace.c): the next pull comes
 * when the busiest ring is expected to be `fill` full at the rate the
 * last pull saw, at once shorter when the rate rises, at most twice as
 * long per pull when it falls, always within its bounds; a fixed period
 * (equal bounds) never moves; nothing written lets it grow to the
 * longest. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "scope/pace.h"

static void
near(double got, double want)
{
	assert_true(got > want - 1e-12 && got < want + 1e-12);
}

static void
test_first_period_is_the_shortest(void **state)
{
	(void)state;
	struct scope_pace p;
	scope_pace_init(&p, 0.01, 1.0, 0.5);
	near(p.next_s, 0.01);
	/* Bad fills fall back to half. */
	scope_pace_init(&p, 0.01, 1.0, 0);
	near(p.fill, 0.5);
	scope_pace_init(&p, 0.01, 1.0, 1.5);
	near(p.fill, 0.5);
	/* max below min: the period is fixed at min. */
	scope_pace_init(&p, 0.2, 0.1, 0.5);
	near(p.max_s, 0.2);
}

static void
test_rate_sets_the_period(void **state)
{
	(void)state;
	struct scope_pace p;
	scope_pace_init(&p, 0.001, 1.0, 0.5);
	p.next_s = 0.1;
	/* A quarter of the ring in 0.05 s: half of it in 0.1 s. */
	near(scope_pace_next(&p, 0.25, 0.05), 0.1);
	/* Twice as fast: at once half the period. */
	near(scope_pace_next(&p, 0.5, 0.05), 0.05);
	/* Wrapped (lost tuples count): far faster, far shorter. */
	near(scope_pace_next(&p, 4.0, 0.05), 0.00625);
	/* Beyond what a pull may cost: the shortest. */
	near(scope_pace_next(&p, 100.0, 0.05), 0.001);
}

static void
test_slower_rates_lengthen_it_gradually(void **state)
{
	(void)state;
	struct scope_pace p;
	scope_pace_init(&p, 0.01, 1.0, 0.5);
	/* Nothing written: doubling each pull up to the longest. */
	double want[] = {0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.0, 1.0};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
		near(scope_pace_next(&p, 0, p.next_s), want[i]);
	/* A rate wanting 0.3 s from 1 s: taken at once (shorter). */
	near(scope_pace_next(&p, 0.5, 0.3), 0.3);
	/* One wanting 10 s: 0.6 (twice), then the longest. */
	near(scope_pace_next(&p, 0.01, 0.2), 0.6);
	near(scope_pace_next(&p, 0.01, 0.2), 1.0);
}

static void
test_fixed_period(void **state)
{
	(void)state;
	struct scope_pace p;
	scope_pace_init(&p, 0.05, 0.05, 0.5);
	near(scope_pace_next(&p, 0, 0.05), 0.05);
	near(scope_pace_next(&p, 10, 0.05), 0.05);
	near(scope_pace_next(&p, 0.001, 0.05), 0.05);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first_period_is_the_shortest),
		cmocka_unit_test(test_rate_sets_the_period),
		cmocka_unit_test(test_slower_rates_lengthen_it_gradually),
		cmocka_unit_test(test_fixed_period),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* grove-agent's sample stamps: on the interval grid, so a sample never
 * straddles a few ms into the next interval. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "agent/sample_time.h"

static void
test_read_late_is_stamped_on_the_grid(void **st)
{
	(void)st;
	const uint64_t w = 200000000; /* 200 ms */
	/* Due at 1000 intervals, read 3 ms later. */
	assert_int_equal(agent_sample_end(1000 * w + 3000000, w), 1000 * w);
	/* Exactly on time. */
	assert_int_equal(agent_sample_end(1000 * w, w), 1000 * w);
	/* Just before the next grid point: still this one. */
	assert_int_equal(agent_sample_end(1001 * w - 1, w), 1000 * w);
	/* After a stall of several intervals: the latest grid point. */
	assert_int_equal(agent_sample_end(1005 * w + 7, w), 1005 * w);
}

/* Two consecutive reads a few ms late each make a sample of exactly one
 * interval: an agent that dies after it leaves nothing in the next. */
static void
test_consecutive_samples_cover_whole_intervals(void **st)
{
	(void)st;
	const uint64_t w = 1000000000;
	uint64_t a = agent_sample_end(42 * w + 4000000, w);
	uint64_t b = agent_sample_end(43 * w + 9000000, w);
	assert_int_equal(b - a, w);
	assert_int_equal(b % w, 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_late_is_stamped_on_the_grid),
		cmocka_unit_test(test_consecutive_samples_cover_whole_intervals),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

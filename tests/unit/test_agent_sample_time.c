/* grove-agent's sample stamps: on the interval grid, so a sample never
 * straddles a few ms into the next interval; and what a sample holds:
 * the rate its reads saw, over the time its stamp says, also when a read
 * came late (a stalled agent). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "agent/metrics.h"
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

static void
test_scale_is_stamped_over_read_length(void **st)
{
	(void)st;
	const uint64_t w = 1000000000, ms = 1000000;
	/* Reads 4 ms and 9 ms late: a little less than one. */
	double s = agent_sample_scale(42 * w, 43 * w, 42 * w + 4 * ms,
	    43 * w + 9 * ms);
	assert_true(s > 0.99 && s < 1.0);
	/* The read that ends a stall, 300 ms late: scaled down. */
	s = agent_sample_scale(42 * w, 43 * w, 42 * w, 43 * w + 300 * ms);
	assert_true(s > 0.76 && s < 0.77);
	/* The sample after it: scaled up by 1 / 0.7. */
	s = agent_sample_scale(43 * w, 44 * w, 43 * w + 300 * ms, 44 * w);
	assert_true(s > 1.42 && s < 1.43);
	/* Reads covering exactly half of the stamp: still sent. */
	assert_true(agent_sample_scale(0, w, w / 2, w) == 2.0);
	/* Less than half (the stall ended 800 ms late): not sent. */
	assert_true(agent_sample_scale(43 * w, 44 * w, 43 * w + 800 * ms,
	    44 * w + 2 * ms) == 0);
	/* Empty windows. */
	assert_true(agent_sample_scale(5, 5, 1, 9) == 0);
	assert_true(agent_sample_scale(1, 9, 5, 5) == 0);
	assert_true(agent_sample_scale(1, 9, 6, 5) == 0);
}

/* A node switching contexts at a steady rate: its ctxt counter at time
 * t (ns), and the reading an agent takes then. */
#define RATE 850.0 /* switches per second */

static metric_snapshot
reading(uint64_t t)
{
	metric_snapshot s;
	memset(&s, 0, sizeof s);
	s.t_ns = t;
	s.ctxt = (uint64_t)(RATE * (double)t / 1e9 + 0.5);
	s.cpu_total = t / 10000000; /* 100 jiffies a second, 40% busy */
	s.cpu_busy = s.cpu_total * 2 / 5;
	s.mem_used_mib = 900;
	return s;
}

/* The agent's reads, as sample_top makes them into samples: read times
 * (ns) at grid points plus how late each read was, a stall among them.
 * Every sample sent shows the node's rate over its stamp, not what the
 * late read left for it; the one whose reads cover too little of its
 * stamp is not sent. */
static void
test_stalled_agent_sends_no_fake_minimum(void **st)
{
	(void)st;
	const uint64_t w = 1000000000, ms = 1000000;
	const uint64_t reads[] = {
		10 * w + 300 * ms,   /* started */
		11 * w + 3 * ms, 12 * w + 2 * ms, 13 * w + 4 * ms,
		18 * w + 300 * ms,   /* stopped for five seconds */
		19 * w + 3 * ms,     /* 700 ms of reads for 1 s: scaled */
		20 * w + 2 * ms,
		25 * w + 800 * ms,   /* stopped again */
		26 * w + 3 * ms,     /* 200 ms of reads for 1 s: not sent */
		27 * w + 2 * ms, 28 * w + 5 * ms,
	};
	const size_t n = sizeof reads / sizeof reads[0];
	metric_snapshot prev = reading(reads[0]);
	uint64_t prev_end = reads[0];
	unsigned sent = 0;
	uint64_t covered = 0;
	for (size_t i = 1; i < n; i++) {
		metric_snapshot cur = reading(reads[i]);
		uint64_t end = agent_sample_end(reads[i], w);
		double v[METRIC_COUNT];
		int send = agent_sample_amounts(&prev, prev_end, &cur, end, v);
		if (send) {
			double secs = (double)(end - prev_end) / 1e9;
			double rate = v[METRIC_CTXSW] / secs;
			/* The counter is whole switches: a switch or two
			 * off over the shortest read window. */
			assert_true(rate > RATE - 3 && rate < RATE + 3);
			assert_true(v[METRIC_CPU] / secs > 39 &&
			    v[METRIC_CPU] / secs < 41);
			assert_true(v[METRIC_MEM] / secs > 899.9 &&
			    v[METRIC_MEM] / secs < 900.1);
			sent++;
			covered += end - prev_end;
		}
		/* Only the sample after the 800 ms late read is left out. */
		assert_int_equal(send, i != 8);
		prev = cur;
		prev_end = end;
	}
	assert_int_equal(sent, n - 2);
	/* From the start to 28 s, but for the interval left out. */
	assert_int_equal(covered, 28 * w - reads[0] - w);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_late_is_stamped_on_the_grid),
		cmocka_unit_test(test_consecutive_samples_cover_whole_intervals),
		cmocka_unit_test(test_scale_is_stamped_over_read_length),
		cmocka_unit_test(test_stalled_agent_sends_no_fake_minimum),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

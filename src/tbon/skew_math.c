/* Clock-skew arithmetic: samples, minimum-delay selection, accumulation
 * along a path, and the validation offsets.  Pure code except for the
 * clock read at the end; unit-tested in tests/unit/test_skew.c. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "grove/error.h"
#include "tbon/skew.h"

int
skew_sample_from_stamps(int64_t t1, int64_t t2, int64_t t3, int64_t t4,
    skew_sample *out)
{
	int64_t fwd, back, rtt, turn, sum, delay;
	/* Stamps come from the network: every step is checked. */
	if (__builtin_sub_overflow(t2, t1, &fwd) ||
	    __builtin_sub_overflow(t3, t4, &back) ||
	    __builtin_sub_overflow(t4, t1, &rtt) ||
	    __builtin_sub_overflow(t3, t2, &turn) ||
	    __builtin_add_overflow(fwd, back, &sum) ||
	    __builtin_sub_overflow(rtt, turn, &delay))
		return GROVE_ERANGE;
	if (delay < 0 || rtt < 0 || turn < 0)
		return GROVE_ERANGE;
	/* Rounds towards minus infinity; the bound covers the half ns. */
	out->offset_ns = sum / 2 - (sum % 2 < 0);
	out->delay_ns = (uint64_t)delay;
	return 0;
}

uint64_t
skew_error_of_delay(uint64_t delay_ns)
{
	return delay_ns / 2 + (delay_ns & 1u);
}

void
skew_best_init(skew_best *b)
{
	memset(b, 0, sizeof *b);
	b->error_ns = SKEW_UNKNOWN;
}

void
skew_best_add(skew_best *b, const skew_sample *s)
{
	if (b->samples++ && s->delay_ns >= b->delay_ns)
		return;
	b->offset_ns = s->offset_ns;
	b->delay_ns = s->delay_ns;
	b->error_ns = skew_error_of_delay(s->delay_ns);
}

int
skew_accumulate(int64_t link_off, uint64_t link_err, int64_t below_off,
    uint64_t below_err, int64_t *off, uint64_t *err)
{
	int64_t o;
	uint64_t e;
	if (link_err == SKEW_UNKNOWN || below_err == SKEW_UNKNOWN ||
	    __builtin_add_overflow(link_off, below_off, &o) ||
	    __builtin_add_overflow(link_err, below_err, &e) || e == SKEW_UNKNOWN)
		return GROVE_ERANGE;
	*off = o;
	*err = e;
	return 0;
}

int64_t
skew_clock_ns(int64_t inject_ns)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec + inject_ns;
}

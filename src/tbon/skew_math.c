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

/* A signed decimal that fills the whole range [s, end). */
static int
parse_i64(const char *s, const char *end, int64_t *out)
{
	char buf[32];
	size_t len = (size_t)(end - s);
	if (len == 0 || len >= sizeof buf)
		return -1;
	memcpy(buf, s, len);
	buf[len] = 0;
	char *e;
	errno = 0;
	long long v = strtoll(buf, &e, 10);
	if (errno || *e || e == buf)
		return -1;
	*out = v;
	return 0;
}

int
skew_inject_parse(const char *spec, int is_cp, uint32_t id, int64_t *out,
    char *err, size_t errlen)
{
	*out = 0;
	if (!spec || !*spec)
		return 0;
	const char *colon = strchr(spec, ':');
	if (!colon) {
		/* "STEP": BE rank r adds r * STEP; CPs add nothing. */
		int64_t step, v;
		if (parse_i64(spec, spec + strlen(spec), &step) != 0) {
			snprintf(err, errlen, "GROVE_CLOCK_INJECT_NS: '%s' is not a "
			    "number of nanoseconds", spec);
			return GROVE_EINVAL;
		}
		if (__builtin_mul_overflow(step, (int64_t)id, &v) ||
		    v > SKEW_INJECT_MAX || v < -SKEW_INJECT_MAX) {
			snprintf(err, errlen, "GROVE_CLOCK_INJECT_NS: %s * rank %u "
			    "is beyond +-%lld ns", spec, id,
			    (long long)SKEW_INJECT_MAX);
			return GROVE_EINVAL;
		}
		*out = is_cp ? 0 : v;
		return 0;
	}
	int64_t mine = 0;
	for (const char *item = spec; *item;) {
		const char *end = strchr(item, ',');
		if (!end)
			end = item + strlen(item);
		const char *c = memchr(item, ':', (size_t)(end - item));
		const char *who = item;
		int item_cp = 0;
		int64_t target, ns;
		if (end - item >= 2 && !strncmp(item, "cp", 2)) {
			item_cp = 1;
			who += 2;
		}
		if (!c || parse_i64(who, c, &target) != 0 || target < 0 ||
		    target > (int64_t)UINT32_MAX || parse_i64(c + 1, end, &ns) != 0 ||
		    ns > SKEW_INJECT_MAX || ns < -SKEW_INJECT_MAX) {
			snprintf(err, errlen, "GROVE_CLOCK_INJECT_NS: bad item '%.*s' "
			    "(want RANK:NS or cpNODE:NS, |NS| <= %lld)", (int)(end - item), item,
			    (long long)SKEW_INJECT_MAX);
			return GROVE_EINVAL;
		}
		if (item_cp == !!is_cp && (uint32_t)target == id)
			mine = ns;
		item = *end ? end + 1 : end;
	}
	*out = mine;
	return 0;
}

int64_t
skew_clock_ns(int64_t inject_ns)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec + inject_ns;
}

/* The validation offset a process adds to its clock
 * (GROVE_CLOCK_INJECT_NS, see docs/clock-skew.md).  In core because two
 * layers read it: the tbon's skew protocol, which measures the offset,
 * and the trace layer, which records in each event space the clock that
 * protocol sees (trace must not depend on tbon).  Pure code. */
#include "core/clock_inject.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grove/error.h"

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
clock_inject_parse(const char *spec, int is_cp, uint32_t id, int64_t *out,
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
		    v > CLOCK_INJECT_MAX || v < -CLOCK_INJECT_MAX) {
			snprintf(err, errlen, "GROVE_CLOCK_INJECT_NS: %s * rank %u "
			    "is beyond +-%lld ns", spec, id,
			    (long long)CLOCK_INJECT_MAX);
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
		    ns > CLOCK_INJECT_MAX || ns < -CLOCK_INJECT_MAX) {
			snprintf(err, errlen, "GROVE_CLOCK_INJECT_NS: bad item '%.*s' "
			    "(want RANK:NS or cpNODE:NS, |NS| <= %lld)", (int)(end - item), item,
			    (long long)CLOCK_INJECT_MAX);
			return GROVE_EINVAL;
		}
		if (item_cp == !!is_cp && (uint32_t)target == id)
			mine = ns;
		item = *end ? end + 1 : end;
	}
	*out = mine;
	return 0;
}

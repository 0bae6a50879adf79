/* The validation offset of a process's clock, GROVE_CLOCK_INJECT_NS
 * (internal; see docs/clock-skew.md).  Read by the tbon's skew protocol
 * and by the trace layer, so it lives below both. */
#ifndef GROVE_CORE_CLOCK_INJECT_H
#define GROVE_CORE_CLOCK_INJECT_H

#include <stddef.h>
#include <stdint.h>

/* Largest validation offset, ns (about three years), so that a clock
 * plus the offset cannot overflow. */
#define CLOCK_INJECT_MAX 100000000000000000LL

/* The artificial offset a process adds to its clock, from the value of
 * GROVE_CLOCK_INJECT_NS (validation only):
 *   "STEP"                    BE rank r adds r * STEP
 *   "ITEM,ITEM,..."           ITEM = "R:NS" for BE rank R, or "cpN:NS"
 *                             for the communication process with
 *                             topology node id N
 * is_cp selects which kind of process asks, id is its BE rank or node id.
 * NULL or "" injects nothing.  Offsets are limited to +-CLOCK_INJECT_MAX.
 * GROVE_EINVAL with a message in err for a malformed value or an
 * overflow. */
int clock_inject_parse(const char *spec, int is_cp, uint32_t id,
    int64_t *out, char *err, size_t errlen);

#endif

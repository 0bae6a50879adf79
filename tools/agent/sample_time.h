/* When a grove-agent sample ends: pure arithmetic on the agent's clock,
 * kept apart from agent_main.c so it is unit-tested. */
#ifndef GROVE_AGENT_SAMPLE_TIME_H
#define GROVE_AGENT_SAMPLE_TIME_H

#include <stdint.h>

/* The end to stamp on a sample read at `now` (interval_ns > 0): the
 * latest point of the interval grid k * interval_ns at or before now.
 *
 * The read is due at a grid point but happens a few ms after it.  Were
 * it stamped `now`, every sample would straddle into the next interval by
 * those few ms, and the sample of an agent that then dies would put a
 * sliver of a rank into that interval: the tree divides every rank's
 * amount by the whole interval, so the sliver shows as a fake minimum and
 * pulls the average down.  Stamped on the grid, samples cover whole
 * intervals (only the first one starts where the agent started), at the
 * cost of a few ms of timing error in what they read.
 *
 * A sample whose stamp is not after the previous end (the clock went
 * backwards, or two reads in one grid step) is skipped by the caller:
 * the tree refuses end <= start. */
uint64_t agent_sample_end(uint64_t now, uint64_t interval_ns);

#endif

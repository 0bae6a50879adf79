/* When a grove-agent sample ends, and how what it read becomes what it
 * sends: pure arithmetic on the agent's clock, kept apart from
 * agent_main.c so it is unit-tested. */
#ifndef GROVE_AGENT_SAMPLE_TIME_H
#define GROVE_AGENT_SAMPLE_TIME_H

#include <stdint.h>

#include "metrics.h"

/* The end to stamp on a sample read at `now` (interval_ns > 0): the
 * latest point of the interval grid k * interval_ns at or before now.
 *
 * The read is due at a grid point but happens a few ms after it.  Were
 * it stamped `now`, every sample would straddle into the next interval by
 * those few ms, and the sample of an agent that then dies would put a
 * sliver of a rank into that interval: the tree divides every rank's
 * amount by the whole interval, so the sliver shows as a fake minimum and
 * pulls the average down.  Stamped on the grid, samples cover whole
 * intervals (only the first one starts where the agent started); what
 * was read between the grid point and the read is accounted for by
 * agent_sample_scale.
 *
 * A sample whose stamp is not after the previous end (the clock went
 * backwards, or two reads in one grid step) is skipped by the caller:
 * the tree refuses end <= start. */
uint64_t agent_sample_end(uint64_t now, uint64_t interval_ns);

/* A sample is stamped [start, end) on the grid, but its readings were
 * taken at read_start and read_end, the real times of the two reads.
 * Usually the two windows differ by the few ms each read is late.  After
 * a stall (a stopped agent, a long scheduling delay) they differ by up to
 * an interval: the read that ends the stall is stamped with the grid
 * point before it, so the sample after it is stamped a whole interval
 * but holds only what happened from that late read on.  Sent as it is,
 * it would show as a fake minimum of every counter (and the one before
 * as a fake maximum).
 *
 * Returns the factor that turns the amounts read over [read_start,
 * read_end) into amounts over [start, end) at the same rate (the
 * stamped length over the read length), so every sample holds what its
 * stamp says.  Returns 0, send nothing, when the reads cover less than
 * half of the stamped length: a rate measured over a sliver would be
 * mostly noise scaled up, and the rank rather shows as missing in that
 * interval.  Also 0 when either window is empty. */
double agent_sample_scale(uint64_t start, uint64_t end, uint64_t read_start,
    uint64_t read_end);

/* The amounts to send for the sample stamped [prev_end, end), from the
 * readings prev and cur (their t_ns: when they were really read), into
 * out[METRIC_COUNT]: metrics_amounts scaled by agent_sample_scale.
 * Returns 1 when the sample is to be sent, 0 when it is not (end not
 * after prev_end, or a scale of 0). */
int agent_sample_amounts(const metric_snapshot *prev, uint64_t prev_end,
    const metric_snapshot *cur, uint64_t end, double *out);

#endif

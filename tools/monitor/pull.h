/* When grove monitor reads its scope between two views: paced by the
 * rates of the rings (scope/pace.h: by default the busiest ring is read
 * when about a quarter full; --pull S fixes the period), and with --cosched
 * gated by the job's processes being blocked (cosched.h): a pull waits
 * for a blocked moment in the second half of its period, and is made
 * anyway (forced) when the period is over. */
#ifndef GROVE_TOOLS_MONITOR_PULL_H
#define GROVE_TOOLS_MONITOR_PULL_H

#include "cosched.h"
#include "scope/pace.h"
#include "scope/scope.h"

struct monitor_pull {
	struct scope_pace pace;
	struct cosched *cs;   /* NULL: not coscheduled; not owned */
	double last;          /* CLOCK_MONOTONIC s of the last pull */
};

/* Periods between min_s and max_s (equal: a fixed period). */
void monitor_pull_init(struct monitor_pull *m, double min_s, double max_s,
                       struct cosched *cs);

/* One pull now (the first view's). 0 or scope_poll's error. */
int monitor_pull_now(struct monitor_pull *m, struct scope *s);

/* Spends `seconds` pulling s as paced.  Without coscheduling a pull is
 * made at the end too, unless the last one is less than half a period
 * old, so that the view shows what is new; with it the view shows what
 * the gated pulls read.  0 or scope_poll's error. */
int monitor_pull_for(struct monitor_pull *m, struct scope *s,
                     double seconds);

#endif

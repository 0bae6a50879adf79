/* When grove monitor pulls between two views: paced by the rates of the
 * rings (scope/pace.h: by default the busiest ring is read when about a
 * quarter full; --pull S fixes the period), whatever does the pull (a
 * direct read of this host's spaces, a pull through the tree, the
 * readers of a job's hosts), and with --cosched (direct reads only)
 * gated by the job's processes being blocked (cosched.h): a pull waits
 * for a blocked moment in the second half of its period, and is made
 * anyway (forced) when the period is over. */
#ifndef GROVE_TOOLS_MONITOR_PULL_H
#define GROVE_TOOLS_MONITOR_PULL_H

#include "cosched.h"
#include "scope/pace.h"
#include "scope/scope.h"

/* One pull: 0 (with *peak_fill the largest share of a ring's slots
 * written since the last pull, as scope.peak_fill) or an error, which
 * ends the watch. */
typedef int (*monitor_pull_fn)(void *ctx, double *peak_fill);

struct monitor_pull {
	struct scope_pace pace;
	monitor_pull_fn fn;
	void *ctx;
	struct cosched *cs;   /* NULL: not coscheduled; not owned */
	struct scope *gate;   /* with cs: the scope whose processes gate */
	double last;          /* CLOCK_MONOTONIC s of the last pull */
};

/* Periods between min_s and max_s (equal: a fixed period), pulls made
 * by fn(ctx). */
void monitor_pull_init(struct monitor_pull *m, double min_s, double max_s,
                       monitor_pull_fn fn, void *ctx);

/* The period from min_s, max_s and --pull (0: auto; PULL_MIN_S .. the
 * view's interval), as every watch takes it. */
void monitor_pull_default(struct monitor_pull *m, double interval,
                          double pull, monitor_pull_fn fn, void *ctx);

/* Pulls wait for a blocked process of scope s (--cosched). */
void monitor_pull_cosched(struct monitor_pull *m, struct cosched *cs,
                          struct scope *s);

/* A monitor_pull_fn of a direct read: scope_poll of ctx (a scope). */
int monitor_pull_scope(void *ctx, double *peak_fill);

/* One pull now (the first view's). 0 or the pull's error. */
int monitor_pull_now(struct monitor_pull *m);

/* Spends `seconds` pulling as paced.  Without coscheduling a pull is
 * made at the end too, unless the last one is less than half a period
 * old, so that the view shows what is new; with it the view shows what
 * the gated pulls read.  0 or the pull's error. */
int monitor_pull_for(struct monitor_pull *m, double seconds);

#endif

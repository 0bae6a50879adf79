/* The whole analysis of a set of event spaces, fed tuple by tuple
 * (internal, src/monitor).
 *
 * One pathmap and every accumulator of the module, wired together:
 * collective calls are joined into instances (instances.h), whose
 * completion feeds the load balance (balance.h) and the arrival and
 * departure orders (order.h); link ends are joined into messages
 * (links.h), which feed the message latencies of the path statistics
 * (pathstats.h) and the clock check (clockcheck.h); every tuple also
 * feeds the path statistics and the timelines (timeline.h).
 *
 * Use: register each process (mon_pathmap_proc on a->pm) and its
 * collectors (mon_pathmap_collector), then feed its rings' tuples in
 * ring order, with times on the common timeline, and say how many
 * tuples were lost before they could be read.  Feeding may go on at any
 * time (a live view polls its readers and feeds what is new); the
 * results can be read between feeds.  Two analyses (two hosts' parts)
 * merge. */
#ifndef GROVE_MONITOR_ANALYSIS_H
#define GROVE_MONITOR_ANALYSIS_H

#include <stddef.h>
#include <stdint.h>

#include "monitor/balance.h"
#include "monitor/clockcheck.h"
#include "monitor/instances.h"
#include "monitor/links.h"
#include "monitor/order.h"
#include "monitor/pathmap.h"
#include "monitor/pathstats.h"
#include "monitor/routes.h"
#include "monitor/timeline.h"

struct mon_analysis_opts {
	size_t timeline_keep;  /* spans kept per process (0: 4096) */
	size_t order_keep;     /* instances kept per communicator (0: 16) */
	size_t max_open;       /* open collective instances (0: 65536) */
	size_t max_pending;    /* link ends waiting for the other (0: 4M) */
	/* NULL, or whether both ends of link "link:from->to" are fed here:
	 * a reader of one host's spaces (an event scope's) joins only the
	 * messages whose both ends it reads, instead of keeping ends whose
	 * other end is read elsewhere until max_pending is full. */
	int (*link_local)(void *ctx, int64_t from, int64_t to);
	void *link_ctx;
};

struct mon_analysis {
	struct mon_pathmap pm;
	struct mon_instances *inst;
	struct mon_links *links;
	struct mon_balance *balance;
	struct mon_pathstats *stats;
	struct mon_timeline *timeline;
	struct mon_order *order;
	struct mon_clockcheck *clock;
	int (*link_local)(void *ctx, int64_t from, int64_t to);
	void *link_ctx;
	struct mon_routes routes;  /* the accumulators' entries per collector */
	/* While a tuple is fed: its route (NULL: none), whose memo the
	 * instance it completes, if any, counts through. */
	struct mon_route *feeding;
	uint64_t tuples;   /* fed */
	uint64_t lost;     /* reported lost */
	int err;           /* the first failure of a completion (ENOMEM) */
};

/* opts may be NULL (the defaults).  NULL: out of memory. */
struct mon_analysis *mon_analysis_new(const struct mon_analysis_opts *opts);
void mon_analysis_free(struct mon_analysis *a);

/* n tuples of process proc (an index of a->pm), ring `ring`, oldest
 * first.  0 or GROVE_ENOMEM (the analysis is then incomplete but
 * consistent); GROVE_EINVAL for an unknown process. */
int mon_analysis_feed(struct mon_analysis *a, uint32_t proc, uint32_t ring,
                      const struct mon_tuple *t, size_t n);

/* n tuples of process proc were lost (overwritten before they were
 * read): counted, and reported with the results. */
void mon_analysis_lost(struct mon_analysis *a, uint32_t proc, uint64_t n);

/* a := a and b: the processes of b (their counts) and every
 * accumulator.  GROVE_ENOMEM. */
int mon_analysis_merge(struct mon_analysis *a, const struct mon_analysis *b);

#endif

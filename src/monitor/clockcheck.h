/* The accuracy of the common timeline (virtual event space paper,
 * "Global Clock Accuracy"; internal, src/monitor).
 *
 * Grove puts the processes of several hosts on the front-end's clock
 * (docs/tracing.md, "Hosts on one timeline").  Whatever that correction
 * got wrong shows in the messages: on a right timeline no message is
 * received before it was sent.  For every message joined through the
 * pathmap (links.h), d = receive (its end) - send (its start) on the
 * common timeline; d < 0 is a violation, by -d.
 *
 * If host H's clock is still off by e after the correction (relative to
 * the hosts it talks to), its incoming messages show d = latency + e and
 * its outgoing ones d = latency - e.  So, without violations,
 *
 *     -min d(out of H)  <  e  <  min d(into H)
 *
 * is the bound the messages give; a violation means the correction is
 * off by at least its size.  Computed per host over the messages that
 * cross between hosts, or, on a single host, over all its messages (one
 * clock: the bound is then just the smallest latency seen), and per
 * process the same way.  Counts and minima only, so accumulators of two
 * hosts merge. */
#ifndef GROVE_MONITOR_CLOCKCHECK_H
#define GROVE_MONITOR_CLOCKCHECK_H

#include <stddef.h>
#include <stdint.h>

#include "monitor/links.h"

struct mon_clockcheck;

struct mon_clockcheck *mon_clockcheck_new(void);
void mon_clockcheck_free(struct mon_clockcheck *c);

/* One joined message.  GROVE_ENOMEM. */
int mon_clockcheck_message(struct mon_clockcheck *c, const struct mon_msg *m);
int mon_clockcheck_merge(struct mon_clockcheck *a,
                         const struct mon_clockcheck *b);

#define MON_CLOCK_NONE INT64_MAX /* no message of that direction */

struct mon_clock_bound {
	char name[MON_HOST_LEN];    /* the host, or the process's label */
	int cross;           /* 1: over messages with other hosts/processes
	                        of another host; 0: within one host only */
	uint64_t messages;   /* messages checked */
	uint64_t violations; /* received before they were sent */
	uint64_t worst_ns;   /* the largest violation, 0 without */
	int64_t min_in_ns;   /* smallest d of messages into it, or NONE */
	int64_t min_out_ns;  /* smallest d of messages out of it, or NONE */
};

/* Per host (by_process 0) or per process (1), sorted by name; malloc'ed
 * (free it).  GROVE_ENOMEM. */
int mon_clockcheck_bounds(const struct mon_clockcheck *c, int by_process,
                          struct mon_clock_bound **out, size_t *n);

/* Messages checked and violations in all. */
void mon_clockcheck_totals(const struct mon_clockcheck *c, uint64_t *messages,
                           uint64_t *violations, uint64_t *worst_ns);

#endif

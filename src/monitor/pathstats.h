/* Statistics per path, and hotspots (EventSpace monitoring paper, 4.3;
 * internal, src/monitor).
 *
 * A path is one collector of one process (its name, layer and place:
 * "cp 1" link.writev on "link:1->0", "mpi 0" MPI_Send on
 * "rank:0->rank:3") and one operation; a link's messages are a path too
 * (the receiver's "link.message" on the link, op "latency from ROLE":
 * from the start of the send to the receive, joined by links.h).  Per
 * path: count, mean, min, max and standard deviation of the tuples'
 * durations (end - start), by Welford's method, so that two hosts'
 * accumulators merge into the statistics of all samples.  The tag, peer
 * and communicator instants of MPI calls belong to their call and are
 * left out, as grove trace stats leaves them out.
 *
 * Hotspots: a path's peers are the other paths with the same collector
 * name, layer and operation recorded by processes of the same role (one
 * CP's children's links and another CP's; every rank's MPI_Send to each
 * of its peers).  A path is a hotspot when its mean differs from the mean
 * of its peers' means by more than k standard deviations of those means
 * (the spread between peer paths, each path one value, combined with the
 * standard error of the path's own mean; at least 1 ns), counting only
 * paths with at least min_count samples, and only with two such peers
 * or more.  So one slow link among a CP's children, or one slow peer
 * among a rank's sends, stands out; a path without peers is never one.
 */
#ifndef GROVE_MONITOR_PATHSTATS_H
#define GROVE_MONITOR_PATHSTATS_H

#include <stddef.h>
#include <stdint.h>

#include "monitor/pathmap.h"
#include "monitor/welford.h"

struct mon_pathstats;

struct mon_pathstats *mon_pathstats_new(void);
void mon_pathstats_free(struct mon_pathstats *s);

/* One tuple of process proc.  GROVE_ENOMEM. */
int mon_pathstats_feed(struct mon_pathstats *s, const struct mon_pathmap *pm,
                       uint32_t proc, const struct mon_tuple *t);

/* mon_pathstats_feed in two steps, for a feeder that keeps the path of
 * each (process, collector, op) instead of finding it per tuple (the
 * analysis's routes): whether tuples of op feed a path at all (the
 * instants of MPI calls do not); the path a tuple of process proc (an
 * index of pm) feeds, created when new (NULL: out of memory), whose
 * address stays valid until s is freed; and one sample of it.  The path
 * depends on the process's label, the collector's registration and the
 * op, nothing else of the tuple. */
struct mon_path;
static inline int
mon_pathstats_takes(uint16_t op)
{
	return op != GROVE_OP_MPI_TAG && op != GROVE_OP_MPI_PEER &&
	       op != GROVE_OP_MPI_COMM;
}
struct mon_path *mon_pathstats_path(struct mon_pathstats *s,
                                    const struct mon_pathmap *pm,
                                    uint32_t proc, const struct mon_tuple *t);
void mon_pathstats_sample(struct mon_path *p, const struct mon_tuple *t);
/* One message on link `where` from a process of role from_role to the
 * process to_label (of role to_role), latency_ns from the send's start
 * to the receive.  GROVE_ENOMEM. */
int mon_pathstats_message(struct mon_pathstats *s, const char *to_label,
                          const char *to_role, const char *from_role,
                          const char *where, uint64_t latency_ns);
/* The path (proc, name, layer, where, op) of a process of role `role`
 * gets the samples summed up in w (an event scope's share: statistics
 * made elsewhere).  GROVE_ENOMEM. */
int mon_pathstats_put(struct mon_pathstats *s, const char *const part[5],
                      const char *role, const struct mon_welford *w);
/* Calls fn for every path with its parts (proc, name, layer, where, op),
 * its process's role and its accumulator, until fn returns non-zero
 * (that value is returned). */
typedef int (*mon_path_fn)(void *ctx, const char *const part[5],
                           const char *role, const struct mon_welford *w);
int mon_pathstats_each(const struct mon_pathstats *s, mon_path_fn fn,
                       void *ctx);
/* a := a and b.  GROVE_ENOMEM. */
int mon_pathstats_merge(struct mon_pathstats *a, const struct mon_pathstats *b);

struct mon_path_stats {
	char proc[MON_LABEL_LEN];
	char role[MON_ROLE_LEN];
	char name[MON_NAME_LEN];
	char layer[MON_LAYER_LEN];
	char where[MON_WHERE_LEN];
	char op[32];
	uint64_t count, min_ns, max_ns;
	double mean_ns, sd_ns;
	uint32_t group;       /* its peer group (an index, in order of the
	                         sorted paths) */
	uint32_t peers;       /* other paths of the group */
	uint64_t peer_count;  /* samples of those compared (min_count) */
	double peers_mean_ns; /* mean of their means */
	double peers_sd_ns;   /* standard deviation of their means */
	double z;             /* (mean - peers' mean) / spread (see above);
	                         0 with fewer than two peers compared */
	int hotspot;          /* +1 slower than its peers, -1 faster, 0 not */
};

/* Every path, sorted by process (mon_label_cmp), name, where and op, with
 * hotspots marked for threshold k (> 0) and min_count; malloc'ed (free
 * it).  GROVE_EINVAL for k <= 0, GROVE_ENOMEM. */
int mon_pathstats_results(const struct mon_pathstats *s, double k,
                          uint64_t min_count, struct mon_path_stats **out,
                          size_t *n);

#endif

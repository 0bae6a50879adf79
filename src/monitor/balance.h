/* Load balance (EventSpace monitoring paper, 4.3): for every collective
 * wave, who arrived last, counted per participant as a weighted tree
 * (internal, src/monitor).
 *
 * TBON: every node records, per wave its synchronization filter
 * releases, a wave.last_be (result: the back-end's rank) or wave.last_cp
 * (result: the CP child's node id) tuple on the stream's collectors
 * (docs/tracing.md, "Which back-end was last").  Each such tuple counts
 * one last arrival of that child at that node: the tree's edges are
 * (node, child), weighted by those counts, one tree per stream.
 *
 * Grove MPI: every complete collective instance (instances.h) counts one
 * last arrival for the rank whose call started last on the common
 * timeline (of equal starts, the lowest rank in the communicator); the
 * tree of a communicator is its ranks under the communicator.
 *
 * Counts only add up, so two accumulators (two hosts' partial counts)
 * merge by adding: distributed analysis gathers these intermediate
 * results, never the tuples. */
#ifndef GROVE_MONITOR_BALANCE_H
#define GROVE_MONITOR_BALANCE_H

#include <stddef.h>
#include <stdint.h>

#include "monitor/instances.h"
#include "monitor/pathmap.h"

struct mon_balance;

struct mon_balance *mon_balance_new(void);
void mon_balance_free(struct mon_balance *b);

/* One tuple of process proc: counts the wave.last_* ones.  GROVE_ENOMEM. */
int mon_balance_feed(struct mon_balance *b, const struct mon_pathmap *pm,
                     uint32_t proc, const struct mon_tuple *t);
/* One complete MPI collective instance.  GROVE_ENOMEM. */
int mon_balance_instance(struct mon_balance *b, const struct mon_instance *in);

/* mon_balance_instance in steps, for a feeder that keeps the counters
 * of each (communicator, rank) instead of finding them by name per
 * instance (the analysis's routes): the member that was last (in->size
 * > 0); the counters of (scope, parent, child), made when new
 * (GROVE_ENOMEM), whose addresses stay valid until b is freed; k last
 * arrivals counted on them. */
struct mon_balance_at {
	uint64_t *last;   /* child's last arrivals at (scope, parent) */
	uint64_t *waves;  /* the waves of (scope, parent) */
};
uint32_t mon_balance_last(const struct mon_instance *in);
int mon_balance_counters(struct mon_balance *b, const char *scope,
                         const char *parent, const char *child,
                         struct mon_balance_at *at);
void mon_balance_count_at(struct mon_balance *b,
                          const struct mon_balance_at *at, uint64_t k);
/* k last arrivals of child at (scope, parent), counted elsewhere (an
 * event scope's share).  GROVE_ENOMEM. */
int mon_balance_add(struct mon_balance *b, const char *scope,
                    const char *parent, const char *child, uint64_t k);
/* a := a + b.  GROVE_ENOMEM. */
int mon_balance_merge(struct mon_balance *a, const struct mon_balance *b);

/* One weighted edge of a tree. */
struct mon_balance_edge {
	char scope[MON_WHERE_LEN];  /* "stream:1", "comm:3:0" */
	/* The node that waited: "fe 0", "cp 4"; for MPI the communicator,
	 * the same as scope. */
	char parent[MON_WHERE_LEN];
	char child[MON_LABEL_LEN];  /* "be 2", "cp 1", "mpi 3" */
	uint64_t last;              /* waves the child completed */
	uint64_t waves;             /* waves of (scope, parent) in all */
};

/* Every edge, sorted by scope, parent and child (mon_label_cmp), into a
 * malloc'ed array (free it).  GROVE_ENOMEM. */
int mon_balance_edges(const struct mon_balance *b,
                      struct mon_balance_edge **out, size_t *n);

/* Waves counted in all (every scope and node). */
uint64_t mon_balance_total(const struct mon_balance *b);

#endif

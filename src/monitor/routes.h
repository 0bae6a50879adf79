/* What a tuple of one collector of one process feeds, resolved once
 * (internal to the analysis, src/monitor).
 *
 * Feeding a tuple the slow way builds string keys (its path "mpi 0 |
 * MPI_Allreduce | mpi | rank:0 | mpi_call", its process's label) and
 * hashes them, for every tuple; a monitor reading a busy MPI job takes
 * hundreds of thousands a second.  The accumulators' entries never move
 * (map.h), so the analysis keeps their addresses per (process index,
 * collector id) and per process, and a tuple goes straight to them.
 *
 * What is kept depends on the pathmap only (the process's label, the
 * collector's registration): routes resolved with an older pathmap (see
 * mon_pathmap.gen: a process or collector added or replaced since) are
 * all dropped and resolved again.  The accumulators themselves may grow
 * and merge meanwhile: they keep their entries where they are.
 *
 * A communicator's collector (MON_K_MPI_COMM) also keeps, once an
 * instance of it completed through one of its tuples, the counters the
 * completion feeds: the load balance's of each rank, checked against
 * the rank's label, and the arrival order's state of the communicator
 * (balance.h, order.h). */
#ifndef GROVE_MONITOR_ROUTES_H
#define GROVE_MONITOR_ROUTES_H

#include <stdint.h>

#include "monitor/balance.h"
#include "monitor/instances.h"
#include "monitor/pathmap.h"

struct mon_path;
struct mon_tl_proc;
struct mon_order_st;

/* Communicators up to this size get a memo (an entry per rank). */
#define MON_MEMO_MAX 64u

struct mon_inst_memo {
	char scope[MON_WHERE_LEN];  /* the communicator it was made for */
	uint32_t size;
	struct mon_order_st *order; /* NULL until resolved */
	struct {
		char label[MON_LABEL_LEN];   /* the rank's process */
		struct mon_balance_at at;    /* .last NULL until resolved */
	} m[];                      /* size entries, by rank */
};

struct mon_route {
	struct mon_path *path;  /* the path statistics of op, or NULL */
	uint16_t op;            /* the op path was resolved for */
	struct mon_inst_memo *memo;  /* NULL until an instance completed */
	struct mon_inst_hint hint;   /* the instances' (instances.h) */
};

struct mon_proc_routes {
	uint32_t n;               /* routes: collector ids 0 .. n - 1 */
	struct mon_route *r;
	struct mon_tl_proc *tl;   /* its timeline, NULL until resolved */
};

struct mon_routes {
	uint64_t gen;             /* the pathmap's when resolved */
	uint32_t n;               /* processes with room */
	struct mon_proc_routes *p;
};

void mon_routes_free(struct mon_routes *r);

/* The memo of route rt for a complete instance of scope with size
 * members, made anew when it was made for another (NULL: too large a
 * communicator, or out of memory: then count the slow way). */
struct mon_inst_memo *mon_routes_memo(struct mon_route *rt,
                                      const char *scope, uint32_t size);

/* The routes of process proc of pm (proc < pm->n), all dropped first
 * when pm changed since they were resolved; room for every collector id
 * pm registered for it (ids beyond that are not routed).  NULL when out
 * of memory: then feed the slow way. */
struct mon_proc_routes *mon_routes_proc(struct mon_routes *r,
                                        const struct mon_pathmap *pm,
                                        uint32_t proc);

#endif

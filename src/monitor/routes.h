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
 * and merge meanwhile: they keep their entries where they are. */
#ifndef GROVE_MONITOR_ROUTES_H
#define GROVE_MONITOR_ROUTES_H

#include <stdint.h>

#include "monitor/pathmap.h"

struct mon_path;
struct mon_tl_proc;

struct mon_route {
	struct mon_path *path;  /* the path statistics of op, or NULL */
	uint16_t op;            /* the op path was resolved for */
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

/* The routes of process proc of pm (proc < pm->n), all dropped first
 * when pm changed since they were resolved; room for every collector id
 * pm registered for it (ids beyond that are not routed).  NULL when out
 * of memory: then feed the slow way. */
struct mon_proc_routes *mon_routes_proc(struct mon_routes *r,
                                        const struct mon_pathmap *pm,
                                        uint32_t proc);

#endif

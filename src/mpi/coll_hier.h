/* Hierarchical collectives (coll_hier.c, coll_hier_bcast.c,
 * coll_hier_plan.c): when a communicator's ranks are in more than one
 * cluster (clusters.h), Bcast, Reduce, Allreduce and Barrier run inside
 * each cluster first, then between one leader per cluster, then inside
 * the clusters again, so that as few messages as possible cross the
 * expensive links between clusters.  Schedules of point-to-point steps
 * (coll_sched.h) on the communicator itself: the "sub-communicators" are
 * lists of its ranks (cluster_map.h, mpi_hier_layout). */
#ifndef GROVE_MPI_COLL_HIER_H
#define GROVE_MPI_COLL_HIER_H

#include <grove/logp.h>

#include "mpi/cluster_map.h"
#include "mpi/coll_sched.h"

/* The layout of comm's clusters for root (arrays from s, which then
 * owns them); -1 with s->err set when out of memory. */
int mpi_hier_layout_for(struct mpi_sched *s, int root,
                        struct mpi_hier_layout *h);

/* Builders over a list of n ranks of s->comm of which this rank is
 * list[idx]; list[0] is the root. */
/* Binomial broadcast of buf from list[0]. */
void mpi_list_bcast(struct mpi_sched *s, const int *list, int n, int idx,
                    void *buf, size_t count, MPI_Datatype dt);
/* Binomial reduction (commutative op) of src into dst at list[0] (dst is
 * not used elsewhere; it may be src). */
void mpi_list_reduce(struct mpi_sched *s, const int *list, int n, int idx,
                     const void *src, void *dst, size_t count,
                     MPI_Datatype dt, MPI_Op op);
/* Recursive doubling allreduce of buf, in place, with MPICH's fold of
 * the indices beyond the largest power of two; partners combine lower
 * index op higher, so a non-commutative op is right in list order.
 * list NULL: the communicator's ranks in order (idx is then the rank).
 * One schedule for the flat and the hierarchical allreduce
 * (coll_allreduce.c). */
void mpi_list_allreduce(struct mpi_sched *s, const int *list, int n, int idx,
                        void *buf, size_t count, MPI_Datatype dt, MPI_Op op);

/* The hierarchical collectives (commutative ops only: the caller keeps
 * the flat algorithms, which respect rank order, for the others). */
void mpi_hier_build_bcast(struct mpi_sched *s, void *buf, size_t count,
                          MPI_Datatype dt, int root);
void mpi_hier_build_reduce(struct mpi_sched *s, const void *sendbuf,
                           void *recvbuf, size_t count, MPI_Datatype dt,
                           MPI_Op op, int root);
void mpi_hier_build_allreduce(struct mpi_sched *s, const void *sendbuf,
                              void *recvbuf, size_t count, MPI_Datatype dt,
                              MPI_Op op);
void mpi_hier_build_barrier(struct mpi_sched *s);

/* ---- MPI_Bcast between clusters (coll_hier_bcast.c) ----------------- */

/* GROVE_MPI_BCAST: how a broadcast over several clusters runs. */
enum mpi_bcast_algo {
	MPI_BCAST_PLOGP = 0, /* the P-LogP plan: segmented, pipelined two-
	                        layer tree (the default) */
	MPI_BCAST_BINOMIAL,  /* one binomial tree over all ranks, clusters
	                        ignored (MPICH's) */
	MPI_BCAST_MAGPIE,    /* MagPIe's original: the root sends the whole
	                        message to every other cluster's leader, one
	                        after the other, then binomial trees inside */
};
/* Parses GROVE_MPI_BCAST ("plogp", "binomial", "magpie"; NULL or "" is
 * plogp): 0 or -1. */
int mpi_bcast_algo_parse(const char *s, enum mpi_bcast_algo *out);
/* The algorithm chosen at MPI_Init (clusters.c). */
enum mpi_bcast_algo mpi_bcast_algo(void);

/* ---- the P-LogP plan (coll_hier_plan.c) ------------------------------- */

/* The plan for broadcasting `bytes` over `clusters` clusters of at most
 * per_cluster ranks, with the parameters of GROVE_LOGP_PARAMS (or the
 * defaults, docs/mpi.md): GROVE_LOGP_OPTIMIZED, or GROVE_LOGP_ORIGINAL
 * for MagPIe's scheme.  0, or a grove_err with the reason in err. */
int mpi_plogp_plan(uint64_t bytes, uint32_t clusters, uint32_t per_cluster,
                   grove_logp_scheme scheme, grove_logp_plan *out,
                   char *err, size_t errlen);
/* The parameters the plans use (loaded at first use; NULL with the
 * reason in err when they cannot be). */
const grove_logp_params *mpi_plogp_params(char *err, size_t errlen);
void mpi_plogp_fini(void);

#endif

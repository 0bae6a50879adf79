/* The job's cluster map and WAN emulation as the rest of Grove MPI sees
 * them (clusters.c, wan_shaper.c, coll_hier*.c).  The rules and the
 * environment variables are in cluster_map.h and docs/mpi.md
 * ("Clusters"). */
#ifndef GROVE_MPI_CLUSTERS_H
#define GROVE_MPI_CLUSTERS_H

#include "mpi/mpi_impl.h"

/* Wire-up hook (wireup.c): the gathered cards, card i being rank
 * ranks[i]'s; keeps their host names for the default cluster map.
 * Malformed cards were refused by wire-up already. */
void mpi_clusters_note_cards(const char *const *cards, const uint32_t *ranks,
                             uint64_t n, int size);

/* Init hook (init.c, after wire-up): makes the world's cluster map from
 * GROVE_MPI_CLUSTERS, else the cards' host names, else one cluster, and
 * sets up the WAN emulation of GROVE_MPI_WAN.  0, or -1 with the reason
 * in err (naming the variable). */
int mpi_clusters_init(int size, char *err, size_t errlen);
void mpi_clusters_fini(void);

/* Cluster of a world rank (0 when there is no map). */
int mpi_cluster_of_world(int world_rank);
/* Clusters in the job (1 when there is no map). */
int mpi_clusters_in_job(void);

/* Whether comm's ranks are in more than one cluster: its collectives
 * then run hierarchically (coll_hier.c). */
bool mpi_hier_spans(MPI_Comm comm);

/* ---- WAN emulation (wan_shaper.c) ----------------------------------- */

/* Sets the emulated WAN up (latency in us, bandwidth in B/s); 0 or -1
 * when out of memory. */
int mpi_wan_setup(double latency_us, double bytes_per_s);
void mpi_wan_fini(void);
/* Whether the emulation is on (GROVE_MPI_WAN was given) and, then, its
 * figures. */
bool mpi_wan_on(double *latency_us, double *bytes_per_s);
/* p2p hook: whether a send to world rank w goes through the emulated
 * WAN (on, w in another cluster, and not the shaper's own release). */
bool mpi_wan_crosses(int world_rank);
/* p2p hook: takes over a send request whose fields are filled (bytes
 * too): copies its data, completes it when the emulated link has sent
 * the last byte, and hands the copy to the transport one latency later.
 * MPI_SUCCESS or an error class (nothing started). */
int mpi_wan_defer(MPI_Request req);
/* Progress hook: releases and completes what is due; the number of
 * events. */
int mpi_wan_progress(void);
/* Wait hook (wake.c): nanoseconds until the next thing is due on
 * CLOCK_MONOTONIC, or -1 when nothing is pending. */
int64_t mpi_wan_next_due_ns(void);
/* Quiesce hook: true when nothing is pending. */
bool mpi_wan_idle(void);

#endif

/* Cluster maps: which ranks of a job share a cluster, and the layout of
 * a hierarchical collective over them (cluster_map.c, pure: usable
 * without MPI_Init; tests/unit/test_mpi_cluster_map.c).
 *
 * A cluster is a set of ranks whose links are cheap compared with the
 * links between clusters (the P-LogP paper's LAN and WAN).  By default
 * the ranks of one host form a cluster (host names from the wire-up
 * cards, card.h); GROVE_MPI_CLUSTERS names clusters explicitly so that
 * tests and benchmarks can emulate several clusters on one host:
 *
 *   "0-3,4-7"       clusters separated by ',', each a rank or a range;
 *   "0+2+4,1+3+5"   '+' joins ranks and ranges into one cluster;
 *   "4x2"           4 clusters of 2 consecutive ranks each.
 *
 * Every rank of the job must be in exactly one cluster.
 *
 * The WAN emulation (wan_shaper.c) is configured by GROVE_MPI_WAN,
 * "<latency>,<bandwidth>", e.g. "10ms,1MB/s" (latency units us, ms, s;
 * bandwidth units B/s, KB/s, MB/s, GB/s, decimal: 1 MB/s = 10^6 B/s).
 */
#ifndef GROVE_MPI_CLUSTER_MAP_H
#define GROVE_MPI_CLUSTER_MAP_H

#include <stddef.h>

/* Parses a GROVE_MPI_CLUSTERS spec for `size` ranks: cluster_of[r] gets
 * rank r's cluster (0 .. *nclusters - 1, numbered in the spec's order).
 * 0, or -1 with the reason in why ("at character 5 ('x'): ...", "rank 3
 * is in no cluster"). */
int mpi_cluster_parse(const char *spec, int size, int *cluster_of,
                      int *nclusters, char *why, size_t whylen);

/* Clusters from host names: ranks with equal host names share a cluster,
 * numbered in the order of their first rank. */
void mpi_cluster_from_hosts(const char *const *hosts, int size,
                            int *cluster_of, int *nclusters);

/* Parses GROVE_MPI_WAN: latency in microseconds and bandwidth in bytes
 * per second (both > 0).  0, or -1 with the reason in why. */
int mpi_wan_parse(const char *spec, double *latency_us, double *bytes_per_s,
                  char *why, size_t whylen);

/* The layout of a hierarchical collective over a communicator of n ranks
 * whose rank r is in cluster cl[r] (any non-negative ids), seen by rank
 * me, with root `root`:
 *   leaders     one rank per cluster: root for root's cluster, the lowest
 *               rank of the others; root's cluster first, then the
 *               others in increasing order of their leaders
 *   members     the ranks of me's cluster, its leader first, then in
 *               increasing order
 *   leader_idx  me's index in leaders, or -1 when me leads no cluster
 *   member_idx  me's index in members
 * The arrays have room for n ranks each (the caller's). */
struct mpi_hier_layout {
	int nleaders, nmembers;
	int *leaders, *members;
	int leader_idx, member_idx;
};
void mpi_hier_layout(const int *cl, int n, int me, int root,
                     struct mpi_hier_layout *h);

/* How many distinct clusters cl[0 .. n-1] names. */
int mpi_cluster_count(const int *cl, int n);

#endif

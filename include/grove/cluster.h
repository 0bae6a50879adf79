/* Grove cluster maps: which topology nodes form which cluster, and the
 * latency and bandwidth the link emulator gives links inside a cluster
 * ("lan") and between clusters ("wan").  One machine can then stand in
 * for a clustered wide-area system, as the P-LogP paper's own emulator did.
 *
 * Text format (docs/emulation.md), one statement per line, '#' comments:
 *
 *   wan latency 10ms bandwidth 1MB/s
 *   lan latency 0 bandwidth 0          # 0: not emulated
 *   cluster 0 nodes 0-16
 *   cluster 1 nodes 17-33,40
 *
 * Durations: a number with s, ms, us or ns (a bare 0 is allowed).
 * Bandwidths: a number with B/s, KB/s, MB/s, GB/s (powers of 1000),
 * KiB/s, MiB/s, GiB/s (powers of 1024) or bit/s, kbit/s, Mbit/s, Gbit/s;
 * 0 means unlimited.  Nodes are topology node ids (FE = node 0, CPs and
 * BEs in pre-order, see grove/topology.h); a node belongs to at most one
 * cluster.  A link one of whose ends is in no cluster is not emulated.
 *
 * Pure code: nothing here performs I/O except grove_cluster_map_parse_file,
 * and nothing exits or asserts on bad input.
 */
#ifndef GROVE_CLUSTER_H
#define GROVE_CLUSTER_H

#include <stddef.h>
#include <stdint.h>

#include "grove/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct grove_cluster_map grove_cluster_map;

/* What the emulator does to one direction of a link.  Both 0: nothing. */
typedef struct grove_link_params {
	double latency_s;      /* added one-way latency, seconds */
	double bandwidth_Bps;  /* bytes per second; 0: unlimited */
} grove_link_params;

/* The link classes a map has parameters for. */
typedef enum grove_link_class {
	GROVE_LINK_NONE = 0, /* an end is in no cluster: not emulated */
	GROVE_LINK_LAN = 1,  /* both ends in one cluster */
	GROVE_LINK_WAN = 2,  /* ends in different clusters */
} grove_link_class;

/* An empty map (no clusters, lan and wan not emulated). */
int grove_cluster_map_new(grove_cluster_map **out);
void grove_cluster_map_destroy(grove_cluster_map *m);

/* Put nodes first..last (inclusive) into cluster `cluster`.  GROVE_EINVAL
 * when first > last or a node already belongs to a cluster. */
int grove_cluster_map_add_range(grove_cluster_map *m, uint32_t cluster,
    uint32_t first, uint32_t last);
/* Parameters of a class (LAN or WAN).  GROVE_EINVAL for negative or
 * non-finite values or another class.  -0 and values too small to be
 * normal doubles (below about 2.2e-308) are stored as 0, so that
 * grove_cluster_map_to_string's text parses back. */
int grove_cluster_map_set_link(grove_cluster_map *m, grove_link_class cls,
    const grove_link_params *p);

/* Parse the text format; GROVE_ETOPO for a bad map, whose error names
 * the line, e.g. "line 4: node 17 is already in cluster 0 (line 3)". */
int grove_cluster_map_parse_string(const char *text, grove_cluster_map **out,
    char *err, size_t errlen);
int grove_cluster_map_parse_file(const char *path, grove_cluster_map **out,
    char *err, size_t errlen);
/* The map as text that parses back to the same map (caller frees). */
int grove_cluster_map_to_string(const grove_cluster_map *m, char **out);

/* The cluster of a node, or -1 when it is in none. */
int64_t grove_cluster_map_cluster_of(const grove_cluster_map *m,
    uint32_t node);
/* The class of the link between nodes a and b and its parameters (zero
 * for GROVE_LINK_NONE). */
grove_link_class grove_cluster_map_link(const grove_cluster_map *m, uint32_t a,
    uint32_t b, grove_link_params *out);
/* The largest node id the map names, or -1 when it names none (to check
 * a map against a topology). */
int64_t grove_cluster_map_max_node(const grove_cluster_map *m);

#ifdef __cplusplus
}
#endif
#endif

/* Front-end: the cluster map of the link emulator, from the options or
 * $GROVE_CLUSTER_MAP, checked against the topology and handed on to every
 * child in its bootstrap (each process emulates its own outgoing links). */
#include <stdio.h>
#include <stdlib.h>

#include "core/log.h"
#include "tbon/fe_internal.h"

int
fe_load_clusters(grove_net *net, const grove_net_opts *o)
{
	char err[1024];
	const char *env = getenv("GROVE_CLUSTER_MAP");
	const char *path = o->cluster_map_file ? o->cluster_map_file :
	    env && *env ? env : NULL;
	char *text = NULL;
	int rc = 0;
	grove_cluster_map *m = NULL;
	if (o->clusters) {
		/* A copy the network owns: the caller's map may go away. */
		rc = grove_cluster_map_to_string(o->clusters, &text);
		if (rc == 0)
			rc = grove_cluster_map_parse_string(text, &m, err, sizeof err);
		if (rc != 0) {
			fe_set_error(net, "cluster map: cannot copy it: %s",
			    grove_strerror(rc));
			free(text);
			return rc;
		}
	} else if (path) {
		rc = grove_cluster_map_parse_file(path, &m, err, sizeof err);
		if (rc != 0) {
			fe_set_error(net, "cluster map %s", err);
			return rc;
		}
		if ((rc = grove_cluster_map_to_string(m, &text)) != 0) {
			grove_cluster_map_destroy(m);
			return rc;
		}
	} else {
		return 0;
	}
	uint32_t size = grove_topo_size(net->topo);
	int64_t max = grove_cluster_map_max_node(m);
	if (max >= (int64_t)size) {
		fe_set_error(net, "cluster map%s%s: node %lld is not in the "
		    "topology (nodes 0..%u)", path && !o->clusters ? " " : "",
		    path && !o->clusters ? path : "", (long long)max, size - 1);
		grove_cluster_map_destroy(m);
		free(text);
		return GROVE_ETOPO;
	}
	log_info("link emulation: %s", path && !o->clusters ? path :
	    "cluster map from the options");
	net->n.clusters = m;
	net->b.clusters = text;
	return 0;
}

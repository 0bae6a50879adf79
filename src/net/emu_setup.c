/* Turning a cluster map into emulated links for a process's own outgoing
 * connections (internal; see net/emu.h for what emulation does). */
#include "net/emu_setup.h"

#include <stdio.h>
#include <stdlib.h>

#include "grove/error.h"

int
emu_setup_conn(conn *c, const char *text, int use_env, uint32_t from,
    uint32_t to, char *err, size_t errlen)
{
	grove_cluster_map *m = NULL;
	int rc = 0;
	const char *path = use_env && !text ? getenv("GROVE_CLUSTER_MAP") : NULL;
	if (text) {
		char why[512];
		rc = grove_cluster_map_parse_string(text, &m, why, sizeof why);
		if (rc != 0)
			snprintf(err, errlen, "cluster map from the bootstrap: %s",
			    why);
	} else if (path && *path) {
		rc = grove_cluster_map_parse_file(path, &m, err, errlen);
	}
	if (rc == 0 && m && (rc = conn_emulate_map(c, m, from, to)) != 0)
		snprintf(err, errlen, "cannot emulate the link from node %u to "
		    "node %u: %s", from, to, grove_strerror(rc));
	grove_cluster_map_destroy(m);
	return rc;
}

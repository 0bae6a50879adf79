#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "core/install_dirs.h"

#include "model_opts.h"
#include "topo/spec.h"

int
model_parse_size(const char *s, uint64_t *out)
{
	static const struct {
		const char *suffix;
		unsigned shift;
	} units[] = {
		{"", 0}, {"b", 0}, {"k", 10}, {"kb", 10}, {"kib", 10},
		{"m", 20}, {"mb", 20}, {"mib", 20}, {"g", 30}, {"gb", 30},
		{"gib", 30},
	};
	unsigned long long v;
	char *end;

	if (!s || s[0] < '0' || s[0] > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	for (unsigned i = 0; i < sizeof units / sizeof units[0]; i++) {
		if (strcasecmp(end, units[i].suffix))
			continue;
		if (v > (UINT64_MAX >> units[i].shift))
			return -1;
		*out = (uint64_t)v << units[i].shift;
		return 0;
	}
	return -1;
}

int
model_parse_u32(const char *s, uint32_t *out)
{
	unsigned long long v;
	char *end;

	if (!s || s[0] < '0' || s[0] > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v > UINT32_MAX)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

/* A bare name (no '/') that is no file in the current directory names
 * one of Grove's parameter files (default.params): share/grove/logp/ of
 * the installed tree, share/logp/ of the source tree for a grove that runs
 * from its build tree.  Anything else is the path as given. */
static const char *
params_path(const char *path, char *buf, size_t len)
{
	char rel[512];
	if (strchr(path, '/') || access(path, F_OK) == 0 ||
	    strlen(path) > sizeof rel - sizeof "logp/")
		return path;
	snprintf(rel, sizeof rel, "logp/%s", path);
	return install_find_data(rel, buf, len) == 0 ? buf : path;
}

grove_logp_params *
model_load_params(const char *cmd, const char *path)
{
	grove_logp_params *p = NULL;
	char err[512], found[4096];

	path = params_path(path, found, sizeof found);

	if (grove_logp_params_load(path, &p, err, sizeof err)) {
		fprintf(stderr, "grove %s: parameter file %s: %s\n", cmd, path,
		    err);
		return NULL;
	}
	return p;
}

int
model_bcast_topology(const char *cmd, const char *params_path,
    const char *clusters, const char *per_cluster, const char *size,
    grove_topo **out)
{
	grove_logp_system sys = {0, 0, GROVE_LOGP_LAN, GROVE_LOGP_WAN, 0, 0};
	grove_logp_params *p;
	grove_logp_plan plan;
	uint64_t bytes, P;
	int32_t *parent;
	char err[512];
	int rc;

	*out = NULL;
	if (!params_path || !clusters || !per_cluster || !size) {
		fprintf(stderr, "grove %s: --optimize-bcast needs --params, "
		    "--clusters, --per-cluster and --size\n", cmd);
		return 2;
	}
	if (model_parse_u32(clusters, &sys.clusters)) {
		fprintf(stderr, "grove %s: --clusters needs a number: %s\n",
		    cmd, clusters);
		return 2;
	}
	if (model_parse_u32(per_cluster, &sys.per_cluster)) {
		fprintf(stderr, "grove %s: --per-cluster needs a number: %s\n",
		    cmd, per_cluster);
		return 2;
	}
	if (model_parse_size(size, &bytes)) {
		fprintf(stderr, "grove %s: --size needs a size in bytes (4096, "
		    "64K, 4M): %s\n", cmd, size);
		return 2;
	}
	/* Before the search, which for a system far too large to start
	 * still takes seconds.  (Of no processes at all the model says
	 * more: which part of the cluster map is empty.) */
	P = (uint64_t)sys.clusters * sys.per_cluster;
	if (P == 1 || P > TOPO_MAX_BACKENDS) {
		fprintf(stderr, "grove %s: a topology needs 2 to %u processes "
		    "in all, not %llu\n", cmd, TOPO_MAX_BACKENDS,
		    (unsigned long long)P);
		return 1;
	}
	p = model_load_params(cmd, params_path);
	if (!p)
		return 1;
	rc = grove_logp_bcast_plan(p, &sys, GROVE_LOGP_OPTIMIZED, bytes, 1,
	    GROVE_LOGP_HEURISTIC, &plan, err, sizeof err);
	grove_logp_params_destroy(p);
	if (rc) {
		fprintf(stderr, "grove %s: %s%s%s\n", cmd,
		    rc == GROVE_ENOENT ? params_path : "",
		    rc == GROVE_ENOENT ? ": " : "", err);
		return 1;
	}
	parent = malloc(P * sizeof *parent);
	if (!parent) {
		fprintf(stderr, "grove %s: out of memory\n", cmd);
		return 1;
	}
	rc = grove_logp_tree_for_plan(&plan, &sys, parent);
	if (!rc)
		rc = grove_logp_tree_to_topo(parent, (uint32_t)P, NULL, out,
		    err, sizeof err);
	else
		snprintf(err, sizeof err, "%s", grove_strerror(rc));
	free(parent);
	if (rc) {
		fprintf(stderr, "grove %s: %s\n", cmd, err);
		return 1;
	}
	return 0;
}

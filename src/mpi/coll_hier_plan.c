/* The P-LogP plans of MPI_Bcast between clusters (coll_hier.h).
 *
 * Parameters: the file GROVE_LOGP_PARAMS names (written by `grove logp
 * measure`, docs/logp-measure.md), else the defaults below.  The local
 * class (links inside a cluster) is the file's "host" class, else its
 * "lan" class.  The wide class (between clusters) is, in this order:
 *   - with the WAN emulation on (GROVE_MPI_WAN), the emulated link: the
 *     local class with the latency added to L and bytes / bandwidth to
 *     the gap g (what wan_shaper.c does to a message);
 *   - the file's "wan" class;
 *   - the file's "lan" class when the local one is "host";
 *   - else the local class (no figures for the links between clusters:
 *     they are taken as fast as those inside).
 * Defaults (no file): a local class of L = 1 us and, from 1 byte to
 * 4 MiB, os = or = 0.5 .. 400 us and g = 0.3 .. 800 us (about 5 GB/s,
 * shared memory on a current host).
 *
 * Process-wide on purpose: the parameters are read once per process,
 * and plans are kept (a few, by message size and cluster shape) because
 * every rank calls a broadcast of one size many times. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/clusters.h"
#include "mpi/coll_hier.h"

#define PLAN_CACHE 32

static struct {
	grove_logp_params *params;
	grove_logp_class local, wide;
	bool loaded;
	struct cached_plan {
		bool used;
		uint64_t bytes;
		uint32_t clusters, per;
		grove_logp_scheme scheme;
		grove_logp_plan plan;
	} cache[PLAN_CACHE];
	int next;
} P;

static const grove_logp_sample default_local[] = {
	{1, 0.5, 0.5, 0.3, 0},
	{4194304, 400, 400, 800, 0},
};
#define DEFAULT_LOCAL_L 1.0

/* The emulated WAN as a class: the local class's samples (sizes 1 to
 * 4 MiB at least) with bytes / bandwidth added to g and the latency to
 * L. */
static int
set_emulated_wan(grove_logp_params *p, grove_logp_class local,
                 double lat_us, double bytes_per_s, char *err, size_t errlen)
{
	grove_logp_sample s[GROVE_LOGP_MAX_SAMPLES];
	size_t n = 0;
	for (uint64_t m = 1; m <= ((uint64_t)1 << 32) && n < 33; m <<= 1) {
		grove_logp_point pt;
		if (grove_logp_params_at(p, local, (double)m, &pt))
			return -1;
		s[n++] = (grove_logp_sample){m, pt.os, pt.or_,
		                             pt.g + (double)m * 1e6 / bytes_per_s,
		                             pt.w};
	}
	const grove_logp_sample *ls;
	double L;
	grove_logp_params_samples(p, local, &ls, &L);
	return grove_logp_params_set_class(p, GROVE_LOGP_WAN, L + lat_us, s, n,
	                                   err, errlen);
}

const grove_logp_params *
mpi_plogp_params(char *err, size_t errlen)
{
	if (P.loaded)
		return P.params;
	const char *path = getenv("GROVE_LOGP_PARAMS");
	grove_logp_params *p = NULL;
	char why[200];
	if (path && *path) {
		if (grove_logp_params_load(path, &p, why, sizeof why)) {
			snprintf(err, errlen, "GROVE_LOGP_PARAMS=%s: %s", path, why);
			return NULL;
		}
	} else {
		if (grove_logp_params_create(&p) ||
		    grove_logp_params_set_class(p, GROVE_LOGP_HOST, DEFAULT_LOCAL_L,
		                                default_local, 2, why, sizeof why)) {
			grove_logp_params_destroy(p);
			snprintf(err, errlen, "the default P-LogP parameters: %s",
			         why);
			return NULL;
		}
	}
	grove_logp_class local = grove_logp_params_has(p, GROVE_LOGP_HOST)
	                             ? GROVE_LOGP_HOST : GROVE_LOGP_LAN;
	if (!grove_logp_params_has(p, local)) {
		grove_logp_params_destroy(p);
		snprintf(err, errlen, "GROVE_LOGP_PARAMS=%s: neither a host nor a "
		         "lan class", path);
		return NULL;
	}
	double lat, bw;
	grove_logp_class wide = local;
	if (mpi_wan_on(&lat, &bw)) {
		if (set_emulated_wan(p, local, lat, bw, why, sizeof why)) {
			grove_logp_params_destroy(p);
			snprintf(err, errlen, "the emulated WAN's P-LogP class: %s",
			         why);
			return NULL;
		}
		wide = GROVE_LOGP_WAN;
	} else if (grove_logp_params_has(p, GROVE_LOGP_WAN)) {
		wide = GROVE_LOGP_WAN;
	} else if (grove_logp_params_has(p, GROVE_LOGP_LAN)) {
		wide = GROVE_LOGP_LAN;
	}
	P.params = p;
	P.local = local;
	P.wide = wide;
	P.loaded = true;
	return p;
}

int
mpi_plogp_plan(uint64_t bytes, uint32_t clusters, uint32_t per_cluster,
               grove_logp_scheme scheme, grove_logp_plan *out, char *err,
               size_t errlen)
{
	for (int i = 0; i < PLAN_CACHE; i++) {
		struct cached_plan *c = &P.cache[i];
		if (c->used && c->bytes == bytes && c->clusters == clusters &&
		    c->per == per_cluster && c->scheme == scheme) {
			*out = c->plan;
			return 0;
		}
	}
	const grove_logp_params *p = mpi_plogp_params(err, errlen);
	if (!p)
		return GROVE_EINVAL;
	grove_logp_system sys = {
		.clusters = clusters, .per_cluster = per_cluster,
		.local = P.local, .wide = P.wide, .cores = 0, .handoff = 0,
	};
	int rc = grove_logp_bcast_plan(p, &sys, scheme, bytes ? bytes : 1, 1,
	                               GROVE_LOGP_HEURISTIC, out, err, errlen);
	if (rc)
		return rc;
	struct cached_plan *c = &P.cache[P.next];
	P.next = (P.next + 1) % PLAN_CACHE;
	*c = (struct cached_plan){true, bytes, clusters, per_cluster, scheme,
	                          *out};
	return 0;
}

void
mpi_plogp_fini(void)
{
	grove_logp_params_destroy(P.params);
	memset(&P, 0, sizeof P);
}

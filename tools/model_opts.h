/* Option handling shared by `grove model` and `grove topo --optimize-bcast`:
 * sizes with suffixes, parameter files, cluster maps. */
#ifndef GROVE_TOOLS_MODEL_OPTS_H
#define GROVE_TOOLS_MODEL_OPTS_H

#include <stdint.h>

#include "grove/logp.h"

/* "4096", "64K", "4M", "1G" (powers of 1024; an optional trailing "B" or
 * "iB"; case does not matter).  -1 if it is not such a size. */
int model_parse_size(const char *s, uint64_t *out);

/* A count in [0, 2^32): -1 if it is not one. */
int model_parse_u32(const char *s, uint32_t *out);

/* Loads a parameter file; a bare name that is no file here is looked up
 * among Grove's installed ones ("default.params").  On failure prints
 * "grove CMD: parameter file PATH: why" and returns NULL. */
grove_logp_params *model_load_params(const char *cmd, const char *path);

/* The plan of the optimized scheme for a cluster map, as a Grove
 * topology on localhost.  Prints errors as "grove CMD: ..." and returns
 * the exit status (0 ok, 1 failure, 2 usage error). */
int model_bcast_topology(const char *cmd, const char *params_path,
    const char *clusters, const char *per_cluster, const char *size,
    grove_topo **out);

#endif

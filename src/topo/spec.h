/* What a topology spec says about its size, read without building it.
 *
 * A tool that starts a network asks this before it creates one: whether
 * the spec fixes its own back-end count (so --backends may be left out)
 * and how large that count is (to hold it to the tool's own limit).
 * Building the tree to find out would cost, for levels:4096x4096, a
 * gigabyte and seconds.
 */
#ifndef GROVE_TOPO_SPEC_H
#define GROVE_TOPO_SPEC_H

#include <stddef.h>
#include <stdint.h>

/* The most back-ends a topology may have (see topo_impl.h). */
#define TOPO_MAX_BACKENDS (1u << 24)

/* Parses spec as grove_topo_generate does.  For a spec that fixes its
 * back-end count (levels:AxB..., or AxB... alone) *backends is the product
 * of its fan-outs; for one that needs a count (flat, kary:K, knomial:K) it
 * is 0.  Returns 0, or GROVE_ETOPO (GROVE_EINVAL without a spec) with the
 * message grove_topo_generate would give in err; *backends is then 0. */
int topo_spec_backends(const char *spec, uint32_t *backends, char *err,
    size_t errlen);

#endif

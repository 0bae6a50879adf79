/* Building broadcast trees from the degrees the optimizer chose, in O(P):
 * each process's parent follows from its index, so no node needs its
 * degree tracked explicitly. */
#include <string.h>

#include "model/model_impl.h"

/* Processes are indexed by uint32_t and parents stored as int32_t. */
#define LOGP_MAX_PROCS ((uint32_t)INT32_MAX)

int
grove_logp_tree_kary(uint32_t P, uint32_t d, int32_t *parent)
{
	if (!parent || P == 0 || P > LOGP_MAX_PROCS || (P > 1 && d == 0))
		return GROVE_EINVAL;
	/* Breadth-first numbering: process i's children are d*i+1 ..
	 * d*i+d, so every level is full before the next one starts and the
	 * height is the minimal one for degree d. */
	parent[0] = -1;
	for (uint32_t i = 1; i < P; i++)
		parent[i] = (int32_t)((i - 1) / d);
	return 0;
}

int
grove_logp_tree_binomial(uint32_t P, int32_t *parent)
{
	if (!parent || P == 0 || P > LOGP_MAX_PROCS)
		return GROVE_EINVAL;
	parent[0] = -1;
	for (uint32_t i = 1; i < P; i++)
		parent[i] = (int32_t)(i & (i - 1)); /* i minus its low bit */
	return 0;
}

int
grove_logp_tree_two_layer(uint32_t clusters, uint32_t per_cluster,
    uint32_t d_w, uint32_t d_l, int32_t *parent)
{
	uint64_t P = (uint64_t)clusters * per_cluster;

	if (!parent || clusters == 0 || per_cluster == 0 ||
	    P > LOGP_MAX_PROCS || (clusters > 1 && d_w == 0))
		return GROVE_EINVAL;
	for (uint32_t c = 0; c < clusters; c++) {
		uint32_t base = c * per_cluster;

		parent[base] = c == 0 ? -1 :
		    (int32_t)((c - 1) / d_w * per_cluster);
		for (uint32_t i = 1; i < per_cluster; i++) {
			uint32_t up = d_l ? (i - 1) / d_l : (i & (i - 1));

			parent[base + i] = (int32_t)(base + up);
		}
	}
	return 0;
}

int
grove_logp_tree_for_plan(const grove_logp_plan *plan,
    const grove_logp_system *sys, int32_t *parent)
{
	uint32_t d_w, d_l;

	if (!plan || !sys || plan->wan.P != sys->clusters ||
	    plan->lan.P != sys->per_cluster)
		return GROVE_EINVAL;
	d_w = sys->clusters > 1 ? plan->wan.d : 1;
	d_l = sys->per_cluster > 1 && !plan->lan.binomial ? plan->lan.d : 0;
	if (sys->per_cluster > 1 && !plan->lan.binomial && d_l == 0)
		return GROVE_EINVAL;
	return grove_logp_tree_two_layer(sys->clusters, sys->per_cluster,
	    d_w, d_l, parent);
}

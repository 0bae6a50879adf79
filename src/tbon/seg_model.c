/* Automatic segment sizes from the P-LogP model (see segment.h).
 *
 * The network's tree is given (the topology), so only the segment count k
 * is free.  The tree is described to the model the way the paper's
 * two-layer broadcast sees it: the clusters of the cluster map (or one
 * cluster without a map), the processes per cluster, the largest fan-out
 * over links between clusters (d_w) and inside them (d_l), and the real
 * depth of each layer (h_w, h_l): a deep or unbalanced tree pipelines over
 * more levels than the complete tree of its largest fan-out, and wants
 * more segments (docs/segmented.md).  The search is
 * the paper's: k = 1, 2, 4, ... (m = M / 2^i), then hill climbing from the
 * best with steps of 1 and 5 until nothing improves.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grove/error.h"
#include "tbon/segment.h"

static uint32_t
clamp_u32(uint32_t v, uint32_t lo, uint32_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* A private copy of p (the caller's may go away): through the file
 * format, which round-trips exactly. */
static int
params_copy(const grove_logp_params *p, grove_logp_params **out)
{
	char *text = NULL, err[256];
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		return GROVE_ENOMEM;
	int rc = grove_logp_params_write(p, f);
	if (fclose(f) != 0 && rc == 0)
		rc = GROVE_ENOMEM;
	if (rc == 0)
		rc = grove_logp_params_parse_string(text, out, err, sizeof err);
	free(text);
	return rc;
}

static int64_t
cluster_of(const grove_cluster_map *m, uint32_t node)
{
	return m ? grove_cluster_map_cluster_of(m, node) : 0;
}

/* The depth of each layer: the most links across clusters (*h_w) and
 * inside one (*h_l) on any path from the root, counted separately. */
static int
layer_depths(const grove_topo *t, const grove_cluster_map *m, uint32_t size,
    uint32_t *h_w, uint32_t *h_l)
{
	/* Breadth-first from the root; a node's counts are its parent's
	 * plus the link between them. */
	uint32_t *queue = malloc(2 * (size_t)size * sizeof *queue);
	uint32_t *across = calloc(size, sizeof *across);
	uint32_t *inside = calloc(size, sizeof *inside);
	if (!queue || !across || !inside) {
		free(queue);
		free(across);
		free(inside);
		return GROVE_ENOMEM;
	}
	uint32_t head = 0, tail = 0;
	*h_w = *h_l = 0;
	queue[tail++] = 0;
	while (head < tail) {
		uint32_t id = queue[head++];
		const grove_topo_node *tn = grove_topo_node_at(t, id);
		const uint32_t *kids = grove_topo_children(t, id);
		for (uint32_t k = 0; tn && k < tn->n_children; k++) {
			uint32_t kid = kids[k];
			if (kid >= size || tail >= 2 * size)
				continue;
			int wide = cluster_of(m, kid) != cluster_of(m, id);
			across[kid] = across[id] + (wide ? 1 : 0);
			inside[kid] = inside[id] + (wide ? 0 : 1);
			if (across[kid] > *h_w)
				*h_w = across[kid];
			if (inside[kid] > *h_l)
				*h_l = inside[kid];
			queue[tail++] = kid;
		}
	}
	free(queue);
	free(across);
	free(inside);
	return 0;
}

/* A layer's height as the model accepts it: between the minimal height
 * of P processes at degree d (the fan-outs count the hand-offs to a CP's
 * own back-end, so a real tree may look shallower) and a chain's P - 1. */
static uint32_t
layer_height(uint32_t P, uint32_t d, uint32_t h)
{
	if (P <= 1)
		return 0;
	return clamp_u32(h, grove_logp_min_height(P, d), P - 1);
}

int
seg_model_new(const grove_logp_params *p, const grove_topo *t,
    const grove_cluster_map *m, seg_model **out, char *err, size_t errlen)
{
	*out = NULL;
	uint32_t size = grove_topo_size(t);
	const grove_topo_node *fe = grove_topo_node_at(t, 0);
	if (!fe || size < 2) {
		snprintf(err, errlen, "the topology has no back-end");
		return GROVE_EINVAL;
	}
	/* Clusters seen, fan-outs across and inside them, one host? */
	int64_t *seen = calloc(size, sizeof *seen);
	if (!seen)
		return GROVE_ENOMEM;
	uint32_t nclusters = 0, d_w = 0, d_l = 0;
	int one_host = 1;
	for (uint32_t id = 0; id < size; id++) {
		const grove_topo_node *tn = grove_topo_node_at(t, id);
		int64_t c = cluster_of(m, id);
		int known = 0;
		for (uint32_t i = 0; i < nclusters; i++)
			known |= seen[i] == c;
		if (!known)
			seen[nclusters++] = c;
		if (strcmp(tn->host, fe->host))
			one_host = 0;
		const uint32_t *kids = grove_topo_children(t, id);
		uint32_t across = 0, inside = 0;
		for (uint32_t k = 0; k < tn->n_children; k++) {
			if (cluster_of(m, kids[k]) != c)
				across++;
			else
				inside++;
		}
		if (across > d_w)
			d_w = across;
		if (inside > d_l)
			d_l = inside;
	}
	free(seen);
	uint32_t h_w = 0, h_l = 0;
	if (layer_depths(t, m, size, &h_w, &h_l) != 0)
		return GROVE_ENOMEM;
	seg_model *sm = calloc(1, sizeof *sm);
	if (!sm)
		return GROVE_ENOMEM;
	int rc = params_copy(p, &sm->params);
	if (rc != 0) {
		free(sm);
		snprintf(err, errlen, "cannot copy the model's parameters: %s",
		    grove_strerror(rc));
		return rc;
	}
	/* Processes: the root and the back-ends (CPs forward for them). */
	uint32_t procs = grove_topo_backends(t) + 1;
	sm->sys.clusters = nclusters;
	sm->sys.per_cluster = (procs + nclusters - 1) / nclusters;
	if (sm->sys.per_cluster < 1)
		sm->sys.per_cluster = 1;
	sm->sys.local = one_host && grove_logp_params_has(p, GROVE_LOGP_HOST)
	    ? GROVE_LOGP_HOST : GROVE_LOGP_LAN;
	sm->sys.wide = GROVE_LOGP_WAN;
	if (!grove_logp_params_has(p, sm->sys.local))
		sm->sys.local = grove_logp_params_has(p, GROVE_LOGP_LAN) ?
		    GROVE_LOGP_LAN : GROVE_LOGP_HOST;
	sm->d_w = nclusters > 1 ? clamp_u32(d_w, 1, nclusters - 1) : 0;
	sm->d_l = sm->sys.per_cluster > 1 ?
	    clamp_u32(d_l, 1, sm->sys.per_cluster - 1) : 0;
	sm->h_w = layer_height(nclusters, sm->d_w, h_w);
	sm->h_l = layer_height(sm->sys.per_cluster, sm->d_l, h_l);
	/* One evaluation now says whether the parameters cover the system. */
	grove_logp_plan plan;
	char why[256];
	rc = grove_logp_bcast_eval_depth(sm->params, &sm->sys, 1 << 20, 1, 1,
	    sm->d_w, sm->d_l, sm->h_w, sm->h_l, &plan, why, sizeof why);
	if (rc != 0) {
		snprintf(err, errlen, "the model's parameters do not describe this "
		    "network: %s", why);
		seg_model_free(sm);
		return rc;
	}
	*out = sm;
	return 0;
}

void
seg_model_free(seg_model *sm)
{
	if (!sm)
		return;
	grove_logp_params_destroy(sm->params);
	free(sm);
}

/* Predicted completion time of a frame of n bytes in k segments; a huge
 * value when the model cannot say. */
static double
predict(const seg_model *sm, uint64_t n, uint64_t k)
{
	grove_logp_plan plan;
	if (k < 1 || k > n || grove_logp_bcast_eval_depth(sm->params,
	    &sm->sys, n, 1, k, sm->d_w, sm->d_l, sm->h_w, sm->h_l, &plan,
	    NULL, 0) != 0)
		return 1e300;
	return plan.T;
}

size_t
seg_model_size(const seg_model *sm, size_t frame_len)
{
	uint64_t n = frame_len;
	/* Segments below the minimum are never used. */
	uint64_t kmax = n / SEG_MIN_SIZE;
	if (kmax < 2)
		return 0;
	uint64_t best_k = 1;
	double best = predict(sm, n, 1);
	for (uint64_t k = 2; k <= kmax; k *= 2) {
		double t = predict(sm, n, k);
		if (t < best) {
			best = t;
			best_k = k;
		}
	}
	static const int64_t steps[] = {-5, -1, 1, 5};
	for (int improved = 1; improved;) {
		improved = 0;
		uint64_t from = best_k;
		for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
			int64_t k = (int64_t)from + steps[i];
			if (k < 1 || (uint64_t)k > kmax)
				continue;
			double t = predict(sm, n, (uint64_t)k);
			if (t < best) {
				best = t;
				best_k = (uint64_t)k;
				improved = 1;
			}
		}
	}
	if (best_k == 1)
		return 0;
	/* The size that cuts the frame into exactly best_k pieces. */
	uint64_t seg = (n + best_k - 1) / best_k;
	return (size_t)(seg < SEG_MIN_SIZE ? SEG_MIN_SIZE : seg);
}

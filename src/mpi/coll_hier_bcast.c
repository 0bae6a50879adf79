/* MPI_Bcast over several clusters (coll_hier.h): the P-LogP plan, or,
 * for comparison (GROVE_MPI_BCAST), one binomial tree over all ranks or
 * MagPIe's original scheme.
 *
 * The plan (src/model, section 3.2 of the P-LogP paper) cuts the message
 * into k segments of m bytes and sends them down a two-layer tree: a
 * d_w-ary tree over the cluster leaders, and below every leader a d_l-ary
 * (or binomial) tree over its cluster; every process forwards segment i
 * to its children (WAN children first) while it receives segment i + 1,
 * so the layers work as a pipeline.  The plan assumes clusters of equal
 * size; with unequal ones it is made for the largest. */
#include <stdlib.h>
#include <string.h>

#include "mpi/clusters.h"
#include "mpi/coll_hier.h"

int
mpi_bcast_algo_parse(const char *s, enum mpi_bcast_algo *out)
{
	if (!s || !*s || !strcmp(s, "plogp"))
		*out = MPI_BCAST_PLOGP;
	else if (!strcmp(s, "binomial"))
		*out = MPI_BCAST_BINOMIAL;
	else if (!strcmp(s, "magpie"))
		*out = MPI_BCAST_MAGPIE;
	else
		return -1;
	return 0;
}

/* The children of process i in a tree given as a parent array over P
 * processes, in the order the model assumes: increasing index in a
 * d-ary tree, decreasing in a binomial one.  Returns their number. */
static int
children_of(const int32_t *parent, int P, int i, bool binomial, int *out)
{
	int k = 0;
	for (int j = 1; j < P; j++)
		if (parent[j] == i)
			out[k++] = j;
	if (binomial)
		for (int a = 0, b = k - 1; a < b; a++, b--) {
			int t = out[a];
			out[a] = out[b];
			out[b] = t;
		}
	return k;
}

/* The tree of one layer of a plan over P processes. */
static int
layer_tree(const grove_logp_layer *l, int P, int32_t *parent)
{
	if (P <= 1) {
		parent[0] = -1;
		return 0;
	}
	if (l->binomial || l->d == 0)
		return grove_logp_tree_binomial((uint32_t)P, parent);
	return grove_logp_tree_kary((uint32_t)P, l->d, parent);
}

static void
build_plogp(struct mpi_sched *s, void *buf, size_t count, MPI_Datatype dt,
            const struct mpi_hier_layout *h)
{
	size_t bytes = count * dt->size;
	/* The plan for the largest cluster of the communicator. */
	int n = s->comm->size, per = 1, ids = mpi_clusters_in_job();
	int *sizes = mpi_sched_alloc(s, (size_t)ids * sizeof(int));
	int32_t *pw = mpi_sched_alloc(s, (size_t)n * sizeof(int32_t));
	int32_t *pl = mpi_sched_alloc(s, (size_t)n * sizeof(int32_t));
	int *kids = mpi_sched_alloc(s, 2 * (size_t)n * sizeof(int));
	if (!sizes || !pw || !pl || !kids)
		return;
	memset(sizes, 0, (size_t)ids * sizeof(int));
	for (int r = 0; r < n; r++) {
		int c = mpi_cluster_of_world(mpi_comm_world_rank(s->comm, r));
		if (c >= 0 && c < ids && ++sizes[c] > per)
			per = sizes[c];
	}
	grove_logp_plan plan;
	char err[160];
	if (mpi_plogp_plan(bytes, (uint32_t)h->nleaders, (uint32_t)per,
	                   GROVE_LOGP_OPTIMIZED, &plan, err, sizeof err)) {
		s->err = MPI_ERR_OTHER;
		return;
	}
	if (layer_tree(&plan.wan, h->nleaders, pw) ||
	    layer_tree(&plan.lan, h->nmembers, pl)) {
		s->err = MPI_ERR_INTERN;
		return;
	}
	/* Who this rank receives from and sends to. */
	int parent = -1, nk = 0;
	if (h->leader_idx > 0)
		parent = h->leaders[pw[h->leader_idx]];
	else if (h->member_idx > 0)
		parent = h->members[pl[h->member_idx]];
	if (h->leader_idx >= 0) {
		int c = children_of(pw, h->nleaders, h->leader_idx,
		                    plan.wan.binomial || plan.wan.d == 0, kids);
		for (int i = 0; i < c; i++)
			kids[i] = h->leaders[kids[i]];
		nk = c;
	}
	int c = children_of(pl, h->nmembers, h->member_idx,
	                    plan.lan.binomial || plan.lan.d == 0, kids + nk);
	for (int i = 0; i < c; i++)
		kids[nk + i] = h->members[kids[nk + i]];
	nk += c;

	/* The packed bytes: the user's buffer when contiguous. */
	char *data;
	bool contig = mpi_dt_is_contig(dt, count);
	bool root = parent < 0;
	if (contig) {
		data = (char *)buf + dt->true_lb;
	} else {
		data = mpi_sched_alloc(s, bytes);
		if (!data)
			return;
		if (root)
			mpi_sched_copy(s, buf, count, dt, data, bytes, MPI_BYTE);
	}
	size_t m = plan.m ? (size_t)plan.m : bytes;
	size_t k = (bytes + m - 1) / m;
#define SEG_LEN(i) ((i) + 1 < k ? m : bytes - (i) * m)
	if (!root) {
		mpi_sched_recv(s, data, SEG_LEN(0), MPI_BYTE, parent);
		mpi_sched_fence(s);
	}
	for (size_t i = 0; i < k; i++) {
		if (!root && i + 1 < k)
			mpi_sched_recv(s, data + (i + 1) * m, SEG_LEN(i + 1),
			               MPI_BYTE, parent);
		for (int j = 0; j < nk; j++)
			mpi_sched_send(s, data + i * m, SEG_LEN(i), MPI_BYTE,
			               kids[j]);
		/* The root has every segment: it posts them all at once, so
		 * that a slow LAN child does not hold back its WAN links. */
		if (!root || i + 1 == k)
			mpi_sched_fence(s);
	}
#undef SEG_LEN
	if (!contig && !root)
		mpi_sched_copy(s, data, bytes, MPI_BYTE, buf, count, dt);
}

/* MagPIe: the root sends the whole message to each other leader with a
 * blocking send (one after the other), then binomial trees inside. */
static void
build_magpie(struct mpi_sched *s, void *buf, size_t count, MPI_Datatype dt,
             const struct mpi_hier_layout *h)
{
	if (h->leader_idx == 0) {
		for (int i = 1; i < h->nleaders; i++) {
			mpi_sched_send_blocking(s, buf, count, dt,
			                        h->leaders[i]);
			mpi_sched_fence(s);
		}
	} else if (h->leader_idx > 0) {
		mpi_sched_recv(s, buf, count, dt, h->leaders[0]);
		mpi_sched_fence(s);
	}
	mpi_list_bcast(s, h->members, h->nmembers, h->member_idx, buf, count,
	               dt);
}

void
mpi_hier_build_bcast(struct mpi_sched *s, void *buf, size_t count,
                     MPI_Datatype dt, int root)
{
	int n = s->comm->size;
	if (count == 0 || dt->size == 0)
		return;
	if (mpi_bcast_algo() == MPI_BCAST_BINOMIAL) {
		/* Clusters ignored: ranks root, root + 1, ... in a list. */
		int *list = mpi_sched_alloc(s, (size_t)n * sizeof(int));
		if (!list)
			return;
		for (int i = 0; i < n; i++)
			list[i] = (root + i) % n;
		mpi_list_bcast(s, list, n, (s->comm->rank - root + n) % n, buf,
		               count, dt);
		return;
	}
	struct mpi_hier_layout h;
	if (mpi_hier_layout_for(s, root, &h))
		return;
	if (mpi_bcast_algo() == MPI_BCAST_MAGPIE)
		build_magpie(s, buf, count, dt, &h);
	else
		build_plogp(s, buf, count, dt, &h);
}

/* Grove MPI: process topologies (Cartesian and distributed graph).
 *
 * A topology is information attached to a communicator: the ranks are
 * never reordered (reorder is a hint), so a Cartesian communicator's rank
 * r is its parent's rank r, laid out row-major (the last dimension varies
 * fastest). */
#include "mpi/mpi_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- MPI_Dims_create: pure ------------------------------------------ */

/* Search state: the free dimensions get a non-increasing sequence of
 * divisors whose product is the remaining node count; the best sequence
 * has the smallest spread (largest - smallest), then the smallest
 * largest factor: the most balanced grid. */
struct dims_search {
	int k;            /* free dimensions */
	const long *divs; /* divisors of the total, ascending */
	int ndivs;
	long *cur, *best;
	long best_spread, best_max;
	bool found;
};

static void
dims_search(struct dims_search *s, int depth, long rem, long maxf)
{
	if (depth == s->k - 1) {
		if (rem > maxf)
			return;
		s->cur[depth] = rem;
		long spread = s->cur[0] - rem;
		if (!s->found || spread < s->best_spread ||
		    (spread == s->best_spread && s->cur[0] < s->best_max)) {
			s->found = true;
			s->best_spread = spread;
			s->best_max = s->cur[0];
			memcpy(s->best, s->cur, (size_t)s->k * sizeof *s->cur);
		}
		return;
	}
	/* Largest factors first; a factor f needs f^(k-depth) >= rem to
	 * leave room for non-increasing ones after it. */
	for (int i = s->ndivs - 1; i >= 0; i--) {
		long f = s->divs[i];
		if (f > maxf || rem % f)
			continue;
		long p = 1;
		for (int j = depth; j < s->k && p < rem; j++)
			p *= f;
		if (p < rem)
			break; /* smaller factors cannot work either */
		/* Every later factor is at most f, so the spread is at least
		 * largest - f: no better than the best found. */
		long top = depth ? s->cur[0] : f;
		if (s->found && top - f > s->best_spread)
			break;
		s->cur[depth] = f;
		dims_search(s, depth + 1, rem / f, f);
	}
}

int
mpi_dims_create(int nnodes, int ndims, int dims[], char *why)
{
	if (nnodes <= 0) {
		snprintf(why, MPI_WHY_LEN, "nnodes = %d is not positive", nnodes);
		return MPI_ERR_ARG;
	}
	if (ndims < 0 || (ndims > 0 && !dims)) {
		snprintf(why, MPI_WHY_LEN, "ndims = %d or dims is invalid", ndims);
		return MPI_ERR_DIMS;
	}
	long fixed = 1;
	int k = 0;
	for (int i = 0; i < ndims; i++) {
		if (dims[i] < 0) {
			snprintf(why, MPI_WHY_LEN, "dims[%d] = %d is negative", i,
			         dims[i]);
			return MPI_ERR_DIMS;
		}
		if (dims[i] == 0)
			k++;
		else if ((fixed *= dims[i]) > nnodes)
			break;
	}
	if (nnodes % fixed) {
		snprintf(why, MPI_WHY_LEN,
		         "the given dimensions (product %ld) do not divide "
		         "nnodes = %d", fixed, nnodes);
		return MPI_ERR_DIMS;
	}
	long rem = nnodes / fixed;
	if (k == 0) {
		if (rem != 1) {
			snprintf(why, MPI_WHY_LEN,
			         "the dimensions are all given and their product "
			         "%ld is not nnodes = %d", fixed, nnodes);
			return MPI_ERR_DIMS;
		}
		return MPI_SUCCESS;
	}
	/* Divisors of rem, ascending. */
	int cap = 2;
	for (long d = 1; d * d <= rem; d++)
		if (rem % d == 0)
			cap += 2;
	long *divs = malloc((size_t)cap * sizeof *divs);
	long *cur = malloc((size_t)k * sizeof *cur);
	long *best = malloc((size_t)k * sizeof *best);
	if (!divs || !cur || !best) {
		free(divs);
		free(cur);
		free(best);
		snprintf(why, MPI_WHY_LEN, "out of memory");
		return MPI_ERR_NO_MEM;
	}
	/* Small divisors from the front, their co-divisors from the back. */
	int lo = 0, hi = cap;
	for (long d = 1; d * d <= rem; d++)
		if (rem % d == 0) {
			divs[lo++] = d;
			if (d != rem / d)
				divs[--hi] = rem / d;
		}
	memmove(divs + lo, divs + hi, (size_t)(cap - hi) * sizeof *divs);
	lo += cap - hi;
	struct dims_search s = {.k = k, .divs = divs, .ndivs = lo, .cur = cur,
	                        .best = best};
	dims_search(&s, 0, rem, rem);
	/* The zero entries get the factors in non-increasing order. */
	int j = 0;
	for (int i = 0; i < ndims; i++)
		if (dims[i] == 0)
			dims[i] = (int)best[j++];
	free(divs);
	free(cur);
	free(best);
	return MPI_SUCCESS;
}

/* ---- topology data on communicators --------------------------------- */

void
mpi_topo_free(MPI_Comm comm)
{
	free(comm->cart.dims);
	free(comm->cart.periods);
	memset(&comm->cart, 0, sizeof comm->cart);
	struct mpi_dist_graph *g = &comm->graph;
	free(g->sources);
	free(g->sourceweights);
	free(g->destinations);
	free(g->destweights);
	memset(g, 0, sizeof *g);
	comm->topo = 0;
}

static int *
dup_ints(const int *v, int n)
{
	int *p = malloc((size_t)(n > 0 ? n : 1) * sizeof *p);
	if (p && n > 0 && v)
		memcpy(p, v, (size_t)n * sizeof *p);
	else if (p && n > 0)
		memset(p, 0, (size_t)n * sizeof *p);
	return p;
}

static int
set_cart(MPI_Comm c, int ndims, const int *dims, const int *periods)
{
	c->cart.ndims = ndims;
	c->cart.dims = dup_ints(dims, ndims);
	c->cart.periods = malloc((size_t)(ndims > 0 ? ndims : 1) * sizeof(int));
	if (!c->cart.dims || !c->cart.periods) {
		mpi_topo_free(c);
		return MPI_ERR_NO_MEM;
	}
	for (int i = 0; i < ndims; i++)
		c->cart.periods[i] = periods && periods[i] ? 1 : 0;
	c->topo = MPI_CART;
	return MPI_SUCCESS;
}

static int
set_graph(MPI_Comm c, int indeg, const int *src, const int *srcw,
          int outdeg, const int *dst, const int *dstw, bool weighted)
{
	struct mpi_dist_graph *g = &c->graph;
	g->indegree = indeg;
	g->outdegree = outdeg;
	g->weighted = weighted;
	g->sources = dup_ints(src, indeg);
	g->destinations = dup_ints(dst, outdeg);
	g->sourceweights = dup_ints(weighted ? srcw : NULL, indeg);
	g->destweights = dup_ints(weighted ? dstw : NULL, outdeg);
	if (!g->sources || !g->destinations || !g->sourceweights ||
	    !g->destweights) {
		mpi_topo_free(c);
		return MPI_ERR_NO_MEM;
	}
	c->topo = MPI_DIST_GRAPH;
	return MPI_SUCCESS;
}

int
mpi_topo_copy(MPI_Comm from, MPI_Comm to)
{
	if (from->topo == MPI_CART)
		return set_cart(to, from->cart.ndims, from->cart.dims,
		                from->cart.periods);
	if (from->topo == MPI_DIST_GRAPH) {
		const struct mpi_dist_graph *g = &from->graph;
		return set_graph(to, g->indegree, g->sources, g->sourceweights,
		                 g->outdegree, g->destinations, g->destweights,
		                 g->weighted);
	}
	return MPI_SUCCESS;
}

/* Row-major coordinates of rank r. */
static void
coords_of(const struct mpi_cart *c, int r, int *coords)
{
	for (int i = c->ndims - 1; i >= 0; i--) {
		coords[i] = r % c->dims[i];
		r /= c->dims[i];
	}
}

static int
cart_size(const struct mpi_cart *c)
{
	int n = 1;
	for (int i = 0; i < c->ndims; i++)
		n *= c->dims[i];
	return n;
}

static int
need_comm(MPI_Comm comm, enum mpi_fn fn)
{
	if (mpi_comm_check(comm))
		return mpi_err(comm, MPI_ERR_COMM, fn, "%s",
		               comm ? "not a valid communicator" : "MPI_COMM_NULL");
	return MPI_SUCCESS;
}

static int
need_cart(MPI_Comm comm, enum mpi_fn fn)
{
	int rc = need_comm(comm, fn);
	if (!rc && comm->topo != MPI_CART)
		rc = mpi_err(comm, MPI_ERR_TOPOLOGY, fn,
		             "the communicator has no Cartesian topology");
	return rc;
}

static int
need_dist_graph(MPI_Comm comm, enum mpi_fn fn)
{
	int rc = need_comm(comm, fn);
	if (!rc && comm->topo != MPI_DIST_GRAPH)
		rc = mpi_err(comm, MPI_ERR_TOPOLOGY, fn,
		             "the communicator has no distributed graph topology");
	return rc;
}

#define TOPO_BEGIN(Name)                                                    \
	int rc = mpi_check_initialized(MPI_FN_##Name);                      \
	if (rc)                                                             \
		return rc;                                                  \
	MPI_ENTER(Name)
#define TOPO_END(Name)                                                      \
	MPI_EXIT(Name, -1, 0, 0);                                           \
	return rc

int
PMPI_Topo_test(MPI_Comm comm, int *status)
{
	TOPO_BEGIN(Topo_test);
	if (!(rc = need_comm(comm, MPI_FN_Topo_test))) {
		if (!status)
			rc = mpi_err(comm, MPI_ERR_ARG, MPI_FN_Topo_test,
			             "status is NULL");
		else
			*status = comm->topo ? comm->topo : MPI_UNDEFINED;
	}
	TOPO_END(Topo_test);
}

int
PMPI_Dims_create(int nnodes, int ndims, int dims[])
{
	TOPO_BEGIN(Dims_create);
	char why[MPI_WHY_LEN];
	if ((rc = mpi_dims_create(nnodes, ndims, dims, why)))
		rc = mpi_err(MPI_COMM_NULL, rc, MPI_FN_Dims_create, "%s", why);
	TOPO_END(Dims_create);
}

static int
cart_create(MPI_Comm comm, int ndims, const int dims[], const int periods[],
            MPI_Comm *out)
{
	enum mpi_fn fn = MPI_FN_Cart_create;
	int rc = need_comm(comm, fn);
	if (rc)
		return rc;
	if (!out)
		return mpi_err(comm, MPI_ERR_ARG, fn, "comm_cart is NULL");
	if (ndims < 0 || (ndims > 0 && (!dims || !periods)))
		return mpi_err(comm, MPI_ERR_DIMS, fn,
		               "ndims = %d or dims/periods is invalid", ndims);
	long n = 1;
	for (int i = 0; i < ndims; i++) {
		if (dims[i] <= 0)
			return mpi_err(comm, MPI_ERR_DIMS, fn,
			               "dims[%d] = %d is not positive", i, dims[i]);
		n *= dims[i];
		if (n > comm->size)
			break;
	}
	if (n > comm->size)
		return mpi_err(comm, MPI_ERR_DIMS, fn,
		               "the grid needs more than the communicator's %d "
		               "ranks", comm->size);
	/* Ranks beyond the grid get MPI_COMM_NULL; no reordering. */
	MPI_Group g = NULL;
	if (comm->rank < n) {
		g = mpi_group_new((int)n, comm->group->world);
		if (!g)
			return mpi_err(comm, MPI_ERR_NO_MEM, fn, "group of %ld", n);
	}
	MPI_Comm c;
	rc = mpi_comm_create_from(comm, g, &c);
	mpi_group_release(g);
	if (rc)
		return mpi_err(comm, rc, fn, "no new communicator");
	if (c != MPI_COMM_NULL && (rc = set_cart(c, ndims, dims, periods))) {
		mpi_comm_release(c);
		return mpi_err(comm, rc, fn, "topology of %d dimensions", ndims);
	}
	*out = c;
	return MPI_SUCCESS;
}

int
PMPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[],
                 const int periods[], int reorder, MPI_Comm *comm_cart)
{
	TOPO_BEGIN(Cart_create);
	rc = cart_create(comm_old, ndims, dims, periods, comm_cart);
	TOPO_END(Cart_create);
}

int
PMPI_Cartdim_get(MPI_Comm comm, int *ndims)
{
	TOPO_BEGIN(Cartdim_get);
	if (!(rc = need_cart(comm, MPI_FN_Cartdim_get))) {
		if (!ndims)
			rc = mpi_err(comm, MPI_ERR_ARG, MPI_FN_Cartdim_get,
			             "ndims is NULL");
		else
			*ndims = comm->cart.ndims;
	}
	TOPO_END(Cartdim_get);
}

int
PMPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[],
              int coords[])
{
	TOPO_BEGIN(Cart_get);
	if (!(rc = need_cart(comm, MPI_FN_Cart_get))) {
		const struct mpi_cart *c = &comm->cart;
		int n = maxdims < c->ndims ? maxdims : c->ndims;
		if (n < 0 || (n > 0 && (!dims || !periods || !coords))) {
			rc = mpi_err(comm, MPI_ERR_ARG, MPI_FN_Cart_get,
			             "maxdims = %d or an array is invalid", maxdims);
		} else {
			int *all = malloc((size_t)(c->ndims + 1) * sizeof *all);
			if (!all) {
				rc = mpi_err(comm, MPI_ERR_NO_MEM, MPI_FN_Cart_get,
				             "coordinates");
			} else {
				coords_of(c, comm->rank, all);
				for (int i = 0; i < n; i++) {
					dims[i] = c->dims[i];
					periods[i] = c->periods[i];
					coords[i] = all[i];
				}
				free(all);
			}
		}
	}
	TOPO_END(Cart_get);
}

int
PMPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[])
{
	TOPO_BEGIN(Cart_coords);
	if (!(rc = need_cart(comm, MPI_FN_Cart_coords))) {
		const struct mpi_cart *c = &comm->cart;
		if (rank < 0 || rank >= cart_size(c)) {
			rc = mpi_err(comm, MPI_ERR_RANK, MPI_FN_Cart_coords,
			             "%d is not in [0, %d)", rank, cart_size(c));
		} else if (maxdims < c->ndims || (c->ndims > 0 && !coords)) {
			rc = mpi_err(comm, MPI_ERR_ARG, MPI_FN_Cart_coords,
			             "maxdims = %d is below the %d dimensions",
			             maxdims, c->ndims);
		} else {
			coords_of(c, rank, coords);
		}
	}
	TOPO_END(Cart_coords);
}

/* Rank of coords; periodic dimensions wrap, others must be in range. */
static int
cart_rank(MPI_Comm comm, const int coords[], int *rank, enum mpi_fn fn)
{
	const struct mpi_cart *c = &comm->cart;
	int r = 0;
	for (int i = 0; i < c->ndims; i++) {
		int x = coords[i], d = c->dims[i];
		if (c->periods[i])
			x = ((x % d) + d) % d;
		else if (x < 0 || x >= d)
			return mpi_err(comm, MPI_ERR_RANK, fn,
			               "coordinate %d of dimension %d is outside "
			               "[0, %d)", x, i, d);
		r = r * d + x;
	}
	*rank = r;
	return MPI_SUCCESS;
}

int
PMPI_Cart_rank(MPI_Comm comm, const int coords[], int *rank)
{
	TOPO_BEGIN(Cart_rank);
	if (!(rc = need_cart(comm, MPI_FN_Cart_rank))) {
		if (!rank || (comm->cart.ndims > 0 && !coords))
			rc = mpi_err(comm, MPI_ERR_ARG, MPI_FN_Cart_rank,
			             "%s is NULL", rank ? "coords" : "rank");
		else
			rc = cart_rank(comm, coords, rank, MPI_FN_Cart_rank);
	}
	TOPO_END(Cart_rank);
}

int
PMPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *rank_source,
                int *rank_dest)
{
	TOPO_BEGIN(Cart_shift);
	if (!(rc = need_cart(comm, MPI_FN_Cart_shift))) {
		const struct mpi_cart *c = &comm->cart;
		int *co = malloc((size_t)(c->ndims + 1) * sizeof *co);
		if (direction < 0 || direction >= c->ndims) {
			rc = mpi_err(comm, MPI_ERR_DIMS, MPI_FN_Cart_shift,
			             "direction %d is not in [0, %d)", direction,
			             c->ndims);
		} else if (!rank_source || !rank_dest) {
			rc = mpi_err(comm, MPI_ERR_ARG, MPI_FN_Cart_shift,
			             "%s is NULL",
			             rank_source ? "rank_dest" : "rank_source");
		} else if (!co) {
			rc = mpi_err(comm, MPI_ERR_NO_MEM, MPI_FN_Cart_shift,
			             "coordinates");
		} else {
			int d = c->dims[direction];
			coords_of(c, comm->rank, co);
			int me = co[direction];
			/* disp may be large: work in long long. */
			long long to = (long long)me + disp,
			          from = (long long)me - disp;
			int *out[2] = {rank_dest, rank_source};
			long long at[2] = {to, from};
			for (int k = 0; k < 2; k++) {
				long long x = at[k];
				if (c->periods[direction])
					x = ((x % d) + d) % d;
				else if (x < 0 || x >= d) {
					*out[k] = MPI_PROC_NULL;
					continue;
				}
				co[direction] = (int)x;
				cart_rank(comm, co, out[k], MPI_FN_Cart_shift);
			}
		}
		free(co);
	}
	TOPO_END(Cart_shift);
}

int
PMPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm)
{
	TOPO_BEGIN(Cart_sub);
	if (!(rc = need_cart(comm, MPI_FN_Cart_sub))) {
		const struct mpi_cart *c = &comm->cart;
		int *co = malloc((size_t)(c->ndims + 1) * sizeof *co);
		int *dims = malloc((size_t)(c->ndims + 1) * sizeof *dims);
		int *per = malloc((size_t)(c->ndims + 1) * sizeof *per);
		if (!newcomm || (c->ndims > 0 && !remain_dims)) {
			rc = mpi_err(comm, MPI_ERR_ARG, MPI_FN_Cart_sub,
			             "%s is NULL", newcomm ? "remain_dims" : "newcomm");
		} else if (!co || !dims || !per) {
			rc = mpi_err(comm, MPI_ERR_NO_MEM, MPI_FN_Cart_sub,
			             "coordinates");
		} else {
			/* Color: position in the dropped dimensions; key: position
			 * in the kept ones (row-major, as the new ranks go). */
			coords_of(c, comm->rank, co);
			int color = 0, key = 0, nd = 0;
			for (int i = 0; i < c->ndims; i++) {
				if (remain_dims[i]) {
					key = key * c->dims[i] + co[i];
					dims[nd] = c->dims[i];
					per[nd++] = c->periods[i];
				} else {
					color = color * c->dims[i] + co[i];
				}
			}
			MPI_Comm sub;
			rc = PMPI_Comm_split(comm, color, key, &sub);
			if (!rc && (rc = set_cart(sub, nd, dims, per))) {
				PMPI_Comm_free(&sub);
				rc = mpi_err(comm, rc, MPI_FN_Cart_sub,
				             "topology of %d dimensions", nd);
			}
			if (!rc)
				*newcomm = sub;
		}
		free(co);
		free(dims);
		free(per);
	}
	TOPO_END(Cart_sub);
}

int
PMPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[],
                  const int edges[], int reorder, MPI_Comm *comm_graph)
{
	TOPO_BEGIN(Graph_create);
	rc = mpi_err(comm_old, MPI_ERR_UNSUPPORTED_OPERATION, MPI_FN_Graph_create,
	             "MPI_Graph_create is not supported by Grove MPI (see "
	             "docs/mpi.md); MPI_Dist_graph_create_adjacent is");
	TOPO_END(Graph_create);
}

/* Whether a weight array means "weighted". */
static bool
weighted_arg(const int *w)
{
	return w != MPI_UNWEIGHTED;
}

static int
check_neighbors(MPI_Comm comm, enum mpi_fn fn, const char *what, int deg,
                const int *ranks, const int *weights)
{
	if (deg < 0)
		return mpi_err(comm, MPI_ERR_ARG, fn, "%s degree %d is negative",
		               what, deg);
	if (deg > 0 && !ranks)
		return mpi_err(comm, MPI_ERR_ARG, fn, "%s ranks are NULL", what);
	if (deg > 0 && weighted_arg(weights) &&
	    (!weights || weights == MPI_WEIGHTS_EMPTY))
		return mpi_err(comm, MPI_ERR_ARG, fn, "%s weights are missing",
		               what);
	for (int i = 0; i < deg; i++)
		if (ranks[i] < 0 || ranks[i] >= comm->size)
			return mpi_err(comm, MPI_ERR_RANK, fn,
			               "%s[%d] = %d is not in [0, %d)", what, i,
			               ranks[i], comm->size);
	return MPI_SUCCESS;
}

/* A communicator over comm_old's group (no reordering) with the graph. */
static int
graph_comm(MPI_Comm comm, enum mpi_fn fn, int indeg, const int *src,
           const int *srcw, int outdeg, const int *dst, const int *dstw,
           bool weighted, MPI_Comm *out)
{
	MPI_Comm c;
	int rc = mpi_comm_create_from(comm, comm->group, &c);
	if (rc)
		return mpi_err(comm, rc, fn, "no new communicator");
	if ((rc = set_graph(c, indeg, src, srcw, outdeg, dst, dstw, weighted))) {
		mpi_comm_release(c);
		return mpi_err(comm, rc, fn, "graph of %d + %d edges", indeg,
		               outdeg);
	}
	*out = c;
	return MPI_SUCCESS;
}

int
PMPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree,
                                const int sources[], const int sourceweights[],
                                int outdegree, const int destinations[],
                                const int destweights[], MPI_Info info,
                                int reorder, MPI_Comm *comm_dist_graph)
{
	TOPO_BEGIN(Dist_graph_create_adjacent);
	enum mpi_fn fn = MPI_FN_Dist_graph_create_adjacent;
	if (!(rc = need_comm(comm_old, fn)) &&
	    !(rc = check_neighbors(comm_old, fn, "sources", indegree, sources,
	                           sourceweights)) &&
	    !(rc = check_neighbors(comm_old, fn, "destinations", outdegree,
	                           destinations, destweights))) {
		if (!comm_dist_graph)
			rc = mpi_err(comm_old, MPI_ERR_ARG, fn,
			             "comm_dist_graph is NULL");
		else {
			bool w = weighted_arg(sourceweights) &&
			         weighted_arg(destweights);
			rc = graph_comm(comm_old, fn, indegree, sources,
			                sourceweights, outdegree, destinations,
			                destweights, w, comm_dist_graph);
		}
	}
	TOPO_END(Dist_graph_create_adjacent);
}

/* MPI_Dist_graph_create: every rank gives any edges; an allgather of the
 * edge lists lets each rank pick those that start or end at it. */
static int
dist_graph_create(MPI_Comm comm, int n, const int sources[],
                  const int degrees[], const int destinations[],
                  const int weights[], MPI_Comm *out)
{
	enum mpi_fn fn = MPI_FN_Dist_graph_create;
	int rc = need_comm(comm, fn);
	if (rc)
		return rc;
	if (!out || n < 0 || (n > 0 && (!sources || !degrees)))
		return mpi_err(comm, MPI_ERR_ARG, fn,
		               "n = %d or an argument is NULL", n);
	bool w = weighted_arg(weights);
	long ne = 0;
	for (int i = 0; i < n; i++) {
		if (sources[i] < 0 || sources[i] >= comm->size)
			return mpi_err(comm, MPI_ERR_RANK, fn,
			               "sources[%d] = %d is not in [0, %d)", i,
			               sources[i], comm->size);
		if (degrees[i] < 0)
			return mpi_err(comm, MPI_ERR_ARG, fn,
			               "degrees[%d] = %d is negative", i, degrees[i]);
		ne += degrees[i];
	}
	if (ne > 0 && !destinations)
		return mpi_err(comm, MPI_ERR_ARG, fn, "destinations is NULL");
	if (ne > 0 && w && (!weights || weights == MPI_WEIGHTS_EMPTY))
		return mpi_err(comm, MPI_ERR_ARG, fn, "weights are missing");
	for (long e = 0; e < ne; e++)
		if (destinations[e] < 0 || destinations[e] >= comm->size)
			return mpi_err(comm, MPI_ERR_RANK, fn,
			               "destinations[%ld] = %d is not in [0, %d)", e,
			               destinations[e], comm->size);
	if (ne > (long)(0x7fffffff / 3))
		return mpi_err(comm, MPI_ERR_ARG, fn, "too many edges (%ld)", ne);

	int p = comm->size;
	int *counts = malloc((size_t)p * sizeof *counts);
	int *displs = malloc((size_t)p * sizeof *displs);
	int *mine = malloc((size_t)(3 * ne + 1) * sizeof *mine);
	int flags[2] = {(int)ne * 3, w}, *allflags = malloc((size_t)p * 2 *
	                                                    sizeof *allflags);
	int *all = NULL, *in = NULL, *out_ = NULL;
	if (!counts || !displs || !mine || !allflags) {
		rc = MPI_ERR_NO_MEM;
		goto done;
	}
	long k = 0, e = 0;
	for (int i = 0; i < n; i++)
		for (int j = 0; j < degrees[i]; j++, e++) {
			mine[k++] = sources[i];
			mine[k++] = destinations[e];
			mine[k++] = w ? weights[e] : 1;
		}
	if ((rc = PMPI_Allgather(flags, 2, MPI_INT, allflags, 2, MPI_INT, comm)))
		goto done;
	long total = 0;
	bool allw = true;
	for (int i = 0; i < p; i++) {
		counts[i] = allflags[2 * i];
		displs[i] = (int)total;
		total += counts[i];
		/* Weighted only when every rank gave weights (with edges). */
		if (counts[i] > 0 && !allflags[2 * i + 1])
			allw = false;
		if (total > 0x7fffffff) {
			rc = MPI_ERR_ARG;
			goto done;
		}
	}
	all = malloc((size_t)(total + 1) * sizeof *all);
	if (!all) {
		rc = MPI_ERR_NO_MEM;
		goto done;
	}
	if ((rc = PMPI_Allgatherv(mine, (int)(3 * ne), MPI_INT, all, counts,
	                          displs, MPI_INT, comm)))
		goto done;
	int indeg = 0, outdeg = 0;
	for (long i = 0; i < total; i += 3) {
		indeg += all[i + 1] == comm->rank;
		outdeg += all[i] == comm->rank;
	}
	/* Sources and their weights, destinations and theirs. */
	in = malloc((size_t)(2 * indeg + 1) * sizeof *in);
	out_ = malloc((size_t)(2 * outdeg + 1) * sizeof *out_);
	if (!in || !out_) {
		rc = MPI_ERR_NO_MEM;
		goto done;
	}
	int a = 0, b = 0;
	for (long i = 0; i < total; i += 3) {
		if (all[i + 1] == comm->rank) {
			in[a] = all[i];
			in[indeg + a++] = all[i + 2];
		}
		if (all[i] == comm->rank) {
			out_[b] = all[i + 1];
			out_[outdeg + b++] = all[i + 2];
		}
	}
	rc = graph_comm(comm, fn, indeg, in, in + indeg, outdeg, out_,
	                out_ + outdeg, allw, out);
	free(counts);
	free(displs);
	free(mine);
	free(allflags);
	free(all);
	free(in);
	free(out_);
	return rc; /* graph_comm reported its own error */
done:
	free(counts);
	free(displs);
	free(mine);
	free(allflags);
	free(all);
	free(in);
	free(out_);
	if (rc == MPI_ERR_NO_MEM || rc == MPI_ERR_ARG)
		return mpi_err(comm, rc, fn, "gathering %ld edges", ne);
	return rc; /* the collective reported it */
}

int
PMPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[],
                       const int degrees[], const int destinations[],
                       const int weights[], MPI_Info info, int reorder,
                       MPI_Comm *comm_dist_graph)
{
	TOPO_BEGIN(Dist_graph_create);
	rc = dist_graph_create(comm_old, n, sources, degrees, destinations,
	                       weights, comm_dist_graph);
	TOPO_END(Dist_graph_create);
}

int
PMPI_Dist_graph_neighbors_count(MPI_Comm comm, int *indegree, int *outdegree,
                                int *weighted)
{
	TOPO_BEGIN(Dist_graph_neighbors_count);
	if (!(rc = need_dist_graph(comm, MPI_FN_Dist_graph_neighbors_count))) {
		if (!indegree || !outdegree || !weighted) {
			rc = mpi_err(comm, MPI_ERR_ARG,
			             MPI_FN_Dist_graph_neighbors_count,
			             "an output argument is NULL");
		} else {
			*indegree = comm->graph.indegree;
			*outdegree = comm->graph.outdegree;
			*weighted = comm->graph.weighted;
		}
	}
	TOPO_END(Dist_graph_neighbors_count);
}

int
PMPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[],
                          int sourceweights[], int maxoutdegree,
                          int destinations[], int destweights[])
{
	TOPO_BEGIN(Dist_graph_neighbors);
	if (!(rc = need_dist_graph(comm, MPI_FN_Dist_graph_neighbors))) {
		const struct mpi_dist_graph *g = &comm->graph;
		int ni = maxindegree < g->indegree ? maxindegree : g->indegree;
		int no = maxoutdegree < g->outdegree ? maxoutdegree : g->outdegree;
		if (ni < 0 || no < 0 || (ni > 0 && !sources) ||
		    (no > 0 && !destinations)) {
			rc = mpi_err(comm, MPI_ERR_ARG, MPI_FN_Dist_graph_neighbors,
			             "a degree is negative or an array is NULL");
		} else {
			if (ni > 0)
				memcpy(sources, g->sources, (size_t)ni * sizeof(int));
			if (no > 0)
				memcpy(destinations, g->destinations,
				       (size_t)no * sizeof(int));
			/* Weights only where the graph has them and the caller
			 * wants them. */
			if (ni > 0 && g->weighted && sourceweights &&
			    sourceweights != MPI_UNWEIGHTED &&
			    sourceweights != MPI_WEIGHTS_EMPTY)
				memcpy(sourceweights, g->sourceweights,
				       (size_t)ni * sizeof(int));
			if (no > 0 && g->weighted && destweights &&
			    destweights != MPI_UNWEIGHTED &&
			    destweights != MPI_WEIGHTS_EMPTY)
				memcpy(destweights, g->destweights,
				       (size_t)no * sizeof(int));
		}
	}
	TOPO_END(Dist_graph_neighbors);
}

/* MPI_Neighbor_allgather and MPI_Neighbor_alltoall on Cartesian and
 * distributed-graph communicators.
 *
 * Neighbours in the standard's order: Cartesian, for each dimension the
 * rank at -1 then the one at +1 (MPI_PROC_NULL off a non-periodic edge:
 * nothing moves); distributed graph, the sources (in) and destinations
 * (out) as given.  One round: every receive and send at once.
 * Alltoall on a Cartesian dimension whose -1 and +1 neighbours are the
 * same rank (a periodic dimension of size 1 or 2) sends the same peer two
 * messages with the same tag; they match in the order sent, so the +1
 * block is sent first: it is the one the peer receives first, as its -1
 * block.
 */
#include <stdlib.h>

#include "mpi/coll_sched.h"

/* Rank at displacement disp along dimension d, or MPI_PROC_NULL. */
static int
cart_shift(MPI_Comm comm, int d, int disp)
{
	const struct mpi_cart *c = &comm->cart;
	int r = comm->rank, stride = 1;
	for (int i = c->ndims - 1; i > d; i--)
		stride *= c->dims[i];
	int coord = (r / stride) % c->dims[d];
	int nc = coord + disp;
	if (nc < 0 || nc >= c->dims[d]) {
		if (!c->periods[d])
			return MPI_PROC_NULL;
		nc = ((nc % c->dims[d]) + c->dims[d]) % c->dims[d];
	}
	return r + (nc - coord) * stride;
}

/* In- and out-neighbour lists (malloc'd, *in and *out; NULL on error). */
static int
neighbours(MPI_Comm comm, enum mpi_fn fn, int **in, int *nin, int **out,
           int *nout)
{
	if (comm->topo == MPI_CART) {
		int k = 2 * comm->cart.ndims;
		*in = malloc((size_t)(k ? k : 1) * sizeof(int));
		*out = malloc((size_t)(k ? k : 1) * sizeof(int));
		if (!*in || !*out)
			goto nomem;
		for (int d = 0; d < comm->cart.ndims; d++) {
			(*in)[2 * d] = (*out)[2 * d] = cart_shift(comm, d, -1);
			(*in)[2 * d + 1] = (*out)[2 * d + 1] = cart_shift(comm, d, 1);
		}
		*nin = *nout = k;
		return MPI_SUCCESS;
	}
	if (comm->topo == MPI_DIST_GRAPH) {
		const struct mpi_dist_graph *g = &comm->graph;
		*in = malloc((size_t)(g->indegree ? g->indegree : 1) * sizeof(int));
		*out = malloc((size_t)(g->outdegree ? g->outdegree : 1) * sizeof(int));
		if (!*in || !*out)
			goto nomem;
		for (int i = 0; i < g->indegree; i++)
			(*in)[i] = g->sources[i];
		for (int i = 0; i < g->outdegree; i++)
			(*out)[i] = g->destinations[i];
		*nin = g->indegree;
		*nout = g->outdegree;
		return MPI_SUCCESS;
	}
	return mpi_err(comm, MPI_ERR_TOPOLOGY, fn,
	               "the communicator has no Cartesian or distributed-graph "
	               "topology");
nomem:
	free(*in);
	free(*out);
	return mpi_err(comm, MPI_ERR_INTERN, fn, "out of memory");
}

static int
neighbor(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
         void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
         enum mpi_fn fn, bool alltoall)
{
	int rc = mpi_coll_check_comm(comm, fn);
	if (rc)
		return rc;
	if (sendbuf == MPI_IN_PLACE)
		return mpi_coll_err_in_place(comm, fn, "sendbuf");
	if (recvbuf == MPI_IN_PLACE)
		return mpi_coll_err_in_place(comm, fn, "recvbuf");
	if ((rc = mpi_coll_check_buf(comm, fn, sendcount, sendtype, "send")) ||
	    (rc = mpi_coll_check_buf(comm, fn, recvcount, recvtype, "receive")))
		return rc;
	int *in = NULL, *out = NULL, nin = 0, nout = 0;
	if ((rc = neighbours(comm, fn, &in, &nin, &out, &nout)))
		return rc;
	struct mpi_sched *s = mpi_sched_new(comm, fn);
	if (!s) {
		free(in);
		free(out);
		return mpi_err(comm, MPI_ERR_INTERN, fn, "out of memory");
	}
	size_t sc = (size_t)sendcount, rcn = (size_t)recvcount;
	for (int i = 0; i < nin; i++)
		if (in[i] != MPI_PROC_NULL && rcn > 0)
			mpi_sched_recv(s, mpi_coll_at(recvbuf, (MPI_Aint)((size_t)i * rcn), recvtype),
			               rcn, recvtype, in[i]);
	for (int j = 0; j < nout; j++) {
		/* Cartesian alltoall: +1 before -1 within a dimension. */
		int i = comm->topo == MPI_CART && alltoall ? (j ^ 1) : j;
		if (out[i] == MPI_PROC_NULL || sc == 0)
			continue;
		const void *b = alltoall
			? mpi_coll_at(sendbuf, (MPI_Aint)((size_t)i * sc), sendtype)
			: sendbuf;
		mpi_sched_send(s, b, sc, sendtype, out[i]);
	}
	mpi_sched_fence(s);
	free(in);
	free(out);
	rc = mpi_sched_run(s);
	if (rc)
		return mpi_err(comm, rc, fn, "neighbourhood exchange failed");
	return MPI_SUCCESS;
}

int
PMPI_Neighbor_allgather(const void *sendbuf, int sendcount,
                        MPI_Datatype sendtype, void *recvbuf, int recvcount,
                        MPI_Datatype recvtype, MPI_Comm comm)
{
	int rc = mpi_check_initialized(MPI_FN_Neighbor_allgather);
	if (rc)
		return rc;
	MPI_ENTER(Neighbor_allgather);
	rc = neighbor(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
	              comm, MPI_FN_Neighbor_allgather, false);
	MPI_EXIT(Neighbor_allgather, -1, 0, 0);
	return rc;
}

int
PMPI_Neighbor_alltoall(const void *sendbuf, int sendcount,
                       MPI_Datatype sendtype, void *recvbuf, int recvcount,
                       MPI_Datatype recvtype, MPI_Comm comm)
{
	int rc = mpi_check_initialized(MPI_FN_Neighbor_alltoall);
	if (rc)
		return rc;
	MPI_ENTER(Neighbor_alltoall);
	rc = neighbor(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
	              comm, MPI_FN_Neighbor_alltoall, true);
	MPI_EXIT(Neighbor_alltoall, -1, 0, 0);
	return rc;
}

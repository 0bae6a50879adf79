/* MPI_Reduce_scatter, MPI_Reduce_scatter_block and their non-blocking
 * forms.
 *
 * Reduce of the whole vector to rank 0 (the binomial reduce of
 * coll_reduce.c, which keeps rank order for non-commutative ops), then a
 * linear scatterv of the result from rank 0, in one schedule.
 * MPI_IN_PLACE: the input is taken from recvbuf, which the rank's block
 * of the result then overwrites (after its input has left).
 */
#include "mpi/coll_sched.h"

static int
reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
               int blockcount, MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
               MPI_Request *req, enum mpi_fn fn)
{
	int rc = mpi_coll_check_comm(comm, fn);
	if (rc)
		return rc;
	if (req && (rc = mpi_coll_check_request(comm, fn, req)))
		return rc;
	if ((rc = mpi_coll_check_type(comm, fn, dt, "datatype")) ||
	    (rc = mpi_coll_check_op(comm, fn, op, dt)))
		return rc;
	if (recvbuf == MPI_IN_PLACE)
		return mpi_coll_err_in_place(comm, fn, "recvbuf");
	int n = comm->size, me = comm->rank;
	if (recvcounts) {
		for (int r = 0; r < n; r++)
			if (recvcounts[r] < 0)
				return mpi_err(comm, MPI_ERR_COUNT, fn,
				               "recvcounts[%d] = %d is negative", r,
				               recvcounts[r]);
	} else if ((rc = mpi_coll_check_count(comm, fn, blockcount, "recvcount"))) {
		return rc;
	}
#define COUNT(r) ((size_t)(recvcounts ? recvcounts[r] : blockcount))
	size_t total = 0;
	for (int r = 0; r < n; r++) {
		total += COUNT(r);
	}
	const void *input = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
	struct mpi_sched *s = mpi_sched_new(comm, fn);
	if (!s)
		return mpi_err(comm, MPI_ERR_INTERN, fn, "out of memory");
	if (total > 0 && n == 1) {
		mpi_sched_copy(s, input, total, dt, recvbuf, total, dt);
	} else if (total > 0) {
		void *res = me == 0 ? mpi_sched_tmpbuf(s, total, dt) : NULL;
		if (me != 0 || res) {
			mpi_coll_build_reduce(s, input, res, total, dt, op, 0);
			mpi_sched_fence(s);
			if (me == 0) {
				size_t off = 0;
				for (int r = 0; r < n; r++) {
					const void *at = mpi_coll_at(res, (MPI_Aint)off, dt);
					if (r == 0)
						mpi_sched_copy(s, at, COUNT(r), dt, recvbuf,
						               COUNT(r), dt);
					else if (COUNT(r) > 0)
						mpi_sched_send(s, at, COUNT(r), dt, r);
					off += COUNT(r);
				}
			} else if (COUNT(me) > 0) {
				mpi_sched_recv(s, recvbuf, COUNT(me), dt, 0);
			}
			mpi_sched_fence(s);
		}
	}
#undef COUNT
	rc = req ? mpi_sched_start(s, req) : mpi_sched_run(s);
	if (rc)
		return mpi_err(comm, rc, fn, "reduce-scatter failed");
	return MPI_SUCCESS;
}

int
PMPI_Reduce_scatter(const void *sendbuf, void *recvbuf,
                    const int recvcounts[], MPI_Datatype datatype, MPI_Op op,
                    MPI_Comm comm)
{
	int rc = mpi_check_initialized(MPI_FN_Reduce_scatter);
	if (rc)
		return rc;
	MPI_ENTER(Reduce_scatter);
	if (!recvcounts)
		rc = mpi_err(comm, MPI_ERR_ARG, MPI_FN_Reduce_scatter,
		             "recvcounts is NULL");
	else
		rc = reduce_scatter(sendbuf, recvbuf, recvcounts, 0, datatype, op,
		                    comm, NULL, MPI_FN_Reduce_scatter);
	MPI_EXIT(Reduce_scatter, -1, 0, 0);
	return rc;
}

int
PMPI_Ireduce_scatter(const void *sendbuf, void *recvbuf,
                     const int recvcounts[], MPI_Datatype datatype, MPI_Op op,
                     MPI_Comm comm, MPI_Request *request)
{
	int rc = mpi_check_initialized(MPI_FN_Ireduce_scatter);
	if (rc)
		return rc;
	MPI_ENTER(Ireduce_scatter);
	if (!request) {
		rc = mpi_coll_check_request(comm, MPI_FN_Ireduce_scatter, request);
		MPI_EXIT(Ireduce_scatter, -1, 0, 0);
		return rc;
	}
	if (!recvcounts)
		rc = mpi_err(comm, MPI_ERR_ARG, MPI_FN_Ireduce_scatter,
		             "recvcounts is NULL");
	else
		rc = reduce_scatter(sendbuf, recvbuf, recvcounts, 0, datatype, op,
		                    comm, request, MPI_FN_Ireduce_scatter);
	MPI_EXIT(Ireduce_scatter, -1, 0, 0);
	return rc;
}

int
PMPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
	int rc = mpi_check_initialized(MPI_FN_Reduce_scatter_block);
	if (rc)
		return rc;
	MPI_ENTER(Reduce_scatter_block);
	rc = reduce_scatter(sendbuf, recvbuf, NULL, recvcount, datatype, op, comm,
	                    NULL, MPI_FN_Reduce_scatter_block);
	MPI_EXIT(Reduce_scatter_block, -1, 0,
	         rc ? 0 : (size_t)recvcount * datatype->size);
	return rc;
}

int
PMPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                           MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                           MPI_Request *request)
{
	int rc = mpi_check_initialized(MPI_FN_Ireduce_scatter_block);
	if (rc)
		return rc;
	MPI_ENTER(Ireduce_scatter_block);
	if (!request) {
		rc = mpi_coll_check_request(comm, MPI_FN_Ireduce_scatter_block, request);
		MPI_EXIT(Ireduce_scatter_block, -1, 0, 0);
		return rc;
	}
	rc = reduce_scatter(sendbuf, recvbuf, NULL, recvcount, datatype, op, comm,
	                    request, MPI_FN_Ireduce_scatter_block);
	MPI_EXIT(Ireduce_scatter_block, -1, 0,
	         rc ? 0 : (size_t)recvcount * datatype->size);
	return rc;
}

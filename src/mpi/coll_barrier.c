/* MPI_Barrier and MPI_Ibarrier.
 *
 * Algorithm: dissemination (Hensgen, Finkel, Manber): in round k every
 * rank sends an empty message to rank + 2^k and receives one from
 * rank - 2^k; after ceil(log2 n) rounds every rank has heard, directly
 * or not, from every other.  Any n, no fix-up.  A blocking barrier of a
 * communicator spanning the whole job uses the shared-memory counter of
 * coll_shm.c instead (one atomic add per rank, one wake-up of each
 * sleeper).
 */
#include "mpi/bcs_rank.h"
#include "mpi/clusters.h"
#include "mpi/coll_hier.h"
#include "mpi/coll_sched.h"

static void
build_barrier(struct mpi_sched *s, MPI_Comm comm)
{
	int n = comm->size, me = comm->rank;
	for (int k = 1; k < n; k <<= 1) {
		mpi_sched_recv(s, NULL, 0, MPI_BYTE, (me - k + n) % n);
		mpi_sched_send(s, NULL, 0, MPI_BYTE, (me + k) % n);
		mpi_sched_fence(s);
	}
}

static int
barrier(MPI_Comm comm, MPI_Request *req, enum mpi_fn fn)
{
	int rc = mpi_coll_check_comm(comm, fn);
	if (rc)
		return rc;
	if (req && (rc = mpi_coll_check_request(comm, fn, req)))
		return rc;
	if (__builtin_expect(mpi_bcs_mode, 0) && mpi_bcs_barrier(comm, req, &rc))
		return rc ? mpi_err(comm, rc, fn, "barrier failed") : MPI_SUCCESS;
	bool hier = mpi_hier_spans(comm); /* several clusters: coll_hier.c */
	if (!req && !hier && mpi_coll_shm_barrier(comm, &rc))
		return rc ? mpi_err(comm, rc, fn, "shared-memory barrier failed")
		          : MPI_SUCCESS;
	struct mpi_sched *s = mpi_sched_new(comm, fn);
	if (!s)
		return mpi_err(comm, MPI_ERR_INTERN, fn, "out of memory");
	if (hier)
		mpi_hier_build_barrier(s);
	else
		build_barrier(s, comm);
	rc = req ? mpi_sched_start(s, req) : mpi_sched_run(s);
	if (rc)
		return mpi_err(comm, rc, fn, "barrier failed");
	return MPI_SUCCESS;
}

int
PMPI_Barrier(MPI_Comm comm)
{
	int rc = mpi_check_initialized(MPI_FN_Barrier);
	if (rc)
		return rc;
	MPI_ENTER(Barrier);
	rc = barrier(comm, NULL, MPI_FN_Barrier);
	MPI_EXIT(Barrier, -1, 0, 0);
	return rc;
}

int
PMPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
	int rc = mpi_check_initialized(MPI_FN_Ibarrier);
	if (rc)
		return rc;
	MPI_ENTER(Ibarrier);
	if (!request) {
		rc = mpi_coll_check_request(comm, MPI_FN_Ibarrier, request);
		MPI_EXIT(Ibarrier, -1, 0, 0);
		return rc;
	}
	rc = barrier(comm, request, MPI_FN_Ibarrier);
	MPI_EXIT(Ibarrier, -1, 0, 0);
	return rc;
}

/* MPI_Allgather, MPI_Allgatherv and their non-blocking forms.
 *
 * Allgather with n a power of two and at most ALLGATHER_RD bytes in all:
 * recursive doubling (log2 n rounds; in round k a rank swaps the 2^k
 * blocks it has with partner rank ^ 2^k, in place in recvbuf, whose
 * blocks are in rank order so each range is one run of items).
 * Otherwise (and for Allgatherv): ring, n - 1 rounds, each rank passing
 * the block it received last to its right neighbour; bandwidth-optimal
 * and needs no temporary buffer.
 * A blocking Allgather of at most 4 KiB per rank on a communicator
 * spanning the job goes through shared memory (coll_shm.c).
 */
#include "mpi/coll_sched.h"

#define ALLGATHER_RD (512 * 1024)

static void *
block(void *recvbuf, int r, size_t rcount, const int *displs,
      MPI_Datatype rtype)
{
	return mpi_coll_at(recvbuf,
	                   displs ? (MPI_Aint)displs[r]
	                          : (MPI_Aint)((size_t)r * rcount),
	                   rtype);
}

static void
build_recursive_doubling(struct mpi_sched *s, void *recvbuf, size_t rcount,
                         MPI_Datatype rtype)
{
	int n = s->comm->size, me = s->comm->rank;
	for (int mask = 1; mask < n; mask <<= 1) {
		int peer = me ^ mask;
		int mine = me & ~(mask - 1), theirs = peer & ~(mask - 1);
		mpi_sched_recv(s, block(recvbuf, theirs, rcount, NULL, rtype),
		               (size_t)mask * rcount, rtype, peer);
		mpi_sched_send(s, block(recvbuf, mine, rcount, NULL, rtype),
		               (size_t)mask * rcount, rtype, peer);
		mpi_sched_fence(s);
	}
}

static void
build_ring(struct mpi_sched *s, void *recvbuf, size_t rcount,
           const int *rcounts, const int *displs, MPI_Datatype rtype)
{
	int n = s->comm->size, me = s->comm->rank;
	int right = (me + 1) % n, left = (me - 1 + n) % n;
	for (int i = 0; i < n - 1; i++) {
		int sb = (me - i + n) % n, rb = (me - i - 1 + n) % n;
		size_t sc = rcounts ? (size_t)rcounts[sb] : rcount;
		size_t rc = rcounts ? (size_t)rcounts[rb] : rcount;
		if (rc > 0)
			mpi_sched_recv(s, block(recvbuf, rb, rcount, displs, rtype),
			               rc, rtype, left);
		if (sc > 0)
			mpi_sched_send(s, block(recvbuf, sb, rcount, displs, rtype),
			               sc, rtype, right);
		mpi_sched_fence(s);
	}
}

static int
check_common(MPI_Comm comm, enum mpi_fn fn, const void *sendbuf,
             int sendcount, MPI_Datatype sendtype, void *recvbuf,
             MPI_Request *req)
{
	int rc = mpi_coll_check_comm(comm, fn);
	if (rc)
		return rc;
	if (req && (rc = mpi_coll_check_request(comm, fn, req)))
		return rc;
	if (recvbuf == MPI_IN_PLACE)
		return mpi_coll_err_in_place(comm, fn, "recvbuf");
	if (sendbuf != MPI_IN_PLACE &&
	    (rc = mpi_coll_check_buf(comm, fn, sendcount, sendtype, "send")))
		return rc;
	return MPI_SUCCESS;
}

static int
allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
          void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
          MPI_Request *req, enum mpi_fn fn)
{
	int rc = check_common(comm, fn, sendbuf, sendcount, sendtype, recvbuf, req);
	if (rc)
		return rc;
	if ((rc = mpi_coll_check_buf(comm, fn, recvcount, recvtype, "receive")))
		return rc;
	if (!req && recvcount > 0 &&
	    mpi_coll_shm_allgather(sendbuf, (size_t)sendcount, sendtype, recvbuf,
	                           (size_t)recvcount, recvtype, comm, &rc))
		return rc ? mpi_err(comm, rc, fn, "shared-memory allgather failed")
		          : MPI_SUCCESS;
	struct mpi_sched *s = mpi_sched_new(comm, fn);
	if (!s)
		return mpi_err(comm, MPI_ERR_INTERN, fn, "out of memory");
	int n = comm->size, me = comm->rank;
	size_t rcount = (size_t)recvcount;
	size_t total = rcount * recvtype->size * (size_t)n;
	if (sendbuf != MPI_IN_PLACE)
		mpi_sched_copy(s, sendbuf, (size_t)sendcount, sendtype,
		               block(recvbuf, me, rcount, NULL, recvtype), rcount,
		               recvtype);
	if (total == 0 || n == 1)
		;
	else if ((n & (n - 1)) == 0 && total <= ALLGATHER_RD)
		build_recursive_doubling(s, recvbuf, rcount, recvtype);
	else
		build_ring(s, recvbuf, rcount, NULL, NULL, recvtype);
	rc = req ? mpi_sched_start(s, req) : mpi_sched_run(s);
	if (rc)
		return mpi_err(comm, rc, fn, "allgather failed");
	return MPI_SUCCESS;
}

static int
allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
           void *recvbuf, const int recvcounts[], const int displs[],
           MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *req,
           enum mpi_fn fn)
{
	int rc = check_common(comm, fn, sendbuf, sendcount, sendtype, recvbuf, req);
	if (rc)
		return rc;
	if ((rc = mpi_coll_check_type(comm, fn, recvtype, "receive datatype")))
		return rc;
	if (!recvcounts || !displs)
		return mpi_err(comm, MPI_ERR_ARG, fn, "recvcounts or displs is NULL");
	for (int r = 0; r < comm->size; r++)
		if (recvcounts[r] < 0)
			return mpi_err(comm, MPI_ERR_COUNT, fn,
			               "recvcounts[%d] = %d is negative", r,
			               recvcounts[r]);
	struct mpi_sched *s = mpi_sched_new(comm, fn);
	if (!s)
		return mpi_err(comm, MPI_ERR_INTERN, fn, "out of memory");
	int me = comm->rank;
	if (sendbuf != MPI_IN_PLACE)
		mpi_sched_copy(s, sendbuf, (size_t)sendcount, sendtype,
		               block(recvbuf, me, 0, displs, recvtype),
		               (size_t)recvcounts[me], recvtype);
	if (comm->size > 1)
		build_ring(s, recvbuf, 0, recvcounts, displs, recvtype);
	rc = req ? mpi_sched_start(s, req) : mpi_sched_run(s);
	if (rc)
		return mpi_err(comm, rc, fn, "allgatherv failed");
	return MPI_SUCCESS;
}

static size_t
ag_bytes(int rc, const void *sendbuf, int sendcount, MPI_Datatype sendtype)
{
	return rc || sendbuf == MPI_IN_PLACE ? 0 : (size_t)sendcount * sendtype->size;
}

int
PMPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
               void *recvbuf, int recvcount, MPI_Datatype recvtype,
               MPI_Comm comm)
{
	int rc = mpi_check_initialized(MPI_FN_Allgather);
	if (rc)
		return rc;
	MPI_ENTER(Allgather);
	rc = allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
	               comm, NULL, MPI_FN_Allgather);
	MPI_EXIT(Allgather, -1, 0, ag_bytes(rc, sendbuf, sendcount, sendtype));
	return rc;
}

int
PMPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                void *recvbuf, int recvcount, MPI_Datatype recvtype,
                MPI_Comm comm, MPI_Request *request)
{
	int rc = mpi_check_initialized(MPI_FN_Iallgather);
	if (rc)
		return rc;
	MPI_ENTER(Iallgather);
	if (!request) {
		rc = mpi_coll_check_request(comm, MPI_FN_Iallgather, request);
		MPI_EXIT(Iallgather, -1, 0, 0);
		return rc;
	}
	rc = allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
	               comm, request, MPI_FN_Iallgather);
	MPI_EXIT(Iallgather, -1, 0, ag_bytes(rc, sendbuf, sendcount, sendtype));
	return rc;
}

int
PMPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                void *recvbuf, const int recvcounts[], const int displs[],
                MPI_Datatype recvtype, MPI_Comm comm)
{
	int rc = mpi_check_initialized(MPI_FN_Allgatherv);
	if (rc)
		return rc;
	MPI_ENTER(Allgatherv);
	rc = allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
	                recvtype, comm, NULL, MPI_FN_Allgatherv);
	MPI_EXIT(Allgatherv, -1, 0, ag_bytes(rc, sendbuf, sendcount, sendtype));
	return rc;
}

int
PMPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                 void *recvbuf, const int recvcounts[], const int displs[],
                 MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
	int rc = mpi_check_initialized(MPI_FN_Iallgatherv);
	if (rc)
		return rc;
	MPI_ENTER(Iallgatherv);
	if (!request) {
		rc = mpi_coll_check_request(comm, MPI_FN_Iallgatherv, request);
		MPI_EXIT(Iallgatherv, -1, 0, 0);
		return rc;
	}
	rc = allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
	                recvtype, comm, request, MPI_FN_Iallgatherv);
	MPI_EXIT(Iallgatherv, -1, 0, ag_bytes(rc, sendbuf, sendcount, sendtype));
	return rc;
}

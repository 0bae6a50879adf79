/* MPI_Scatter, MPI_Scatterv and their non-blocking forms.
 *
 * Scatter, small (n > 2 and at most SCATTER_BINOMIAL bytes in all):
 * binomial tree rooted at root; the root packs the blocks in tree order
 * and every node passes each child its subtree's blocks in one message
 * (ceil(log2 n) rounds).  Otherwise linear: the root sends every block
 * straight from sendbuf.  Scatterv: linear.
 */
#include "mpi/coll_sched.h"

#define SCATTER_BINOMIAL (16 * 1024)

static int
subtree(int v, int n)
{
	int m = v ? (v & -v) : n;
	return v + m > n ? n - v : m;
}

static void
build_scatter_binomial(struct mpi_sched *s, const void *sendbuf, size_t scount,
                       MPI_Datatype stype, void *recvbuf, size_t rcount,
                       MPI_Datatype rtype, int root, size_t blk)
{
	int n = s->comm->size, me = s->comm->rank;
	int v = (me - root + n) % n;
	int sub = subtree(v, n);
	if (sub == 1) { /* leaf: its own block straight into recvbuf */
		mpi_sched_recv(s, recvbuf, rcount, rtype, (me - (v & -v) + n) % n);
		mpi_sched_fence(s);
		return;
	}
	char *tmp = mpi_sched_alloc(s, (size_t)sub * blk);
	if (!tmp)
		return;
	if (v == 0) {
		for (int j = 1; j < n; j++)
			mpi_sched_copy(s,
			               mpi_coll_at(sendbuf, (MPI_Aint)((size_t)((j + root) % n) * scount), stype),
			               scount, stype, tmp + (size_t)j * blk, blk, MPI_BYTE);
	} else {
		mpi_sched_recv(s, tmp, (size_t)sub * blk, MPI_BYTE,
		               (me - (v & -v) + n) % n);
		mpi_sched_fence(s);
	}
	for (int m = 1; m < n && !(v & m); m <<= 1) {
		if (v + m >= n)
			break;
		mpi_sched_send(s, tmp + (size_t)m * blk,
		               (size_t)subtree(v + m, n) * blk, MPI_BYTE, (me + m) % n);
	}
	if (v != 0)
		mpi_sched_copy(s, tmp, blk, MPI_BYTE, recvbuf, rcount, rtype);
	else if (recvbuf != MPI_IN_PLACE)
		mpi_sched_copy(s, mpi_coll_at(sendbuf, (MPI_Aint)((size_t)root * scount), stype),
		               scount, stype, recvbuf, rcount, rtype);
	mpi_sched_fence(s);
}

/* Linear scatter(v): counts NULL means every block is scount items at
 * r * scount. */
static void
build_scatterv_linear(struct mpi_sched *s, const void *sendbuf, size_t scount,
                      const int *scounts, const int *displs,
                      MPI_Datatype stype, void *recvbuf, size_t rcount,
                      MPI_Datatype rtype, int root)
{
	int n = s->comm->size, me = s->comm->rank;
	if (me != root) {
		if (rcount > 0)
			mpi_sched_recv(s, recvbuf, rcount, rtype, root);
		mpi_sched_fence(s);
		return;
	}
	for (int r = 0; r < n; r++) {
		size_t c = scounts ? (size_t)scounts[r] : scount;
		const void *at = mpi_coll_at(sendbuf,
		                             scounts ? (MPI_Aint)displs[r]
		                                     : (MPI_Aint)((size_t)r * scount),
		                             stype);
		if (r == me) {
			if (recvbuf != MPI_IN_PLACE)
				mpi_sched_copy(s, at, c, stype, recvbuf, rcount, rtype);
		} else if (c > 0) {
			mpi_sched_send(s, at, c, stype, r);
		}
	}
	mpi_sched_fence(s);
}

static int
check_common(MPI_Comm comm, enum mpi_fn fn, int root, MPI_Request *req)
{
	int rc = mpi_coll_check_comm(comm, fn);
	if (rc)
		return rc;
	if ((rc = mpi_coll_check_root(comm, fn, root)))
		return rc;
	if (req && (rc = mpi_coll_check_request(comm, fn, req)))
		return rc;
	return MPI_SUCCESS;
}

static int
scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
        void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
        MPI_Comm comm, MPI_Request *req, enum mpi_fn fn)
{
	int rc = check_common(comm, fn, root, req);
	if (rc)
		return rc;
	bool am_root = comm->rank == root;
	if (recvbuf == MPI_IN_PLACE && !am_root)
		return mpi_coll_err_in_place(comm, fn, "recvbuf of a non-root rank");
	if (recvbuf != MPI_IN_PLACE &&
	    (rc = mpi_coll_check_buf(comm, fn, recvcount, recvtype, "receive")))
		return rc;
	if (am_root) {
		if ((rc = mpi_coll_check_buf(comm, fn, sendcount, sendtype, "send")))
			return rc;
		if (sendbuf == MPI_IN_PLACE)
			return mpi_coll_err_in_place(comm, fn, "sendbuf");
	}
	size_t blk = am_root ? (size_t)sendcount * sendtype->size
	                     : (size_t)recvcount * recvtype->size;
	struct mpi_sched *s = mpi_sched_new(comm, fn);
	if (!s)
		return mpi_err(comm, MPI_ERR_INTERN, fn, "out of memory");
	int n = comm->size;
	size_t rc_items = recvbuf == MPI_IN_PLACE ? 0 : (size_t)recvcount;
	size_t sc_items = am_root ? (size_t)sendcount : 0;
	if (blk == 0)
		; /* nothing to move */
	else if (n > 2 && blk * (size_t)n <= SCATTER_BINOMIAL)
		build_scatter_binomial(s, sendbuf, sc_items, sendtype, recvbuf,
		                       rc_items, recvtype, root, blk);
	else
		build_scatterv_linear(s, sendbuf, sc_items, NULL, NULL, sendtype,
		                      recvbuf, rc_items, recvtype, root);
	rc = req ? mpi_sched_start(s, req) : mpi_sched_run(s);
	if (rc)
		return mpi_err(comm, rc, fn, "scatter from root %d failed", root);
	return MPI_SUCCESS;
}

static int
scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
         MPI_Datatype sendtype, void *recvbuf, int recvcount,
         MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *req,
         enum mpi_fn fn)
{
	int rc = check_common(comm, fn, root, req);
	if (rc)
		return rc;
	bool am_root = comm->rank == root;
	if (recvbuf == MPI_IN_PLACE && !am_root)
		return mpi_coll_err_in_place(comm, fn, "recvbuf of a non-root rank");
	if (recvbuf != MPI_IN_PLACE &&
	    (rc = mpi_coll_check_buf(comm, fn, recvcount, recvtype, "receive")))
		return rc;
	if (am_root) {
		if (sendbuf == MPI_IN_PLACE)
			return mpi_coll_err_in_place(comm, fn, "sendbuf");
		if (!sendcounts || !displs)
			return mpi_err(comm, MPI_ERR_ARG, fn,
			               "sendcounts or displs is NULL at the root");
		if ((rc = mpi_coll_check_type(comm, fn, sendtype, "send datatype")))
			return rc;
		for (int r = 0; r < comm->size; r++)
			if (sendcounts[r] < 0)
				return mpi_err(comm, MPI_ERR_COUNT, fn,
				               "sendcounts[%d] = %d is negative", r,
				               sendcounts[r]);
	}
	struct mpi_sched *s = mpi_sched_new(comm, fn);
	if (!s)
		return mpi_err(comm, MPI_ERR_INTERN, fn, "out of memory");
	build_scatterv_linear(s, sendbuf, 0, am_root ? sendcounts : NULL, displs,
	                      sendtype, recvbuf,
	                      recvbuf == MPI_IN_PLACE ? 0 : (size_t)recvcount,
	                      recvtype, root);
	rc = req ? mpi_sched_start(s, req) : mpi_sched_run(s);
	if (rc)
		return mpi_err(comm, rc, fn, "scatterv from root %d failed", root);
	return MPI_SUCCESS;
}

static size_t
scatter_bytes(int rc, const void *recvbuf, int recvcount, MPI_Datatype recvtype)
{
	return rc || recvbuf == MPI_IN_PLACE ? 0 : (size_t)recvcount * recvtype->size;
}

int
PMPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
             void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
             MPI_Comm comm)
{
	int rc = mpi_check_initialized(MPI_FN_Scatter);
	if (rc)
		return rc;
	MPI_ENTER(Scatter);
	rc = scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
	             root, comm, NULL, MPI_FN_Scatter);
	MPI_EXIT(Scatter, rc ? -1 : mpi_coll_world(comm, root), 0,
	         scatter_bytes(rc, recvbuf, recvcount, recvtype));
	return rc;
}

int
PMPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
              void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
              MPI_Comm comm, MPI_Request *request)
{
	int rc = mpi_check_initialized(MPI_FN_Iscatter);
	if (rc)
		return rc;
	MPI_ENTER(Iscatter);
	if (!request) {
		rc = mpi_coll_check_request(comm, MPI_FN_Iscatter, request);
		MPI_EXIT(Iscatter, -1, 0, 0);
		return rc;
	}
	rc = scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
	             root, comm, request, MPI_FN_Iscatter);
	MPI_EXIT(Iscatter, rc ? -1 : mpi_coll_world(comm, root), 0,
	         scatter_bytes(rc, recvbuf, recvcount, recvtype));
	return rc;
}

int
PMPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
              MPI_Datatype sendtype, void *recvbuf, int recvcount,
              MPI_Datatype recvtype, int root, MPI_Comm comm)
{
	int rc = mpi_check_initialized(MPI_FN_Scatterv);
	if (rc)
		return rc;
	MPI_ENTER(Scatterv);
	rc = scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount,
	              recvtype, root, comm, NULL, MPI_FN_Scatterv);
	MPI_EXIT(Scatterv, rc ? -1 : mpi_coll_world(comm, root), 0,
	         scatter_bytes(rc, recvbuf, recvcount, recvtype));
	return rc;
}

int
PMPI_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[],
               MPI_Datatype sendtype, void *recvbuf, int recvcount,
               MPI_Datatype recvtype, int root, MPI_Comm comm,
               MPI_Request *request)
{
	int rc = mpi_check_initialized(MPI_FN_Iscatterv);
	if (rc)
		return rc;
	MPI_ENTER(Iscatterv);
	if (!request) {
		rc = mpi_coll_check_request(comm, MPI_FN_Iscatterv, request);
		MPI_EXIT(Iscatterv, -1, 0, 0);
		return rc;
	}
	rc = scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount,
	              recvtype, root, comm, request, MPI_FN_Iscatterv);
	MPI_EXIT(Iscatterv, rc ? -1 : mpi_coll_world(comm, root), 0,
	         scatter_bytes(rc, recvbuf, recvcount, recvtype));
	return rc;
}

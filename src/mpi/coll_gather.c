/* MPI_Gather, MPI_Gatherv and their non-blocking forms.
 *
 * Gather, small (n > 2 and at most GATHER_BINOMIAL bytes in all):
 * binomial tree rooted at root; a node forwards its whole subtree's
 * blocks, packed, in one message to its parent (ceil(log2 n) rounds
 * instead of n - 1 messages into the root).  Otherwise linear: the root
 * receives every block straight into its place in recvbuf (no extra
 * copy, which wins once the data is large).  Gatherv: linear.
 */
#include "mpi/coll_sched.h"

#define GATHER_BINOMIAL (16 * 1024)

/* Lowest set bit of v (the size of a binomial subtree), n for the root. */
static int
subtree(int v, int n)
{
	int m = v ? (v & -v) : n;
	return v + m > n ? n - v : m;
}

static void
build_gather_binomial(struct mpi_sched *s, const void *sendbuf, size_t scount,
                      MPI_Datatype stype, void *recvbuf, size_t rcount,
                      MPI_Datatype rtype, int root, size_t blk)
{
	int n = s->comm->size, me = s->comm->rank;
	int v = (me - root + n) % n;
	int sub = subtree(v, n);
	if (sub == 1) { /* leaf: its own block, as it is */
		mpi_sched_send(s, sendbuf, scount, stype, (me - (v & -v) + n) % n);
		mpi_sched_fence(s);
		return;
	}
	char *tmp = mpi_sched_alloc(s, (size_t)sub * blk);
	if (!tmp)
		return;
	if (v != 0)
		mpi_sched_copy(s, sendbuf, scount, stype, tmp, blk, MPI_BYTE);
	for (int m = 1; m < n && !(v & m); m <<= 1) {
		if (v + m >= n)
			break;
		int cs = subtree(v + m, n);
		mpi_sched_recv(s, tmp + (size_t)m * blk, (size_t)cs * blk, MPI_BYTE,
		               (me + m) % n);
	}
	mpi_sched_fence(s);
	if (v != 0) {
		mpi_sched_send(s, tmp, (size_t)sub * blk, MPI_BYTE,
		               (me - (v & -v) + n) % n);
		mpi_sched_fence(s);
		return;
	}
	for (int j = 1; j < n; j++)
		mpi_sched_copy(s, tmp + (size_t)j * blk, blk, MPI_BYTE,
		               mpi_coll_at(recvbuf, (MPI_Aint)((size_t)((j + root) % n) * rcount), rtype),
		               rcount, rtype);
	if (sendbuf != MPI_IN_PLACE)
		mpi_sched_copy(s, sendbuf, scount, stype,
		               mpi_coll_at(recvbuf, (MPI_Aint)((size_t)root * rcount), rtype),
		               rcount, rtype);
}

/* Linear gather(v): counts/displs NULL means every block is rcount items
 * at r * rcount. */
static void
build_gatherv_linear(struct mpi_sched *s, const void *sendbuf, size_t scount,
                     MPI_Datatype stype, void *recvbuf, size_t rcount,
                     const int *rcounts, const int *displs,
                     MPI_Datatype rtype, int root)
{
	int n = s->comm->size, me = s->comm->rank;
	if (me != root) {
		if (scount > 0)
			mpi_sched_send(s, sendbuf, scount, stype, root);
		mpi_sched_fence(s);
		return;
	}
	for (int r = 0; r < n; r++) {
		size_t c = rcounts ? (size_t)rcounts[r] : rcount;
		void *at = mpi_coll_at(recvbuf,
		                       rcounts ? (MPI_Aint)displs[r]
		                               : (MPI_Aint)((size_t)r * rcount),
		                       rtype);
		if (r == me) {
			if (sendbuf != MPI_IN_PLACE)
				mpi_sched_copy(s, sendbuf, scount, stype, at, c, rtype);
		} else if (c > 0) {
			mpi_sched_recv(s, at, c, rtype, r);
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
gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
       void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
       MPI_Comm comm, MPI_Request *req, enum mpi_fn fn)
{
	int rc = check_common(comm, fn, root, req);
	if (rc)
		return rc;
	bool am_root = comm->rank == root;
	if (sendbuf == MPI_IN_PLACE && !am_root)
		return mpi_coll_err_in_place(comm, fn, "sendbuf of a non-root rank");
	if (sendbuf != MPI_IN_PLACE &&
	    (rc = mpi_coll_check_buf(comm, fn, sendcount, sendtype, "send")))
		return rc;
	if (am_root) {
		if ((rc = mpi_coll_check_buf(comm, fn, recvcount, recvtype, "receive")))
			return rc;
		if (recvbuf == MPI_IN_PLACE)
			return mpi_coll_err_in_place(comm, fn, "recvbuf");
	}
	size_t blk = am_root ? (size_t)recvcount * recvtype->size
	                     : (size_t)sendcount * sendtype->size;
	struct mpi_sched *s = mpi_sched_new(comm, fn);
	if (!s)
		return mpi_err(comm, MPI_ERR_INTERN, fn, "out of memory");
	int n = comm->size;
	size_t sc = sendbuf == MPI_IN_PLACE ? 0 : (size_t)sendcount;
	if (blk == 0)
		; /* nothing to move */
	else if (n > 2 && blk * (size_t)n <= GATHER_BINOMIAL)
		build_gather_binomial(s, sendbuf, sc, sendtype, recvbuf,
		                      (size_t)recvcount, recvtype, root, blk);
	else
		build_gatherv_linear(s, sendbuf, sc, sendtype, recvbuf,
		                     (size_t)recvcount, NULL, NULL, recvtype, root);
	rc = req ? mpi_sched_start(s, req) : mpi_sched_run(s);
	if (rc)
		return mpi_err(comm, rc, fn, "gather to root %d failed", root);
	return MPI_SUCCESS;
}

static int
gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
        void *recvbuf, const int recvcounts[], const int displs[],
        MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *req,
        enum mpi_fn fn)
{
	int rc = check_common(comm, fn, root, req);
	if (rc)
		return rc;
	bool am_root = comm->rank == root;
	if (sendbuf == MPI_IN_PLACE && !am_root)
		return mpi_coll_err_in_place(comm, fn, "sendbuf of a non-root rank");
	if (sendbuf != MPI_IN_PLACE &&
	    (rc = mpi_coll_check_buf(comm, fn, sendcount, sendtype, "send")))
		return rc;
	if (am_root) {
		if (recvbuf == MPI_IN_PLACE)
			return mpi_coll_err_in_place(comm, fn, "recvbuf");
		if (!recvcounts || !displs)
			return mpi_err(comm, MPI_ERR_ARG, fn,
			               "recvcounts or displs is NULL at the root");
		if ((rc = mpi_coll_check_type(comm, fn, recvtype, "receive datatype")))
			return rc;
		for (int r = 0; r < comm->size; r++)
			if (recvcounts[r] < 0)
				return mpi_err(comm, MPI_ERR_COUNT, fn,
				               "recvcounts[%d] = %d is negative", r,
				               recvcounts[r]);
	}
	struct mpi_sched *s = mpi_sched_new(comm, fn);
	if (!s)
		return mpi_err(comm, MPI_ERR_INTERN, fn, "out of memory");
	build_gatherv_linear(s, sendbuf,
	                     sendbuf == MPI_IN_PLACE ? 0 : (size_t)sendcount,
	                     sendtype, recvbuf, 0, am_root ? recvcounts : NULL,
	                     displs, recvtype, root);
	rc = req ? mpi_sched_start(s, req) : mpi_sched_run(s);
	if (rc)
		return mpi_err(comm, rc, fn, "gatherv to root %d failed", root);
	return MPI_SUCCESS;
}

static size_t
gather_bytes(int rc, const void *sendbuf, int sendcount, MPI_Datatype sendtype)
{
	return rc || sendbuf == MPI_IN_PLACE ? 0 : (size_t)sendcount * sendtype->size;
}

int
PMPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
            void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
            MPI_Comm comm)
{
	int rc = mpi_check_initialized(MPI_FN_Gather);
	if (rc)
		return rc;
	MPI_ENTER(Gather);
	rc = gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
	            root, comm, NULL, MPI_FN_Gather);
	MPI_EXIT(Gather, rc ? -1 : mpi_coll_world(comm, root), 0,
	         gather_bytes(rc, sendbuf, sendcount, sendtype));
	return rc;
}

int
PMPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
             void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
             MPI_Comm comm, MPI_Request *request)
{
	int rc = mpi_check_initialized(MPI_FN_Igather);
	if (rc)
		return rc;
	MPI_ENTER(Igather);
	if (!request) {
		rc = mpi_coll_check_request(comm, MPI_FN_Igather, request);
		MPI_EXIT(Igather, -1, 0, 0);
		return rc;
	}
	rc = gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
	            root, comm, request, MPI_FN_Igather);
	MPI_EXIT(Igather, rc ? -1 : mpi_coll_world(comm, root), 0,
	         gather_bytes(rc, sendbuf, sendcount, sendtype));
	return rc;
}

int
PMPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
             void *recvbuf, const int recvcounts[], const int displs[],
             MPI_Datatype recvtype, int root, MPI_Comm comm)
{
	int rc = mpi_check_initialized(MPI_FN_Gatherv);
	if (rc)
		return rc;
	MPI_ENTER(Gatherv);
	rc = gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
	             recvtype, root, comm, NULL, MPI_FN_Gatherv);
	MPI_EXIT(Gatherv, rc ? -1 : mpi_coll_world(comm, root), 0,
	         gather_bytes(rc, sendbuf, sendcount, sendtype));
	return rc;
}

int
PMPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
              void *recvbuf, const int recvcounts[], const int displs[],
              MPI_Datatype recvtype, int root, MPI_Comm comm,
              MPI_Request *request)
{
	int rc = mpi_check_initialized(MPI_FN_Igatherv);
	if (rc)
		return rc;
	MPI_ENTER(Igatherv);
	if (!request) {
		rc = mpi_coll_check_request(comm, MPI_FN_Igatherv, request);
		MPI_EXIT(Igatherv, -1, 0, 0);
		return rc;
	}
	rc = gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
	             recvtype, root, comm, request, MPI_FN_Igatherv);
	MPI_EXIT(Igatherv, rc ? -1 : mpi_coll_world(comm, root), 0,
	         gather_bytes(rc, sendbuf, sendcount, sendtype));
	return rc;
}

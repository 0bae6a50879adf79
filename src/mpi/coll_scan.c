/* MPI_Scan, MPI_Exscan and their non-blocking forms.
 *
 * Recursive doubling (MPICH's): a rank keeps `partial`, the combination
 * of a block of 2^k consecutive ranks that includes it, and in round k
 * exchanges it with rank ^ 2^k.  Data from a lower partner is combined
 * on the left (theirs op mine), from a higher one on the right (mine op
 * theirs), so non-commutative ops get MPI's rank order; only data from
 * lower partners goes into the result.  ceil(log2 n) rounds.  The
 * pointer swaps that keep "the result of the last step" in partial are
 * done while building: the schedule itself only receives, combines and
 * sends.
 */
#include "mpi/coll_sched.h"

static void
build_scan(struct mpi_sched *s, const void *input, void *recvbuf,
           size_t count, MPI_Datatype dt, MPI_Op op, bool exclusive)
{
	int n = s->comm->size, me = s->comm->rank;
	void *partial = mpi_sched_tmpbuf(s, count, dt);
	void *tmp = mpi_sched_tmpbuf(s, count, dt);
	if (!partial || !tmp)
		return;
	mpi_sched_copy(s, input, count, dt, partial, count, dt);
	if (!exclusive)
		mpi_sched_copy(s, input, count, dt, recvbuf, count, dt);
	bool have = !exclusive; /* recvbuf holds something yet */
	for (int mask = 1; mask < n; mask <<= 1) {
		int peer = me ^ mask;
		if (peer >= n)
			continue;
		mpi_sched_recv(s, tmp, count, dt, peer);
		mpi_sched_send(s, partial, count, dt, peer);
		mpi_sched_fence(s);
		if (peer < me) {
			/* theirs op mine, for the block and the result */
			mpi_sched_reduce(s, tmp, partial, count, dt, op);
			if (have) {
				mpi_sched_reduce(s, tmp, recvbuf, count, dt, op);
			} else {
				mpi_sched_copy(s, tmp, count, dt, recvbuf, count, dt);
				have = true;
			}
		} else if (op->commute) {
			mpi_sched_reduce(s, tmp, partial, count, dt, op);
		} else {
			/* mine op theirs lands in tmp, which becomes partial */
			mpi_sched_reduce(s, partial, tmp, count, dt, op);
			void *t = partial;
			partial = tmp;
			tmp = t;
		}
	}
}

static int
scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt,
     MPI_Op op, MPI_Comm comm, MPI_Request *req, enum mpi_fn fn, bool exclusive)
{
	int rc = mpi_coll_check_comm(comm, fn);
	if (rc)
		return rc;
	if ((rc = mpi_coll_check_buf(comm, fn, count, dt, "buffer")) ||
	    (rc = mpi_coll_check_op(comm, fn, op, dt)))
		return rc;
	if (req && (rc = mpi_coll_check_request(comm, fn, req)))
		return rc;
	if (recvbuf == MPI_IN_PLACE)
		return mpi_coll_err_in_place(comm, fn, "recvbuf");
	const void *input = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
	struct mpi_sched *s = mpi_sched_new(comm, fn);
	if (!s)
		return mpi_err(comm, MPI_ERR_INTERN, fn, "out of memory");
	if (count > 0)
		build_scan(s, input, recvbuf, (size_t)count, dt, op, exclusive);
	rc = req ? mpi_sched_start(s, req) : mpi_sched_run(s);
	if (rc)
		return mpi_err(comm, rc, fn, "%s of %d items failed",
		               exclusive ? "exclusive scan" : "scan", count);
	return MPI_SUCCESS;
}

int
PMPI_Scan(const void *sendbuf, void *recvbuf, int count,
          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
	int rc = mpi_check_initialized(MPI_FN_Scan);
	if (rc)
		return rc;
	MPI_ENTER(Scan);
	rc = scan(sendbuf, recvbuf, count, datatype, op, comm, NULL, MPI_FN_Scan,
	          false);
	MPI_EXIT(Scan, -1, 0, rc ? 0 : (size_t)count * datatype->size);
	return rc;
}

int
PMPI_Iscan(const void *sendbuf, void *recvbuf, int count,
           MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
           MPI_Request *request)
{
	int rc = mpi_check_initialized(MPI_FN_Iscan);
	if (rc)
		return rc;
	MPI_ENTER(Iscan);
	if (!request) {
		rc = mpi_coll_check_request(comm, MPI_FN_Iscan, request);
		MPI_EXIT(Iscan, -1, 0, 0);
		return rc;
	}
	rc = scan(sendbuf, recvbuf, count, datatype, op, comm, request,
	          MPI_FN_Iscan, false);
	MPI_EXIT(Iscan, -1, 0, rc ? 0 : (size_t)count * datatype->size);
	return rc;
}

int
PMPI_Exscan(const void *sendbuf, void *recvbuf, int count,
            MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
	int rc = mpi_check_initialized(MPI_FN_Exscan);
	if (rc)
		return rc;
	MPI_ENTER(Exscan);
	rc = scan(sendbuf, recvbuf, count, datatype, op, comm, NULL,
	          MPI_FN_Exscan, true);
	MPI_EXIT(Exscan, -1, 0, rc ? 0 : (size_t)count * datatype->size);
	return rc;
}

int
PMPI_Iexscan(const void *sendbuf, void *recvbuf, int count,
             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
             MPI_Request *request)
{
	int rc = mpi_check_initialized(MPI_FN_Iexscan);
	if (rc)
		return rc;
	MPI_ENTER(Iexscan);
	if (!request) {
		rc = mpi_coll_check_request(comm, MPI_FN_Iexscan, request);
		MPI_EXIT(Iexscan, -1, 0, 0);
		return rc;
	}
	rc = scan(sendbuf, recvbuf, count, datatype, op, comm, request,
	          MPI_FN_Iexscan, true);
	MPI_EXIT(Iexscan, -1, 0, rc ? 0 : (size_t)count * datatype->size);
	return rc;
}

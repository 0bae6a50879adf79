/* MPI_Reduce and MPI_Ireduce.
 *
 * Binomial tree, every child's message received at once (one buffer per
 * child), ceil(log2 n) rounds.
 *   Commutative op: the tree is rooted at root (ranks renumbered
 *   relative to it); contributions are combined in arrival order.
 *   Non-commutative op: the tree is rooted at rank 0 in rank order, so a
 *   node holding ranks [r, r+m) combines with the child holding
 *   [r+m, r+2m) as acc op child, which keeps MPI's rank order; rank 0
 *   then sends the result to root (one more message when root != 0).
 * Blocking reductions of at most 4 KiB of a contiguous type on a
 * communicator spanning the job go through shared memory (coll_shm.c).
 */
#include "mpi/bcs_rank.h"
#include "mpi/clusters.h"
#include "mpi/coll_hier.h"
#include "mpi/coll_sched.h"

void
mpi_coll_build_reduce(struct mpi_sched *s, const void *sendbuf, void *recvbuf,
                      size_t count, MPI_Datatype dt, MPI_Op op, int root)
{
	int n = s->comm->size, me = s->comm->rank;
	if (count == 0)
		return;
	if (n == 1) {
		mpi_sched_copy(s, sendbuf, count, dt, recvbuf, count, dt);
		return;
	}
	bool commute = op->commute;
	/* Tree numbering: relative to root (commutative) or to rank 0. */
	int base = commute ? root : 0;
	int v = (me - base + n) % n;
	int nchild = 0;
	int mask = 1;
	while (mask < n && !(v & mask)) {
		if (v + mask < n)
			nchild++;
		mask <<= 1;
	}
	int parent = mask < n ? (me - mask + n) % n : -1; /* -1: tree root */
	const void *acc = sendbuf;
	if (nchild > 0) {
		void *bufs[32];
		int k = 0;
		for (int m = 1; m < n && !(v & m); m <<= 1) {
			if (v + m >= n)
				break;
			bufs[k] = mpi_sched_tmpbuf(s, count, dt);
			if (!bufs[k])
				return;
			mpi_sched_recv(s, bufs[k], count, dt, (me + m) % n);
			k++;
		}
		mpi_sched_fence(s);
		if (commute) {
			void *a = me == root ? recvbuf : mpi_sched_tmpbuf(s, count, dt);
			if (!a)
				return;
			mpi_sched_copy(s, sendbuf, count, dt, a, count, dt);
			for (int i = 0; i < k; i++)
				mpi_sched_reduce(s, bufs[i], a, count, dt, op);
			acc = a;
		} else {
			/* acc op child, child's buffer becomes acc. */
			for (int i = 0; i < k; i++) {
				mpi_sched_reduce(s, acc, bufs[i], count, dt, op);
				acc = bufs[i];
			}
		}
	}
	if (parent >= 0) {
		mpi_sched_send(s, acc, count, dt, parent);
		mpi_sched_fence(s);
	}
	if (commute || root == 0) {
		if (me == root)
			mpi_sched_copy(s, acc, count, dt, recvbuf, count, dt);
		return;
	}
	/* Non-commutative with root != 0: rank 0 holds the result. */
	if (me == 0) {
		mpi_sched_send(s, acc, count, dt, root);
		mpi_sched_fence(s);
	} else if (me == root) {
		mpi_sched_recv(s, recvbuf, count, dt, 0);
		mpi_sched_fence(s);
	}
}

static int
reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt,
       MPI_Op op, int root, MPI_Comm comm, MPI_Request *req, enum mpi_fn fn)
{
	int rc = mpi_coll_check_comm(comm, fn);
	if (rc)
		return rc;
	if ((rc = mpi_coll_check_buf(comm, fn, count, dt, "buffer")) ||
	    (rc = mpi_coll_check_root(comm, fn, root)) ||
	    (rc = mpi_coll_check_op(comm, fn, op, dt)))
		return rc;
	if (req && (rc = mpi_coll_check_request(comm, fn, req)))
		return rc;
	bool am_root = comm->rank == root;
	if (sendbuf == MPI_IN_PLACE && !am_root)
		return mpi_coll_err_in_place(comm, fn, "sendbuf of a non-root rank");
	if (recvbuf == MPI_IN_PLACE && am_root)
		return mpi_coll_err_in_place(comm, fn, "recvbuf");
	if (__builtin_expect(mpi_bcs_mode, 0) &&
	    mpi_bcs_reduce(sendbuf, recvbuf, count, dt, op, root, comm, req, &rc))
		return rc ? mpi_err(comm, rc, fn, "reduction of %d items to root %d "
		                    "failed", count, root)
		          : MPI_SUCCESS;
	if (sendbuf == MPI_IN_PLACE)
		sendbuf = recvbuf;
	/* Several clusters and an op whose order does not matter:
	 * coll_hier.c (a non-commutative op keeps the rank-ordered tree). */
	bool hier = op->commute && mpi_hier_spans(comm);
	if (!req && !hier && count > 0 &&
	    mpi_coll_shm_reduce(sendbuf, recvbuf, (size_t)count, dt, op, root,
	                        comm, &rc))
		return rc ? mpi_err(comm, rc, fn, "shared-memory reduction failed")
		          : MPI_SUCCESS;
	struct mpi_sched *s = mpi_sched_new(comm, fn);
	if (!s)
		return mpi_err(comm, MPI_ERR_INTERN, fn, "out of memory");
	if (hier)
		mpi_hier_build_reduce(s, sendbuf, recvbuf, (size_t)count, dt, op,
		                      root);
	else
		mpi_coll_build_reduce(s, sendbuf, recvbuf, (size_t)count, dt, op,
		                      root);
	rc = req ? mpi_sched_start(s, req) : mpi_sched_run(s);
	if (rc)
		return mpi_err(comm, rc, fn, "reduction of %d items to root %d failed",
		               count, root);
	return MPI_SUCCESS;
}

int
PMPI_Reduce(const void *sendbuf, void *recvbuf, int count,
            MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm)
{
	int rc = mpi_check_initialized(MPI_FN_Reduce);
	if (rc)
		return rc;
	MPI_ENTER(Reduce);
	rc = reduce(sendbuf, recvbuf, count, datatype, op, root, comm, NULL,
	            MPI_FN_Reduce);
	MPI_EXIT(Reduce, rc ? -1 : mpi_coll_world(comm, root), 0,
	         rc ? 0 : (size_t)count * datatype->size);
	return rc;
}

int
PMPI_Ireduce(const void *sendbuf, void *recvbuf, int count,
             MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
             MPI_Request *request)
{
	int rc = mpi_check_initialized(MPI_FN_Ireduce);
	if (rc)
		return rc;
	MPI_ENTER(Ireduce);
	if (!request) {
		rc = mpi_coll_check_request(comm, MPI_FN_Ireduce, request);
		MPI_EXIT(Ireduce, -1, 0, 0);
		return rc;
	}
	rc = reduce(sendbuf, recvbuf, count, datatype, op, root, comm, request,
	            MPI_FN_Ireduce);
	MPI_EXIT(Ireduce, rc ? -1 : mpi_coll_world(comm, root), 0,
	         rc ? 0 : (size_t)count * datatype->size);
	return rc;
}

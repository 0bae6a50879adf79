/* MPI_Allreduce and MPI_Iallreduce.
 *
 * Small, or any non-commutative op: recursive doubling (MPICH's, with
 * the non-power-of-two fix-up): with p the largest power of two <= n and
 * r = n - p, ranks 0..2r-1 first fold in pairs (the odd one combines
 * the even one's data and goes on, the even one waits for the result),
 * leaving p participants that exchange and combine with partner
 * newrank ^ 2^k for log2 p rounds; combination is always lower op higher
 * in rank order, so non-commutative ops are right.  The same schedule
 * (mpi_list_allreduce) runs between the clusters' leaders of a
 * hierarchical allreduce (coll_hier.c), over their list of ranks.
 * Large (at least ALLREDUCE_LARGE bytes, commutative op, count >= n):
 * a reduce-scatter then an allgather, 2 (n-1)/n of the data per rank
 * instead of log2(n) times all of it: Rabenseifner's recursive halving
 * and doubling when n is a power of two (2 log2 n rounds), rings
 * otherwise (2 (n-1) rounds, but no fold of 2 (n - p) ranks moving the
 * whole vector first).  Measured at 8 ranks on 2 cores, 256 KiB:
 * Rabenseifner 470-490 us, ring 580-600 us.
 * Blocking allreduces of at most 4 KiB of a contiguous type on a
 * communicator spanning the job go through shared memory (coll_shm.c).
 */
#include "mpi/bcs_rank.h"
#include "mpi/clusters.h"
#include "mpi/coll_hier.h"
#include "mpi/coll_sched.h"

#define ALLREDUCE_LARGE (64 * 1024)

/* Rank of index i of a builder's list; NULL stands for the
 * communicator's ranks in order (the flat collectives), so that they
 * need no identity list built on every call. */
static inline int
peer(const int *list, int i)
{
	return list ? list[i] : i;
}

/* The largest power of two <= n. */
static int
pow2_floor(int n)
{
	int p = 1;
	while (p * 2 <= n)
		p *= 2;
	return p;
}

/* Index in the list of participant nr once the first 2 rem have folded
 * (the odd one of each pair goes on). */
static int
unfolded(int nr, int rem)
{
	return nr < rem ? nr * 2 + 1 : nr + rem;
}

/* MPICH's fold when n is not a power of two: of the first 2 rem
 * indices, each even one hands its data to the odd one after it, which
 * combines it (lower index op higher) and goes on.  Returns this rank's
 * index among the p = n - rem participants, or -1 when it waits for
 * fold_out. */
static int
fold_in(struct mpi_sched *s, const int *list, int rem, int idx, void *buf,
        void *tmp, size_t count, MPI_Datatype dt, MPI_Op op)
{
	if (idx >= 2 * rem)
		return idx - rem;
	if (idx % 2 == 0) {
		mpi_sched_send(s, buf, count, dt, peer(list, idx + 1));
		mpi_sched_fence(s);
		return -1;
	}
	mpi_sched_recv(s, tmp, count, dt, peer(list, idx - 1));
	mpi_sched_fence(s);
	mpi_sched_reduce(s, tmp, buf, count, dt, op);
	return idx / 2;
}

/* The fold undone: each odd index hands the result to the even one. */
static void
fold_out(struct mpi_sched *s, const int *list, int rem, int idx, void *buf,
         size_t count, MPI_Datatype dt)
{
	if (idx >= 2 * rem)
		return;
	if (idx % 2)
		mpi_sched_send(s, buf, count, dt, peer(list, idx - 1));
	else
		mpi_sched_recv(s, buf, count, dt, peer(list, idx + 1));
	mpi_sched_fence(s);
}

void
mpi_list_allreduce(struct mpi_sched *s, const int *list, int n, int idx,
                   void *buf, size_t count, MPI_Datatype dt, MPI_Op op)
{
	int p = pow2_floor(n), rem = n - p;
	void *tmp = mpi_sched_tmpbuf(s, count, dt);
	if (!tmp)
		return;
	int newidx = fold_in(s, list, rem, idx, buf, tmp, count, dt, op);
	for (int mask = 1; newidx >= 0 && mask < p; mask <<= 1) {
		int d = unfolded(newidx ^ mask, rem);
		mpi_sched_recv(s, tmp, count, dt, peer(list, d));
		mpi_sched_send(s, buf, count, dt, peer(list, d));
		mpi_sched_fence(s);
		if (d < idx || op->commute) {
			/* theirs op mine */
			mpi_sched_reduce(s, tmp, buf, count, dt, op);
		} else {
			/* mine op theirs, then back into buf */
			mpi_sched_reduce(s, buf, tmp, count, dt, op);
			mpi_sched_copy(s, tmp, count, dt, buf, count, dt);
		}
	}
	fold_out(s, list, rem, idx, buf, count, dt);
}

/* Ring reduce-scatter + ring allgather on n segments of the items. */
static void
build_ring(struct mpi_sched *s, void *recvbuf, size_t count, MPI_Datatype dt,
           MPI_Op op)
{
	int n = s->comm->size, me = s->comm->rank;
	size_t seg = count / (size_t)n, extra = count % (size_t)n;
	/* Segment i: items [off(i), off(i) + len(i)). */
#define SEG_OFF(i) ((size_t)(i) * seg + ((size_t)(i) < extra ? (size_t)(i) : extra))
#define SEG_LEN(i) (seg + ((size_t)(i) < extra ? 1 : 0))
	void *tmp = mpi_sched_tmpbuf(s, seg + 1, dt);
	if (!tmp)
		return;
	int right = (me + 1) % n, left = (me - 1 + n) % n;
	for (int i = 0; i < n - 1; i++) {
		int sseg = (me - i + n) % n, rseg = (me - i - 1 + n) % n;
		mpi_sched_recv(s, tmp, SEG_LEN(rseg), dt, left);
		mpi_sched_send(s, mpi_coll_at(recvbuf, SEG_OFF(sseg), dt),
		               SEG_LEN(sseg), dt, right);
		mpi_sched_fence(s);
		mpi_sched_reduce(s, tmp, mpi_coll_at(recvbuf, SEG_OFF(rseg), dt),
		                 SEG_LEN(rseg), dt, op);
	}
	/* This rank now holds the whole of segment me + 1. */
	for (int i = 0; i < n - 1; i++) {
		int sseg = (me + 1 - i + n) % n, rseg = (me - i + n) % n;
		mpi_sched_recv(s, mpi_coll_at(recvbuf, SEG_OFF(rseg), dt),
		               SEG_LEN(rseg), dt, left);
		mpi_sched_send(s, mpi_coll_at(recvbuf, SEG_OFF(sseg), dt),
		               SEG_LEN(sseg), dt, right);
		mpi_sched_fence(s);
	}
#undef SEG_OFF
#undef SEG_LEN
}

/* Rabenseifner: after the same fold as recursive doubling, the p
 * participants reduce-scatter by recursive halving (round k: swap half
 * of the part still owned with partner newrank ^ 2^k and combine the
 * half kept) and allgather by recursive doubling (the same exchanges in
 * reverse); MPICH's index arithmetic.  2 log2 p rounds moving 2 (p-1)/p
 * of the data: fewer rounds than the ring, which matters when ranks
 * share cores.  Commutative ops only (pieces combine in exchange order). */
static void
build_rabenseifner(struct mpi_sched *s, void *recvbuf, size_t count,
                   MPI_Datatype dt, MPI_Op op)
{
	int n = s->comm->size, me = s->comm->rank;
	int p = pow2_floor(n), rem = n - p;
	void *tmp = mpi_sched_tmpbuf(s, count, dt);
	size_t *cnts = mpi_sched_alloc(s, 2 * (size_t)p * sizeof(size_t));
	if (!tmp || !cnts)
		return;
	size_t *disps = cnts + p;
	int newrank = fold_in(s, NULL, rem, me, recvbuf, tmp, count, dt, op);
	if (newrank >= 0) {
		for (int i = 0; i < p; i++) {
			cnts[i] = count / (size_t)p + ((size_t)i < count % (size_t)p);
			disps[i] = i ? disps[i - 1] + cnts[i - 1] : 0;
		}
#define SUM(a, b, out) do { out = 0; for (int i_ = (a); i_ < (b); i_++) out += cnts[i_]; } while (0)
		int send_idx = 0, recv_idx = 0, last_idx = p, mask = 1;
		while (mask < p) {
			int newdst = newrank ^ mask, dst = unfolded(newdst, rem);
			size_t scnt, rcnt;
			if (newrank < newdst) {
				send_idx = recv_idx + p / (mask * 2);
				SUM(send_idx, last_idx, scnt);
				SUM(recv_idx, send_idx, rcnt);
			} else {
				recv_idx = send_idx + p / (mask * 2);
				SUM(send_idx, recv_idx, scnt);
				SUM(recv_idx, last_idx, rcnt);
			}
			void *rat = mpi_coll_at(tmp, (MPI_Aint)disps[recv_idx], dt);
			if (rcnt)
				mpi_sched_recv(s, rat, rcnt, dt, dst);
			if (scnt)
				mpi_sched_send(s, mpi_coll_at(recvbuf, (MPI_Aint)disps[send_idx], dt),
				               scnt, dt, dst);
			mpi_sched_fence(s);
			mpi_sched_reduce(s, rat, mpi_coll_at(recvbuf, (MPI_Aint)disps[recv_idx], dt),
			                 rcnt, dt, op);
			send_idx = recv_idx;
			mask <<= 1;
			if (mask < p)
				last_idx = recv_idx + p / mask;
		}
		for (mask >>= 1; mask > 0; mask >>= 1) {
			int newdst = newrank ^ mask, dst = unfolded(newdst, rem);
			size_t scnt, rcnt;
			if (newrank < newdst) {
				if (mask != p / 2)
					last_idx = last_idx + p / (mask * 2);
				recv_idx = send_idx + p / (mask * 2);
				SUM(send_idx, recv_idx, scnt);
				SUM(recv_idx, last_idx, rcnt);
			} else {
				recv_idx = send_idx - p / (mask * 2);
				SUM(send_idx, last_idx, scnt);
				SUM(recv_idx, send_idx, rcnt);
			}
			if (rcnt)
				mpi_sched_recv(s, mpi_coll_at(recvbuf, (MPI_Aint)disps[recv_idx], dt),
				               rcnt, dt, dst);
			if (scnt)
				mpi_sched_send(s, mpi_coll_at(recvbuf, (MPI_Aint)disps[send_idx], dt),
				               scnt, dt, dst);
			mpi_sched_fence(s);
			if (newrank > newdst)
				send_idx = recv_idx;
		}
#undef SUM
	}
	fold_out(s, NULL, rem, me, recvbuf, count, dt);
}

static int
allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt,
          MPI_Op op, MPI_Comm comm, MPI_Request *req, enum mpi_fn fn)
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
	if (__builtin_expect(mpi_bcs_mode, 0) &&
	    mpi_bcs_reduce(sendbuf, recvbuf, count, dt, op, -1, comm, req, &rc))
		return rc ? mpi_err(comm, rc, fn, "allreduce of %d items failed",
		                    count)
		          : MPI_SUCCESS;
	if (sendbuf == MPI_IN_PLACE)
		sendbuf = recvbuf;
	/* Several clusters and an op whose order does not matter:
	 * coll_hier.c (a non-commutative op keeps recursive doubling). */
	bool hier = op->commute && mpi_hier_spans(comm);
	if (!req && !hier && count > 0 &&
	    mpi_coll_shm_allreduce(sendbuf, recvbuf, (size_t)count, dt, op, comm,
	                           &rc))
		return rc ? mpi_err(comm, rc, fn, "shared-memory allreduce failed")
		          : MPI_SUCCESS;
	struct mpi_sched *s = mpi_sched_new(comm, fn);
	if (!s)
		return mpi_err(comm, MPI_ERR_INTERN, fn, "out of memory");
	size_t n = (size_t)count, bytes = n * dt->size;
	if (n > 0 && hier) {
		mpi_hier_build_allreduce(s, sendbuf, recvbuf, n, dt, op);
	} else if (n > 0) {
		mpi_sched_copy(s, sendbuf, n, dt, recvbuf, n, dt);
		if (comm->size == 1)
			;
		else if (op->commute && bytes >= ALLREDUCE_LARGE &&
		         n >= (size_t)comm->size &&
		         (comm->size & (comm->size - 1)) == 0)
			build_rabenseifner(s, recvbuf, n, dt, op);
		else if (op->commute && bytes >= ALLREDUCE_LARGE &&
		         n >= (size_t)comm->size)
			build_ring(s, recvbuf, n, dt, op);
		else
			mpi_list_allreduce(s, NULL, comm->size, comm->rank,
			                   recvbuf, n, dt, op);
	}
	rc = req ? mpi_sched_start(s, req) : mpi_sched_run(s);
	if (rc)
		return mpi_err(comm, rc, fn, "allreduce of %d items failed", count);
	return MPI_SUCCESS;
}

int
PMPI_Allreduce(const void *sendbuf, void *recvbuf, int count,
               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
	int rc = mpi_check_initialized(MPI_FN_Allreduce);
	if (rc)
		return rc;
	MPI_ENTER(Allreduce);
	rc = allreduce(sendbuf, recvbuf, count, datatype, op, comm, NULL,
	               MPI_FN_Allreduce);
	MPI_EXIT(Allreduce, -1, 0, rc ? 0 : (size_t)count * datatype->size);
	return rc;
}

int
PMPI_Iallreduce(const void *sendbuf, void *recvbuf, int count,
                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                MPI_Request *request)
{
	int rc = mpi_check_initialized(MPI_FN_Iallreduce);
	if (rc)
		return rc;
	MPI_ENTER(Iallreduce);
	if (!request) {
		rc = mpi_coll_check_request(comm, MPI_FN_Iallreduce, request);
		MPI_EXIT(Iallreduce, -1, 0, 0);
		return rc;
	}
	rc = allreduce(sendbuf, recvbuf, count, datatype, op, comm, request,
	               MPI_FN_Iallreduce);
	MPI_EXIT(Iallreduce, -1, 0, rc ? 0 : (size_t)count * datatype->size);
	return rc;
}

/* Shared-memory fast path for small blocking collectives (Barrier, Bcast,
 * Reduce, Allreduce, Allgather, Alltoall) of communicators that span
 * every rank of the job.
 *
 * The job segment has a collective area (job.h): a header page and one
 * slot per world rank.  Every such collective is a "generation" g =
 * 1, 2, 3 ... counted by each rank (every rank of the job takes part in
 * every one of them, in the same order: the standard requires the same
 * order of collectives per communicator, and cyclic orders across
 * communicators are erroneous, so for communicators of the whole job the
 * order is one).
 *
 *   arrived   total arrivals since the job began: generation g is
 *             complete when arrived reaches g * n.  One atomic add per
 *             rank per generation, never reset (64 bits do not wrap).
 *   posted    the last generation whose root (Bcast) or combiner
 *             (Allreduce) published its data.
 *   res_rank  per parity: whose slot holds generation g's Allreduce
 *             result.
 * Slot of rank w:  contrib[2][SHM_MAX] and result[2][SHM_MAX], used by
 * generation g at index g & 1 (double buffering).
 *
 * Reuse rule.  A rank enters generation g only when g - 1 is complete
 * (arrived >= (g-1) n; usually it already waited for that inside g - 1).
 * A rank arrives at g - 1 only after it is done with everything of g - 2,
 * so when anybody writes buffers of parity g & 1 (which g - 2 used),
 * nobody still reads g - 2's.  Within a generation a rank may read others'
 * buffers before or after its own arrival (the Reduce root and the
 * Allreduce combiner read after every arrival; Bcast readers before
 * theirs; Allgather and Alltoall readers after every arrival).
 *
 * Memory order.  A contribution is written with plain stores and
 * published by the release half of the acq_rel add on arrived; the
 * waiters' acquire load of arrived (or the combiner's acq_rel add, which
 * follows the release sequence of every earlier add) makes every earlier
 * contribution visible.  posted is stored with release after the data it
 * announces and loaded with acquire.  Wake-ups: whoever completes a
 * generation or posts wakes every other rank (mpi_wake: a fence and one
 * load unless the rank sleeps; its fence orders our store before its
 * check of the sleeping flag, as wake.c explains).
 */
#include <stdlib.h>
#include <string.h>

#include "mpi/bcs_rank.h"
#include "mpi/coll_sched.h"
#include "mpi/job.h"
#include "mpi/tcp_chan.h"

#define SHM_MAX (MPI_JOB_COLL_SLOT / 4)
/* Allreduce of at most this many bytes: every rank combines the n
 * contributions itself right after the last arrival (no second wake-up
 * on the critical path); above it one rank combines and the others
 * copy its result (n-fold less work in total). */
#define SHM_ALL_COMBINE 512

struct shm_hdr {
	uint64_t arrived;
	char pad0_[56];
	uint64_t posted;
	uint32_t res_rank[2];
	char pad1_[48];
};
_Static_assert(sizeof(struct shm_hdr) <= MPI_JOB_COLL_HDR,
               "shared collective header fits its page");

struct shm_slot {
	unsigned char contrib[2][SHM_MAX];
	unsigned char result[2][SHM_MAX];
};
_Static_assert(sizeof(struct shm_slot) <= MPI_JOB_COLL_SLOT,
               "shared collective slot fits");

/* This rank's generation counter: the last generation it entered. */
static uint64_t gen;
/* -1 unknown, 0 off (GROVE_COLL_SHM=0), 1 on. */
static int enabled = -1;

static struct shm_hdr *
hdr(void)
{
	return mpi_job_coll_hdr(mpi_proc.job);
}
static struct shm_slot *
slot(int world)
{
	return mpi_job_coll_slot(mpi_proc.job, (uint32_t)world);
}

/* Whether comm may use the fast path: it spans the job (size equal to
 * MPI_COMM_WORLD's: there are no intercommunicators or spawned ranks, so
 * its group is a permutation of the job's ranks).  This also assumes
 * that every rank maps this job segment, which holds while a job runs on
 * one host with shared memory; the TCP transport (one host or several)
 * turns the path off here.
 * GROVE_COLL_SHM=0 turns it off (tests of the schedules; grove run keeps
 * the GROVE_MPI_ names for itself).  BCS mode turns it off: there the
 * node manager does all communication, collectives included. */
static bool
usable(MPI_Comm comm, size_t bytes)
{
	if (enabled < 0) {
		const char *e = getenv("GROVE_COLL_SHM");
		/* TCP: the ranks need not share this segment (other hosts),
		 * so the schedules over point-to-point do it. */
		enabled = !(e && e[0] == '0') && !mpi_bcs_mode &&
		          !mpi_tcp_active();
	}
	return enabled && mpi_proc.job && comm->size > 1 &&
	       comm->size == mpi_proc.size &&
	       (int)mpi_proc.job->hdr->nranks == mpi_proc.size &&
	       bytes <= SHM_MAX;
}

struct wait_arg {
	uint64_t *word;
	uint64_t target;
};

static bool
reached(void *p)
{
	struct wait_arg *a = p;
	return __atomic_load_n(a->word, __ATOMIC_ACQUIRE) >= a->target;
}

/* Waits until *word >= v (mpi_coll_wait: progress, a few yields when
 * ranks outnumber cores, then sleep). */
static void
wait_for(uint64_t *word, uint64_t v)
{
	struct wait_arg a = {word, v};
	mpi_coll_wait(reached, &a);
}

static void
wake_others(void)
{
	for (int r = 0; r < mpi_proc.size; r++)
		if (r != mpi_proc.rank)
			mpi_wake(r);
}

/* Starts a generation: waits until the previous one is complete. */
static uint64_t
enter(void)
{
	uint64_t g = ++gen;
	wait_for(&hdr()->arrived, (g - 1) * (uint64_t)mpi_proc.size);
	return g;
}

/* Arrives at generation g; true for the rank that completed it (which
 * wakes the others: some may wait for the completion, some at the entry
 * of the next generation). */
static bool
arrive(uint64_t g)
{
	uint64_t old = __atomic_fetch_add(&hdr()->arrived, 1, __ATOMIC_ACQ_REL);
	if (old + 1 == g * (uint64_t)mpi_proc.size) {
		wake_others();
		return true;
	}
	return false;
}

static void
wait_complete(uint64_t g)
{
	wait_for(&hdr()->arrived, g * (uint64_t)mpi_proc.size);
}

int
mpi_coll_shm_barrier(MPI_Comm comm, int *rc)
{
	if (!usable(comm, 0))
		return 0;
	uint64_t g = enter();
	if (!arrive(g))
		wait_complete(g);
	*rc = MPI_SUCCESS;
	return 1;
}

int
mpi_coll_shm_bcast(void *buf, size_t count, MPI_Datatype dt, int root,
                   MPI_Comm comm, int *rc)
{
	size_t bytes = count * dt->size;
	if (!usable(comm, bytes))
		return 0;
	uint64_t g = enter();
	int p = (int)(g & 1);
	struct shm_slot *rs = slot(mpi_comm_world_rank(comm, root));
	if (comm->rank == root) {
		mpi_dt_pack(dt, buf, count, rs->contrib[p], 0, bytes);
		__atomic_store_n(&hdr()->posted, g, __ATOMIC_RELEASE);
		wake_others();
		arrive(g);
	} else {
		wait_for(&hdr()->posted, g);
		mpi_dt_unpack(dt, buf, count, rs->contrib[p], 0, bytes);
		arrive(g);
	}
	*rc = MPI_SUCCESS;
	return 1;
}

/* Whether a reduction of count items of dt can work on the packed bytes
 * in the slots: the items must lie as they are packed. */
static bool
reducible(size_t count, MPI_Datatype dt)
{
	return dt->contig && dt->true_lb == 0 &&
	       (MPI_Aint)dt->size == dt->extent && mpi_dt_is_contig(dt, count);
}

/* out = s_0 op s_1 op ... op s_{n-1} in comm rank order (right to left,
 * because mpi_op_apply computes inout = in op inout). */
static int
combine(MPI_Comm comm, int p, void *out, size_t count, MPI_Datatype dt,
        MPI_Op op)
{
	int n = comm->size;
	const char *why = NULL;
	memcpy(out, slot(mpi_comm_world_rank(comm, n - 1))->contrib[p],
	       count * dt->size);
	for (int r = n - 2; r >= 0; r--) {
		int e = mpi_op_apply(op, slot(mpi_comm_world_rank(comm, r))->contrib[p],
		                     out, count, dt, &why);
		if (e)
			return e;
	}
	return MPI_SUCCESS;
}

int
mpi_coll_shm_reduce(const void *sendbuf, void *recvbuf, size_t count,
                    MPI_Datatype dt, MPI_Op op, int root, MPI_Comm comm,
                    int *rc)
{
	size_t bytes = count * dt->size;
	if (!usable(comm, bytes) || !reducible(count, dt))
		return 0;
	uint64_t g = enter();
	int p = (int)(g & 1);
	const void *in = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
	memcpy(slot(mpi_proc.rank)->contrib[p], in, bytes);
	bool last = arrive(g);
	*rc = MPI_SUCCESS;
	if (comm->rank == root) {
		if (!last)
			wait_complete(g);
		*rc = combine(comm, p, recvbuf, count, dt, op);
	}
	return 1;
}

int
mpi_coll_shm_allreduce(const void *sendbuf, void *recvbuf, size_t count,
                       MPI_Datatype dt, MPI_Op op, MPI_Comm comm, int *rc)
{
	size_t bytes = count * dt->size;
	if (!usable(comm, bytes) || !reducible(count, dt))
		return 0;
	uint64_t g = enter();
	int p = (int)(g & 1);
	struct shm_hdr *h = hdr();
	const void *in = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
	memcpy(slot(mpi_proc.rank)->contrib[p], in, bytes);
	if (bytes <= SHM_ALL_COMBINE) {
		if (!arrive(g))
			wait_complete(g);
		*rc = combine(comm, p, recvbuf, count, dt, op);
		return 1;
	}
	uint64_t old = __atomic_fetch_add(&h->arrived, 1, __ATOMIC_ACQ_REL);
	if (old + 1 == g * (uint64_t)mpi_proc.size) {
		/* The last to arrive combines into its own result buffer. */
		struct shm_slot *me = slot(mpi_proc.rank);
		*rc = combine(comm, p, me->result[p], count, dt, op);
		memcpy(recvbuf, me->result[p], bytes);
		h->res_rank[p] = (uint32_t)mpi_proc.rank;
		__atomic_store_n(&h->posted, g, __ATOMIC_RELEASE);
		wake_others();
	} else {
		wait_for(&h->posted, g);
		memcpy(recvbuf, slot((int)h->res_rank[p])->result[p], bytes);
		*rc = MPI_SUCCESS;
	}
	return 1;
}

int
mpi_coll_shm_allgather(const void *sendbuf, size_t scount, MPI_Datatype stype,
                       void *recvbuf, size_t rcount, MPI_Datatype rtype,
                       MPI_Comm comm, int *rc)
{
	size_t blk = rcount * rtype->size;
	if (!usable(comm, blk))
		return 0;
	uint64_t g = enter();
	int p = (int)(g & 1), me = comm->rank;
	unsigned char *mine = slot(mpi_proc.rank)->contrib[p];
	if (sendbuf == MPI_IN_PLACE)
		mpi_dt_pack(rtype, mpi_coll_at(recvbuf, (MPI_Aint)((size_t)me * rcount), rtype),
		            rcount, mine, 0, blk);
	else
		mpi_dt_pack(stype, sendbuf, scount, mine, 0, blk);
	if (!arrive(g))
		wait_complete(g);
	for (int r = 0; r < comm->size; r++)
		mpi_dt_unpack(rtype, mpi_coll_at(recvbuf, (MPI_Aint)((size_t)r * rcount), rtype),
		              rcount, slot(mpi_comm_world_rank(comm, r))->contrib[p], 0,
		              blk);
	*rc = MPI_SUCCESS;
	return 1;
}

int
mpi_coll_shm_alltoall(const void *sendbuf, size_t scount, MPI_Datatype stype,
                      void *recvbuf, size_t rcount, MPI_Datatype rtype,
                      MPI_Comm comm, int *rc)
{
	size_t blk = rcount * rtype->size;
	int n = comm->size, me = comm->rank;
	if (!usable(comm, blk * (size_t)n))
		return 0;
	uint64_t g = enter();
	int p = (int)(g & 1);
	unsigned char *mine = slot(mpi_proc.rank)->contrib[p];
	/* Block r of this rank's slot is what goes to rank r.  In place, the
	 * blocks are packed from recvbuf before anything is written to it. */
	for (int r = 0; r < n; r++) {
		if (sendbuf == MPI_IN_PLACE)
			mpi_dt_pack(rtype, mpi_coll_at(recvbuf, (MPI_Aint)((size_t)r * rcount), rtype),
			            rcount, mine + (size_t)r * blk, 0, blk);
		else
			mpi_dt_pack(stype, mpi_coll_at(sendbuf, (MPI_Aint)((size_t)r * scount), stype),
			            scount, mine + (size_t)r * blk, 0, blk);
	}
	if (!arrive(g))
		wait_complete(g);
	for (int r = 0; r < n; r++)
		mpi_dt_unpack(rtype, mpi_coll_at(recvbuf, (MPI_Aint)((size_t)r * rcount), rtype),
		              rcount,
		              slot(mpi_comm_world_rank(comm, r))->contrib[p] + (size_t)me * blk,
		              0, blk);
	*rc = MPI_SUCCESS;
	return 1;
}

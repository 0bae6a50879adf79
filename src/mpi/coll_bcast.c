/* MPI_Bcast and MPI_Ibcast.
 *
 * Small (up to BCAST_LARGE_PER_RANK * n bytes, or at most 2 ranks):
 * binomial tree rooted at root, ceil(log2 n) rounds, the whole message
 * on every edge.  Large: scatter of n pieces down the same binomial tree, then a ring
 * allgather of the pieces (van de Geijn; MPICH's scatter + ring
 * allgather): each rank sends and receives about 2 * bytes in total
 * instead of log2(n) * bytes, which is what matters when ranks share
 * cores and memory bandwidth.  Blocking broadcasts of at most 4 KiB on a
 * communicator spanning the job go through shared memory (coll_shm.c).
 */
#include "mpi/bcs_rank.h"
#include "mpi/clusters.h"
#include "mpi/coll_hier.h"
#include "mpi/coll_sched.h"

/* Scatter + allgather above BCAST_LARGE_PER_RANK * n bytes.  The ring
 * takes n - 1 more rounds than the tree; on one host (single-copy
 * transfers) the tree stays faster far beyond the 64 KiB where MPICH
 * switches, the more so when ranks share cores.  Measured (medians of
 * noisy runs, 2 cores): n = 8, 256 KiB: tree 200-240 us, scatter+ring
 * 530-600 us; 2 MiB: tree 1.4-2.4 ms, scatter+ring 2.5 ms; n = 4, 2 MiB:
 * tree 0.77-0.90 ms, scatter+ring 0.60-0.75 ms. */
#define BCAST_LARGE_PER_RANK (256 * 1024)

static void
build_binomial(struct mpi_sched *s, void *buf, size_t count, MPI_Datatype dt,
               int root)
{
	int n = s->comm->size, me = s->comm->rank;
	int v = (me - root + n) % n;
	int mask = 1;
	while (mask < n) {
		if (v & mask) {
			mpi_sched_recv(s, buf, count, dt, (me - mask + n) % n);
			mpi_sched_fence(s);
			break;
		}
		mask <<= 1;
	}
	for (mask >>= 1; mask > 0; mask >>= 1)
		if (v + mask < n)
			mpi_sched_send(s, buf, count, dt, (me + mask) % n);
	mpi_sched_fence(s);
}

/* Bytes [lo, hi) of piece range [a, b) of a message cut in pieces of c
 * bytes (the last ones may be short or empty). */
static size_t
piece_off(size_t i, size_t c, size_t bytes)
{
	size_t o = i * c;
	return o < bytes ? o : bytes;
}

static void
build_scatter_ring(struct mpi_sched *s, void *buf, size_t count,
                   MPI_Datatype dt, int root)
{
	int n = s->comm->size, me = s->comm->rank;
	int v = (me - root + n) % n;
	size_t bytes = count * dt->size;
	size_t c = (bytes + (size_t)n - 1) / (size_t)n;
	char *tmp;
	bool contig = mpi_dt_is_contig(dt, count);
	if (contig) {
		tmp = (char *)buf + dt->true_lb;
	} else {
		tmp = mpi_sched_alloc(s, bytes);
		if (!tmp)
			return;
		if (v == 0)
			mpi_sched_copy(s, buf, count, dt, tmp, bytes, MPI_BYTE);
	}
	/* Scatter: vrank v's subtree is [v, v + lowbit(v)) (the root's is
	 * everything); it receives those pieces from its parent. */
	int mask = 1;
	while (mask < n) {
		if (v & mask) {
			size_t lo = piece_off((size_t)v, c, bytes);
			size_t hi = piece_off((size_t)v + (size_t)mask, c, bytes);
			if (hi > lo) {
				mpi_sched_recv(s, tmp + lo, hi - lo, MPI_BYTE,
				               (me - mask + n) % n);
				mpi_sched_fence(s);
			}
			break;
		}
		mask <<= 1;
	}
	for (mask >>= 1; mask > 0; mask >>= 1) {
		if (v + mask >= n)
			continue;
		size_t lo = piece_off((size_t)(v + mask), c, bytes);
		size_t hi = piece_off((size_t)(v + 2 * mask), c, bytes);
		if (hi > lo)
			mpi_sched_send(s, tmp + lo, hi - lo, MPI_BYTE,
			               (me + mask) % n);
	}
	mpi_sched_fence(s);
	/* Ring allgather in vrank space: in step i, pass piece v - i to the
	 * right and take piece v - i - 1 from the left. */
	int right = (me + 1) % n, left = (me - 1 + n) % n;
	for (int i = 0; i < n - 1; i++) {
		size_t sp = (size_t)((v - i + n) % n), rp = (size_t)((v - i - 1 + 2 * n) % n);
		size_t slo = piece_off(sp, c, bytes), shi = piece_off(sp + 1, c, bytes);
		size_t rlo = piece_off(rp, c, bytes), rhi = piece_off(rp + 1, c, bytes);
		if (rhi > rlo)
			mpi_sched_recv(s, tmp + rlo, rhi - rlo, MPI_BYTE, left);
		if (shi > slo)
			mpi_sched_send(s, tmp + slo, shi - slo, MPI_BYTE, right);
		mpi_sched_fence(s);
	}
	if (!contig && v != 0)
		mpi_sched_copy(s, tmp, bytes, MPI_BYTE, buf, count, dt);
}

static int
bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm,
      MPI_Request *req, enum mpi_fn fn)
{
	int rc = mpi_coll_check_comm(comm, fn);
	if (rc)
		return rc;
	if ((rc = mpi_coll_check_buf(comm, fn, count, dt, "buffer")) ||
	    (rc = mpi_coll_check_root(comm, fn, root)))
		return rc;
	if (req && (rc = mpi_coll_check_request(comm, fn, req)))
		return rc;
	if (buf == MPI_IN_PLACE)
		return mpi_coll_err_in_place(comm, fn, "buffer");
	if (__builtin_expect(mpi_bcs_mode, 0) &&
	    mpi_bcs_bcast(buf, count, dt, root, comm, req, &rc))
		return rc ? mpi_err(comm, rc, fn, "broadcast of %d items from root "
		                    "%d failed", count, root)
		          : MPI_SUCCESS;
	size_t bytes = (size_t)count * dt->size;
	bool hier = mpi_hier_spans(comm); /* several clusters: coll_hier.c */
	if (!req && !hier && bytes > 0 &&
	    mpi_coll_shm_bcast(buf, (size_t)count, dt, root, comm, &rc))
		return rc ? mpi_err(comm, rc, fn, "shared-memory broadcast failed")
		          : MPI_SUCCESS;
	struct mpi_sched *s = mpi_sched_new(comm, fn);
	if (!s)
		return mpi_err(comm, MPI_ERR_INTERN, fn, "out of memory");
	if (bytes == 0 || comm->size == 1)
		; /* nothing to move */
	else if (hier)
		mpi_hier_build_bcast(s, buf, (size_t)count, dt, root);
	else if (comm->size > 2 &&
	         bytes > (size_t)comm->size * BCAST_LARGE_PER_RANK)
		build_scatter_ring(s, buf, (size_t)count, dt, root);
	else
		build_binomial(s, buf, (size_t)count, dt, root);
	rc = req ? mpi_sched_start(s, req) : mpi_sched_run(s);
	if (rc)
		return mpi_err(comm, rc, fn, "broadcast of %d items from root %d failed",
		               count, root);
	return MPI_SUCCESS;
}

int
PMPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root,
           MPI_Comm comm)
{
	int rc = mpi_check_initialized(MPI_FN_Bcast);
	if (rc)
		return rc;
	MPI_ENTER(Bcast);
	rc = bcast(buffer, count, datatype, root, comm, NULL, MPI_FN_Bcast);
	MPI_EXIT(Bcast, rc ? -1 : mpi_coll_world(comm, root), 0,
	         rc ? 0 : (size_t)count * datatype->size);
	return rc;
}

int
PMPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root,
            MPI_Comm comm, MPI_Request *request)
{
	int rc = mpi_check_initialized(MPI_FN_Ibcast);
	if (rc)
		return rc;
	MPI_ENTER(Ibcast);
	if (!request) {
		rc = mpi_coll_check_request(comm, MPI_FN_Ibcast, request);
		MPI_EXIT(Ibcast, -1, 0, 0);
		return rc;
	}
	rc = bcast(buffer, count, datatype, root, comm, request, MPI_FN_Ibcast);
	MPI_EXIT(Ibcast, rc ? -1 : mpi_coll_world(comm, root), 0,
	         rc ? 0 : (size_t)count * datatype->size);
	return rc;
}

/* MPI_Alltoall, MPI_Alltoallv, MPI_Alltoallw and their non-blocking
 * forms.
 *
 * Pairwise exchange: in round i a rank sends to rank + i and receives
 * from rank - i, so every rank talks to one peer at a time and no rank
 * is flooded (n - 1 rounds).  When a rank moves little data in all
 * (at most ALLTOALL_BURST bytes) it posts every receive and send at once
 * instead: one round of latency rather than n - 1.  Each pair exchanges
 * exactly one message per collective, so this choice is local to a rank
 * and ranks need not agree on it.
 * MPI_IN_PLACE: the blocks of recvbuf are first packed into a temporary
 * buffer, which then serves as the send buffer.
 * A blocking Alltoall of at most 4 KiB per rank in all on a communicator
 * spanning the job goes through shared memory (coll_shm.c).
 */
#include <stdlib.h>

#include "mpi/coll_sched.h"

#define ALLTOALL_BURST (64 * 1024)

struct a2a_side {
	const void *buf;
	size_t count;
	MPI_Datatype dt;
};

static void
build_exchange(struct mpi_sched *s, const struct a2a_side *snd,
               const struct a2a_side *rcv)
{
	int n = s->comm->size, me = s->comm->rank;
	size_t total = 0;
	for (int r = 0; r < n; r++)
		total += snd[r].count * snd[r].dt->size +
		         rcv[r].count * rcv[r].dt->size;
	mpi_sched_copy(s, snd[me].buf, snd[me].count, snd[me].dt,
	               (void *)rcv[me].buf, rcv[me].count, rcv[me].dt);
	bool burst = total <= ALLTOALL_BURST;
	if (burst)
		for (int i = 1; i < n; i++) {
			int src = (me - i + n) % n;
			if (rcv[src].count)
				mpi_sched_recv(s, (void *)rcv[src].buf, rcv[src].count,
				               rcv[src].dt, src);
		}
	for (int i = 1; i < n; i++) {
		int dst = (me + i) % n, src = (me - i + n) % n;
		if (!burst && rcv[src].count)
			mpi_sched_recv(s, (void *)rcv[src].buf, rcv[src].count,
			               rcv[src].dt, src);
		if (snd[dst].count)
			mpi_sched_send(s, snd[dst].buf, snd[dst].count, snd[dst].dt,
			               dst);
		if (!burst)
			mpi_sched_fence(s);
	}
	mpi_sched_fence(s);
}

/* MPI_IN_PLACE: packs each receive block into one temporary buffer and
 * points the send side there. */
static void
in_place_sends(struct mpi_sched *s, struct a2a_side *snd,
               const struct a2a_side *rcv)
{
	int n = s->comm->size;
	size_t total = 0;
	for (int r = 0; r < n; r++)
		total += rcv[r].count * rcv[r].dt->size;
	char *tmp = mpi_sched_alloc(s, total);
	if (!tmp)
		return;
	size_t off = 0;
	for (int r = 0; r < n; r++) {
		size_t b = rcv[r].count * rcv[r].dt->size;
		if (r != s->comm->rank)
			mpi_sched_copy(s, rcv[r].buf, rcv[r].count, rcv[r].dt,
			               tmp + off, b, MPI_BYTE);
		snd[r].buf = tmp + off;
		snd[r].count = b;
		snd[r].dt = MPI_BYTE;
		off += b;
	}
	/* Its own block stays where it is. */
	snd[s->comm->rank].count = 0;
}

/* What the three variants have in common, given the per-peer sides. */
static int
run(MPI_Comm comm, enum mpi_fn fn, bool in_place, struct a2a_side *snd,
    struct a2a_side *rcv, MPI_Request *req)
{
	struct mpi_sched *s = mpi_sched_new(comm, fn);
	if (!s) {
		free(snd);
		return mpi_err(comm, MPI_ERR_INTERN, fn, "out of memory");
	}
	if (in_place)
		in_place_sends(s, snd, rcv);
	if (!s->err)
		build_exchange(s, snd, rcv);
	free(snd); /* rcv is the second half of the same allocation */
	int rc = req ? mpi_sched_start(s, req) : mpi_sched_run(s);
	if (rc)
		return mpi_err(comm, rc, fn, "all-to-all exchange failed");
	return MPI_SUCCESS;
}

static struct a2a_side *
sides(MPI_Comm comm, enum mpi_fn fn, int *rc)
{
	struct a2a_side *s = calloc(2 * (size_t)comm->size, sizeof *s);
	if (!s)
		*rc = mpi_err(comm, MPI_ERR_INTERN, fn, "out of memory");
	return s;
}

static int
check_common(MPI_Comm comm, enum mpi_fn fn, void *recvbuf, MPI_Request *req)
{
	int rc = mpi_coll_check_comm(comm, fn);
	if (rc)
		return rc;
	if (req && (rc = mpi_coll_check_request(comm, fn, req)))
		return rc;
	if (recvbuf == MPI_IN_PLACE)
		return mpi_coll_err_in_place(comm, fn, "recvbuf");
	return MPI_SUCCESS;
}

static int
check_counts(MPI_Comm comm, enum mpi_fn fn, const int *counts,
             const void *displs, const char *what)
{
	if (!counts || !displs)
		return mpi_err(comm, MPI_ERR_ARG, fn, "%scounts or %sdispls is NULL",
		               what, what);
	for (int r = 0; r < comm->size; r++)
		if (counts[r] < 0)
			return mpi_err(comm, MPI_ERR_COUNT, fn,
			               "%scounts[%d] = %d is negative", what, r,
			               counts[r]);
	return MPI_SUCCESS;
}

static int
alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
         void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
         MPI_Request *req, enum mpi_fn fn)
{
	int rc = check_common(comm, fn, recvbuf, req);
	if (rc)
		return rc;
	bool in_place = sendbuf == MPI_IN_PLACE;
	if ((!in_place &&
	     (rc = mpi_coll_check_buf(comm, fn, sendcount, sendtype, "send"))) ||
	    (rc = mpi_coll_check_buf(comm, fn, recvcount, recvtype, "receive")))
		return rc;
	if (!req && recvcount > 0 &&
	    mpi_coll_shm_alltoall(sendbuf, (size_t)sendcount, sendtype, recvbuf,
	                          (size_t)recvcount, recvtype, comm, &rc))
		return rc ? mpi_err(comm, rc, fn, "shared-memory alltoall failed")
		          : MPI_SUCCESS;
	struct a2a_side *snd = sides(comm, fn, &rc);
	if (!snd)
		return rc;
	struct a2a_side *rcv = snd + comm->size;
	for (int r = 0; r < comm->size; r++) {
		if (!in_place) {
			snd[r].buf = mpi_coll_at(sendbuf, (MPI_Aint)((size_t)r * (size_t)sendcount), sendtype);
			snd[r].count = (size_t)sendcount;
			snd[r].dt = sendtype;
		}
		rcv[r].buf = mpi_coll_at(recvbuf, (MPI_Aint)((size_t)r * (size_t)recvcount), recvtype);
		rcv[r].count = (size_t)recvcount;
		rcv[r].dt = recvtype;
	}
	return run(comm, fn, in_place, snd, rcv, req);
}

static int
alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
          MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
          const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
          MPI_Request *req, enum mpi_fn fn)
{
	int rc = check_common(comm, fn, recvbuf, req);
	if (rc)
		return rc;
	bool in_place = sendbuf == MPI_IN_PLACE;
	if (!in_place &&
	    ((rc = check_counts(comm, fn, sendcounts, sdispls, "send")) ||
	     (rc = mpi_coll_check_type(comm, fn, sendtype, "send datatype"))))
		return rc;
	if ((rc = check_counts(comm, fn, recvcounts, rdispls, "recv")) ||
	    (rc = mpi_coll_check_type(comm, fn, recvtype, "receive datatype")))
		return rc;
	struct a2a_side *snd = sides(comm, fn, &rc);
	if (!snd)
		return rc;
	struct a2a_side *rcv = snd + comm->size;
	for (int r = 0; r < comm->size; r++) {
		if (!in_place) {
			snd[r].buf = mpi_coll_at(sendbuf, sdispls[r], sendtype);
			snd[r].count = (size_t)sendcounts[r];
			snd[r].dt = sendtype;
		}
		rcv[r].buf = mpi_coll_at(recvbuf, rdispls[r], recvtype);
		rcv[r].count = (size_t)recvcounts[r];
		rcv[r].dt = recvtype;
	}
	return run(comm, fn, in_place, snd, rcv, req);
}

static int
alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
          const MPI_Datatype sendtypes[], void *recvbuf,
          const int recvcounts[], const int rdispls[],
          const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *req,
          enum mpi_fn fn)
{
	int rc = check_common(comm, fn, recvbuf, req);
	if (rc)
		return rc;
	bool in_place = sendbuf == MPI_IN_PLACE;
	if (!in_place && (rc = check_counts(comm, fn, sendcounts, sdispls, "send")))
		return rc;
	if ((rc = check_counts(comm, fn, recvcounts, rdispls, "recv")))
		return rc;
	if ((!in_place && !sendtypes) || !recvtypes)
		return mpi_err(comm, MPI_ERR_ARG, fn, "sendtypes or recvtypes is NULL");
	for (int r = 0; r < comm->size; r++) {
		if ((!in_place &&
		     (rc = mpi_coll_check_type(comm, fn, sendtypes[r], "a send datatype"))) ||
		    (rc = mpi_coll_check_type(comm, fn, recvtypes[r], "a receive datatype")))
			return rc;
	}
	struct a2a_side *snd = sides(comm, fn, &rc);
	if (!snd)
		return rc;
	struct a2a_side *rcv = snd + comm->size;
	for (int r = 0; r < comm->size; r++) {
		if (!in_place) {
			snd[r].buf = (const char *)sendbuf + sdispls[r];
			snd[r].count = (size_t)sendcounts[r];
			snd[r].dt = sendtypes[r];
		}
		rcv[r].buf = (char *)recvbuf + rdispls[r];
		rcv[r].count = (size_t)recvcounts[r];
		rcv[r].dt = recvtypes[r];
	}
	return run(comm, fn, in_place, snd, rcv, req);
}

int
PMPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
              void *recvbuf, int recvcount, MPI_Datatype recvtype,
              MPI_Comm comm)
{
	int rc = mpi_check_initialized(MPI_FN_Alltoall);
	if (rc)
		return rc;
	MPI_ENTER(Alltoall);
	rc = alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
	              comm, NULL, MPI_FN_Alltoall);
	MPI_EXIT(Alltoall, -1, 0, 0);
	return rc;
}

int
PMPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
               void *recvbuf, int recvcount, MPI_Datatype recvtype,
               MPI_Comm comm, MPI_Request *request)
{
	int rc = mpi_check_initialized(MPI_FN_Ialltoall);
	if (rc)
		return rc;
	MPI_ENTER(Ialltoall);
	if (!request) {
		rc = mpi_coll_check_request(comm, MPI_FN_Ialltoall, request);
		MPI_EXIT(Ialltoall, -1, 0, 0);
		return rc;
	}
	rc = alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
	              comm, request, MPI_FN_Ialltoall);
	MPI_EXIT(Ialltoall, -1, 0, 0);
	return rc;
}

int
PMPI_Alltoallv(const void *sendbuf, const int sendcounts[],
               const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
               const int recvcounts[], const int rdispls[],
               MPI_Datatype recvtype, MPI_Comm comm)
{
	int rc = mpi_check_initialized(MPI_FN_Alltoallv);
	if (rc)
		return rc;
	MPI_ENTER(Alltoallv);
	rc = alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
	               recvcounts, rdispls, recvtype, comm, NULL,
	               MPI_FN_Alltoallv);
	MPI_EXIT(Alltoallv, -1, 0, 0);
	return rc;
}

int
PMPI_Ialltoallv(const void *sendbuf, const int sendcounts[],
                const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                const int recvcounts[], const int rdispls[],
                MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
	int rc = mpi_check_initialized(MPI_FN_Ialltoallv);
	if (rc)
		return rc;
	MPI_ENTER(Ialltoallv);
	if (!request) {
		rc = mpi_coll_check_request(comm, MPI_FN_Ialltoallv, request);
		MPI_EXIT(Ialltoallv, -1, 0, 0);
		return rc;
	}
	rc = alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
	               recvcounts, rdispls, recvtype, comm, request,
	               MPI_FN_Ialltoallv);
	MPI_EXIT(Ialltoallv, -1, 0, 0);
	return rc;
}

int
PMPI_Alltoallw(const void *sendbuf, const int sendcounts[],
               const int sdispls[], const MPI_Datatype sendtypes[],
               void *recvbuf, const int recvcounts[], const int rdispls[],
               const MPI_Datatype recvtypes[], MPI_Comm comm)
{
	int rc = mpi_check_initialized(MPI_FN_Alltoallw);
	if (rc)
		return rc;
	MPI_ENTER(Alltoallw);
	rc = alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
	               recvcounts, rdispls, recvtypes, comm, NULL,
	               MPI_FN_Alltoallw);
	MPI_EXIT(Alltoallw, -1, 0, 0);
	return rc;
}

int
PMPI_Ialltoallw(const void *sendbuf, const int sendcounts[],
                const int sdispls[], const MPI_Datatype sendtypes[],
                void *recvbuf, const int recvcounts[], const int rdispls[],
                const MPI_Datatype recvtypes[], MPI_Comm comm,
                MPI_Request *request)
{
	int rc = mpi_check_initialized(MPI_FN_Ialltoallw);
	if (rc)
		return rc;
	MPI_ENTER(Ialltoallw);
	if (!request) {
		rc = mpi_coll_check_request(comm, MPI_FN_Ialltoallw, request);
		MPI_EXIT(Ialltoallw, -1, 0, 0);
		return rc;
	}
	rc = alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
	               recvcounts, rdispls, recvtypes, comm, request,
	               MPI_FN_Ialltoallw);
	MPI_EXIT(Ialltoallw, -1, 0, 0);
	return rc;
}

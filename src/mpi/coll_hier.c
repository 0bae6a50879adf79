/* Hierarchical Reduce, Allreduce and Barrier, and the list builders the
 * hierarchical collectives share (coll_hier.h). */
#include "mpi/clusters.h"
#include "mpi/coll_hier.h"

int
mpi_hier_layout_for(struct mpi_sched *s, int root, struct mpi_hier_layout *h)
{
	MPI_Comm comm = s->comm;
	int n = comm->size;
	int *cl = mpi_sched_alloc(s, 3 * (size_t)n * sizeof(int));
	if (!cl)
		return -1;
	h->leaders = cl + n;
	h->members = cl + 2 * n;
	for (int r = 0; r < n; r++)
		cl[r] = mpi_cluster_of_world(mpi_comm_world_rank(comm, r));
	mpi_hier_layout(cl, n, comm->rank, root, h);
	return 0;
}

void
mpi_list_bcast(struct mpi_sched *s, const int *list, int n, int idx,
               void *buf, size_t count, MPI_Datatype dt)
{
	int mask = 1;
	while (mask < n) {
		if (idx & mask) {
			mpi_sched_recv(s, buf, count, dt, list[idx - mask]);
			mpi_sched_fence(s);
			break;
		}
		mask <<= 1;
	}
	for (mask >>= 1; mask > 0; mask >>= 1)
		if (idx + mask < n)
			mpi_sched_send(s, buf, count, dt, list[idx + mask]);
	mpi_sched_fence(s);
}

void
mpi_list_reduce(struct mpi_sched *s, const int *list, int n, int idx,
                const void *src, void *dst, size_t count, MPI_Datatype dt,
                MPI_Op op)
{
	if (count == 0)
		return;
	const void *acc = src;
	int mask = 1, k = 0;
	void *bufs[32];
	while (mask < n && !(idx & mask)) {
		if (idx + mask < n) {
			bufs[k] = mpi_sched_tmpbuf(s, count, dt);
			if (!bufs[k])
				return;
			mpi_sched_recv(s, bufs[k], count, dt, list[idx + mask]);
			k++;
		}
		mask <<= 1;
	}
	if (k > 0 || idx == 0) {
		mpi_sched_fence(s);
		void *a = idx == 0 ? dst : mpi_sched_tmpbuf(s, count, dt);
		if (!a)
			return;
		if (a != src)
			mpi_sched_copy(s, src, count, dt, a, count, dt);
		for (int i = 0; i < k; i++)
			mpi_sched_reduce(s, bufs[i], a, count, dt, op);
		acc = a;
	}
	if (idx > 0) {
		mpi_sched_send(s, acc, count, dt, list[idx - mask]);
		mpi_sched_fence(s);
	}
}

/* Empty messages up the binomial tree of list to list[0]. */
static void
list_gather_empty(struct mpi_sched *s, const int *list, int n, int idx)
{
	int mask = 1;
	while (mask < n && !(idx & mask)) {
		if (idx + mask < n)
			mpi_sched_recv(s, NULL, 0, MPI_BYTE, list[idx + mask]);
		mask <<= 1;
	}
	mpi_sched_fence(s);
	if (idx > 0) {
		mpi_sched_send(s, NULL, 0, MPI_BYTE, list[idx - mask]);
		mpi_sched_fence(s);
	}
}

/* Dissemination barrier over list (coll_barrier.c's, on a list). */
static void
list_dissemination(struct mpi_sched *s, const int *list, int n, int idx)
{
	for (int k = 1; k < n; k <<= 1) {
		mpi_sched_recv(s, NULL, 0, MPI_BYTE, list[(idx - k + n) % n]);
		mpi_sched_send(s, NULL, 0, MPI_BYTE, list[(idx + k) % n]);
		mpi_sched_fence(s);
	}
}

void
mpi_hier_build_reduce(struct mpi_sched *s, const void *sendbuf,
                      void *recvbuf, size_t count, MPI_Datatype dt,
                      MPI_Op op, int root)
{
	struct mpi_hier_layout h;
	if (count == 0 || mpi_hier_layout_for(s, root, &h))
		return;
	/* Inside the cluster, to its leader; then between the leaders, to
	 * root (the leader of its own cluster). */
	void *part = h.member_idx == 0 ? mpi_sched_tmpbuf(s, count, dt) : NULL;
	if (h.member_idx == 0 && !part)
		return;
	mpi_list_reduce(s, h.members, h.nmembers, h.member_idx, sendbuf, part,
	                count, dt, op);
	if (h.leader_idx >= 0)
		mpi_list_reduce(s, h.leaders, h.nleaders, h.leader_idx, part,
		                recvbuf, count, dt, op);
}

void
mpi_hier_build_allreduce(struct mpi_sched *s, const void *sendbuf,
                         void *recvbuf, size_t count, MPI_Datatype dt,
                         MPI_Op op)
{
	struct mpi_hier_layout h;
	if (count == 0 || mpi_hier_layout_for(s, 0, &h))
		return;
	/* Reduce to each cluster's leader (into recvbuf), allreduce between
	 * the leaders, broadcast inside each cluster. */
	mpi_list_reduce(s, h.members, h.nmembers, h.member_idx, sendbuf,
	                recvbuf, count, dt, op);
	if (h.leader_idx >= 0)
		mpi_list_allreduce(s, h.leaders, h.nleaders, h.leader_idx,
		                   recvbuf, count, dt, op);
	mpi_list_bcast(s, h.members, h.nmembers, h.member_idx, recvbuf, count,
	               dt);
}

void
mpi_hier_build_barrier(struct mpi_sched *s)
{
	struct mpi_hier_layout h;
	if (mpi_hier_layout_for(s, 0, &h))
		return;
	list_gather_empty(s, h.members, h.nmembers, h.member_idx);
	if (h.leader_idx >= 0)
		list_dissemination(s, h.leaders, h.nleaders, h.leader_idx);
	mpi_list_bcast(s, h.members, h.nmembers, h.member_idx, NULL, 0,
	               MPI_BYTE);
}

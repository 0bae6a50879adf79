/* BCS mode: the collectives the node manager runs (paper section 4.4).
 * MPI_Barrier, MPI_Bcast, MPI_Reduce and MPI_Allreduce and their I forms
 * are one descriptor per rank; the node manager runs the collective once
 * every member's descriptor is in, in its broadcast/barrier or reduce
 * microphase.  Every rank names the collective by (ctx_coll, coll_seq),
 * the number taken exactly as mpi_sched_new takes it, so collectives that
 * run as schedules (everything else, and reductions the node manager
 * cannot do) keep the same numbering on every rank.
 *
 * A broadcast always goes to the node manager, whatever its datatype (a
 * non-contiguous one is packed at the root and unpacked at the others):
 * the standard lets ranks pass different datatypes of the same type
 * signature, so choosing by datatype could make ranks disagree.  A
 * reduction's datatype and op are the same on every rank (the standard
 * says so), so the choice below is the same everywhere.
 *
 * The node manager knows a collective by (ctx, seq) alone, but context
 * ids are unique only among communicators that share a rank: the groups
 * of an MPI_Comm_split get the same ids.  So the ctx a collective
 * descriptor carries is the communicator's ctx_coll with the world rank
 * of its rank 0 above bit 20 (disjoint groups have different rank 0s;
 * for MPI_COMM_WORLD it is ctx_coll itself).  A communicator whose ids do
 * not fit (after some 500000 communicators) runs its collectives as
 * schedules, which every member decides alike. */
#include <stdlib.h>
#include <string.h>

#include "mpi/bcs_rank.h"
#include "mpi/coll_sched.h"
#include "mpi/datatype.h"
#include "mpi/p2p.h"

static bool
req_done(void *arg)
{
	return ((MPI_Request)arg)->done;
}

/* The request of a collective: on the caller's stack for the blocking
 * form, else a new one holding a reference to comm. */
static MPI_Request
coll_req(MPI_Comm comm, struct grove_mpi_request_s *stack, MPI_Request *out)
{
	MPI_Request r;
	if (out) {
		r = mpi_request_new(MPI_REQ_COLL);
		if (!r)
			return NULL;
		mpi_comm_retain(comm);
		r->holds_refs = true;
	} else {
		memset(stack, 0, sizeof(*stack));
		r = stack;
		r->kind = MPI_REQ_COLL;
	}
	r->comm = comm;
	r->peer = MPI_ANY_SOURCE;
	r->tag = MPI_ANY_TAG;
	mpi_status_empty(&r->status, MPI_ANY_SOURCE);
	return r;
}

/* A collective with nothing to move (one rank, no data): done here. */
static int
done_here(MPI_Comm comm, MPI_Request *out)
{
	if (!out)
		return MPI_SUCCESS;
	MPI_Request r = coll_req(comm, NULL, out);
	if (!r)
		return MPI_ERR_NO_MEM;
	r->done = true;
	*out = r;
	return MPI_SUCCESS;
}

#define CTX_BITS 20

/* The id of comm's collectives at the node manager (see above): false
 * when it does not fit. */
static bool
coll_ctx(MPI_Comm comm, uint32_t *ctx)
{
	uint32_t leader = (uint32_t)mpi_comm_world_rank(comm, 0);
	if (comm->ctx_coll >= 1u << CTX_BITS || leader >= 1u << (32 - CTX_BITS))
		return false;
	*ctx = leader << CTX_BITS | comm->ctx_coll;
	return true;
}

/* The fields every collective descriptor has. */
static struct bcs_desc
coll_desc(enum bcs_desc_kind kind, MPI_Comm comm, uint32_t ctx, uint32_t seq,
          int root, bool blocking)
{
	struct bcs_desc d = {
		.kind = (uint8_t)kind,
		.flags = blocking ? BCS_F_BLOCKING : 0,
		.ctx = ctx,
		.seq = seq,
		.tag = comm->size,
		.me = comm->rank,
		.peer = root,
		.peer_world = root >= 0 ? mpi_comm_world_rank(comm, root) : -1,
	};
	return d;
}

/* Posts d for request r, then waits for it (blocking: out NULL) or hands
 * r out: the collective's error class (blocking) or 0. */
static int
run(struct bcs_desc *d, MPI_Request r, MPI_Request *out)
{
	d->req = mpi_bcs_id(r);
	mpi_bcs_post(d);
	if (out) {
		*out = r;
		return MPI_SUCCESS;
	}
	mpi_coll_wait(req_done, r);
	return r->status.MPI_ERROR;
}

int
mpi_bcs_barrier(MPI_Comm comm, MPI_Request *out, int *rc)
{
	uint32_t ctx;
	if (!coll_ctx(comm, &ctx))
		return 0;
	uint32_t seq = comm->coll_seq++;
	if (comm->size == 1) {
		*rc = done_here(comm, out);
		return 1;
	}
	struct grove_mpi_request_s stack;
	MPI_Request r = coll_req(comm, &stack, out);
	if (!r) {
		*rc = MPI_ERR_NO_MEM;
		return 1;
	}
	struct bcs_desc d = coll_desc(BCS_D_BARRIER, comm, ctx, seq, -1, !out);
	*rc = run(&d, r, out);
	return 1;
}

static int
bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm,
      uint32_t ctx, MPI_Request *out)
{
	uint32_t seq = comm->coll_seq++;
	size_t bytes = (size_t)count * dt->size;
	/* Equal type signatures: every rank sees the same bytes == 0. */
	if (comm->size == 1 || bytes == 0)
		return done_here(comm, out);
	struct grove_mpi_request_s stack;
	MPI_Request r = coll_req(comm, &stack, out);
	if (!r)
		return MPI_ERR_NO_MEM;
	void *addr = (char *)buf + dt->true_lb;
	if (!dt->contig && !mpi_dt_is_contig(dt, (size_t)count)) {
		r->pack = malloc(bytes);
		if (!r->pack) {
			if (out)
				mpi_request_free_internal(r);
			return MPI_ERR_NO_MEM;
		}
		addr = r->pack;
		if (comm->rank == root) {
			mpi_dt_pack(dt, buf, (size_t)count, r->pack, 0, bytes);
		} else {
			/* Unpacked into buf at completion (mpi_bcs_coll_done). */
			r->buf = buf;
			r->count = (size_t)count;
			r->dt = dt;
			if (out)
				mpi_dt_retain(dt);
			r->state = MPI_RS_RECV_POSTED;
		}
	}
	struct bcs_desc d = coll_desc(BCS_D_BCAST, comm, ctx, seq, root, !out);
	d.bytes = bytes;
	d.addr = mpi_bcs_id(addr);
	return run(&d, r, out);
}

int
mpi_bcs_bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm,
              MPI_Request *out, int *rc)
{
	uint32_t ctx;
	if (!coll_ctx(comm, &ctx))
		return 0;
	*rc = bcast(buf, count, dt, root, comm, ctx, out);
	return 1;
}

/* Whether the node manager can reduce count items of dt with op: a
 * predefined commutative op (it folds in rank order with the library's
 * kernels), and items that are basic elements laid out one after the
 * other as the basic type lays them out. */
static bool
nm_can_reduce(MPI_Op op, MPI_Datatype dt, int count)
{
	if (!op->predefined || !op->commute || dt->basic == MPI_B_NONE)
		return false;
	MPI_Datatype b = mpi_dt_of_basic(dt->basic);
	uint64_t elems = (uint64_t)count * dt->basic_count;
	return b && b->contig && dt->size == dt->basic_count * b->size &&
	       elems <= UINT32_MAX &&
	       (dt->contig || mpi_dt_is_contig(dt, (size_t)count));
}

int
mpi_bcs_reduce(const void *sendbuf, void *recvbuf, int count,
               MPI_Datatype dt, MPI_Op op, int root, MPI_Comm comm,
               MPI_Request *out, int *rc)
{
	uint32_t ctx;
	if (!nm_can_reduce(op, dt, count) || !coll_ctx(comm, &ctx))
		return 0;
	uint32_t seq = comm->coll_seq++;
	bool in_place = sendbuf == MPI_IN_PLACE;
	bool gets_result = root < 0 || comm->rank == root;
	if (comm->size == 1 || count == 0) {
		if (count > 0 && !in_place)
			mpi_coll_copy(sendbuf, (size_t)count, dt, recvbuf,
			              (size_t)count, dt);
		*rc = done_here(comm, out);
		return 1;
	}
	struct grove_mpi_request_s stack;
	MPI_Request r = coll_req(comm, &stack, out);
	if (!r) {
		*rc = MPI_ERR_NO_MEM;
		return 1;
	}
	struct bcs_desc d = coll_desc(root >= 0 ? BCS_D_REDUCE : BCS_D_ALLREDUCE,
	                              comm, ctx, seq, root, !out);
	d.flags |= in_place ? BCS_F_IN_PLACE : 0;
	d.op = (uint8_t)op->which;
	d.basic = (uint8_t)dt->basic;
	d.count = (uint32_t)((uint64_t)count * dt->basic_count);
	d.bytes = (uint64_t)count * dt->size;
	d.addr = in_place ? 0 : mpi_bcs_id((const char *)sendbuf + dt->true_lb);
	d.addr2 = gets_result ? mpi_bcs_id((char *)recvbuf + dt->true_lb) : 0;
	*rc = run(&d, r, out);
	return 1;
}

void
mpi_bcs_coll_done(const struct bcs_done *dn)
{
	MPI_Request r = (MPI_Request)(uintptr_t)dn->req;
	if (!r)
		return;
	r->status.MPI_SOURCE = MPI_ANY_SOURCE;
	r->status.MPI_TAG = MPI_ANY_TAG;
	r->status.MPI_ERROR = dn->error;
	r->status.grove_cancelled_ = 0;
	r->status.grove_count_ = 0;
	if (r->pack && r->state == MPI_RS_RECV_POSTED) {
		size_t cap = r->count * r->dt->size;
		size_t n = dn->bytes < cap ? (size_t)dn->bytes : cap;
		mpi_dt_unpack(r->dt, r->buf, r->count, r->pack, 0, n);
	}
	mpi_request_complete(r);
}

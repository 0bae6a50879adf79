/* BCS mode: point-to-point operations, cancels and probes as descriptors
 * (bcs_desc.h), and their completions.
 *
 * A send or receive is one descriptor whose id is the request's address;
 * the request completes when the node manager says so.  Buffers the node
 * manager reads or writes are contiguous: a non-contiguous send is packed
 * into req->pack before posting, a non-contiguous receive lands in
 * req->pack and is unpacked when its completion arrives (either way
 * mpi_request_complete frees it).  Probes have ids of their own (a
 * counter, see bcs_rank.h), because a taken message is received by
 * naming its probe.
 */
#include <stdlib.h>
#include <string.h>

#include "mpi/bcs_rank.h"
#include "mpi/bcs_replay.h"
#include "mpi/p2p.h"

/* Modes (fill_req's fn) of the calls that sleep until their operation
 * completes: BCS_F_BLOCKING (informational: the node manager counts such
 * ranks per slice). */
static bool
blocking_mode(int mode)
{
	return mode == MPI_FN_Send || mode == MPI_FN_Ssend ||
	       mode == MPI_FN_Rsend || mode == MPI_FN_Recv ||
	       mode == MPI_FN_Sendrecv || mode == MPI_FN_Mrecv;
}

static bool
sync_mode(int mode)
{
	return mode == MPI_FN_Ssend || mode == MPI_FN_Issend ||
	       mode == MPI_FN_Ssend_init;
}

static inline void *
contig_start(MPI_Request req)
{
	return (char *)req->buf + req->dt->true_lb;
}

/* Where the node manager reads or writes req's data (*addr): the user's
 * buffer when contiguous (NULL is fine for no data), else a packed copy.
 * false when out of memory. */
static bool
data_addr(MPI_Request req, bool send, void **addr)
{
	if (req->bytes == 0 || req->dt->contig ||
	    mpi_dt_is_contig(req->dt, req->count)) {
		*addr = contig_start(req);
		return true;
	}
	req->pack = malloc(req->bytes);
	if (!req->pack)
		return false;
	if (send)
		mpi_dt_pack(req->dt, req->buf, req->count, req->pack, 0, req->bytes);
	*addr = req->pack;
	return true;
}

static inline int
world_or_none(MPI_Comm comm, int r)
{
	return r >= 0 && r < comm->size ? mpi_comm_world_rank(comm, r) : -1;
}

int
mpi_bcs_start_send(MPI_Request req)
{
	req->bytes = req->count * req->dt->size;
	req->moved = 0;
	req->done = false;
	req->cancelled = false;
	mpi_status_empty(&req->status, req->peer);
	req->status.MPI_TAG = req->tag;
	void *addr;
	if (!data_addr(req, true, &addr))
		return MPI_ERR_NO_MEM;
	struct bcs_desc d = {
		.kind = BCS_D_SEND,
		.flags = (uint8_t)((blocking_mode(req->mode) ? BCS_F_BLOCKING : 0) |
		                   (sync_mode(req->mode) ? BCS_F_SYNC : 0)),
		.ctx = req->ctx,
		.me = req->comm->rank,
		.peer = req->peer,
		.peer_world = mpi_comm_world_rank(req->comm, req->peer),
		.tag = req->tag,
		.bytes = req->bytes,
		.addr = mpi_bcs_id(addr),
		.req = mpi_bcs_id(req),
	};
	req->state = MPI_RS_SEND_WAIT_FIN;
	mpi_bcs_post(&d);
	return MPI_SUCCESS;
}

/* The source an MPI_ANY_SOURCE receive asks the node manager for: any
 * (-1), or when replaying, the one the record says it matched. */
static int
wild_source(MPI_Comm comm)
{
	uint32_t k = mpi_bcs_next_wild();
	const struct mpi_bcs_record *rec = mpi_bcs_replay();
	if (!rec)
		return -1;
	const struct mpi_bcs_wild *w = mpi_bcs_record_wild(rec, k);
	if (!w)
		return -1; /* never matched in the recorded run (cancelled) */
	char why[256];
	if (mpi_bcs_replay_check_wild(w, comm->size, why, sizeof(why)) != 0) {
		char where[64];
		snprintf(where, sizeof(where), "MPI_ANY_SOURCE receive %u", k);
		mpi_bcs_diverged(where, why);
	}
	return w->source;
}

/* Posts req's receive from source (a comm rank or -1) and tag; flags and
 * addr2 for a taken message. */
static int
post_recv(MPI_Request req, int source, uint8_t flags, uint64_t addr2)
{
	req->done = false;
	req->cancelled = false;
	req->pack = NULL;
	mpi_status_empty(&req->status, req->peer);
	req->bytes = req->count * req->dt->size;
	void *addr;
	if (!data_addr(req, false, &addr))
		return MPI_ERR_NO_MEM;
	struct bcs_desc d = {
		.kind = BCS_D_RECV,
		.flags = (uint8_t)(flags |
		                   (blocking_mode(req->mode) ? BCS_F_BLOCKING : 0)),
		.ctx = req->ctx,
		.me = req->comm->rank,
		.peer = source < 0 ? -1 : source,
		.peer_world = world_or_none(req->comm, source),
		.tag = req->tag == MPI_ANY_TAG ? -1 : req->tag,
		.bytes = req->bytes,
		.addr = mpi_bcs_id(addr),
		.addr2 = addr2,
		.req = mpi_bcs_id(req),
	};
	req->state = MPI_RS_RECV_POSTED;
	mpi_bcs_post(&d);
	return MPI_SUCCESS;
}

int
mpi_bcs_start_recv(MPI_Request req)
{
	int source = req->peer;
	/* req->peer stays MPI_ANY_SOURCE: a persistent receive's next start
	 * is another wildcard receive. */
	if (source == MPI_ANY_SOURCE)
		source = wild_source(req->comm);
	return post_recv(req, source, 0, 0);
}

bool
mpi_bcs_cancel_recv(MPI_Request req)
{
	if (req->state != MPI_RS_RECV_POSTED || req->done)
		return false;
	struct bcs_desc d = {
		.kind = BCS_D_CANCEL, .ctx = req->ctx, .me = req->comm->rank,
		.peer = -1, .peer_world = -1, .tag = -1, .req = mpi_bcs_id(req),
	};
	mpi_bcs_post(&d);
	/* Whether it was cancelled comes with the completion. */
	return false;
}

/* ---- probes -------------------------------------------------------------- */

static void
post_probe(const struct mpi_bcs_probe *p, bool blocking)
{
	struct bcs_desc d = {
		.kind = BCS_D_PROBE,
		.flags = (uint8_t)((blocking ? BCS_F_BLOCKING : 0) |
		                   (p->take ? BCS_F_TAKE : 0)),
		.ctx = p->ctx,
		.me = p->comm->rank,
		.peer = p->source == MPI_ANY_SOURCE ? -1 : p->source,
		.peer_world = world_or_none(p->comm, p->source),
		.tag = p->tag == MPI_ANY_TAG ? -1 : p->tag,
		.req = p->id,
	};
	mpi_bcs_post(&d);
}

static bool
answered(void *arg)
{
	return ((struct mpi_bcs_probe *)arg)->answered;
}

/* Posts a blocking probe and waits for its answer (always "found"):
 * the answered probe, no longer listed; NULL when out of memory. */
static struct mpi_bcs_probe *
probe_wait(MPI_Comm comm, int source, int tag, bool take)
{
	struct mpi_bcs_probe *p = mpi_bcs_probe_new(comm, source, tag, take);
	if (!p)
		return NULL;
	post_probe(p, true);
	mpi_progress_until(answered, p);
	mpi_bcs_probe_unlist(p);
	return p;
}

static void
probe_status(MPI_Status *status, const struct mpi_bcs_probe *p)
{
	if (status == MPI_STATUS_IGNORE)
		return;
	status->MPI_SOURCE = p->msg_source;
	status->MPI_TAG = p->msg_tag;
	status->MPI_ERROR = MPI_SUCCESS;
	status->grove_cancelled_ = 0;
	status->grove_count_ = (MPI_Count)p->msg_bytes;
}

/* Replay of test-family call k, a probe of (source, tag): the recorded
 * line, checked against the call (NULL: the call returned false). */
static const struct mpi_bcs_tline *
replayed_probe(enum mpi_fn fn, uint32_t k, int source, int tag,
               MPI_Comm comm)
{
	const struct mpi_bcs_tline *t = mpi_bcs_record_test(mpi_bcs_replay(), k);
	char where[80], why[256];
	snprintf(where, sizeof(where), "test-family call %u (%s)", k,
	         mpi_fn_names[fn]);
	if (!t) {
		if (fn == MPI_FN_Probe || fn == MPI_FN_Mprobe)
			mpi_bcs_diverged(where, "the record has no line for it, and "
			                        "a blocking probe always returns true");
		return NULL;
	}
	if (mpi_bcs_replay_check_probe(t, fn, source, tag, comm->size, why,
	                               sizeof(why)) != 0)
		mpi_bcs_diverged(where, why);
	return t;
}

int
mpi_bcs_probe(enum mpi_fn fn, int source, int tag, MPI_Comm comm,
              MPI_Status *status, MPI_Message *msg)
{
	uint32_t k = 0;
	if (mpi_bcs_rr) {
		k = mpi_bcs_next_call(fn);
		if (mpi_bcs_replay()) {
			/* The message the recorded run found, by its envelope:
			 * with the wildcard receives replayed too, the first one
			 * from that source with that tag is that message. */
			const struct mpi_bcs_tline *t =
				replayed_probe(fn, k, source, tag, comm);
			source = t->source;
			tag = t->tag;
		}
	}
	struct mpi_bcs_probe *p = probe_wait(comm, source, tag, msg != NULL);
	if (!p)
		return mpi_err(comm, MPI_ERR_NO_MEM, fn, "out of memory");
	probe_status(status, p);
	mpi_bcs_note(fn, k, 1, 1, p->msg_source, p->msg_tag);
	if (msg) {
		*msg = (MPI_Message)(void *)p; /* received by mpi_bcs_recv_taken */
		return MPI_SUCCESS;
	}
	mpi_bcs_probe_free(p);
	return MPI_SUCCESS;
}

int
mpi_bcs_iprobe(enum mpi_fn fn, int source, int tag, MPI_Comm comm, int *flag,
               MPI_Status *status, MPI_Message *msg)
{
	bool take = msg != NULL;
	uint32_t k = mpi_bcs_rr ? mpi_bcs_next_call(fn) : 0;
	struct mpi_bcs_probe *p;
	if (mpi_bcs_replay()) {
		const struct mpi_bcs_tline *t = replayed_probe(fn, k, source, tag,
		                                               comm);
		if (!t) {
			mpi_progress();
			*flag = 0;
			return MPI_SUCCESS;
		}
		p = probe_wait(comm, t->source, t->tag, take);
	} else {
		/* The first call asks the node manager, whose answer comes at a
		 * slice boundary; the calls after it with the same arguments
		 * look for that answer, and the one that gets it returns it. */
		p = mpi_bcs_probe_find(comm->ctx_p2p, source, tag, take);
		if (!p) {
			p = mpi_bcs_probe_new(comm, source, tag, take);
			if (p)
				post_probe(p, false);
			mpi_progress();
			*flag = 0;
			return p ? MPI_SUCCESS
			         : mpi_err(comm, MPI_ERR_NO_MEM, fn, "out of memory");
		}
		if (!p->answered)
			mpi_progress();
		if (!p->answered) {
			*flag = 0;
			return MPI_SUCCESS;
		}
		mpi_bcs_probe_unlist(p);
	}
	if (!p)
		return mpi_err(comm, MPI_ERR_NO_MEM, fn, "out of memory");
	*flag = p->found;
	if (p->found) {
		probe_status(status, p);
		mpi_bcs_note(fn, k, 1, 1, p->msg_source, p->msg_tag);
		if (take) {
			*msg = (MPI_Message)(void *)p;
			return MPI_SUCCESS;
		}
	}
	mpi_bcs_probe_free(p);
	return MPI_SUCCESS;
}

int
mpi_bcs_recv_taken(MPI_Request r, void *buf, int count, MPI_Datatype dt,
                   MPI_Message msg, bool blocking)
{
	struct mpi_bcs_probe *p = (struct mpi_bcs_probe *)(void *)msg;
	r->kind = MPI_REQ_RECV;
	r->buf = buf;
	r->count = (size_t)count;
	r->dt = dt;
	r->peer = p->msg_source;
	r->tag = p->msg_tag;
	r->ctx = p->ctx;
	r->comm = p->comm;
	r->mode = blocking ? MPI_FN_Mrecv : MPI_FN_Imrecv;
	int rc = post_recv(r, p->msg_source, BCS_F_TAKEN, p->id);
	/* The id is a counter never given again: the probe can go now. */
	mpi_bcs_probe_free(p);
	return rc;
}

/* ---- completions ---------------------------------------------------------- */

static void
probe_answer(const struct bcs_done *dn)
{
	struct mpi_bcs_probe *p = mpi_bcs_probe_of(dn->req);
	if (!p)
		return; /* not one of ours: nothing to complete */
	p->answered = true;
	p->found = dn->found != 0;
	p->msg_source = dn->source;
	p->msg_tag = dn->tag;
	p->msg_bytes = dn->bytes;
}

void
mpi_bcs_p2p_done(const struct bcs_done *dn)
{
	if (dn->kind == BCS_D_PROBE) {
		probe_answer(dn);
		return;
	}
	MPI_Request req = (MPI_Request)(uintptr_t)dn->req;
	if (!req)
		return;
	if (dn->kind == BCS_D_CANCEL) {
		/* Not cancelled: the receive completes by its own completion,
		 * which may have come already (and the request be gone). */
		if (!dn->found)
			return;
		req->cancelled = true;
		req->status.grove_cancelled_ = 1;
		req->status.grove_count_ = 0;
		mpi_request_complete(req);
		return;
	}
	if (dn->kind == BCS_D_SEND) {
		req->status.MPI_ERROR = dn->error;
		req->status.grove_count_ = (MPI_Count)req->bytes;
		mpi_request_complete(req);
		return;
	}
	size_t n = dn->bytes < req->bytes ? (size_t)dn->bytes : req->bytes;
	req->status.MPI_SOURCE = dn->source;
	req->status.MPI_TAG = dn->tag;
	req->status.MPI_ERROR = dn->error;
	req->status.grove_cancelled_ = 0;
	req->status.grove_count_ = (MPI_Count)n;
	if (req->pack && n)
		mpi_dt_unpack(req->dt, req->buf, req->count, req->pack, 0, n);
	mpi_request_complete(req);
}

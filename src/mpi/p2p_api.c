/* The point-to-point functions of the MPI interface (argument checks,
 * blocking forms, buffered sends, persistent requests, probes). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/bcs_rank.h"
#include "mpi/p2p.h"

/* ---- argument checks ------------------------------------------------- */

static int
check_common(enum mpi_fn fn, MPI_Comm comm, int count, MPI_Datatype dt)
{
	if (mpi_comm_check(comm) != MPI_SUCCESS)
		return mpi_err(MPI_COMM_NULL, MPI_ERR_COMM, fn,
		               "invalid communicator");
	if (count < 0)
		return mpi_err(comm, MPI_ERR_COUNT, fn, "count %d is negative",
		               count);
	const char *why = NULL;
	if (mpi_dt_check(dt, &why) != MPI_SUCCESS)
		return mpi_err(comm, MPI_ERR_TYPE, fn, "invalid datatype: %s",
		               why ? why : "unknown");
	return MPI_SUCCESS;
}

static int
check_send(enum mpi_fn fn, const void *buf, int count, MPI_Datatype dt,
           int dest, int tag, MPI_Comm comm)
{
	int rc = check_common(fn, comm, count, dt);
	if (rc)
		return rc;
	if (dest != MPI_PROC_NULL && (dest < 0 || dest >= comm->size))
		return mpi_err(comm, MPI_ERR_RANK, fn,
		               "destination rank %d is not in [0, %d)", dest,
		               comm->size);
	if (tag < 0)
		return mpi_err(comm, MPI_ERR_TAG, fn,
		               "tag %d is negative (tags are 0..MPI_TAG_UB)", tag);
	if (count > 0 && buf == NULL && dt->true_lb == 0 && dt->size > 0 &&
	    dest != MPI_PROC_NULL)
		return mpi_err(comm, MPI_ERR_BUFFER, fn,
		               "buffer is NULL with count %d", count);
	return MPI_SUCCESS;
}

static int
check_recv(enum mpi_fn fn, int count, MPI_Datatype dt, int source, int tag,
           MPI_Comm comm)
{
	int rc = check_common(fn, comm, count, dt);
	if (rc)
		return rc;
	if (source != MPI_PROC_NULL && source != MPI_ANY_SOURCE &&
	    (source < 0 || source >= comm->size))
		return mpi_err(comm, MPI_ERR_RANK, fn,
		               "source rank %d is not in [0, %d)", source,
		               comm->size);
	if (tag < 0 && tag != MPI_ANY_TAG)
		return mpi_err(comm, MPI_ERR_TAG, fn,
		               "tag %d is negative and not MPI_ANY_TAG", tag);
	return MPI_SUCCESS;
}

static bool
req_done(void *arg)
{
	return ((MPI_Request)arg)->done;
}

static inline int
world_of(MPI_Comm comm, int r)
{
	return r >= 0 && r < comm->size ? mpi_comm_world_rank(comm, r) : -1;
}

static void
fill_req(MPI_Request r, enum mpi_req_kind kind, const void *buf, int count,
         MPI_Datatype dt, int peer, int tag, MPI_Comm comm, int mode)
{
	r->kind = kind;
	r->buf = (void *)buf;
	r->count = (size_t)count;
	r->dt = dt;
	r->peer = peer;
	r->tag = tag;
	r->comm = comm;
	r->ctx = comm->ctx_p2p;
	r->mode = mode;
}

static const char *
err_text(int e)
{
	return e == MPI_ERR_TRUNCATE
	           ? "message truncated (the receive buffer is smaller than "
	             "the message)"
	           : "transfer failed";
}

/* ---- blocking sends ---------------------------------------------------- */

static int
send_blocking(enum mpi_fn fn, const void *buf, int count, MPI_Datatype dt,
              int dest, int tag, MPI_Comm comm)
{
	if (dest == MPI_PROC_NULL)
		return MPI_SUCCESS;
	/* On the stack: the request lives until this call returns, which is
	 * after the engine last touches it. */
	struct grove_mpi_request_s req;
	memset(&req, 0, sizeof(req));
	fill_req(&req, MPI_REQ_SEND, buf, count, dt, dest, tag, comm, fn);
	int rc = mpi_p2p_start_send(&req);
	if (rc)
		return mpi_err(comm, rc, fn, "cannot start the send");
	if (!req.done)
		mpi_progress_until(req_done, &req);
	return MPI_SUCCESS;
}

#define SEND_FN(Name)                                                        \
	int PMPI_##Name(const void *buf, int count, MPI_Datatype dt, int dest, \
	                int tag, MPI_Comm comm)                                \
	{                                                                      \
		int rc = mpi_check_initialized(MPI_FN_##Name);                 \
		if (rc || (rc = check_send(MPI_FN_##Name, buf, count, dt, dest, \
		                           tag, comm)))                        \
			return rc;                                             \
		MPI_ENTER(Name);                                               \
		rc = send_blocking(MPI_FN_##Name, buf, count, dt, dest, tag,   \
		                   comm);                                      \
		MPI_EXIT(Name, world_of(comm, dest), tag,                      \
		         (size_t)count * dt->size);                            \
		return rc;                                                     \
	}
SEND_FN(Send)
SEND_FN(Ssend)
SEND_FN(Rsend)

/* ---- buffered sends ------------------------------------------------------
 * The attached buffer is an account, not storage: each buffered send
 * copies its data to memory of its own and charges its size plus
 * MPI_BSEND_OVERHEAD to the account until it is delivered, so a program
 * gets MPI_ERR_BUFFER exactly when the standard's buffer would be full. */

struct bsend_item {
	struct bsend_item *next;
	MPI_Request req;
	void *copy;
	size_t charge;
};

/* Process-wide: MPI has one attached buffer per process. */
static struct {
	void *buf;
	int size;
	size_t used;
	struct bsend_item *items;
} bsend;

static void
bsend_sweep(void)
{
	struct bsend_item **link = &bsend.items;
	while (*link) {
		struct bsend_item *it = *link;
		if (it->req->done) {
			*link = it->next;
			bsend.used -= it->charge;
			free(it->copy);
			mpi_request_free_internal(it->req);
			free(it);
		} else {
			link = &it->next;
		}
	}
}

static int
bsend_start(enum mpi_fn fn, const void *buf, int count, MPI_Datatype dt,
            int dest, int tag, MPI_Comm comm)
{
	if (dest == MPI_PROC_NULL)
		return MPI_SUCCESS;
	size_t bytes = (size_t)count * dt->size;
	size_t charge = bytes + MPI_BSEND_OVERHEAD;
	mpi_progress();
	bsend_sweep();
	if (!bsend.buf)
		return mpi_err(comm, MPI_ERR_BUFFER, fn,
		               "no buffer attached (MPI_Buffer_attach)");
	if (bsend.used + charge > (size_t)bsend.size)
		return mpi_err(comm, MPI_ERR_BUFFER, fn,
		               "attached buffer full: %zu of %d bytes in use, this "
		               "send needs %zu",
		               bsend.used, bsend.size, charge);
	struct bsend_item *it = calloc(1, sizeof(*it));
	void *copy = malloc(bytes ? bytes : 1);
	MPI_Request req = mpi_request_new(MPI_REQ_SEND);
	if (!it || !copy || !req) {
		free(it);
		free(copy);
		free(req);
		return mpi_err(comm, MPI_ERR_NO_MEM, fn, "out of memory");
	}
	mpi_dt_pack(dt, buf, (size_t)count, copy, 0, bytes);
	fill_req(req, MPI_REQ_SEND, copy, (int)bytes, MPI_BYTE, dest, tag, comm,
	         MPI_FN_Bsend);
	int rc = mpi_p2p_start_send(req);
	if (rc) {
		free(it);
		free(copy);
		free(req);
		return mpi_err(comm, rc, fn, "cannot start the send");
	}
	it->req = req;
	it->copy = copy;
	it->charge = charge;
	it->next = bsend.items;
	bsend.items = it;
	bsend.used += charge;
	return MPI_SUCCESS;
}

int
PMPI_Bsend(const void *buf, int count, MPI_Datatype dt, int dest, int tag,
           MPI_Comm comm)
{
	int rc = mpi_check_initialized(MPI_FN_Bsend);
	if (rc || (rc = check_send(MPI_FN_Bsend, buf, count, dt, dest, tag, comm)))
		return rc;
	MPI_ENTER(Bsend);
	rc = bsend_start(MPI_FN_Bsend, buf, count, dt, dest, tag, comm);
	MPI_EXIT(Bsend, world_of(comm, dest), tag, (size_t)count * dt->size);
	return rc;
}

int
PMPI_Ibsend(const void *buf, int count, MPI_Datatype dt, int dest, int tag,
            MPI_Comm comm, MPI_Request *request)
{
	int rc = mpi_check_initialized(MPI_FN_Ibsend);
	if (rc || (rc = check_send(MPI_FN_Ibsend, buf, count, dt, dest, tag, comm)))
		return rc;
	MPI_ENTER(Ibsend);
	/* The data is copied before this returns: the request is complete. */
	rc = bsend_start(MPI_FN_Ibsend, buf, count, dt, dest, tag, comm);
	if (rc == MPI_SUCCESS) {
		MPI_Request r = mpi_request_new(MPI_REQ_SEND);
		if (!r)
			rc = mpi_err(comm, MPI_ERR_NO_MEM, MPI_FN_Ibsend, "out of memory");
		else {
			r->done = true;
			r->comm = comm;
			r->peer = dest;
			mpi_status_empty(&r->status, dest);
			*request = r;
		}
	}
	MPI_EXIT(Ibsend, world_of(comm, dest), tag, (size_t)count * dt->size);
	return rc;
}

int
PMPI_Buffer_attach(void *buffer, int size)
{
	int rc = mpi_check_initialized(MPI_FN_Buffer_attach);
	if (rc)
		return rc;
	if (bsend.buf)
		return mpi_err(MPI_COMM_NULL, MPI_ERR_BUFFER, MPI_FN_Buffer_attach,
		               "a buffer is already attached");
	if (size < 0 || (!buffer && size > 0))
		return mpi_err(MPI_COMM_NULL, MPI_ERR_BUFFER, MPI_FN_Buffer_attach,
		               "invalid buffer (size %d)", size);
	bsend.buf = buffer ? buffer : (void *)&bsend;
	bsend.size = size;
	return MPI_SUCCESS;
}

static bool
bsend_all_done(void *arg)
{
	(void)arg;
	for (struct bsend_item *it = bsend.items; it; it = it->next)
		if (!it->req->done)
			return false;
	return true;
}

int
PMPI_Buffer_detach(void *buffer_addr, int *size)
{
	int rc = mpi_check_initialized(MPI_FN_Buffer_detach);
	if (rc)
		return rc;
	MPI_ENTER(Buffer_detach);
	/* The standard: detach waits until the buffered messages are gone. */
	mpi_progress_until(bsend_all_done, NULL);
	bsend_sweep();
	*(void **)buffer_addr = bsend.buf == (void *)&bsend ? NULL : bsend.buf;
	*size = bsend.size;
	bsend.buf = NULL;
	bsend.size = 0;
	MPI_EXIT(Buffer_detach, -1, 0, 0);
	return MPI_SUCCESS;
}

/* Buffered sends still in flight at MPI_Finalize are delivered first. */
void
mpi_bsend_fini(void)
{
	mpi_progress_until(bsend_all_done, NULL);
	bsend_sweep();
	bsend.buf = NULL;
	bsend.size = 0;
}

/* ---- non-blocking and persistent ------------------------------------ */

static int
start_req(MPI_Request r)
{
	if (r->peer == MPI_PROC_NULL) {
		mpi_status_empty(&r->status, MPI_PROC_NULL);
		r->done = true;
		return MPI_SUCCESS;
	}
	return r->kind == MPI_REQ_SEND ? mpi_p2p_start_send(r)
	                               : mpi_p2p_start_recv(r);
}

static int
new_req(enum mpi_fn fn, enum mpi_req_kind kind, const void *buf, int count,
        MPI_Datatype dt, int peer, int tag, MPI_Comm comm, bool persistent,
        MPI_Request *request)
{
	if (!request)
		return mpi_err(comm, MPI_ERR_REQUEST, fn, "request is NULL");
	MPI_Request r = mpi_request_new(kind);
	if (!r)
		return mpi_err(comm, MPI_ERR_NO_MEM, fn, "out of memory");
	fill_req(r, kind, buf, count, dt, peer, tag, comm, fn);
	mpi_dt_retain(dt);
	mpi_comm_retain(comm);
	r->holds_refs = true;
	r->persistent = persistent;
	if (!persistent) {
		int rc = start_req(r);
		if (rc) {
			mpi_request_free_internal(r);
			return mpi_err(comm, rc, fn, "cannot start the operation");
		}
	}
	*request = r;
	return MPI_SUCCESS;
}

#define ISEND_FN(Name, persistent)                                           \
	int PMPI_##Name(const void *buf, int count, MPI_Datatype dt, int dest, \
	                int tag, MPI_Comm comm, MPI_Request *request)          \
	{                                                                      \
		int rc = mpi_check_initialized(MPI_FN_##Name);                 \
		if (rc || (rc = check_send(MPI_FN_##Name, buf, count, dt, dest, \
		                           tag, comm)))                        \
			return rc;                                             \
		MPI_ENTER(Name);                                               \
		rc = new_req(MPI_FN_##Name, MPI_REQ_SEND, buf, count, dt, dest, \
		             tag, comm, persistent, request);                  \
		MPI_EXIT(Name, world_of(comm, dest), tag,                      \
		         (size_t)count * dt->size);                            \
		return rc;                                                     \
	}
ISEND_FN(Isend, false)
ISEND_FN(Issend, false)
ISEND_FN(Irsend, false)
ISEND_FN(Send_init, true)
ISEND_FN(Ssend_init, true)
ISEND_FN(Rsend_init, true)

/* A persistent buffered send keeps the arguments; each start is a
 * buffered send. */
int
PMPI_Bsend_init(const void *buf, int count, MPI_Datatype dt, int dest,
                int tag, MPI_Comm comm, MPI_Request *request)
{
	int rc = mpi_check_initialized(MPI_FN_Bsend_init);
	if (rc || (rc = check_send(MPI_FN_Bsend_init, buf, count, dt, dest, tag,
	                           comm)))
		return rc;
	return new_req(MPI_FN_Bsend_init, MPI_REQ_SEND, buf, count, dt, dest,
	               tag, comm, true, request);
}

int
PMPI_Irecv(void *buf, int count, MPI_Datatype dt, int source, int tag,
           MPI_Comm comm, MPI_Request *request)
{
	int rc = mpi_check_initialized(MPI_FN_Irecv);
	if (rc || (rc = check_recv(MPI_FN_Irecv, count, dt, source, tag, comm)))
		return rc;
	MPI_ENTER(Irecv);
	rc = new_req(MPI_FN_Irecv, MPI_REQ_RECV, buf, count, dt, source, tag,
	             comm, false, request);
	MPI_EXIT(Irecv, world_of(comm, source), tag, 0);
	return rc;
}

int
PMPI_Recv_init(void *buf, int count, MPI_Datatype dt, int source, int tag,
               MPI_Comm comm, MPI_Request *request)
{
	int rc = mpi_check_initialized(MPI_FN_Recv_init);
	if (rc ||
	    (rc = check_recv(MPI_FN_Recv_init, count, dt, source, tag, comm)))
		return rc;
	return new_req(MPI_FN_Recv_init, MPI_REQ_RECV, buf, count, dt, source,
	               tag, comm, true, request);
}

static int
start_one(MPI_Request r)
{
	if (!r || !r->persistent)
		return mpi_err(MPI_COMM_NULL, MPI_ERR_REQUEST, MPI_FN_Start,
		               "not a persistent request");
	if (r->active && !r->done)
		return mpi_err(r->comm, MPI_ERR_REQUEST, MPI_FN_Start,
		               "the request is already active");
	r->active = true;
	r->done = false;
	int rc;
	if (r->mode == MPI_FN_Bsend_init) {
		rc = bsend_start(MPI_FN_Start, r->buf, (int)r->count, r->dt, r->peer,
		                 r->tag, r->comm);
		mpi_status_empty(&r->status, r->peer);
		r->done = true;
	} else {
		rc = start_req(r);
	}
	if (rc) {
		r->active = false;
		return mpi_err(r->comm, rc, MPI_FN_Start, "cannot start the request");
	}
	return MPI_SUCCESS;
}

int
PMPI_Start(MPI_Request *request)
{
	int rc = mpi_check_initialized(MPI_FN_Start);
	if (rc)
		return rc;
	if (!request)
		return mpi_err(MPI_COMM_NULL, MPI_ERR_REQUEST, MPI_FN_Start,
		               "request is NULL");
	MPI_ENTER(Start);
	rc = start_one(*request);
	MPI_EXIT(Start, -1, 0, 0);
	return rc;
}

int
PMPI_Startall(int count, MPI_Request reqs[])
{
	int rc = mpi_check_initialized(MPI_FN_Startall);
	if (rc)
		return rc;
	if (count < 0)
		return mpi_err(MPI_COMM_NULL, MPI_ERR_COUNT, MPI_FN_Startall,
		               "count %d is negative", count);
	MPI_ENTER(Startall);
	for (int i = 0; i < count && rc == MPI_SUCCESS; i++)
		rc = start_one(reqs[i]);
	MPI_EXIT(Startall, -1, 0, 0);
	return rc;
}

/* ---- blocking receives ----------------------------------------------- */

static int
recv_blocking(enum mpi_fn fn, void *buf, int count, MPI_Datatype dt,
              int source, int tag, MPI_Comm comm, MPI_Status *status)
{
	if (source == MPI_PROC_NULL) {
		if (status != MPI_STATUS_IGNORE)
			mpi_status_empty(status, MPI_PROC_NULL);
		return MPI_SUCCESS;
	}
	struct grove_mpi_request_s req;
	memset(&req, 0, sizeof(req));
	fill_req(&req, MPI_REQ_RECV, buf, count, dt, source, tag, comm, fn);
	mpi_p2p_start_recv(&req);
	if (!req.done)
		mpi_progress_until(req_done, &req);
	if (status != MPI_STATUS_IGNORE)
		*status = req.status;
	if (req.status.MPI_ERROR)
		return mpi_err(comm, req.status.MPI_ERROR, fn,
		               "%s: %lld bytes arrived from rank %d (tag %d), the "
		               "buffer holds %zu",
		               err_text(req.status.MPI_ERROR),
		               (long long)req.status.grove_count_, req.status.MPI_SOURCE,
		               req.status.MPI_TAG, (size_t)count * dt->size);
	return MPI_SUCCESS;
}

int
PMPI_Recv(void *buf, int count, MPI_Datatype dt, int source, int tag,
          MPI_Comm comm, MPI_Status *status)
{
	int rc = mpi_check_initialized(MPI_FN_Recv);
	if (rc || (rc = check_recv(MPI_FN_Recv, count, dt, source, tag, comm)))
		return rc;
	MPI_ENTER(Recv);
	MPI_Status st;
	rc = recv_blocking(MPI_FN_Recv, buf, count, dt, source, tag, comm, &st);
	if (status != MPI_STATUS_IGNORE)
		*status = st;
	MPI_EXIT(Recv, world_of(comm, st.MPI_SOURCE), st.MPI_TAG,
	         (size_t)st.grove_count_);
	return rc;
}

int
PMPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
              int dest, int sendtag, void *recvbuf, int recvcount,
              MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
              MPI_Status *status)
{
	int rc = mpi_check_initialized(MPI_FN_Sendrecv);
	if (rc ||
	    (rc = check_send(MPI_FN_Sendrecv, sendbuf, sendcount, sendtype, dest,
	                     sendtag, comm)) ||
	    (rc = check_recv(MPI_FN_Sendrecv, recvcount, recvtype, source,
	                     recvtag, comm)))
		return rc;
	MPI_ENTER(Sendrecv);
	struct grove_mpi_request_s rreq;
	memset(&rreq, 0, sizeof(rreq));
	MPI_Status st;
	mpi_status_empty(&st, MPI_PROC_NULL);
	if (source != MPI_PROC_NULL) {
		fill_req(&rreq, MPI_REQ_RECV, recvbuf, recvcount, recvtype, source,
		         recvtag, comm, MPI_FN_Sendrecv);
		mpi_p2p_start_recv(&rreq);
	} else {
		rreq.done = true;
		rreq.status = st;
	}
	rc = send_blocking(MPI_FN_Sendrecv, sendbuf, sendcount, sendtype, dest,
	                   sendtag, comm);
	if (!rreq.done)
		mpi_progress_until(req_done, &rreq);
	st = rreq.status;
	if (status != MPI_STATUS_IGNORE)
		*status = st;
	MPI_EXIT(Sendrecv, world_of(comm, dest), sendtag,
	         (size_t)sendcount * sendtype->size);
	if (rc == MPI_SUCCESS && st.MPI_ERROR)
		rc = mpi_err(comm, st.MPI_ERROR, MPI_FN_Sendrecv, "%s",
		             err_text(st.MPI_ERROR));
	return rc;
}

int
PMPI_Sendrecv_replace(void *buf, int count, MPI_Datatype dt, int dest,
                      int sendtag, int source, int recvtag, MPI_Comm comm,
                      MPI_Status *status)
{
	int rc = mpi_check_initialized(MPI_FN_Sendrecv_replace);
	if (rc ||
	    (rc = check_send(MPI_FN_Sendrecv_replace, buf, count, dt, dest,
	                     sendtag, comm)) ||
	    (rc = check_recv(MPI_FN_Sendrecv_replace, count, dt, source, recvtag,
	                     comm)))
		return rc;
	MPI_ENTER(Sendrecv_replace);
	size_t bytes = (size_t)count * dt->size;
	void *copy = malloc(bytes ? bytes : 1);
	if (!copy) {
		MPI_EXIT(Sendrecv_replace, -1, 0, 0);
		return mpi_err(comm, MPI_ERR_NO_MEM, MPI_FN_Sendrecv_replace,
		               "out of memory for a %zu-byte copy", bytes);
	}
	mpi_dt_pack(dt, buf, (size_t)count, copy, 0, bytes);
	rc = PMPI_Sendrecv(copy, (int)bytes, MPI_BYTE, dest, sendtag, buf, count,
	                   dt, source, recvtag, comm, status);
	free(copy);
	MPI_EXIT(Sendrecv_replace, world_of(comm, dest), sendtag, bytes);
	return rc;
}

/* ---- probes ------------------------------------------------------------ */

static void
probe_status(MPI_Status *status, const struct mpi_unexp *u)
{
	if (status == MPI_STATUS_IGNORE)
		return;
	status->MPI_SOURCE = u->src;
	status->MPI_TAG = u->tag;
	status->MPI_ERROR = MPI_SUCCESS;
	status->grove_cancelled_ = 0;
	status->grove_count_ = (MPI_Count)u->bytes;
}

struct probe_arg {
	uint32_t ctx;
	int src, tag;
	bool take;
	struct mpi_unexp *found;
};

static bool
probe_found(void *arg)
{
	struct probe_arg *p = arg;
	p->found = mpi_p2p_probe(p->ctx, p->src, p->tag, p->take);
	return p->found != NULL;
}

static int
probe_args(enum mpi_fn fn, int source, int tag, MPI_Comm comm)
{
	return check_recv(fn, 0, MPI_BYTE, source, tag, comm);
}

int
PMPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
	int rc = mpi_check_initialized(MPI_FN_Probe);
	if (rc || (rc = probe_args(MPI_FN_Probe, source, tag, comm)))
		return rc;
	if (source == MPI_PROC_NULL) {
		if (status != MPI_STATUS_IGNORE)
			mpi_status_empty(status, MPI_PROC_NULL);
		return MPI_SUCCESS;
	}
	MPI_ENTER(Probe);
	if (__builtin_expect(mpi_bcs_mode, 0)) {
		rc = mpi_bcs_probe(MPI_FN_Probe, source, tag, comm, status, NULL);
		MPI_EXIT(Probe, -1, 0, 0);
		return rc;
	}
	struct probe_arg p = {comm->ctx_p2p, source, tag, false, NULL};
	mpi_progress_until(probe_found, &p);
	probe_status(status, p.found);
	MPI_EXIT(Probe, world_of(comm, p.found->src), p.found->tag, 0);
	return MPI_SUCCESS;
}

int
PMPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
	int rc = mpi_check_initialized(MPI_FN_Iprobe);
	if (rc || (rc = probe_args(MPI_FN_Iprobe, source, tag, comm)))
		return rc;
	if (source == MPI_PROC_NULL) {
		*flag = 1;
		if (status != MPI_STATUS_IGNORE)
			mpi_status_empty(status, MPI_PROC_NULL);
		return MPI_SUCCESS;
	}
	MPI_ENTER(Iprobe);
	if (__builtin_expect(mpi_bcs_mode, 0)) {
		rc = mpi_bcs_iprobe(MPI_FN_Iprobe, source, tag, comm, flag, status,
		                    NULL);
		MPI_EXIT(Iprobe, -1, 0, 0);
		return rc;
	}
	struct mpi_unexp *u = mpi_p2p_probe(comm->ctx_p2p, source, tag, false);
	*flag = u != NULL;
	if (u)
		probe_status(status, u);
	MPI_EXIT(Iprobe, u ? world_of(comm, u->src) : -1, u ? u->tag : 0, 0);
	return MPI_SUCCESS;
}

/* An MPI_Message is the unexpected message itself, taken off the queue;
 * it remembers its communicator through the context id. */
struct grove_mpi_message_s {
	int unused;
};
struct grove_mpi_message_s grove_mpi_message_no_proc_;

int
PMPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message,
            MPI_Status *status)
{
	int rc = mpi_check_initialized(MPI_FN_Mprobe);
	if (rc || (rc = probe_args(MPI_FN_Mprobe, source, tag, comm)))
		return rc;
	if (source == MPI_PROC_NULL) {
		*message = MPI_MESSAGE_NO_PROC;
		if (status != MPI_STATUS_IGNORE)
			mpi_status_empty(status, MPI_PROC_NULL);
		return MPI_SUCCESS;
	}
	MPI_ENTER(Mprobe);
	if (__builtin_expect(mpi_bcs_mode, 0)) {
		rc = mpi_bcs_probe(MPI_FN_Mprobe, source, tag, comm, status, message);
		MPI_EXIT(Mprobe, -1, 0, 0);
		return rc;
	}
	struct probe_arg p = {comm->ctx_p2p, source, tag, true, NULL};
	mpi_progress_until(probe_found, &p);
	probe_status(status, p.found);
	*message = (MPI_Message)(void *)p.found;
	MPI_EXIT(Mprobe, world_of(comm, p.found->src), p.found->tag, 0);
	return MPI_SUCCESS;
}

int
PMPI_Improbe(int source, int tag, MPI_Comm comm, int *flag,
             MPI_Message *message, MPI_Status *status)
{
	int rc = mpi_check_initialized(MPI_FN_Improbe);
	if (rc || (rc = probe_args(MPI_FN_Improbe, source, tag, comm)))
		return rc;
	if (source == MPI_PROC_NULL) {
		*flag = 1;
		*message = MPI_MESSAGE_NO_PROC;
		if (status != MPI_STATUS_IGNORE)
			mpi_status_empty(status, MPI_PROC_NULL);
		return MPI_SUCCESS;
	}
	if (__builtin_expect(mpi_bcs_mode, 0))
		return mpi_bcs_iprobe(MPI_FN_Improbe, source, tag, comm, flag, status,
		                      message);
	struct mpi_unexp *u = mpi_p2p_probe(comm->ctx_p2p, source, tag, true);
	*flag = u != NULL;
	if (u) {
		probe_status(status, u);
		*message = (MPI_Message)(void *)u;
	}
	return MPI_SUCCESS;
}

static int
mrecv_start(enum mpi_fn fn, void *buf, int count, MPI_Datatype dt,
            MPI_Message *message, MPI_Request r)
{
	if (!message || *message == MPI_MESSAGE_NULL)
		return mpi_err(MPI_COMM_NULL, MPI_ERR_REQUEST, fn,
		               "message is MPI_MESSAGE_NULL");
	if (*message == MPI_MESSAGE_NO_PROC) {
		mpi_status_empty(&r->status, MPI_PROC_NULL);
		r->done = true;
		*message = MPI_MESSAGE_NULL;
		return MPI_SUCCESS;
	}
	if (__builtin_expect(mpi_bcs_mode, 0)) {
		/* A message of BCS mode is the probe that took it. */
		MPI_Message m = *message;
		*message = MPI_MESSAGE_NULL;
		return mpi_bcs_recv_taken(r, buf, count, dt, m, fn == MPI_FN_Mrecv);
	}
	struct mpi_unexp *u = (struct mpi_unexp *)(void *)*message;
	*message = MPI_MESSAGE_NULL;
	r->kind = MPI_REQ_RECV;
	r->buf = buf;
	r->count = (size_t)count;
	r->dt = dt;
	r->peer = u->src;
	r->tag = u->tag;
	r->ctx = u->ctx;
	r->comm = MPI_COMM_WORLD;
	return mpi_p2p_recv_taken(r, u);
}

int
PMPI_Mrecv(void *buf, int count, MPI_Datatype dt, MPI_Message *message,
           MPI_Status *status)
{
	int rc = mpi_check_initialized(MPI_FN_Mrecv);
	if (rc)
		return rc;
	MPI_ENTER(Mrecv);
	struct grove_mpi_request_s req;
	memset(&req, 0, sizeof(req));
	rc = mrecv_start(MPI_FN_Mrecv, buf, count, dt, message, &req);
	if (rc == MPI_SUCCESS && !req.done)
		mpi_progress_until(req_done, &req);
	if (status != MPI_STATUS_IGNORE)
		*status = req.status;
	MPI_EXIT(Mrecv, -1, req.status.MPI_TAG, (size_t)req.status.grove_count_);
	if (rc == MPI_SUCCESS && req.status.MPI_ERROR)
		rc = mpi_err(MPI_COMM_WORLD, req.status.MPI_ERROR, MPI_FN_Mrecv, "%s",
		             err_text(req.status.MPI_ERROR));
	return rc;
}

int
PMPI_Imrecv(void *buf, int count, MPI_Datatype dt, MPI_Message *message,
            MPI_Request *request)
{
	int rc = mpi_check_initialized(MPI_FN_Imrecv);
	if (rc)
		return rc;
	MPI_Request r = mpi_request_new(MPI_REQ_RECV);
	if (!r)
		return mpi_err(MPI_COMM_NULL, MPI_ERR_NO_MEM, MPI_FN_Imrecv,
		               "out of memory");
	rc = mrecv_start(MPI_FN_Imrecv, buf, count, dt, message, r);
	if (rc) {
		free(r);
		return rc;
	}
	mpi_dt_retain(dt);
	mpi_comm_retain(r->comm);
	r->holds_refs = true;
	*request = r;
	return MPI_SUCCESS;
}

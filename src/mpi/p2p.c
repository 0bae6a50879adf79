/* The point-to-point engine of the shared-memory transport.
 *
 * Protocols (per message, chosen by size):
 *   eager       <= eager_limit bytes: header + payload through the ring
 *               from sender to receiver; the sender is done once the record
 *               is in the ring (Ssend: when the receiver's ACK comes back).
 *   rendezvous  larger: the sender posts RTS (its pid, the address and size
 *               of its data); the receiver, once it has matched it, reads
 *               the data straight from the sender's memory with
 *               process_vm_readv (one copy) and answers FIN.  When the
 *               kernel refuses cross-memory attach, the receiver answers
 *               CTS instead and the sender streams DATA chunks through the
 *               ring (two copies).
 * Matching follows MPI's rules: a ring delivers one sender's records in
 * order and each record is matched (or queued as unexpected) in that
 * order, so messages between a pair never overtake each other.
 * Records that cannot enter a full ring wait in a per-destination outbox,
 * in order; later sends to that destination queue behind them.
 *
 * Channels (p2p_chan.h).  A peer is reached through its ring pair in
 * the job segment or through a TCP socket that carries the same records;
 * records from sockets come to the same handle() as records from rings,
 * so matching, the protocols and the outboxes are one engine.  Over TCP
 * the eager limit is the transport's, and large messages always go as
 * CTS and DATA chunks (no process_vm_readv between hosts).
 */
#define _GNU_SOURCE
#include "mpi/p2p.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/bcs_rank.h"
#include "mpi/clusters.h"
#include "mpi/p2p_chan.h"

/* An entry of a destination's outbox: a request whose first record (EAGER
 * or RTS) did not fit, or a copied control record. */
struct mpi_out {
	struct mpi_out *next;
	MPI_Request req;      /* data send, or NULL for a control record */
	struct mpi_wire ctl;  /* the control record */
};

struct mpi_outbox {
	struct mpi_out *head, *tail;
};

/* The engine's state: per process, like MPI's (see mpi_proc). */
static struct {
	struct mpi_chans ch;   /* its channels, CMA */
	int n;
	MPI_Request posted_head, posted_tail;
	struct mpi_unexp *unexp_head, *unexp_tail;
	struct mpi_outbox *out;
	int out_busy;          /* outboxes that are not empty */
	MPI_Request chunk_head; /* sends streaming chunks (no CMA) */
} E;

static inline uint64_t
req_id(MPI_Request r)
{
	return (uint64_t)(uintptr_t)r;
}
static inline MPI_Request
req_of(uint64_t id)
{
	return (MPI_Request)(uintptr_t)id;
}

int
mpi_p2p_init(struct mpi_job *job, int rank, int size, const int *pids)
{
	memset(&E, 0, sizeof(E));
	E.n = size;
	E.out = calloc((size_t)size, sizeof(*E.out));
	if (!E.out)
		return MPI_ERR_NO_MEM;
	int rc = mpi_chans_init(&E.ch, job, rank, size, pids);
	if (rc != MPI_SUCCESS) {
		free(E.out);
		E.out = NULL;
	}
	return rc;
}

void
mpi_p2p_fini(void)
{
	while (E.unexp_head) {
		struct mpi_unexp *u = E.unexp_head;
		E.unexp_head = u->next;
		free(u->data);
		free(u);
	}
	if (E.out) {
		for (int i = 0; i < E.n; i++) {
			struct mpi_out *o = E.out[i].head;
			while (o) {
				struct mpi_out *next = o->next;
				free(o);
				o = next;
			}
		}
	}
	free(E.out);
	mpi_chans_fini(&E.ch);
	memset(&E, 0, sizeof(E));
}

bool
mpi_p2p_waits_for_space(void)
{
	return E.out_busy > 0 || E.chunk_head != NULL || mpi_chans_backlogged();
}

bool
mpi_p2p_cma(const char **why)
{
	if (why)
		*why = E.ch.cma_why;
	return E.ch.cma;
}

void
mpi_status_empty(MPI_Status *st, int source)
{
	st->MPI_SOURCE = source;
	st->MPI_TAG = MPI_ANY_TAG;
	st->MPI_ERROR = MPI_SUCCESS;
	st->grove_cancelled_ = 0;
	st->grove_count_ = 0;
}

void
mpi_request_complete(MPI_Request req)
{
	if (req->pack) {
		free(req->pack);
		req->pack = NULL;
	}
	req->state = MPI_RS_DONE;
	req->done = true;
	if (req->freed && !req->persistent)
		mpi_request_free_internal(req);
}

/* ---- sending records ------------------------------------------------- */

static void
outbox_append(int w, struct mpi_out *o)
{
	struct mpi_outbox *b = &E.out[w];
	o->next = NULL;
	if (b->tail)
		b->tail->next = o;
	else {
		b->head = o;
		E.out_busy++;
	}
	b->tail = o;
}

/* Writes a control record to w now, or queues it. */
static void
send_ctl(int w, const struct mpi_wire *ctl)
{
	if (E.out[w].head == NULL) {
		struct mpi_wire *rec = mpi_chan_reserve(&E.ch, w, 0);
		if (rec) {
			uint32_t rb = rec->rec_bytes;
			*rec = *ctl;
			rec->rec_bytes = rb;
			mpi_chan_commit(&E.ch, w, rec, true);
			return;
		}
	}
	struct mpi_out *o = calloc(1, sizeof(*o));
	if (!o)
		return; /* out of memory: the peer's 1 s wake-up retries nothing;
		           nothing better to do without memory */
	o->ctl = *ctl;
	outbox_append(w, o);
}

/* mpi_dt_is_contig with the answer for the predefined and contiguous
 * types inline: the common case of every message. */
static inline bool
dt_contig(MPI_Datatype dt, size_t count)
{
	return dt->contig || mpi_dt_is_contig(dt, count);
}

static inline void *
contig_start(MPI_Request req)
{
	return (char *)req->buf + req->dt->true_lb;
}

/* Tries to write req's first record (EAGER or RTS) to its destination:
 * true when it went in. */
static bool
push_first(MPI_Request req, int w)
{
	bool eager = req->bytes <= mpi_chan_eager(&E.ch, w);
	struct mpi_wire *rec = mpi_chan_reserve(&E.ch, w, eager ? req->bytes : 0);
	if (!rec)
		return false;
	rec->type = eager ? MPI_W_EAGER : MPI_W_RTS;
	rec->flags = req->mode == MPI_FN_Ssend || req->mode == MPI_FN_Issend ||
	                     req->mode == MPI_FN_Ssend_init
	                 ? MPI_W_F_SYNC
	                 : 0;
	rec->ctx = req->ctx;
	rec->src = req->comm->rank;
	rec->tag = req->tag;
	rec->bytes = req->bytes;
	rec->sreq = req_id(req);
	if (eager) {
		char *payload = (char *)rec + MPI_WIRE_HDR;
		if (req->bytes) {
			if (dt_contig(req->dt, req->count))
				memcpy(payload, contig_start(req), req->bytes);
			else
				mpi_dt_pack(req->dt, req->buf, req->count, payload, 0,
				            req->bytes);
		}
		rec->addr = 0;
	} else {
		rec->addr = (uint64_t)(uintptr_t)(req->pack ? req->pack
		                                            : contig_start(req));
	}
	bool sync = rec->flags & MPI_W_F_SYNC; /* rec is the channel's now */
	mpi_chan_commit(&E.ch, w, rec, true);
	if (eager) {
		if (sync)
			req->state = MPI_RS_SEND_WAIT_ACK;
		else {
			req->status.grove_count_ = (MPI_Count)req->bytes;
			mpi_request_complete(req);
		}
	} else {
		req->state = MPI_RS_SEND_WAIT_FIN;
	}
	return true;
}

int
mpi_p2p_start_send(MPI_Request req)
{
	if (__builtin_expect(mpi_bcs_mode, 0))
		return mpi_bcs_start_send(req);
	int w = mpi_comm_world_rank(req->comm, req->peer);
	req->bytes = req->count * req->dt->size;
	req->moved = 0;
	req->done = false;
	req->cancelled = false;
	mpi_status_empty(&req->status, req->peer);
	req->status.MPI_TAG = req->tag;
	if (__builtin_expect(mpi_wan_crosses(w), 0))
		return mpi_wan_defer(req); /* emulated WAN (wan_shaper.c) */
	if (req->bytes > mpi_chan_eager(&E.ch, w) &&
	    !dt_contig(req->dt, req->count)) {
		/* The receiver reads one contiguous run: pack it once. */
		req->pack = malloc(req->bytes);
		if (!req->pack)
			return MPI_ERR_NO_MEM;
		mpi_dt_pack(req->dt, req->buf, req->count, req->pack, 0, req->bytes);
	}
	if (E.out[w].head == NULL && push_first(req, w))
		return MPI_SUCCESS;
	struct mpi_out *o = calloc(1, sizeof(*o));
	if (!o) {
		free(req->pack);
		req->pack = NULL;
		return MPI_ERR_NO_MEM;
	}
	o->req = req;
	req->state = MPI_RS_SEND_QUEUED;
	outbox_append(w, o);
	return MPI_SUCCESS;
}

/* Writes what the outboxes hold, in order, while the rings take it. */
static int
flush_outboxes(void)
{
	int moved = 0;
	for (int w = 0; w < E.n && E.out_busy > 0; w++) {
		struct mpi_outbox *b = &E.out[w];
		while (b->head) {
			struct mpi_out *o = b->head;
			if (o->req) {
				if (!push_first(o->req, w))
					break;
			} else {
				struct mpi_wire *rec = mpi_chan_reserve(&E.ch, w, 0);
				if (!rec)
					break;
				uint32_t rb = rec->rec_bytes;
				*rec = o->ctl;
				rec->rec_bytes = rb;
				mpi_chan_commit(&E.ch, w, rec, true);
			}
			b->head = o->next;
			if (!b->head) {
				b->tail = NULL;
				E.out_busy--;
			}
			free(o);
			moved++;
		}
	}
	return moved;
}

/* Streams chunks of the sends the receivers asked for (no CMA). */
static int
push_chunks(void)
{
	int moved = 0;
	MPI_Request *link = &E.chunk_head;
	while (*link) {
		MPI_Request req = *link;
		int w = mpi_comm_world_rank(req->comm, req->peer);
		size_t chunk = mpi_chan_chunk(&E.ch, w);
		const char *src = req->pack ? req->pack : contig_start(req);
		while (req->moved < req->bytes) {
			size_t n = req->bytes - req->moved;
			if (n > chunk)
				n = chunk;
			struct mpi_wire *rec = mpi_chan_reserve(&E.ch, w, n);
			if (!rec)
				break;
			rec->type = MPI_W_DATA;
			rec->sreq = req->cookie; /* the receiver's request */
			rec->addr = req->moved;
			rec->bytes = n;
			memcpy((char *)rec + MPI_WIRE_HDR, src + req->moved, n);
			mpi_chan_commit(&E.ch, w, rec, false);
			req->moved += n;
			moved++;
		}
		if (moved)
			mpi_chan_wake(&E.ch, w);
		if (req->moved >= req->bytes) {
			*link = req->next;
			req->next = NULL;
			mpi_request_complete(req);
		} else {
			link = &req->next;
		}
	}
	return moved;
}

/* ---- receiving ------------------------------------------------------- */

static inline bool
matches(const MPI_Request req, uint32_t ctx, int src, int tag)
{
	return req->ctx == ctx &&
	       (req->peer == MPI_ANY_SOURCE || req->peer == src) &&
	       (req->tag == MPI_ANY_TAG || req->tag == tag);
}

static void
posted_remove(MPI_Request req)
{
	if (req->prev)
		req->prev->next = req->next;
	else
		E.posted_head = req->next;
	if (req->next)
		req->next->prev = req->prev;
	else
		E.posted_tail = req->prev;
	req->next = req->prev = NULL;
}

static MPI_Request
posted_match(uint32_t ctx, int src, int tag)
{
	for (MPI_Request r = E.posted_head; r; r = r->next) {
		if (matches(r, ctx, src, tag)) {
			posted_remove(r);
			return r;
		}
	}
	return NULL;
}

/* Fills the status of a receive of `bytes` and returns how many of them
 * fit its buffer. */
static size_t
recv_status(MPI_Request req, int src, int tag, uint64_t bytes)
{
	size_t cap = req->count * req->dt->size;
	size_t n = bytes <= cap ? (size_t)bytes : cap;
	req->status.MPI_SOURCE = src;
	req->status.MPI_TAG = tag;
	req->status.MPI_ERROR = bytes > cap ? MPI_ERR_TRUNCATE : MPI_SUCCESS;
	req->status.grove_cancelled_ = 0;
	req->status.grove_count_ = (MPI_Count)n;
	return n;
}

static void
deliver_eager(MPI_Request req, int src_world, int src, int tag,
              uint8_t flags, uint64_t sreq, const void *data, uint64_t bytes)
{
	size_t n = recv_status(req, src, tag, bytes);
	if (n) {
		if (dt_contig(req->dt, req->count))
			memcpy(contig_start(req), data, n);
		else
			mpi_dt_unpack(req->dt, req->buf, req->count, data, 0, n);
	}
	if (flags & MPI_W_F_SYNC) {
		struct mpi_wire ack = {.type = MPI_W_ACK, .sreq = sreq};
		send_ctl(src_world, &ack);
	}
	mpi_request_complete(req);
}

static void
deliver_rts(MPI_Request req, int src_world, int src, int tag, uint64_t sreq,
            uint64_t addr, uint64_t bytes)
{
	size_t n = recv_status(req, src, tag, bytes);
	bool contig = dt_contig(req->dt, req->count);
	if (E.ch.cma && !mpi_chan_tcp(&E.ch, src_world)) {
		void *dst = contig ? contig_start(req) : malloc(n ? n : 1);
		int e = dst ? mpi_chan_cma_read(&E.ch, src_world, dst, addr, n)
		            : ENOMEM;
		if (e == 0) {
			if (!contig) {
				mpi_dt_unpack(req->dt, req->buf, req->count, dst, 0, n);
				free(dst);
			}
			struct mpi_wire fin = {.type = MPI_W_FIN, .sreq = sreq};
			send_ctl(src_world, &fin);
			mpi_request_complete(req);
			return;
		}
		if (!contig)
			free(dst);
		if (!mpi_chan_cma_refused(e)) {
			req->status.MPI_ERROR = MPI_ERR_OTHER;
			req->status.grove_count_ = 0;
			struct mpi_wire fin = {.type = MPI_W_FIN, .sreq = sreq};
			send_ctl(src_world, &fin);
			mpi_request_complete(req);
			return;
		}
		/* Refused now (a security module, a changed policy): CMA is
		 * off, and the data comes through the rings from here on. */
	}
	/* Chunks through the ring: into the buffer, or a packed copy. */
	req->bytes = n;
	req->moved = 0;
	if (!contig) {
		req->pack = malloc(n ? n : 1);
		if (!req->pack) {
			req->status.MPI_ERROR = MPI_ERR_NO_MEM;
			struct mpi_wire fin = {.type = MPI_W_FIN, .sreq = sreq};
			send_ctl(src_world, &fin);
			mpi_request_complete(req);
			return;
		}
	}
	if (n == 0) {
		struct mpi_wire fin = {.type = MPI_W_FIN, .sreq = sreq};
		send_ctl(src_world, &fin);
		mpi_request_complete(req);
		return;
	}
	req->state = MPI_RS_RECV_CHUNKS;
	struct mpi_wire cts = {.type = MPI_W_CTS, .sreq = sreq,
	                       .addr = req_id(req), .bytes = n};
	send_ctl(src_world, &cts);
}

static void
take_chunk(const struct mpi_wire *w)
{
	MPI_Request req = req_of(w->sreq); /* the receiver's request */
	uint64_t off = w->addr, n = w->bytes;
	if (req->state != MPI_RS_RECV_CHUNKS || off + n > req->bytes)
		return; /* not ours to take: a peer's bug, not a crash */
	char *dst = req->pack ? req->pack : contig_start(req);
	memcpy(dst + off, (const char *)w + MPI_WIRE_HDR, n);
	req->moved += n;
	if (req->moved == req->bytes) {
		if (req->pack)
			mpi_dt_unpack(req->dt, req->buf, req->count, req->pack, 0,
			              req->bytes);
		mpi_request_complete(req);
	}
}

static void
unexp_append(struct mpi_unexp *u)
{
	u->next = NULL;
	u->prev = E.unexp_tail;
	if (E.unexp_tail)
		E.unexp_tail->next = u;
	else
		E.unexp_head = u;
	E.unexp_tail = u;
}

static void
unexp_remove(struct mpi_unexp *u)
{
	if (u->prev)
		u->prev->next = u->next;
	else
		E.unexp_head = u->next;
	if (u->next)
		u->next->prev = u->prev;
	else
		E.unexp_tail = u->prev;
	u->next = u->prev = NULL;
}

/* Handles one record from world rank s. */
static void
handle(const struct mpi_wire *w, int s)
{
	switch (w->type) {
	case MPI_W_EAGER:
	case MPI_W_RTS: {
		MPI_Request req = posted_match(w->ctx, w->src, w->tag);
		if (req) {
			if (w->type == MPI_W_EAGER)
				deliver_eager(req, s, w->src, w->tag, w->flags, w->sreq,
				              (const char *)w + MPI_WIRE_HDR, w->bytes);
			else
				deliver_rts(req, s, w->src, w->tag, w->sreq, w->addr,
				            w->bytes);
			return;
		}
		struct mpi_unexp *u = calloc(1, sizeof(*u));
		if (!u)
			return; /* nowhere to keep it: lost (out of memory) */
		u->type = w->type;
		u->flags = w->flags;
		u->ctx = w->ctx;
		u->src = w->src;
		u->tag = w->tag;
		u->src_world = s;
		u->bytes = w->bytes;
		u->sreq = w->sreq;
		u->addr = w->addr;
		if (w->type == MPI_W_EAGER && w->bytes) {
			u->data = malloc(w->bytes);
			if (!u->data) {
				free(u);
				return;
			}
			memcpy(u->data, (const char *)w + MPI_WIRE_HDR, w->bytes);
		}
		unexp_append(u);
		return;
	}
	case MPI_W_ACK:
	case MPI_W_FIN: {
		MPI_Request req = req_of(w->sreq);
		req->status.grove_count_ = (MPI_Count)req->bytes;
		mpi_request_complete(req);
		return;
	}
	case MPI_W_CTS: {
		MPI_Request req = req_of(w->sreq);
		req->cookie = w->addr; /* the receiver's request */
		if (w->bytes < req->bytes)
			req->bytes = w->bytes; /* the receiver takes only this much */
		req->moved = 0;
		req->state = MPI_RS_SEND_CHUNKS;
		req->next = E.chunk_head;
		E.chunk_head = req;
		return;
	}
	case MPI_W_DATA:
		take_chunk(w);
		return;
	default:
		return;
	}
}

/* Handles the records in the ring from world rank s, in order, and
 * wakes s when it waits for room.  The loop of every message received
 * on this host: handle() is inlined here. */
static int
drain(int s)
{
	struct mpi_ring_hdr *r = mpi_chan_ring_from(&E.ch, s);
	int n = 0;
	struct mpi_wire *w;
	while ((w = mpi_ring_peek(r, E.ch.cap)) != NULL) {
		handle(w, s);
		mpi_ring_release(r, E.ch.cap, w);
		n++;
	}
	if (n && mpi_ring_space_wanted(r))
		mpi_wake(s);
	return n;
}

int
mpi_progress(void)
{
	if (__builtin_expect(mpi_bcs_mode, 0))
		return mpi_bcs_progress();
	if (!E.ch.job)
		return 0;
	int ev = 0;
	if (E.ch.tcp) {
		ev += drain(E.ch.me);
		ev += mpi_chans_poll_sockets(handle);
	} else {
		for (int s = 0; s < E.n; s++)
			ev += drain(s);
	}
	if (E.out_busy)
		ev += flush_outboxes();
	if (E.chunk_head)
		ev += push_chunks();
	ev += mpi_wan_progress();
	ev += mpi_sched_progress_all();
	return ev;
}

static bool
quiet(void *arg)
{
	(void)arg;
	return E.out_busy == 0 && E.chunk_head == NULL && !mpi_chans_backlogged() &&
	       mpi_wan_idle();
}

void
mpi_p2p_quiesce(void)
{
	if (!E.ch.job)
		return;
	mpi_progress_until(quiet, NULL);
	/* TCP: the peers' BYEs, then the sockets close. */
	mpi_chans_close(handle);
}

/* ---- posting receives --------------------------------------------------- */

static void
recv_from_unexp(MPI_Request req, struct mpi_unexp *u)
{
	if (u->type == MPI_W_EAGER)
		deliver_eager(req, u->src_world, u->src, u->tag, u->flags, u->sreq,
		              u->data, u->bytes);
	else
		deliver_rts(req, u->src_world, u->src, u->tag, u->sreq, u->addr,
		            u->bytes);
	free(u->data);
	free(u);
}

int
mpi_p2p_start_recv(MPI_Request req)
{
	if (__builtin_expect(mpi_bcs_mode, 0))
		return mpi_bcs_start_recv(req);
	req->done = false;
	req->cancelled = false;
	req->pack = NULL;
	mpi_status_empty(&req->status, req->peer);
	/* Messages already here come first, in arrival order. */
	for (struct mpi_unexp *u = E.unexp_head; u; u = u->next) {
		if (matches(req, u->ctx, u->src, u->tag)) {
			unexp_remove(u);
			recv_from_unexp(req, u);
			return MPI_SUCCESS;
		}
	}
	req->state = MPI_RS_RECV_POSTED;
	req->next = NULL;
	req->prev = E.posted_tail;
	if (E.posted_tail)
		E.posted_tail->next = req;
	else
		E.posted_head = req;
	E.posted_tail = req;
	return MPI_SUCCESS;
}

bool
mpi_p2p_cancel_recv(MPI_Request req)
{
	if (mpi_bcs_mode)
		return mpi_bcs_cancel_recv(req);
	if (req->state != MPI_RS_RECV_POSTED || req->done)
		return false;
	posted_remove(req);
	req->cancelled = true;
	req->status.grove_cancelled_ = 1;
	req->status.grove_count_ = 0;
	mpi_request_complete(req);
	return true;
}

struct mpi_unexp *
mpi_p2p_probe(uint32_t ctx, int src, int tag, bool take)
{
	mpi_progress();
	for (struct mpi_unexp *u = E.unexp_head; u; u = u->next) {
		if (u->ctx == ctx && (src == MPI_ANY_SOURCE || src == u->src) &&
		    (tag == MPI_ANY_TAG || tag == u->tag)) {
			if (take)
				unexp_remove(u);
			return u;
		}
	}
	return NULL;
}

int
mpi_p2p_recv_taken(MPI_Request req, struct mpi_unexp *u)
{
	req->done = false;
	req->pack = NULL;
	mpi_status_empty(&req->status, u->src);
	recv_from_unexp(req, u);
	return MPI_SUCCESS;
}

/* ---- internal API for collectives ---------------------------------------- */

int
mpi_isend_ctx(const void *buf, size_t count, MPI_Datatype dt, int peer,
              int tag, MPI_Comm comm, uint32_t ctx, int mode,
              MPI_Request *out)
{
	MPI_Request req = mpi_request_new(MPI_REQ_SEND);
	if (!req)
		return MPI_ERR_NO_MEM;
	req->comm = comm;
	req->peer = peer;
	req->tag = tag;
	req->ctx = ctx;
	req->buf = (void *)buf;
	req->count = count;
	req->dt = dt;
	req->mode = mode ? mode : MPI_FN_Isend;
	mpi_dt_retain(dt);
	mpi_comm_retain(comm);
	req->holds_refs = true;
	int rc = mpi_p2p_start_send(req);
	if (rc != MPI_SUCCESS) {
		mpi_request_free_internal(req);
		return rc;
	}
	*out = req;
	return MPI_SUCCESS;
}

int
mpi_irecv_ctx(void *buf, size_t count, MPI_Datatype dt, int peer, int tag,
              MPI_Comm comm, uint32_t ctx, MPI_Request *out)
{
	MPI_Request req = mpi_request_new(MPI_REQ_RECV);
	if (!req)
		return MPI_ERR_NO_MEM;
	req->comm = comm;
	req->peer = peer;
	req->tag = tag;
	req->ctx = ctx;
	req->buf = buf;
	req->count = count;
	req->dt = dt;
	mpi_dt_retain(dt);
	mpi_comm_retain(comm);
	req->holds_refs = true;
	int rc = mpi_p2p_start_recv(req);
	if (rc != MPI_SUCCESS) {
		mpi_request_free_internal(req);
		return rc;
	}
	*out = req;
	return MPI_SUCCESS;
}

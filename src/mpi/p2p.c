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
 * Channels.  A peer is reached through its ring pair in the job segment
 * or, with the TCP transport (tcp_chan.h), through a socket that carries
 * the same records: chan_reserve/chan_commit write a record either way,
 * and records from sockets come to the same handle() as records from
 * rings, so matching, the protocols and the outboxes are one engine.
 * Over TCP the eager limit is the transport's, and large messages always
 * go as CTS and DATA chunks (no process_vm_readv between hosts).  A
 * rank's messages to itself stay in its own ring.
 */
#define _GNU_SOURCE
#include "mpi/p2p.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "mpi/bcs_rank.h"
#include "mpi/clusters.h"
#include "mpi/job.h"
#include "mpi/ring.h"
#include "mpi/tcp_chan.h"

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
	struct mpi_job *job;
	int me, n;
	uint32_t cap, eager;
	int *pids;
	bool cma;
	const char *cma_why;
	MPI_Request posted_head, posted_tail;
	struct mpi_unexp *unexp_head, *unexp_tail;
	struct mpi_outbox *out;
	int out_busy;          /* outboxes that are not empty */
	uint64_t *head_cache;  /* per destination: its ring's head as last
	                          read (mpi_ring_reserve) */
	MPI_Request chunk_head; /* sends streaming chunks (no CMA) */
	bool tcp;              /* peers other than this rank are on TCP */
	uint32_t tcp_eager;
} E;

static inline struct mpi_ring_hdr *
ring_to(int w)
{
	return mpi_job_ring(E.job, (uint32_t)w, (uint32_t)E.me);
}

/* ---- channels ---------------------------------------------------------- */

static inline bool
chan_tcp(int w)
{
	return E.tcp && w != E.me;
}

static inline uint64_t
chan_eager(int w)
{
	return chan_tcp(w) ? E.tcp_eager : E.eager;
}

/* The largest DATA payload of one record to w. */
static inline size_t
chan_chunk(int w)
{
	return chan_tcp(w) ? MPI_TCP_CHUNK : E.cap / 4 - MPI_WIRE_HDR;
}

/* Room for a record of `payload` bytes to w, or NULL when its channel is
 * full (a ring without room, a socket's queue over its high-water
 * mark): the caller then queues in the outbox, or retries. */
static inline struct mpi_wire *
chan_reserve(int w, size_t payload)
{
	if (chan_tcp(w))
		return mpi_tcp_reserve(w, payload);
	return mpi_ring_reserve(ring_to(w), E.cap, mpi_wire_rec_bytes(payload),
	                        &E.head_cache[w]);
}

/* Publishes the record; wake: wake the ring's consumer now (a batch of
 * ring records wakes once at its end, with chan_wake). */
static inline void
chan_commit(int w, struct mpi_wire *rec, bool wake)
{
	if (chan_tcp(w)) {
		mpi_tcp_commit(w, rec);
		return;
	}
	mpi_ring_commit(ring_to(w), E.cap, rec);
	if (wake)
		mpi_wake_published(w);
}

static inline void
chan_wake(int w)
{
	if (!chan_tcp(w))
		mpi_wake_published(w);
}

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
	E.job = job;
	E.me = rank;
	E.n = size;
	E.cap = job->hdr->ring_bytes;
	E.eager = job->hdr->eager_limit;
	E.pids = calloc((size_t)size, sizeof(int));
	E.out = calloc((size_t)size, sizeof(*E.out));
	E.head_cache = calloc((size_t)size, sizeof(*E.head_cache));
	if (!E.pids || !E.out || !E.head_cache) {
		free(E.pids);
		free(E.out);
		free(E.head_cache);
		return MPI_ERR_NO_MEM;
	}
	memcpy(E.pids, pids, (size_t)size * sizeof(int));
	E.cma = true;
	E.tcp = mpi_tcp_active();
	E.tcp_eager = mpi_tcp_eager();
	const char *env = getenv("GROVE_MPI_CMA");
	if (E.tcp) {
		E.cma = false;
		E.cma_why = "TCP transport: rendezvous in chunks";
	} else if (env && strcmp(env, "0") == 0) {
		E.cma = false;
		E.cma_why = "GROVE_MPI_CMA=0";
	} else {
		/* Read a word a peer published (its probe word): the same
		 * permission check as a real transfer. */
		int peer = (rank + 1) % size;
		struct mpi_rank_ctl *c = mpi_job_ctl(job, (uint32_t)peer);
		uint64_t addr = __atomic_load_n(&c->probe_addr, __ATOMIC_ACQUIRE);
		uint64_t got = 0;
		struct iovec l = {&got, sizeof(got)};
		struct iovec r = {(void *)(uintptr_t)addr, sizeof(got)};
		if (addr == 0) {
			E.cma = false;
			E.cma_why = "the peer published no probe address";
		} else if (process_vm_readv(pids[peer], &l, 1, &r, 1, 0) !=
		               (ssize_t)sizeof(got) ||
		           got != c->probe_value) {
			E.cma = false;
			E.cma_why = errno == EPERM ? "process_vm_readv refused (EPERM: "
			                             "ptrace restrictions)"
			            : errno == ENOSYS ? "process_vm_readv not in this kernel"
			                              : "process_vm_readv failed";
		}
	}
	return MPI_SUCCESS;
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
	free(E.pids);
	free(E.head_cache);
	memset(&E, 0, sizeof(E));
}

bool
mpi_p2p_waits_for_space(void)
{
	return E.out_busy > 0 || E.chunk_head != NULL || mpi_tcp_backlogged();
}

bool
mpi_p2p_cma(const char **why)
{
	if (why)
		*why = E.cma_why;
	return E.cma;
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
		struct mpi_wire *rec = chan_reserve(w, 0);
		if (rec) {
			uint32_t rb = rec->rec_bytes;
			*rec = *ctl;
			rec->rec_bytes = rb;
			chan_commit(w, rec, true);
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
	bool eager = req->bytes <= chan_eager(w);
	struct mpi_wire *rec = chan_reserve(w, eager ? req->bytes : 0);
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
	chan_commit(w, rec, true);
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
	if (req->bytes > chan_eager(w) && !dt_contig(req->dt, req->count)) {
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
				struct mpi_wire *rec = chan_reserve(w, 0);
				if (!rec)
					break;
				uint32_t rb = rec->rec_bytes;
				*rec = o->ctl;
				rec->rec_bytes = rb;
				chan_commit(w, rec, true);
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
		size_t chunk = chan_chunk(w);
		const char *src = req->pack ? req->pack : contig_start(req);
		while (req->moved < req->bytes) {
			size_t n = req->bytes - req->moved;
			if (n > chunk)
				n = chunk;
			struct mpi_wire *rec = chan_reserve(w, n);
			if (!rec)
				break;
			rec->type = MPI_W_DATA;
			rec->sreq = req->cookie; /* the receiver's request */
			rec->addr = req->moved;
			rec->bytes = n;
			memcpy((char *)rec + MPI_WIRE_HDR, src + req->moved, n);
			chan_commit(w, rec, false);
			req->moved += n;
			moved++;
		}
		if (moved)
			chan_wake(w);
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

/* Reads n bytes at addr of pid into dst; 0 or an errno. */
static int
cma_read(int pid, void *dst, uint64_t addr, size_t n)
{
	size_t done = 0;
	while (done < n) {
		struct iovec l = {(char *)dst + done, n - done};
		struct iovec r = {(void *)(uintptr_t)(addr + done), n - done};
		ssize_t got = process_vm_readv(pid, &l, 1, &r, 1, 0);
		if (got < 0) {
			if (errno == EINTR)
				continue;
			return errno;
		}
		if (got == 0)
			return EIO;
		done += (size_t)got;
	}
	return 0;
}

static void
deliver_rts(MPI_Request req, int src_world, int src, int tag, uint64_t sreq,
            uint64_t addr, uint64_t bytes)
{
	size_t n = recv_status(req, src, tag, bytes);
	bool contig = dt_contig(req->dt, req->count);
	if (E.cma && !chan_tcp(src_world)) {
		void *dst = contig ? contig_start(req) : malloc(n ? n : 1);
		int e = dst ? cma_read(E.pids[src_world], dst, addr, n) : ENOMEM;
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
		if (e == EPERM || e == ENOSYS || e == EACCES) {
			/* Refused now (a security module, a changed policy): copy
			 * through the rings from here on. */
			E.cma = false;
			E.cma_why = e == ENOSYS ? "process_vm_readv not in this kernel"
			                        : "process_vm_readv refused";
		} else {
			req->status.MPI_ERROR = MPI_ERR_OTHER;
			req->status.grove_count_ = 0;
			struct mpi_wire fin = {.type = MPI_W_FIN, .sreq = sreq};
			send_ctl(src_world, &fin);
			mpi_request_complete(req);
			return;
		}
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

static int
drain(int s)
{
	struct mpi_ring_hdr *r = mpi_job_ring(E.job, (uint32_t)E.me, (uint32_t)s);
	int n = 0;
	struct mpi_wire *w;
	while ((w = mpi_ring_peek(r, E.cap)) != NULL) {
		handle(w, s);
		mpi_ring_release(r, E.cap, w);
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
	int ev = 0;
	if (!E.job)
		return 0;
	if (E.tcp) {
		ev += drain(E.me);
		ev += mpi_tcp_progress(handle);
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
	return E.out_busy == 0 && E.chunk_head == NULL && !mpi_tcp_backlogged() &&
	       mpi_wan_idle();
}

void
mpi_p2p_quiesce(void)
{
	if (!E.job)
		return;
	mpi_progress_until(quiet, NULL);
	/* TCP: the peers' BYEs, then the sockets close. */
	mpi_tcp_fini(handle);
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

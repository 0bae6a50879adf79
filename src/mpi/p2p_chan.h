/* The channels of the point-to-point engine (p2p.c): how its records and
 * its large messages reach a peer.
 *
 * A peer's channel is its ring pair in the job segment or, with the TCP
 * transport (tcp_chan.h), a socket that carries the same records:
 * mpi_chan_reserve/mpi_chan_commit write a record either way, and the
 * records of rings (mpi_chan_ring_from) and sockets
 * (mpi_chans_poll_sockets) alike go to the engine's handler.  A rank's messages to itself stay in its own ring.
 * Besides the channel, a peer on this host may be read from directly
 * with process_vm_readv (CMA), the rendezvous protocol's one copy.
 *
 * The engine calls the functions below once or more per message: they
 * are inline (the engine owns its struct mpi_chans, so after inlining
 * they read its fields as directly as its own).  What runs once per job
 * (set-up, CMA) is in p2p_chan.c. */
#ifndef GROVE_MPI_P2P_CHAN_H
#define GROVE_MPI_P2P_CHAN_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mpi/job.h"
#include "mpi/mpi_impl.h"
#include "mpi/ring.h"
#include "mpi/tcp_chan.h"

/* This rank's channels to the ranks of its job. */
struct mpi_chans {
	struct mpi_job *job;
	int me;
	uint32_t cap, eager;   /* a ring's bytes, the rings' eager limit */
	uint64_t *head_cache;  /* per destination: its ring's head as last
	                          read (mpi_ring_reserve) */
	bool tcp;              /* peers other than this rank are on TCP */
	uint32_t tcp_eager;
	int *pids;             /* per world rank (CMA) */
	bool cma;              /* large messages move with process_vm_readv */
	const char *cma_why;   /* why they do not */
};

/* Set-up after the job segment is attached and the peers' pids known
 * (pids[world rank]): the rings', or TCP's, limits, and whether CMA works
 * (one read of a word a peer published).  MPI_SUCCESS or MPI_ERR_NO_MEM;
 * fini frees what init allocated. */
int mpi_chans_init(struct mpi_chans *c, struct mpi_job *job, int rank,
                   int size, const int *pids);
void mpi_chans_fini(struct mpi_chans *c);

/* Reads n bytes at addr in world rank w's memory into dst: 0 or an errno.
 * When the kernel refuses (mpi_chan_cma_refused: a security module, a
 * changed policy), CMA is off from then on, with the reason, and the
 * caller moves the data through the channel instead. */
int mpi_chan_cma_read(struct mpi_chans *c, int w, void *dst, uint64_t addr,
                      size_t n);

static inline bool
mpi_chan_cma_refused(int err)
{
	return err == EPERM || err == ENOSYS || err == EACCES;
}

/* Whether w is reached through a socket. */
static inline bool
mpi_chan_tcp(const struct mpi_chans *c, int w)
{
	return c->tcp && w != c->me;
}

/* The largest message to w that goes eager. */
static inline uint64_t
mpi_chan_eager(const struct mpi_chans *c, int w)
{
	return mpi_chan_tcp(c, w) ? c->tcp_eager : c->eager;
}

/* The largest DATA payload of one record to w. */
static inline size_t
mpi_chan_chunk(const struct mpi_chans *c, int w)
{
	return mpi_chan_tcp(c, w) ? MPI_TCP_CHUNK : c->cap / 4 - MPI_WIRE_HDR;
}

/* The ring this rank writes to w. */
static inline struct mpi_ring_hdr *
mpi_chan_ring_to(const struct mpi_chans *c, int w)
{
	return mpi_job_ring(c->job, (uint32_t)w, (uint32_t)c->me);
}

/* Room for a record of `payload` bytes to w, or NULL when its channel is
 * full (a ring without room, a socket's queue over its high-water
 * mark): the caller then queues in the outbox, or retries. */
static inline struct mpi_wire *
mpi_chan_reserve(struct mpi_chans *c, int w, size_t payload)
{
	if (mpi_chan_tcp(c, w))
		return mpi_tcp_reserve(w, payload);
	return mpi_ring_reserve(mpi_chan_ring_to(c, w), c->cap,
	                        mpi_wire_rec_bytes(payload), &c->head_cache[w]);
}

/* Publishes the record; wake: wake the ring's consumer now (a batch of
 * ring records wakes once at its end, with mpi_chan_wake). */
static inline void
mpi_chan_commit(struct mpi_chans *c, int w, struct mpi_wire *rec, bool wake)
{
	if (mpi_chan_tcp(c, w)) {
		mpi_tcp_commit(w, rec);
		return;
	}
	mpi_ring_commit(mpi_chan_ring_to(c, w), c->cap, rec);
	if (wake)
		mpi_wake_published(w);
}

static inline void
mpi_chan_wake(const struct mpi_chans *c, int w)
{
	if (!mpi_chan_tcp(c, w))
		mpi_wake_published(w);
}

/* The ring world rank s writes to this rank.  The engine reads it
 * itself (p2p.c, drain), so that its handler is inlined there. */
static inline struct mpi_ring_hdr *
mpi_chan_ring_from(const struct mpi_chans *c, int s)
{
	return mpi_job_ring(c->job, (uint32_t)c->me, (uint32_t)s);
}

/* The records that came on sockets go to handle (over TCP the rings
 * carry only a rank's messages to itself). */
static inline int
mpi_chans_poll_sockets(mpi_tcp_handler handle)
{
	return mpi_tcp_progress(handle);
}

/* Whether a socket still holds records it could not write yet. */
static inline bool
mpi_chans_backlogged(void)
{
	return mpi_tcp_backlogged();
}

/* The end (MPI_Finalize): over TCP, the peers' BYEs (their last records go
 * to handle), then the sockets close. */
static inline void
mpi_chans_close(mpi_tcp_handler handle)
{
	mpi_tcp_fini(handle);
}

#endif

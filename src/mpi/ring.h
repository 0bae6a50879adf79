/* Single-producer single-consumer byte rings in the job segment: the
 * eager path of the shared-memory transport.  Records are 64-byte aligned
 * (a 56-byte header, then the payload, so a message of up to 8 bytes is
 * one cache line); a record never wraps: when it does not fit before the
 * end, the producer fills the rest with a pad record.
 *
 * Publishing: the first word of a record's header is its stamp, the
 * record's position in the ring's byte stream plus one, stored last by
 * the producer.  The consumer polls the stamp at its head: the record and
 * its data arrive in the lines the consumer reads anyway, with no index
 * line between them (one line moves between the cores for a small
 * message, instead of three).  After reading a record, the consumer zeroes
 * the first word of each of its lines before it gives the space back
 * (store-release of head), so no stale word in the ring (an old stamp, or
 * payload bytes) can pass for a stamp where a later record will start. */
#ifndef GROVE_MPI_RING_H
#define GROVE_MPI_RING_H

#include <stddef.h>
#include <stdint.h>

#include "mpi/job.h"

/* Record types. */
enum mpi_wire_type {
	MPI_W_PAD = 1,   /* skip to the ring's start */
	MPI_W_EAGER,     /* a whole message in the payload */
	MPI_W_RTS,       /* rendezvous: "read bytes at addr of my pid" */
	MPI_W_FIN,       /* rendezvous done (receiver read it): sreq */
	MPI_W_ACK,       /* synchronous eager send matched: sreq */
	MPI_W_CTS,       /* no CMA: "send me sreq's data, as rreq" */
	MPI_W_DATA,      /* no CMA: a chunk of rreq's data at offset */
	MPI_W_BYE,       /* TCP only: the sender's last record (tcp_chan.h) */
};

#define MPI_W_F_SYNC 0x1 /* the sender waits for MPI_W_ACK (Ssend) */
/* MPI_W_BYE: the sender is ending the job because it lost world rank
 * `src` (tcp_chan.c), not finalizing. */
#define MPI_W_F_ABORT 0x2

/* The header of a record (56 bytes; the payload follows it).  The two
 * request words mean, by type: EAGER, RTS, FIN, ACK: sreq = the sender's
 * request; RTS: addr = where its data is; CTS: sreq = the sender's
 * request, addr = the receiver's; DATA: sreq = the receiver's request,
 * addr = the chunk's offset. */
struct mpi_wire {
	uint64_t stamp;     /* position + 1 once published; 0 when free */
	uint32_t rec_bytes; /* whole record, multiple of 64 */
	uint8_t type;
	uint8_t flags;
	uint16_t reserved;
	uint32_t ctx;       /* context id (communicator, p2p or coll) */
	int32_t src;        /* the sender's rank in that communicator */
	int32_t tag;
	uint32_t reserved2;
	uint64_t bytes;     /* message bytes (EAGER/RTS/CTS), chunk bytes (DATA) */
	uint64_t sreq;
	uint64_t addr;
};
_Static_assert(sizeof(struct mpi_wire) == 56, "wire header is 56 bytes");

#define MPI_WIRE_HDR 56u

static inline uint32_t
mpi_wire_rec_bytes(size_t payload)
{
	return (uint32_t)((MPI_WIRE_HDR + payload + 63) & ~(size_t)63);
}

/* Producer: a place for a record of rec_bytes, or NULL when the ring is
 * full (then the producer sets the ring's space-wanted flag so the
 * consumer wakes it).  *head_cache is the producer's copy of the
 * consumer's head (0 at first): the shared head, a line the consumer
 * writes, is read only when the copy says the record does not fit.
 * Commit with mpi_ring_commit. */
struct mpi_wire *mpi_ring_reserve(struct mpi_ring_hdr *r, uint32_t cap,
                                  uint32_t rec_bytes, uint64_t *head_cache);
/* Publishes the record (its stamp) with a sequentially consistent
 * store: a full barrier, so the producer may then read the consumer's
 * sleeping flag (mpi_wake_published) without a fence of its own. */
void mpi_ring_commit(struct mpi_ring_hdr *r, uint32_t cap,
                     struct mpi_wire *w);

/* Consumer: the oldest record, or NULL when the ring is empty. */
struct mpi_wire *mpi_ring_peek(struct mpi_ring_hdr *r, uint32_t cap);
/* Frees the record peek returned (zeroing the first word of its lines,
 * see above). */
void mpi_ring_release(struct mpi_ring_hdr *r, uint32_t cap,
                      struct mpi_wire *w);
/* After a batch of releases: true when the producer asked to be woken
 * for space (the flag is cleared).  No fence: a producer that set the
 * flag just after this look finds the space itself when it retries,
 * and one that sleeps first sleeps briefly (see wake.c). */
int mpi_ring_space_wanted(struct mpi_ring_hdr *r);

#endif

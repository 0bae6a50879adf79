/* Single-producer single-consumer byte rings in the job segment: the
 * eager path of the shared-memory transport.  Records are 64-byte aligned
 * (a header line, then the payload); a record never wraps: when it does
 * not fit before the end, the producer fills the rest with a pad record.
 * The producer publishes with a store-release of tail, the consumer
 * frees with a store-release of head. */
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
};

#define MPI_W_F_SYNC 0x1 /* the sender waits for MPI_W_ACK (Ssend) */

/* The header line of a record (64 bytes). */
struct mpi_wire {
	uint32_t rec_bytes; /* whole record, multiple of 64 */
	uint8_t type;
	uint8_t flags;
	uint16_t reserved;
	uint32_t ctx;       /* context id (communicator, p2p or coll) */
	int32_t src;        /* the sender's rank in that communicator */
	int32_t tag;
	uint32_t reserved2;
	uint64_t bytes;     /* message bytes (EAGER/RTS), chunk bytes (DATA) */
	uint64_t sreq;      /* sender's request id */
	uint64_t rreq;      /* receiver's request id (CTS/DATA) */
	uint64_t addr;      /* RTS: address of the data; DATA: offset */
};
_Static_assert(sizeof(struct mpi_wire) <= 64, "wire header is one line");

#define MPI_WIRE_HDR 64u

static inline uint32_t
mpi_wire_rec_bytes(size_t payload)
{
	return (uint32_t)((MPI_WIRE_HDR + payload + 63) & ~(size_t)63);
}

/* Producer: a place for a record of rec_bytes, or NULL when the ring is
 * full (then the producer sets the ring's space-wanted flag so the
 * consumer wakes it).  Commit with mpi_ring_commit. */
struct mpi_wire *mpi_ring_reserve(struct mpi_ring_hdr *r, uint32_t cap,
                                  uint32_t rec_bytes);
void mpi_ring_commit(struct mpi_ring_hdr *r, uint32_t cap,
                     struct mpi_wire *w);

/* Consumer: the oldest record, or NULL when the ring is empty. */
struct mpi_wire *mpi_ring_peek(struct mpi_ring_hdr *r, uint32_t cap);
/* Frees the record peek returned. */
void mpi_ring_release(struct mpi_ring_hdr *r, uint32_t cap,
                      struct mpi_wire *w);
/* After a batch of releases: true when the producer asked to be woken
 * for space (the flag is cleared). */
int mpi_ring_space_wanted(struct mpi_ring_hdr *r);

#endif

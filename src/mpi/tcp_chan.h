/* The TCP transport of Grove MPI: one socket per pair of ranks that talk,
 * carrying the same records as the shared-memory rings (struct mpi_wire,
 * ring.h), so that p2p.c keeps one matching engine for both.
 *
 *   set-up     grove run sets GROVE_MPI_TRANSPORT=tcp (--transport tcp,
 *              or --hosts): before the wire-up every rank listens on an
 *              ephemeral port (GROVE_MPI_TCP_ADDR, else the address of
 *              GROVE_MPI_TCP_HOST, else 127.0.0.1) and its card carries
 *              "address:port" (wireup.c); the cards tell each rank where
 *              every peer listens (mpi_tcp_set_peer).
 *   connect    lazily, at the first record for a peer.  A handshake
 *              (tcp_hs.c) carries the job id and both ranks and, when
 *              the launcher's connection file holds a secret, proves a
 *              key derived from it both ways (HMAC-SHA256 over fresh
 *              nonces).  Two ranks that connect to each other at once
 *              keep the connection the lower rank made.
 *   sending    records are appended to the peer's send queue and written
 *              with non-blocking send(); what the socket does not take
 *              waits there.  A queue above MPI_TCP_HWM refuses new
 *              records (mpi_tcp_reserve returns NULL), which p2p.c's
 *              outboxes absorb as they do a full ring: back-pressure.
 *   protocols  eager up to mpi_tcp_eager() bytes; larger messages by
 *              rendezvous: RTS, the receiver's CTS once matched, then DATA
 *              records of MPI_TCP_CHUNK bytes (never process_vm_readv).
 *   waiting    mpi_tcp_wait: poll() on the listener and every socket.
 *   end        mpi_tcp_fini (MPI_Finalize): BYE to every connected peer,
 *              then read until each peer's BYE, then close.  A connection
 *              that breaks before its BYE ends this rank with a message
 *              naming the peer (and so the job).
 *
 * Byte order: records go as the sender's memory holds them; every host
 * of a job must share one byte order (the handshake's magic number
 * catches a mismatch). */
#ifndef GROVE_MPI_TCP_CHAN_H
#define GROVE_MPI_TCP_CHAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "mpi/ring.h"

/* Eager limit over TCP unless GROVE_MPI_TCP_EAGER says otherwise. */
#define MPI_TCP_EAGER_DEFAULT (64u * 1024u)
#define MPI_TCP_EAGER_MAX (1u << 20)
/* Payload of one rendezvous DATA record. */
#define MPI_TCP_CHUNK (256u * 1024u)
/* Bytes a peer's send queue may hold before new records are refused. */
#define MPI_TCP_HWM (8u << 20)

/* Reads GROVE_MPI_TRANSPORT; for "tcp" opens the listener.  0 (also when
 * the transport is shared memory), or -1 with a message in err. */
int mpi_tcp_setup(int rank, int size, const char *jobid, char *err,
                  size_t errlen);
/* Whether every peer is reached over TCP. */
bool mpi_tcp_active(void);
/* "address:port" of this rank's listener, or "-" without TCP. */
const char *mpi_tcp_endpoint(void);
/* Where rank listens (from its card) and its host's name (for
 * messages): 0, or -1 with a message in err. */
int mpi_tcp_set_peer(int rank, const char *endpoint, const char *host,
                     char *err, size_t errlen);
uint32_t mpi_tcp_eager(void);

/* Room for a record of `payload` bytes to world rank w: the header is
 * zeroed but for rec_bytes.  NULL when w's send queue is over the
 * high-water mark (retry after progress). */
struct mpi_wire *mpi_tcp_reserve(int w, size_t payload);
/* Queues the record reserve returned and writes what the socket takes
 * (connecting first if needed). */
void mpi_tcp_commit(int w, struct mpi_wire *rec);

/* Called for each record that arrives, with the sender's world rank. */
typedef void (*mpi_tcp_handler)(const struct mpi_wire *rec, int src_world);
/* One pass: accepts, handshakes, reads and hands over complete records,
 * writes queued bytes.  Returns the number of things that happened. */
int mpi_tcp_progress(mpi_tcp_handler h);
/* Whether some peer's send queue still holds bytes. */
bool mpi_tcp_backlogged(void);
/* Sleeps in poll() until a socket is ready or timeout_ms passed: >0 when
 * something is ready, 0 on timeout. */
int mpi_tcp_wait(int timeout_ms);
/* MPI_Finalize, after the final barrier and quiesce: BYE, wait for the
 * peers' BYE, close everything. */
void mpi_tcp_fini(mpi_tcp_handler h);
/* One line for GROVE_MPI_VERBOSE. */
void mpi_tcp_say(FILE *f);

#endif

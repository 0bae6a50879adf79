/* The point-to-point engine (p2p.c) as the API files (p2p_api.c,
 * request.c, init.c) see it. */
#ifndef GROVE_MPI_P2P_H
#define GROVE_MPI_P2P_H

#include "mpi/mpi_impl.h"

/* Request protocol states. */
enum mpi_req_state {
	MPI_RS_IDLE = 0,
	MPI_RS_SEND_QUEUED,   /* in the outbox of its destination */
	MPI_RS_SEND_WAIT_ACK, /* synchronous eager: waits for MPI_W_ACK */
	MPI_RS_SEND_WAIT_FIN, /* rendezvous: waits for the receiver's read */
	MPI_RS_SEND_CHUNKS,   /* rendezvous without CMA: sending chunks */
	MPI_RS_RECV_POSTED,   /* in the posted-receive queue */
	MPI_RS_RECV_CHUNKS,   /* rendezvous without CMA: taking chunks */
	MPI_RS_DONE,
};

/* A message that arrived before its receive was posted (also what
 * MPI_Mprobe hands out as an MPI_Message). */
struct mpi_unexp {
	struct mpi_unexp *next, *prev;
	int type;             /* MPI_W_EAGER or MPI_W_RTS */
	uint8_t flags;
	uint32_t ctx;
	int src, tag;         /* in the communicator */
	int src_world;
	uint64_t bytes, sreq, addr;
	void *data;           /* eager: a copy of the payload */
};

/* Set-up after the job segment is attached and the peers' pids known
 * (pids[world rank]); fini frees what is left. */
int mpi_p2p_init(struct mpi_job *job, int rank, int size, const int *pids);
void mpi_p2p_fini(void);
/* Whether something this rank sends waits for room in a ring (the
 * consumer wakes it without a fence, see ring.h: such a wait sleeps in
 * short naps). */
bool mpi_p2p_waits_for_space(void);
/* Whether large messages move with process_vm_readv (else through the
 * rings), and why not. */
bool mpi_p2p_cma(const char **why);

/* Starts the operation a request describes (fields comm, peer, tag, ctx,
 * buf, count, dt, mode): MPI_SUCCESS or an error class (nothing started).
 * peer is a rank of comm (not MPI_PROC_NULL). */
int mpi_p2p_start_send(MPI_Request req);
int mpi_p2p_start_recv(MPI_Request req);
/* Removes a posted, unmatched receive: true when it was cancelled. */
bool mpi_p2p_cancel_recv(MPI_Request req);
/* The oldest unexpected message matching (ctx, src, tag), after one pass
 * of progress; removed from the queue when take is true. */
struct mpi_unexp *mpi_p2p_probe(uint32_t ctx, int src, int tag, bool take);
/* Receives a message taken with mpi_p2p_probe into req (MPI_Mrecv). */
int mpi_p2p_recv_taken(MPI_Request req, struct mpi_unexp *u);
/* Marks req complete (status filled by the caller) and frees it when the
 * user already released it. */
void mpi_request_complete(MPI_Request req);

/* Progresses until nothing this rank sent waits in an outbox or in a
 * chunked transfer (MPI_Finalize). */
void mpi_p2p_quiesce(void);

/* Sets a status for a request that had nothing to do (MPI_PROC_NULL). */
void mpi_status_empty(MPI_Status *st, int source);

#endif

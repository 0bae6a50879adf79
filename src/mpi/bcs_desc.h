/* BCS mode: the contract between a rank (libgrove-mpi) and its host's
 * node manager (grove-bcs-node), both of which map the job segment.
 *
 * In BCS mode (grove run --bcs) a rank never moves data itself.  Every
 * communication call posts a descriptor into the rank's descriptor ring
 * (rank -> node manager) and returns (non-blocking calls) or sleeps on
 * the rank's futex (blocking calls).  Once per time slice the node
 * manager drains every ring (descriptor exchange microphase, DEM),
 * matches sends with receives in a fixed order (message scheduling, MSM),
 * moves the data with process_vm_readv/writev (point-to-point microphase)
 * and runs the collectives whose members have all posted (broadcast and
 * barrier, then reduce microphases).  Each finished operation becomes a
 * completion record in the rank's completion ring (node manager -> rank)
 * and a wake-up of the rank (mpi_wake on its ctl word).
 *
 * Both rings are the SPSC byte rings of ring.h; a record is a struct
 * mpi_wire of type MPI_W_BCS whose payload is one struct bcs_desc
 * (rank -> node manager) or one struct bcs_done (node manager -> rank).
 * The rings of rank r are in the job segment's BCS area (job.h):
 * mpi_job_bcs_to_nm(job, r) and mpi_job_bcs_from_nm(job, r), each of
 * hdr->bcs_ring_bytes data bytes.  A full descriptor ring makes the rank
 * wait for the next slice (the node manager drains it and wakes it).
 *
 * Addresses are in the posting rank's address space; the node manager
 * reads and writes them with process_vm_readv/writev (the rank allows it
 * with PR_SET_PTRACER in MPI_Init).  Buffers are contiguous: a rank packs
 * a non-contiguous send into a temporary buffer before posting, and
 * receives a non-contiguous message into one, unpacking at completion.
 * Buffers must stay valid until the completion arrives (MPI's rule for
 * requests; blocking calls sleep until then).
 *
 * Ordering and determinism: descriptors are handled in slice order, then
 * by the posting rank's world rank, then in posting order.  Matching
 * follows MPI's rules (non-overtaking per source, tag and context) on
 * that order, so timing differences smaller than a slice never change a
 * match.
 */
#ifndef GROVE_MPI_BCS_DESC_H
#define GROVE_MPI_BCS_DESC_H

#include <stdint.h>

/* Record type of BCS descriptors and completions in the rings (the
 * direct mode's types are in ring.h and end below it). */
#define MPI_W_BCS 32

#define BCS_DESC_VERSION 1

enum bcs_desc_kind {
	/* Point-to-point.  ctx = the communicator's ctx_p2p (or ctx_coll for
	 * the collectives' internal traffic), me = the poster's rank in that
	 * communicator. */
	BCS_D_SEND = 1,   /* peer_world = destination; peer = its comm rank;
	                     tag; bytes at addr */
	BCS_D_RECV,       /* peer = source comm rank or -1 (MPI_ANY_SOURCE),
	                     peer_world = its world rank or -1; tag or -1
	                     (MPI_ANY_TAG); capacity bytes at addr */
	BCS_D_CANCEL,     /* cancel the receive `req` (if still unmatched) */
	BCS_D_PROBE,      /* is there a message (ctx, peer, tag) for me?
	                     flags BCS_F_BLOCKING: answer only once there is
	                     one (MPI_Probe); else answer in the next slice,
	                     yes or no (MPI_Iprobe).  BCS_F_TAKE: also take
	                     it (MPI_Mprobe/Improbe): it then matches only a
	                     BCS_D_RECV with BCS_F_TAKEN whose addr2 is the
	                     probe's req id (MPI_Mrecv of that message). */
	/* Collectives run by the node manager: all members post one with
	 * the same ctx (the communicator's ctx_coll) and seq (its coll_seq
	 * for this collective); the node manager runs it when it has all
	 * `size` of them. */
	BCS_D_BARRIER,
	BCS_D_BCAST,      /* root; bytes at addr (root: source; others: target) */
	BCS_D_REDUCE,     /* root; op/basic/count; sendbuf addr, recvbuf addr2
	                     (root only); bytes = count * element size */
	BCS_D_ALLREDUCE,  /* op/basic/count; sendbuf addr, recvbuf addr2 */
	/* Bookkeeping for --record: the outcome of a test or probe call that
	 * returned true (the node manager writes it with the slice): seq =
	 * the rank's test-family call number k, peer = the call's enum
	 * mpi_fn, count = how many completed, addr = bitmask of their
	 * indices (first 64), peer_world = a probe's message source (comm
	 * rank), tag = its tag.  No completion. */
	BCS_D_NOTE,
	/* The rank is in MPI_Finalize with nothing outstanding.  No
	 * completion. */
	BCS_D_FINALIZE,
};

enum bcs_desc_flags {
	BCS_F_BLOCKING = 0x1, /* the poster sleeps until it completes (counts
	                         in BPTS; MMDS) */
	BCS_F_TAKE = 0x2,     /* probe: take the message (matched probe) */
	BCS_F_TAKEN = 0x4,    /* recv of a message taken by a probe: addr2 =
	                         that probe's req id */
	BCS_F_SYNC = 0x8,     /* MPI_Ssend (BCS sends always complete after
	                         the transfer, so this is informational) */
	BCS_F_IN_PLACE = 0x10,/* reduce/allreduce: MPI_IN_PLACE (the data is
	                         at addr2) */
};

/* What the posting rank asks for: 64 bytes. */
struct bcs_desc {
	uint8_t kind;        /* enum bcs_desc_kind */
	uint8_t flags;       /* enum bcs_desc_flags */
	uint8_t op;          /* reduce: predefined op index (op.h MPI_OPI_*) */
	uint8_t basic;       /* reduce: enum mpi_basic of the elements */
	uint32_t ctx;        /* context id */
	int32_t me;          /* poster's rank in the communicator */
	int32_t peer;        /* see the kinds; root for rooted collectives */
	int32_t peer_world;  /* world rank of peer, or -1 */
	int32_t tag;         /* tag, -1 = any; collectives: comm size */
	uint32_t seq;        /* collectives: the collective's number on the
	                        communicator; NOTE: the call number */
	uint32_t count;      /* reduce: elements; NOTE: the result */
	uint64_t bytes;      /* message bytes / receive capacity */
	uint64_t addr;       /* buffer (send / receive / reduce send) */
	uint64_t addr2;      /* reduce: receive buffer */
	uint64_t req;        /* the poster's id for the completion */
};
_Static_assert(sizeof(struct bcs_desc) == 64, "a descriptor is 64 bytes");

/* What the node manager reports: 40 bytes. */
struct bcs_done {
	uint64_t req;        /* the poster's id */
	uint64_t bytes;      /* received bytes (recv), message bytes (probe) */
	uint64_t slice;      /* the slice it completed in */
	int32_t source;      /* recv/probe: sender's comm rank */
	int32_t tag;         /* recv/probe: the message's tag */
	int32_t error;       /* 0, or an MPI error class (MPI_ERR_TRUNCATE:
	                        the message was larger than the capacity; only
	                        capacity bytes were written) */
	uint8_t kind;        /* the descriptor's kind */
	uint8_t found;       /* probe: 1 a message is there, 0 none (Iprobe);
	                        cancel: 1 cancelled */
	uint8_t pad_[2];
};
_Static_assert(sizeof(struct bcs_done) == 40, "a completion is 40 bytes");

#endif

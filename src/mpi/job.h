/* The job segment: one shared-memory file per Grove MPI job on a host,
 * made by the launcher (grove run) before it starts the ranks, which
 * inherit its descriptor (GROVE_MPI_JOB_FD); a singleton makes its own.
 * It has no name in /dev/shm, so nothing of it outlives the job's last
 * process, whatever kills it.
 *
 * Layout (offsets in the header):
 *   header       sizes, abort word, job id
 *   ctl[n]       per rank: futex word and sleeping flag (one cache line
 *                that peers write), state, pid (another line)
 *   stats[n]     per rank: call statistics, read by the launcher at exit
 *   coll         shared-memory collectives of MPI_COMM_WORLD: a header
 *                page, then MPI_JOB_COLL_SLOT bytes per rank (coll_shm.c)
 *   rings[n][n]  rings[dst][src]: the single-producer single-consumer
 *                byte ring from src to dst (ring.c)
 *   bcs[n]       BCS mode only (grove run --bcs): per rank, its descriptor
 *                ring to the node manager, then its completion ring from
 *                it (bcs_desc.h); absent (bcs_ring_bytes 0) in direct mode
 * A zero-filled segment is a valid initial state apart from the header.
 */
#ifndef GROVE_MPI_JOB_H
#define GROVE_MPI_JOB_H

#include <stddef.h>
#include <stdint.h>

#include "mpi/mpi_stats_layout.h"

#define MPI_JOB_MAGIC 0x47726f76654d5049ull /* "GroveMPI" */
#define MPI_JOB_VERSION 2
/* Shared-memory collective area: one 4 KiB header page, then one slot
 * per rank. */
#define MPI_JOB_COLL_HDR 4096
#define MPI_JOB_COLL_SLOT 16384

enum mpi_rank_state {
	MPI_RANK_NONE = 0,     /* not started or before MPI_Init */
	MPI_RANK_INIT = 1,     /* in MPI_Init */
	MPI_RANK_RUNNING = 2,  /* between MPI_Init and MPI_Finalize */
	MPI_RANK_FINALIZED = 3,/* MPI_Finalize returned */
	MPI_RANK_ABORTED = 4,  /* called MPI_Abort or died of a fatal error */
};

struct mpi_job_hdr {
	uint64_t magic;
	uint32_t version;
	uint32_t nranks;
	uint64_t size;          /* bytes of the whole segment */
	uint32_t ring_bytes;    /* data bytes of each ring (power of two) */
	uint32_t eager_limit;   /* largest payload sent eagerly */
	uint64_t ctl_off, stats_off, coll_off, rings_off;
	uint64_t stats_stride;  /* bytes per rank in stats */
	uint64_t bcs_off;       /* BCS rings (0 in direct mode) */
	uint32_t bcs_ring_bytes;/* data bytes of each BCS ring, 0: direct mode */
	/* BCS mode: the node manager's pid (it sets it once it has mapped
	 * the segment; ranks wait for it in MPI_Init) and its state word. */
	int32_t bcs_nm_pid;
	/* First MPI_Abort wins: rank + 1 (0 = none) and its code. */
	int32_t abort_rank1;
	int32_t abort_code;
	char jobid[40];
};

struct mpi_rank_ctl {
	/* Written by peers: the wake-up word (incremented by each waker) and
	 * whether this rank sleeps (or is about to) on it. */
	uint32_t wake_seq;
	uint32_t sleeping;
	char pad0_[56];
	/* Written by the rank itself. */
	int32_t state;          /* enum mpi_rank_state */
	int32_t pid;
	uint64_t probe_addr;    /* a word peers read to check CMA */
	uint64_t probe_value;
	char pad1_[40];
};

struct mpi_ring_hdr {
	uint64_t head;          /* bytes consumed (consumer writes) */
	uint32_t want_space;    /* producer found it full: wake it (set by
	                           the producer, cleared by the consumer) */
	char pad0_[52];
	uint64_t tail;          /* bytes produced (producer writes) */
	char pad1_[56];
};

struct mpi_job {
	struct mpi_job_hdr *hdr;
	void *base;
	size_t size;
	int fd;
};

/* The ring size and eager limit the job uses for n ranks (smaller rings
 * for larger jobs: n * n of them).  GROVE_MPI_EAGER_LIMIT overrides the
 * eager limit (capped at a quarter of the ring). */
uint32_t mpi_job_ring_bytes(uint32_t nranks);

/* Makes a job segment for nranks (memfd, close-on-exec; the launcher
 * clears that flag in each child): 0 or -errno.  bcs_ring_bytes > 0 (a
 * power of two, at least 4096) adds the BCS area (grove run --bcs). */
int mpi_job_create(struct mpi_job *job, uint32_t nranks, const char *jobid,
                   uint32_t bcs_ring_bytes);
/* The same on a file the caller opened (a named segment, boot_shm.c):
 * sizes and formats it; on success the job owns fd, on failure the
 * caller still does. */
int mpi_job_create_fd(struct mpi_job *job, int fd, uint32_t nranks,
                      const char *jobid, uint32_t bcs_ring_bytes);
/* The BCS ring size grove run --bcs uses. */
#define MPI_JOB_BCS_RING_BYTES (64u * 1024u)
/* Maps an inherited segment and checks its header: 0, or -1 with a
 * message in err naming what is wrong. */
int mpi_job_attach(struct mpi_job *job, int fd, char *err, size_t errlen);
void mpi_job_close(struct mpi_job *job);

static inline struct mpi_rank_ctl *
mpi_job_ctl(const struct mpi_job *job, uint32_t rank)
{
	return (struct mpi_rank_ctl *)((char *)job->base + job->hdr->ctl_off) +
	       rank;
}
static inline struct mpi_rank_stats *
mpi_job_stats(const struct mpi_job *job, uint32_t rank)
{
	return (struct mpi_rank_stats *)((char *)job->base +
	                                 job->hdr->stats_off +
	                                 rank * job->hdr->stats_stride);
}
static inline struct mpi_ring_hdr *
mpi_job_ring(const struct mpi_job *job, uint32_t dst, uint32_t src)
{
	size_t one = sizeof(struct mpi_ring_hdr) + job->hdr->ring_bytes;
	return (struct mpi_ring_hdr *)((char *)job->base + job->hdr->rings_off +
	                               ((size_t)dst * job->hdr->nranks + src) * one);
}
static inline void *
mpi_job_coll_hdr(const struct mpi_job *job)
{
	return (char *)job->base + job->hdr->coll_off;
}
static inline void *
mpi_job_coll_slot(const struct mpi_job *job, uint32_t rank)
{
	return (char *)job->base + job->hdr->coll_off + MPI_JOB_COLL_HDR +
	       (size_t)rank * MPI_JOB_COLL_SLOT;
}
/* BCS mode: rank r's descriptor ring (rank -> node manager) and
 * completion ring (node manager -> rank). */
static inline struct mpi_ring_hdr *
mpi_job_bcs_to_nm(const struct mpi_job *job, uint32_t rank)
{
	size_t one = sizeof(struct mpi_ring_hdr) + job->hdr->bcs_ring_bytes;
	return (struct mpi_ring_hdr *)((char *)job->base + job->hdr->bcs_off +
	                               (size_t)rank * 2 * one);
}
static inline struct mpi_ring_hdr *
mpi_job_bcs_from_nm(const struct mpi_job *job, uint32_t rank)
{
	size_t one = sizeof(struct mpi_ring_hdr) + job->hdr->bcs_ring_bytes;
	return (struct mpi_ring_hdr *)((char *)job->base + job->hdr->bcs_off +
	                               ((size_t)rank * 2 + 1) * one);
}
static inline char *
mpi_ring_data(struct mpi_ring_hdr *r)
{
	return (char *)(r + 1);
}

#endif

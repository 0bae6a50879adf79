/* The node manager's internal state, shared by its nm_*.c files. */
#ifndef GROVE_BCSNODE_NM_IMPL_H
#define GROVE_BCSNODE_NM_IMPL_H

#include <sys/types.h>

#include "mpi/bcs_desc.h"
#include "mpi/job.h"
#include "nm.h"

/* A send the node manager knows of: waiting in its destination's
 * unexpected queue, taken by a matched probe, or being moved. */
struct nm_msg {
	struct nm_msg *next;
	struct bcs_desc d;
	int src;                 /* world rank of the sender */
	uint64_t taken_by;       /* req id of the probe that took it, 0 */
};

/* A posted receive. */
struct nm_rq {
	struct nm_rq *next;
	struct bcs_desc d;
	int64_t wild_k;          /* its number among the rank's MPI_ANY_SOURCE
	                            receives, or -1 */
};

/* A matched pair being moved, possibly over several slices. */
struct nm_xfer {
	struct nm_xfer *next;
	struct nm_msg *msg;      /* owned */
	struct bcs_desc recv;
	int dst;                 /* world rank of the receiver */
	uint64_t len, moved;     /* bytes to move (min of size, capacity) */
};

/* A collective: the descriptors of its members as they arrive. */
struct nm_coll {
	struct nm_coll *next;
	uint32_t ctx, seq;
	int kind;                /* BCS_D_BARRIER ... */
	int size, have;
	struct bcs_desc *d;      /* [comm rank] */
	int *world;              /* [comm rank] -> world rank, -1 until in */
	bool scheduled;
};

/* A blocking probe waiting for its message. */
struct nm_probe {
	struct nm_probe *next;
	struct bcs_desc d;
	int rank;
};

struct nm_queue_msg { struct nm_msg *head, **tail; };
struct nm_queue_rq { struct nm_rq *head, **tail; };

struct nm_rank {
	pid_t pid;
	struct mpi_ring_hdr *to_nm, *from_nm;
	uint64_t head_cache;             /* completion ring producer side */
	struct bcs_desc *fresh;          /* drained this slice, in order */
	size_t nfresh, capfresh;
	struct nm_queue_msg unexpected;  /* sends to this rank, unmatched */
	struct nm_msg *taken;            /* messages taken by its probes */
	struct nm_queue_rq posted;       /* its receives, unmatched */
	struct nm_probe *probes;         /* its blocking probes */
	struct bcs_done *overflow;       /* completions the ring had no room
	                                    for yet, in order */
	size_t nover, capover;
	bool wake;                       /* completions published: wake it */
	int blocking;                    /* outstanding blocking descriptors */
	int64_t wild_k;                  /* MPI_ANY_SOURCE receives posted */
	bool finalized;
};

struct nm {
	struct nm_opts o;
	struct mpi_job job;
	int n;                           /* ranks of the job (all local) */
	struct nm_rank *r;
	struct nm_xfer *xfers, **xfers_tail;
	struct nm_coll *colls;
	int coll_ready[3];               /* scheduled this slice: barrier/
	                                    bcast, reduce */
	char *bounce;                    /* CMA goes through it */
	size_t bounce_bytes;
	FILE *record;
	uint64_t slice;
	uint64_t idle_slices;            /* in a row with everyone waiting */
	bool progressed;                 /* something happened this slice */
	bool oom;                        /* a completion could not be kept */
};

/* nm_state.c */
/* Queues a completion for world rank r (ring, or overflow when full). */
void nm_complete(struct nm *nm, int r, const struct bcs_desc *d,
                 const struct bcs_done *dn);
/* Publishes overflowed completions and wakes the ranks that got any. */
void nm_flush(struct nm *nm);
/* Reports a problem that ends the job ("grove-bcs-node: ..."). */
void nm_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* nm_dem.c */
void nm_dem(struct nm *nm, struct nm_counts *c);
/* nm_match.c */
int nm_msm(struct nm *nm, struct nm_counts *c, char *err, size_t errlen);
/* nm_xfer.c: moves what the slice's budget allows; -1 with err when a
 * transfer cannot be done at all. */
int nm_p2p(struct nm *nm, char *err, size_t errlen);
/* Moves len bytes from (spid, saddr) to (dpid, daddr) through the
 * bounce buffer: 0, or -errno. */
int nm_cma_copy(struct nm *nm, pid_t spid, uint64_t saddr, pid_t dpid,
                uint64_t daddr, uint64_t len);
int nm_cma_read(pid_t pid, uint64_t addr, void *buf, uint64_t len);
int nm_cma_write(pid_t pid, uint64_t addr, const void *buf, uint64_t len);
/* nm_coll.c */
int nm_coll_add(struct nm *nm, int rank, const struct bcs_desc *d,
                char *err, size_t errlen);
int nm_coll_schedule(struct nm *nm, struct nm_counts *c);
int nm_coll_run(struct nm *nm, enum nm_phase ph, char *err, size_t errlen);
/* nm_record.c */
int nm_record_open(struct nm *nm, char *err, size_t errlen);
void nm_record_wild(struct nm *nm, int rank, int64_t k, int source);
void nm_record_note(struct nm *nm, int rank, const struct bcs_desc *d);
void nm_record_close(struct nm *nm);
/* nm_stall.c: -1 with a report in err when every rank has waited for
 * o.stall_slices slices with nothing the node manager can do. */
int nm_stall_check(struct nm *nm, char *err, size_t errlen);

#endif

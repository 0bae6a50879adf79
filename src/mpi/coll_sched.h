/* Collectives as schedules (coll_sched.c) and the helpers the coll_*.c
 * files share.
 *
 * A schedule is a list of steps built once, when the collective is
 * called, then run by the progress engine:
 *   send / recv  non-blocking point-to-point on the communicator's
 *                ctx_coll with tag = the collective's sequence number
 *   copy, reduce local steps on buffers
 *   fence        waits until every send and receive posted before it has
 *                completed
 * Steps between two fences form a round: its sends and receives are
 * posted together and its local steps run in order as they are reached,
 * so a local step that follows a fence sees the data of that round.
 * Because every step is fixed at build time, buffers are chosen while
 * building (double buffering is a matter of swapping two pointers in the
 * builder); temporary buffers come from mpi_sched_alloc and live as long
 * as the schedule.
 *
 * A blocking collective builds a schedule and runs it to the end
 * (mpi_sched_run); a non-blocking one starts it and returns a request of
 * kind MPI_REQ_COLL that mpi_sched_progress_all advances (mpi_sched_start).
 * Both ways are the same code, so MPI_Ixxx and MPI_Xxx always agree.
 */
#ifndef GROVE_MPI_COLL_SCHED_H
#define GROVE_MPI_COLL_SCHED_H

#include "mpi/mpi_impl.h"

enum mpi_step_kind {
	MPI_STEP_SEND = 1,
	MPI_STEP_RECV,
	MPI_STEP_COPY,   /* src (scount of sdt) -> dst (dcount of ddt) */
	MPI_STEP_REDUCE, /* dst = src op dst, count items of dt */
	MPI_STEP_FENCE,
};

struct mpi_step {
	enum mpi_step_kind kind;
	int peer;                 /* send/recv: rank in comm */
	const void *src;          /* send buffer, copy/reduce source */
	void *dst;                /* recv buffer, copy/reduce destination */
	size_t count, dcount;
	MPI_Datatype dt, ddt;
	MPI_Op op;
	int mode;                 /* send: 0 (MPI_Isend) or MPI_FN_Send */
};

struct mpi_sched_buf {
	struct mpi_sched_buf *next;
	/* the data follows, aligned for any basic type */
	_Alignas(16) unsigned char data[];
};

struct mpi_sched {
	MPI_Comm comm;
	int tag;                  /* the comm's coll_seq when it was made */
	enum mpi_fn fn;           /* for error messages */
	struct mpi_step *steps;
	size_t nsteps, cap;
	size_t next;              /* next step to run */
	MPI_Request *pending;     /* requests of the current round */
	size_t npending, pcap;
	struct mpi_sched_buf *bufs;
	int err;                  /* first error (build or run) */
	bool started, finished;
	MPI_Request req;          /* non-blocking: the user's request */
	struct mpi_sched *prev_active, *next_active;
};

/* Makes an empty schedule for the next collective on comm: takes the
 * collective's tag (comm->coll_seq, then increments it), so it must be
 * called exactly once per collective call on every rank, errors aside.
 * Tags are coll_seq & 0x3fffffff: tags from 0x40000000 up on ctx_coll
 * are left to comm.c's own exchanges.  NULL when out of memory. */
struct mpi_sched *mpi_sched_new(MPI_Comm comm, enum mpi_fn fn);
/* Frees a schedule that was never started. */
void mpi_sched_free(struct mpi_sched *s);

/* Builders.  They record an allocation failure in s->err and return
 * nothing; mpi_sched_run / mpi_sched_start report it. */
void mpi_sched_send(struct mpi_sched *s, const void *buf, size_t count,
                    MPI_Datatype dt, int peer);
/* A send posted as a blocking one (MPI_Send): the same over shared
 * memory; over the emulated WAN (wan_shaper.c) it completes when the
 * link has sent it, where a non-blocking one completes at once.  For
 * algorithms defined by their blocking sends (MagPIe's original). */
void mpi_sched_send_blocking(struct mpi_sched *s, const void *buf,
                             size_t count, MPI_Datatype dt, int peer);
void mpi_sched_recv(struct mpi_sched *s, void *buf, size_t count,
                    MPI_Datatype dt, int peer);
void mpi_sched_copy(struct mpi_sched *s, const void *src, size_t scount,
                    MPI_Datatype sdt, void *dst, size_t dcount,
                    MPI_Datatype ddt);
/* dst = src op dst (src holds the earlier ranks' contribution). */
void mpi_sched_reduce(struct mpi_sched *s, const void *src, void *dst,
                      size_t count, MPI_Datatype dt, MPI_Op op);
void mpi_sched_fence(struct mpi_sched *s);
/* A temporary buffer of `bytes`, freed with the schedule (NULL, with
 * s->err set, when out of memory). */
void *mpi_sched_alloc(struct mpi_sched *s, size_t bytes);
/* A temporary buffer for count items of dt laid out as in a user buffer:
 * the returned pointer is the items' origin (true_lb already subtracted). */
void *mpi_sched_tmpbuf(struct mpi_sched *s, size_t count, MPI_Datatype dt);

/* Runs a schedule to its end (a blocking collective) and frees it;
 * returns its error. */
int mpi_sched_run(struct mpi_sched *s);
/* Starts a schedule as a non-blocking collective: *req becomes a request
 * of kind MPI_REQ_COLL that completes when the schedule ends.  On error
 * the schedule is freed and *req is left alone. */
int mpi_sched_start(struct mpi_sched *s, MPI_Request *req);

/* ---- shared helpers (coll_sched.c) ---------------------------------- */

/* How every blocking collective waits: mpi_progress_until, preceded by
 * a few sched_yield()s when ranks outnumber cores (see COLL_YIELDS). */
void mpi_coll_wait(bool (*done)(void *), void *arg);

/* Local copy of scount items of sdt at src into dcount items of ddt at
 * dst (the type signatures match; the shorter one decides). */
void mpi_coll_copy(const void *src, size_t scount, MPI_Datatype sdt,
                   void *dst, size_t dcount, MPI_Datatype ddt);

/* Argument checks: 0, or the error reported through mpi_err (which may
 * end the job under MPI_ERRORS_ARE_FATAL) and returned. */
int mpi_coll_check_comm(MPI_Comm comm, enum mpi_fn fn);
int mpi_coll_check_count(MPI_Comm comm, enum mpi_fn fn, int count,
                         const char *what);
int mpi_coll_check_type(MPI_Comm comm, enum mpi_fn fn, MPI_Datatype dt,
                        const char *what);
int mpi_coll_check_root(MPI_Comm comm, enum mpi_fn fn, int root);
int mpi_coll_check_op(MPI_Comm comm, enum mpi_fn fn, MPI_Op op,
                      MPI_Datatype dt);
int mpi_coll_check_request(MPI_Comm comm, enum mpi_fn fn,
                           const MPI_Request *req);
/* count and datatype together (the usual pair). */
int mpi_coll_check_buf(MPI_Comm comm, enum mpi_fn fn, int count,
                       MPI_Datatype dt, const char *what);
/* MPI_IN_PLACE given where the standard does not allow it. */
int mpi_coll_err_in_place(MPI_Comm comm, enum mpi_fn fn, const char *what);

/* Byte count of count items of dt. */
static inline size_t
mpi_coll_bytes(size_t count, MPI_Datatype dt)
{
	return count * dt->size;
}
/* Address of item i of a buffer of dt. */
static inline void *
mpi_coll_at(const void *buf, MPI_Aint i, MPI_Datatype dt)
{
	return (char *)buf + i * dt->extent;
}
static inline int
mpi_coll_world(MPI_Comm comm, int r)
{
	return r < 0 ? -1 : mpi_comm_world_rank(comm, r);
}

/* Shared-memory fast path (coll_shm.c) for small collectives of
 * communicators spanning every rank of the job: 1 when it did the
 * collective (with its result in *rc), 0 when it does not apply (the
 * caller then runs a schedule).  Every rank takes the same decision
 * from arguments the standard requires to agree. */
int mpi_coll_shm_barrier(MPI_Comm comm, int *rc);
int mpi_coll_shm_bcast(void *buf, size_t count, MPI_Datatype dt, int root,
                       MPI_Comm comm, int *rc);
int mpi_coll_shm_reduce(const void *sendbuf, void *recvbuf, size_t count,
                        MPI_Datatype dt, MPI_Op op, int root, MPI_Comm comm,
                        int *rc);
int mpi_coll_shm_allreduce(const void *sendbuf, void *recvbuf, size_t count,
                           MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
                           int *rc);
/* sendbuf may be MPI_IN_PLACE (then stype/scount are not used). */
int mpi_coll_shm_allgather(const void *sendbuf, size_t scount,
                           MPI_Datatype stype, void *recvbuf, size_t rcount,
                           MPI_Datatype rtype, MPI_Comm comm, int *rc);
int mpi_coll_shm_alltoall(const void *sendbuf, size_t scount,
                          MPI_Datatype stype, void *recvbuf, size_t rcount,
                          MPI_Datatype rtype, MPI_Comm comm, int *rc);

/* The binomial reduce of coll_reduce.c (reduce_scatter builds on it):
 * sendbuf is the input (already MPI_IN_PLACE-resolved), recvbuf the
 * result at root only. */
void mpi_coll_build_reduce(struct mpi_sched *s, const void *sendbuf,
                           void *recvbuf, size_t count, MPI_Datatype dt,
                           MPI_Op op, int root);

#endif

/* Grove MPI internals: the objects behind the handles of mpi.h and the
 * interfaces between the modules of src/mpi/.
 *
 *   init.c        MPI_Init/Finalize/Abort, the process state, wire-up
 *   job.c         the job segment (shared memory made by the launcher)
 *   ring.c        single-producer/single-consumer byte rings in it
 *   wake.c        futex sleep/wake, spin policy
 *   p2p.c         send/recv protocols (eager, rendezvous with CMA or
 *                 copy-through-shm), matching queues, progress
 *   request.c     wait/test families, persistent requests, cancel
 *   datatype*.c   datatypes: construction, pack/unpack
 *   op.c          reduction operators
 *   coll_*.c      collectives as schedules of p2p steps
 *   comm.c, group.c, topo.c   communicators, groups, topologies
 *   errors.c      error classes, strings, handlers
 *   stats.c       per-call statistics and event-space collectors
 *   unsupported.c functions declared but not supported
 *   bcs_*.c       BCS mode (grove run --bcs): the node manager moves the
 *                 data, the rank posts descriptors (bcs_rank.h)
 *
 * Naming: internal functions carry the mpi_ prefix; public entry points
 * are the PMPI_ names (MPI_ names are weak aliases made by the build).
 * Threading: MPI_THREAD_SERIALIZED at most; the library's state is one
 * process-wide struct (mpi_proc), because MPI's own state is per process.
 */
#ifndef GROVE_MPI_IMPL_H
#define GROVE_MPI_IMPL_H

#include <grove/trace.h>
#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- function ids (generated from grove_mpi_functions.h) ------------ */
enum mpi_fn {
#define GROVE_MPI_FN_(name) MPI_FN_##name,
#include "mpi_fn_list.h"
#undef GROVE_MPI_FN_
	MPI_FN_COUNT_
};
extern const char *const mpi_fn_names[MPI_FN_COUNT_]; /* "MPI_Send" */

/* ---- errors (errors.c) ---------------------------------------------- */

/* Reports an error of `fn` on comm (MPI_COMM_NULL: MPI_COMM_WORLD's
 * handler): formats the message ("MPI_Send: invalid rank: 9 is not in
 * [0, 4)"), keeps it as the last error message, then runs the handler:
 * MPI_ERRORS_ARE_FATAL prints "grove-mpi: rank R: <message>" on stderr
 * and ends the job (mpi_abort_job); MPI_ERRORS_RETURN and user handlers
 * return.  Returns errclass, for `return mpi_err(...)`. */
int mpi_err(MPI_Comm comm, int errclass, enum mpi_fn fn, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* The last error message of this process ("" if none). */
const char *mpi_last_error(void);

/* ---- datatypes (datatype.c, datatype_pack.c) ------------------------ */

/* The basic element kinds reductions work on. */
enum mpi_basic {
	MPI_B_NONE = 0, /* not a basic type (or mixed) */
	MPI_B_CHAR, MPI_B_SCHAR, MPI_B_UCHAR, MPI_B_BYTE, MPI_B_WCHAR,
	MPI_B_SHORT, MPI_B_USHORT, MPI_B_INT, MPI_B_UINT, MPI_B_LONG,
	MPI_B_ULONG, MPI_B_LLONG, MPI_B_ULLONG, MPI_B_FLOAT, MPI_B_DOUBLE,
	MPI_B_LDOUBLE, MPI_B_BOOL, MPI_B_INT8, MPI_B_INT16, MPI_B_INT32,
	MPI_B_INT64, MPI_B_UINT8, MPI_B_UINT16, MPI_B_UINT32, MPI_B_UINT64,
	MPI_B_AINT, MPI_B_OFFSET, MPI_B_COUNT, MPI_B_PACKED, MPI_B_CFLOAT,
	MPI_B_CDOUBLE, MPI_B_CLDOUBLE, MPI_B_FLOAT_INT, MPI_B_DOUBLE_INT,
	MPI_B_LONG_INT, MPI_B_2INT, MPI_B_SHORT_INT, MPI_B_LDOUBLE_INT,
	MPI_B_COUNT_
};

/* One contiguous run of bytes of a datatype, relative to its origin. */
struct mpi_dt_block {
	MPI_Aint disp;
	size_t len;
};

struct grove_mpi_datatype_s {
	int refs;            /* predefined: never freed */
	bool predefined;
	bool committed;
	bool contig;         /* one block at disp 0 of length size == extent */
	enum mpi_basic basic;/* the one basic kind it is made of, or NONE */
	size_t basic_count;  /* basic elements in one item (when basic) */
	size_t size;         /* bytes of data in one item */
	MPI_Aint lb, extent; /* as MPI_Type_get_extent */
	MPI_Aint true_lb, true_extent;
	size_t nblocks;      /* blocks of one item, merged where adjacent */
	struct mpi_dt_block *blocks; /* NULL for predefined (one block) */
	int combiner;        /* MPI_COMBINER_* (envelope) */
	char name[MPI_MAX_OBJECT_NAME];
};

/* Packs `count` items of dt at buf into out, skipping the first `skip`
 * bytes of the packed stream and writing at most `max` bytes; returns the
 * bytes written.  Chunked transfers call it repeatedly. */
size_t mpi_dt_pack(MPI_Datatype dt, const void *buf, size_t count,
                   void *out, size_t skip, size_t max);
/* The inverse: stores packed bytes [skip, skip+len) into buf. */
size_t mpi_dt_unpack(MPI_Datatype dt, void *buf, size_t count,
                     const void *in, size_t skip, size_t len);
/* true when count items of dt are one contiguous run starting at buf +
 * dt->true_lb (no pack needed); *first gets the address of that run. */
bool mpi_dt_is_contig(MPI_Datatype dt, size_t count);
/* Validates a datatype argument (not NULL, committed or predefined);
 * 0 or MPI_ERR_TYPE with the reason in *why. */
int mpi_dt_check(MPI_Datatype dt, const char **why);
void mpi_dt_release(MPI_Datatype dt); /* drops a reference (free at 0) */
void mpi_dt_retain(MPI_Datatype dt);

/* ---- operators (op.c) ----------------------------------------------- */

struct grove_mpi_op_s {
	bool predefined;
	bool commute;
	int refs;
	int which;                /* predefined: index in GROVE_MPI_OPS_ order */
	MPI_User_function *user;  /* user op */
	char name[24];
};
/* inout[i] = in[i] op inout[i] for count items of dt (MPI's order: the
 * "in" operand is the earlier rank's).  Returns MPI_SUCCESS or
 * MPI_ERR_OP when op does not apply to dt (message via *why). */
int mpi_op_apply(MPI_Op op, const void *in, void *inout, size_t count,
                 MPI_Datatype dt, const char **why);
/* Whether op applies to dt, without running it. */
int mpi_op_check(MPI_Op op, MPI_Datatype dt, const char **why);

/* ---- groups and communicators (group.c, comm.c, topo.c) ------------- */

struct grove_mpi_group_s {
	int refs;
	bool predefined;
	int size;
	int *world;  /* group rank -> rank in MPI_COMM_WORLD */
	int my_rank; /* this process's rank in the group, or MPI_UNDEFINED */
};

struct mpi_cart {
	int ndims;
	int *dims, *periods;
};
struct mpi_dist_graph {
	int indegree, outdegree;
	int *sources, *sourceweights, *destinations, *destweights;
	bool weighted;
};

struct mpi_attr;

struct grove_mpi_comm_s {
	int refs;
	bool predefined;
	int rank, size;
	MPI_Group group;     /* rank -> world rank through group->world */
	/* Context ids: point-to-point traffic and collective traffic of a
	 * communicator never match each other or another communicator's. */
	uint32_t ctx_p2p, ctx_coll;
	/* Collective sequence number: every rank calls a communicator's
	 * collectives in the same order, so the n-th one uses tag n on
	 * ctx_coll on every rank and overlapping non-blocking collectives
	 * never mix. */
	uint32_t coll_seq;
	/* Its collector in the event space (stats.c), on which each traced
	 * collective call records a GROVE_OP_MPI_COMM instant; registered
	 * at its first traced collective (state 0: not yet). */
	grove_trace_collector trace_coll;
	int trace_coll_state;
	MPI_Errhandler errhandler;
	int topo;            /* 0, MPI_CART, MPI_GRAPH, MPI_DIST_GRAPH */
	struct mpi_cart cart;
	struct mpi_dist_graph graph;
	struct mpi_attr *attrs;
	char name[MPI_MAX_OBJECT_NAME];
};

/* World rank of rank r of comm. */
static inline int
mpi_comm_world_rank(MPI_Comm comm, int r)
{
	return comm->group->world[r];
}
/* Validates a communicator argument: 0 or MPI_ERR_COMM. */
int mpi_comm_check(MPI_Comm comm);
/* Makes a communicator over group (ranks in group order) with fresh
 * context ids agreed on by every member of parent (collective over
 * parent; ranks not in group pass group == NULL and get MPI_COMM_NULL). */
int mpi_comm_create_from(MPI_Comm parent, MPI_Group group, MPI_Comm *out);
/* Set up MPI_COMM_WORLD/SELF (init) and free everything (finalize). */
int mpi_comm_init_world(int rank, int size);
void mpi_comm_fini(void);

struct grove_mpi_errhandler_s {
	int refs;
	bool predefined;
	int kind;            /* 0 fatal, 1 return, 2 user */
	MPI_Comm_errhandler_function *fn;
};

/* ---- communicators module: helpers shared by group.c, comm.c, attr.c,
 * topo.c and errors.c (and tests/unit/test_mpi_group.c, test_mpi_topo.c) */

/* Room for the reason a helper below gives with an error class. */
#define MPI_WHY_LEN 160

/* Groups (group.c).  Pure: usable without MPI_Init (the tests do).
 * mpi_group_new copies world[] (world ranks in group order) and finds
 * mpi_proc.rank in it; NULL when out of memory.  A group of size 0 is
 * MPI_GROUP_EMPTY.  The others return MPI_SUCCESS or an error class with
 * the reason in why; *out holds one reference (mpi_group_release). */
MPI_Group mpi_group_new(int size, const int *world);
void mpi_group_retain(MPI_Group g);
void mpi_group_release(MPI_Group g);
int mpi_group_incl(MPI_Group g, int n, const int ranks[], MPI_Group *out,
                   char *why);
int mpi_group_excl(MPI_Group g, int n, const int ranks[], MPI_Group *out,
                   char *why);
int mpi_group_range_incl(MPI_Group g, int n, int ranges[][3],
                         MPI_Group *out, char *why);
int mpi_group_range_excl(MPI_Group g, int n, int ranges[][3],
                         MPI_Group *out, char *why);
int mpi_group_union(MPI_Group a, MPI_Group b, MPI_Group *out);
int mpi_group_intersection(MPI_Group a, MPI_Group b, MPI_Group *out);
int mpi_group_difference(MPI_Group a, MPI_Group b, MPI_Group *out);
int mpi_group_compare(MPI_Group a, MPI_Group b); /* MPI_IDENT ... */
int mpi_group_translate(MPI_Group a, int n, const int ranks1[], MPI_Group b,
                        int ranks2[], char *why);

/* Balanced factorization of MPI_Dims_create (topo.c); pure. */
int mpi_dims_create(int nnodes, int ndims, int dims[], char *why);

/* Communicator references (comm.c): a request holds one on its
 * communicator, so MPI_Comm_free with operations in flight frees the
 * object at the last release. */
void mpi_comm_retain(MPI_Comm comm);
void mpi_comm_release(MPI_Comm comm);

/* Attributes (attr.c): copy callbacks of MPI_Comm_dup; delete callbacks
 * of MPI_Comm_free and MPI_Finalize.  0 or the callback's error. */
int mpi_attr_copy_all(MPI_Comm from, MPI_Comm to);
int mpi_attr_delete_all(MPI_Comm comm);

/* Topologies (topo.c): a dup keeps its parent's; freed with the comm. */
int mpi_topo_copy(MPI_Comm from, MPI_Comm to);
void mpi_topo_free(MPI_Comm comm);

/* Error handler references (errors.c): communicators hold one. */
void mpi_errhandler_retain(MPI_Errhandler eh);
void mpi_errhandler_release(MPI_Errhandler eh);

/* ---- end of the communicators module's block ------------------------ */

/* ---- requests (p2p.c, request.c) ------------------------------------ */

enum mpi_req_kind {
	MPI_REQ_SEND = 1,
	MPI_REQ_RECV,
	MPI_REQ_COLL,        /* a non-blocking collective (schedule) */
	MPI_REQ_GREQ,        /* generalized request */
};

struct mpi_sched;

struct grove_mpi_request_s {
	enum mpi_req_kind kind;
	bool persistent;     /* survives completion; MPI_Start reuses it */
	bool active;         /* persistent: started and not yet completed */
	bool freed;          /* MPI_Request_free before completion */
	volatile bool done;
	bool cancelled;
	bool holds_refs;     /* took references on comm and dt (released
	                        when the request is freed) */
	MPI_Status status;
	/* The operation. */
	MPI_Comm comm;
	int peer;            /* comm rank (dest or source) or MPI_ANY_SOURCE */
	int tag;
	uint32_t ctx;
	void *buf;           /* user buffer */
	size_t count;
	MPI_Datatype dt;
	int mode;            /* send: MPI_FN_Send/Ssend/Rsend/Bsend */
	/* Protocol state (p2p.c). */
	void *pack;          /* packed copy of a non-contiguous buffer */
	size_t bytes;        /* message size in bytes */
	size_t moved;        /* bytes moved so far (chunked protocols) */
	uint64_t cookie;     /* the peer's request id (rendezvous) */
	int state;
	struct grove_mpi_request_s *next, *prev; /* queue links */
	/* Collectives. */
	struct mpi_sched *sched;
	/* Generalized requests. */
	MPI_Grequest_query_function *gq;
	MPI_Grequest_free_function *gf;
	MPI_Grequest_cancel_function *gc;
	void *gstate;
};

/* Internal point-to-point on an explicit context: what collectives use.
 * peer is a rank of comm; buf is count items of dt. */
int mpi_isend_ctx(const void *buf, size_t count, MPI_Datatype dt, int peer,
                  int tag, MPI_Comm comm, uint32_t ctx, int mode,
                  MPI_Request *out);
int mpi_irecv_ctx(void *buf, size_t count, MPI_Datatype dt, int peer,
                  int tag, MPI_Comm comm, uint32_t ctx, MPI_Request *out);
/* Blocks (progressing everything) until req is done; frees it unless
 * persistent; fills status.  Returns the request's error (MPI_ERROR). */
int mpi_wait(MPI_Request *req, MPI_Status *status);
/* One pass of progress over every transport and active schedule;
 * returns the number of events handled (0: nothing happened). */
int mpi_progress(void);
/* Blocks until done(arg) is true, progressing and, after a bounded spin,
 * sleeping on this rank's futex until a peer wakes it. */
void mpi_progress_until(bool (*done)(void *), void *arg);
void mpi_request_free_internal(MPI_Request req);
MPI_Request mpi_request_new(enum mpi_req_kind kind);

/* ---- collectives as schedules (coll_sched.c) ------------------------- */

/* A non-blocking collective is a request whose schedule the progress
 * engine advances; a blocking collective starts one and waits.  Active
 * schedules are kept in a list the engine walks (mpi_sched_progress_all). */
int mpi_sched_progress_all(void);

/* ---- statistics and tracing (stats.c) -------------------------------- */

/* Every public entry point brackets its work with these: only the
 * outermost MPI call of a nesting is counted (MPI_Sendrecv calling
 * internal pieces counts once).  peer is a world rank or -1; bytes the
 * data the call moved. */
uint64_t mpi_call_enter(enum mpi_fn fn);
void mpi_call_exit(enum mpi_fn fn, uint64_t t0, int peer, int tag,
                   size_t bytes);
/* The communicator of the collective call in progress, told by the
 * collectives' common argument check (mpi_coll_check_comm): an outermost
 * collective call is then followed in the event space by an instant on
 * the communicator's collector (docs/tracing.md, "MPI calls"). */
void mpi_call_comm(MPI_Comm comm);
#define MPI_ENTER(name) const uint64_t mpi_t0_ = mpi_call_enter(MPI_FN_##name)
#define MPI_EXIT(name, peer, tag, bytes) \
	mpi_call_exit(MPI_FN_##name, mpi_t0_, (peer), (tag), (bytes))

/* -- stats.c set-up: called by init.c (begin) -- */
/* At the end of MPI_Init, once the job segment is attached, the rank and
 * size are in mpi_proc and wire-up is done (t_init, the start of the
 * run time in the statistics, is taken here): opens the rank's event
 * space (grove.<job id>.mpi.<rank>, or grove.singleton-<pid>.mpi.0) and,
 * with GROVE_MPI_STATS set (grove run --stats), starts the statistics
 * in the rank's slot of the job segment. */
void mpi_stats_init(void);
/* At the start of MPI_Finalize: takes t_final, converts the figures to
 * ns, marks the slot valid for the launcher, and closes the event space
 * (kept for grove trace when GROVE_MPI_TRACE_KEEP is set). */
void mpi_stats_fini(void);
/* -- stats.c set-up (end) -- */

/* ---- the process (init.c) ------------------------------------------- */

struct mpi_job;

struct mpi_proc {
	int state;           /* 0 before init, 1 initialized, 2 finalized */
	int thread_level;
	int rank, size;      /* in MPI_COMM_WORLD */
	struct mpi_job *job; /* the job segment and this rank's view of it */
	bool singleton;      /* started without a launcher */
	bool verbose;        /* GROVE_MPI_VERBOSE / grove run --verbose */
	char processor_name[MPI_MAX_PROCESSOR_NAME];
	double wtime0;       /* MPI_Wtime's origin */
};
/* Process-wide on purpose: MPI's state is per process (one MPI_Init). */
extern struct mpi_proc mpi_proc;

/* Wake-ups (wake.c).  A rank that waits sleeps on its own futex word in
 * the job segment; whoever publishes something it may wait for (a ring
 * record, a shared-memory collective's arrival) calls mpi_wake(rank)
 * afterwards, which costs one load unless the rank sleeps. */
void mpi_wake(int world_rank);
/* The same after a sequentially consistent store published the data
 * (mpi_ring_commit): no fence of its own. */
void mpi_wake_published(int world_rank);
/* Spin budget before sleeping: 0 when ranks outnumber cores. */
int mpi_spin_budget(void);

/* Wire-up through Grove's tree (wireup.c): called by MPI_Init in a rank
 * started by grove run, after the job segment is attached: joins the
 * launcher's network as back-end `rank` and exchanges the ranks' cards
 * (pid, host) with one allgather through the tree.  Returns 0, or -1 with
 * a message in err.  mpi_wireup_fini leaves the network (MPI_Finalize). */
int mpi_wireup(struct mpi_job *job, int rank, int size, char *err,
               size_t errlen);
void mpi_wireup_fini(void);
/* The lowest world rank on this rank's host (0 for a singleton): the
 * colour of MPI_Comm_split_type(MPI_COMM_TYPE_SHARED). */
int mpi_wireup_host_leader(void);

/* Checks that MPI is initialized and not finalized (for fn): 0, or the
 * error (MPI_ERR_OTHER with a message naming fn) when it is not. */
int mpi_check_initialized(enum mpi_fn fn);
/* Ends the whole job with code: tells the launcher (job segment), then
 * exits this process.  Never returns. */
void mpi_abort_job(int code) __attribute__((noreturn));

#endif

/* Grove tracing: event collectors writing into a per-process event space.
 *
 * Model.  A *collector* is a point in a code path (a link's send, a
 * stream's filter, an API call).  Each time the path runs, the collector
 * records one 32-byte *tuple*: start and end timestamps, the collector id,
 * the collector's own sequence number, a result (bytes moved, inputs,
 * error code) and an operation code.  Tuples go into a ring owned by the
 * recording thread; the rings of one process live in one shared-memory
 * segment, the *event space* (/dev/shm/grove.<network>.<role>.<rank>),
 * together with a registry that says where each collector sits (layer,
 * link/stream/peer, position in the path).  Other processes (grove trace,
 * the front-end at exit) read the segment lazily; the writer never waits
 * for them, and the oldest tuples are overwritten.
 *
 * Using a collector:
 *
 *     static grove_trace_collector c;      // or one per link/stream
 *     grove_trace_collector_register(&c, "send", "net", "link:0->3",
 *                                    "after:write");
 *     ...
 *     uint64_t t0 = grove_trace_begin();   // no clock read when off
 *     n = do_the_work();
 *     grove_trace_end(&c, GROVE_OP_SEND, n, t0);
 *
 * A collector is used by one thread at a time (its seq is a plain
 * counter); collectors used by several threads need one each, or a lock
 * held by the caller around the record.
 *
 * Environment: GROVE_TRACE=0 disables tracing (every record costs one
 * predictable branch); GROVE_TRACE_SIZE=N sets tuples per thread ring
 * (power of two, default 8192 = 256 KiB).
 *
 * Needs gcc or clang (__thread, __atomic builtins); compiles as strict C11
 * and as C++.
 */
#ifndef GROVE_TRACE_H
#define GROVE_TRACE_H

#include <stdint.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define GROVE_TRACE_HAVE_TSC_ 1
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* One event: exactly 32 bytes, two per cache line. */
typedef struct grove_trace_tuple {
	uint64_t t_start, t_end; /* clock ticks (see grove_trace_now) */
	uint32_t collector;      /* id in this process's registry (1-based) */
	uint32_t seq;            /* the collector's n-th record, from 0 */
	int32_t result;          /* bytes, inputs, or a negative grove_err */
	uint16_t op;             /* enum grove_trace_op */
	uint16_t flags;          /* GROVE_TRACE_F_* */
} grove_trace_tuple;

#ifdef __cplusplus
static_assert(sizeof(grove_trace_tuple) == 32, "tuple must be 32 bytes");
#else
_Static_assert(sizeof(grove_trace_tuple) == 32, "tuple must be 32 bytes");
#endif

enum grove_trace_op {
	GROVE_OP_SEND = 1,       /* packet sent on a link (result = bytes) */
	GROVE_OP_RECV,           /* packet received on a link (result = bytes) */
	GROVE_OP_WRITEV,         /* batch write (result = bytes) */
	GROVE_OP_READ,           /* batch read (result = bytes) */
	GROVE_OP_FILTER_SYNC,    /* synchronization filter invocation */
	GROVE_OP_FILTER_TRANSFORM, /* transformation filter invocation */
	GROVE_OP_WAVE,           /* wave completed at a node (result = inputs) */
	GROVE_OP_STREAM_NEW,     /* stream creation */
	GROVE_OP_CONNECT,        /* child taken in after its hello authenticated:
	                          * reply, link setup (result = its node id) */
	GROVE_OP_API_SEND,       /* FE/BE API send call (enter..exit) */
	GROVE_OP_API_RECV,       /* FE/BE API receive call (enter..exit) */
	/* A packet of the tracing machinery's own on a link (event-space
	 * requests and snapshots, clock-offset probes and their answers):
	 * sent or received like GROVE_OP_SEND / GROVE_OP_RECV, on the same
	 * collectors, and kept apart so that the statistics of the
	 * workload's messages do not count them. */
	GROVE_OP_TRACE_SEND,
	GROVE_OP_TRACE_RECV,
	/* An MPI call of Grove MPI (enter..exit of the outermost call;
	 * result = bytes, saturated at INT32_MAX).  A call with a tag is
	 * followed on the same collector by an instant GROVE_OP_MPI_TAG
	 * (result = the tag); a call recorded without its own per-peer
	 * collector (full registry) by an instant GROVE_OP_MPI_PEER
	 * (result = the peer's rank).  See docs/tracing.md. */
	GROVE_OP_MPI_CALL,
	GROVE_OP_MPI_TAG,
	GROVE_OP_MPI_PEER,
	/* A collective call of Grove MPI is followed, in the same ring, by
	 * an instant on its communicator's collector ("comm", where
	 * "comm:CTX:FIRST", position "size:N"): its seq numbers the
	 * communicator's collectives (the same instance on every rank),
	 * its result is the rank's rank in the communicator. */
	GROVE_OP_MPI_COMM,
	GROVE_OP_USER = 256,     /* first operation code for tool code */
};

/* Tuple flags. */
#define GROVE_TRACE_F_INSTANT 0x1 /* a point event: t_start == t_end */

/* A collector handle, owned by the caller (static, or inside a link or
 * stream object).  id 0 means "not registered / tracing off". */
typedef struct grove_trace_collector {
	uint32_t id;
	uint32_t seq;  /* next sequence number; incremented by each record */
} grove_trace_collector;

/* Registers a collector in this process's event space.  layer: "net",
 * "tbon", "filter", "api", "user"...; where: "link:0->3", "stream:5",
 * "peer:3"... (links are named "link:<sender node>-><receiver node>" on
 * both ends, so a send and its receive can be matched); position:
 * "after:read", "before:sync"...  Any string may be NULL (stored as "").
 * The registry keeps at most 47 bytes of name, 15 of layer, 95 of where
 * and 87 of position: a longer string is cut at the last whole UTF-8
 * character that fits (a byte that is not UTF-8 counts as one).
 * When tracing is off (or not initialized) sets c->id = 0 and returns 0.
 * Resets c->seq to 0.  Not on the fast path: takes a lock.  Returns
 * GROVE_ERANGE when the registry is full (c->id = 0; records are then
 * stored with collector 0, which the exporters call "unregistered"; a
 * collector registered with an empty layer is not). */
int grove_trace_collector_register(grove_trace_collector *c,
                                   const char *name, const char *layer,
                                   const char *where, const char *position);

/* Shorthand for tool code: layer "user", no link. */
int grove_trace_user_register(grove_trace_collector *c, const char *name);

/* Opens this process's event space.  role: "fe", "cp", "be" (or any
 * short word); rank: the process's rank within the role.  Returns 0 also
 * when GROVE_TRACE=0 (tracing stays off).  A process has one event space:
 * the first call creates it, named after its network, role and rank; a
 * later call while it is open joins it, whatever identity it gives (two
 * networks, or a front-end and a back-end, in one process record into
 * the space of the first).  Returns GROVE_EINVAL when network_id or role
 * cannot name a segment (empty, too long, or a character other than
 * [A-Za-z0-9_-]); GROVE_ESYS, with errno saying why, when the space
 * cannot be made (/dev/shm full or read-only: ENOSPC, EROFS; EFBIG when
 * it is larger than the file size limit, RLIMIT_FSIZE, which is checked
 * first so that no SIGXFSZ kills the process): tracing stays off in this
 * process and nothing of it is left in /dev/shm.  Every call, whatever
 * it returned (a refused one
 * too), is matched by one grove_trace_fini: a refused call counts as a
 * user, so its fini never closes the space another user opened. */
int grove_trace_init(const char *network_id, const char *role, uint32_t rank);

/* Ends one grove_trace_init.  While other inits are unmatched it only
 * drops this one (the space stays open, mapped and recording).  The last
 * one writes the final calibration, unmaps the event space and unlinks it
 * unless keep != 0 (someone will read it after this process exits; the
 * reader, or grove trace clean, removes it, or a grove_net_create a
 * minute later or more once nothing of its network runs, unless
 * GROVE_TRACE_KEEP marked it kept: docs/tracing.md, Leftovers); no other
 * thread may be recording then. */
void grove_trace_fini(int keep);

/* 1 when tuples are being recorded. */
int grove_trace_enabled(void);

/* Switches recording off (0) or back on (1) at run time without touching
 * the event space; on has no effect unless grove_trace_init enabled
 * tracing.  Used by benchmarks and by tools that trace only a phase. */
void grove_trace_set_enabled(int on);

/* ---- fast path (inline) ----------------------------------------------
 * Everything below the line is visible only so the record path can be
 * inlined; the names ending in '_' are not API. */

/* A per-thread ring, as laid out in the segment (see src/trace/space.h). */
struct grove_trace_ring_ {
	uint64_t head;      /* tuples ever written; never wraps; store-release */
	uint64_t mask;      /* slots - 1 (slots is a power of two) */
	uint32_t tid;       /* kernel thread id of the owner */
	uint32_t index;     /* ring number in the segment */
	uint64_t reserved_[5]; /* header is one 64-byte line */
	grove_trace_tuple slots[];
};

/* The calling thread's ring and the generation it was claimed in. */
struct grove_trace_tls_ {
	struct grove_trace_ring_ *ring;
	uint32_t gen;
};

/* Global on purpose: the disabled check must be a single load and a
 * predictable branch, with no pointer chasing.  0 = off; otherwise the
 * generation of the current event space (bumped by every init), so a
 * thread whose ring belongs to an earlier event space re-claims one.
 * Written only by init/fini/set_enabled; read with relaxed atomics. */
extern uint32_t grove_trace_on_;

/* Global on purpose: the clock is chosen once per process at init (TSC
 * when the CPU flags constant_tsc and nonstop_tsc are set, else
 * CLOCK_MONOTONIC in ns) and every timestamp must use the same one;
 * reading it inline avoids a call per timestamp.  Set only by init. */
extern int grove_trace_clock_tsc_;

/* Per thread on purpose: each thread owns its ring, so the fast path
 * needs no atomic read-modify-write.  initial-exec: libgrove is loaded at
 * program start, and this keeps the access a single %fs-relative load. */
extern __thread struct grove_trace_tls_ grove_trace_tls_
	__attribute__((tls_model("initial-exec")));

/* Slow path: claims a ring in the segment for the calling thread (or a
 * private sink when all rings are taken).  Never fails. */
void grove_trace_claim_(void);

/* CLOCK_MONOTONIC in ns, out of line: a header that must compile in
 * strict ISO C (no POSIX clock_gettime declared) keeps it in the library,
 * and only machines without an invariant TSC take the call. */
uint64_t grove_trace_mono_ns_(void);

/* The current timestamp in the event space's clock. */
static inline uint64_t
grove_trace_now(void)
{
#ifdef GROVE_TRACE_HAVE_TSC_
	if (__builtin_expect(grove_trace_clock_tsc_, 1))
		return __rdtsc();
#endif
	return grove_trace_mono_ns_();
}

/* Records one tuple.  Fast path: one branch when off; when on, a plain
 * 32-byte store into this thread's ring and a store-release of head. */
static inline void
grove_trace_record(grove_trace_collector *c, uint16_t op, int32_t result,
                   uint64_t t_start, uint64_t t_end)
{
	uint32_t on = __atomic_load_n(&grove_trace_on_, __ATOMIC_RELAXED);
	if (__builtin_expect(on == 0, 0))
		return;
	if (__builtin_expect(grove_trace_tls_.gen != on, 0))
		grove_trace_claim_();
	struct grove_trace_ring_ *r = grove_trace_tls_.ring;
	/* Only this thread writes head: a relaxed load of our own store. */
	uint64_t h = __atomic_load_n(&r->head, __ATOMIC_RELAXED);
	grove_trace_tuple *s = &r->slots[h & r->mask];
	s->t_start = t_start;
	s->t_end = t_end;
	s->collector = c->id;
	s->seq = c->seq++;
	s->result = result;
	s->op = op;
	s->flags = t_start == t_end ? GROVE_TRACE_F_INSTANT : 0;
	/* Publishes the slot: a reader that sees head > h sees the tuple. */
	__atomic_store_n(&r->head, h + 1, __ATOMIC_RELEASE);
}

/* Start of a span: the current time, or 0 without reading the clock when
 * tracing is off. */
static inline uint64_t
grove_trace_begin(void)
{
	if (__builtin_expect(__atomic_load_n(&grove_trace_on_,
	                                     __ATOMIC_RELAXED) == 0, 0))
		return 0;
	return grove_trace_now();
}

/* End of a span begun with grove_trace_begin: records [t_start, now].
 * A span begun while tracing was off (t_start 0) is not recorded.  The
 * test of t_start is the only one here: where begin is inlined, the
 * compiler knows t_start is 0 on its "off" branch and jumps past this
 * one, so a disabled span costs a single flag load and branch.  A span
 * whose tracing was switched off after it began is dropped by the flag
 * test inside grove_trace_record, after one clock read. */
static inline void
grove_trace_end(grove_trace_collector *c, uint16_t op, int32_t result,
                uint64_t t_start)
{
	if (__builtin_expect(t_start == 0, 0))
		return;
	grove_trace_record(c, op, result, t_start, grove_trace_now());
}

/* A point event (t_start == t_end == now). */
static inline void
grove_trace_instant(grove_trace_collector *c, uint16_t op, int32_t result)
{
	if (__builtin_expect(__atomic_load_n(&grove_trace_on_,
	                                     __ATOMIC_RELAXED) == 0, 0))
		return;
	uint64_t t = grove_trace_now();
	grove_trace_record(c, op, result, t, t);
}

#ifdef __cplusplus
}
#endif
#endif

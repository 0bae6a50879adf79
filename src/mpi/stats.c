/* Per-call statistics (the MMDS of bcs-mpi.txt, section 5.1) and the
 * event-space collectors of the MPI calls.
 *
 * Every public entry point brackets its work with mpi_call_enter and
 * mpi_call_exit (MPI_ENTER/MPI_EXIT).  Only the outermost call of a
 * nesting counts: PMPI_ functions call each other inside the library
 * (MPI_Sendrecv posts an Irecv and waits), and the user made one call.
 *
 * Tracing (on unless GROVE_TRACE=0): each outermost call records one
 * GROVE_OP_MPI_CALL tuple [enter, exit] with result = bytes, on a
 * collector per (function, peer) registered lazily: name "MPI_Send",
 * layer "mpi", where "rank:<from>->rank:<to>" in the direction the data
 * goes (as links are named, so a send and its receive share a place),
 * position "peer:<world rank>".  A call with a tag is followed by an
 * instant GROVE_OP_MPI_TAG tuple on the same collector (result = tag);
 * when the registry is full, the call goes on the function's collector
 * without a peer and an instant GROVE_OP_MPI_PEER tuple (result = peer)
 * follows.  docs/tracing.md describes the encoding for readers.
 *
 * Statistics (GROVE_MPI_STATS=1, grove run --stats): count, total, min,
 * max and bytes per function, plus the time in and the number of
 * outermost calls, accumulated directly in this rank's slot of the job
 * segment, where the launcher reads them after the rank exits.  While
 * the rank runs the times are clock ticks (TSC when the event space uses
 * it): converting each call would need a rate known at MPI_Init, which
 * only a calibration spanning the run gives exactly.  mpi_stats_fini
 * turns them into ns with the rate measured between MPI_Init and
 * MPI_Finalize, then marks the slot valid; a rank that dies before that
 * leaves a slot that is not valid, whose times the report does not use.
 *
 * State is process-wide: MPI_THREAD_SERIALIZED at most, so the nesting
 * depth and the figures need no atomics. */
#include "mpi/mpi_impl.h"

#include <ctype.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <grove/trace.h>

#include "mpi/job.h"

const char *const mpi_fn_names[MPI_FN_COUNT_] = {
#define GROVE_MPI_FN_(name) [MPI_FN_##name] = "MPI_" #name,
#include "mpi_fn_list.h"
#undef GROVE_MPI_FN_
};

/* Functions whose peer is where the data comes from: their collectors
 * are named "rank:<peer>->rank:<me>".  Every other call with a peer
 * sends (or, for Gather and Reduce, contributes) to it. */
static const unsigned char inbound[MPI_FN_COUNT_] = {
	[MPI_FN_Recv] = 1, [MPI_FN_Irecv] = 1, [MPI_FN_Recv_init] = 1,
	[MPI_FN_Probe] = 1, [MPI_FN_Iprobe] = 1, [MPI_FN_Mprobe] = 1,
	[MPI_FN_Improbe] = 1, [MPI_FN_Mrecv] = 1, [MPI_FN_Imrecv] = 1,
	[MPI_FN_Bcast] = 1, [MPI_FN_Ibcast] = 1, [MPI_FN_Scatter] = 1,
	[MPI_FN_Scatterv] = 1, [MPI_FN_Iscatter] = 1, [MPI_FN_Iscatterv] = 1,
	[MPI_FN_Get] = 1, [MPI_FN_Rget] = 1,
};

/* Functions that take a tag (or, for Mrecv and the completions, report
 * one): only their calls get a GROVE_OP_MPI_TAG tuple, whatever the
 * caller passed (a collective passes 0 or -1: it has no tag). */
static const unsigned char has_tag[MPI_FN_COUNT_] = {
	[MPI_FN_Send] = 1, [MPI_FN_Ssend] = 1, [MPI_FN_Rsend] = 1,
	[MPI_FN_Bsend] = 1, [MPI_FN_Recv] = 1, [MPI_FN_Isend] = 1,
	[MPI_FN_Issend] = 1, [MPI_FN_Irsend] = 1, [MPI_FN_Ibsend] = 1,
	[MPI_FN_Irecv] = 1, [MPI_FN_Sendrecv] = 1,
	[MPI_FN_Sendrecv_replace] = 1, [MPI_FN_Probe] = 1,
	[MPI_FN_Iprobe] = 1, [MPI_FN_Mprobe] = 1, [MPI_FN_Improbe] = 1,
	[MPI_FN_Mrecv] = 1, [MPI_FN_Imrecv] = 1, [MPI_FN_Send_init] = 1,
	[MPI_FN_Ssend_init] = 1, [MPI_FN_Rsend_init] = 1,
	[MPI_FN_Bsend_init] = 1, [MPI_FN_Recv_init] = 1, [MPI_FN_Wait] = 1,
	[MPI_FN_Waitany] = 1, [MPI_FN_Test] = 1, [MPI_FN_Testany] = 1,
};

/* The collectives: every rank of a communicator calls them in the same
 * order, so the n-th on a communicator is the same operation on every
 * rank.  Each outermost call of one is followed by a GROVE_OP_MPI_COMM
 * instant on its communicator's collector, whose seq counts them. */
static const unsigned char collective[MPI_FN_COUNT_] = {
	[MPI_FN_Barrier] = 1, [MPI_FN_Bcast] = 1, [MPI_FN_Reduce] = 1,
	[MPI_FN_Allreduce] = 1, [MPI_FN_Scatter] = 1, [MPI_FN_Scatterv] = 1,
	[MPI_FN_Gather] = 1, [MPI_FN_Gatherv] = 1, [MPI_FN_Allgather] = 1,
	[MPI_FN_Allgatherv] = 1, [MPI_FN_Alltoall] = 1,
	[MPI_FN_Alltoallv] = 1, [MPI_FN_Alltoallw] = 1,
	[MPI_FN_Reduce_scatter] = 1, [MPI_FN_Reduce_scatter_block] = 1,
	[MPI_FN_Scan] = 1, [MPI_FN_Exscan] = 1, [MPI_FN_Ibarrier] = 1,
	[MPI_FN_Ibcast] = 1, [MPI_FN_Ireduce] = 1, [MPI_FN_Iallreduce] = 1,
	[MPI_FN_Igather] = 1, [MPI_FN_Igatherv] = 1, [MPI_FN_Iscatter] = 1,
	[MPI_FN_Iscatterv] = 1, [MPI_FN_Iallgather] = 1,
	[MPI_FN_Iallgatherv] = 1, [MPI_FN_Ialltoall] = 1,
	[MPI_FN_Ialltoallv] = 1, [MPI_FN_Ialltoallw] = 1,
	[MPI_FN_Ireduce_scatter] = 1, [MPI_FN_Ireduce_scatter_block] = 1,
	[MPI_FN_Iscan] = 1, [MPI_FN_Iexscan] = 1,
	[MPI_FN_Neighbor_allgather] = 1, [MPI_FN_Neighbor_alltoall] = 1,
};

/* One collector and whether it was registered (id 0 also means the
 * registry was full or tracing off: registering again would not help). */
enum coll_state {
	COLL_NEW = 0,
	COLL_OWN,       /* its own collector (which may have id 0) */
	COLL_FALLBACK,  /* registry full: the function's collector + a
	                 * GROVE_OP_MPI_PEER tuple */
};
struct mpi_coll {
	grove_trace_collector c;
	uint32_t state;      /* enum coll_state */
};

/* A clock reading paired with CLOCK_MONOTONIC. */
struct calib {
	uint64_t ticks, mono_ns;
};

static struct {
	unsigned depth;            /* MPI calls in progress (nesting) */
	int stats;                 /* accumulating into st */
	int traced;                /* grove_trace_init was called (fini owed) */
	int tsc;                   /* clk() reads the TSC */
	int rank, size;
	uint64_t tick0;            /* clk() at mpi_stats_init */
	struct calib cal0;
	struct mpi_rank_stats *st;
	/* [fn] -> size + 1 collectors: [0] without a peer, [p + 1] peer p.
	 * Allocated at a function's first traced call. */
	struct mpi_coll *colls[MPI_FN_COUNT_];
	/* The communicator of the outermost call in progress, when it is a
	 * collective's (mpi_call_comm). */
	MPI_Comm coll_comm;
} S;

/* ---- clock ----------------------------------------------------------- */

static uint64_t
mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The clock of the statistics and of the MPI tuples: the event space's
 * (grove_trace_now) while tracing is on, so a tuple's times are in its
 * space's clock.  With tracing off (GROVE_TRACE=0) the event space
 * chooses none, and reading CLOCK_MONOTONIC twice per call cost 48 ns a
 * call here against 20 with the TSC: the statistics then take the TSC
 * themselves under the event space's rule (invariant TSC, unless
 * GROVE_TRACE_CLOCK=mono). */
static inline uint64_t
clk(void)
{
#ifdef GROVE_TRACE_HAVE_TSC_
	if (__builtin_expect(S.tsc, 1))
		return __rdtsc();
#endif
	return mono_ns();
}

/* The TSC runs at a constant rate in every P-, C- and T-state (CPUID
 * 0x80000007, EDX bit 8), as src/trace asks. */
static int
tsc_invariant(void)
{
#ifdef GROVE_TRACE_HAVE_TSC_
	unsigned int eax, ebx, ecx, edx;
	if ((unsigned int)__get_cpuid_max(0x80000000u, NULL) < 0x80000007u)
		return 0;
	__cpuid(0x80000007u, eax, ebx, ecx, edx);
	(void)eax, (void)ebx, (void)ecx;
	return (edx >> 8) & 1;
#else
	return 0;
#endif
}

/* A (ticks, monotonic ns) pair in the clock of clk(), as
 * src/trace calibrates its event space: the monotonic reading between
 * two tick readings, the tightest of a few tries, is accurate to half
 * their gap (tens of ns). */
static struct calib
calib_now(void)
{
	struct calib c = {0, 0};
	if (!S.tsc) {
		c.mono_ns = c.ticks = mono_ns();
		return c;
	}
	uint64_t best = UINT64_MAX;
	for (int i = 0; i < 8; i++) {
		uint64_t a = clk();
		uint64_t m = mono_ns();
		uint64_t b = clk();
		if (b - a < best) {
			best = b - a;
			c.ticks = a + (b - a) / 2;
			c.mono_ns = m;
		}
	}
	return c;
}

/* ---- the fast path --------------------------------------------------- */

/* The collector of (fn, peer), registered on first use.  Cold: once per
 * pair. */
static __attribute__((noinline, cold)) struct mpi_coll *
coll_register(enum mpi_fn fn, int peer)
{
	struct mpi_coll *tab = S.colls[fn];
	if (!tab) {
		tab = calloc((size_t)S.size + 1, sizeof *tab);
		if (!tab)
			return NULL; /* this call goes unrecorded */
		S.colls[fn] = tab;
	}
	char where[64], pos[32];
	struct mpi_coll *own = &tab[0];
	if (own->state == COLL_NEW) {
		/* The function's collector comes first, so that it exists
		 * for the fallback when the registry fills up. */
		snprintf(where, sizeof where, "rank:%d", S.rank);
		grove_trace_collector_register(&own->c, mpi_fn_names[fn], "mpi",
		                               where, "");
		own->state = COLL_OWN;
	}
	if (peer < 0)
		return own;
	struct mpi_coll *mc = &tab[peer + 1];
	if (inbound[fn])
		snprintf(where, sizeof where, "rank:%d->rank:%d", peer, S.rank);
	else
		snprintf(where, sizeof where, "rank:%d->rank:%d", S.rank, peer);
	snprintf(pos, sizeof pos, "peer:%d", peer);
	int rc = grove_trace_collector_register(&mc->c, mpi_fn_names[fn],
	                                        "mpi", where, pos);
	/* Full registry: keep the peer in a tuple of its own rather than
	 * lose it (own->c.id 0 too means nothing is recorded by name). */
	mc->state = rc != 0 && mc->c.id == 0 && own->c.id != 0 ? COLL_FALLBACK
	                                                        : COLL_OWN;
	return mc;
}

static inline void
trace_call(enum mpi_fn fn, uint64_t t0, uint64_t t1, int peer, int tag,
           size_t bytes)
{
	if ((unsigned)peer >= (unsigned)S.size)
		peer = -1; /* MPI_PROC_NULL, MPI_ANY_SOURCE, or none */
	struct mpi_coll *tab = S.colls[fn];
	struct mpi_coll *mc = tab ? &tab[peer + 1] : NULL;
	if (__builtin_expect(!mc || mc->state == COLL_NEW, 0)) {
		mc = coll_register(fn, peer);
		if (!mc)
			return;
		tab = S.colls[fn];
	}
	int32_t res = bytes > INT32_MAX ? INT32_MAX : (int32_t)bytes;
	grove_trace_collector *c = &mc->c;
	if (__builtin_expect(mc->state == COLL_FALLBACK, 0))
		c = &tab[0].c;
	grove_trace_record(c, GROVE_OP_MPI_CALL, res, t0, t1);
	if (tag >= 0 && has_tag[fn])
		grove_trace_record(c, GROVE_OP_MPI_TAG, tag, t1, t1);
	if (__builtin_expect(mc->state == COLL_FALLBACK, 0))
		grove_trace_record(c, GROVE_OP_MPI_PEER, peer, t1, t1);
}

/* The communicator instant of a collective call, stamped with the
 * call's end right after the call's tuple.  The communicator's collector
 * is named after its collective context id and the world rank of its
 * rank 0 (communicators split from one parent share context ids), with
 * its size: "comm", "comm:CTX:FIRST", "size:N".  Cold: registering it
 * once per communicator. */
static __attribute__((noinline)) void
trace_comm(MPI_Comm comm, uint64_t t1)
{
	if (__builtin_expect(!comm->trace_coll_state, 0)) {
		char where[64], pos[32];
		snprintf(where, sizeof where, "comm:%u:%d",
		         (unsigned)comm->ctx_coll, mpi_comm_world_rank(comm, 0));
		snprintf(pos, sizeof pos, "size:%d", comm->size);
		grove_trace_collector_register(&comm->trace_coll, "comm", "mpi",
		                               where, pos);
		comm->trace_coll_state = 1;
	}
	/* A full registry left it without an id: nothing to name the
	 * communicator by, so no instant (the call is still recorded). */
	if (comm->trace_coll.id)
		grove_trace_record(&comm->trace_coll, GROVE_OP_MPI_COMM,
		                   comm->rank, t1, t1);
}

void
mpi_call_comm(MPI_Comm comm)
{
	/* Only the outermost call's: a collective that runs others inside
	 * it names its own communicator first. */
	if (S.depth == 1 && !S.coll_comm)
		S.coll_comm = comm;
}

static inline void
account(enum mpi_fn fn, uint64_t d, size_t bytes)
{
	struct mpi_rank_stats *st = S.st;
	struct mpi_stat_fn *f = &st->fn[fn];
	f->count++;
	f->total_ns += d;
	if (d < f->min_ns)
		f->min_ns = d;
	if (d > f->max_ns)
		f->max_ns = d;
	f->bytes += bytes;
	st->comm_ns += d;
	st->calls++;
}

uint64_t
mpi_call_enter(enum mpi_fn fn)
{
	(void)fn;
	if (S.depth++ != 0)
		return 0; /* nested: the outer call counts */
	if (S.stats)
		return clk();
	/* Statistics off: no clock read unless tracing is on. */
	return grove_trace_begin();
}

void
mpi_call_exit(enum mpi_fn fn, uint64_t t0, int peer, int tag, size_t bytes)
{
	if (--S.depth != 0)
		return;
	MPI_Comm comm = S.coll_comm;
	S.coll_comm = NULL;
	if (t0 == 0)
		return;
	uint64_t t1 = clk();
	/* A call that began before mpi_stats_init (MPI_Init itself, in a
	 * process whose tracing was already on) is not part of the run. */
	if (__builtin_expect(t0 < S.tick0, 0))
		return;
	if (S.stats)
		account(fn, t1 - t0, bytes);
	/* The flag grove_trace_record tests, read here too so that no
	 * collector is registered (as id 0, for good) while tracing is
	 * switched off. */
	if (S.traced && __atomic_load_n(&grove_trace_on_, __ATOMIC_RELAXED)) {
		trace_call(fn, t0, t1, peer, tag, bytes);
		if (comm && collective[fn])
			trace_comm(comm, t1);
	}
}

/* ---- set-up ---------------------------------------------------------- */

/* Whether an environment flag is set to something other than off. */
static int
env_on(const char *name)
{
	const char *v = getenv(name);
	if (!v || !*v)
		return 0;
	return strcmp(v, "0") != 0 && strcasecmp(v, "off") != 0 &&
	       strcasecmp(v, "no") != 0 && strcasecmp(v, "false") != 0;
}

/* The event space's network name: the job id, made of the characters a
 * segment name allows ([A-Za-z0-9_-], others become '_'), or
 * "singleton-<pid>" for a rank without a launcher. */
static void
trace_network_name(char *out, size_t len)
{
	const struct mpi_job *job = mpi_proc.job;
	const char *id = job && job->hdr && !mpi_proc.singleton
	                 ? job->hdr->jobid : "";
	if (!id[0]) {
		snprintf(out, len, "singleton-%ld", (long)getpid());
		return;
	}
	size_t i = 0;
	for (; id[i] && i + 1 < len && i < 63; i++) {
		unsigned char ch = (unsigned char)id[i];
		out[i] = isalnum(ch) || ch == '_' || ch == '-' ? (char)ch : '_';
	}
	out[i] = '\0';
}

void
mpi_stats_init(void)
{
	S.rank = mpi_proc.rank;
	S.size = mpi_proc.size > 0 ? mpi_proc.size : 1;
	char net[64];
	trace_network_name(net, sizeof net);
	/* A refused init (no room in /dev/shm) leaves tracing off and still
	 * owes its fini. */
	grove_trace_init(net, "mpi", (uint32_t)S.rank);
	S.traced = 1;
	/* After grove_trace_init, which chooses the event space's clock. */
	if (grove_trace_enabled()) {
		S.tsc = grove_trace_clock_tsc_;
	} else {
		const char *c = getenv("GROVE_TRACE_CLOCK");
		S.tsc = !(c && !strcmp(c, "mono")) && tsc_invariant();
	}
	S.st = mpi_proc.job && mpi_proc.job->hdr
	       ? mpi_job_stats(mpi_proc.job, (uint32_t)S.rank) : NULL;
	S.cal0 = calib_now();
	S.tick0 = S.cal0.ticks;
	if (!S.st)
		return;
	struct mpi_rank_stats *st = S.st;
	memset(st, 0, sizeof *st);
	for (int i = 0; i < MPI_FN_COUNT_; i++)
		st->fn[i].min_ns = UINT64_MAX;
	st->t_init_ns = S.cal0.mono_ns;
	st->enabled = env_on("GROVE_MPI_STATS") ? 1 : 0;
	S.stats = (int)st->enabled;
}

/* ticks * rate, rounded. */
static uint64_t
to_ns(uint64_t ticks, double rate)
{
	return (uint64_t)llround((double)ticks * rate);
}

void
mpi_stats_fini(void)
{
	struct calib cal1 = calib_now();
	struct mpi_rank_stats *st = S.st;
	S.stats = 0; /* MPI_Finalize's own exit is not counted */
	if (st) {
		st->t_final_ns = cal1.mono_ns;
		if (st->enabled) {
			double rate = 1.0;
			if (S.tsc && cal1.ticks > S.cal0.ticks)
				rate = (double)(cal1.mono_ns - S.cal0.mono_ns) /
				       (double)(cal1.ticks - S.cal0.ticks);
			st->comm_ns = to_ns(st->comm_ns, rate);
			for (int i = 0; i < MPI_FN_COUNT_; i++) {
				struct mpi_stat_fn *f = &st->fn[i];
				if (f->count == 0)
					continue;
				f->total_ns = to_ns(f->total_ns, rate);
				f->min_ns = to_ns(f->min_ns, rate);
				f->max_ns = to_ns(f->max_ns, rate);
			}
		}
		/* The launcher reads the figures after the rank exits; the
		 * flag goes last so that valid figures are whole ones. */
		__atomic_store_n(&st->valid, 1, __ATOMIC_RELEASE);
	}
	if (S.traced) {
		S.traced = 0;
		grove_trace_fini(getenv("GROVE_MPI_TRACE_KEEP") != NULL);
	}
	for (int i = 0; i < MPI_FN_COUNT_; i++) {
		free(S.colls[i]);
		S.colls[i] = NULL;
	}
}

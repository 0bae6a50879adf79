/* BCS mode, the rank's side of the rings: set-up and end, posting
 * descriptors, draining completions (BCS mode's progress engine), the
 * probes the node manager has yet to answer, record/replay state.
 *
 * A rank in BCS mode never moves data itself and never reads another
 * rank's memory: it posts a descriptor per operation (bcs_desc.h) and the
 * node manager of its host does the rest once per time slice, then
 * publishes completions and wakes the rank (wake.c's protocol on the
 * rank's ctl word).  Waiting therefore sleeps at once: nothing can
 * complete before the next slice boundary, so spinning would only take
 * the core from the node manager or from a rank that computes. */
#define _GNU_SOURCE
#include "mpi/bcs_rank.h"

#include <errno.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "mpi/bcs_replay.h"
#include "mpi/coll_sched.h"
#include "mpi/job.h"
#include "mpi/ring.h"

bool mpi_bcs_mode;
bool mpi_bcs_rr;

/* The module's state: per process, like mpi_proc (one MPI_Init). */
static struct {
	struct mpi_job *job;
	int rank;
	struct mpi_ring_hdr *to_nm, *from_nm;
	uint32_t cap;
	uint64_t head_cache;          /* descriptor ring: the NM's head as
	                                 last read (mpi_ring_reserve) */
	struct mpi_bcs_probe *probes; /* posted, not yet handed to the user */
	uint64_t probe_ids;           /* the last probe id given */
	bool record;                  /* GROVE_BCS_RECORD */
	bool replaying;               /* GROVE_BCS_REPLAY */
	struct mpi_bcs_record rec;
	char *replay_file;
	uint32_t calls;               /* test-family calls so far (k) */
	uint32_t wilds;               /* MPI_ANY_SOURCE receives so far */
	bool warned_kind;             /* said once: an unknown completion */
} B;

static long
futex_wait(uint32_t *addr, uint32_t val, const struct timespec *ts)
{
	return syscall(SYS_futex, addr, FUTEX_WAIT, val, ts, NULL, 0);
}

static double
mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static bool
env_on(const char *name)
{
	const char *v = getenv(name);
	return v && *v && strcmp(v, "0") != 0;
}

/* ---- set-up ------------------------------------------------------------ */

int
mpi_bcs_detect(const struct mpi_job *job, char *err, size_t errlen)
{
	bool area = job->hdr->bcs_ring_bytes > 0;
	if (env_on("GROVE_MPI_BCS") && !area) {
		snprintf(err, errlen, "GROVE_MPI_BCS is set, but the job segment "
		         "has no BCS area (BCS mode needs grove run --bcs)");
		return -1;
	}
	if (!area && mpi_proc.rank == 0 &&
	    (env_on("GROVE_BCS_RECORD") || getenv("GROVE_BCS_REPLAY")))
		fprintf(stderr, "grove-mpi: GROVE_BCS_RECORD and GROVE_BCS_REPLAY "
		        "work in BCS mode only (grove run --bcs): ignored\n");
	return area ? 1 : 0;
}

/* Waits until the node manager has mapped the segment: it announces
 * itself in the header, and only then do descriptors have a reader. */
static int
wait_for_nm(struct mpi_job *job, double wait_s, char *err, size_t errlen)
{
	double t0 = mono_s();
	long nap_ns = 100000;
	while (__atomic_load_n(&job->hdr->bcs_nm_pid, __ATOMIC_ACQUIRE) == 0) {
		if (mono_s() - t0 >= wait_s) {
			snprintf(err, errlen, "no node manager took the job in %.0f s "
			         "(BCS mode: grove run --bcs starts grove-bcs-node on "
			         "each host; did it start?)", wait_s);
			return -1;
		}
		struct timespec ts = {0, nap_ns};
		nanosleep(&ts, NULL);
		if (nap_ns < 10000000)
			nap_ns *= 2;
	}
	return 0;
}

static int
rr_init(int size, char *err, size_t errlen)
{
	const char *replay = getenv("GROVE_BCS_REPLAY");
	B.record = env_on("GROVE_BCS_RECORD");
	if (!replay || !*replay)
		return 0;
	if (B.record) {
		snprintf(err, errlen, "GROVE_BCS_RECORD and GROVE_BCS_REPLAY are "
		         "both set: a run records or replays, not both");
		return -1;
	}
	if (mpi_bcs_record_load(replay, B.rank, &B.rec, err, errlen) != 0)
		return -1;
	if (B.rec.nranks != size) {
		snprintf(err, errlen, "%s: the record is of a job of %d ranks; this "
		         "job has %d", replay, B.rec.nranks, size);
		mpi_bcs_record_free(&B.rec);
		return -1;
	}
	B.replay_file = strdup(replay);
	if (!B.replay_file) {
		snprintf(err, errlen, "out of memory");
		mpi_bcs_record_free(&B.rec);
		return -1;
	}
	B.replaying = true;
	return 0;
}

int
mpi_bcs_init(struct mpi_job *job, int rank, int size, double wait_s,
             char *err, size_t errlen)
{
	memset(&B, 0, sizeof(B));
	uint32_t cap = job->hdr->bcs_ring_bytes;
	if (cap < 4096 || (cap & (cap - 1)) || job->hdr->bcs_off == 0) {
		snprintf(err, errlen, "the job segment's BCS area is not valid "
		         "(ring bytes %u at offset %llu)", cap,
		         (unsigned long long)job->hdr->bcs_off);
		return -1;
	}
	B.job = job;
	B.rank = rank;
	B.cap = cap;
	B.to_nm = mpi_job_bcs_to_nm(job, (uint32_t)rank);
	B.from_nm = mpi_job_bcs_from_nm(job, (uint32_t)rank);
	if (rr_init(size, err, errlen) != 0 ||
	    wait_for_nm(job, wait_s, err, errlen) != 0) {
		mpi_bcs_fini();
		return -1;
	}
	mpi_bcs_rr = B.record || B.replaying;
	mpi_bcs_mode = true;
	return 0;
}

void
mpi_bcs_fini(void)
{
	while (B.probes) {
		struct mpi_bcs_probe *p = B.probes;
		B.probes = p->next;
		mpi_bcs_probe_free(p);
	}
	mpi_bcs_record_free(&B.rec);
	free(B.replay_file);
	memset(&B, 0, sizeof(B));
	mpi_bcs_mode = false;
	mpi_bcs_rr = false;
}

static int drain(void);

/* Waits until the node manager has taken every descriptor of this rank:
 * it reads the rings at slice boundaries, and a job whose ranks have all
 * left may end before the next one (the end line of a record would be
 * lost).  Bounded like MPI_Init's wait, in case it is gone. */
static void
wait_drained(void)
{
	double t0 = mono_s();
	long nap_ns = 100000;
	while (__atomic_load_n(&B.to_nm->head, __ATOMIC_ACQUIRE) !=
	       __atomic_load_n(&B.to_nm->tail, __ATOMIC_RELAXED)) {
		if (mono_s() - t0 >= MPI_BCS_NM_WAIT_S)
			return;
		struct timespec ts = {0, nap_ns};
		nanosleep(&ts, NULL);
		if (nap_ns < 1000000)
			nap_ns *= 2;
	}
}

void
mpi_bcs_finalize(void)
{
	/* What the finalize barrier's slice completed (a freed request's
	 * send, answers to abandoned probes): taken, so nothing leaks. */
	drain();
	/* The end line of the record: how many calls and wildcard receives
	 * the run made, so a replay that goes past them is caught there. */
	mpi_bcs_note(MPI_FN_Finalize, B.calls, B.wilds, 0, -1, -1);
	if (B.replaying) {
		char where[64], why[256];
		if (mpi_bcs_replay_check_end(&B.rec, B.calls, B.wilds, where,
		                             sizeof(where), why, sizeof(why)) != 0)
			mpi_bcs_diverged(where, why);
	}
	struct bcs_desc d = {.kind = BCS_D_FINALIZE, .me = B.rank,
	                     .peer = -1, .peer_world = -1};
	mpi_bcs_post(&d);
	wait_drained();
	mpi_bcs_fini();
}

void
mpi_bcs_say(FILE *f)
{
	fprintf(f, "grove-mpi: %d ranks on %s; BCS mode: descriptors to the "
	        "node manager (pid %d) through %u KiB rings; waits sleep at "
	        "once%s%s\n", mpi_proc.size, mpi_proc.processor_name,
	        (int)__atomic_load_n(&B.job->hdr->bcs_nm_pid, __ATOMIC_RELAXED),
	        B.cap >> 10, B.record ? "; recording (GROVE_BCS_RECORD)" : "",
	        B.replaying ? "; replaying (GROVE_BCS_REPLAY)" : "");
}

/* ---- posting ------------------------------------------------------------- */

/* The descriptor ring is full: sleep until the node manager, which drains
 * every ring once per slice, makes room and wakes us.  It looks for the
 * space-wanted flag without a fence (ring.h), so a wake-up may be missed:
 * sleep in 1 ms naps, as direct mode's producers do. */
static void
wait_for_space(void)
{
	struct mpi_rank_ctl *c = mpi_job_ctl(B.job, (uint32_t)B.rank);
	uint32_t seq = __atomic_load_n(&c->wake_seq, __ATOMIC_ACQUIRE);
	__atomic_store_n(&c->sleeping, 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	uint64_t head = __atomic_load_n(&B.to_nm->head, __ATOMIC_ACQUIRE);
	if (head == B.head_cache) {
		struct timespec ts = {0, 1000000};
		futex_wait(&c->wake_seq, seq, &ts);
	}
	__atomic_store_n(&c->sleeping, 0, __ATOMIC_RELAXED);
}

void
mpi_bcs_post(const struct bcs_desc *d)
{
	uint32_t rb = mpi_wire_rec_bytes(sizeof(*d));
	struct mpi_wire *w;
	while ((w = mpi_ring_reserve(B.to_nm, B.cap, rb, &B.head_cache)) ==
	       NULL) {
		/* Completions only: advancing a schedule here would post its
		 * steps ahead of this descriptor, out of the program's order. */
		drain();
		wait_for_space();
	}
	uint32_t rec = w->rec_bytes;
	memset((char *)w + sizeof(w->stamp), 0, MPI_WIRE_HDR - sizeof(w->stamp));
	w->rec_bytes = rec;
	w->type = MPI_W_BCS;
	w->bytes = sizeof(*d);
	memcpy((char *)w + MPI_WIRE_HDR, d, sizeof(*d));
	/* No wake-up: the node manager drains the rings at the next slice. */
	mpi_ring_commit(B.to_nm, B.cap, w);
}

/* ---- completions --------------------------------------------------------- */

static void
dispatch(const struct bcs_done *dn)
{
	switch (dn->kind) {
	case BCS_D_SEND:
	case BCS_D_RECV:
	case BCS_D_CANCEL:
	case BCS_D_PROBE:
		mpi_bcs_p2p_done(dn);
		return;
	case BCS_D_BARRIER:
	case BCS_D_BCAST:
	case BCS_D_REDUCE:
	case BCS_D_ALLREDUCE:
		mpi_bcs_coll_done(dn);
		return;
	default:
		/* Notes and finalize have no completion: a node manager that
		 * sends one, or something else, is ignored (said once). */
		if (!B.warned_kind) {
			B.warned_kind = true;
			fprintf(stderr, "grove-mpi: rank %d: the node manager sent a "
			        "completion of kind %d (ignored)\n", B.rank, dn->kind);
		}
		return;
	}
}

static int
drain(void)
{
	int n = 0;
	struct mpi_wire *w;
	while ((w = mpi_ring_peek(B.from_nm, B.cap)) != NULL) {
		struct bcs_done dn;
		bool ok = w->type == MPI_W_BCS &&
		          w->rec_bytes >= MPI_WIRE_HDR + sizeof(dn);
		if (ok)
			memcpy(&dn, (char *)w + MPI_WIRE_HDR, sizeof(dn));
		else
			memset(&dn, 0, sizeof(dn));
		/* Released first: completing may free the request, never the
		 * ring record. */
		mpi_ring_release(B.from_nm, B.cap, w);
		dispatch(&dn);
		n++;
	}
	/* The node manager keeps what does not fit and never waits for room:
	 * its space-wanted flag needs no answer. */
	if (n)
		mpi_ring_space_wanted(B.from_nm);
	return n;
}

int
mpi_bcs_progress(void)
{
	int ev = drain();
	ev += mpi_sched_progress_all();
	/* A program polling with a test call finds nothing before the next
	 * slice: give the core to the node manager or a rank that computes. */
	if (ev == 0)
		sched_yield();
	return ev;
}

/* ---- probes the node manager has yet to answer ----------------------------- */

struct mpi_bcs_probe *
mpi_bcs_probe_new(MPI_Comm comm, int source, int tag, bool take)
{
	struct mpi_bcs_probe *p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->id = ++B.probe_ids;
	p->comm = comm;
	mpi_comm_retain(comm);
	p->ctx = comm->ctx_p2p;
	p->source = source;
	p->tag = tag;
	p->take = take;
	p->next = B.probes;
	B.probes = p;
	return p;
}

struct mpi_bcs_probe *
mpi_bcs_probe_find(uint32_t ctx, int source, int tag, bool take)
{
	for (struct mpi_bcs_probe *p = B.probes; p; p = p->next)
		if (p->ctx == ctx && p->source == source && p->tag == tag &&
		    p->take == take)
			return p;
	return NULL;
}

struct mpi_bcs_probe *
mpi_bcs_probe_of(uint64_t id)
{
	for (struct mpi_bcs_probe *p = B.probes; p; p = p->next)
		if (p->id == id)
			return p;
	return NULL;
}

void
mpi_bcs_probe_unlist(struct mpi_bcs_probe *p)
{
	for (struct mpi_bcs_probe **pp = &B.probes; *pp; pp = &(*pp)->next)
		if (*pp == p) {
			*pp = p->next;
			p->next = NULL;
			return;
		}
}

void
mpi_bcs_probe_free(struct mpi_bcs_probe *p)
{
	if (!p)
		return;
	if (p->comm)
		mpi_comm_release(p->comm);
	free(p);
}

/* ---- record and replay ------------------------------------------------------ */

const struct mpi_bcs_record *
mpi_bcs_replay(void)
{
	return B.replaying ? &B.rec : NULL;
}

const char *
mpi_bcs_replay_file(void)
{
	return B.replay_file ? B.replay_file : "";
}

uint32_t
mpi_bcs_next_call(enum mpi_fn fn)
{
	uint32_t k = B.calls++;
	if (B.replaying && B.rec.has_end && k >= B.rec.end_calls) {
		char where[80], why[160];
		snprintf(where, sizeof(where), "test-family call %u (%s)", k,
		         mpi_fn_names[fn]);
		snprintf(why, sizeof(why), "the recorded run made %u test-family "
		         "calls in all (line %u)", B.rec.end_calls, B.rec.end_line);
		mpi_bcs_diverged(where, why);
	}
	return k;
}

uint32_t
mpi_bcs_next_wild(void)
{
	uint32_t k = B.wilds++;
	if (B.replaying && B.rec.has_end && k >= B.rec.end_wilds) {
		char where[64], why[160];
		snprintf(where, sizeof(where), "MPI_ANY_SOURCE receive %u", k);
		snprintf(why, sizeof(why), "the recorded run posted %u such "
		         "receives in all (line %u)", B.rec.end_wilds,
		         B.rec.end_line);
		mpi_bcs_diverged(where, why);
	}
	return k;
}

void
mpi_bcs_note(enum mpi_fn fn, uint32_t k, uint32_t count, uint64_t mask,
             int source, int tag)
{
	if (!B.record)
		return;
	struct bcs_desc d = {
		.kind = BCS_D_NOTE, .me = B.rank, .peer = (int32_t)fn,
		.peer_world = source, .tag = tag, .seq = k, .count = count,
		.addr = mask,
	};
	mpi_bcs_post(&d);
}

void
mpi_bcs_diverged(const char *where, const char *what)
{
	fprintf(stderr, "grove-mpi: rank %d: replay of %s diverged at %s: %s\n",
	        B.rank, mpi_bcs_replay_file(), where, what);
	mpi_abort_job(1);
}

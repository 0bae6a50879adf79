/* MPI_Init and MPI_Finalize: the process's place in the job (the job
 * segment the launcher made, or a segment of its own for a singleton),
 * wire-up through Grove's tree, and the end of the job (MPI_Abort). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "mpi/bcs_rank.h"
#include "mpi/clusters.h"
#include "mpi/boot.h"
#include "mpi/job.h"
#include "mpi/p2p.h"
#include "mpi/tcp_chan.h"

struct mpi_proc mpi_proc;

/* The job segment of this process: one per process, like mpi_proc. */
static struct mpi_job job_segment;

/* A word peers read with process_vm_readv at start-up, to learn whether
 * the kernel lets them read this process's memory. */
static volatile uint64_t cma_probe_word;

void mpi_bsend_fini(void);

int
mpi_check_initialized(enum mpi_fn fn)
{
	if (__builtin_expect(mpi_proc.state == 1, 1))
		return MPI_SUCCESS;
	/* No communicator exists to report on: say it and return. */
	fprintf(stderr, "grove-mpi: %s called %s\n", mpi_fn_names[fn],
	        mpi_proc.state == 0 ? "before MPI_Init" : "after MPI_Finalize");
	return MPI_ERR_OTHER;
}

static int
env_int(const char *name, int *out)
{
	const char *s = getenv(name);
	if (!s || !*s)
		return -1;
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || *end || v < 0 || v > 1 << 24)
		return -1;
	*out = (int)v;
	return 0;
}

/* Reports a start-up failure and ends the job: without MPI_Init no
 * error handler exists, and MPI_ERRORS_ARE_FATAL is the default. */
static void __attribute__((noreturn))
init_fail(const char *fmt, const char *detail)
{
	fprintf(stderr, "grove-mpi: rank %d: MPI_Init: ", mpi_proc.rank);
	fprintf(stderr, fmt, detail);
	fputc('\n', stderr);
	if (mpi_proc.job)
		mpi_abort_job(1);
	mpi_boot_abort(1);
	_exit(1);
}

/* A rank grove run started on another host (--hosts): no segment to
 * inherit, so it makes one of its own for its control block and
 * statistics; the TCP transport joins it to the others.  Returns 1 when
 * this is such a rank. */
static int
attach_own_segment(void)
{
	int rank, size;
	const char *t = getenv("GROVE_MPI_TRANSPORT");
	const char *id = getenv("GROVE_MPI_JOBID");
	if (!t || strcmp(t, "tcp") != 0 || !id || !*id ||
	    env_int("GROVE_MPI_RANK", &rank) != 0 ||
	    env_int("GROVE_MPI_SIZE", &size) != 0 || size < 1 || rank >= size)
		return 0;
	mpi_proc.rank = rank;
	int rc = mpi_job_create(&job_segment, (uint32_t)size, id, 0);
	if (rc != 0)
		init_fail("cannot make this host's job segment: %s", strerror(-rc));
	mpi_proc.size = size;
	return 1;
}

static int
attach_job(void)
{
	char err[512];
	int fd;
	if (env_int("GROVE_MPI_JOB_FD", &fd) != 0) {
		if (attach_own_segment())
			return 0;
		/* Not grove run: srun or mpirun (boot.c), or no launcher. */
		int booted = mpi_boot_launcher(&job_segment, &mpi_proc.rank,
		                               &mpi_proc.size, err, sizeof(err));
		if (booted < 0)
			init_fail("%s", err);
		if (booted > 0)
			return 0;
		/* No launcher: a job of one. */
		char id[40];
		snprintf(id, sizeof(id), "singleton-%d", (int)getpid());
		int rc = mpi_job_create(&job_segment, 1, id, 0);
		if (rc != 0)
			init_fail("cannot make the job segment: %s", strerror(-rc));
		mpi_proc.singleton = true;
		mpi_proc.rank = 0;
		mpi_proc.size = 1;
		return 0;
	}
	if (mpi_job_attach(&job_segment, fd, err, sizeof(err)) != 0)
		init_fail("%s (was this program started by grove run?)", err);
	int rank, size;
	if (env_int("GROVE_MPI_RANK", &rank) != 0 ||
	    env_int("GROVE_MPI_SIZE", &size) != 0)
		init_fail("%s", "GROVE_MPI_RANK or GROVE_MPI_SIZE missing or "
		                "invalid (was this program started by grove run?)");
	if ((uint32_t)size != job_segment.hdr->nranks || rank >= size) {
		snprintf(err, sizeof(err),
		         "rank %d of %d does not fit the job segment's %u ranks",
		         rank, size, job_segment.hdr->nranks);
		init_fail("%s", err);
	}
	mpi_proc.rank = rank;
	mpi_proc.size = size;
	return 0;
}

static void
say_transport(void)
{
	const char *why = NULL;
	bool cma = mpi_p2p_cma(&why);
	fprintf(stderr,
	        "grove-mpi: %d ranks on %s; shared memory: eager up to %u B "
	        "through %u KiB rings; large messages: %s%s%s%s; waits %s\n",
	        mpi_proc.size, mpi_proc.processor_name,
	        job_segment.hdr->eager_limit, job_segment.hdr->ring_bytes >> 10,
	        cma ? "single copy (process_vm_readv)"
	            : "copied through the rings",
	        cma ? "" : " (", cma ? "" : (why ? why : "unknown"), cma ? "" : ")",
	        mpi_spin_budget() > 0 ? "spin briefly, then sleep"
	                              : "sleep at once (more ranks than cores)");
}

/* The transport between this rank and its peers: shared memory, or TCP
 * (GROVE_MPI_TRANSPORT=tcp, tcp_chan.h), whose listener must exist
 * before the card that names it is sent. */
static void
transport_setup(int bcs)
{
	char err[512];
	if (mpi_tcp_setup(mpi_proc.rank, mpi_proc.size, job_segment.hdr->jobid,
	                  err, sizeof(err)) != 0)
		init_fail("TCP transport: %s", err);
	if (bcs && mpi_tcp_active())
		init_fail("%s", "BCS mode (grove run --bcs) runs on shared memory "
		                "only, not with the TCP transport");
}

static double
mono_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int
init_common(int required, int *provided)
{
	if (mpi_proc.state != 0) {
		fprintf(stderr, "grove-mpi: MPI_Init called %s\n",
		        mpi_proc.state == 1 ? "twice" : "after MPI_Finalize");
		return MPI_ERR_OTHER;
	}
	if (mpi_proc.wtime0 == 0)
		mpi_proc.wtime0 = mono_now();
	mpi_proc.thread_level = required > MPI_THREAD_SERIALIZED
	                            ? MPI_THREAD_SERIALIZED
	                            : (required < MPI_THREAD_SINGLE
	                                   ? MPI_THREAD_SINGLE
	                                   : required);
	if (provided)
		*provided = mpi_proc.thread_level;
	mpi_proc.verbose = getenv("GROVE_MPI_VERBOSE") != NULL;
	if (gethostname(mpi_proc.processor_name,
	                sizeof(mpi_proc.processor_name) - 1) != 0)
		snprintf(mpi_proc.processor_name, sizeof(mpi_proc.processor_name),
		         "localhost");

	attach_job();
	mpi_proc.job = &job_segment;
	char err[512];
	int bcs = mpi_bcs_detect(&job_segment, err, sizeof(err));
	if (bcs < 0)
		init_fail("%s", err);
	/* Under Yama's ptrace restrictions only a declared tracer may read
	 * this process's memory: let the job's other ranks (CMA). */
	prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
	struct mpi_rank_ctl *me = mpi_job_ctl(&job_segment, (uint32_t)mpi_proc.rank);
	cma_probe_word = 0x4752564dull ^ (uint64_t)getpid();
	me->pid = (int32_t)getpid();
	me->probe_value = cma_probe_word;
	__atomic_store_n(&me->probe_addr, (uint64_t)(uintptr_t)&cma_probe_word,
	                 __ATOMIC_RELEASE);
	__atomic_store_n(&me->state, MPI_RANK_INIT, __ATOMIC_RELEASE);

	if (!mpi_proc.singleton && !mpi_boot_active())
		transport_setup(bcs);
	if (mpi_boot_active()) {
		if (mpi_boot_ready(err, sizeof(err)) != 0)
			init_fail("start-up through the launcher failed: %s", err);
	} else if (!mpi_proc.singleton) {
		/* Every rank publishes its control block before it joins: when
		 * the allgather returns, every peer's pid and probe are there. */
		if (mpi_wireup(&job_segment, mpi_proc.rank, mpi_proc.size, err,
		               sizeof(err)) != 0)
			init_fail("wire-up through the tree failed: %s", err);
	}
	if (mpi_clusters_init(mpi_proc.size, err, sizeof(err)) != 0)
		init_fail("%s", err);
	int rc;
	if (bcs) {
		/* BCS mode: no transport of our own, the node manager moves
		 * everything (bcs_rank.c). */
		if (mpi_bcs_init(&job_segment, mpi_proc.rank, mpi_proc.size,
		                 MPI_BCS_NM_WAIT_S, err, sizeof(err)) != 0)
			init_fail("%s", err);
	} else {
		int *pids = calloc((size_t)mpi_proc.size, sizeof(int));
		if (!pids)
			init_fail("%s", "out of memory");
		for (int r = 0; r < mpi_proc.size; r++)
			pids[r] = __atomic_load_n(
				&mpi_job_ctl(&job_segment, (uint32_t)r)->pid,
				__ATOMIC_ACQUIRE);
		rc = mpi_p2p_init(&job_segment, mpi_proc.rank, mpi_proc.size, pids);
		free(pids);
		if (rc)
			init_fail("%s", "out of memory");
	}
	rc = mpi_comm_init_world(mpi_proc.rank, mpi_proc.size);
	if (rc)
		init_fail("%s", "cannot set up MPI_COMM_WORLD");
	mpi_proc.state = 1;
	mpi_stats_init();
	__atomic_store_n(&me->state, MPI_RANK_RUNNING, __ATOMIC_RELEASE);
	if (mpi_proc.verbose && mpi_proc.rank == 0) {
		if (bcs)
			mpi_bcs_say(stderr);
		else if (mpi_tcp_active())
			mpi_tcp_say(stderr);
		else
			say_transport();
	}
	if (required == MPI_THREAD_MULTIPLE && mpi_proc.rank == 0)
		/* Refused, as the standard allows (provided says so); said once
		 * per job, since a program that does not check provided would
		 * otherwise learn it from a crash. */
		fprintf(stderr, "grove-mpi: MPI_Init_thread: MPI_THREAD_MULTIPLE "
		                "is not supported; provided MPI_THREAD_SERIALIZED\n");
	return MPI_SUCCESS;
}

int
PMPI_Init(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return init_common(MPI_THREAD_SINGLE, NULL);
}

int
PMPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
	(void)argc;
	(void)argv;
	if (required < MPI_THREAD_SINGLE || required > MPI_THREAD_MULTIPLE) {
		fprintf(stderr, "grove-mpi: MPI_Init_thread: required level %d is "
		                "not a thread level\n", required);
		return MPI_ERR_ARG;
	}
	return init_common(required, provided);
}

int
PMPI_Finalize(void)
{
	int rc = mpi_check_initialized(MPI_FN_Finalize);
	if (rc)
		return rc;
	/* The run time of the statistics ends where finalization starts. */
	mpi_stats_fini();
	mpi_bsend_fini();
	/* Every rank gets here before any leaves: messages still in flight
	 * (a peer reading our memory, records in our outboxes) complete. */
	PMPI_Barrier(MPI_COMM_WORLD);
	if (mpi_bcs_mode)
		mpi_bcs_finalize();
	else
		mpi_p2p_quiesce();
	if (mpi_boot_active())
		mpi_boot_fini();
	else if (!mpi_proc.singleton)
		mpi_wireup_fini();
	struct mpi_rank_ctl *me = mpi_job_ctl(&job_segment, (uint32_t)mpi_proc.rank);
	__atomic_store_n(&me->state, MPI_RANK_FINALIZED, __ATOMIC_RELEASE);
	mpi_comm_fini();
	mpi_p2p_fini();
	mpi_clusters_fini();
	mpi_proc.state = 2;
	/* The segment stays mapped: the launcher reads it after we exit, and
	 * MPI_Finalized and friends may still be called. */
	return MPI_SUCCESS;
}

void
mpi_abort_job(int code)
{
	if (mpi_proc.job) {
		struct mpi_job_hdr *h = mpi_proc.job->hdr;
		int32_t none = 0;
		if (__atomic_compare_exchange_n(&h->abort_rank1, &none,
		                                mpi_proc.rank + 1, false,
		                                __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			__atomic_store_n(&h->abort_code, code, __ATOMIC_RELEASE);
		__atomic_store_n(&mpi_job_ctl(mpi_proc.job, (uint32_t)mpi_proc.rank)->state,
		                 MPI_RANK_ABORTED, __ATOMIC_RELEASE);
	}
	fflush(stdout);
	fflush(stderr);
	mpi_boot_abort(code);
	_exit(code & 0xff ? code & 0xff : (code ? 1 : 0));
}

int
PMPI_Abort(MPI_Comm comm, int errorcode)
{
	(void)comm;
	/* grove run says it for the ranks it started; srun and mpirun do
	 * not know the code. */
	if (mpi_proc.singleton || mpi_proc.state != 1 || mpi_boot_active())
		fprintf(stderr, "grove-mpi: rank %d called MPI_Abort with code %d\n",
		        mpi_proc.rank, errorcode);
	mpi_abort_job(errorcode);
}

/* grove run --bcs: the machine manager and strobe sender of a BCS job
 * (docs/bcs.md).
 *
 * Before the ranks start, grove run makes the BCS machine: a Grove
 * network in attach mode whose back-end is the host's node manager
 * (grove-bcs-node, started here with the job segment's descriptor), and
 * opens it as its manager (src/bcs).  Then a thread of its own sends the
 * strobe: it starts every time slice at an absolute time and runs its
 * microphases over the tree (src/bcs/strobe.h) until the job is over.  The
 * thread owns the BCS network; the launcher's event loop hears from it
 * only through an eventfd, when the strobe failed (a node manager lost, a
 * microphase that never ends), and then ends the job with its message.
 * The node manager's own end before the ranks' ends the job too, naming
 * it. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bcs/emds.h"
#include "bcs/strobe.h"
#include "core/install_dirs.h"
#include "grove/bcs.h"
#include "grove/trace.h"
#include "run.h"
#include "trace/space.h"

/* How long the node manager may take to join (it is a local process
 * that starts in milliseconds; a loaded machine may take longer). */
#define RUN_BCS_JOIN_MS 30000

struct run_bcs {
	grove_net *net;
	grove_bcs *mgr;
	pthread_t thread;
	bool thread_started;
	atomic_bool stop;        /* the job is over: end the strobe */
	int efd;                 /* written when the strobe failed */
	char err[1024];          /* why (written by the thread before efd) */
	bcs_emds emds;           /* global EMDS, when --emds */
	bool emds_on;
	bcs_strobe_result res;
	uint64_t slice_ns;
	struct trace_calib cal0;  /* event-space clock vs monotonic, at start */
	bool realtime;            /* the strobe thread runs SCHED_FIFO */
};

static bool
strobe_stop(void *arg, uint64_t slice)
{
	(void)slice;
	struct run_bcs *b = arg;
	return atomic_load_explicit(&b->stop, memory_order_acquire);
}

/* The strobe is the job's clock: like the NIC thread of bcs-mpi.txt it
 * should not wait for a core behind the ranks.  Real-time priority 1
 * (the lowest) when the system allows it (root, CAP_SYS_NICE or an
 * RLIMIT_RTPRIO); else it runs as any thread.  It sleeps between
 * microphases, so it takes no more of a core than it did before.
 * GROVE_BCS_RT=0 keeps it off. */
static bool
strobe_realtime(void)
{
	const char *e = getenv("GROVE_BCS_RT");
	if (e && !strcmp(e, "0"))
		return false;
	struct sched_param sp = {.sched_priority = 1};
	return pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp) == 0;
}

static void *
strobe_thread(void *arg)
{
	struct run_bcs *b = arg;
	b->realtime = strobe_realtime();
	bcs_strobe_cfg cfg = {
		.slice_ns = b->slice_ns, .stop = strobe_stop, .arg = b,
		.emds = b->emds_on ? &b->emds : NULL,
	};
	int rc = bcs_strobe_sender_run(b->mgr, &cfg, &b->res);
	if (rc != 0 && !atomic_load(&b->stop)) {
		snprintf(b->err, sizeof b->err, "the strobe stopped: %s",
		         grove_bcs_last_error(b->mgr)[0]
		             ? grove_bcs_last_error(b->mgr) : grove_strerror(rc));
		uint64_t one = 1;
		if (write(b->efd, &one, sizeof one) < 0) {
			/* The node manager's exit ends the job anyway. */
		}
	}
	return NULL;
}

/* Starts grove-bcs-node with the job segment and the machine's
 * connection file. */
static int
start_node_manager(struct run_job *job, const char *connect)
{
	const struct run_opts *o = job->o;
	char exe[4096], refused[2048];
	if (install_find_program("grove-bcs-node", exe, sizeof exe, refused,
	                         sizeof refused) != 0 && access(exe, X_OK) != 0) {
		fprintf(stderr, "%s: --bcs needs grove-bcs-node, which is not "
		    "found (%s)\n", RUN_CMD, refused);
		return -1;
	}
	char fd_s[16], slice_s[32], stall_s[32], emds_s[64];
	snprintf(fd_s, sizeof fd_s, "%d", job->seg.fd);
	snprintf(slice_s, sizeof slice_s, "%" PRIu64, o->slice_ns);
	const char *stall = getenv("GROVE_BCS_STALL_MS");
	snprintf(stall_s, sizeof stall_s, "%s", stall && *stall ? stall : "5000");
	snprintf(emds_s, sizeof emds_s, "%" PRIu64 ":%" PRIu64, o->emds_from,
	         o->emds_to);
	const char *argv[24];
	int a = 0;
	argv[a++] = "grove-bcs-node";
	argv[a++] = "--job-fd";
	argv[a++] = fd_s;
	argv[a++] = "--slice-ns";
	argv[a++] = slice_s;
	argv[a++] = "--stall-ms";
	argv[a++] = stall_s;
	argv[a++] = "--connect";
	argv[a++] = connect;
	if (o->record) {
		argv[a++] = "--record";
		argv[a++] = o->record;
	}
	if (o->replay) {
		argv[a++] = "--replay";
		argv[a++] = o->replay;
	}
	if (o->emds) {
		argv[a++] = "--emds";
		argv[a++] = emds_s;
		argv[a++] = "--emds-out";
		argv[a++] = o->emds_out;
	}
	argv[a] = NULL;

	pid_t launcher = getpid();
	pid_t pid = fork();
	if (pid < 0) {
		fprintf(stderr, "%s: cannot start the node manager: %s\n", RUN_CMD,
		    strerror(errno));
		return -1;
	}
	if (pid == 0) {
		/* Dies with the launcher, as the ranks do. */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != launcher)
			_exit(127);
		if (fcntl(job->seg.fd, F_SETFD, 0) != 0)
			_exit(127);
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGPIPE, SIG_DFL);
		/* Ctrl-C goes to the launcher, which ends the job in order. */
		signal(SIGINT, SIG_IGN);
		execv(exe, (char *const *)argv);
		fprintf(stderr, "%s: cannot run %s: %s\n", RUN_CMD, exe,
		    strerror(errno));
		_exit(127);
	}
	job->bcs_nm = pid;
	if (o->verbose)
		fprintf(stderr, "%s: node manager %s (pid %d), slice %.3f ms\n",
		    RUN_CMD, exe, (int)pid, (double)o->slice_ns / 1e6);
	return 0;
}

int
run_bcs_start(struct run_job *job)
{
	const struct run_opts *o = job->o;
	struct run_bcs *b = calloc(1, sizeof *b);
	if (!b) {
		fprintf(stderr, "%s: out of memory\n", RUN_CMD);
		return -1;
	}
	job->bcs = b;
	b->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	b->slice_ns = o->slice_ns;
	if (b->efd < 0) {
		fprintf(stderr, "%s: eventfd: %s\n", RUN_CMD, strerror(errno));
		return -1;
	}
	trace_calib_now(grove_trace_clock_tsc_, &b->cal0);
	if (o->emds) {
		if (bcs_emds_init(&b->emds, 0, 0, o->emds_from, o->emds_to, b->err,
		                  sizeof b->err) != 0) {
			fprintf(stderr, "%s: --emds: %s\n", RUN_CMD, b->err);
			return -1;
		}
		b->emds_on = true;
	}
	char connect[4200];
	snprintf(connect, sizeof connect, "%.4000s/bcs.connect", job->dir);
	grove_net_opts no;
	grove_net_opts_init(&no);
	no.topology = "flat";
	no.backends = 1; /* one node manager per host */
	no.mode = GROVE_LAUNCH_ATTACH;
	no.connect_file = connect;
	int rc = grove_net_create(&no, &b->net);
	if (rc != 0) {
		fprintf(stderr, "%s: cannot create the BCS machine's network: %s\n",
		    RUN_CMD, b->net ? grove_net_last_error(b->net)
		                    : grove_strerror(rc));
		return -1;
	}
	if (start_node_manager(job, connect) != 0)
		return -1;
	rc = grove_net_wait_backends(b->net, 1, RUN_BCS_JOIN_MS);
	if (rc == 0) {
		grove_bcs_opts bo;
		grove_bcs_opts_init(&bo);
		bo.timeout_ms = RUN_BCS_JOIN_MS;
		rc = grove_bcs_manager_open(b->net, &bo, &b->mgr);
	}
	if (rc != 0) {
		fprintf(stderr, "%s: the node manager did not join: %s\n", RUN_CMD,
		    b->mgr ? grove_bcs_last_error(b->mgr)
		    : grove_net_last_error(b->net)[0] ? grove_net_last_error(b->net)
		    : grove_strerror(rc));
		return -1;
	}
	if ((rc = pthread_create(&b->thread, NULL, strobe_thread, b)) != 0) {
		fprintf(stderr, "%s: cannot start the strobe: %s\n", RUN_CMD,
		    strerror(rc));
		return -1;
	}
	b->thread_started = true;
	return 0;
}

int
run_bcs_fd(const struct run_job *job)
{
	return job->bcs ? job->bcs->efd : -1;
}

void
run_bcs_failed(struct run_job *job)
{
	uint64_t v;
	if (!job->bcs || read(job->bcs->efd, &v, sizeof v) != sizeof v)
		return;
	/* One host: the machine's only node is its node manager. */
	run_end_job(job, 1, "the node manager (grove-bcs-node, pid %d) is out "
	    "of step: %s; ending the job", (int)job->bcs_nm, job->bcs->err);
}

void
run_bcs_exited(struct run_job *job, int status)
{
	pid_t pid = job->bcs_nm;
	job->bcs_nm = 0;
	if (job->phase == RUN_ENDING || job->live == 0)
		return;
	char how[64];
	if (WIFSIGNALED(status))
		snprintf(how, sizeof how, "was killed by signal %d",
		         WTERMSIG(status));
	else
		snprintf(how, sizeof how, "ended (status %d)", WEXITSTATUS(status));
	run_end_job(job, 1, "the node manager (grove-bcs-node, pid %d) %s "
	    "while ranks still ran; ending the job", (int)pid, how);
}

static int
write_emds(struct run_bcs *b, const char *prefix)
{
	char path[4200];
	int rc = 0;
	for (int json = 0; json < 2; json++) {
		snprintf(path, sizeof path, "%.4000s.global.%s", prefix,
		         json ? "json" : "csv");
		FILE *f = fopen(path, "w");
		if (!f || (json ? bcs_emds_write_json(&b->emds, f)
		                : bcs_emds_write_csv(&b->emds, f)) != 0) {
			fprintf(stderr, "%s: cannot write %s: %s\n", RUN_CMD, path,
			    strerror(errno));
			rc = -1;
		}
		if (f && fclose(f) != 0)
			rc = -1;
	}
	return rc;
}

/* The global EMDS rows into the launcher's event space too, so that
 * grove trace shows the slices beside the ranks' MPI calls: per slice a
 * span "bcs_slice" (strobe to the slice's end, GTTS; result = the slice
 * number), "bcs_dem" (GTDEM; result = USRDEM) and "bcs_msm" (GTMSM;
 * result = USRMSM), layer "bcs".  The strobe's times are CLOCK_MONOTONIC:
 * two pairs of clock readings (start, now) map them onto the event
 * space's clock. */
static void
emds_to_trace(struct run_bcs *b)
{
	if (!grove_trace_enabled())
		return;
	struct trace_calib c1;
	trace_calib_now(grove_trace_clock_tsc_, &c1);
	double rate = c1.mono_ns > b->cal0.mono_ns
	    ? (double)(c1.ticks - b->cal0.ticks) /
	      (double)(c1.mono_ns - b->cal0.mono_ns) : 1.0;
	grove_trace_collector cs, cd, cm;
	grove_trace_collector_register(&cs, "bcs_slice", "bcs", "strobe",
	    "slice");
	grove_trace_collector_register(&cd, "bcs_dem", "bcs", "strobe", "DEM");
	grove_trace_collector_register(&cm, "bcs_msm", "bcs", "strobe", "MSM");
	for (uint64_t s = b->emds.from; s <= b->emds.to; s++) {
		uint64_t v[BCS_EMDS_GLOBAL_N], t0;
		if (!bcs_emds_row(&b->emds, s, v, &t0) || t0 < b->cal0.mono_ns)
			continue;
		uint64_t k = b->cal0.ticks +
		    (uint64_t)((double)(t0 - b->cal0.mono_ns) * rate);
		uint64_t dem = (uint64_t)((double)v[BCS_GTDEM] * rate);
		uint64_t msm = (uint64_t)((double)v[BCS_GTMSM] * rate);
		uint64_t all = (uint64_t)((double)v[BCS_GTTS] * rate);
		grove_trace_record(&cs, GROVE_OP_USER, (int32_t)(s & INT32_MAX),
		    k, k + all);
		grove_trace_record(&cd, GROVE_OP_USER, (int32_t)v[BCS_USRDEM],
		    k, k + dem);
		if (v[BCS_GTMSM])
			grove_trace_record(&cm, GROVE_OP_USER,
			    (int32_t)v[BCS_USRMSM], k + dem, k + dem + msm);
	}
}

int
run_bcs_stop(struct run_job *job)
{
	struct run_bcs *b = job->bcs;
	int rc = 0;
	if (b && b->thread_started) {
		atomic_store_explicit(&b->stop, true, memory_order_release);
		pthread_join(b->thread, NULL);
		b->thread_started = false;
		if (job->o->verbose)
			fprintf(stderr, "%s: %" PRIu64 " slices of %.3f ms, %" PRIu64
			    " ended early, %" PRIu64 " synchronization retries; "
			    "strobe %s\n", RUN_CMD, b->res.slices,
			    (double)b->slice_ns / 1e6, b->res.short_slices,
			    b->res.retries, b->realtime ? "real-time (SCHED_FIFO 1)"
			    : "at normal priority");
	}
	if (b && b->emds_on && write_emds(b, job->o->emds_out) != 0)
		rc = -1;
	if (b && b->emds_on)
		emds_to_trace(b);
	/* The node manager leaves when the strobe stops; give it a moment
	 * to write its files, then make sure. */
	if (job->bcs_nm > 0) {
		int st;
		for (int i = 0; i < 200; i++) {
			pid_t p = waitpid(job->bcs_nm, &st, WNOHANG);
			if (p == job->bcs_nm) {
				job->bcs_nm = 0;
				break;
			}
			usleep(10000);
		}
		if (job->bcs_nm > 0) {
			kill(job->bcs_nm, SIGKILL);
			while (waitpid(job->bcs_nm, NULL, 0) < 0 && errno == EINTR)
				;
			job->bcs_nm = 0;
		}
	}
	if (b) {
		grove_bcs_close(b->mgr);
		grove_net_destroy(b->net);
		if (b->efd >= 0)
			close(b->efd);
		if (b->emds_on)
			bcs_emds_fini(&b->emds);
		free(b);
		job->bcs = NULL;
	}
	return rc;
}

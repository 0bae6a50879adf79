/* grove run: the life of a job, from the command line to the exit
 * status.
 *
 *   watchdog      forked first, before anything exists that it may have to
 *                 remove
 *   job id        random; names the directory and the event spaces of the
 *                 ranks (grove.<id>.mpi.<rank>) and the launcher (.run.0)
 *   directory     private (0700) under $TMPDIR or /tmp: the connection file
 *   network       Grove front-end, attach mode, flat: the ranks attach in
 *                 MPI_Init (the wire-up)
 *   job segment   memfd, inherited by the ranks (GROVE_MPI_JOB_FD)
 *   ranks         forked and exec'd; then the event loop until all are
 *                 gone; then statistics and cleanup.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/random.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../cmds.h"
#include "grove/trace.h"
#include "run.h"
#include "stats_report.h"
#include "trace/space.h"
#include "../toolutil.h"

/* Descriptors 0-2 open, so that no pipe or segment of the job lands on
 * one and is mistaken for a standard stream by the ranks. */
static void
std_fds_open(void)
{
	for (int fd = 0; fd < 3; fd++)
		if (fcntl(fd, F_GETFD) < 0 && errno == EBADF) {
			int n = open("/dev/null", O_RDWR);
			if (n >= 0 && n != fd) {
				dup2(n, fd);
				close(n);
			}
		}
}

/* The job's id: 16 random hex digits.  It names the event spaces of the
 * ranks (/dev/shm/grove.<id>.mpi.<rank>) and of the launcher, and the
 * job's directory.  Not the network's id: the front-end removes its
 * network's event spaces when it is destroyed, and --keep-trace must
 * keep the ranks'. */
static int
make_jobid(struct run_job *job)
{
	unsigned char b[8];
	if (getrandom(b, sizeof b, 0) != (ssize_t)sizeof b) {
		fprintf(stderr, "%s: no randomness for the job id: %s\n", RUN_CMD,
		    strerror(errno));
		return -1;
	}
	for (size_t i = 0; i < sizeof b; i++)
		snprintf(job->jobid + 2 * i, 3, "%02x", b[i]);
	return 0;
}

static void
tell(struct run_job *job, const char *fmt, const char *arg)
{
	char line[4200];
	snprintf(line, sizeof line, fmt, arg);
	if (job->watchdog_fd >= 0)
		run_watchdog_tell(job->watchdog_fd, line);
}

/* The private directory (mode 0700: the connection file in it holds
 * the network's secret), named after the job.  The watchdog learns its
 * name before it exists. */
static int
make_dir(struct run_job *job)
{
	const char *base = getenv("TMPDIR");
	if (!base || !*base)
		base = "/tmp";
	int w = snprintf(job->dir, sizeof job->dir, "%s/grove-run.%s", base,
	    job->jobid);
	if (w < 0 || (size_t)w >= sizeof job->dir) {
		fprintf(stderr, "%s: TMPDIR is too long: %s\n", RUN_CMD, base);
		job->dir[0] = '\0';
		return -1;
	}
	tell(job, "dir %s", job->dir);
	if (mkdir(job->dir, 0700) != 0) {
		fprintf(stderr, "%s: cannot make the job's directory %s: %s\n",
		    RUN_CMD, job->dir, strerror(errno));
		job->dir[0] = '\0';
		return -1;
	}
	snprintf(job->connect, sizeof job->connect, "%s/connect", job->dir);
	return 0;
}

/* The ranks' pids, in lines of moderate length. */
static void
tell_pids(struct run_job *job)
{
	char line[4096];
	size_t len = 0;
	for (unsigned r = 0; r < job->n; r++) {
		if (job->ranks[r].pid <= 0)
			continue;
		if (len == 0)
			len = (size_t)snprintf(line, sizeof line, "pids");
		len += (size_t)snprintf(line + len, sizeof line - len, " %d",
		    (int)job->ranks[r].pid);
		if (len > sizeof line - 32 || r + 1 == job->n) {
			tell(job, "%s", line);
			len = 0;
		}
	}
	if (len)
		tell(job, "%s", line);
}

static int
setup_signals(struct run_job *job)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGQUIT);
	if (sigprocmask(SIG_BLOCK, &set, NULL) != 0)
		return -1;
	job->sigfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	return job->sigfd < 0 ? -1 : 0;
}

static void
free_ranks(struct run_job *job)
{
	if (!job->ranks)
		return;
	for (unsigned r = 0; r < job->n; r++)
		for (int k = 0; k < 2; k++) {
			if (job->ranks[r].out[k].fd >= 0)
				close(job->ranks[r].out[k].fd);
			free(job->ranks[r].out[k].buf);
		}
	free(job->ranks);
	free(job->pidx);
}

/* Ends ranks that were started when the launcher could not go on. */
static void
abandon(struct run_job *job)
{
	run_signal_all(job, SIGKILL);
	for (unsigned r = 0; r < job->n; r++)
		if (job->ranks[r].pid > 0 && !job->ranks[r].exited) {
			int st;
			while (waitpid(job->ranks[r].pid, &st, 0) < 0 &&
			       errno == EINTR)
				;
			job->ranks[r].exited = true;
		}
}

int
cmd_run(int argc, char **argv)
{
	struct run_opts o;
	int rc = run_parse(argc, argv, &o);
	if (rc != 0) {
		run_opts_free(&o);
		return rc == 1 ? 0 : rc;
	}
	std_fds_open();
	if ((rc = run_resolve_program(&o)) != 0) {
		run_opts_free(&o);
		return rc;
	}
	tool_raise_nofile();

	struct run_job job;
	memset(&job, 0, sizeof job);
	job.o = &o;
	job.n = o.n;
	job.first_noinit = -1;
	job.sigfd = job.epfd = job.watchdog_fd = -1;
	job.seg.fd = -1;
	job.rsh_stdin = job.rsh_keep = -1;
	job.io.tag = o.tag_output;
	job.t_start = tool_now();
	int status = 1;
	bool traced = false;
	job.ranks = calloc(o.n, sizeof *job.ranks);
	if (!job.ranks) {
		fprintf(stderr, "%s: out of memory\n", RUN_CMD);
		goto out;
	}
	for (unsigned r = 0; r < o.n; r++)
		job.ranks[r].out[0].fd = job.ranks[r].out[1].fd = -1;
	if (o.hosts || o.hostfile) {
		int pp[2];
		job.hosts = malloc(sizeof *job.hosts);
		if (!job.hosts || run_hosts_load(&o, job.hosts) != 0) {
			status = 2;
			goto out;
		}
		if (pipe2(pp, O_CLOEXEC) != 0) {
			fprintf(stderr, "%s: pipe: %s\n", RUN_CMD, strerror(errno));
			goto out;
		}
		job.rsh_stdin = pp[0];
		job.rsh_keep = pp[1];
	}
	if (run_watchdog_start(&job.watchdog, &job.watchdog_fd) != 0)
		goto out;
	if (setup_signals(&job) != 0 ||
	    (job.epfd = epoll_create1(EPOLL_CLOEXEC)) < 0) {
		fprintf(stderr, "%s: signals: %s\n", RUN_CMD, strerror(errno));
		goto out;
	}
	if (make_jobid(&job) != 0)
		goto out;
	tell(&job, "job %s", job.jobid);
	if (o.keep_trace)
		tell(&job, "%s", "keep");
	if (make_dir(&job) != 0)
		goto out;
	if (job.hosts && run_hosts_write_file(&job) != 0)
		goto out;
	/* The launcher's event space is the job's too (grove.<id>.run.0),
	 * opened before the network, which joins it: a space named after
	 * the network's id, which the watchdog cannot know before the
	 * network exists, would be left by a launcher killed in between. */
	grove_trace_init(job.jobid, "run", 0);
	/* Kept like the ranks' spaces (they get GROVE_MPI_TRACE_KEEP), even
	 * when no rank gets as far as MPI_Init. */
	if (o.keep_trace)
		trace_space_keep();
	traced = true;
	if (run_wire_create(&job) != 0)
		goto out;
	rc = mpi_job_create(&job.seg, job.n, job.jobid,
	                    o.bcs ? MPI_JOB_BCS_RING_BYTES : 0);
	if (rc != 0) {
		fprintf(stderr, "%s: cannot make the job segment for %u ranks: "
		    "%s\n", RUN_CMD, job.n, strerror(-rc));
		goto out;
	}
	if (o.bcs && run_bcs_start(&job) != 0)
		goto out;
	if (run_spawn(&job) != 0) {
		abandon(&job);
		goto out;
	}
	tell_pids(&job);
	job.t_spawned = tool_now();
	if (o.verbose)
		fprintf(stderr, "%s: job %s: %u ranks of %s started in %.1f ms\n",
		    RUN_CMD, job.jobid, job.n, o.exe,
		    (job.t_spawned - job.t_start) * 1e3);
	if (o.timeout_s > 0)
		job.deadline = job.t_start + o.timeout_s;
	status = run_loop(&job);
	if (o.verbose)
		fprintf(stderr, "%s: job %s ended after %.1f ms, status %d\n",
		    RUN_CMD, job.jobid, (tool_now() - job.t_start) * 1e3, status);
	if (o.bcs && run_bcs_stop(&job) != 0 && status == 0)
		status = 1;
	if ((o.stats || o.stats_json) &&
	    run_stats_report(&job.seg, stderr, o.stats_json) != 0 && status == 0)
		status = 1;
out:
	abandon(&job);
	(void)run_bcs_stop(&job);
	run_wire_destroy(job.wire);
	job.wire = NULL;
	if (traced)
		grove_trace_fini(o.keep_trace);
	mpi_job_close(&job.seg);
	run_cleanup_files(job.jobid, job.dir, o.keep_trace);
	run_watchdog_done(job.watchdog, job.watchdog_fd);
	if (job.sigfd >= 0)
		close(job.sigfd);
	if (job.epfd >= 0)
		close(job.epfd);
	if (job.rsh_stdin >= 0)
		close(job.rsh_stdin);
	if (job.rsh_keep >= 0)
		close(job.rsh_keep);
	free(job.hosts);
	free_ranks(&job);
	run_io_free(&job.io);
	run_opts_free(&o);
	fflush(stdout);
	return status;
}

/* grove run's event loop: one epoll set over the signalfd (rank exits,
 * Ctrl-C, SIGTERM), the Grove network of the wire-up, and the ranks'
 * output pipes; timers for --timeout and for the SIGKILL that follows
 * SIGTERM when a job is ended. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "run.h"
#include "../toolutil.h"

/* epoll data: the kind in the low bits, the rank above. */
#define EV_SIG 0u
#define EV_NET 1u
#define EV_OUT 2u  /* + which (0 stdout, 1 stderr) */
#define EV_SHIFT 2
/* The BCS strobe's eventfd: kind EV_SIG with a "rank" of 1. */
#define EV_BCS ((1u << EV_SHIFT) | EV_SIG)

/* How long output may still come after the last rank exited (from a
 * process a rank started, which holds its pipe). */
#define RUN_DRAIN_S 1.0

static struct run_rank *
rank_of_pid(struct run_job *job, pid_t pid, unsigned *r)
{
	size_t lo = 0, hi = job->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (job->pidx[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < job->n && job->pidx[lo].pid == pid) {
		*r = job->pidx[lo].rank;
		return &job->ranks[*r];
	}
	return NULL;
}

/* What a dead rank wrote before it died comes out before the message
 * about its death. */
static void
drain_rank(struct run_job *job, unsigned r)
{
	for (int k = 0; k < 2; k++) {
		struct run_out *out = &job->ranks[r].out[k];
		if (out->fd < 0)
			continue;
		int rc;
		while ((rc = run_io_read(&job->io, out, (int)r, k + 1)) == 2)
			;
		if (rc == 0)
			job->open_pipes--;
	}
}

static void
reap(struct run_job *job)
{
	for (;;) {
		int st;
		pid_t pid = waitpid(-1, &st, WNOHANG);
		if (pid <= 0)
			return;
		if (pid == job->watchdog) {
			/* The job goes on without its safety net. */
			job->watchdog = 0;
			if (job->watchdog_fd >= 0)
				close(job->watchdog_fd);
			job->watchdog_fd = -1;
			continue;
		}
		if (pid == job->bcs_nm) {
			run_bcs_exited(job, st);
			continue;
		}
		unsigned r;
		struct run_rank *rk = rank_of_pid(job, pid, &r);
		if (!rk || rk->exited)
			continue;
		drain_rank(job, r);
		run_exit_rank(job, r, st);
	}
}

static void
on_signals(struct run_job *job)
{
	struct signalfd_siginfo si[16];
	ssize_t n = read(job->sigfd, si, sizeof si);
	if (n <= 0)
		return;
	bool child = false;
	for (size_t i = 0; i < (size_t)n / sizeof si[0]; i++) {
		int sig = (int)si[i].ssi_signo;
		if (sig == SIGCHLD) {
			child = true;
			continue;
		}
		if (job->phase == RUN_ENDING) {
			/* Ctrl-C while the job ends: no more grace. */
			run_signal_all(job, SIGKILL);
			continue;
		}
		const char *abbrev = sigabbrev_np(sig);
		run_end_job(job, 128 + sig, "got SIG%s; ending the job",
		    abbrev ? abbrev : "?");
	}
	if (child)
		reap(job);
}

static void
on_output(struct run_job *job, unsigned r, int k)
{
	if (r >= job->n)
		return;
	struct run_out *out = &job->ranks[r].out[k];
	/* An event of this batch for a pipe drained and closed earlier in
	 * it (its rank was reaped) is stale. */
	if (out->fd >= 0 && run_io_read(&job->io, out, (int)r, k + 1) == 0)
		job->open_pipes--;
}

int
run_loop(struct run_job *job)
{
	struct epoll_event ev = {.events = EPOLLIN};
	ev.data.u64 = EV_SIG;
	if (epoll_ctl(job->epfd, EPOLL_CTL_ADD, job->sigfd, &ev) != 0)
		goto sys;
	int bfd = run_bcs_fd(job);
	if (bfd >= 0) {
		ev.data.u64 = EV_BCS;
		if (epoll_ctl(job->epfd, EPOLL_CTL_ADD, bfd, &ev) != 0)
			goto sys;
	}
	int nfd = run_wire_fd(job->wire);
	if (nfd >= 0) {
		ev.data.u64 = EV_NET;
		if (epoll_ctl(job->epfd, EPOLL_CTL_ADD, nfd, &ev) != 0)
			goto sys;
	}
	for (unsigned r = 0; r < job->n; r++)
		for (int k = 0; k < 2; k++) {
			if (job->ranks[r].out[k].fd < 0)
				continue;
			ev.data.u64 = ((uint64_t)r << EV_SHIFT) | (EV_OUT + (unsigned)k);
			if (epoll_ctl(job->epfd, EPOLL_CTL_ADD,
			    job->ranks[r].out[k].fd, &ev) != 0)
				goto sys;
		}
	/* Handshakes that arrived while the ranks were forked. */
	run_wire_progress(job);
	double drain_end = 0;
	for (;;) {
		/* Exits first: a SIGCHLD may have arrived before the loop. */
		if (job->live == 0 && job->open_pipes == 0)
			break;
		double now = tool_now();
		if (job->live == 0) {
			if (drain_end == 0)
				drain_end = now + RUN_DRAIN_S;
			else if (now >= drain_end)
				break;
		}
		double next = drain_end;
		if (job->phase == RUN_ENDING && job->t_kill > 0) {
			if (now >= job->t_kill) {
				run_signal_all(job, SIGKILL);
				job->t_kill = 0;
			} else if (next == 0 || job->t_kill < next) {
				next = job->t_kill;
			}
		}
		if (job->deadline > 0) {
			if (now >= job->deadline) {
				job->deadline = 0;
				run_end_job(job, 124, "timed out after %g s; ending "
				    "the job", job->o->timeout_s);
				continue;
			}
			if (next == 0 || job->deadline < next)
				next = job->deadline;
		}
		int ms = -1;
		if (next > 0)
			ms = next <= now ? 0 : (int)((next - now) * 1e3) + 1;
		/* While the wire-up runs, Grove is also asked at short
		 * intervals: the network's descriptor does not always wake us
		 * for the last back-ends' handshakes (measured: the last of 64
		 * ranks seen up to one heartbeat, 1 s, after it attached). */
		bool wiring = run_wire_busy(job->wire);
		if (wiring && (ms < 0 || ms > RUN_WIRE_TICK_MS))
			ms = RUN_WIRE_TICK_MS;
		struct epoll_event evs[64];
		int n = epoll_wait(job->epfd, evs, 64, ms);
		if (n < 0 && errno != EINTR)
			goto sys;
		bool net_done = false;
		for (int i = 0; i < n; i++) {
			uint64_t d = evs[i].data.u64;
			unsigned kind = (unsigned)(d & ((1u << EV_SHIFT) - 1));
			if (d == EV_SIG)
				on_signals(job);
			else if (d == EV_BCS)
				run_bcs_failed(job);
			else if (d == EV_NET && !net_done) {
				run_wire_progress(job);
				net_done = true;
			}
			else if (kind >= EV_OUT)
				on_output(job, (unsigned)(d >> EV_SHIFT),
				    (int)(kind - EV_OUT));
		}
		if (wiring && !net_done)
			run_wire_progress(job);
	}
	/* Last partial lines, and pipes a leftover process still holds. */
	for (unsigned r = 0; r < job->n; r++)
		for (int k = 0; k < 2; k++)
			if (job->ranks[r].out[k].fd >= 0 ||
			    job->ranks[r].out[k].len)
				run_io_finish(&job->io, &job->ranks[r].out[k],
				    (int)r, k + 1);
	return job->failed ? job->status : 0;
sys:
	fprintf(stderr, "%s: event loop: %s\n", RUN_CMD, strerror(errno));
	run_signal_all(job, SIGKILL);
	return 1;
}

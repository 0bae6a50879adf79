/* grove run: what the end of a rank means for the job.
 *
 * A rank is done well when it called MPI_Finalize (state FINALIZED in the
 * job segment) and exited 0; a program that never called MPI_Init and
 * exited 0 is accepted too (`grove run -n 4 hostname`, as with Open MPI
 * and MPICH).  Anything else is a failure: the first one ends the job
 * (SIGTERM to the ranks left, SIGKILL half a second later) with one
 * message that names the rank, its pid and what happened, and gives the
 * job its exit status.  An MPI_Abort outranks whatever ended first: the
 * job exits with the aborting rank's code. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdarg.h>
#include <string.h>
#include <sys/wait.h>

#include "run.h"
#include "../toolutil.h"

/* SIGKILL follows SIGTERM after this long. */
#define RUN_KILL_GRACE_S 0.5

void
run_end_job(struct run_job *job, int status, const char *fmt, ...)
{
	if (!job->failed) {
		job->failed = true;
		job->status = status;
		if (fmt) {
			va_list ap;
			va_start(ap, fmt);
			fprintf(stderr, "%s: ", RUN_CMD);
			vfprintf(stderr, fmt, ap);
			fputc('\n', stderr);
			va_end(ap);
		}
	}
	if (job->phase == RUN_ENDING)
		return;
	job->phase = RUN_ENDING;
	run_signal_all(job, SIGTERM);
	job->t_kill = tool_now() + RUN_KILL_GRACE_S;
}

static int32_t
rank_state(const struct run_job *job, unsigned r)
{
	return __atomic_load_n(&mpi_job_ctl(&job->seg, r)->state,
	    __ATOMIC_ACQUIRE);
}

/* MPI_Abort was called: the job ends with its code, naming the rank. */
static bool
check_abort(struct run_job *job)
{
	int32_t r1 = __atomic_load_n(&job->seg.hdr->abort_rank1,
	    __ATOMIC_ACQUIRE);
	if (r1 <= 0 || (uint32_t)r1 > job->n)
		return false;
	unsigned r = (unsigned)r1 - 1;
	int code = __atomic_load_n(&job->seg.hdr->abort_code, __ATOMIC_ACQUIRE);
	/* The status the aborting rank exits with (init.c): a code that
	 * is a multiple of 256 must not read as success. */
	int status = code & 0xff ? code & 0xff : code ? 1 : 0;
	run_end_job(job, status, "rank %u (pid %d) called MPI_Abort "
	    "with code %d; ending the job", r, (int)job->ranks[r].pid, code);
	return true;
}

void
run_exit_check_noinit(struct run_job *job)
{
	if (job->first_noinit < 0 || job->failed)
		return;
	unsigned r = (unsigned)job->first_noinit;
	run_end_job(job, 1, "rank %u (pid %d) exited without calling MPI_Init, "
	    "which the other ranks wait for; ending the job", r,
	    (int)job->ranks[r].pid);
}

void
run_exit_rank(struct run_job *job, unsigned r, int status)
{
	struct run_rank *rk = &job->ranks[r];
	rk->exited = true;
	rk->status = status;
	job->live--;
	/* Ranks we are ending, and those that go down with them, say
	 * nothing more: the job has its one message. */
	if (job->failed)
		return;
	if (check_abort(job))
		return;
	int pid = (int)rk->pid;
	if (rk->remote) {
		/* A rank on another host: its state is in its host's memory;
		 * the remote shell's status is the program's (run_hosts.c). */
		const char *host = job->hosts->names[rk->host];
		int code = WIFEXITED(status) ? WEXITSTATUS(status)
		         : 128 + WTERMSIG(status);
		if (code == 0)
			return;
		if (code == 255)
			run_end_job(job, 1, "rank %u on %s: the remote shell failed "
			    "(status 255: is %s reachable, with key login?); "
			    "ending the job", r, host, host);
		else if (code > 128 && code < 128 + 65)
			run_end_job(job, code, "rank %u on %s killed by signal %d "
			    "(%s); ending the job", r, host, code - 128,
			    strsignal(code - 128));
		else
			run_end_job(job, code, "rank %u on %s exited with status "
			    "%d; ending the job", r, host, code);
		return;
	}
	int32_t st = rank_state(job, r);
	if (WIFSIGNALED(status)) {
		int sig = WTERMSIG(status);
		run_end_job(job, 128 + sig, "rank %u (pid %d) killed by signal "
		    "%d (%s); ending the job", r, pid, sig, strsignal(sig));
		return;
	}
	int code = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
	if (code != 0) {
		run_end_job(job, code, "rank %u (pid %d) exited with status %d%s; "
		    "ending the job", r, pid, code,
		    st == MPI_RANK_FINALIZED ? " after MPI_Finalize" :
		    st == MPI_RANK_NONE ? "" : " before MPI_Finalize");
		return;
	}
	if (st == MPI_RANK_FINALIZED)
		return;
	if (st == MPI_RANK_NONE) {
		/* A program that does not use MPI, unless others are
		 * waiting for it in MPI_Init's wire-up. */
		if (job->first_noinit < 0)
			job->first_noinit = (int)r;
		job->exited_noinit++;
		bool others_wait = run_wire_backends_up(job->wire) > 0;
		for (unsigned i = 0; i < job->n && !others_wait; i++)
			others_wait = rank_state(job, i) != MPI_RANK_NONE;
		if (others_wait)
			run_exit_check_noinit(job);
		return;
	}
	run_end_job(job, 1, "rank %u (pid %d) exited with status 0 without "
	    "calling MPI_Finalize; ending the job", r, pid);
}

/* grove run --bcs: the node manager (grove-bcs-node) of the job's host.
 * It is started before the ranks, maps the job segment they share and
 * runs the time slices; the ranks wait for it in MPI_Init.  Its end
 * before the ranks' ends the job, naming it. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/install_dirs.h"
#include "run.h"

int
run_bcs_start(struct run_job *job)
{
	const struct run_opts *o = job->o;
	char exe[4096], refused[2048];
	if (install_find_program("grove-bcs-node", exe, sizeof exe, refused,
	                         sizeof refused) != 0 && access(exe, X_OK) != 0) {
		fprintf(stderr, "%s: --bcs needs grove-bcs-node, which is not "
		    "found (%s)\n", RUN_CMD, refused);
		return -1;
	}
	char fd_s[16], slice_s[32], stall_s[32];
	snprintf(fd_s, sizeof fd_s, "%d", job->seg.fd);
	snprintf(slice_s, sizeof slice_s, "%llu",
	         (unsigned long long)o->slice_ns);
	const char *stall = getenv("GROVE_BCS_STALL_MS");
	snprintf(stall_s, sizeof stall_s, "%s", stall && *stall ? stall : "5000");
	const char *argv[16];
	int a = 0;
	argv[a++] = "grove-bcs-node";
	argv[a++] = "--job-fd";
	argv[a++] = fd_s;
	argv[a++] = "--slice-ns";
	argv[a++] = slice_s;
	argv[a++] = "--stall-ms";
	argv[a++] = stall_s;
	if (o->record) {
		argv[a++] = "--record";
		argv[a++] = o->record;
	}
	if (o->replay) {
		argv[a++] = "--replay";
		argv[a++] = o->replay;
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

void
run_bcs_exited(struct run_job *job, int status)
{
	pid_t pid = job->bcs_nm;
	job->bcs_nm = 0;
	if (job->phase == RUN_ENDING || job->live == 0)
		return;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return; /* every rank finalized; their exits come next */
	char how[64];
	if (WIFSIGNALED(status))
		snprintf(how, sizeof how, "was killed by signal %d",
		         WTERMSIG(status));
	else
		snprintf(how, sizeof how, "failed (status %d)",
		         WEXITSTATUS(status));
	run_end_job(job, 1, "the node manager (grove-bcs-node, pid %d) %s; "
	    "ending the job", (int)pid, how);
}

void
run_bcs_stop(struct run_job *job)
{
	if (job->bcs_nm <= 0)
		return;
	kill(job->bcs_nm, SIGKILL);
	while (waitpid(job->bcs_nm, NULL, 0) < 0 && errno == EINTR)
		;
	job->bcs_nm = 0;
}

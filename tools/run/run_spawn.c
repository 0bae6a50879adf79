/* grove run: starting the ranks.
 *
 * Per rank the launcher makes two pipes (standard output and error) and
 * forks once; everything that is the same for every rank (the
 * environment, the argument vector, /dev/null) is built once before the
 * first fork, and only the rank's number changes between forks.  The
 * child does nothing but syscalls before execve: the parent-death
 * signal, its descriptors, its signal state. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "run.h"

extern char **environ;

/* Names the launcher sets itself: a value inherited from an enclosing
 * job (grove run inside a rank) must not reach this job's ranks.  The
 * tuning variables (GROVE_MPI_EAGER_LIMIT, GROVE_MPI_SPIN_US,
 * GROVE_MPI_CMA, ...) are the user's and pass through. */
bool
run_spawn_ours(const char *entry)
{
	static const char *const names[] = {
		"GROVE_MPI_RANK=", "GROVE_MPI_SIZE=", "GROVE_MPI_JOB_FD=",
		"GROVE_MPI_JOBID=", "GROVE_MPI_CONNECT=", "GROVE_MPI_VERBOSE=",
		"GROVE_MPI_STATS=", "GROVE_MPI_TRACE_KEEP=", "GROVE_MPI_BCS=",
		"GROVE_BCS_RECORD=", "GROVE_BCS_REPLAY=", "GROVE_MPI_TRANSPORT=",
		"GROVE_MPI_TCP_ADDR=", "GROVE_MPI_TCP_HOST=",
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strncmp(entry, names[i], strlen(names[i])))
			return 1;
	return 0;
}

/* Whether entry ("VAR=VAL") sets the variable of set ("VAR=..."). */
static int
same_name(const char *entry, const char *set)
{
	size_t n = strcspn(set, "=");
	return !strncmp(entry, set, n) && entry[n] == '=';
}

struct envb {
	char **v;
	size_t n, cap;
};

static int
env_push(struct envb *e, char *s)
{
	if (e->n + 2 > e->cap) {
		size_t cap = e->cap ? e->cap * 2 : 64;
		char **v = realloc(e->v, cap * sizeof *v);
		if (!v)
			return -1;
		e->v = v;
		e->cap = cap;
	}
	e->v[e->n++] = s;
	e->v[e->n] = NULL;
	return 0;
}

/* The environment every rank gets; *rank_slot is the index of the
 * GROVE_MPI_RANK entry, which points into rank_buf. */
static int
build_env(struct run_job *job, struct envb *e, char *strs, size_t strcap,
    char *rank_buf, size_t *rank_slot)
{
	const struct run_opts *o = job->o;
	for (char **p = environ; *p; p++) {
		if (run_spawn_ours(*p))
			continue;
		int replaced = 0;
		for (size_t i = 0; i < o->n_env_set && !replaced; i++)
			replaced = same_name(*p, o->env_set[i]);
		if (!replaced && env_push(e, *p))
			return -1;
	}
	for (size_t i = 0; i < o->n_env_set; i++) {
		/* A later -x of the same name wins, as in a shell. */
		int later = 0;
		for (size_t j = i + 1; j < o->n_env_set && !later; j++)
			later = same_name(o->env_set[j], o->env_set[i]);
		if (!later && env_push(e, o->env_set[i]))
			return -1;
	}
	/* The job's own variables live in strs, one after the other. */
	size_t used = 0;
	char *s;
#define ADD(...)                                                            \
	do {                                                                \
		s = strs + used;                                            \
		int w_ = snprintf(s, strcap - used, __VA_ARGS__);           \
		if (w_ < 0 || (size_t)w_ >= strcap - used || env_push(e, s)) \
			return -1;                                          \
		used += (size_t)w_ + 1;                                     \
	} while (0)
	ADD("GROVE_MPI_SIZE=%u", job->n);
	ADD("GROVE_MPI_JOB_FD=%d", job->seg.fd);
	ADD("GROVE_MPI_JOBID=%s", job->jobid);
	ADD("GROVE_MPI_CONNECT=%s", job->connect);
	if (o->verbose)
		ADD("GROVE_MPI_VERBOSE=1");
	if (o->stats || o->stats_json)
		ADD("GROVE_MPI_STATS=1");
	if (o->keep_trace)
		ADD("GROVE_MPI_TRACE_KEEP=1");
	if (o->bcs)
		ADD("GROVE_MPI_BCS=1");
	if (o->tcp) {
		ADD("GROVE_MPI_TRANSPORT=tcp");
		if (job->hosts)
			ADD("GROVE_MPI_TCP_HOST=%s", job->hosts->self);
		else
			ADD("GROVE_MPI_TCP_ADDR=127.0.0.1");
	}
	if (o->bcs && o->record)
		ADD("GROVE_BCS_RECORD=1");
	if (o->bcs && o->replay)
		ADD("GROVE_BCS_REPLAY=%s", o->replay);
#undef ADD
	*rank_slot = e->n;
	return env_push(e, rank_buf);
}

/* In the child: become rank r and exec (rsh_argv: through the remote
 * shell).  Never returns. */
static void
child(struct run_job *job, unsigned r, pid_t launcher, const sigset_t *mask,
    int devnull, int out_w, int err_w, char **envp, char **sh_argv,
    char **rsh_argv)
{
	/* Dies with the launcher even when it is killed with SIGKILL; the
	 * launcher may have died before the call, which getppid tells. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != launcher)
		_exit(127);
	if (dup2(out_w, 1) < 0 || dup2(err_w, 2) < 0)
		_exit(127);
	if (rsh_argv) {
		/* The remote shell: its standard input is the pipe whose end
		 * the launcher holds (run_hosts.c), its environment ours. */
		if (dup2(job->rsh_stdin, 0) < 0)
			_exit(127);
		signal(SIGPIPE, SIG_DFL);
		sigprocmask(SIG_SETMASK, mask, NULL);
		execvp(rsh_argv[0], rsh_argv);
		char msg[512];
		int w = snprintf(msg, sizeof msg, "%s: rank %u: cannot execute "
		    "the remote shell %s: %s\n", RUN_CMD, r, rsh_argv[0],
		    strerror(errno));
		if (w > 0 && write(2, msg, (size_t)w) < 0)
			_exit(127);
		_exit(127);
	}
	if (r != 0 && dup2(devnull, 0) < 0)
		_exit(127);
	/* The segment is close-on-exec in the launcher (no other program it
	 * starts gets it); the rank inherits it. */
	if (fcntl(job->seg.fd, F_SETFD, 0) != 0)
		_exit(127);
	/* The launcher blocks the signals it reads from its signalfd and
	 * Grove ignores SIGPIPE in it: the program starts as if from a
	 * shell. */
	signal(SIGPIPE, SIG_DFL);
	sigprocmask(SIG_SETMASK, mask, NULL);
	execve(job->o->exe, job->o->argv, envp);
	int e = errno;
	if (e == ENOEXEC) {
		/* A script without "#!": run by the shell, as execvp does. */
		execve("/bin/sh", sh_argv, envp);
		e = errno;
	}
	/* Standard error is the pipe to the launcher now. */
	char msg[512];
	int w = snprintf(msg, sizeof msg, "%s: rank %u: cannot execute %s: %s\n",
	    RUN_CMD, r, job->o->exe, strerror(e));
	if (w > 0 && write(2, msg, (size_t)w) < 0)
		_exit(127);
	_exit(e == ENOENT ? 127 : 126);
}

static int
cmp_pidx(const void *a, const void *b)
{
	pid_t x = ((const struct run_pidx *)a)->pid;
	pid_t y = ((const struct run_pidx *)b)->pid;
	return x < y ? -1 : x > y;
}

int
run_spawn(struct run_job *job)
{
	struct envb e = {0};
	char strs[8192];
	char rank_buf[40];
	size_t rank_slot = 0;
	char **sh_argv = NULL;
	int devnull = -1, rc = -1;
	size_t argc = 0;
	while (job->o->argv[argc])
		argc++;
	if (build_env(job, &e, strs, sizeof strs, rank_buf, &rank_slot)) {
		fprintf(stderr, "%s: the ranks' environment is too large\n",
		    RUN_CMD);
		goto out;
	}
	sh_argv = calloc(argc + 2, sizeof *sh_argv);
	if (!sh_argv)
		goto nomem;
	sh_argv[0] = "sh";
	sh_argv[1] = job->o->exe;
	for (size_t i = 1; i < argc; i++)
		sh_argv[i + 1] = job->o->argv[i];
	devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (devnull < 0) {
		fprintf(stderr, "%s: /dev/null: %s\n", RUN_CMD, strerror(errno));
		goto out;
	}
	job->pidx = calloc(job->n, sizeof *job->pidx);
	if (!job->pidx)
		goto nomem;
	/* The ranks start with no signal blocked, as a shell's programs
	 * do (the launcher blocks those it reads from its signalfd). */
	sigset_t mask;
	sigemptyset(&mask);
	pid_t self = getpid();
	for (unsigned r = 0; r < job->n; r++) {
		struct run_rank *rk = &job->ranks[r];
		int po[2], pe[2];
		if (pipe2(po, O_CLOEXEC) != 0)
			goto sys;
		if (pipe2(pe, O_CLOEXEC) != 0) {
			close(po[0]);
			close(po[1]);
			goto sys;
		}
		snprintf(rank_buf, sizeof rank_buf, "GROVE_MPI_RANK=%u", r);
		e.v[rank_slot] = rank_buf;
		char **rsh_argv = NULL;
		rk->host = -1;
		if (job->hosts) {
			unsigned h = run_hosts_of_rank(job->hosts, job->n, r);
			rk->host = (int)h;
			rk->remote = !job->hosts->local[h];
			if (rk->remote &&
			    !(rsh_argv = run_hosts_argv(job, r, h))) {
				close(po[0]);
				close(po[1]);
				close(pe[0]);
				close(pe[1]);
				goto nomem;
			}
		}
		pid_t pid = fork();
		if (pid == 0)
			child(job, r, self, &mask, devnull, po[1], pe[1], e.v,
			    sh_argv, rsh_argv);
		run_hosts_argv_free(rsh_argv);
		close(po[1]);
		close(pe[1]);
		if (pid < 0) {
			close(po[0]);
			close(pe[0]);
			goto sys;
		}
		/* The loop reads a dead rank's pipes dry without waiting for
		 * a process it left behind that still holds them. */
		fcntl(po[0], F_SETFL, O_NONBLOCK);
		fcntl(pe[0], F_SETFL, O_NONBLOCK);
		rk->pid = pid;
		rk->out[0].fd = po[0];
		rk->out[1].fd = pe[0];
		job->pidx[r].pid = pid;
		job->pidx[r].rank = r;
		job->live++;
		job->open_pipes += 2;
	}
	rc = 0;
	goto sorted;
sys:
	fprintf(stderr, "%s: cannot start rank %u of %u: %s\n", RUN_CMD,
	    job->live, job->n, strerror(errno));
sorted:
	/* Ranks not started have pid 0 and sort first. */
	qsort(job->pidx, job->n, sizeof *job->pidx, cmp_pidx);
	goto out;
nomem:
	fprintf(stderr, "%s: out of memory\n", RUN_CMD);
out:
	if (devnull >= 0)
		close(devnull);
	free(sh_argv);
	free(e.v);
	return rc;
}

void
run_signal_all(struct run_job *job, int sig)
{
	for (unsigned r = 0; r < job->n; r++)
		if (job->ranks[r].pid > 0 && !job->ranks[r].exited)
			kill(job->ranks[r].pid, sig);
}

#define _GNU_SOURCE
#include "net/spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "grove/error.h"
#include "net/remote_cmd.h"
#include "net/sockio.h"

extern char **environ;

int
spawn_host_is_local(const char *host)
{
	if (!host || !*host || !strcmp(host, "localhost") ||
	    !strncmp(host, "127.", 4) || !strcmp(host, "::1"))
		return 1;
	char me[256];
	if (gethostname(me, sizeof me) == 0) {
		me[sizeof me - 1] = 0;
		if (!strcmp(host, me))
			return 1;
		/* "node1" vs "node1.cluster.org" */
		size_t l = strlen(me);
		if (!strncmp(host, me, l) && host[l] == '.')
			return 1;
		const char *dot = strchr(me, '.');
		if (dot && (size_t)(dot - me) == strlen(host) &&
		    !strncmp(host, me, (size_t)(dot - me)))
			return 1;
	}
	return 0;
}

/* The environment for children: ours plus the bootstrap marker. */
static char **
child_env(void)
{
	size_t n = 0;
	while (environ[n])
		n++;
	char **env = malloc((n + 2) * sizeof *env);
	if (!env)
		return NULL;
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "GROVE_BOOTSTRAP=", 16))
			env[k++] = environ[i];
	env[k++] = "GROVE_BOOTSTRAP=stdin";
	env[k] = NULL;
	return env;
}

/* Whether local children go back to SCHED_OTHER: process-wide, like the
 * scheduling policy it undoes (set once by a CP that moved itself to
 * SCHED_BATCH, before it starts any child). */
static int children_sched_other;

void
spawn_children_sched_other(void)
{
	children_sched_other = 1;
}

/* The signals a terminal sends to a whole process group (hang-up,
 * interrupt, quit, job control).  Our children are in the tool's group:
 * when the tool ignores one (nohup, a background job of a script), so must
 * they, or the terminal would take them from under a tool that stays. */
static int
terminal_signal(int sig)
{
	switch (sig) {
	case SIGHUP: case SIGINT: case SIGQUIT:
	case SIGTSTP: case SIGTTIN: case SIGTTOU:
		return 1;
	default:
		return 0;
	}
}

void
spawn_signals_reset(void)
{
	struct sigaction sa;
	for (int sig = 1; sig < NSIG; sig++) {
		if (sig == SIGKILL || sig == SIGSTOP ||
		    sigaction(sig, NULL, &sa) != 0 || sa.sa_handler == SIG_DFL)
			continue;
		if (sa.sa_handler == SIG_IGN && terminal_signal(sig))
			continue;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = SIG_DFL;
		sigaction(sig, &sa, NULL);
	}
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

/* vfork+exec in a function of its own, so nothing of the caller's frame
 * is live across vfork.  The child only makes system calls. */
static pid_t __attribute__((noinline))
start_process(const char *path, char *const *av, char **env, int in_fd,
    int err_fd, const spawn_local *local)
{
	pid_t parent = getpid();
	/* Every signal blocked until the child has reset its handlers: it
	 * shares our memory, and a handler of the tool's run in it would run
	 * on our stack and data (what posix_spawn does too).  The child's
	 * dispositions are its own (vfork does not share them), so resetting
	 * them leaves ours alone. */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pid_t pid = vfork();
	if (pid != 0) {
		int e = errno;
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		errno = e;
		return pid;
	}
	int e;
	if (dup2(in_fd, 0) < 0)
		goto fail;
	if (local) {
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != parent)
			_exit(127);
		/* The child's own descriptor table: the parent's copies stay
		 * close-on-exec, so no other child inherits them. */
		for (int i = 0; i < local->nkeep; i++)
			if (fcntl(local->keep[i], F_SETFD, 0) < 0)
				goto fail;
		if (children_sched_other) {
			struct sched_param sp = {0};
			sched_setscheduler(0, SCHED_OTHER, &sp);
		}
		/* A CPU share is a placement hint: a child that cannot have
		 * it (a cgroup took the CPU away since) runs where it may. */
		if (local->cpus)
			sched_setaffinity(0, sizeof *local->cpus, local->cpus);
	}
	/* Last: the death signal set above, if the parent already died,
	 * is delivered here. */
	spawn_signals_reset();
	execvpe(path, av, env);
fail:
	e = errno;
	if (write(err_fd, &e, sizeof e) < 0)
		_exit(126);
	_exit(127);
}

int
spawn_child(const char *host, const char *rsh, const char *exe,
    char *const argv[], const char *boot, size_t boot_len,
    uint64_t deadline_ms, const spawn_local *how, pid_t *pidp, char *err,
    size_t errlen)
{
	int local = spawn_host_is_local(host);
	static const spawn_local plain = {NULL, 0, NULL};
	if (!how)
		how = &plain;
	int in[2] = {-1, -1}, ep[2] = {-1, -1};
	char **env = NULL, **rargv = NULL, **shell = NULL, *cmd = NULL;
	int rc = GROVE_ESPAWN;
	if (!local) {
		/* ssh would read a host name like "-oProxyCommand=..." as an
		 * option. */
		if (host[0] == '-') {
			snprintf(err, errlen, "%s: a host name cannot start with "
			    "'-'", host);
			return GROVE_EINVAL;
		}
		rc = remote_shell_words(rsh, &shell);
		if (rc == GROVE_EINVAL)
			snprintf(err, errlen, "%s: the remote shell setting is "
			    "empty", host);
		if (rc != 0)
			return rc;
		rc = GROVE_ENOMEM;
		size_t nw = 0;
		while (shell[nw])
			nw++;
		/* rsh words, host, the command as one word. */
		rargv = calloc(nw + 3, sizeof *rargv);
		if (!rargv || !(cmd = remote_command(exe, argv))) {
			snprintf(err, errlen, "%s: out of memory", host);
			goto out;
		}
		memcpy(rargv, shell, nw * sizeof *rargv);
		rargv[nw] = (char *)host;
		rargv[nw + 1] = cmd;
		rargv[nw + 2] = NULL;
	}
	if (!(env = child_env())) {
		snprintf(err, errlen, "%s: out of memory", host);
		rc = GROVE_ENOMEM;
		goto out;
	}
	rc = GROVE_ESPAWN;
	if (pipe2(in, O_CLOEXEC) != 0 || pipe2(ep, O_CLOEXEC) != 0) {
		snprintf(err, errlen, "%s: pipe: %s", host, strerror(errno));
		goto out;
	}
	/* Room for a large topology so the write below rarely blocks. */
	fcntl(in[1], F_SETPIPE_SZ, 1 << 20);
	const char *path = local ? exe : rargv[0];
	char *const *av = local ? argv : rargv;
	pid_t pid = start_process(path, av, env, in[0], ep[1], local ? how :
	    NULL);
	if (pid < 0) {
		snprintf(err, errlen, "%s: fork: %s", host, strerror(errno));
		goto out;
	}
	close(in[0]);
	in[0] = -1;
	close(ep[1]);
	ep[1] = -1;
	int child_errno = 0;
	ssize_t r;
	do
		r = read(ep[0], &child_errno, sizeof child_errno);
	while (r < 0 && errno == EINTR);
	if (r == (ssize_t)sizeof child_errno) {
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		snprintf(err, errlen, "%s: cannot start '%s': %s", host, path,
		    strerror(child_errno));
		goto out;
	}
	/* The child may exit before reading its bootstrap; ignore SIGPIPE
	 * for this write (the caller reports the early exit).  A child that
	 * reads nothing (a remote shell still connecting) must not hold the
	 * launch past its deadline: the pipe takes 1 MiB, and a large
	 * topology's bootstrap is more. */
	fcntl(in[1], F_SETFL, fcntl(in[1], F_GETFL) | O_NONBLOCK);
	const char *p = boot;
	size_t left = boot_len;
	while (left > 0) {
		ssize_t w = write(in[1], p, left);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EAGAIN) {
			uint64_t now = sockio_now_ms();
			if (deadline_ms && now >= deadline_ms) {
				kill(pid, SIGKILL);
				while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
					;
				snprintf(err, errlen, "%s: did not read its start-up "
				    "data (%zu of %zu bytes) in time", host,
				    boot_len - left, boot_len);
				goto out;
			}
			struct pollfd pfd = {in[1], POLLOUT, 0};
			uint64_t wait = deadline_ms ? deadline_ms - now : 1000;
			poll(&pfd, 1, wait > 1000 ? 1000 : (int)wait);
			continue;
		}
		if (w <= 0)
			break;
		p += w;
		left -= (size_t)w;
	}
	*pidp = pid;
	rc = 0;
out:
	if (in[0] >= 0)
		close(in[0]);
	if (in[1] >= 0)
		close(in[1]);
	if (ep[0] >= 0)
		close(ep[0]);
	if (ep[1] >= 0)
		close(ep[1]);
	free(env);
	free(rargv);
	free(shell);
	free(cmd);
	return rc;
}

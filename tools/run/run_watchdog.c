/* grove run's watchdog: a small process that cleans up after the
 * launcher if the launcher dies without doing it (kill -9, a crash).
 *
 * Forked first, before anything it may have to remove exists, it reads
 * a pipe from the launcher: lines naming the job's private directory,
 * its id (the event spaces of the ranks and of the launcher are
 * /dev/shm/grove.<id>.*) and the ranks' pids.  End of file without "done" means the launcher is gone: the
 * watchdog kills the ranks left (through pidfds opened when it learnt
 * their pids, so a recycled pid is never hit), waits for them, removes
 * the files and exits.  Ranks die with the launcher anyway (their
 * parent-death signal); the watchdog also covers the files, which no
 * signal removes.  It runs in its own process group, so a terminal's
 * Ctrl-C, which goes to the launcher's group, does not end it before the
 * launcher had a chance to finish. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "run.h"
#include "../toolutil.h"

void
run_cleanup_files(const char *jobid, const char *dir, bool keep_trace)
{
	if (jobid && *jobid && !keep_trace) {
		char prefix[64];
		int pl = snprintf(prefix, sizeof prefix, "grove.%s.", jobid);
		DIR *d = opendir("/dev/shm");
		if (d && pl > 0 && (size_t)pl < sizeof prefix) {
			struct dirent *de;
			while ((de = readdir(d)))
				if (!strncmp(de->d_name, prefix, (size_t)pl))
					unlinkat(dirfd(d), de->d_name, 0);
		}
		if (d)
			closedir(d);
	}
	if (dir && *dir) {
		DIR *d = opendir(dir);
		if (d) {
			struct dirent *de;
			while ((de = readdir(d)))
				if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
					unlinkat(dirfd(d), de->d_name, 0);
			closedir(d);
		}
		rmdir(dir);
	}
}

struct wd_state {
	char dir[4096];
	char jobid[64];
	bool keep;
	bool done;
	int *pidfds;
	size_t npidfds, cap;
};

static void
wd_pids(struct wd_state *s, char *list)
{
	for (char *t = strtok(list, " "); t; t = strtok(NULL, " ")) {
		long pid = strtol(t, NULL, 10);
		if (pid <= 0)
			continue;
		int fd = (int)syscall(SYS_pidfd_open, (pid_t)pid, 0);
		if (fd < 0)
			continue; /* gone already */
		if (s->npidfds == s->cap) {
			size_t cap = s->cap ? 2 * s->cap : 64;
			int *v = realloc(s->pidfds, cap * sizeof *v);
			if (!v) {
				close(fd);
				continue;
			}
			s->pidfds = v;
			s->cap = cap;
		}
		s->pidfds[s->npidfds++] = fd;
	}
}

static void
wd_line(struct wd_state *s, char *line)
{
	if (!strncmp(line, "dir ", 4))
		snprintf(s->dir, sizeof s->dir, "%s", line + 4);
	else if (!strncmp(line, "job ", 4))
		snprintf(s->jobid, sizeof s->jobid, "%s", line + 4);
	else if (!strcmp(line, "keep"))
		s->keep = true;
	else if (!strncmp(line, "pids ", 5))
		wd_pids(s, line + 5);
	else if (!strcmp(line, "done"))
		s->done = true;
}

/* The launcher died: end its ranks and remove its files. */
static void
wd_cleanup(struct wd_state *s)
{
	for (size_t i = 0; i < s->npidfds; i++)
		syscall(SYS_pidfd_send_signal, s->pidfds[i], SIGKILL, NULL, 0);
	/* A pidfd is readable once its process is gone: only then can no
	 * rank create a file any more. */
	double end = tool_now() + 2.0;
	for (size_t i = 0; i < s->npidfds; i++) {
		struct pollfd p = {.fd = s->pidfds[i], .events = POLLIN};
		int ms = (int)((end - tool_now()) * 1e3);
		if (ms > 0)
			poll(&p, 1, ms);
		close(s->pidfds[i]);
	}
	/* Ranks forked after the last "pids" line die of their parent-death
	 * signal; give them a moment, then sweep twice. */
	for (int pass = 0; pass < 2; pass++) {
		if (pass)
			usleep(50 * 1000);
		run_cleanup_files(s->jobid, s->dir, s->keep);
	}
}

static void __attribute__((noreturn))
wd_main(int fd)
{
	struct wd_state s = {0};
	char buf[1 << 16];
	size_t len = 0;
	for (;;) {
		ssize_t r = read(fd, buf + len, sizeof buf - 1 - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
		char *nl;
		while ((nl = memchr(buf, '\n', len))) {
			*nl = '\0';
			wd_line(&s, buf);
			len -= (size_t)(nl + 1 - buf);
			memmove(buf, nl + 1, len);
		}
		if (len == sizeof buf - 1)
			len = 0; /* no line is that long */
	}
	if (!s.done)
		wd_cleanup(&s);
	_exit(0);
}

int
run_watchdog_start(pid_t *pid, int *fd)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) != 0) {
		fprintf(stderr, "%s: watchdog pipe: %s\n", RUN_CMD, strerror(errno));
		return -1;
	}
	pid_t c = fork();
	if (c < 0) {
		fprintf(stderr, "%s: cannot start the watchdog: %s\n", RUN_CMD,
		    strerror(errno));
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (c == 0) {
		setpgid(0, 0);
		prctl(PR_SET_NAME, "grove-run-wd");
		signal(SIGINT, SIG_IGN);
		signal(SIGQUIT, SIG_IGN);
		signal(SIGHUP, SIG_IGN);
		signal(SIGTSTP, SIG_IGN);
		signal(SIGPIPE, SIG_IGN);
		/* It holds none of the launcher's descriptors: a pipeline
		 * reading the launcher's output sees its end when the
		 * launcher and the ranks are gone. */
		int nul = open("/dev/null", O_RDWR);
		if (nul >= 0) {
			dup2(nul, 0);
			dup2(nul, 1);
			dup2(nul, 2);
		}
		if (dup2(p[0], 3) != 3)
			_exit(1);
		syscall(SYS_close_range, 4u, ~0u, 0u);
		wd_main(3);
	}
	close(p[0]);
	/* Also in the launcher, against a race: whichever setpgid runs
	 * first, the watchdog is out of the terminal's group before it
	 * matters. */
	setpgid(c, c);
	*pid = c;
	*fd = p[1];
	return 0;
}

int
run_watchdog_tell(int fd, const char *line)
{
	size_t len = strlen(line);
	char buf[8192];
	if (len + 1 > sizeof buf)
		return -1;
	memcpy(buf, line, len);
	buf[len++] = '\n';
	const char *b = buf;
	while (len > 0) {
		ssize_t w = write(fd, b, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		b += w;
		len -= (size_t)w;
	}
	return 0;
}

void
run_watchdog_done(pid_t pid, int fd)
{
	if (fd >= 0) {
		run_watchdog_tell(fd, "done");
		close(fd);
	}
	if (pid > 0)
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
}

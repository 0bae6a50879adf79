/* Coscheduling of grove monitor with the job it watches (see cosched.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cosched.h"
#include "mpi/job.h"

void
cosched_init(struct cosched *c)
{
	memset(c, 0, sizeof *c);
}

void
cosched_enter_idle(struct cosched *c)
{
	if (c->idle_tried)
		return;
	c->idle_tried = 1;
	struct sched_param sp = {0};
	if (sched_setscheduler(0, SCHED_IDLE, &sp) == 0)
		c->sched_idle = 1;
	else
		fprintf(stderr, "grove monitor: --cosched: SCHED_IDLE refused "
		        "(%s); reading while the processes are blocked all "
		        "the same\n", strerror(errno));
}

/* The value of GROVE_MPI_JOB_FD in process pid's environment, or -1. */
static int
job_fd_of(int pid)
{
	char path[64], buf[16384];
	snprintf(path, sizeof path, "/proc/%d/environ", pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	static const char key[] = "GROVE_MPI_JOB_FD=";
	for (char *p = buf; p < buf + n; p += strlen(p) + 1) {
		if (strncmp(p, key, sizeof key - 1) != 0)
			continue;
		char *end;
		long v = strtol(p + sizeof key - 1, &end, 10);
		return *end == 0 && v >= 0 && v < 1 << 20 ? (int)v : -1;
	}
	return -1;
}

/* Maps rank process pid's job segment read-only through its own
 * descriptor: 0 or -1 (not a Grove MPI rank of a launched job, another
 * user's, or not a segment this Grove reads). */
static int
map_job(struct cosched *c, int pid)
{
	int jfd = job_fd_of(pid);
	if (jfd < 0)
		return -1;
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/fd/%d", pid, jfd);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	struct stat st;
	void *m = MAP_FAILED;
	if (fstat(fd, &st) == 0 && (size_t)st.st_size >= sizeof(struct mpi_job_hdr))
		m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return -1;
	const struct mpi_job_hdr *h = m;
	size_t need = (size_t)h->ctl_off +
	              (size_t)h->nranks * sizeof(struct mpi_rank_ctl);
	if (h->magic != MPI_JOB_MAGIC || h->version != MPI_JOB_VERSION ||
	    h->nranks == 0 || h->size > (uint64_t)st.st_size ||
	    h->ctl_off > h->size || need > h->size) {
		munmap(m, (size_t)st.st_size);
		return -1;
	}
	c->job = m;
	c->job_size = (size_t)st.st_size;
	return 0;
}

/* Ranks of the mapped job that sleep in a wait now. */
static int
job_blocked(const struct cosched *c)
{
	const struct mpi_job_hdr *h = c->job;
	const struct mpi_rank_ctl *ctl =
	    (const struct mpi_rank_ctl *)((const char *)c->job + h->ctl_off);
	int n = 0;
	for (uint32_t r = 0; r < h->nranks; r++)
		n += __atomic_load_n(&ctl[r].sleeping, __ATOMIC_RELAXED) != 0 &&
		     __atomic_load_n(&ctl[r].state, __ATOMIC_RELAXED) ==
		         MPI_RANK_RUNNING;
	return n;
}

/* 1 when process pid sleeps (S or D in /proc/PID/stat), else 0. */
static int
proc_sleeps(int pid)
{
	char path[64], buf[512];
	snprintf(path, sizeof path, "/proc/%d/stat", pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	/* The command name may hold anything: the state follows its last
	 * closing parenthesis. */
	char *p = strrchr(buf, ')');
	return p && p[1] == ' ' && (p[2] == 'S' || p[2] == 'D');
}

int
cosched_blocked(struct cosched *c, const struct scope *s)
{
	c->checks++;
	if (!c->job && !c->job_tried) {
		for (size_t i = 0; i < scope_procs(s); i++) {
			const char *role;
			int pid = scope_proc_pid(s, i, &role);
			if (pid > 0 && !strcmp(role, "mpi")) {
				/* Tried once: a job launched by grove run
				 * has it; a singleton's has no name either. */
				c->job_tried = 1;
				map_job(c, pid);
				break;
			}
		}
	}
	if (c->job)
		return job_blocked(c);
	int known = 0, n = 0;
	for (size_t i = 0; i < scope_procs(s); i++) {
		const char *role;
		int pid = scope_proc_pid(s, i, &role);
		/* The application's processes only: a launcher, a CP or a
		 * front-end sleeps in its event loop nearly always. */
		if (pid <= 0 || (strcmp(role, "mpi") && strcmp(role, "be")))
			continue;
		known++;
		n += proc_sleeps(pid);
	}
	return known ? n : -1;
}

void
cosched_json(FILE *f, const struct cosched *c)
{
	fprintf(f, ",\"cosched\":{\"sched_idle\":%s,\"gate\":\"%s\","
	        "\"checks\":%llu,\"pulls_blocked\":%llu,\"pulls_forced\":%llu}",
	        c->sched_idle ? "true" : "false",
	        c->job ? "sleeping-flags" : c->checks ? "proc-state" : "none yet",
	        (unsigned long long)c->checks, (unsigned long long)c->gated,
	        (unsigned long long)c->forced);
}

void
cosched_free(struct cosched *c)
{
	if (c->job)
		munmap(c->job, c->job_size);
	memset(c, 0, sizeof *c);
}

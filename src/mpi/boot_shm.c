/* The job segment under srun and mpirun: a named POSIX shared-memory
 * object, since the ranks are not children of one process that could
 * hand them a memfd (job.c).  The lowest rank of the host creates it
 * (O_EXCL, mode 0600: only the job's user maps it), the others open it
 * by name, and the name is removed once every rank has it mapped
 * (boot.c), after which it is as anonymous as grove run's memfd. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mpi/boot.h"
#include "mpi/job.h"

int
mpi_boot_shm_name(char *out, size_t len, const char *jobid, long pid)
{
	/* One path component: keep letters, digits, '-', '_' and '.'. */
	char safe[64];
	size_t o = 0;
	for (const char *p = jobid; *p && o + 1 < sizeof safe; p++) {
		char c = *p;
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
		safe[o++] = ok ? c : '_';
	}
	safe[o] = '\0';
	int n = snprintf(out, len, "/grove-mpi.%s.%ld", o ? safe : "job", pid);
	return n > 0 && (size_t)n < len ? 0 : -1;
}

int
mpi_boot_shm_create(struct mpi_job *job, const char *name, unsigned nranks,
    const char *jobid, char *err, size_t errlen)
{
	int fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		snprintf(err, errlen, "cannot create the job segment %s: %s%s",
		    name, strerror(errno), errno == EEXIST
		    ? " (left by an earlier job with this id and pid?)" : "");
		return -1;
	}
	int rc = mpi_job_create_fd(job, fd, nranks, jobid, 0);
	if (rc != 0) {
		snprintf(err, errlen, "cannot size the job segment %s for %u "
		    "ranks: %s", name, nranks, strerror(-rc));
		close(fd);
		shm_unlink(name);
		return -1;
	}
	return 0;
}

int
mpi_boot_shm_open(struct mpi_job *job, const char *name, char *err,
    size_t errlen)
{
	int fd = shm_open(name, O_RDWR | O_CLOEXEC, 0);
	if (fd < 0) {
		snprintf(err, errlen, "cannot open the job segment %s: %s", name,
		    strerror(errno));
		return -1;
	}
	char why[256];
	if (mpi_job_attach(job, fd, why, sizeof why) != 0) {
		snprintf(err, errlen, "%s: %s", name, why);
		close(fd);
		return -1;
	}
	return 0;
}

int
mpi_boot_shm_unlink(const char *name)
{
	return shm_unlink(name) == 0 ? 0 : -errno;
}

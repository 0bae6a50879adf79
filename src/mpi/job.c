/* The job segment: creation by the launcher, attachment by the ranks. */
#define _GNU_SOURCE /* memfd_create */
#include "mpi/job.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define CACHE_LINE 64

static size_t
round_up(size_t v, size_t to)
{
	return (v + to - 1) / to * to;
}

uint32_t
mpi_job_ring_bytes(uint32_t nranks)
{
	/* n * n rings: keep the segment's address space moderate for large
	 * jobs (pages are only touched when a pair talks). */
	if (nranks <= 16)
		return 64u << 10;
	if (nranks <= 64)
		return 32u << 10;
	if (nranks <= 256)
		return 16u << 10;
	return 8u << 10;
}

static uint32_t
eager_limit_for(uint32_t ring_bytes)
{
	uint32_t limit = 4096;
	const char *e = getenv("GROVE_MPI_EAGER_LIMIT");
	if (e && *e) {
		char *end;
		unsigned long v = strtoul(e, &end, 10);
		if (*end == '\0')
			limit = (uint32_t)v;
	}
	if (limit > ring_bytes / 4)
		limit = ring_bytes / 4;
	return limit;
}

int
mpi_job_create(struct mpi_job *job, uint32_t nranks, const char *jobid,
               uint32_t bcs_ring_bytes)
{
	memset(job, 0, sizeof(*job));
	job->fd = -1;
	int fd = memfd_create("grove-mpi-job", MFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	int rc = mpi_job_create_fd(job, fd, nranks, jobid, bcs_ring_bytes);
	if (rc != 0)
		close(fd);
	return rc;
}

int
mpi_job_create_fd(struct mpi_job *job, int fd, uint32_t nranks,
                  const char *jobid, uint32_t bcs_ring_bytes)
{
	memset(job, 0, sizeof(*job));
	job->fd = -1;
	if (nranks == 0)
		return -EINVAL;
	if (bcs_ring_bytes &&
	    (bcs_ring_bytes < 4096 || (bcs_ring_bytes & (bcs_ring_bytes - 1))))
		return -EINVAL;
	uint32_t ring_bytes = mpi_job_ring_bytes(nranks);
	size_t hdr = round_up(sizeof(struct mpi_job_hdr), CACHE_LINE);
	size_t ctl = round_up((size_t)nranks * sizeof(struct mpi_rank_ctl), 4096);
	size_t stride = round_up(sizeof(struct mpi_rank_stats), CACHE_LINE);
	size_t stats = round_up((size_t)nranks * stride, 4096);
	size_t one_ring = sizeof(struct mpi_ring_hdr) + ring_bytes;
	size_t rings = (size_t)nranks * nranks * one_ring;
	size_t ctl_off = 4096;
	size_t stats_off = ctl_off + ctl;
	size_t coll_off = stats_off + stats;
	size_t coll = MPI_JOB_COLL_HDR + (size_t)nranks * MPI_JOB_COLL_SLOT;
	size_t rings_off = coll_off + coll;
	size_t bcs_off = bcs_ring_bytes ? rings_off + rings : 0;
	size_t bcs = bcs_ring_bytes ? (size_t)nranks * 2 *
	                              (sizeof(struct mpi_ring_hdr) + bcs_ring_bytes)
	                            : 0;
	size_t size = rings_off + rings + bcs;
	(void)hdr;

	if (ftruncate(fd, (off_t)size) != 0)
		return -errno;
	void *base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED)
		return -errno;
	struct mpi_job_hdr *h = base;
	h->version = MPI_JOB_VERSION;
	h->nranks = nranks;
	h->size = size;
	h->ring_bytes = ring_bytes;
	h->eager_limit = eager_limit_for(ring_bytes);
	h->ctl_off = ctl_off;
	h->stats_off = stats_off;
	h->coll_off = coll_off;
	h->rings_off = rings_off;
	h->stats_stride = stride;
	h->bcs_off = bcs_off;
	h->bcs_ring_bytes = bcs_ring_bytes;
	snprintf(h->jobid, sizeof(h->jobid), "%s", jobid ? jobid : "");
	__atomic_store_n(&h->magic, MPI_JOB_MAGIC, __ATOMIC_RELEASE);
	job->hdr = h;
	job->base = base;
	job->size = size;
	job->fd = fd;
	return 0;
}

int
mpi_job_attach(struct mpi_job *job, int fd, char *err, size_t errlen)
{
	memset(job, 0, sizeof(*job));
	job->fd = -1;
	struct stat st;
	if (fstat(fd, &st) != 0) {
		snprintf(err, errlen, "job segment (descriptor %d): %s", fd,
		         strerror(errno));
		return -1;
	}
	if ((size_t)st.st_size < 4096) {
		snprintf(err, errlen,
		         "job segment (descriptor %d) is %lld bytes, too small",
		         fd, (long long)st.st_size);
		return -1;
	}
	void *base = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE,
	                  MAP_SHARED, fd, 0);
	if (base == MAP_FAILED) {
		snprintf(err, errlen, "job segment (descriptor %d): mmap: %s", fd,
		         strerror(errno));
		return -1;
	}
	struct mpi_job_hdr *h = base;
	const char *bad = NULL;
	if (__atomic_load_n(&h->magic, __ATOMIC_ACQUIRE) != MPI_JOB_MAGIC)
		bad = "not a Grove MPI job segment";
	else if (h->version != MPI_JOB_VERSION)
		bad = "made by another version of Grove MPI";
	else if (h->size != (uint64_t)st.st_size || h->nranks == 0 ||
	         h->rings_off + (uint64_t)h->nranks * h->nranks *
	                            (sizeof(struct mpi_ring_hdr) + h->ring_bytes) >
	             h->size)
		bad = "inconsistent sizes";
	if (bad) {
		snprintf(err, errlen, "job segment (descriptor %d): %s", fd, bad);
		munmap(base, (size_t)st.st_size);
		return -1;
	}
	job->hdr = h;
	job->base = base;
	job->size = (size_t)st.st_size;
	job->fd = fd;
	return 0;
}

void
mpi_job_close(struct mpi_job *job)
{
	if (job->base)
		munmap(job->base, job->size);
	if (job->fd >= 0)
		close(job->fd);
	memset(job, 0, sizeof(*job));
	job->fd = -1;
}

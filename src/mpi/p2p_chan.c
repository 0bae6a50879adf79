/* The channels of the point-to-point engine: their set-up, and reading a
 * peer's memory with process_vm_readv (CMA).  What runs per record is
 * inline in p2p_chan.h. */
#define _GNU_SOURCE
#include "mpi/p2p_chan.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

int
mpi_chans_init(struct mpi_chans *c, struct mpi_job *job, int rank, int size,
               const int *pids)
{
	memset(c, 0, sizeof(*c));
	c->job = job;
	c->me = rank;
	c->cap = job->hdr->ring_bytes;
	c->eager = job->hdr->eager_limit;
	c->pids = calloc((size_t)size, sizeof(int));
	c->head_cache = calloc((size_t)size, sizeof(*c->head_cache));
	if (!c->pids || !c->head_cache) {
		mpi_chans_fini(c);
		return MPI_ERR_NO_MEM;
	}
	memcpy(c->pids, pids, (size_t)size * sizeof(int));
	c->cma = true;
	c->tcp = mpi_tcp_active();
	c->tcp_eager = mpi_tcp_eager();
	const char *env = getenv("GROVE_MPI_CMA");
	if (c->tcp) {
		c->cma = false;
		c->cma_why = "TCP transport: rendezvous in chunks";
	} else if (env && strcmp(env, "0") == 0) {
		c->cma = false;
		c->cma_why = "GROVE_MPI_CMA=0";
	} else {
		/* Read a word a peer published (its probe word): the same
		 * permission check as a real transfer. */
		int peer = (rank + 1) % size;
		struct mpi_rank_ctl *ctl = mpi_job_ctl(job, (uint32_t)peer);
		uint64_t addr = __atomic_load_n(&ctl->probe_addr, __ATOMIC_ACQUIRE);
		uint64_t got = 0;
		struct iovec l = {&got, sizeof(got)};
		struct iovec r = {(void *)(uintptr_t)addr, sizeof(got)};
		if (addr == 0) {
			c->cma = false;
			c->cma_why = "the peer published no probe address";
		} else if (process_vm_readv(pids[peer], &l, 1, &r, 1, 0) !=
		               (ssize_t)sizeof(got) ||
		           got != ctl->probe_value) {
			c->cma = false;
			c->cma_why =
				errno == EPERM ? "process_vm_readv refused (EPERM: "
				                 "ptrace restrictions)"
				: errno == ENOSYS ? "process_vm_readv not in this kernel"
				                  : "process_vm_readv failed";
		}
	}
	return MPI_SUCCESS;
}

void
mpi_chans_fini(struct mpi_chans *c)
{
	free(c->pids);
	free(c->head_cache);
	memset(c, 0, sizeof(*c));
}

int
mpi_chan_cma_read(struct mpi_chans *c, int w, void *dst, uint64_t addr,
                  size_t n)
{
	size_t done = 0;
	while (done < n) {
		struct iovec l = {(char *)dst + done, n - done};
		struct iovec r = {(void *)(uintptr_t)(addr + done), n - done};
		ssize_t got = process_vm_readv(c->pids[w], &l, 1, &r, 1, 0);
		if (got < 0) {
			if (errno == EINTR)
				continue;
			int e = errno;
			if (mpi_chan_cma_refused(e)) {
				c->cma = false;
				c->cma_why = e == ENOSYS ? "process_vm_readv not in this kernel"
				                         : "process_vm_readv refused";
			}
			return e;
		}
		if (got == 0)
			return EIO;
		done += (size_t)got;
	}
	return 0;
}

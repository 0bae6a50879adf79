/* Point-to-point microphase: the node manager moves each matched message
 * from the sender's memory to the receiver's (process_vm_readv into a
 * bounce buffer, process_vm_writev out), with no help from either rank
 * (paper section 4.3: the DMA helper).  A slice moves at most
 * o.budget_bytes; a larger message goes on in the next slices. */
#define _GNU_SOURCE
#include <errno.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "nm_impl.h"

int
nm_cma_read(pid_t pid, uint64_t addr, void *buf, uint64_t len)
{
	while (len) {
		struct iovec l = { buf, len };
		struct iovec r = { (void *)(uintptr_t)addr, len };
		ssize_t n = process_vm_readv(pid, &l, 1, &r, 1, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EFAULT;
		buf = (char *)buf + n;
		addr += (uint64_t)n;
		len -= (uint64_t)n;
	}
	return 0;
}

int
nm_cma_write(pid_t pid, uint64_t addr, const void *buf, uint64_t len)
{
	while (len) {
		struct iovec l = { (void *)buf, len };
		struct iovec r = { (void *)(uintptr_t)addr, len };
		ssize_t n = process_vm_writev(pid, &l, 1, &r, 1, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EFAULT;
		buf = (const char *)buf + n;
		addr += (uint64_t)n;
		len -= (uint64_t)n;
	}
	return 0;
}

int
nm_cma_copy(struct nm *nm, pid_t spid, uint64_t saddr, pid_t dpid,
            uint64_t daddr, uint64_t len)
{
	while (len) {
		uint64_t n = len < nm->bounce_bytes ? len : nm->bounce_bytes;
		int rc = nm_cma_read(spid, saddr, nm->bounce, n);
		if (rc == 0)
			rc = nm_cma_write(dpid, daddr, nm->bounce, n);
		if (rc)
			return rc;
		saddr += n;
		daddr += n;
		len -= n;
	}
	return 0;
}

/* Both ends of a finished (or failed) transfer complete. */
static void
finish(struct nm *nm, struct nm_xfer *x, int error)
{
	const struct bcs_desc *s = &x->msg->d;
	struct bcs_done sd = {
		.req = s->req, .bytes = x->moved, .slice = nm->slice,
		.source = -1, .tag = -1, .error = error, .kind = BCS_D_SEND,
	};
	struct bcs_done rd = {
		.req = x->recv.req, .bytes = x->moved, .slice = nm->slice,
		.source = s->me, .tag = s->tag, .kind = BCS_D_RECV,
		.error = error ? error
		       : s->bytes > x->recv.bytes ? MPI_ERR_TRUNCATE : 0,
	};
	nm_complete(nm, x->msg->src, s, &sd);
	nm_complete(nm, x->dst, &x->recv, &rd);
}

int
nm_p2p(struct nm *nm, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	uint64_t budget = nm->o.budget_bytes ? nm->o.budget_bytes : UINT64_MAX;
	struct nm_xfer **pp = &nm->xfers;
	while (*pp) {
		struct nm_xfer *x = *pp;
		uint64_t n = x->len - x->moved;
		if (n > budget)
			n = budget;
		int rc = 0;
		if (n) {
			rc = nm_cma_copy(nm, nm->r[x->msg->src].pid,
			                 x->msg->d.addr + x->moved, nm->r[x->dst].pid,
			                 x->recv.addr + x->moved, n);
			budget -= n;
		}
		if (rc) {
			/* A bad buffer is the program's error: both calls fail
			 * with it, and the job goes on. */
			nm_say("slice %llu: moving %llu bytes from rank %d to rank "
			       "%d failed: %s", (unsigned long long)nm->slice,
			       (unsigned long long)x->len, x->msg->src, x->dst,
			       strerror(-rc));
			finish(nm, x, MPI_ERR_OTHER);
		} else {
			x->moved += n;
			if (x->moved < x->len) {
				if (budget == 0)
					break; /* the rest in the next slices */
				pp = &x->next;
				continue;
			}
			finish(nm, x, 0);
		}
		*pp = x->next;
		if (nm->xfers_tail == &x->next)
			nm->xfers_tail = pp;
		free(x->msg);
		free(x);
	}
	return 0;
}

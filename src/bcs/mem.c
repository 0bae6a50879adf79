#define _GNU_SOURCE /* process_vm_readv, process_vm_writev */
/* Global memory and other processes' memory: where transfers put their
 * data and take it from.  Another process on this host is reached with
 * process_vm_readv/writev (one copy, no help from it); the kernel checks
 * the caller may (same user, or ptrace rights). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>

#include "bcs/bcs_impl.h"

/* Moves len bytes between here and pid, in as many calls as the kernel
 * wants (a call may move less). */
static int
cma(int write, int32_t pid, uint64_t remote, void *local, size_t len,
    char *why, size_t cap)
{
	size_t done = 0;
	while (done < len) {
		struct iovec l = {(char *)local + done, len - done};
		struct iovec r = {(void *)(uintptr_t)(remote + done),
		    len - done};
		ssize_t n = write ? process_vm_writev(pid, &l, 1, &r, 1, 0) :
		    process_vm_readv(pid, &l, 1, &r, 1, 0);
		if (n <= 0) {
			int e = n < 0 ? errno : EFAULT;
			if (n < 0 && e == EINTR)
				continue;
			snprintf(why, cap, "%s of %zu bytes at 0x%llx in pid %d: "
			    "%s", write ? "process_vm_writev" :
			    "process_vm_readv", len,
			    (unsigned long long)remote, (int)pid, strerror(e));
			return e == EFAULT || e == EINVAL ? GROVE_ERANGE :
			    GROVE_ESYS;
		}
		done += (size_t)n;
	}
	return 0;
}

int
bcs_mem_put(grove_bcs *b, int32_t dst_pid, uint64_t dst_addr,
    const void *data, size_t len, char *why, size_t cap)
{
	if (dst_pid < 0) {
		snprintf(why, cap, "destination pid %d", (int)dst_pid);
		return GROVE_EINVAL;
	}
	if (dst_pid > 0)
		return cma(1, dst_pid, dst_addr, (void *)data, len, why, cap);
	if (dst_addr > b->gmem_bytes || len > b->gmem_bytes - dst_addr) {
		snprintf(why, cap, "%zu bytes at offset %llu do not fit in "
		    "%zu bytes of global memory", len,
		    (unsigned long long)dst_addr, b->gmem_bytes);
		return GROVE_ERANGE;
	}
	if (len)
		memcpy(b->gmem + dst_addr, data, len);
	return 0;
}

int
bcs_mem_get(grove_bcs *b, int32_t src_pid, uint64_t src_addr, void *buf,
    size_t len, char *why, size_t cap)
{
	(void)b;
	if (src_pid < 0) {
		snprintf(why, cap, "source pid %d", (int)src_pid);
		return GROVE_EINVAL;
	}
	if (src_pid == 0) {
		if (len)
			memcpy(buf, (const void *)(uintptr_t)src_addr, len);
		return 0;
	}
	return cma(0, src_pid, src_addr, buf, len, why, cap);
}

/* Dividing a process's CPUs among the children it starts on its host
 * (internal; pure, no system calls).
 *
 * With grove_net_opts.cpu_bind = GROVE_CPU_BIND_SUBTREE a node gives each
 * local child a share of the CPUs it may run on itself, and the child
 * divides its share among its own children in turn: the processes of a
 * subtree stay on the same CPUs, so a message from a CP to its children
 * and back wakes processes on the waker's own core (cheap) instead of
 * another core (an inter-processor interrupt; about 20 us in a VM).
 */
#ifndef GROVE_CPU_SHARE_H
#define GROVE_CPU_SHARE_H

/* cpu_set_t needs _GNU_SOURCE before the first system header. */
#include <sched.h>
#include <stddef.h>
#include <stdint.h>

/* The share of child `index` (0-based) of `nchildren` in `all`, into out.
 * The CPUs of `all` are taken in order and cut into nchildren contiguous
 * runs whose sizes differ by at most one; with fewer CPUs than children
 * each child gets one CPU and consecutive children share one, so the
 * children per CPU differ by at most one too.  Returns the number of CPUs
 * in out: 0 when all is empty or index >= nchildren (out is then empty). */
int cpu_share_of(const cpu_set_t *all, uint32_t nchildren, uint32_t index,
    cpu_set_t *out);

/* A set as text in the kernel's list format ("0-3,8"; "" when empty),
 * cut short to fit len (always terminated when len > 0).  For logs and
 * test messages. */
void cpu_set_text(const cpu_set_t *s, char *out, size_t len);

#endif

/* Coscheduling of `grove monitor` with the job it watches (--cosched;
 * the EventSpace monitoring paper, section 3; docs/monitoring.md,
 * "Coscheduling").
 *
 * The monitor's reading and analysis should take CPU only while the
 * monitored ranks are blocked in communication, never from a rank that
 * computes.  Two levers:
 *
 *  - the kernel: the monitor runs under SCHED_IDLE, so that it gets a
 *    core only when no ordinary task wants it, and a rank that becomes
 *    runnable (its message arrived) takes the core back at once.  This
 *    is the paper's release order (communication and computation
 *    threads first, analysis threads last) without changing the
 *    scheduler;
 *  - the job: a pull (reading the rings and analysing what was read)
 *    starts only when at least one rank on this host is blocked in a
 *    wait: its `sleeping` flag in the Grove MPI job segment (set by the
 *    rank just before it sleeps on its futex, cleared when it wakes;
 *    src/mpi/wake.c), read through the rank's own descriptor of the
 *    segment (/proc/PID/fd, same user only).  For processes that are
 *    not Grove MPI ranks (a Grove network) the flag is their state in
 *    /proc/PID/stat (S: sleeping).
 *
 * A pull that found no blocked rank for a whole pull period is made
 * anyway (forced), so that rings written faster than the gaps come are
 * still read before they wrap; the counts of both kinds are reported
 * (the pulls themselves: pull.h). */
#ifndef GROVE_TOOLS_MONITOR_COSCHED_H
#define GROVE_TOOLS_MONITOR_COSCHED_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "scope/scope.h"

struct cosched {
	int sched_idle;             /* SCHED_IDLE is in effect */
	int idle_tried;
	/* The Grove MPI job segment, mapped read-only (NULL: not found). */
	void *job;
	size_t job_size;
	int job_tried;              /* looked for it (once a rank is known) */
	uint64_t checks;            /* looks at the ranks' state */
	uint64_t gated;             /* pulls made with a rank blocked */
	uint64_t forced;            /* pulls made at the deadline */
};

/* Nothing done yet. */
void cosched_init(struct cosched *c);

/* How many of the scope's processes are blocked in a wait now: 0 when
 * none, -1 when it cannot be told (no process known). */
int cosched_blocked(struct cosched *c, const struct scope *s);

/* Puts the calling process under SCHED_IDLE, once (the scope attached
 * at the ordinary priority, so that a busy machine cannot keep the
 * monitor from finding the job before it ends); when refused it says so
 * on standard error and goes on with the gate alone. */
void cosched_enter_idle(struct cosched *c);

/* The fields of --json: ,"cosched":{...} */
void cosched_json(FILE *f, const struct cosched *c);

void cosched_free(struct cosched *c);

#endif

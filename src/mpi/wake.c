/* Waiting without burning cores.
 *
 * A rank that waits first spins on progress for a short, bounded time
 * (a reply from a rank running on another core comes back within a few
 * microseconds), then sleeps on the futex word of its control block in the
 * job segment.  Whoever publishes something it may wait for (a record in
 * one of its rings, a shared-memory collective's arrival, ring space)
 * calls mpi_wake(rank): one load of the sleeping flag, and a futex wake
 * only when the rank sleeps.  With more ranks than cores, spinning only
 * steals the core the awaited rank needs, so a rank sleeps at once.
 *
 * The protocol (an event count): the waiter reads wake_seq, sets
 * sleeping, then checks for work once more and sleeps only if wake_seq
 * still holds what it read; the waker publishes its data, then (after a
 * full fence) reads sleeping and, if set, bumps wake_seq and wakes.  Either
 * the waiter's last check sees the data or the waker sees the flag.
 *
 * With the TCP transport (tcp_chan.h) every peer but the rank itself is
 * behind a socket, so the sleep is a poll() on the sockets instead of
 * the futex (at most 1 s, like the futex's, then progress looks again).
 * Nothing shared-memory is waited for then: the world's collectives take
 * the point-to-point schedules, and a rank's records to itself are in
 * its ring before it waits.  Mixing both kinds of peer in one rank would
 * need short poll naps; grove run never does it (TCP is everywhere or
 * nowhere in a job).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "mpi/bcs_rank.h"
#include "mpi/clusters.h"
#include "mpi/job.h"
#include "mpi/mpi_impl.h"
#include "mpi/p2p.h"
#include "mpi/tcp_chan.h"

static long
futex(uint32_t *addr, int op, uint32_t val, const struct timespec *ts)
{
	return syscall(SYS_futex, addr, op, val, ts, NULL, 0);
}

void
mpi_wake_published(int world_rank)
{
	struct mpi_rank_ctl *c = mpi_job_ctl(mpi_proc.job, (uint32_t)world_rank);
	if (__atomic_load_n(&c->sleeping, __ATOMIC_RELAXED)) {
		__atomic_fetch_add(&c->wake_seq, 1, __ATOMIC_SEQ_CST);
		futex(&c->wake_seq, FUTEX_WAKE, 1, NULL);
	}
}

void
mpi_wake(int world_rank)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	mpi_wake_published(world_rank);
}

static int
cpus_available(void)
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		return CPU_COUNT(&set);
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (int)n : 1;
}

/* Spin time before sleeping, in ns; computed once (per process: the
 * machine and the job's size do not change while it runs). */
static int64_t spin_ns = -1;

int
mpi_spin_budget(void)
{
	if (spin_ns < 0) {
		/* 1 ms: longer than a large single-copy transfer (1 MiB moves
		 * in 100-300 us here), so neither side of one sleeps; a rank
		 * that waits longer sleeps after this once per wait. */
		int64_t ns = 1000000;
		const char *e = getenv("GROVE_MPI_SPIN_US");
		if (e && *e)
			ns = strtoll(e, NULL, 10) * 1000;
		if (mpi_proc.size > cpus_available())
			ns = 0; /* oversubscribed: the peer needs our core */
		if (mpi_bcs_mode)
			ns = 0; /* completions come at slice boundaries */
		spin_ns = ns < 0 ? 0 : ns;
	}
	return (int)(spin_ns / 1000);
}

static inline int64_t
now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static inline void
cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

void
mpi_progress_until(bool (*done)(void *), void *arg)
{
	if (done(arg))
		return;
	mpi_spin_budget();
	struct mpi_rank_ctl *c =
		mpi_job_ctl(mpi_proc.job, (uint32_t)mpi_proc.rank);
	int64_t spin_until = 0;
	unsigned polls = 0;
	for (;;) {
		if (mpi_progress() > 0) {
			if (done(arg))
				return;
			spin_until = 0;
			continue;
		}
		if (done(arg))
			return;
		if (spin_ns > 0) {
			/* Read the clock every 64 polls only. */
			if ((++polls & 63) != 1) {
				cpu_relax();
				continue;
			}
			int64_t t = now_ns();
			if (spin_until == 0)
				spin_until = t + spin_ns;
			if (spin_until != INT64_MAX && t < spin_until) {
				cpu_relax();
				continue;
			}
		}
		if (mpi_tcp_active()) {
			/* Progress just found nothing: sleep on the sockets, no
			 * longer than until the emulated WAN's next message is
			 * due. */
			int wait_ms = 1000;
			int64_t wan_due = mpi_wan_next_due_ns();
			if (wan_due >= 0 && wan_due < 1000000000)
				wait_ms = (int)((wan_due + 999999) / 1000000);
			bool ready = mpi_tcp_wait(wait_ms) > 0;
			spin_until = ready ? 0 : INT64_MAX;
			continue;
		}
		uint32_t seq = __atomic_load_n(&c->wake_seq, __ATOMIC_ACQUIRE);
		__atomic_store_n(&c->sleeping, 1, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		if (mpi_progress() > 0 || done(arg)) {
			__atomic_store_n(&c->sleeping, 0, __ATOMIC_RELAXED);
			if (done(arg))
				return;
			spin_until = 0;
			continue;
		}
		/* The timeout only bounds the damage of a lost wake-up; a rank
		 * waiting for ring space naps 1 ms, because the consumer
		 * looks for the space-wanted flag without a fence. */
		struct timespec ts = {1, 0};
		if (mpi_p2p_waits_for_space())
			ts = (struct timespec){0, 1000000};
		int64_t wan_due = mpi_wan_next_due_ns(); /* emulated WAN */
		if (wan_due >= 0 && wan_due < 1000000000)
			ts = (struct timespec){0, wan_due};
		long r = futex(&c->wake_seq, FUTEX_WAIT, seq, &ts);
		bool timed_out = r != 0 && errno == ETIMEDOUT;
		__atomic_store_n(&c->sleeping, 0, __ATOMIC_RELAXED);
		/* Woken: the answer is near, spin again.  Timed out: look once
		 * and sleep again, so a long wait costs one spin, not one per
		 * second. */
		spin_until = timed_out ? INT64_MAX : 0;
	}
}

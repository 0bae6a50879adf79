/* When grove monitor reads its scope (see pull.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <time.h>

#include "pull.h"

/* --cosched: how often the job's processes are looked at while a pull
 * waits for a blocked moment. */
#define COSCHED_TICK 0.001

static double
now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void
sleep_s(double s)
{
	if (s <= 0)
		return;
	struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* The shortest default period (--pull auto): what reading costs the
 * job is bounded (a pull lists /dev/shm and reads every ring, or goes
 * through the tree). */
#define PULL_MIN_S 0.01

void
monitor_pull_init(struct monitor_pull *m, double min_s, double max_s,
                  monitor_pull_fn fn, void *ctx)
{
	/* A quarter full: a burst at four times the rate last seen is
	 * still read before its ring wraps.  Half full lost a quarter of
	 * gsum's tuples over TCP on a loaded machine, whose ranks run in
	 * bursts between being descheduled; pulls cost little apart from
	 * the tuples they read, which are the same however often. */
	scope_pace_init(&m->pace, min_s, max_s, 0.25);
	m->fn = fn;
	m->ctx = ctx;
	m->cs = NULL;
	m->gate = NULL;
	m->last = now_s();
}

void
monitor_pull_default(struct monitor_pull *m, double interval, double pull,
                     monitor_pull_fn fn, void *ctx)
{
	if (pull > 0)
		monitor_pull_init(m, pull, pull, fn, ctx);
	else
		monitor_pull_init(m, PULL_MIN_S < interval ? PULL_MIN_S
		                                           : interval,
		                  interval, fn, ctx);
}

void
monitor_pull_cosched(struct monitor_pull *m, struct cosched *cs,
                     struct scope *s)
{
	m->cs = cs;
	m->gate = s;
}

int
monitor_pull_scope(void *ctx, double *peak_fill)
{
	struct scope *s = ctx;
	int rc = scope_poll(s);
	*peak_fill = s->peak_fill;
	return rc;
}

int
monitor_pull_now(struct monitor_pull *m)
{
	double peak = 0;
	int rc = m->fn(m->ctx, &peak);
	double t = now_s();
	if (!rc)
		scope_pace_next(&m->pace, peak, t - m->last);
	m->last = t;
	return rc;
}

static int
paced_for(struct monitor_pull *m, double end)
{
	for (;;) {
		double t = now_s(), next = m->last + m->pace.next_s;
		if (next >= end) {
			sleep_s(end - t);
			/* The view's own pull, unless one was made less than
			 * half a period ago: the view is then that recent,
			 * and a pull so soon would read little and cost a
			 * whole pass over the rings. */
			if (now_s() - m->last < m->pace.next_s / 2)
				return 0;
			return monitor_pull_now(m);
		}
		sleep_s(next - t);
		int rc = monitor_pull_now(m);
		if (rc)
			return rc;
	}
}

static int
gated_for(struct monitor_pull *m, double end)
{
	cosched_enter_idle(m->cs);
	for (;;) {
		sleep_s(COSCHED_TICK);
		double t = now_s();
		if (t >= end)
			return 0;
		double since = t - m->last;
		/* Not before half the period: reading more often than the
		 * rings need costs the job, blocked or not. */
		if (since < m->pace.next_s / 2)
			continue;
		if (cosched_blocked(m->cs, m->gate) > 0)
			m->cs->gated++;
		else if (since >= m->pace.next_s)
			m->cs->forced++;
		else
			continue;
		int rc = monitor_pull_now(m);
		if (rc)
			return rc;
	}
}

int
monitor_pull_for(struct monitor_pull *m, double seconds)
{
	double end = now_s() + seconds;
	return m->cs ? gated_for(m, end) : paced_for(m, end);
}

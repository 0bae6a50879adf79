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

void
monitor_pull_init(struct monitor_pull *m, double min_s, double max_s,
                  struct cosched *cs)
{
	/* A quarter full: a burst at four times the rate last seen is
	 * still read before its ring wraps.  Half full lost a quarter of
	 * gsum's tuples over TCP on a loaded machine, whose ranks run in
	 * bursts between being descheduled; pulls cost little apart from
	 * the tuples they read, which are the same however often. */
	scope_pace_init(&m->pace, min_s, max_s, 0.25);
	m->cs = cs;
	m->last = now_s();
}

int
monitor_pull_now(struct monitor_pull *m, struct scope *s)
{
	int rc = scope_poll(s);
	double t = now_s();
	if (!rc)
		scope_pace_next(&m->pace, s->peak_fill, t - m->last);
	m->last = t;
	return rc;
}

static int
paced_for(struct monitor_pull *m, struct scope *s, double end)
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
			return monitor_pull_now(m, s);
		}
		sleep_s(next - t);
		int rc = monitor_pull_now(m, s);
		if (rc)
			return rc;
	}
}

static int
gated_for(struct monitor_pull *m, struct scope *s, double end)
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
		if (cosched_blocked(m->cs, s) > 0)
			m->cs->gated++;
		else if (since >= m->pace.next_s)
			m->cs->forced++;
		else
			continue;
		int rc = monitor_pull_now(m, s);
		if (rc)
			return rc;
	}
}

int
monitor_pull_for(struct monitor_pull *m, struct scope *s, double seconds)
{
	double end = now_s() + seconds;
	return m->cs ? gated_for(m, s, end) : paced_for(m, s, end);
}

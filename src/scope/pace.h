/* Adaptive pulls: when a monitor reads its scope next, by default
 * (docs/monitoring.md, "Lost tuples and the pace of pulls").
 *
 * A ring holds a fixed number of tuples and loses its oldest when written
 * faster than it is read.  A fixed pull period is either too long for a
 * busy job (tuples lost) or wasteful for a quiet one.  The pace instead
 * measures, at every pull, how fast the busiest ring filled since the one
 * before (the share of its slots written, lost ones included) and puts
 * the next pull where that ring is expected to be `fill` full (grove
 * monitor: a quarter, so that a burst of four times the rate seen is
 * still read whole).
 * The period shrinks at once when the rate rises and grows at most
 * twofold per pull when it falls, so one quiet moment does not open a
 * long gap; it stays within [min_s, max_s].
 *
 * Pure: no clock, no I/O; the caller measures and sleeps. */
#ifndef GROVE_SCOPE_PACE_H
#define GROVE_SCOPE_PACE_H

struct scope_pace {
	double min_s;   /* the shortest period: what a pull may cost */
	double max_s;   /* the longest: a view's interval */
	double fill;    /* how full the busiest ring may get, in (0, 1] */
	double next_s;  /* the period until the next pull */
};

/* A pace between min_s and max_s (0 < min_s <= max_s) aiming at fill;
 * the first period is min_s: nothing is known of the rates yet. */
void scope_pace_init(struct scope_pace *p, double min_s, double max_s,
                     double fill);

/* After a pull dt seconds after the previous one that found the busiest
 * ring's share `peak` of its slots newly written (scope.peak_fill; above
 * 1 when it wrapped): the period until the next pull, also kept in
 * p->next_s. */
double scope_pace_next(struct scope_pace *p, double peak, double dt);

#endif

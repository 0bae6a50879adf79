/* Adaptive pulls (see pace.h). */
#include "pace.h"

void
scope_pace_init(struct scope_pace *p, double min_s, double max_s, double fill)
{
	p->min_s = min_s;
	p->max_s = max_s < min_s ? min_s : max_s;
	p->fill = fill > 0 && fill <= 1 ? fill : 0.5;
	p->next_s = p->min_s;
}

double
scope_pace_next(struct scope_pace *p, double peak, double dt)
{
	double want = p->max_s;
	/* peak / dt: the share of a ring written per second; the time it
	 * takes to write `fill` of it is the period wanted. */
	if (peak > 0 && dt > 0)
		want = p->fill * dt / peak;
	/* Falling rates lengthen the period gradually: the rate of one
	 * quiet stretch says little about the next. */
	if (want > 2 * p->next_s)
		want = 2 * p->next_s;
	if (want < p->min_s)
		want = p->min_s;
	if (want > p->max_s)
		want = p->max_s;
	p->next_s = want;
	return want;
}

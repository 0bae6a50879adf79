/* Welford's running variance and its pairwise merge (see welford.h). */
#include <math.h>

#include "monitor/welford.h"

void
mon_welford_add(struct mon_welford *w, uint64_t x)
{
	if (!w->n || x < w->min)
		w->min = x;
	if (!w->n || x > w->max)
		w->max = x;
	w->n++;
	double d = (double)x - w->mean;
	w->mean += d / (double)w->n;
	w->m2 += d * ((double)x - w->mean);
}

void
mon_welford_merge(struct mon_welford *a, const struct mon_welford *b)
{
	if (!b->n)
		return;
	if (!a->n) {
		*a = *b;
		return;
	}
	double n = (double)a->n + (double)b->n;
	double d = b->mean - a->mean;
	a->mean += d * (double)b->n / n;
	a->m2 += b->m2 + d * d * (double)a->n * (double)b->n / n;
	a->n += b->n;
	if (b->min < a->min)
		a->min = b->min;
	if (b->max > a->max)
		a->max = b->max;
}

double
mon_welford_sd(const struct mon_welford *w)
{
	if (w->n < 2 || !(w->m2 > 0))
		return 0;
	return sqrt(w->m2 / (double)(w->n - 1));
}

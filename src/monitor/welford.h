/* Running mean and variance (Welford), and the merge of two such
 * accumulators (Chan, Golub and LeVeque's pairwise update), so that
 * partial statistics computed on several hosts combine into the ones of
 * all their samples without the samples (internal, src/monitor). */
#ifndef GROVE_MONITOR_WELFORD_H
#define GROVE_MONITOR_WELFORD_H

#include <stdint.h>

struct mon_welford {
	uint64_t n;
	double mean;
	double m2;       /* sum of squared differences from the mean */
	uint64_t min, max;
};

void mon_welford_add(struct mon_welford *w, uint64_t x);
/* a := a and b together. */
void mon_welford_merge(struct mon_welford *a, const struct mon_welford *b);
/* Sample standard deviation (n - 1 in the denominator); 0 below two
 * samples. */
double mon_welford_sd(const struct mon_welford *w);

#endif

/* Summaries of paired benchmark ratios: on a shared machine a single
 * ratio says little, their distribution does. */
#ifndef GROVE_TOOLS_BENCH_STATS_H
#define GROVE_TOOLS_BENCH_STATS_H

#include <stddef.h>

typedef struct bench_summary {
	double median;
	double q1, q3;        /* quartiles (linear interpolation) */
	double ci_lo, ci_hi;  /* 95% bootstrap interval of the median */
	double min, max;
	int n;
} bench_summary;

/* Summarises v[0..n) (n >= 1; v is sorted in place).  The bootstrap uses
 * a fixed seed, so the same samples give the same interval. */
void bench_summarize(double *v, int n, bench_summary *out);

/* qsort comparison of doubles, ascending. */
int bench_cmp_double(const void *a, const void *b);

/* min, median, 90th percentile and max of v[0..n) (sorted in place; all
 * zero when n is 0). */
typedef struct bench_dist {
	double min, median, p90, max;
} bench_dist;

bench_dist bench_dist_of(double *v, size_t n);

#endif

/* Summaries of paired benchmark ratios: on a shared machine a single
 * ratio says little, their distribution does. */
#ifndef GROVE_TOOLS_BENCH_STATS_H
#define GROVE_TOOLS_BENCH_STATS_H

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

#endif

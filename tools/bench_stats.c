#include "bench_stats.h"

#include <stdint.h>
#include <stdlib.h>

#define BOOT_RESAMPLES 2000
#define BOOT_MAX_N 256

int
bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* The p-quantile of sorted v, interpolating between neighbours. */
static double
quantile(const double *v, int n, double p)
{
	double pos = p * (n - 1);
	int i = (int)pos;
	if (i >= n - 1)
		return v[n - 1];
	return v[i] + (pos - i) * (v[i + 1] - v[i]);
}

/* xorshift64*: a fixed, reproducible stream for the resampling. */
static uint64_t
next_rand(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1Dull;
}

void
bench_summarize(double *v, int n, bench_summary *out)
{
	qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
	out->n = n;
	out->min = v[0];
	out->max = v[n - 1];
	out->median = quantile(v, n, 0.5);
	out->q1 = quantile(v, n, 0.25);
	out->q3 = quantile(v, n, 0.75);
	out->ci_lo = out->ci_hi = out->median;
	if (n < 3 || n > BOOT_MAX_N)
		return;
	double meds[BOOT_RESAMPLES], s[BOOT_MAX_N];
	uint64_t seed = 0x9E3779B97F4A7C15ull;
	for (int b = 0; b < BOOT_RESAMPLES; b++) {
		for (int i = 0; i < n; i++)
			s[i] = v[next_rand(&seed) % (uint64_t)n];
		qsort(s, (size_t)n, sizeof *s, bench_cmp_double);
		meds[b] = quantile(s, n, 0.5);
	}
	qsort(meds, BOOT_RESAMPLES, sizeof *meds, bench_cmp_double);
	out->ci_lo = quantile(meds, BOOT_RESAMPLES, 0.025);
	out->ci_hi = quantile(meds, BOOT_RESAMPLES, 0.975);
}

bench_dist
bench_dist_of(double *v, size_t n)
{
	bench_dist d = {0, 0, 0, 0};
	if (!n)
		return d;
	qsort(v, n, sizeof *v, bench_cmp_double);
	d.min = v[0];
	d.median = v[n / 2];
	d.p90 = v[(n * 9) / 10];
	d.max = v[n - 1];
	return d;
}

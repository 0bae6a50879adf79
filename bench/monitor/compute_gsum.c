/* compute-gsum: the EventSpace monitoring paper's second micro-benchmark
 * (Bongo et al., section 5): gsum (bench/monitor/gsum.c: a global sum of
 * 8-byte values on two allreduce trees used alternately) with a
 * computation before every sum, tuned so that the ranks spend about half
 * of the time computing and half in MPI_Allreduce.  Delaying any one rank
 * delays all of them, which makes it sensitive to a monitor's
 * perturbation.
 *
 *   compute_gsum [-n ITERS] [-c COMPUTE_US]
 *
 * ITERS (default 20000) timed iterations.  The computation is the
 * calibrated busy loop of bench/mpi/grain.h (CPU time, the same amount on
 * every rank).  Without -c its amount is found before the timed loop, as
 * the median time of a bare allreduce (see calibrate).  Rank 0 prints the grain,
 * the wall time
 * of the timed loop, and the share of it rank 0 spent in MPI_Allreduce:
 *
 *   compute-gsum ranks=2 iters=20000 compute_us=18.4 seconds=0.81
 *       us_per_iter=40.5 in_allreduce=0.51 sums=ok
 *
 * (one line).  Every sum is checked as gsum checks it, and the
 * computation's state too.  Exit status 0, 1 on a wrong sum, 2 on a usage
 * error. */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../mpi/grain.h"

struct loop {
	MPI_Comm comm[2];
	int rank, nranks;
	long units;         /* of computation per iteration */
	double x;           /* the computation's state */
	long wrong;         /* wrong sums so far */
};

/* iters iterations from iteration first on; returns rank 0's wall time
 * in MPI_Allreduce, the loop's wall time in *total. */
static double run(struct loop *l, long first, long iters, double *total)
{
	const int64_t tri = (int64_t)l->nranks * (l->nranks + 1) / 2;
	double in_ar = 0, t0 = MPI_Wtime();
	for (long i = first; i < first + iters; i++) {
		grain_work(l->units, &l->x);
		int64_t mine = (int64_t)(i + 1) * (l->rank + 1), sum = 0;
		double a = MPI_Wtime();
		MPI_Allreduce(&mine, &sum, 1, MPI_INT64_T, MPI_SUM,
		    l->comm[i & 1]);
		in_ar += MPI_Wtime() - a;
		if (sum != (int64_t)(i + 1) * tri)
			l->wrong++;
	}
	*total = MPI_Wtime() - t0;
	return in_ar;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The grain, in CPU microseconds: the median time of a bare allreduce
 * (1000 calls timed one by one), times the share of a core each rank has
 * when there are more ranks than cores (the computation of all ranks then
 * takes turns on the cores).  Rank 0's figure, for every rank.  The
 * median, because on a loaded machine a rank that is descheduled makes
 * some calls take milliseconds; means (and a feedback loop on the
 * measured shares, tried first) ran away with them. */
#define CALIB_CALLS 1000
static double calibrate(struct loop *l, long *next)
{
	static double t[CALIB_CALLS];
	double total;
	l->units = 0;
	run(l, *next, 100, &total); /* warm-up */
	*next += 100;
	for (int k = 0; k < CALIB_CALLS; k++) {
		t[k] = run(l, *next, 1, &total);
		*next += 1;
	}
	qsort(t, CALIB_CALLS, sizeof t[0], cmp_double);
	double us = t[CALIB_CALLS / 2] * 1e6;
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	if (cores > 0 && cores < l->nranks)
		us *= (double)cores / l->nranks;
	MPI_Bcast(&us, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	return us;
}

int main(int argc, char **argv)
{
	long iters = 20000;
	double compute_us = -1;
	int c, bad = 0;
	char *end;
	struct loop l = {.x = 0.3};

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &l.rank);
	MPI_Comm_size(MPI_COMM_WORLD, &l.nranks);
	while ((c = getopt(argc, argv, "n:c:")) != -1) {
		switch (c) {
		case 'n':
			iters = strtol(optarg, &end, 10);
			if (*end || end == optarg || iters < 1 || iters > 1000000000L)
				bad = 1;
			break;
		case 'c':
			compute_us = strtod(optarg, &end);
			if (*end || end == optarg || !(compute_us >= 0 &&
			                                compute_us <= 1e6))
				bad = 1;
			break;
		default: bad = 1; break;
		}
	}
	if (bad || optind != argc) {
		if (l.rank == 0)
			fprintf(stderr, "usage: compute_gsum [-n ITERS] "
			    "[-c COMPUTE_US] (ITERS from 1 to 1000000000, "
			    "COMPUTE_US from 0 to 1000000)\n");
		MPI_Finalize();
		return 2;
	}
	MPI_Comm_dup(MPI_COMM_WORLD, &l.comm[0]);
	MPI_Comm_dup(MPI_COMM_WORLD, &l.comm[1]);

	double rate = grain_calibrate(MPI_COMM_WORLD);
	if (!(rate > 0)) {
		if (l.rank == 0)
			fprintf(stderr, "compute_gsum: the busy loop could not "
			    "be calibrated\n");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	long next = 0;
	if (compute_us < 0)
		compute_us = calibrate(&l, &next);
	l.units = grain_units(compute_us, rate);

	double total;
	MPI_Barrier(MPI_COMM_WORLD);
	double t0 = MPI_Wtime();
	double in_ar = run(&l, next, iters, &total);
	MPI_Barrier(MPI_COMM_WORLD);
	double t = MPI_Wtime() - t0;

	long wrong = l.wrong + !grain_state_ok(l.x), all = 0;
	MPI_Allreduce(&wrong, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
	if (l.rank == 0) {
		printf("compute-gsum ranks=%d iters=%ld compute_us=%.3f "
		    "seconds=%.6f us_per_iter=%.3f in_allreduce=%.3f ",
		    l.nranks, iters, compute_us, t, t / (double)iters * 1e6,
		    total > 0 ? in_ar / total : 0);
		if (all)
			printf("sums=WRONG wrong=%ld\n", all);
		else
			printf("sums=ok\n");
		fflush(stdout);
	}
	MPI_Comm_free(&l.comm[0]);
	MPI_Comm_free(&l.comm[1]);
	MPI_Finalize();
	return all ? 1 : 0;
}

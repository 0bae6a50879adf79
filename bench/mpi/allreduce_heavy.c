/* Many small reductions with a little computation between: the kind of
 * program whose run time the monitoring of bcs-mpi.txt 6.4 (Table 6.1)
 * could disturb most, since every call is recorded.
 *
 *   allreduce_heavy [--iters N] [--compute-us C]
 *
 * N (default 20000) iterations of: about C microseconds of computation
 * (default 5; grain.h, calibrated at start in CPU time), then one 8-byte
 * MPI_Allreduce (a double, MPI_SUM).  Like a global sum (gsum) in a
 * solver that keeps two communicators, iterations alternate between
 * MPI_COMM_WORLD and a duplicate of it.  Each rank contributes
 * (rank + 1) * (i % 7 + 1), so the sum of iteration i is
 * n (n + 1) / 2 * (i % 7 + 1) exactly; a wrong sum prints the iteration
 * and exits 1.
 *
 * Prints on rank 0 one line of what it measured:
 *
 *   allreduce_heavy ranks=8 iters=20000 compute_us=5 total_s=0.4
 *       iter_us=20 call_us=14
 *
 * total_s is the slowest rank's loop time, iter_us = total_s / iters,
 * call_us the mean time in one MPI_Allreduce over all ranks. */
#define _GNU_SOURCE
#include <getopt.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "grain.h"

static void usage(FILE *f)
{
	fprintf(f,
	    "usage: allreduce_heavy [--iters N] [--compute-us C]\n"
	    "  N iterations of C us of computation and one 8-byte\n"
	    "  MPI_Allreduce, alternately on MPI_COMM_WORLD and a duplicate.\n"
	    "  --iters N        iterations (default 20000)\n"
	    "  --compute-us C   computation per iteration in us (default 5;\n"
	    "                   CPU time, calibrated at start)\n");
}

/* Returns 0 to run, 1 after --help, -1 on an error (said on rank 0). */
static int parse(int argc, char **argv, int rank, long *iters,
                 double *compute_us)
{
	static const struct option opts[] = {
		{"iters", required_argument, 0, 'i'},
		{"compute-us", required_argument, 0, 'c'},
		{"help", no_argument, 0, 'h'},
		{0, 0, 0, 0},
	};
	int c;
	char *end;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			*iters = strtol(optarg, &end, 10);
			if (*optarg == '\0' || *end != '\0' || *iters < 1) {
				if (rank == 0)
					fprintf(stderr, "allreduce_heavy: --iters "
					    "wants a whole number >= 1, not "
					    "'%s'\n", optarg);
				return -1;
			}
			break;
		case 'c':
			*compute_us = strtod(optarg, &end);
			if (*optarg == '\0' || *end != '\0' || *compute_us < 0) {
				if (rank == 0)
					fprintf(stderr, "allreduce_heavy: "
					    "--compute-us wants a number >= 0, "
					    "not '%s'\n", optarg);
				return -1;
			}
			break;
		case 'h':
			if (rank == 0)
				usage(stdout);
			return 1;
		default:
			if (rank == 0) {
				fprintf(stderr, "allreduce_heavy: unknown option "
				    "%s\n", argv[optind - 1]);
				usage(stderr);
			}
			return -1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	long iters = 20000;
	double compute_us = 5;
	int rank, nranks;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	int ps = parse(argc, argv, rank, &iters, &compute_us);
	if (ps != 0) {
		MPI_Finalize();
		return ps > 0 ? 0 : 2;
	}
	double rate = grain_calibrate(MPI_COMM_WORLD);
	if (rate <= 0) {
		if (rank == 0)
			fprintf(stderr, "allreduce_heavy: the calibration "
			    "failed\n");
		MPI_Finalize();
		return 1;
	}
	long units = grain_units(compute_us, rate);
	MPI_Comm comms[2] = {MPI_COMM_WORLD, MPI_COMM_NULL};
	MPI_Comm_dup(MPI_COMM_WORLD, &comms[1]);

	double x = 0.3 + 0.01 * (rank % 10), in_calls = 0;
	double tri = (double)nranks * (nranks + 1) / 2;
	long bad_iter = -1;
	MPI_Barrier(MPI_COMM_WORLD);
	double t0 = MPI_Wtime();
	for (long i = 0; i < iters; i++) {
		grain_work(units, &x);
		double mine = (double)(rank + 1) * (double)(i % 7 + 1), sum;
		double c0 = MPI_Wtime();
		MPI_Allreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, comms[i % 2]);
		in_calls += MPI_Wtime() - c0;
		if (sum != tri * (double)(i % 7 + 1)) {
			/* Every rank got the same sum, so all stop here. */
			if (rank == 0)
				fprintf(stderr, "allreduce_heavy: iteration %ld "
				    "on %s: sum %.17g, wanted %.17g\n", i,
				    i % 2 ? "the duplicate" : "MPI_COMM_WORLD",
				    sum, tri * (double)(i % 7 + 1));
			bad_iter = i;
			break;
		}
	}
	double elapsed = MPI_Wtime() - t0;
	int bad = bad_iter >= 0 || !grain_state_ok(x);
	if (!grain_state_ok(x))
		fprintf(stderr, "allreduce_heavy: rank %d: the computation went "
		    "wrong (%g)\n", rank, x);

	double mine[2] = {bad, in_calls}, sums[2], slowest;
	MPI_Allreduce(mine, sums, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	MPI_Allreduce(&elapsed, &slowest, 1, MPI_DOUBLE, MPI_MAX,
	    MPI_COMM_WORLD);
	int ok = sums[0] == 0;
	if (ok && rank == 0) {
		printf("allreduce_heavy ranks=%d iters=%ld compute_us=%g "
		    "total_s=%.6f iter_us=%.3f call_us=%.3f\n", nranks, iters,
		    compute_us, slowest, slowest / (double)iters * 1e6,
		    sums[1] / ((double)nranks * (double)iters) * 1e6);
		fflush(stdout);
	}
	MPI_Comm_free(&comms[1]);
	MPI_Finalize();
	return ok ? 0 : 1;
}

/* Latency of an 8-byte MPI_Allreduce (one double, MPI_SUM), any number
 * of ranks.
 *
 *   allreduce [-t SECONDS] [-n MAX_ITERS]
 *
 * A warm-up of up to 100 calls (at most a tenth of SECONDS), then calls
 * until about SECONDS (default 1) have passed on rank 0 or MAX_ITERS
 * (default 1000000) were made.  Rank 0 decides when to stop and says so in
 * the reduced value itself, so every timed call is the 8-byte allreduce
 * and nothing else; this bounds the run even when each call takes many
 * milliseconds (a busy-polling MPI with more ranks than cores).  Prints
 * the mean time per call as seen by rank 0:
 *
 *   allreduce bytes=8 ranks=8 iters=51234 avg_us=19.52 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Calls MPI_Allreduce until rank 0 has spent `budget` seconds or `max`
 * calls; returns the number of calls, and the time in *elapsed. */
static long run(int rank, double budget, long max, double *elapsed)
{
	double t0 = MPI_Wtime(), now = t0;
	long n = 0;
	for (;;) {
		double stop = 0, sum = 0;
		if (rank == 0 && (now - t0 >= budget || n + 1 >= max))
			stop = 1; /* this call is the last one */
		MPI_Allreduce(&stop, &sum, 1, MPI_DOUBLE, MPI_SUM,
		    MPI_COMM_WORLD);
		n++;
		now = MPI_Wtime();
		if (sum > 0)
			break;
	}
	*elapsed = now - t0;
	return n;
}

int main(int argc, char **argv)
{
	double budget = 1.0, t;
	long max = 1000000;
	int c, rank, nranks;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	while ((c = getopt(argc, argv, "t:n:")) != -1) {
		switch (c) {
		case 't': budget = atof(optarg); break;
		case 'n': max = atol(optarg); break;
		default:
			if (rank == 0)
				fprintf(stderr, "usage: allreduce [-t SECONDS]"
				    " [-n MAX_ITERS]\n");
			MPI_Abort(MPI_COMM_WORLD, 2);
		}
	}
	if (budget <= 0 || max < 1) {
		if (rank == 0)
			fprintf(stderr, "allreduce: SECONDS > 0, MAX_ITERS >= 1\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	run(rank, budget / 10, 100, &t);
	long n = run(rank, budget, max, &t);
	if (rank == 0)
		printf("allreduce bytes=8 ranks=%d iters=%ld avg_us=%.3f\n", nranks,
		    n, t / n * 1e6);
	MPI_Finalize();
	return 0;
}

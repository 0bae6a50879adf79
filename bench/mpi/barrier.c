/* Latency of MPI_Barrier, any number of ranks.
 *
 *   barrier [-t SECONDS] [-n MAX_ITERS]
 *
 * Barriers run in batches (1, 2, 4, ... up to 1024 calls); after each
 * batch rank 0 broadcasts whether to go on (about SECONDS, default 1, of
 * timed barriers, or MAX_ITERS, default 1000000, calls).  Only the
 * batches are timed, on rank 0; the first batches are a warm-up.  Prints
 * the mean time per barrier:
 *
 *   barrier ranks=8 iters=40950 avg_us=24.41 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Barrier batches until rank 0 has timed `budget` seconds or `max` calls. */
static long run(int rank, double budget, long max, double *timed)
{
	long n = 0, batch = 1;
	int go = 1;
	*timed = 0;
	while (go) {
		double t0 = MPI_Wtime();
		for (long i = 0; i < batch; i++)
			MPI_Barrier(MPI_COMM_WORLD);
		*timed += MPI_Wtime() - t0;
		n += batch;
		if (batch < 1024)
			batch *= 2;
		if (rank == 0) {
			go = *timed < budget && n < max;
			if (go && n + batch > max)
				batch = max - n;
		}
		MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD);
		MPI_Bcast(&batch, 1, MPI_LONG, 0, MPI_COMM_WORLD);
	}
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
				fprintf(stderr, "usage: barrier [-t SECONDS]"
				    " [-n MAX_ITERS]\n");
			MPI_Abort(MPI_COMM_WORLD, 2);
		}
	}
	if (budget <= 0 || max < 1) {
		if (rank == 0)
			fprintf(stderr, "barrier: SECONDS > 0, MAX_ITERS >= 1\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	run(rank, budget / 10, 100, &t);
	long n = run(rank, budget, max, &t);
	if (rank == 0)
		printf("barrier ranks=%d iters=%ld avg_us=%.3f\n", nranks, n,
		    t / n * 1e6);
	MPI_Finalize();
	return 0;
}

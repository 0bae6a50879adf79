/* Ping-pong latency between ranks 0 and 1, by message size.
 *
 *   pingpong [-m MIN] [-M MAX] [-f FACTOR] [-t SECONDS]
 *
 * Sizes MIN, MIN*FACTOR, ... up to MAX bytes (default 1 B .. 4 MiB, x2).
 * For each size: a warm-up, then enough round trips to fill about SECONDS
 * (default 0.1) of measurement, at least 10 and at most 1000000.  The
 * latency printed is half the mean round-trip time.  One line per size:
 *
 *   pingpong bytes=1 iters=81234 lat_us=0.3123
 *
 * Needs at least two ranks; ranks above 1 only wait in MPI_Finalize. */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static double round_trips(int rank, char *buf, int size, long n)
{
	double t0 = MPI_Wtime();
	for (long i = 0; i < n; i++) {
		if (rank == 0) {
			MPI_Send(buf, size, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
			MPI_Recv(buf, size, MPI_CHAR, 1, 1, MPI_COMM_WORLD,
			    MPI_STATUS_IGNORE);
		} else {
			MPI_Recv(buf, size, MPI_CHAR, 0, 1, MPI_COMM_WORLD,
			    MPI_STATUS_IGNORE);
			MPI_Send(buf, size, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
		}
	}
	return MPI_Wtime() - t0;
}

int main(int argc, char **argv)
{
	long min = 1, max = 4L << 20, factor = 2;
	double budget = 0.1;
	int c, rank, nranks;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	while ((c = getopt(argc, argv, "m:M:f:t:")) != -1) {
		switch (c) {
		case 'm': min = atol(optarg); break;
		case 'M': max = atol(optarg); break;
		case 'f': factor = atol(optarg); break;
		case 't': budget = atof(optarg); break;
		default:
			if (rank == 0)
				fprintf(stderr, "usage: pingpong [-m MIN] [-M MAX]"
				    " [-f FACTOR] [-t SECONDS]\n");
			MPI_Abort(MPI_COMM_WORLD, 2);
		}
	}
	if (nranks < 2 || min < 1 || max < min || max > (1L << 30) ||
	    factor < 2 || budget <= 0) {
		if (rank == 0)
			fprintf(stderr, "pingpong: needs 2 ranks, 1 <= MIN <= MAX"
			    " <= 1 GiB, FACTOR >= 2, SECONDS > 0\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	char *buf = malloc((size_t)max);
	if (!buf) {
		fprintf(stderr, "pingpong: out of memory\n");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	memset(buf, 'a', (size_t)max);

	for (long size = min; rank < 2 && size <= max; size *= factor) {
		/* A warm-up, then the same number of round trips again,
		 * timed by rank 0 to choose the iteration count, which it
		 * then tells rank 1. */
		long warm = size >= (256L << 10) ? 4 : 200, n;
		round_trips(rank, buf, (int)size, warm);
		double tw = round_trips(rank, buf, (int)size, warm);
		if (rank == 0) {
			double want = budget / (tw / warm);
			n = want < 10 ? 10 : want > 1e6 ? 1000000 : (long)want;
			MPI_Send(&n, 1, MPI_LONG, 1, 2, MPI_COMM_WORLD);
		} else {
			MPI_Recv(&n, 1, MPI_LONG, 0, 2, MPI_COMM_WORLD,
			    MPI_STATUS_IGNORE);
		}
		double t = round_trips(rank, buf, (int)size, n);
		if (rank == 0) {
			printf("pingpong bytes=%ld iters=%ld lat_us=%.4f\n", size, n,
			    t / (2.0 * n) * 1e6);
			fflush(stdout);
		}
	}
	free(buf);
	MPI_Finalize();
	return 0;
}

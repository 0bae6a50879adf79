/* Streaming bandwidth from rank 0 to rank 1, by message size.
 *
 *   bandwidth [-m MIN] [-M MAX] [-f FACTOR] [-w WINDOW] [-t SECONDS] [-1]
 *
 * One iteration: rank 0 posts WINDOW (default 64) MPI_Isend of one size,
 * rank 1 WINDOW MPI_Irecv into WINDOW separate buffers, both MPI_Waitall,
 * then rank 1 sends a 4-byte ack that rank 0 receives.  Sizes MIN .. MAX
 * (default 1 KiB .. 4 MiB, x2); per size a warm-up, then enough iterations
 * to fill about SECONDS (default 0.1), at least 3.  GB/s = 1e9 bytes/s of
 * payload.  One line per size:
 *
 *   bandwidth bytes=262144 window=64 recv_buffers=64 iters=120 gb_s=7.503
 *
 * All sends read one buffer (allowed since MPI 3.0); the receives use
 * distinct buffers, because overlapping receive buffers are erroneous.
 * -1 makes all receives share one buffer, as osu_bw does: the figures
 * then come from a buffer that stays in the cache (recv_buffers=1).
 * MPI_Waitall gets a real status array: gcc 12 takes MPICH's
 * MPI_STATUSES_IGNORE for a zero-sized array and -Werror refuses it. */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static double windows(int rank, char *buf, long size, int window, int one,
    long n, MPI_Request *req, MPI_Status *st)
{
	int ack = 0;
	double t0 = MPI_Wtime();
	for (long i = 0; i < n; i++) {
		for (int w = 0; w < window; w++) {
			if (rank == 0)
				MPI_Isend(buf, (int)size, MPI_CHAR, 1, 1,
				    MPI_COMM_WORLD, &req[w]);
			else
				MPI_Irecv(buf + (one ? 0 : (size_t)w * (size_t)size),
				    (int)size, MPI_CHAR, 0, 1, MPI_COMM_WORLD,
				    &req[w]);
		}
		MPI_Waitall(window, req, st);
		if (rank == 0)
			MPI_Recv(&ack, 1, MPI_INT, 1, 2, MPI_COMM_WORLD,
			    MPI_STATUS_IGNORE);
		else
			MPI_Send(&ack, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
	}
	return MPI_Wtime() - t0;
}

int main(int argc, char **argv)
{
	long min = 1L << 10, max = 4L << 20, factor = 2;
	int window = 64, one = 0, c, rank, nranks;
	double budget = 0.1;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	while ((c = getopt(argc, argv, "m:M:f:w:t:1")) != -1) {
		switch (c) {
		case 'm': min = atol(optarg); break;
		case 'M': max = atol(optarg); break;
		case 'f': factor = atol(optarg); break;
		case 'w': window = atoi(optarg); break;
		case 't': budget = atof(optarg); break;
		case '1': one = 1; break;
		default:
			if (rank == 0)
				fprintf(stderr, "usage: bandwidth [-m MIN] [-M MAX]"
				    " [-f FACTOR] [-w WINDOW] [-t SECONDS] [-1]\n");
			MPI_Abort(MPI_COMM_WORLD, 2);
		}
	}
	if (nranks < 2 || min < 1 || max < min || max > (1L << 30) ||
	    factor < 2 || window < 1 || window > 1024 || budget <= 0) {
		if (rank == 0)
			fprintf(stderr, "bandwidth: needs 2 ranks, 1 <= MIN <= MAX"
			    " <= 1 GiB, FACTOR >= 2, 1 <= WINDOW <= 1024,"
			    " SECONDS > 0\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	size_t bytes = rank == 1 && !one ? (size_t)max * (size_t)window
	    : (size_t)max;
	char *buf = rank < 2 ? malloc(bytes) : NULL;
	MPI_Request *req = malloc(sizeof *req * (size_t)window);
	MPI_Status *st = malloc(sizeof *st * (size_t)window);
	if ((rank < 2 && !buf) || !req || !st) {
		fprintf(stderr, "bandwidth: out of memory\n");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	if (buf)
		memset(buf, 'b', bytes);

	for (long size = min; rank < 2 && size <= max; size *= factor) {
		long n;
		windows(rank, buf, size, window, one, 2, req, st); /* warm-up */
		double tw = windows(rank, buf, size, window, one, 2, req, st);
		if (rank == 0) {
			double want = budget / (tw / 2);
			n = want < 3 ? 3 : want > 1e6 ? 1000000 : (long)want;
			MPI_Send(&n, 1, MPI_LONG, 1, 3, MPI_COMM_WORLD);
		} else {
			MPI_Recv(&n, 1, MPI_LONG, 0, 3, MPI_COMM_WORLD,
			    MPI_STATUS_IGNORE);
		}
		double t = windows(rank, buf, size, window, one, n, req, st);
		if (rank == 0) {
			printf("bandwidth bytes=%ld window=%d recv_buffers=%d"
			    " iters=%ld gb_s=%.3f\n", size, window,
			    one ? 1 : window, n, (double)size * window * n / t / 1e9);
			fflush(stdout);
		}
	}
	free(st);
	free(req);
	free(buf);
	MPI_Finalize();
	return 0;
}

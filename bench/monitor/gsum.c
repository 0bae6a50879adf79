/* gsum: the EventSpace monitoring paper's communication micro-benchmark
 * (Bongo et al., section 5): a global sum computed again and again on
 * two identical allreduce trees used alternately (two duplicates of
 * MPI_COMM_WORLD: iteration i uses the one of i's parity), 8-byte values.
 *
 *   gsum [-n ITERS]
 *
 * ITERS (default 20000) timed iterations after a warm-up of 100.  Every
 * sum is checked: rank r contributes (i + 1) * (r + 1) in iteration i, so
 * the sum is (i + 1) * n (n + 1) / 2.  Rank 0 prints the wall time of the
 * timed loop (from a barrier before it to a barrier after it):
 *
 *   gsum ranks=2 iters=20000 seconds=0.412 us_per_iter=20.60 sums=ok
 *
 * Exit status 0, or 1 when any sum on any rank was wrong (sums=WRONG
 * with the count), 2 on a usage error. */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Runs iters global sums from iteration first on, alternating the two
 * communicators; returns the number of wrong sums. */
static long run(MPI_Comm comm[2], int rank, int nranks, long first, long iters)
{
	const int64_t tri = (int64_t)nranks * (nranks + 1) / 2;
	long wrong = 0;
	for (long i = first; i < first + iters; i++) {
		int64_t mine = (int64_t)(i + 1) * (rank + 1), sum = 0;
		MPI_Allreduce(&mine, &sum, 1, MPI_INT64_T, MPI_SUM, comm[i & 1]);
		if (sum != (int64_t)(i + 1) * tri)
			wrong++;
	}
	return wrong;
}

int main(int argc, char **argv)
{
	long iters = 20000;
	int c, rank, nranks;
	char *end;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	while ((c = getopt(argc, argv, "n:")) != -1) {
		switch (c) {
		case 'n':
			iters = strtol(optarg, &end, 10);
			if (*end || end == optarg || iters < 1 || iters > 1000000000L)
				iters = -1;
			break;
		default: iters = -1; break;
		}
	}
	if (iters < 1 || optind != argc) {
		if (rank == 0)
			fprintf(stderr, "usage: gsum [-n ITERS] (ITERS from 1 "
			    "to 1000000000)\n");
		MPI_Finalize();
		return 2;
	}
	MPI_Comm comm[2];
	MPI_Comm_dup(MPI_COMM_WORLD, &comm[0]);
	MPI_Comm_dup(MPI_COMM_WORLD, &comm[1]);

	long wrong = run(comm, rank, nranks, 0, 100);
	MPI_Barrier(MPI_COMM_WORLD);
	double t0 = MPI_Wtime();
	wrong += run(comm, rank, nranks, 100, iters);
	MPI_Barrier(MPI_COMM_WORLD);
	double t = MPI_Wtime() - t0;

	long all = 0;
	MPI_Allreduce(&wrong, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 0) {
		printf("gsum ranks=%d iters=%ld seconds=%.6f us_per_iter=%.3f ",
		    nranks, iters, t, t / (double)iters * 1e6);
		if (all)
			printf("sums=WRONG wrong=%ld\n", all);
		else
			printf("sums=ok\n");
		fflush(stdout);
	}
	MPI_Comm_free(&comm[0]);
	MPI_Comm_free(&comm[1]);
	MPI_Finalize();
	return all ? 1 : 0;
}

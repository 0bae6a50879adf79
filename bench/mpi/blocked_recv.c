/* How much CPU a rank burns while it is blocked in MPI_Recv.
 *
 *   blocked_recv [SECONDS]
 *
 * After a barrier, rank 1 sleeps SECONDS (default 10) and then sends one
 * int to rank 0, which waits for it in MPI_Recv.  Rank 0 reports the CPU
 * time (user + system, getrusage of its whole process, so helper threads
 * count too) used during that receive, and that CPU time as a percentage
 * of the wall time of the receive:
 *
 *   blocked_recv seconds=10 wall_s=10.0002 cpu_s=9.9871 cpu_pct=99.87
 *
 * Needs at least two ranks; ranks above 1 only take part in the barrier. */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

static double cpu_seconds(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	    (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

static double wall_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 10;
	int rank, nranks, msg = 42;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	if (nranks < 2 || !(seconds > 0) || seconds > 86400) {
		if (rank == 0)
			fprintf(stderr, "usage: blocked_recv [SECONDS] (0 < SECONDS"
			    " <= 86400), at least 2 ranks\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0) {
		double c0 = cpu_seconds(), w0 = wall_seconds();
		MPI_Recv(&msg, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		double cpu = cpu_seconds() - c0, wall = wall_seconds() - w0;
		printf("blocked_recv seconds=%g wall_s=%.4f cpu_s=%.4f"
		    " cpu_pct=%.2f\n", seconds, wall, cpu, cpu / wall * 100);
	} else if (rank == 1) {
		struct timespec ts = {(time_t)seconds,
		    (long)((seconds - (double)(time_t)seconds) * 1e9)};
		while (nanosleep(&ts, &ts) != 0)
			;
		MPI_Send(&msg, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
	}
	MPI_Finalize();
	return 0;
}

/* monitor_prog: a job that runs until told to stop, with a known last
 * arrival, for tests/cli/monitor_mpi.sh.  Any number of ranks (at least
 * 2); argument: a file whose existence tells the job to stop.
 *
 * Each iteration: a token passes rank 0 -> 1 -> ... -> n-1, and each rank
 * starts an MPI_Iallreduce on MPI_COMM_WORLD after it received the token
 * and before it passes it on, so rank n-1's call always starts last (each
 * start follows the previous one through a message, not a matter of
 * timing).  Rank 0 contributes 1 once the stop file exists, so all ranks
 * learn from the sum in the same iteration that it is time to stop.
 * Rank 0 rests half a millisecond before each iteration, so that a rank's
 * ring (8192 tuples by default) holds some tenths of a second of the run
 * and a monitor pulling a few times a second keeps up; a slower one only
 * loses tuples, which it counts.  Rank 0 says "running" after the first
 * iteration and, at the end, how many iterations all ranks made.
 *
 * With a second argument ITERS the job makes exactly ITERS iterations
 * (one MPI_Iallreduce each on MPI_COMM_WORLD), rank 0 says "done ITERS",
 * and the job then stays, every rank idle in an MPI_Barrier, until the
 * stop file appears (rank 0 looks for it): a monitor attached meanwhile
 * can count every collective of the job (tests/cli/hosts_monitor_job.sh). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "monitor_prog: %s:%d: %s\n", \
	__FILE__, __LINE__, #c); MPI_Abort(MPI_COMM_WORLD, 1); } } while (0)

int
main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	CHECK(size >= 2 && (argc == 2 || argc == 3));
	long want = argc == 3 ? atol(argv[2]) : 0;
	CHECK(argc == 2 || want > 0);
	long iters = 0;
	for (int stop = 0; !stop;) {
		int token = 0, in = 0, out = 0;
		MPI_Request req;
		if (rank > 0)
			CHECK(MPI_Recv(&token, 1, MPI_INT, rank - 1, 5,
			               MPI_COMM_WORLD, MPI_STATUS_IGNORE) ==
			      MPI_SUCCESS);
		else {
			usleep(500);
			in = !want && access(argv[1], F_OK) == 0;
		}
		CHECK(MPI_Iallreduce(&in, &out, 1, MPI_INT, MPI_SUM,
		                     MPI_COMM_WORLD, &req) == MPI_SUCCESS);
		if (rank + 1 < size)
			CHECK(MPI_Send(&token, 1, MPI_INT, rank + 1, 5,
			               MPI_COMM_WORLD) == MPI_SUCCESS);
		CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS);
		stop = out > 0 || (want && iters + 1 == want);
		if (++iters == 1 && rank == 0) {
			printf("monitor_prog: running\n");
			fflush(stdout);
		}
	}
	if (want) {
		if (rank == 0) {
			printf("monitor_prog: done %ld\n", iters);
			fflush(stdout);
			while (access(argv[1], F_OK) != 0)
				usleep(20000);
		}
		CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);
	}
	if (rank == 0)
		printf("monitor_prog: stopped after %ld iterations\n", iters);
	MPI_Finalize();
	return 0;
}

/* A token goes around the ring of ranks; then every rank contributes its
 * rank to a sum.  The tutorial's MPI program (docs/tutorial-mpi.md). */
#include <mpi.h>
#include <stdio.h>

int
main(int argc, char **argv)
{
	int rank, size;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);

	int next = (rank + 1) % size, prev = (rank + size - 1) % size;
	int token = 0;
	for (int lap = 0; lap < 3; lap++) {
		if (rank == 0) {
			token++;
			MPI_Send(&token, 1, MPI_INT, next, 0, MPI_COMM_WORLD);
			MPI_Recv(&token, 1, MPI_INT, prev, 0, MPI_COMM_WORLD,
			         MPI_STATUS_IGNORE);
		} else {
			MPI_Recv(&token, 1, MPI_INT, prev, 0, MPI_COMM_WORLD,
			         MPI_STATUS_IGNORE);
			token++;
			MPI_Send(&token, 1, MPI_INT, next, 0, MPI_COMM_WORLD);
		}
	}

	int sum = 0;
	MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 0)
		printf("token %d after 3 laps of %d ranks; sum of ranks %d\n",
		       token, size, sum);
	MPI_Finalize();
	return 0;
}

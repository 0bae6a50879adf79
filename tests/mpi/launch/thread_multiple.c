/* Asks for MPI_THREAD_MULTIPLE, which Grove MPI refuses: it must provide
 * MPI_THREAD_SERIALIZED, say so once, and run. */
#include <mpi.h>
#include <stdio.h>

int
main(int argc, char **argv)
{
	int provided = -1, rank;
	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	int level;
	MPI_Query_thread(&level);
	if (rank == 0)
		printf("provided %d query %d\n", provided, level);
	MPI_Finalize();
	return provided == MPI_THREAD_SERIALIZED && level == provided ? 0 : 1;
}

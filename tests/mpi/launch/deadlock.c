/* A program that deadlocks on purpose: every rank receives from its
 * right neighbour before sending (tests/cli/mpi_bcs_fail.sh: under BCS
 * the node manager finds that nothing can ever complete and ends the
 * job, saying what each rank waits for). */
#include <mpi.h>

int
main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank, size, v = 0;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Recv(&v, 1, MPI_INT, (rank + 1) % size, 4, MPI_COMM_WORLD,
	         MPI_STATUS_IGNORE);
	MPI_Send(&v, 1, MPI_INT, (rank + size - 1) % size, 4, MPI_COMM_WORLD);
	MPI_Finalize();
	return 0;
}

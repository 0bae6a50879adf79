/* MPI_Init, one line with rank and size, MPI_Finalize: the program of the
 * launch wall-time test (scripts/bench-mpi.sh runs it on 64 ranks).
 *
 *   hello rank=3 size=64 host=node1 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	char host[MPI_MAX_PROCESSOR_NAME];
	int rank, size, len;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Get_processor_name(host, &len);
	printf("hello rank=%d size=%d host=%s\n", rank, size, host);
	fflush(stdout);
	MPI_Finalize();
	return 0;
}

/* For tests/cli/mpi_clusters.sh: one barrier, one broadcast of 1 MiB
 * from rank 0, one reduction and one allreduction, each checked; with
 * GROVE_MPI_VERBOSE each rank then says how many messages it sent over
 * the emulated WAN, which tells whether the collectives kept the links
 * between clusters to the clusters' leaders. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int
main(int argc, char **argv)
{
	int rank, size, bad = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Barrier(MPI_COMM_WORLD);
	int n = 1 << 18;
	int *v = malloc((size_t)n * sizeof *v);
	for (int i = 0; i < n; i++)
		v[i] = rank == 0 ? i ^ 0x5a5a : -1;
	MPI_Bcast(v, n, MPI_INT, 0, MPI_COMM_WORLD);
	for (int i = 0; i < n; i++)
		if (v[i] != (i ^ 0x5a5a))
			bad = 1;
	long mine = rank + 1, sum = 0, all = 0;
	MPI_Reduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
	if (rank == 0 && sum != (long)size * (size + 1) / 2)
		bad = 1;
	MPI_Allreduce(&mine, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
	if (all != (long)size * (size + 1) / 2)
		bad = 1;
	free(v);
	if (bad)
		fprintf(stderr, "hier_wan: rank %d: wrong result\n", rank);
	MPI_Finalize();
	return bad;
}

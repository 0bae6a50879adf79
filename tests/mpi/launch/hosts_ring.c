/* A rank for tests/cli/mpi_hosts_tcp.sh: where it runs, and traffic that
 * crosses hosts.
 *
 *   hosts_ring            every rank prints "rank R of N on HOST"; a token
 *                         goes around the ring twice (each rank adds its
 *                         rank), 1 MiB goes from every rank to the next
 *                         (rendezvous), and an allreduce; rank 0 prints
 *                         "ring SUM big OK allreduce SUM"
 *   hosts_ring die R      as above up to the ring, then rank R kills
 *                         itself (SIGKILL) while the others wait for it
 *                         in MPI_Recv
 */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank, size, len;
	char host[MPI_MAX_PROCESSOR_NAME];
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Get_processor_name(host, &len);
	printf("rank %d of %d on %s\n", rank, size, host);
	fflush(stdout);
	int next = (rank + 1) % size, prev = (rank + size - 1) % size;
	long token = 0;
	for (int lap = 0; lap < 2; lap++) {
		if (rank == 0) {
			MPI_Send(&token, 1, MPI_LONG, next, 1, MPI_COMM_WORLD);
			MPI_Recv(&token, 1, MPI_LONG, prev, 1, MPI_COMM_WORLD,
			         MPI_STATUS_IGNORE);
		} else {
			MPI_Recv(&token, 1, MPI_LONG, prev, 1, MPI_COMM_WORLD,
			         MPI_STATUS_IGNORE);
			token += rank;
			MPI_Send(&token, 1, MPI_LONG, next, 1, MPI_COMM_WORLD);
		}
	}
	if (argc > 2 && !strcmp(argv[1], "die")) {
		int victim = atoi(argv[2]);
		if (rank == victim)
			raise(SIGKILL);
		long x;
		/* Everyone waits for the victim's message, which never comes:
		 * the victim's neighbours are connected to it and see the
		 * connection break. */
		MPI_Recv(&x, 1, MPI_LONG, victim, 2, MPI_COMM_WORLD,
		         MPI_STATUS_IGNORE);
		MPI_Finalize();
		return 0;
	}
	size_t n = 1 << 20;
	unsigned char *out = malloc(n), *in = malloc(n);
	for (size_t i = 0; i < n; i++)
		out[i] = (unsigned char)(i * 7 + (size_t)rank);
	MPI_Sendrecv(out, (int)n, MPI_BYTE, next, 3, in, (int)n, MPI_BYTE, prev,
	             3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	int bad = 0;
	for (size_t i = 0; i < n; i++)
		bad |= in[i] != (unsigned char)(i * 7 + (size_t)prev);
	int anybad = 0;
	MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
	long sum = 0, mine = rank;
	MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 0)
		printf("ring %ld big %s allreduce %ld\n", token,
		       anybad ? "BAD" : "OK", sum);
	free(out);
	free(in);
	MPI_Finalize();
	return 0;
}

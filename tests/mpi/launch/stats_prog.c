/* stats_prog: a known number of MPI calls for tests/cli/mpi_stats.sh, run
 * with 2 ranks.  Rank 0 sends 10 messages of 4096 bytes with tag 7 to rank
 * 1, rank 1 answers with 3 of 1 byte with tag 9: 13 MPI_Send and 13
 * MPI_Recv in all, one MPI_Sendrecv (which sends and receives inside: it
 * must count once, not as a Send and a Recv too), then a barrier.
 * Argument "die": no barrier, and rank 1 exits without MPI_Finalize after
 * its calls. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "stats_prog: %s:%d: %s\n", \
	__FILE__, __LINE__, #c); MPI_Abort(MPI_COMM_WORLD, 1); } } while (0)

int
main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	CHECK(size == 2);
	static char buf[4096];
	MPI_Status st;
	if (rank == 0) {
		for (int i = 0; i < 10; i++) {
			memset(buf, i, sizeof buf);
			CHECK(MPI_Send(buf, 4096, MPI_BYTE, 1, 7,
			               MPI_COMM_WORLD) == MPI_SUCCESS);
		}
		for (int i = 0; i < 3; i++) {
			CHECK(MPI_Recv(buf, 1, MPI_BYTE, 1, 9, MPI_COMM_WORLD,
			               &st) == MPI_SUCCESS);
			CHECK(buf[0] == (char)(100 + i));
		}
	} else {
		for (int i = 0; i < 10; i++) {
			CHECK(MPI_Recv(buf, 4096, MPI_BYTE, 0, 7, MPI_COMM_WORLD,
			               &st) == MPI_SUCCESS);
			CHECK(buf[4095] == (char)i && st.MPI_TAG == 7);
		}
		for (int i = 0; i < 3; i++) {
			buf[0] = (char)(100 + i);
			CHECK(MPI_Send(buf, 1, MPI_BYTE, 0, 9,
			               MPI_COMM_WORLD) == MPI_SUCCESS);
		}
	}
	int out = rank, in = -1;
	int peer = 1 - rank;
	CHECK(MPI_Sendrecv(&out, 1, MPI_INT, peer, 11, &in, 1, MPI_INT, peer,
	                   11, MPI_COMM_WORLD, &st) == MPI_SUCCESS);
	CHECK(in == peer);
	if (argc > 1 && !strcmp(argv[1], "die")) {
		/* Rank 0 goes straight into MPI_Finalize (its statistics are
		 * final at its start) before rank 1 dies without it. */
		if (rank == 1) {
			usleep(300000);
			_exit(3);
		}
		MPI_Finalize();
		return 0;
	}
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	return 0;
}

/* report_prog: collectives whose arrival order is known, for
 * tests/cli/report_mpi.sh.  Any number of ranks (at least 2); argument:
 * iterations (default 10).
 *
 * Each iteration: a token passes rank 0 -> 1 -> ... -> n-1, and each rank
 * starts an MPI_Ibarrier on MPI_COMM_WORLD after it received the token
 * and before it passes it on, so rank r's call starts after rank r-1's
 * call ended: the ranks arrive in rank order and rank n-1 is always the
 * last (not a matter of timing: each start follows the previous one
 * through a message).  Then the same on the two halves of an
 * MPI_Comm_split by rank parity, with MPI_Iallreduce, the token going
 * from the highest rank of a half down to its rank 0, which arrives
 * last: world rank 0 in the even half, world rank 1 in the odd one. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "report_prog: %s:%d: %s\n", \
	__FILE__, __LINE__, #c); MPI_Abort(MPI_COMM_WORLD, 1); } } while (0)

/* One collective in the order of the chain: receive the token from prev
 * (unless first), start the collective, pass the token to next (unless
 * last), wait for the collective. */
static void
chained(MPI_Comm comm, int prev, int next, int allreduce)
{
	int token = 0, in = 1, out = 0;
	MPI_Request req;
	if (prev >= 0)
		CHECK(MPI_Recv(&token, 1, MPI_INT, prev, 5, comm,
		               MPI_STATUS_IGNORE) == MPI_SUCCESS);
	if (allreduce)
		CHECK(MPI_Iallreduce(&in, &out, 1, MPI_INT, MPI_SUM, comm,
		                     &req) == MPI_SUCCESS);
	else
		CHECK(MPI_Ibarrier(comm, &req) == MPI_SUCCESS);
	if (next >= 0)
		CHECK(MPI_Send(&token, 1, MPI_INT, next, 5, comm) == MPI_SUCCESS);
	CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS);
	if (allreduce) {
		int n;
		MPI_Comm_size(comm, &n);
		CHECK(out == n);
	}
}

int
main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	CHECK(size >= 2);
	int iters = argc > 1 ? atoi(argv[1]) : 10;
	CHECK(iters > 0);
	MPI_Comm half;
	CHECK(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half) ==
	      MPI_SUCCESS);
	int hr, hn;
	MPI_Comm_rank(half, &hr);
	MPI_Comm_size(half, &hn);
	for (int i = 0; i < iters; i++) {
		chained(MPI_COMM_WORLD, rank - 1, rank + 1 < size ? rank + 1 : -1,
		        0);
		chained(half, hr + 1 < hn ? hr + 1 : -1, hr - 1, 1);
	}
	MPI_Comm_free(&half);
	MPI_Finalize();
	return 0;
}

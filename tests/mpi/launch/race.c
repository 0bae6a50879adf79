/* Senders racing to a wildcard receive: the program of the determinism
 * and replay tests of BCS mode (tests/cli/mpi_bcs_replay.sh).
 *
 *   race ROUNDS JITTER_US [SEED]
 *
 * Each round every rank meets in MPI_Barrier; then ranks 1..N-1 compute
 * (spin) a random time below JITTER_US and send their rank to rank 0,
 * which receives them with MPI_ANY_SOURCE and prints the order:
 *   "round K order: 2 1 3"
 * Then rank 0 receives once more, from MPI_ANY_SOURCE with MPI_Irecv,
 * and counts the MPI_Test calls until it completes (each after a short
 * spin), and the MPI_Iprobe calls that found nothing before a message of
 * tag 2 was there:
 *   "round K tests: T from S probes: P from S2"
 * Under direct mode all of this changes from run to run; under BCS the
 * wildcard order is the same in every run when JITTER_US is below the
 * slice, and a replay of a recorded run prints exactly the record's
 * lines whatever the timing.  SEED (default: from the clock) makes the
 * jitter differ between runs. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double
now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Computes for about us microseconds (not a sleep: a rank that computes
 * is what BCS must not be sensitive to). */
static void
spin_us(double us)
{
	double end = now() + us * 1e-6;
	while (now() < end)
		;
}

int
main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc < 3 || size < 2) {
		if (rank == 0)
			fprintf(stderr, "usage: race ROUNDS JITTER_US [SEED] (2+ ranks)\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	int rounds = atoi(argv[1]);
	double jitter = atof(argv[2]);
	unsigned seed = argc > 3 ? (unsigned)strtoul(argv[3], NULL, 10)
	                         : (unsigned)(now() * 1e6);
	srand(seed * 7919u + (unsigned)rank);
	for (int k = 0; k < rounds; k++) {
		MPI_Barrier(MPI_COMM_WORLD);
		if (rank != 0) {
			spin_us(jitter * rand() / RAND_MAX);
			MPI_Send(&rank, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
			spin_us(jitter * rand() / RAND_MAX);
			MPI_Send(&rank, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
			continue;
		}
		char line[4096];
		int len = snprintf(line, sizeof line, "round %d order:", k);
		for (int i = 1; i < size; i++) {
			int from;
			MPI_Status st;
			MPI_Recv(&from, 1, MPI_INT, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD,
			         &st);
			if (from != st.MPI_SOURCE) {
				fprintf(stderr, "round %d: got %d from %d\n", k, from,
				        st.MPI_SOURCE);
				MPI_Abort(MPI_COMM_WORLD, 1);
			}
			len += snprintf(line + len, sizeof line - (size_t)len, " %d",
			                from);
		}
		puts(line);
		/* Tests and probes: how many calls until true. */
		int v, done = 0, tests = 0, found = 0, probes = 0;
		MPI_Request rq;
		MPI_Status st, pst;
		MPI_Iprobe(MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, &found, &pst);
		while (!found) {
			probes++;
			spin_us(50);
			MPI_Iprobe(MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, &found, &pst);
		}
		MPI_Irecv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, &rq);
		MPI_Test(&rq, &done, &st);
		while (!done) {
			tests++;
			spin_us(50);
			MPI_Test(&rq, &done, &st);
		}
		printf("round %d tests: %d from %d probes: %d from %d\n", k, tests,
		       st.MPI_SOURCE, probes, pst.MPI_SOURCE);
		for (int i = 2; i < size; i++)
			MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD,
			         MPI_STATUS_IGNORE);
		fflush(stdout);
	}
	MPI_Finalize();
	return 0;
}

/* The validation program of bcs-mpi.txt, section 5.3: a job whose
 * behaviour under buffered coscheduling is known in advance, so that the
 * per-slice metrics of the runtime (EMDS) can be checked against it.
 *
 *   bcs_validate [--iters N] [--every N] [--bytes B]
 *
 * Ranks pair up (0-1, 2-3, ...); each iteration is one ping-pong between
 * the two ranks of a pair with blocking MPI_Send/MPI_Recv of B bytes
 * (default 8): the even rank sends then receives, the odd rank receives
 * then sends.  Every N iterations (--every) every rank calls MPI_Barrier.
 * With an odd number of ranks the last one has no partner and only joins
 * the barriers.  Every message carries its iteration and sender, checked
 * on receipt; at the end all ranks must have made the same number of
 * barriers.  A wrong message or count prints what was wrong and exits 1.
 *
 * Prints, on rank 0, one line of what it measured (the time is the
 * slowest rank's, from after a first barrier to the end of the loop):
 *
 *   bcs_validate ranks=8 iters=10000 every=4 bytes=8 barriers=2500
 *       total_s=22.5 iter_us=2250 period_us=9000
 *
 * period_us is the time between barriers (total / barriers).  When
 * --every was not given, a line starting with '#' first says which
 * default was taken and why. */
#define _GNU_SOURCE
#include <getopt.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The paper's program barrier-synchronizes every nine time slices.
 * Under BCS a blocking call's descriptor is handled at the next slice: a
 * call made at a random point of a slice costs 1.5 slices on average
 * (bcs-mpi.txt 6.3), but in this loop every call is made right after the
 * previous one completed, at the same point of the next slice, so each
 * costs one slice.  A period is then EVERY ping-pongs of two sequential
 * messages plus one barrier: 2 * 4 + 1 = 9 slices.  (At 1.5 slices per
 * call the same period would be 3 * 4 + 1.5 = 13.5 slices, and no whole
 * number of iterations gives 9: 2 gives 7.5, 3 gives 10.5.) */
#define DEFAULT_EVERY 4
#define DEFAULT_ITERS 10000
#define DEFAULT_BYTES 8

enum { TAG_PING = 11, TAG_PONG = 12 };

static void usage(FILE *f)
{
	fprintf(f,
	    "usage: bcs_validate [--iters N] [--every N] [--bytes B]\n"
	    "  Ranks pair up (0-1, 2-3, ...) for a blocking ping-pong of B\n"
	    "  bytes per iteration; every rank calls MPI_Barrier every N\n"
	    "  iterations.  bcs-mpi.txt 5.3's validation program.\n"
	    "  --iters N   iterations (default %d)\n"
	    "  --every N   a barrier every N iterations (default %d: nine\n"
	    "              slices per barrier under BCS, see the source)\n"
	    "  --bytes B   message size, >= 8 (default %d)\n",
	    DEFAULT_ITERS, DEFAULT_EVERY, DEFAULT_BYTES);
}

/* A message: the iteration and the sender in the first 8 bytes, then a
 * pattern of both, so that a message of another iteration or sender
 * cannot pass for this one. */
static void fill(unsigned char *buf, long bytes, long iter, int sender)
{
	uint32_t head[2] = {(uint32_t)iter, (uint32_t)sender};
	memcpy(buf, head, sizeof head);
	for (long k = 8; k < bytes; k++)
		buf[k] = (unsigned char)(iter * 7 + sender * 13 + k);
}

static int check(const unsigned char *buf, long bytes, long iter,
                 int sender, int rank)
{
	uint32_t head[2];
	memcpy(head, buf, sizeof head);
	if (head[0] != (uint32_t)iter || head[1] != (uint32_t)sender) {
		fprintf(stderr, "bcs_validate: rank %d: iteration %ld: got the "
		    "message of iteration %u from rank %u, wanted iteration "
		    "%ld from rank %d\n", rank, iter, head[0], head[1], iter,
		    sender);
		return 1;
	}
	for (long k = 8; k < bytes; k++)
		if (buf[k] != (unsigned char)(iter * 7 + sender * 13 + k)) {
			fprintf(stderr, "bcs_validate: rank %d: iteration %ld: "
			    "byte %ld of the message from rank %d is wrong\n",
			    rank, iter, k, sender);
			return 1;
		}
	return 0;
}

/* Parses the options; returns 0 to run, 1 after --help, -1 on an
 * error (said on rank 0). */
static int parse(int argc, char **argv, int rank, long *iters,
                 long *every, long *bytes, int *every_given)
{
	static const struct option opts[] = {
		{"iters", required_argument, 0, 'i'},
		{"every", required_argument, 0, 'e'},
		{"bytes", required_argument, 0, 'b'},
		{"help", no_argument, 0, 'h'},
		{0, 0, 0, 0},
	};
	int c;
	char *end;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		long v = 0;
		if (c == 'i' || c == 'e' || c == 'b') {
			v = strtol(optarg, &end, 10);
			if (*optarg == '\0' || *end != '\0' || v < 1) {
				if (rank == 0)
					fprintf(stderr, "bcs_validate: %s wants a "
					    "whole number >= 1, not '%s'\n",
					    argv[optind - 1], optarg);
				return -1;
			}
		}
		switch (c) {
		case 'i': *iters = v; break;
		case 'e': *every = v; *every_given = 1; break;
		case 'b': *bytes = v; break;
		case 'h':
			if (rank == 0)
				usage(stdout);
			return 1;
		default:
			if (rank == 0) {
				fprintf(stderr, "bcs_validate: unknown option "
				    "%s\n", argv[optind - 1]);
				usage(stderr);
			}
			return -1;
		}
	}
	if (*bytes < 8 || *bytes > (1L << 30)) {
		if (rank == 0)
			fprintf(stderr, "bcs_validate: --bytes between 8 and "
			    "1 GiB\n");
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	long iters = DEFAULT_ITERS, every = DEFAULT_EVERY, bytes = DEFAULT_BYTES;
	int every_given = 0, rank, nranks;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	int p = parse(argc, argv, rank, &iters, &every, &bytes, &every_given);
	if (p != 0) {
		MPI_Finalize();
		return p > 0 ? 0 : 2;
	}
	if (rank == 0 && !every_given)
		printf("# every=%d (default): under BCS each blocking call of "
		    "this loop costs one slice, so %d ping-pongs (2 messages "
		    "each) and a barrier make the paper's 9 slices between "
		    "barriers\n", DEFAULT_EVERY, DEFAULT_EVERY);

	unsigned char *out = malloc((size_t)bytes), *in = malloc((size_t)bytes);
	if (!out || !in) {
		fprintf(stderr, "bcs_validate: rank %d: out of memory\n", rank);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	/* Even ranks lead; an odd job's last rank has no partner. */
	int partner = rank % 2 == 0 ? rank + 1 : rank - 1;
	if (partner >= nranks)
		partner = -1;
	long barriers = 0, errors = 0;

	MPI_Barrier(MPI_COMM_WORLD);
	double t0 = MPI_Wtime();
	for (long i = 0; i < iters && errors == 0; i++) {
		if (partner >= 0 && rank % 2 == 0) {
			fill(out, bytes, i, rank);
			MPI_Send(out, (int)bytes, MPI_BYTE, partner, TAG_PING,
			    MPI_COMM_WORLD);
			MPI_Recv(in, (int)bytes, MPI_BYTE, partner, TAG_PONG,
			    MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			errors += check(in, bytes, i, partner, rank);
		} else if (partner >= 0) {
			MPI_Recv(in, (int)bytes, MPI_BYTE, partner, TAG_PING,
			    MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			errors += check(in, bytes, i, partner, rank);
			fill(out, bytes, i, rank);
			MPI_Send(out, (int)bytes, MPI_BYTE, partner, TAG_PONG,
			    MPI_COMM_WORLD);
		}
		if ((i + 1) % every == 0) {
			MPI_Barrier(MPI_COMM_WORLD);
			barriers++;
		}
	}
	double t = MPI_Wtime() - t0;
	if (errors)
		MPI_Abort(MPI_COMM_WORLD, 1); /* the partner may wait forever */

	/* Every rank must have made the same number of barriers. */
	long mine[2] = {barriers, -barriers}, all[2];
	double slowest;
	MPI_Allreduce(mine, all, 2, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
	MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
	int bad = all[0] != -all[1] || all[0] != iters / every;
	if (bad && rank == 0)
		fprintf(stderr, "bcs_validate: barriers made: %ld to %ld per "
		    "rank, wanted %ld\n", -all[1], all[0], iters / every);
	if (!bad && rank == 0) {
		printf("bcs_validate ranks=%d iters=%ld every=%ld bytes=%ld "
		    "barriers=%ld total_s=%.6f iter_us=%.3f period_us=%.3f\n",
		    nranks, iters, every, bytes, barriers, slowest,
		    slowest / (double)iters * 1e6,
		    barriers ? slowest / (double)barriers * 1e6 : 0.0);
		fflush(stdout);
	}
	free(out);
	free(in);
	MPI_Finalize();
	return bad ? 1 : 0;
}

/* A nearest-neighbour stencil on a ring of ranks with a tunable compute
 * grain: bcs-mpi.txt 6.3's case of blocking against non-blocking
 * communication (SWEEP3D with MPI_Send/MPI_Recv, then the same with
 * MPI_Isend/MPI_Irecv and MPI_Waitall), with SAGE's reduction of a
 * residual at the end of a step.
 *
 *   stencil [--steps N] [--grain-us G] [--bytes B] [--cells C]
 *           [--mode blocking|nonblocking] [--allreduce-every K]
 *
 * Each rank holds C cells (default 1024) of a 1-D periodic array of
 * integers.  A step: about G microseconds of computation (grain.h,
 * calibrated at start in CPU time, not a sleep); the halo exchange, one
 * message of B bytes (>= 8, default 8) to each neighbour carrying the
 * boundary cell; the update, an integer diffusion in which every edge
 * moves (left - right) / 4 from one cell to the other, so the total is
 * conserved exactly; and every K steps (default 1, 0 = never) an
 * MPI_Allreduce of the total and of the residual (the sum of the moves).
 *
 *   --mode blocking     MPI_Send/MPI_Recv, even ranks send first and odd
 *                       ranks receive first, which never deadlocks on a
 *                       ring (any size), even with synchronous sends
 *   --mode nonblocking  (posted before the step computes, waited for
 *                       after it, as bcs-mpi.txt 6.3 did to SWEEP3D)
 *                       MPI_Irecv from both neighbours, MPI_Isend to
 *                       both, one MPI_Waitall
 *
 * Checks: every halo message's padding, the total at every allreduce,
 * and at the end the whole array (gathered on rank 0) against the same
 * computation done serially: integer arithmetic makes it exact.  A
 * mismatch prints what was wrong and exits 1.
 *
 * Prints on rank 0 one line of what it measured:
 *
 *   stencil ranks=8 mode=blocking steps=200 grain_us=1000 bytes=8
 *       cells=1024 allreduce_every=1 total_s=1.2 step_us=6000
 *       compute_us=4100 comm_us=1900 blocking_calls=5 call_us=380
 *
 * total_s is the slowest rank's loop time; step_us = total_s / steps;
 * compute_us and comm_us are the mean per rank and step of the wall time
 * spent computing (grain and update) and in MPI calls; blocking_calls is
 * the number of blocking MPI calls per rank and step (MPI_Send, MPI_Recv,
 * MPI_Waitall, MPI_Allreduce); call_us is the time in MPI calls over the
 * number of blocking calls, over all ranks: the mean cost of a blocking
 * call (bcs-mpi.txt 6.3 predicts 1.5 time slices under BCS). */
#define _GNU_SOURCE
#include <getopt.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grain.h"

enum { TAG_RIGHTWARD = 21, TAG_LEFTWARD = 22 };
enum mode { BLOCKING, NONBLOCKING };

struct params {
	long steps, bytes, cells, allreduce_every;
	double grain_us;
	enum mode mode;
};

static void usage(FILE *f)
{
	fprintf(f,
	    "usage: stencil [--steps N] [--grain-us G] [--bytes B] [--cells C]\n"
	    "               [--mode blocking|nonblocking] [--allreduce-every K]\n"
	    "  A 1-D ring stencil: per step G us of computation, a halo\n"
	    "  message of B bytes to each neighbour, an update, and every K\n"
	    "  steps an MPI_Allreduce of the residual.\n"
	    "  --steps N            steps (default 100)\n"
	    "  --grain-us G         computation per step in us (default 1000;\n"
	    "                       CPU time, calibrated at start)\n"
	    "  --bytes B            bytes per halo message, >= 8 (default 8)\n"
	    "  --cells C            cells per rank (default 1024)\n"
	    "  --mode M             blocking (MPI_Send/MPI_Recv, the default)\n"
	    "                       or nonblocking (MPI_Isend/MPI_Irecv\n"
	    "                       before the step computes, MPI_Waitall\n"
	    "                       after it)\n"
	    "  --allreduce-every K  an MPI_Allreduce every K steps (default\n"
	    "                       1; 0 = never)\n");
}

/* The initial value of global cell i: any spread of values will do. */
static int64_t initial(long i)
{
	return (int64_t)(((uint64_t)i * 2654435761u) % 1000003u);
}

/* What moves over the edge between a cell holding a and its right
 * neighbour holding b.  C division truncates toward zero, so
 * flux(b, a) == -flux(a, b): both owners of an edge agree, and the
 * total is conserved. */
static int64_t flux(int64_t a, int64_t b)
{
	return (a - b) / 4;
}

/* One update of u[0..n) with ghost cells left and right; returns the
 * residual (sum of |moves| over the left edges). */
static int64_t update(int64_t *u, int64_t *next, long n, int64_t left,
                      int64_t right)
{
	int64_t residual = 0;
	for (long i = 0; i < n; i++) {
		int64_t l = i == 0 ? left : u[i - 1];
		int64_t r = i == n - 1 ? right : u[i + 1];
		int64_t in = flux(l, u[i]), out = flux(u[i], r);
		next[i] = u[i] + in - out;
		residual += in < 0 ? -in : in;
	}
	memcpy(u, next, (size_t)n * sizeof *u);
	return residual;
}

/* A halo message: the boundary cell, then padding that depends on the
 * step and the sender. */
static void pack(unsigned char *m, long bytes, int64_t cell, long step,
                 int sender)
{
	memcpy(m, &cell, sizeof cell);
	for (long k = 8; k < bytes; k++)
		m[k] = (unsigned char)(step * 5 + sender * 3 + k);
}

static int unpack(const unsigned char *m, long bytes, int64_t *cell,
                  long step, int sender, int rank)
{
	memcpy(cell, m, sizeof *cell);
	for (long k = 8; k < bytes; k++)
		if (m[k] != (unsigned char)(step * 5 + sender * 3 + k)) {
			fprintf(stderr, "stencil: rank %d: step %ld: byte %ld of "
			    "the halo from rank %d is wrong\n", rank, step, k,
			    sender);
			return 1;
		}
	return 0;
}

/* Returns 0 to run, 1 after --help, -1 on an error (said on rank 0). */
static int parse(int argc, char **argv, int rank, struct params *p)
{
	static const struct option opts[] = {
		{"steps", required_argument, 0, 's'},
		{"grain-us", required_argument, 0, 'g'},
		{"bytes", required_argument, 0, 'b'},
		{"cells", required_argument, 0, 'c'},
		{"mode", required_argument, 0, 'm'},
		{"allreduce-every", required_argument, 0, 'a'},
		{"help", no_argument, 0, 'h'},
		{0, 0, 0, 0},
	};
	int c;
	char *end;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		double v = 0;
		if (c == 's' || c == 'g' || c == 'b' || c == 'c' || c == 'a') {
			v = strtod(optarg, &end);
			if (*optarg == '\0' || *end != '\0' || v < 0 ||
			    (c != 'g' && v != (double)(long)v)) {
				if (rank == 0)
					fprintf(stderr, "stencil: %s wants a "
					    "number >= 0, not '%s'\n",
					    argv[optind - 1], optarg);
				return -1;
			}
		}
		switch (c) {
		case 's': p->steps = (long)v; break;
		case 'g': p->grain_us = v; break;
		case 'b': p->bytes = (long)v; break;
		case 'c': p->cells = (long)v; break;
		case 'a': p->allreduce_every = (long)v; break;
		case 'm':
			if (strcmp(optarg, "blocking") == 0)
				p->mode = BLOCKING;
			else if (strcmp(optarg, "nonblocking") == 0)
				p->mode = NONBLOCKING;
			else {
				if (rank == 0)
					fprintf(stderr, "stencil: --mode blocking "
					    "or nonblocking, not '%s'\n", optarg);
				return -1;
			}
			break;
		case 'h':
			if (rank == 0)
				usage(stdout);
			return 1;
		default:
			if (rank == 0) {
				fprintf(stderr, "stencil: unknown option %s\n",
				    argv[optind - 1]);
				usage(stderr);
			}
			return -1;
		}
	}
	if (p->steps < 1 || p->cells < 1 || p->bytes < 8 ||
	    p->bytes > (1L << 30)) {
		if (rank == 0)
			fprintf(stderr, "stencil: --steps and --cells at least 1,"
			    " --bytes between 8 and 1 GiB\n");
		return -1;
	}
	return 0;
}

/* What a rank measured and counted. */
struct tally {
	double compute_s, comm_s;
	long blocking_calls;
	int errors;
};

/* The halo buffers of one step, and the requests of the non-blocking
 * exchange (posted before the step's computation, completed after it). */
struct halo {
	unsigned char *to_right, *to_left, *from_left, *from_right;
	MPI_Request r[4];
	int left, right;
};

static void halo_init(struct halo *h, const struct params *p, int rank,
                      int nranks, unsigned char *bufs)
{
	long b = p->bytes;
	h->left = (rank + nranks - 1) % nranks;
	h->right = (rank + 1) % nranks;
	h->to_right = bufs;
	h->to_left = bufs + b;
	h->from_left = bufs + 2 * b;
	h->from_right = bufs + 3 * b;
}

/* Non-blocking mode: posts the step's receives and sends of u's boundary
 * cells, which do not change while the step computes, so that the
 * messages move while it does (bcs-mpi.txt 6.3: MPI_Isend/MPI_Irecv, and
 * MPI_Waitall at the end). */
static void exchange_post(const struct params *p, int rank, const int64_t *u,
                          long step, struct halo *h, struct tally *t)
{
	long b = p->bytes;
	pack(h->to_right, b, u[p->cells - 1], step, rank);
	pack(h->to_left, b, u[0], step, rank);
	double t0 = MPI_Wtime();
	MPI_Irecv(h->from_left, (int)b, MPI_BYTE, h->left, TAG_RIGHTWARD,
	    MPI_COMM_WORLD, &h->r[0]);
	MPI_Irecv(h->from_right, (int)b, MPI_BYTE, h->right, TAG_LEFTWARD,
	    MPI_COMM_WORLD, &h->r[1]);
	MPI_Isend(h->to_right, (int)b, MPI_BYTE, h->right, TAG_RIGHTWARD,
	    MPI_COMM_WORLD, &h->r[2]);
	MPI_Isend(h->to_left, (int)b, MPI_BYTE, h->left, TAG_LEFTWARD,
	    MPI_COMM_WORLD, &h->r[3]);
	t->comm_s += MPI_Wtime() - t0;
}

/* The rest of the halo exchange of one step: non-blocking mode waits for
 * what exchange_post started; blocking mode does the whole exchange with
 * MPI_Send/MPI_Recv.  Returns the ghost cells in *left_ghost and
 * *right_ghost. */
static void exchange(const struct params *p, int rank, const int64_t *u,
                     long step, struct halo *h, int64_t *left_ghost,
                     int64_t *right_ghost, struct tally *t)
{
	int left = h->left, right = h->right;
	long b = p->bytes;
	unsigned char *to_right = h->to_right, *to_left = h->to_left,
	    *from_left = h->from_left, *from_right = h->from_right;
	if (p->mode == BLOCKING) {
		pack(to_right, b, u[p->cells - 1], step, rank);
		pack(to_left, b, u[0], step, rank);
	}
	double t0 = MPI_Wtime();
	if (p->mode == NONBLOCKING) {
		MPI_Waitall(4, h->r, MPI_STATUSES_IGNORE);
		t->blocking_calls += 1;
	} else if (rank % 2 == 0) {
		/* Even ranks send first, odd ranks receive first.  On a ring
		 * of odd size the last rank and rank 0 are both even: rank 0's
		 * send goes to rank 1, which receives, so rank 0 then receives
		 * the last rank's send; no cycle of waiting senders forms. */
		MPI_Send(to_right, (int)b, MPI_BYTE, right, TAG_RIGHTWARD,
		    MPI_COMM_WORLD);
		MPI_Recv(from_left, (int)b, MPI_BYTE, left, TAG_RIGHTWARD,
		    MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Send(to_left, (int)b, MPI_BYTE, left, TAG_LEFTWARD,
		    MPI_COMM_WORLD);
		MPI_Recv(from_right, (int)b, MPI_BYTE, right, TAG_LEFTWARD,
		    MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		t->blocking_calls += 4;
	} else {
		MPI_Recv(from_left, (int)b, MPI_BYTE, left, TAG_RIGHTWARD,
		    MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Send(to_right, (int)b, MPI_BYTE, right, TAG_RIGHTWARD,
		    MPI_COMM_WORLD);
		MPI_Recv(from_right, (int)b, MPI_BYTE, right, TAG_LEFTWARD,
		    MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Send(to_left, (int)b, MPI_BYTE, left, TAG_LEFTWARD,
		    MPI_COMM_WORLD);
		t->blocking_calls += 4;
	}
	t->comm_s += MPI_Wtime() - t0;
	t->errors += unpack(from_left, b, left_ghost, step, left, rank);
	t->errors += unpack(from_right, b, right_ghost, step, right, rank);
}

/* The whole computation on one process, for the final check. */
static int64_t *serial(const struct params *p, int nranks)
{
	long n = p->cells * nranks;
	int64_t *u = malloc((size_t)n * sizeof *u),
	    *next = malloc((size_t)n * sizeof *u);
	if (!u || !next) {
		free(u);
		free(next);
		return NULL;
	}
	for (long i = 0; i < n; i++)
		u[i] = initial(i);
	for (long s = 0; s < p->steps; s++)
		update(u, next, n, u[n - 1], u[0]);
	free(next);
	return u;
}

/* Rank 0 compares the gathered array with the serial computation;
 * collective. Returns the number of wrong cells (on every rank). */
static long check_final(const struct params *p, int rank, int nranks,
                        const int64_t *u)
{
	int64_t *all = NULL;
	long wrong = 0;
	if (rank == 0)
		all = malloc((size_t)(p->cells * nranks) * sizeof *all);
	MPI_Gather(u, (int)p->cells, MPI_INT64_T, all, (int)p->cells,
	    MPI_INT64_T, 0, MPI_COMM_WORLD);
	if (rank == 0) {
		int64_t *want = serial(p, nranks);
		if (!all || !want) {
			fprintf(stderr, "stencil: out of memory for the final "
			    "check\n");
			wrong = 1;
		} else {
			for (long i = 0; i < p->cells * nranks; i++)
				if (all[i] != want[i] && wrong++ == 0)
					fprintf(stderr, "stencil: cell %ld is %lld "
					    "after %ld steps, the serial "
					    "computation says %lld\n", i,
					    (long long)all[i], p->steps,
					    (long long)want[i]);
		}
		free(want);
		free(all);
	}
	MPI_Bcast(&wrong, 1, MPI_LONG, 0, MPI_COMM_WORLD);
	return wrong;
}

int main(int argc, char **argv)
{
	struct params p = {.steps = 100, .bytes = 8, .cells = 1024,
	                   .allreduce_every = 1, .grain_us = 1000,
	                   .mode = BLOCKING};
	int rank, nranks;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	int ps = parse(argc, argv, rank, &p);
	if (ps != 0) {
		MPI_Finalize();
		return ps > 0 ? 0 : 2;
	}
	double rate = grain_calibrate(MPI_COMM_WORLD);
	if (rate <= 0) {
		if (rank == 0)
			fprintf(stderr, "stencil: the calibration failed\n");
		MPI_Finalize();
		return 1;
	}
	long units = grain_units(p.grain_us, rate);

	int64_t *u = malloc((size_t)p.cells * sizeof *u),
	    *next = malloc((size_t)p.cells * sizeof *u);
	unsigned char *bufs = malloc((size_t)(4 * p.bytes));
	if (!u || !next || !bufs) {
		fprintf(stderr, "stencil: rank %d: out of memory\n", rank);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	int64_t mass0 = 0, total0;
	for (long i = 0; i < p.cells; i++) {
		u[i] = initial(rank * p.cells + i);
		mass0 += u[i];
	}
	MPI_Allreduce(&mass0, &total0, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);

	struct tally t = {0};
	double x = 0.3 + 0.01 * (rank % 10); /* the grain's own state */
	int64_t residual = 0;
	MPI_Barrier(MPI_COMM_WORLD);
	double t0 = MPI_Wtime();
	struct halo h;
	halo_init(&h, &p, rank, nranks, bufs);
	for (long s = 0; s < p.steps; s++) {
		if (nranks > 1 && p.mode == NONBLOCKING)
			exchange_post(&p, rank, u, s, &h, &t);
		double c0 = MPI_Wtime();
		grain_work(units, &x);
		t.compute_s += MPI_Wtime() - c0;

		int64_t left = u[p.cells - 1], right = u[0]; /* a ring of one */
		if (nranks > 1)
			exchange(&p, rank, u, s, &h, &left, &right, &t);
		if (t.errors) /* the neighbours would wait for this rank */
			MPI_Abort(MPI_COMM_WORLD, 1);

		c0 = MPI_Wtime();
		residual = update(u, next, p.cells, left, right);
		t.compute_s += MPI_Wtime() - c0;

		if (p.allreduce_every > 0 && (s + 1) % p.allreduce_every == 0) {
			int64_t mine[2] = {0, residual}, sums[2];
			for (long i = 0; i < p.cells; i++)
				mine[0] += u[i];
			c0 = MPI_Wtime();
			MPI_Allreduce(mine, sums, 2, MPI_INT64_T, MPI_SUM,
			    MPI_COMM_WORLD);
			t.comm_s += MPI_Wtime() - c0;
			t.blocking_calls++;
			if (sums[0] != total0) {
				if (rank == 0)
					fprintf(stderr, "stencil: step %ld: the "
					    "total is %lld, it was %lld\n", s,
					    (long long)sums[0],
					    (long long)total0);
				t.errors++;
				break; /* every rank saw the same sums */
			}
		}
	}
	double elapsed = MPI_Wtime() - t0;
	if (!grain_state_ok(x)) {
		fprintf(stderr, "stencil: rank %d: the grain's computation went "
		    "wrong (%g)\n", rank, x);
		t.errors++;
	}

	/* Sums over the ranks: errors, compute, comm, blocking calls; and the
	 * slowest loop. */
	double mine[4] = {t.errors, t.compute_s, t.comm_s,
	                  (double)t.blocking_calls}, sums[4], slowest;
	MPI_Allreduce(mine, sums, 4, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	MPI_Allreduce(&elapsed, &slowest, 1, MPI_DOUBLE, MPI_MAX,
	    MPI_COMM_WORLD);
	long wrong = sums[0] > 0 ? 0 : check_final(&p, rank, nranks, u);
	int ok = sums[0] == 0 && wrong == 0;
	if (ok && rank == 0) {
		double per = (double)nranks * (double)p.steps;
		printf("stencil ranks=%d mode=%s steps=%ld grain_us=%g bytes=%ld "
		    "cells=%ld allreduce_every=%ld total_s=%.6f step_us=%.3f "
		    "compute_us=%.3f comm_us=%.3f blocking_calls=%.3f "
		    "call_us=%.3f\n", nranks,
		    p.mode == BLOCKING ? "blocking" : "nonblocking", p.steps,
		    p.grain_us, p.bytes, p.cells, p.allreduce_every, slowest,
		    slowest / (double)p.steps * 1e6, sums[1] / per * 1e6,
		    sums[2] / per * 1e6, sums[3] / per,
		    sums[3] > 0 ? sums[2] / sums[3] * 1e6 : 0.0);
		fflush(stdout);
	} else if (!ok && rank == 0 && wrong) {
		fprintf(stderr, "stencil: %ld cells differ from the serial "
		    "computation\n", wrong);
	}
	free(u);
	free(next);
	free(bufs);
	MPI_Finalize();
	return ok ? 0 : 1;
}

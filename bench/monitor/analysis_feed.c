/* analysis_feed: the cost per tuple of the live analysis (src/monitor,
 * mon_analysis_feed) on the tuples of gsum (bench/monitor/gsum.c), with
 * no job and no rings: what a monitor spends on each tuple it reads.
 *
 *   analysis_feed [-r RANKS] [-n ITERS] [-b BATCH] [-k REPS]
 *
 * RANKS (default 2) processes "mpi 0".. register the collectors a Grove
 * MPI rank of gsum registers (src/mpi/stats.c): its MPI_Comm_dup,
 * MPI_Allreduce and MPI_Barrier ("rank:R"), and the communicator
 * collectors "comm" of MPI_COMM_WORLD and of gsum's two duplicates
 * ("comm:CTX:0", "size:RANKS").  Each of ITERS (default 200000)
 * iterations records, on every rank, an MPI_Allreduce call (mpi_call,
 * result 8 bytes) and its communicator instant (mpi_comm, seq = the
 * rank's count of collectives on that communicator, result = its rank),
 * on the two duplicates alternately, with arrival times that vary by
 * rank and iteration.  The tuples are fed as an event scope feeds them
 * (src/scope/scope.c): a poll takes BATCH (default 4096) new tuples of
 * each process in turn, keeps those its selection keeps and feeds them
 * as one run of ring 0.
 *
 * Two modes, run alternately: "stats" (everything selected: grove monitor
 * stats) and "lb" (the load balance's selection, last_only: collective
 * calls and communicator instants; for gsum that is every tuple, so the
 * two differ only by the selection's pass).  Each run feeds a fresh
 * analysis all the tuples; REPS (default 7) runs per mode; printed per
 * mode: the median, min and max ns per tuple fed, and a digest of the
 * results (balance, path statistics, timelines, arrival orders, instance
 * counts), which must not change when the analysis is made faster.
 *
 *   analysis_feed ranks=2 iters=200000 batch=4096 mode=stats tuples=800000 ns_per_tuple=... min=... max=... digest=...
 *
 * Before the analysis was made cheaper (commit 17cee1e, Release, 2 cores
 * AMD EPYC, Debian 12, shared, load average 3.5-5, median of 5): 167 ns
 * per tuple (stats) and 166 (lb) at 2 ranks, 133 and 133 at 8 ranks
 * (-r 8 -n 50000).  Before and after, interleaved: docs/monitoring.md,
 * "The analysis", "Cost per tuple". */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "monitor/analysis.h"

/* The collector ids of one rank, in the order gsum registers them. */
enum {
	C_DUP = 1, C_WORLD, C_ALLREDUCE, C_COMM_A, C_COMM_B, C_BARRIER, C_N
};

struct stream {
	uint32_t ranks;
	size_t per_rank;       /* tuples of each rank */
	struct mon_tuple **t;  /* [rank][i] */
};

static uint64_t
now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A deterministic jitter (xorshift) so that who arrives last varies. */
static uint64_t
jitter(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s % 400;
}

static int
make_stream(struct stream *s, uint32_t ranks, size_t iters)
{
	s->ranks = ranks;
	s->per_rank = 2 * iters;
	s->t = calloc(ranks, sizeof *s->t);
	if (!s->t)
		return -1;
	uint64_t seed = 88172645463325252ull;
	for (uint32_t r = 0; r < ranks; r++)
		if (!(s->t[r] = calloc(s->per_rank, sizeof **s->t)))
			return -1;
	uint32_t seq[2] = {0, 0};
	uint64_t t = 1000000;
	for (size_t i = 0; i < iters; i++) {
		uint32_t c = (uint32_t)(i & 1);
		uint64_t end = t + 600;
		for (uint32_t r = 0; r < ranks; r++) {
			struct mon_tuple *call = &s->t[r][2 * i];
			struct mon_tuple *comm = call + 1;
			uint64_t start = t + jitter(&seed);
			*call = (struct mon_tuple){start, end + r, C_ALLREDUCE,
			                           (uint32_t)i, 8,
			                           GROVE_OP_MPI_CALL, 0};
			*comm = (struct mon_tuple){end + r, end + r,
			                           c ? C_COMM_B : C_COMM_A,
			                           seq[c], (int32_t)r,
			                           GROVE_OP_MPI_COMM,
			                           GROVE_TRACE_F_INSTANT};
		}
		seq[c]++;
		t = end + 100 + jitter(&seed);
	}
	return 0;
}

static int
register_ranks(struct mon_analysis *a, uint32_t ranks)
{
	char size[32], where[64];
	snprintf(size, sizeof size, "size:%" PRIu32, ranks);
	for (uint32_t r = 0; r < ranks; r++) {
		uint32_t p;
		int rc = mon_pathmap_proc(&a->pm, "mpi", r, "node0", &p);
		snprintf(where, sizeof where, "rank:%" PRIu32, r);
		struct { uint32_t id; const char *name, *where, *pos; } c[] = {
			{C_DUP, "MPI_Comm_dup", where, ""},
			{C_WORLD, "comm", "comm:0:0", size},
			{C_ALLREDUCE, "MPI_Allreduce", where, ""},
			{C_COMM_A, "comm", "comm:1:0", size},
			{C_COMM_B, "comm", "comm:2:0", size},
			{C_BARRIER, "MPI_Barrier", where, ""},
		};
		for (size_t i = 0; !rc && i < sizeof c / sizeof *c; i++)
			rc = mon_pathmap_collector(&a->pm, p, c[i].id,
			                           c[i].name, "mpi", c[i].where,
			                           c[i].pos);
		if (rc)
			return rc;
	}
	return 0;
}

/* What the load balance's selection keeps (src/scope/scope.c,
 * last_arrival). */
static int
last_arrival(const struct mon_collector *c)
{
	return c && (c->kind == MON_K_LAST_BE || c->kind == MON_K_LAST_CP ||
	             c->kind == MON_K_MPI_COMM ||
	             (c->kind == MON_K_MPI && c->collective));
}

static uint64_t
fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ull;
	return h;
}

/* A digest of everything the analysis holds that a view shows. */
static uint64_t
digest(struct mon_analysis *a)
{
	uint64_t h = 1469598103934665603ull;
	struct mon_balance_edge *e;
	struct mon_path_stats *ps;
	struct mon_proc_timeline *tl;
	size_t n;
	if (mon_balance_edges(a->balance, &e, &n))
		return 0;
	for (size_t i = 0; i < n; i++) {
		h = fnv(h, e[i].scope, strlen(e[i].scope));
		h = fnv(h, e[i].child, strlen(e[i].child));
		h = fnv(h, &e[i].last, sizeof e[i].last);
		h = fnv(h, &e[i].waves, sizeof e[i].waves);
	}
	free(e);
	if (mon_pathstats_results(a->stats, 3.0, 10, &ps, &n))
		return 0;
	for (size_t i = 0; i < n; i++) {
		h = fnv(h, ps[i].proc, strlen(ps[i].proc));
		h = fnv(h, ps[i].name, strlen(ps[i].name));
		h = fnv(h, ps[i].op, strlen(ps[i].op));
		h = fnv(h, &ps[i].count, sizeof ps[i].count);
		h = fnv(h, &ps[i].min_ns, sizeof ps[i].min_ns);
		h = fnv(h, &ps[i].max_ns, sizeof ps[i].max_ns);
		h = fnv(h, &ps[i].mean_ns, sizeof ps[i].mean_ns);
		h = fnv(h, &ps[i].sd_ns, sizeof ps[i].sd_ns);
	}
	free(ps);
	if (mon_timeline_procs(a->timeline, &tl, &n))
		return 0;
	for (size_t i = 0; i < n; i++) {
		h = fnv(h, tl[i].busy_ns, sizeof tl[i].busy_ns);
		h = fnv(h, tl[i].count, sizeof tl[i].count);
		h = fnv(h, &tl[i].gap_ns, sizeof tl[i].gap_ns);
		h = fnv(h, &tl[i].n, sizeof tl[i].n);
		for (size_t j = 0; j < tl[i].n; j++)
			h = fnv(h, &tl[i].span[j].t0, 16);
	}
	free(tl);
	struct mon_order_scope *os;
	if (mon_order_scopes(a->order, &os, &n))
		return 0;
	for (size_t i = 0; i < n; i++) {
		h = fnv(h, &os[i].instances, sizeof os[i].instances);
		for (uint32_t j = 0; j < os[i].size; j++) {
			const struct mon_order_member *m = &os[i].m[j];
			h = fnv(h, m->label, strlen(m->label));
			h = fnv(h, &m->first, 16);
			h = fnv(h, &m->arrive_wait, sizeof m->arrive_wait);
			h = fnv(h, &m->depart_wait, sizeof m->depart_wait);
			for (uint32_t k = 0; m->arrive_pos && k < os[i].size;
			     k++) {
				h = fnv(h, &m->arrive_pos[k], sizeof(uint64_t));
				h = fnv(h, &m->depart_pos[k], sizeof(uint64_t));
			}
		}
		for (size_t j = 0; j < os[i].n_recent; j++)
			h = fnv(h, &os[i].recent[j].seq, sizeof(uint32_t));
	}
	free(os);
	struct mon_instances_counts ic;
	mon_instances_counts(a->inst, &ic);
	return fnv(h, &ic, sizeof ic);
}

/* One run: a fresh analysis fed the whole stream; ns per tuple fed. */
static double
run(const struct stream *s, size_t batch, int last_only, uint64_t *dg,
    size_t *fed)
{
	struct mon_analysis *a = mon_analysis_new(NULL);
	struct mon_tuple *sel = malloc(batch * sizeof *sel);
	if (!a || !sel || register_ranks(a, s->ranks)) {
		fprintf(stderr, "analysis_feed: out of memory\n");
		exit(1);
	}
	*fed = 0;
	uint64_t t0 = now_ns();
	for (size_t off = 0; off < s->per_rank; off += batch) {
		size_t n = s->per_rank - off < batch ? s->per_rank - off : batch;
		for (uint32_t r = 0; r < s->ranks; r++) {
			/* The selection's pass, as scope.c makes it. */
			size_t k = 0;
			for (size_t i = 0; i < n; i++) {
				const struct mon_tuple *t = &s->t[r][off + i];
				if (!last_only || last_arrival(mon_pathmap_get(
				    &a->pm, r, t->collector)))
					sel[k++] = *t;
			}
			if (mon_analysis_feed(a, r, 0, sel, k)) {
				fprintf(stderr, "analysis_feed: feed failed\n");
				exit(1);
			}
			*fed += k;
		}
	}
	uint64_t dt = now_ns() - t0;
	*dg = digest(a);
	mon_analysis_free(a);
	free(sel);
	return *fed ? (double)dt / (double)*fed : 0;
}

static int
dbl_cmp(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return a < b ? -1 : a > b;
}

int
main(int argc, char **argv)
{
	long ranks = 2, iters = 200000, batch = 4096, reps = 7;
	int c;
	while ((c = getopt(argc, argv, "r:n:b:k:")) != -1) {
		long *v = c == 'r' ? &ranks : c == 'n' ? &iters :
		          c == 'b' ? &batch : c == 'k' ? &reps : NULL;
		if (!v) {
			fprintf(stderr, "usage: analysis_feed [-r RANKS] "
			        "[-n ITERS] [-b BATCH] [-k REPS]\n");
			return 2;
		}
		*v = strtol(optarg, NULL, 10);
	}
	if (ranks < 1 || ranks > 4096 || iters < 1 || batch < 1 ||
	    reps < 1 || reps > 1000) {
		fprintf(stderr, "analysis_feed: RANKS 1-4096, ITERS, BATCH "
		        "and REPS (up to 1000) positive\n");
		return 2;
	}
	struct stream s;
	if (make_stream(&s, (uint32_t)ranks, (size_t)iters)) {
		fprintf(stderr, "analysis_feed: out of memory\n");
		return 1;
	}
	double ns[2][1000];
	uint64_t dg[2] = {0, 0};
	size_t fed[2] = {0, 0};
	/* The modes alternate, so that both see the same machine. */
	for (long k = 0; k < reps; k++)
		for (int m = 0; m < 2; m++)
			ns[m][k] = run(&s, (size_t)batch, m, &dg[m], &fed[m]);
	for (int m = 0; m < 2; m++) {
		qsort(ns[m], (size_t)reps, sizeof ns[m][0], dbl_cmp);
		printf("analysis_feed ranks=%ld iters=%ld batch=%ld mode=%s "
		       "tuples=%zu ns_per_tuple=%.1f min=%.1f max=%.1f "
		       "digest=%016" PRIx64 "\n", ranks, iters, batch,
		       m ? "lb" : "stats", fed[m], ns[m][reps / 2], ns[m][0],
		       ns[m][reps - 1], dg[m]);
	}
	for (uint32_t r = 0; r < s.ranks; r++)
		free(s.t[r]);
	free(s.t);
	return 0;
}

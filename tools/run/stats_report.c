/* grove run --stats: Table 5.3 of bcs-mpi.txt for a Grove MPI job, from
 * the statistics the ranks left in the job segment (src/mpi/stats.c).
 *
 * What the figures mean:
 *   primitive rows   every outermost call of that MPI function on every
 *                    rank with valid statistics: min and max of one call,
 *                    the total, the count, total / count;
 *   Comm Overhead    the same over all calls of all functions: the time
 *                    a rank spent inside MPI;
 *   Comp Granularity the time between calls: per rank, the run time
 *                    (end of MPI_Init to start of MPI_Finalize) minus its
 *                    time in MPI, over calls + 1 intervals (before the
 *                    first call, between calls, after the last).  The
 *                    ranks do not record single intervals, so its min and
 *                    max are not known ("-").
 * The check adds computation and communication and compares the sum with
 * the run time.  Computation is derived from the run time, so the two
 * agree unless a rank spent more time in MPI calls than it ran (its
 * computation is then counted as 0 and the check names it): that would
 * mean calls timed outside MPI_Init..MPI_Finalize or clocks that
 * disagree.
 *
 * Units: us with three decimals (ns resolution), or ms when a rank ran
 * 10 s or more, as the paper prints; the header says which.  The JSON
 * keeps integer ns. */
#include "stats_report.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/job.h"

static const char *const fn_names[MPI_STATS_FN_COUNT_] = {
#define GROVE_MPI_FN_(name) [MPI_STATS_FN_##name] = "MPI_" #name,
#include "mpi_fn_list.h"
#undef GROVE_MPI_FN_
};

/* One row of the table: calls of one function, or of all of them. */
struct row {
	uint64_t count, total, min, max, bytes;
	uint32_t ranks;      /* ranks that made such calls */
};

/* A rank's part in the figures. */
struct rank_fig {
	bool used;           /* valid and enabled: its figures count */
	const char *why;     /* when not used: the reason */
	uint64_t run, comm, comp, calls;
	bool comm_over_run;  /* spent longer in MPI than it ran */
};

struct report {
	uint32_t n, used;
	struct rank_fig *r;
	struct row fn[MPI_STATS_FN_COUNT_];
	struct row comm;     /* Comm Overhead */
	uint64_t comp_total, comp_count;
	uint64_t run_total;
	double share_min, share_max; /* comm / run per rank */
	bool agree;
	double unit_ns;      /* 1e3 (us) or 1e6 (ms) */
	const char *unit;
};

static void
row_add(struct row *w, const struct mpi_stat_fn *f)
{
	if (w->count == 0 || f->min_ns < w->min)
		w->min = f->min_ns;
	if (w->count == 0 || f->max_ns > w->max)
		w->max = f->max_ns;
	w->count += f->count;
	w->total += f->total_ns;
	w->bytes += f->bytes;
	w->ranks++;
}

/* Why a rank's statistics are not usable, from its slot and the state it
 * left in its control block. */
static const char *
not_valid_reason(const struct mpi_rank_stats *st, int32_t state)
{
	if (st->valid)
		return "its statistics were off (GROVE_MPI_STATS unset in it)";
	switch (state) {
	case MPI_RANK_NONE:
		return "it never reached MPI_Init";
	case MPI_RANK_INIT:
		return "it ended inside MPI_Init";
	case MPI_RANK_RUNNING:
		return "it ended before MPI_Finalize";
	case MPI_RANK_ABORTED:
		return "it aborted (MPI_Abort or a fatal error)";
	default:
		return "it left no final statistics";
	}
}

static int
build(const struct mpi_job *job, struct report *R)
{
	memset(R, 0, sizeof *R);
	R->n = job->hdr->nranks;
	R->r = calloc(R->n ? R->n : 1, sizeof *R->r);
	if (!R->r)
		return -1;
	R->agree = true;
	uint64_t longest = 0;
	for (uint32_t i = 0; i < R->n; i++) {
		const struct mpi_rank_stats *st = mpi_job_stats(job, i);
		struct rank_fig *rf = &R->r[i];
		uint32_t valid = __atomic_load_n(&st->valid, __ATOMIC_ACQUIRE);
		/* Counts are the same in any unit, so even a rank that ended
		 * early says how many calls it made. */
		rf->calls = st->calls;
		if (!valid || !st->enabled) {
			rf->why = not_valid_reason(st, __atomic_load_n(
			        &mpi_job_ctl(job, i)->state, __ATOMIC_ACQUIRE));
			continue;
		}
		rf->used = true;
		R->used++;
		rf->run = st->t_final_ns > st->t_init_ns
		          ? st->t_final_ns - st->t_init_ns : 0;
		rf->comm = st->comm_ns;
		rf->comm_over_run = rf->comm > rf->run;
		rf->comp = rf->comm_over_run ? 0 : rf->run - rf->comm;
		if (rf->comm_over_run)
			R->agree = false;
		if (rf->run > longest)
			longest = rf->run;
		for (int f = 0; f < MPI_STATS_FN_COUNT_; f++) {
			if (st->fn[f].count == 0)
				continue;
			row_add(&R->fn[f], &st->fn[f]);
			/* The comm row counts ranks, not functions. */
			uint32_t ranks = R->comm.ranks;
			row_add(&R->comm, &st->fn[f]);
			R->comm.ranks = ranks;
		}
		R->comm.ranks++;
		R->comp_total += rf->comp;
		R->comp_count += rf->calls + 1;
		R->run_total += rf->run;
		double share = rf->run ? (double)rf->comm / (double)rf->run : 0;
		if (R->used == 1 || share < R->share_min)
			R->share_min = share;
		if (R->used == 1 || share > R->share_max)
			R->share_max = share;
	}
	/* Every rank's comm row total is its comm_ns, which stats.c keeps
	 * apart from the per-function totals: take it, not their sum, so
	 * that the check adds what the ranks measured. */
	R->comm.total = 0;
	for (uint32_t i = 0; i < R->n; i++)
		if (R->r[i].used)
			R->comm.total += R->r[i].comm;
	if (R->comp_total + R->comm.total != R->run_total)
		R->agree = false;
	bool ms = longest >= 10000000000ull;
	R->unit_ns = ms ? 1e6 : 1e3;
	R->unit = ms ? "ms" : "us";
	return 0;
}

/* ---- text -------------------------------------------------------------- */

static void
put_time(FILE *f, const struct report *R, uint64_t ns)
{
	fprintf(f, " %14.3f", (double)ns / R->unit_ns);
}

static void
put_row(FILE *f, const struct report *R, const char *name,
        const struct row *w, bool minmax, bool bytes)
{
	fprintf(f, "%-24s", name);
	if (minmax) {
		put_time(f, R, w->min);
		put_time(f, R, w->max);
	} else {
		fprintf(f, " %14s %14s", "-", "-");
	}
	put_time(f, R, w->total);
	fprintf(f, " %10" PRIu64, w->count);
	fprintf(f, " %14.3f", w->count ? (double)w->total / (double)w->count /
	        R->unit_ns : 0.0);
	fprintf(f, " %6" PRIu32, w->ranks);
	if (bytes)
		fprintf(f, " %14" PRIu64, w->bytes);
	fputc('\n', f);
}

/* "0-2,5" for the ranks whose figures were not used for reason why. */
static void
put_ranks(FILE *f, const struct report *R, const char *why)
{
	bool first = true;
	for (uint32_t i = 0; i < R->n; i++) {
		if (R->r[i].used || R->r[i].why != why)
			continue;
		uint32_t j = i;
		while (j + 1 < R->n && !R->r[j + 1].used && R->r[j + 1].why == why)
			j++;
		fprintf(f, "%s%" PRIu32, first ? "" : ",", i);
		if (j > i)
			fprintf(f, "-%" PRIu32, j);
		first = false;
		i = j;
	}
}

static void
write_text(FILE *f, const struct report *R)
{
	const char *u = R->unit;
	fprintf(f, "MPI call statistics (bcs-mpi.txt Table 5.3): %" PRIu32
	        " of %" PRIu32 " ranks with valid statistics; times in %s, "
	        "over all of them\n", R->used, R->n, u);
	/* Every reason once, with its ranks and the calls they made. */
	for (uint32_t i = 0; i < R->n; i++) {
		const char *why = R->r[i].why;
		if (R->r[i].used)
			continue;
		bool seen = false;
		for (uint32_t k = 0; k < i && !seen; k++)
			seen = !R->r[k].used && R->r[k].why == why;
		if (seen)
			continue;
		uint64_t calls = 0;
		uint32_t ranks = 0;
		for (uint32_t k = i; k < R->n; k++)
			if (!R->r[k].used && R->r[k].why == why) {
				calls += R->r[k].calls;
				ranks++;
			}
		fprintf(f, "Not counted: rank%s ", ranks > 1 ? "s" : "");
		put_ranks(f, R, why);
		fprintf(f, ": %s", why);
		if (calls)
			fprintf(f, " (%" PRIu64 " calls not in the table)", calls);
		fputc('\n', f);
	}
	if (R->used == 0) {
		fputs("No rank has valid statistics: nothing to tabulate.\n", f);
		return;
	}
	char h[5][16];
	snprintf(h[0], sizeof h[0], "Min(%s)", u);
	snprintf(h[1], sizeof h[1], "Max(%s)", u);
	snprintf(h[2], sizeof h[2], "Total(%s)", u);
	snprintf(h[3], sizeof h[3], "Average(%s)", u);
	fprintf(f, "%-24s %14s %14s %14s %10s %14s %6s %14s\n", "Primitive",
	        h[0], h[1], h[2], "Count", h[3], "Ranks", "Bytes");
	for (int i = 0; i < MPI_STATS_FN_COUNT_; i++)
		if (R->fn[i].count)
			put_row(f, R, fn_names[i], &R->fn[i], true, true);
	struct row comp = {
		.count = R->comp_count, .total = R->comp_total,
		.ranks = R->used,
	};
	put_row(f, R, "Comp Granularity", &comp, false, false);
	put_row(f, R, "Comm Overhead", &R->comm, R->comm.count > 0, false);
	fprintf(f, "Comm Overhead: %.2f%% of the run time in MPI calls",
	        R->run_total ? 100.0 * (double)R->comm.total /
	        (double)R->run_total : 0.0);
	if (R->used > 1)
		fprintf(f, " (per rank %.2f%% to %.2f%%)", 100.0 * R->share_min,
		        100.0 * R->share_max);
	fputc('\n', f);
	fprintf(f, "Check: computation %.3f + communication %.3f = %.3f %s; "
	        "run time %.3f %s (MPI_Init to MPI_Finalize, summed over %"
	        PRIu32 " ranks): %s\n",
	        (double)R->comp_total / R->unit_ns,
	        (double)R->comm.total / R->unit_ns,
	        (double)(R->comp_total + R->comm.total) / R->unit_ns, u,
	        (double)R->run_total / R->unit_ns, u, R->used,
	        R->agree ? "they agree" : "they DO NOT agree");
	for (uint32_t i = 0; i < R->n; i++)
		if (R->r[i].used && R->r[i].comm_over_run)
			fprintf(f, "  rank %" PRIu32 " spent %.3f %s in MPI calls "
			        "but ran %.3f %s\n", i,
			        (double)R->r[i].comm / R->unit_ns, u,
			        (double)R->r[i].run / R->unit_ns, u);
}

/* ---- JSON -------------------------------------------------------------- */

static void
json_row(FILE *f, const struct row *w, bool minmax)
{
	if (minmax && w->count)
		fprintf(f, "\"min_ns\": %" PRIu64 ", \"max_ns\": %" PRIu64 ", ",
		        w->min, w->max);
	else
		fputs("\"min_ns\": null, \"max_ns\": null, ", f);
	fprintf(f, "\"total_ns\": %" PRIu64 ", \"count\": %" PRIu64
	        ", \"average_ns\": %.3f, \"ranks\": %" PRIu32, w->total,
	        w->count, w->count ? (double)w->total / (double)w->count : 0.0,
	        w->ranks);
}

static void
write_json(FILE *f, const struct report *R)
{
	fprintf(f, "{\n  \"source\": \"grove run --stats\",\n  \"ranks\": %"
	        PRIu32 ",\n  \"valid_ranks\": %" PRIu32 ",\n", R->n, R->used);
	fputs("  \"not_counted\": [", f);
	bool first = true;
	for (uint32_t i = 0; i < R->n; i++) {
		if (R->r[i].used)
			continue;
		fprintf(f, "%s\n    {\"rank\": %" PRIu32 ", \"reason\": \"%s\", "
		        "\"calls\": %" PRIu64 "}", first ? "" : ",", i,
		        R->r[i].why, R->r[i].calls);
		first = false;
	}
	fputs(first ? "],\n" : "\n  ],\n", f);
	fputs("  \"primitives\": [", f);
	first = true;
	for (int i = 0; i < MPI_STATS_FN_COUNT_; i++) {
		if (!R->fn[i].count)
			continue;
		fprintf(f, "%s\n    {\"name\": \"%s\", ", first ? "" : ",",
		        fn_names[i]);
		json_row(f, &R->fn[i], true);
		fprintf(f, ", \"bytes\": %" PRIu64 "}", R->fn[i].bytes);
		first = false;
	}
	fputs(first ? "],\n" : "\n  ],\n", f);
	struct row comp = {
		.count = R->comp_count, .total = R->comp_total,
		.ranks = R->used,
	};
	fputs("  \"comp_granularity\": {", f);
	json_row(f, &comp, false);
	fputs("},\n  \"comm_overhead\": {", f);
	json_row(f, &R->comm, true);
	fprintf(f, ", \"share\": %.6f, \"share_min\": %.6f, \"share_max\": "
	        "%.6f},\n", R->run_total ? (double)R->comm.total /
	        (double)R->run_total : 0.0, R->share_min, R->share_max);
	fprintf(f, "  \"check\": {\"comp_ns\": %" PRIu64 ", \"comm_ns\": %"
	        PRIu64 ", \"sum_ns\": %" PRIu64 ", \"run_ns\": %" PRIu64
	        ", \"agree\": %s},\n", R->comp_total, R->comm.total,
	        R->comp_total + R->comm.total, R->run_total,
	        R->agree ? "true" : "false");
	fputs("  \"per_rank\": [", f);
	for (uint32_t i = 0; i < R->n; i++) {
		const struct rank_fig *rf = &R->r[i];
		fprintf(f, "%s\n    {\"rank\": %" PRIu32 ", \"valid\": %s",
		        i ? "," : "", i, rf->used ? "true" : "false");
		if (rf->used)
			fprintf(f, ", \"run_ns\": %" PRIu64 ", \"comm_ns\": %"
			        PRIu64 ", \"comp_ns\": %" PRIu64, rf->run,
			        rf->comm, rf->comp);
		fprintf(f, ", \"calls\": %" PRIu64 "}", rf->calls);
	}
	fputs(R->n ? "\n  ]\n}\n" : "]\n}\n", f);
}

int
run_stats_report(const struct mpi_job *job, FILE *out, const char *json_path)
{
	if (!job || !job->hdr) {
		fprintf(stderr, "grove run: no job segment: no statistics\n");
		return -1;
	}
	struct report R;
	if (build(job, &R) != 0) {
		fprintf(stderr, "grove run: statistics: out of memory\n");
		return -1;
	}
	int rc = 0;
	if (out) {
		write_text(out, &R);
		if (fflush(out) != 0 || ferror(out)) {
			fprintf(stderr, "grove run: cannot write the statistics: "
			        "%s\n", strerror(errno));
			rc = -1;
		}
	}
	if (json_path) {
		bool std = strcmp(json_path, "-") == 0;
		FILE *f = std ? stdout : fopen(json_path, "w");
		if (!f) {
			fprintf(stderr, "grove run: cannot write the statistics "
			        "to %s: %s\n", json_path, strerror(errno));
			rc = -1;
		} else {
			write_json(f, &R);
			int bad = fflush(f) != 0 || ferror(f);
			int e = errno;
			if (!std && fclose(f) != 0 && !bad) {
				bad = 1;
				e = errno;
			}
			if (bad) {
				fprintf(stderr, "grove run: cannot write the "
				        "statistics to %s: %s\n",
				        std ? "standard output" : json_path,
				        strerror(e));
				rc = -1;
			}
		}
	}
	free(R.r);
	return rc;
}

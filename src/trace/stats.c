/* Statistics over a snapshot of event spaces:
 *  - a per-primitive summary in the style of BCS-MPI's MMDS (Table 5.3:
 *    count, min, max, total, average), with computation granularity and
 *    communication overhead rows;
 *  - mpiP-style per-process rows and a '*' row per primitive with the
 *    spread of per-process totals across processes (min, max, mean, COV);
 *  - message sizes from the byte counts in results;
 *  - log2 histograms of computation granularity (time between consecutive
 *    API calls of a thread) and communication overhead (time inside them).
 * A primitive is an operation within a layer; user operations are told
 * apart by collector name. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "grove/error.h"
#include "trace/memo.h"
#include "trace/trace_impl.h"

#define NBUCKET 64

struct acc {
	uint64_t count, min, max, sum;
};

struct dist {
	struct acc a;
	uint64_t hist[NBUCKET]; /* bucket k: [2^k, 2^(k+1)) ns; 0 holds 0 */
};

struct prim {
	uint16_t op;
	char layer[TRACE_LAYER_LEN];
	char name[TRACE_NAME_LEN];
	struct acc all, bytes;
	struct acc *per; /* per process */
};

struct model {
	const struct trace_set *set;
	struct prim *prims;
	size_t nprim, cap;
	struct dist gran, ovh;
	struct dist *pgran, *povh; /* per process */
	uint64_t tuples, lost;
};

static void
acc_add(struct acc *a, uint64_t v)
{
	if (!a->count || v < a->min)
		a->min = v;
	if (!a->count || v > a->max)
		a->max = v;
	a->count++;
	a->sum += v;
}

static double
acc_mean(const struct acc *a)
{
	return a->count ? (double)a->sum / (double)a->count : 0;
}

static int
bucket(uint64_t v)
{
	return v ? 63 - __builtin_clzll(v) : 0;
}

static uint64_t
bucket_lo(int k)
{
	return k ? (uint64_t)1 << k : 0;
}

static uint64_t
bucket_hi(int k)
{
	return k >= 63 ? UINT64_MAX : (uint64_t)1 << (k + 1);
}

static void
dist_add(struct dist *d, uint64_t v)
{
	acc_add(&d->a, v);
	d->hist[bucket(v)]++;
}

static int
is_bytes_op(uint16_t op)
{
	return trace_op_sends(op) || trace_op_receives(op) ||
	       op == GROVE_OP_WRITEV || op == GROVE_OP_READ ||
	       op == GROVE_OP_API_SEND || op == GROVE_OP_API_RECV ||
	       op == GROVE_OP_MPI_CALL;
}

/* A call into the library: Grove's API, or an MPI call of Grove MPI (not
 * the instants that carry an MPI call's tag or peer, which would count
 * as calls of no length). */
static int
is_api(uint16_t op, const struct trace_collector_entry *e)
{
	return op == GROVE_OP_API_SEND || op == GROVE_OP_API_RECV ||
	       op == GROVE_OP_MPI_CALL ||
	       (e && !strcmp(e->layer, "api"));
}

/* The primitive's index in m->prims (found or added), or -1 when out of
 * memory.  A linear search: memo (model_build) calls it once per
 * collector of a process, not per tuple. */
static int64_t
prim_find(struct model *m, uint16_t op, const struct trace_collector_entry *e)
{
	char ob[32];
	const char *layer = e && e->layer[0] ? e->layer : "-";
	/* User collectors, the wave collectors (the wave spans and the
	 * zero-length wave.last_be / wave.last_cp markers share their op)
	 * and MPI calls (one op for every function) are told apart by the
	 * collector's name. */
	const char *name = (op >= GROVE_OP_USER || op == GROVE_OP_WAVE ||
	                    trace_op_is_mpi(op)) && e &&
	                   e->name[0] ? e->name :
	                   trace_op_name(op, ob, sizeof ob);
	for (size_t i = 0; i < m->nprim; i++) {
		struct prim *p = &m->prims[i];
		if (p->op == op && !strcmp(p->layer, layer) &&
		    !strcmp(p->name, name))
			return (int64_t)i;
	}
	if (m->nprim == m->cap) {
		size_t nc = m->cap ? m->cap * 2 : 16;
		struct prim *np = realloc(m->prims, nc * sizeof *np);
		if (!np)
			return -1;
		m->prims = np;
		m->cap = nc;
	}
	struct prim *p = &m->prims[m->nprim];
	memset(p, 0, sizeof *p);
	p->per = calloc(m->set->n ? m->set->n : 1, sizeof *p->per);
	if (!p->per)
		return -1;
	p->op = op;
	snprintf(p->layer, sizeof p->layer, "%s", layer);
	snprintf(p->name, sizeof p->name, "%s", name);
	return (int64_t)m->nprim++;
}

/* The primitive of tuple t of process p, looked up once per collector
 * and op (memo) rather than per tuple. */
static struct prim *
prim_get(struct model *m, struct trace_memo *memo,
         const struct trace_proc *p, const grove_trace_tuple *t)
{
	int64_t i = trace_memo_get(memo, t->collector, t->op);
	if (i < 0) {
		i = prim_find(m, t->op, trace_proc_collector(p, t->collector));
		if (i < 0)
			return NULL;
		trace_memo_put(memo, t->collector, t->op, i);
	}
	return &m->prims[i];
}

static int
cmp_start(const void *x, const void *y)
{
	const grove_trace_tuple *a = *(const grove_trace_tuple *const *)x;
	const grove_trace_tuple *b = *(const grove_trace_tuple *const *)y;
	return a->t_start < b->t_start ? -1 : a->t_start > b->t_start;
}

/* Granularity and overhead of one thread: its API calls in start order. */
static int
ring_api(struct model *m, size_t pi, const struct trace_ring_snap *rs)
{
	const struct trace_proc *p = &m->set->p[pi];
	const grove_trace_tuple **v = malloc((rs->n ? rs->n : 1) * sizeof *v);
	size_t n = 0;
	if (!v)
		return GROVE_ENOMEM;
	for (size_t k = 0; k < rs->n; k++)
		if (is_api(rs->t[k].op,
		           trace_proc_collector(p, rs->t[k].collector)))
			v[n++] = &rs->t[k];
	qsort(v, n, sizeof *v, cmp_start);
	for (size_t k = 0; k < n; k++) {
		uint64_t s = trace_proc_ns(p, v[k]->t_start);
		uint64_t e = trace_proc_ns(p, v[k]->t_end);
		uint64_t d = e > s ? e - s : 0;
		dist_add(&m->ovh, d);
		dist_add(&m->povh[pi], d);
		if (k) {
			uint64_t pe = trace_proc_ns(p, v[k - 1]->t_end);
			if (s >= pe) {
				dist_add(&m->gran, s - pe);
				dist_add(&m->pgran[pi], s - pe);
			}
		}
	}
	free(v);
	return 0;
}

static void
model_free(struct model *m)
{
	for (size_t i = 0; i < m->nprim; i++)
		free(m->prims[i].per);
	free(m->prims);
	free(m->pgran);
	free(m->povh);
}

static int
prim_cmp(const void *x, const void *y)
{
	const struct prim *a = x, *b = y;
	if (a->all.sum != b->all.sum)
		return a->all.sum > b->all.sum ? -1 : 1;
	return strcmp(a->name, b->name);
}

static int
model_build(struct model *m, const struct trace_set *set)
{
	memset(m, 0, sizeof *m);
	m->set = set;
	m->pgran = calloc(set->n ? set->n : 1, sizeof *m->pgran);
	m->povh = calloc(set->n ? set->n : 1, sizeof *m->povh);
	if (!m->pgran || !m->povh)
		return GROVE_ENOMEM;
	for (size_t pi = 0; pi < set->n; pi++) {
		const struct trace_proc *p = &set->p[pi];
		m->tuples += p->tuples;
		m->lost += p->lost;
		struct trace_memo memo;
		if (trace_memo_init(&memo, p->n_collectors))
			return GROVE_ENOMEM;
		for (uint32_t r = 0; r < p->n_rings; r++) {
			const struct trace_ring_snap *rs = &p->rings[r];
			for (size_t k = 0; k < rs->n; k++) {
				const grove_trace_tuple *t = &rs->t[k];
				/* An MPI call's tag, peer or communicator:
				 * part of the call's record, not an event of
				 * its own. */
				if (t->op == GROVE_OP_MPI_TAG ||
				    t->op == GROVE_OP_MPI_PEER ||
				    t->op == GROVE_OP_MPI_COMM)
					continue;
				struct prim *pr = prim_get(m, &memo, p, t);
				if (!pr) {
					trace_memo_fini(&memo);
					return GROVE_ENOMEM;
				}
				uint64_t s = trace_proc_ns(p, t->t_start);
				uint64_t en = trace_proc_ns(p, t->t_end);
				uint64_t d = en > s ? en - s : 0;
				acc_add(&pr->all, d);
				acc_add(&pr->per[pi], d);
				if (is_bytes_op(t->op) && t->result >= 0)
					acc_add(&pr->bytes,
					        (uint64_t)t->result);
			}
			int rc = ring_api(m, pi, rs);
			if (rc) {
				trace_memo_fini(&memo);
				return rc;
			}
		}
		trace_memo_fini(&memo);
	}
	qsort(m->prims, m->nprim, sizeof *m->prims, prim_cmp);
	return 0;
}

/* Spread of per-process totals over the processes where p occurs. */
struct spread {
	unsigned procs;
	double tmin, tmax, tmean, cov;
};

static struct spread
prim_spread(const struct model *m, const struct prim *p)
{
	struct spread s = {0};
	double sum = 0, sq = 0;
	for (size_t i = 0; i < m->set->n; i++) {
		if (!p->per[i].count)
			continue;
		double t = (double)p->per[i].sum;
		if (!s.procs || t < s.tmin)
			s.tmin = t;
		if (!s.procs || t > s.tmax)
			s.tmax = t;
		s.procs++;
		sum += t;
		sq += t * t;
	}
	if (s.procs) {
		s.tmean = sum / s.procs;
		double var = sq / s.procs - s.tmean * s.tmean;
		s.cov = s.tmean > 0 && var > 0 ? sqrt(var) / s.tmean : 0;
	}
	return s;
}

static uint64_t
api_ns(const struct model *m, size_t pi)
{
	return m->povh[pi].a.sum;
}

static uint64_t
app_ns(const struct trace_proc *p)
{
	return p->end_ns > p->start_ns ? p->end_ns - p->start_ns : 0;
}

/* ---- text ---- */

static void
text_range(FILE *f, int k)
{
	static const char *unit[] = {"ns", "us", "ms", "s"};
	uint64_t lo = bucket_lo(k), hi = bucket_hi(k);
	char a[24], b[24];
	int ua = 0, ub = 0;
	double va = (double)lo, vb = (double)hi;
	while (va >= 1000 && ua < 3)
		va /= 1000, ua++;
	while (vb >= 1000 && ub < 3)
		vb /= 1000, ub++;
	snprintf(a, sizeof a, "%.4g%s", va, unit[ua]);
	snprintf(b, sizeof b, "%.4g%s", vb, unit[ub]);
	fprintf(f, "  [%9s, %9s)", a, b);
}

static void
text_dist(FILE *f, const char *title, const struct dist *d)
{
	fprintf(f, "\n@--- %s (all processes) ---\n", title);
	fprintf(f, "%-24s %10s %8s\n", "Range", "Count", "Percent");
	for (int k = 0; k < NBUCKET; k++) {
		if (!d->hist[k])
			continue;
		text_range(f, k);
		fprintf(f, " %10" PRIu64 " %7.2f%%\n", d->hist[k],
		        100.0 * (double)d->hist[k] / (double)d->a.count);
	}
	if (!d->a.count)
		fprintf(f, "  (no API calls recorded)\n");
}

/* A primitive's name and layer for a table row: escaped, so that a
 * collector name with a newline cannot break the table. */
struct text_names {
	char name[4 * sizeof ((struct prim *)0)->name];
	char layer[4 * sizeof ((struct prim *)0)->layer];
};

static const struct text_names *
text_names(const char *name, const char *layer, struct text_names *t)
{
	trace_text_field(name, t->name, sizeof t->name);
	trace_text_field(layer, t->layer, sizeof t->layer);
	return t;
}

static void
text_row(FILE *f, const char *name, const char *layer, const struct acc *a)
{
	struct text_names t;
	text_names(name, layer, &t);
	fprintf(f, "%-22s %-8s %11.3f %11.3f %12.3f %9" PRIu64 " %11.3f\n",
	        t.name, t.layer, a->count ? a->min / 1e3 : 0,
	        a->count ? a->max / 1e3 : 0, a->sum / 1e6, a->count,
	        acc_mean(a) / 1e3);
}

int
trace_stats_text(const struct trace_set *set, FILE *f)
{
	struct model m;
	int rc = model_build(&m, set);
	if (rc) {
		model_free(&m);
		return rc;
	}
	fprintf(f, "@ grove trace statistics\n");
	fprintf(f, "@ Network      : %s\n", set->n ?
	        set->p[0].hdr.network_id : "(none)");
	fprintf(f, "@ Processes    : %zu\n", set->n);
	fprintf(f, "@ Tuples       : %" PRIu64 " read, %" PRIu64
	        " overwritten before read\n", m.tuples, m.lost);
	/* Threads that found no ring recorded nothing: say so, or their
	 * absence from every table below reads as idleness. */
	for (size_t i = 0; i < set->n; i++)
		if (set->p[i].hdr.threads_without_ring)
			fprintf(f, "@ Not recorded : %s: %u thread(s) found no "
			        "ring (all taken, or /dev/shm full)\n",
			        set->p[i].label,
			        set->p[i].hdr.threads_without_ring);

	fprintf(f, "\n@--- Process time (seconds) ---\n");
	fprintf(f, "%-10s %8s %12s %12s %8s %10s %10s\n", "Task", "Pid",
	        "AppTime", "APITime", "API%", "Tuples", "Lost");
	uint64_t tapp = 0, tapi = 0;
	for (size_t i = 0; i < set->n; i++) {
		const struct trace_proc *p = &set->p[i];
		uint64_t app = app_ns(p), api = api_ns(&m, i);
		tapp += app;
		tapi += api;
		fprintf(f, "%-10s %8d %12.6f %12.6f %7.2f%% %10" PRIu64
		        " %10" PRIu64 "\n", p->label, p->hdr.pid, app / 1e9,
		        api / 1e9, app ? 100.0 * api / app : 0, p->tuples,
		        p->lost);
	}
	fprintf(f, "%-10s %8s %12.6f %12.6f %7.2f%% %10" PRIu64 " %10" PRIu64
	        "\n", "*", "", tapp / 1e9, tapi / 1e9,
	        tapp ? 100.0 * tapi / tapp : 0, m.tuples, m.lost);

	fprintf(f, "\n@--- Primitive summary (all processes) ---\n");
	fprintf(f, "%-22s %-8s %11s %11s %12s %9s %11s\n", "Primitive",
	        "Layer", "Min(us)", "Max(us)", "Total(ms)", "Count",
	        "Average(us)");
	for (size_t i = 0; i < m.nprim; i++)
		text_row(f, m.prims[i].name, m.prims[i].layer, &m.prims[i].all);
	text_row(f, "Comp Granularity", "api", &m.gran.a);
	text_row(f, "Comm Overhead", "api", &m.ovh.a);

	fprintf(f, "\n@--- Primitive statistics per process (microseconds;"
	        " '*': all processes, spread of per-process totals) ---\n");
	fprintf(f, "%-22s %-8s %-10s %9s %11s %11s %11s %12s\n", "Primitive",
	        "Layer", "Task", "Count", "Min", "Max", "Mean", "Total");
	for (size_t i = 0; i < m.nprim; i++) {
		const struct prim *p = &m.prims[i];
		struct text_names t;
		text_names(p->name, p->layer, &t);
		for (size_t k = 0; k < set->n; k++) {
			const struct acc *a = &p->per[k];
			if (!a->count)
				continue;
			fprintf(f, "%-22s %-8s %-10s %9" PRIu64 " %11.3f %11.3f"
			        " %11.3f %12.3f\n", t.name, t.layer,
			        set->p[k].label, a->count, a->min / 1e3,
			        a->max / 1e3, acc_mean(a) / 1e3, a->sum / 1e3);
		}
		struct spread s = prim_spread(&m, p);
		fprintf(f, "%-22s %-8s %-10s %9" PRIu64 " %11.3f %11.3f %11.3f"
		        " %12.3f  procs=%u total min/max/mean=%.3f/%.3f/%.3f"
		        " COV=%.3f\n", t.name, t.layer, "*", p->all.count,
		        p->all.min / 1e3, p->all.max / 1e3,
		        acc_mean(&p->all) / 1e3, p->all.sum / 1e3, s.procs,
		        s.tmin / 1e3, s.tmax / 1e3, s.tmean / 1e3, s.cov);
	}

	fprintf(f, "\n@--- Message sizes (bytes) ---\n");
	fprintf(f, "%-22s %-8s %9s %11s %11s %13s %15s\n", "Primitive",
	        "Layer", "Count", "Min", "Max", "Mean", "Sum");
	for (size_t i = 0; i < m.nprim; i++) {
		const struct acc *a = &m.prims[i].bytes;
		if (!a->count)
			continue;
		struct text_names t;
		text_names(m.prims[i].name, m.prims[i].layer, &t);
		fprintf(f, "%-22s %-8s %9" PRIu64 " %11" PRIu64 " %11" PRIu64
		        " %13.1f %15" PRIu64 "\n", t.name,
		        t.layer, a->count, a->min, a->max,
		        acc_mean(a), a->sum);
	}
	text_dist(f, "Computation granularity distribution", &m.gran);
	text_dist(f, "Communication overhead distribution", &m.ovh);
	model_free(&m);
	return ferror(f) ? GROVE_ESYS : 0;
}

/* ---- JSON ---- */

static void
json_acc(FILE *f, const struct acc *a, const char *unit)
{
	fprintf(f, "{\"count\":%" PRIu64 ",\"min%s\":%" PRIu64 ",\"max%s\":%"
	        PRIu64 ",\"total%s\":%" PRIu64 ",\"mean%s\":%.3f}", a->count,
	        unit, a->count ? a->min : 0, unit, a->max, unit, a->sum, unit,
	        acc_mean(a));
}

static void
json_dist(FILE *f, const struct dist *d)
{
	fputs("{\"summary\":", f);
	json_acc(f, &d->a, "_ns");
	fputs(",\"log2_hist\":[", f);
	int first = 1;
	for (int k = 0; k < NBUCKET; k++) {
		if (!d->hist[k])
			continue;
		fprintf(f, "%s{\"lo_ns\":%" PRIu64 ",\"hi_ns\":%" PRIu64
		        ",\"count\":%" PRIu64 "}", first ? "" : ",",
		        bucket_lo(k), bucket_hi(k), d->hist[k]);
		first = 0;
	}
	fputs("]}", f);
}

int
trace_stats_json(const struct trace_set *set, FILE *f)
{
	struct model m;
	int rc = model_build(&m, set);
	if (rc) {
		model_free(&m);
		return rc;
	}
	fputs("{\"network\":", f);
	trace_json_str(f, set->n ? set->p[0].hdr.network_id : "");
	fprintf(f, ",\"tuples\":%" PRIu64 ",\"lost\":%" PRIu64
	        ",\n\"processes\":[", m.tuples, m.lost);
	for (size_t i = 0; i < set->n; i++) {
		const struct trace_proc *p = &set->p[i];
		fprintf(f, "%s\n{\"task\":", i ? "," : "");
		trace_json_str(f, p->label);
		fputs(",\"role\":", f);
		trace_json_str(f, p->hdr.role);
		fprintf(f, ",\"rank\":%u,\"pid\":%d,\"app_ns\":%" PRIu64
		        ",\"api_ns\":%" PRIu64 ",\"tuples\":%" PRIu64
		        ",\"lost\":%" PRIu64 ",\"threads_without_ring\":%u"
		        ",\"granularity\":", p->hdr.rank, p->hdr.pid, app_ns(p),
		        api_ns(&m, i), p->tuples, p->lost,
		        p->hdr.threads_without_ring);
		json_dist(f, &m.pgran[i]);
		fputs(",\"overhead\":", f);
		json_dist(f, &m.povh[i]);
		fputc('}', f);
	}
	fputs("],\n\"primitives\":[", f);
	for (size_t i = 0; i < m.nprim; i++) {
		const struct prim *p = &m.prims[i];
		char ob[32];
		fprintf(f, "%s\n{\"name\":", i ? "," : "");
		trace_json_str(f, p->name);
		fputs(",\"op\":", f);
		trace_json_str(f, trace_op_name(p->op, ob, sizeof ob));
		fputs(",\"layer\":", f);
		trace_json_str(f, p->layer);
		fputs(",\"all\":", f);
		json_acc(f, &p->all, "_ns");
		fputs(",\"per_process\":[", f);
		int first = 1;
		for (size_t k = 0; k < set->n; k++) {
			if (!p->per[k].count)
				continue;
			fprintf(f, "%s{\"task\":", first ? "" : ",");
			trace_json_str(f, set->p[k].label);
			fputs(",\"stats\":", f);
			json_acc(f, &p->per[k], "_ns");
			fputc('}', f);
			first = 0;
		}
		struct spread s = prim_spread(&m, p);
		fprintf(f, "],\"spread\":{\"procs\":%u,\"total_min_ns\":%.0f,"
		        "\"total_max_ns\":%.0f,\"total_mean_ns\":%.3f,"
		        "\"cov\":%.6f}", s.procs, s.tmin, s.tmax, s.tmean,
		        s.cov);
		if (p->bytes.count) {
			fputs(",\"bytes\":", f);
			json_acc(f, &p->bytes, "");
		}
		fputc('}', f);
	}
	fputs("],\n\"granularity\":", f);
	json_dist(f, &m.gran);
	fputs(",\n\"overhead\":", f);
	json_dist(f, &m.ovh);
	fputs("}\n", f);
	model_free(&m);
	return ferror(f) ? GROVE_ESYS : 0;
}

/* grove bench: benchmarks as programs (never timed tests).
 *
 *   grove bench micro   the MRNet paper's micro-benchmark (Figure 7):
 *                       instantiation latency, round trip of a broadcast
 *                       followed by a sum reduction, reduction throughput
 *   grove bench trace   the cost of tracing: the record fast path, and the
 *                       micro-benchmark with tracing on and off
 *   grove bench offered-load   time-aligned aggregation under load
 *                       (bench_offered.c)
 *   grove bench startup ReportSelf, equivalence classes, clock skew
 *                       (bench_startup.c)
 *   grove bench skew    accuracy of clock-skew detection (bench_skew.c)
 *   grove bench bcast   the P-LogP paper's broadcast experiment
 *                       (bench_bcast.c)
 *   grove bench align   event spaces of several hosts on one timeline
 *                       (bench_align.c)
 *   grove bench floor   the micro-benchmark's pattern on bare processes:
 *                       this machine's floor under it (bench_floor.c)
 *   grove bench bcs     the BCS core primitives (bench_bcs.c)
 *   grove bench recovery  CPs lost under load: re-parenting time and
 *                       throughput (bench_recovery.c)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_agents.h"
#include "bench_align.h"
#include "bench_bcast.h"
#include "bench_bcs.h"
#include "bench_floor.h"
#include "bench_recovery.h"
#include "bench_skew.h"
#include "../bench_stats.h"
#include "../cli_opts.h"
#include "grove/grove.h"
#include "../toolutil.h"
#include "treecost.h"
#include "proto/worker_protocol.h"

#if defined(__has_include)
#if __has_include("trace/trace_impl.h")
#include "trace/trace_impl.h"
#define BENCH_HAVE_TRACE 1
#endif
#endif

#define BENCH_WARMUP 5
/* Per-receive limit: generous, a benchmark of a broken network should end
 * with an error rather than hang. */
#define BENCH_RECV_MS 60000

typedef struct micro_cfg {
	const char *spec;
	const char *file;   /* --file: an MRNet topology file, else NULL */
	unsigned backends;
	int backends_given; /* --backends was given: the spec's count is not */
	int rt_iters;
	int thru_iters;
	int create_timeout_ms;
	int measure_cost;   /* also count CPU time and trace tuples per phase */
	int cp_sched_batch; /* grove_net_opts.cp_sched_batch */
	grove_cpu_bind cpu_bind; /* grove_net_opts.cpu_bind */
} micro_cfg;

typedef struct micro_res {
	uint32_t nodes, cps, depth;
	double inst_s;
	double rt_mean_s, rt_min_s, rt_median_s, rt_max_s;
	double thru_s, thru_wps;
	double shutdown_s;
	/* with measure_cost: per round trip and per wave */
	double rt_cpu_s, rt_tuples, thru_cpu_s, thru_tuples;
	/* clock reads the tuples kept (distinct timestamps) */
	double rt_stamps, thru_stamps;
	char err[768];
} micro_res;

static int
fail(micro_res *r, grove_net *net, const char *what, int rc)
{
	snprintf(r->err, sizeof r->err, "%s: %s%s%s", what,
	    grove_strerror(rc), net ? ": " : "",
	    net ? grove_net_last_error(net) : "");
	return rc < 0 ? rc : GROVE_EPROTO;
}

static int
sum_stream(grove_net *net, grove_stream **s)
{
	grove_stream_opts so;
	grove_stream_opts_init(&so);
	so.up_filter = "sum";
	so.sync_filter = "wait_for_all";
	return grove_stream_create(net, grove_net_comm_all(net), &so, s);
}

/* Receives one reduced "%d" and checks it is want. */
static int
recv_sum(grove_stream *s, int32_t want, micro_res *r, grove_net *net,
    const char *what)
{
	grove_packet *p = NULL;
	int32_t tag, v;
	int rc = grove_stream_recv(s, &tag, &p, BENCH_RECV_MS);
	if (rc < 0)
		return fail(r, net, what, rc);
	rc = grove_packet_unpack(p, "%d", &v);
	grove_packet_unref(p);
	if (rc < 0)
		return fail(r, net, what, rc);
	if (v != want) {
		snprintf(r->err, sizeof r->err, "%s: reduced value %" PRId32
		    ", expected %" PRId32, what, v, want);
		return GROVE_EPROTO;
	}
	return 0;
}

static int
roundtrips(grove_net *net, const micro_cfg *c, micro_res *r)
{
	grove_stream *s = NULL;
	int32_t n = (int32_t)grove_net_backends(net);
	int rc = sum_stream(net, &s);
	if (rc < 0)
		return fail(r, net, "round trip stream", rc);
	double *t = malloc((size_t)c->rt_iters * sizeof *t);
	if (!t) {
		grove_stream_destroy(s);
		return fail(r, NULL, "round trip", GROVE_ENOMEM);
	}
	for (int i = -BENCH_WARMUP; i < c->rt_iters && rc == 0; i++) {
		double t0 = tool_now();
		rc = grove_stream_send(s, WORKER_ECHO, "%d", 1);
		if (rc < 0) {
			fail(r, net, "round trip send", rc);
			break;
		}
		rc = recv_sum(s, n, r, net, "round trip");
		if (i >= 0)
			t[i] = tool_now() - t0;
	}
	if (rc == 0) {
		double sum = 0;
		for (int i = 0; i < c->rt_iters; i++)
			sum += t[i];
		qsort(t, (size_t)c->rt_iters, sizeof *t, bench_cmp_double);
		r->rt_mean_s = sum / c->rt_iters;
		r->rt_min_s = t[0];
		r->rt_median_s = t[c->rt_iters / 2];
		r->rt_max_s = t[c->rt_iters - 1];
	}
	free(t);
	grove_stream_destroy(s);
	return rc;
}

static int
throughput(grove_net *net, const micro_cfg *c, micro_res *r)
{
	grove_stream *s = NULL;
	int32_t n = (int32_t)grove_net_backends(net);
	int rc = sum_stream(net, &s);
	if (rc < 0)
		return fail(r, net, "throughput stream", rc);
	double t0 = tool_now();
	rc = grove_stream_send(s, WORKER_BURST, "%d %d", c->thru_iters, 1);
	if (rc < 0)
		fail(r, net, "throughput send", rc);
	for (int i = 0; i < c->thru_iters && rc == 0; i++)
		rc = recv_sum(s, n, r, net, "throughput");
	r->thru_s = tool_now() - t0;
	if (rc == 0)
		r->thru_wps = c->thru_iters / r->thru_s;
	grove_stream_destroy(s);
	return rc;
}

/* The tree as the output names it: the topology file, else the spec. */
static const char *
micro_tree(const micro_cfg *c)
{
	return c->file ? c->file : c->spec;
}

/* One run of the micro-benchmark: create, round trips, throughput,
 * destroy. */
static int
micro_run(const micro_cfg *c, const tool_programs *pg, micro_res *r)
{
	grove_net_opts o;
	grove_net *net = NULL;

	memset(r, 0, sizeof *r);
	tool_net_opts(&o, pg, c->spec, c->backends);
	o.topology_file = c->file;
	o.cp_sched_batch = c->cp_sched_batch;
	o.cpu_bind = c->cpu_bind;
	if (c->create_timeout_ms > 0)
		o.timeout_ms = c->create_timeout_ms;
	double t0 = tool_now();
	int rc = grove_net_create(&o, &net);
	r->inst_s = tool_now() - t0;
	if (rc < 0) {
		fail(r, net, "create", rc);
		if (net)
			grove_net_destroy(net);
		return rc;
	}
	const grove_topo *t = grove_net_topology(net);
	r->nodes = grove_topo_size(t);
	r->cps = r->nodes - 1 - grove_topo_backends(t);
	r->depth = grove_topo_depth(t);
	/* The tuples are counted outside the CPU window: reading the event
	 * spaces costs this process CPU time, and only when tracing is on. */
	double cpu0 = 0;
	uint64_t tup0 = 0;
	treecost_mark *marks = NULL;
	size_t n_marks = 0;
	const char *id = grove_net_id(net);
	if (c->measure_cost) {
		treecost_marks(id, &marks, &n_marks);
		tup0 = treecost_tuples(id);
		cpu0 = treecost_cpu_s();
	}
	rc = roundtrips(net, c, r);
	if (rc == 0 && c->measure_cost) {
		r->rt_cpu_s = (treecost_cpu_s() - cpu0) / c->rt_iters;
		uint64_t tup1 = treecost_tuples(id);
		r->rt_tuples = (double)(tup1 - tup0) / c->rt_iters;
		r->rt_stamps = treecost_stamps_since(id, marks, n_marks) /
		    c->rt_iters;
		free(marks);
		treecost_marks(id, &marks, &n_marks);
		tup0 = tup1;
		cpu0 = treecost_cpu_s();
	}
	if (rc == 0)
		rc = throughput(net, c, r);
	if (rc == 0 && c->measure_cost) {
		r->thru_cpu_s = (treecost_cpu_s() - cpu0) / c->thru_iters;
		r->thru_tuples = (double)(treecost_tuples(id) - tup0) /
		    c->thru_iters;
		r->thru_stamps = treecost_stamps_since(id, marks, n_marks) /
		    c->thru_iters;
	}
	free(marks);
	t0 = tool_now();
	grove_net_destroy(net);
	r->shutdown_s = tool_now() - t0;
	return rc;
}

/* The placement in effect: the option, else $GROVE_CPU_BIND. */
static const char *
micro_cpu_bind_name(const micro_cfg *c)
{
	if (c->cpu_bind != GROVE_CPU_BIND_DEFAULT)
		return c->cpu_bind == GROVE_CPU_BIND_SUBTREE ? "subtree" : "none";
	const char *env = getenv("GROVE_CPU_BIND");
	return env && !strcmp(env, "subtree") ? "subtree" : "none";
}

static void
micro_print_json(const micro_cfg *c, const micro_res *r)
{
	printf("{\"topology\": ");
	tool_json_str(micro_tree(c));
	printf(", \"backends\": %u, \"cps\": %" PRIu32 ", \"depth\": %"
	    PRIu32, c->backends, r->cps, r->depth);
	printf(", \"instantiation_s\": %.6f", r->inst_s);
	printf(", \"roundtrip_s\": %.9f, \"roundtrip_min_s\": %.9f"
	    ", \"roundtrip_median_s\": %.9f, \"roundtrip_max_s\": %.9f"
	    ", \"rt_iters\": %d", r->rt_mean_s, r->rt_min_s,
	    r->rt_median_s, r->rt_max_s, c->rt_iters);
	printf(", \"throughput_waves_per_s\": %.1f, \"throughput_s\": %.6f"
	    ", \"thru_iters\": %d", r->thru_wps, r->thru_s, c->thru_iters);
	printf(", \"shutdown_s\": %.6f", r->shutdown_s);
	const char *env = getenv("GROVE_CP_SCHED");
	printf(", \"cp_sched\": \"%s\"", c->cp_sched_batch ||
	    (env && !strcmp(env, "batch")) ? "batch" : "other");
	printf(", \"cpu_bind\": \"%s\"", micro_cpu_bind_name(c));
	tool_json_machine();
	printf("}\n");
}

static void
micro_print_text(const micro_cfg *c, const micro_res *r)
{
	printf("grove bench micro: topology %s, %u back-ends (%" PRIu32
	    " communication processes, depth %" PRIu32 ")%s\n", micro_tree(c),
	    c->backends, r->cps, r->depth, strcmp(micro_cpu_bind_name(c),
	    "subtree") ? "" : ", subtrees bound to CPUs");
	printf("  instantiation   %10.2f ms\n", r->inst_s * 1e3);
	printf("  round trip      %10.3f ms   mean of %d (min %.3f, median "
	    "%.3f, max %.3f)\n", r->rt_mean_s * 1e3, c->rt_iters,
	    r->rt_min_s * 1e3, r->rt_median_s * 1e3, r->rt_max_s * 1e3);
	printf("  throughput      %10.0f waves/s   (%d waves in %.3f s)\n",
	    r->thru_wps, c->thru_iters, r->thru_s);
	printf("  shutdown        %10.2f ms\n", r->shutdown_s * 1e3);
}

/* The options micro and trace share, in their --help. */
#define MICRO_HELP_OPTS \
	CLI_HELP_TREE \
	"                       (default kary:8 with 64 back-ends; " \
	"1..65536)\n" \
	"      --rt-iters R     round trips to time (default %d)\n" \
	"      --thru-iters T   packets each back-end sends for the " \
	"throughput (default %d)\n" \
	"      --timeout-ms MS  how long creating the network may take " \
	"(1..3600000;\n" \
	"                       default 30000, grove_net_opts.timeout_ms)\n" \
	"      --cp-sched batch|other  batch: the CPs run under " \
	"SCHED_BATCH\n" \
	"                       (grove_net_opts.cp_sched_batch)\n" \
	"      --cpu-bind none|subtree  subtree: every subtree keeps to " \
	"its share of\n" \
	"                       the CPUs (grove_net_opts.cpu_bind); " \
	"default: $GROVE_CPU_BIND,\n" \
	"                       else none\n" \
	"  -j, --json           one JSON object ($GROVE_COMMIT, when set, " \
	"is copied in)\n" \
	"  -h, --help           show this help\n" \
	"\n" \
	"Exit status: 0 ok, 1 the network failed (said on standard " \
	"error), 2 usage\nerror.\n"

static int
micro_usage(FILE *f)
{
	fprintf(f,
	    "usage: grove bench micro [-t SPEC | -f FILE] [-b N] [--rt-iters R]\n"
	    "                         [--thru-iters T] [--timeout-ms MS] "
	    "[--cp-sched batch|other]\n"
	    "                         [--cpu-bind none|subtree] [-j]\n"
	    "\n"
	    "The MRNet paper's micro-benchmark: instantiation latency (spawn "
	    "mode,\nbe_worker), round trip of a broadcast int followed by a "
	    "sum reduction\n(after %d warm-ups), and reduction throughput "
	    "(reduced waves per second).\n\n" MICRO_HELP_OPTS,
	    BENCH_WARMUP, 200, 1000);
	return f == stdout ? 0 : 2;
}

static int
trace_usage(FILE *f)
{
	fprintf(f,
	    "usage: grove bench trace [-t SPEC | -f FILE] [-b N] [--rounds K]\n"
	    "                         [--rt-iters R] [--thru-iters T] "
	    "[--timeout-ms MS] [-j]\n"
	    "\n"
	    "The cost of tracing: one trace record (on and off), and the "
	    "micro-benchmark\nwith tracing on and off, K rounds of one pair "
	    "(1..100, default 15); wall\nclock and CPU time of all processes, "
	    "median of paired ratios with IQR and\na bootstrap interval.\n\n"
	    "      --rounds K       pairs of runs (1..100, default 15)\n"
	    MICRO_HELP_OPTS, 1000, 5000);
	return f == stdout ? 0 : 2;
}

enum { OPT_RT_ITERS = 256, OPT_THRU_ITERS, OPT_ROUNDS, OPT_TIMEOUT_MS,
    OPT_CP_SCHED, OPT_CPU_BIND };

/* Parses the options shared by both benchmarks (cmd: "grove bench micro"
 * or "grove bench trace"; argv[1] is the benchmark's name; rounds NULL:
 * no --rounds).  Returns 0, or the exit status for a usage error / --help
 * plus 100. */
static int
parse_opts(const char *cmd, int argc, char **argv, micro_cfg *c, int *json,
    int *rounds)
{
	static const struct option opts[] = {
		CLI_OPT_TOPOLOGY, CLI_OPT_FILE, CLI_OPT_BACKENDS, CLI_OPT_JSON,
		CLI_OPT_HELP,
		{"rt-iters", required_argument, NULL, OPT_RT_ITERS},
		{"thru-iters", required_argument, NULL, OPT_THRU_ITERS},
		{"rounds", required_argument, NULL, OPT_ROUNDS},
		{"timeout-ms", required_argument, NULL, OPT_TIMEOUT_MS},
		{"cp-sched", required_argument, NULL, OPT_CP_SCHED},
		{"cpu-bind", required_argument, NULL, OPT_CPU_BIND},
		{NULL, 0, NULL, 0},
	};
	cli_tree t = {.spec = c->spec, .backends = c->backends};
	int ch, rc;
	long x;

	optind = 1;
	opterr = 0;
	while ((ch = getopt_long(argc - 1, argv + 1, ":t:f:b:jh", opts,
	    NULL)) != -1) {
		if (cli_tree_opt(cmd, ch, optarg, 65536, &t, &rc)) {
			if (rc)
				return rc;
			continue;
		}
		switch (ch) {
		case 'j':
			*json = 1;
			break;
		case 'h':
			return (rounds ? trace_usage(stdout) :
			    micro_usage(stdout)) + 100;
		case OPT_CP_SCHED:
			if (strcmp(optarg, "batch") && strcmp(optarg, "other"))
				return tool_usage_error(cmd, "--cp-sched wants "
				    "batch or other, not", optarg);
			c->cp_sched_batch = optarg[0] == 'b';
			break;
		case OPT_CPU_BIND:
			if (strcmp(optarg, "none") && strcmp(optarg, "subtree"))
				return tool_usage_error(cmd, "--cpu-bind wants "
				    "none or subtree, not", optarg);
			c->cpu_bind = optarg[0] == 's' ?
			    GROVE_CPU_BIND_SUBTREE : GROVE_CPU_BIND_NONE;
			break;
		case OPT_RT_ITERS:
		case OPT_THRU_ITERS:
		case OPT_TIMEOUT_MS:
			x = tool_parse_count(optarg, ch == OPT_TIMEOUT_MS ?
			    3600000 : 100000000);
			if (x < 0)
				return tool_count_error(cmd,
				    ch == OPT_RT_ITERS ? "--rt-iters" :
				    ch == OPT_THRU_ITERS ? "--thru-iters" :
				    "--timeout-ms", optarg,
				    ch == OPT_TIMEOUT_MS ? 3600000 : 100000000);
			if (ch == OPT_RT_ITERS)
				c->rt_iters = (int)x;
			else if (ch == OPT_THRU_ITERS)
				c->thru_iters = (int)x;
			else
				c->create_timeout_ms = (int)x;
			break;
		case OPT_ROUNDS:
			if (!rounds)
				return tool_usage_error(cmd, "unknown option",
				    "--rounds");
			x = tool_parse_count(optarg, 100);
			if (x < 0)
				return tool_count_error(cmd, "--rounds", optarg,
				    100);
			*rounds = (int)x;
			break;
		default:
			/* argv + 1 was scanned: optind counts from there. */
			return cli_opt_error(cmd, ch, argv + 1);
		}
	}
	if (optind < argc - 1)
		return tool_usage_error(cmd, "unexpected argument",
		    argv[optind + 1]);
	rc = cli_tree_resolve(cmd, &t, 65536);
	c->spec = t.spec;
	c->file = t.file;
	c->backends = t.backends;
	c->backends_given = t.backends_given;
	return rc;
}

static int
bench_micro(int argc, char **argv)
{
	micro_cfg c = {.spec = "kary:8", .backends = 64, .rt_iters = 200,
	    .thru_iters = 1000};
	int json = 0;
	int rc = parse_opts("grove bench micro", argc, argv, &c, &json, NULL);
	if (rc)
		return rc >= 100 ? rc - 100 : rc;

	tool_programs pg;
	char err[512];
	if (tool_find_programs(&pg, err, sizeof err) < 0) {
		fprintf(stderr, "grove bench: %s\n", err);
		return 1;
	}
	tool_raise_nofile();
	micro_res r;
	rc = micro_run(&c, &pg, &r);
	if (rc < 0) {
		fprintf(stderr, "grove bench micro (%s, %u back-ends): %s\n",
		    micro_tree(&c), c.backends, r.err);
		return 1;
	}
	if (json)
		micro_print_json(&c, &r);
	else
		micro_print_text(&c, &r);
	return 0;
}

#ifdef BENCH_HAVE_TRACE
/* The paired samples of grove bench trace, one per round and metric. */
typedef struct trace_pairs {
	double rt_wall[100], th_wall[100]; /* on/off - 1 (throughput: time) */
	double rt_cpu[100], th_cpu[100];   /* CPU time of the tree, on/off - 1 */
	double rt_ns_tup[100], th_ns_tup[100]; /* (on - off) CPU / tuples */
	double rt_cpu_us[2][100], th_cpu_us[2][100]; /* per op, [off, on] */
	double rt_tup[100], th_tup[100];
	double rt_stamps[100], th_stamps[100];
} trace_pairs;

static void
print_summary_json(const char *key, double *v, int n, double scale)
{
	bench_summary s;
	bench_summarize(v, n, &s);
	printf(", \"%s\": %.2f, \"%s_iqr\": [%.2f, %.2f]"
	    ", \"%s_ci95\": [%.2f, %.2f], \"%s_range\": [%.2f, %.2f]", key,
	    s.median * scale, key, s.q1 * scale, s.q3 * scale, key,
	    s.ci_lo * scale, s.ci_hi * scale, key, s.min * scale,
	    s.max * scale);
}

static void
print_summary_text(const char *what, double *v, int n, double scale,
    const char *unit)
{
	bench_summary s;
	bench_summarize(v, n, &s);
	printf("    %-30s %+8.2f%s  IQR [%+.2f, %+.2f]  95%% CI [%+.2f, "
	    "%+.2f]  range [%+.2f, %+.2f]\n", what, s.median * scale, unit,
	    s.q1 * scale, s.q3 * scale, s.ci_lo * scale, s.ci_hi * scale,
	    s.min * scale, s.max * scale);
}

static double
median_of(const double *v, int n)
{
	double tmp[100];
	bench_summary s;
	for (int i = 0; i < n; i++)
		tmp[i] = v[i];
	bench_summarize(tmp, n, &s);
	return s.median;
}

static int
bench_trace(int argc, char **argv)
{
	/* Longer runs than the micro-benchmark's defaults: the effect to see
	 * is about 1%, a 1000-wave burst lasts 50 ms. */
	micro_cfg c = {.spec = "kary:8", .backends = 64, .rt_iters = 1000,
	    .thru_iters = 5000};
	int json = 0, rounds = 15;
	int rc = parse_opts("grove bench trace", argc, argv, &c, &json,
	    &rounds);
	if (rc)
		return rc >= 100 ? rc - 100 : rc;
	double ns_on = 0, ns_off = 0, ns_store = 0, ns_clock = 0;
	rc = trace_bench_fastpath(&ns_on, &ns_off, &ns_store, &ns_clock);
	if (rc < 0) {
		fprintf(stderr, "grove bench trace: fast path: %s\n",
		    grove_strerror(rc));
		return 1;
	}

	tool_programs pg;
	char err[512];
	if (tool_find_programs(&pg, err, sizeof err) < 0) {
		fprintf(stderr, "grove bench: %s\n", err);
		return 1;
	}
	tool_raise_nofile();

	/* Each round runs the micro-benchmark once with tracing off and once
	 * with it on, in alternating order (off-on, on-off, ...), so that
	 * drift of the machine (other load, CPU frequency) and whatever the
	 * first run of a pair leaves warm hit both sides alike.  Each round
	 * gives one paired ratio per metric; the overhead is the median of
	 * those ratios, with their quartiles and a bootstrap interval of the
	 * median to say how much of it is noise.  Wall-clock time on a shared
	 * machine swings by more than the effect; the CPU time of all the
	 * processes (scheduler accounting, ns resolution) much less. */
	trace_pairs tp = {0};
	double rt_best[2] = {0, 0}, wps_best[2] = {0, 0};
	c.measure_cost = 1;
	const char *saved = getenv("GROVE_TRACE");
	char *saved_copy = saved ? strdup(saved) : NULL;
	for (int k = 0; k < rounds && rc == 0; k++) {
		micro_res res[2];
		for (int i = 0; i <= 1 && rc == 0; i++) {
			int on = (k & 1) ? !i : i;
			micro_res *r = &res[on];
			/* Every process of the run, the front-end included,
			 * reads GROVE_TRACE when it opens its event space
			 * (the front-end in grove_net_create). */
			setenv("GROVE_TRACE", on ? "1" : "0", 1);
			rc = micro_run(&c, &pg, r);
			if (rc < 0) {
				fprintf(stderr, "grove bench trace (tracing "
				    "%s): %s\n", on ? "on" : "off", r->err);
				break;
			}
			/* Progress, and the raw samples (also with --json,
			 * for pooling several runs). */
			fprintf(stderr, "  round %d, tracing %-3s: round trip "
			    "%.3f ms (%.1f us CPU), %.0f waves/s (%.2f us CPU "
			    "per wave)\n", k + 1, on ? "on" : "off",
			    r->rt_median_s * 1e3, r->rt_cpu_s * 1e6,
			    r->thru_wps, r->thru_cpu_s * 1e6);
			if (rt_best[on] == 0 || r->rt_median_s < rt_best[on])
				rt_best[on] = r->rt_median_s;
			if (r->thru_wps > wps_best[on])
				wps_best[on] = r->thru_wps;
		}
		if (rc < 0)
			break;
		const micro_res *off = &res[0], *on = &res[1];
		tp.rt_wall[k] = on->rt_median_s / off->rt_median_s - 1;
		tp.th_wall[k] = on->thru_s / off->thru_s - 1;
		tp.rt_cpu[k] = on->rt_cpu_s / off->rt_cpu_s - 1;
		tp.th_cpu[k] = on->thru_cpu_s / off->thru_cpu_s - 1;
		tp.rt_tup[k] = on->rt_tuples;
		tp.th_tup[k] = on->thru_tuples;
		tp.rt_stamps[k] = on->rt_stamps;
		tp.th_stamps[k] = on->thru_stamps;
		tp.rt_ns_tup[k] = on->rt_tuples > 0 ? (on->rt_cpu_s -
		    off->rt_cpu_s) / on->rt_tuples : 0;
		tp.th_ns_tup[k] = on->thru_tuples > 0 ? (on->thru_cpu_s -
		    off->thru_cpu_s) / on->thru_tuples : 0;
		for (int s = 0; s <= 1; s++) {
			tp.rt_cpu_us[s][k] = res[s].rt_cpu_s * 1e6;
			tp.th_cpu_us[s][k] = res[s].thru_cpu_s * 1e6;
		}
	}
	if (saved_copy)
		setenv("GROVE_TRACE", saved_copy, 1);
	else
		unsetenv("GROVE_TRACE");
	free(saved_copy);
	if (rc < 0)
		return 1;

	int n = rounds;
	double rt_tup = median_of(tp.rt_tup, n), th_tup = median_of(tp.th_tup, n);
	double rt_rd = median_of(tp.rt_stamps, n);
	double th_rd = median_of(tp.th_stamps, n);
	/* What the counts predict at the fast path's cost: every tuple a
	 * record, every kept timestamp a clock read. */
	double rt_model = rt_tup * ns_store + rt_rd * ns_clock;
	double th_model = th_tup * ns_store + th_rd * ns_clock;
	double rt_off = median_of(tp.rt_cpu_us[0], n) * 1e3;
	double th_off = median_of(tp.th_cpu_us[0], n) * 1e3;
	if (json) {
		/* First the four keys the tracing targets are stated in. */
		printf("{\"ns_per_event\": %.2f, \"ns_disabled\": %.3f", ns_on,
		    ns_off);
		print_summary_json("overhead_roundtrip_pct", tp.rt_wall, n, 100);
		print_summary_json("overhead_throughput_pct", tp.th_wall, n, 100);
		printf(", \"topology\": ");
		tool_json_str(micro_tree(&c));
		printf(", \"backends\": %u, \"rounds\": %d, \"rt_iters\": %d"
		    ", \"thru_iters\": %d", c.backends, rounds, c.rt_iters,
		    c.thru_iters);
		print_summary_json("cpu_overhead_roundtrip_pct", tp.rt_cpu, n, 100);
		print_summary_json("cpu_overhead_throughput_pct", tp.th_cpu, n,
		    100);
		print_summary_json("cpu_ns_per_tuple_roundtrip", tp.rt_ns_tup, n,
		    1e9);
		print_summary_json("cpu_ns_per_tuple_throughput", tp.th_ns_tup, n,
		    1e9);
		printf(", \"tuples_per_roundtrip\": %.1f, \"tuples_per_wave\": "
		    "%.1f", rt_tup, th_tup);
		printf(", \"clock_reads_per_roundtrip\": %.1f"
		    ", \"clock_reads_per_wave\": %.1f, \"ns_per_record\": %.2f"
		    ", \"ns_per_clock_read\": %.2f", rt_rd, th_rd, ns_store,
		    ns_clock);
		printf(", \"model_overhead_roundtrip_pct\": %.2f"
		    ", \"model_overhead_throughput_pct\": %.2f",
		    rt_off > 0 ? rt_model / rt_off * 100 : 0,
		    th_off > 0 ? th_model / th_off * 100 : 0);
		printf(", \"cpu_us_per_roundtrip_off\": %.1f"
		    ", \"cpu_us_per_roundtrip_on\": %.1f"
		    ", \"cpu_us_per_wave_off\": %.2f, \"cpu_us_per_wave_on\": %.2f",
		    median_of(tp.rt_cpu_us[0], n), median_of(tp.rt_cpu_us[1], n),
		    median_of(tp.th_cpu_us[0], n), median_of(tp.th_cpu_us[1], n));
		printf(", \"roundtrip_off_s\": %.9f, \"roundtrip_on_s\": %.9f"
		    ", \"throughput_off_waves_per_s\": %.1f"
		    ", \"throughput_on_waves_per_s\": %.1f", rt_best[0],
		    rt_best[1], wps_best[0], wps_best[1]);
		tool_json_machine();
		printf("}\n");
	} else {
		printf("grove bench trace\n");
		printf("  record, tracing on    %8.2f ns/event\n", ns_on);
		printf("  record, tracing off   %8.3f ns/event\n", ns_off);
		printf("  its parts: record %.2f ns, clock read %.2f ns\n",
		    ns_store, ns_clock);
		printf("  micro-benchmark %s, %u back-ends, %d rounds of off/on "
		    "(best: round trip off %.3f ms, on %.3f ms; throughput "
		    "off %.0f, on %.0f waves/s)\n", micro_tree(&c), c.backends, rounds,
		    rt_best[0] * 1e3, rt_best[1] * 1e3, wps_best[0],
		    wps_best[1]);
		printf("  tracing on vs off, median of paired ratios:\n");
		print_summary_text("round trip, wall clock", tp.rt_wall, n, 100,
		    "%");
		print_summary_text("throughput, wall clock", tp.th_wall, n, 100,
		    "%");
		print_summary_text("round trip, CPU of all procs", tp.rt_cpu, n,
		    100, "%");
		print_summary_text("throughput, CPU of all procs", tp.th_cpu, n,
		    100, "%");
		print_summary_text("round trip, CPU ns per tuple", tp.rt_ns_tup, n,
		    1e9, "");
		print_summary_text("throughput, CPU ns per tuple", tp.th_ns_tup,
		    n, 1e9, "");
		printf("  per round trip: %.0f tuples, %.0f / %.0f us CPU (off / "
		    "on)\n", rt_tup, median_of(tp.rt_cpu_us[0], n),
		    median_of(tp.rt_cpu_us[1], n));
		printf("  per wave:       %.1f tuples, %.2f / %.2f us CPU (off / "
		    "on)\n", th_tup, median_of(tp.th_cpu_us[0], n),
		    median_of(tp.th_cpu_us[1], n));
		printf("  from the counts (tuples x record + clock reads x read):"
		    "\n    round trip  %.0f reads, %.2f us = %.2f%% of its CPU"
		    "\n    throughput  %.1f reads, %.2f us = %.2f%% of its CPU\n",
		    rt_rd, rt_model / 1e3, rt_off > 0 ? rt_model / rt_off * 100 :
		    0, th_rd, th_model / 1e3, th_off > 0 ? th_model / th_off *
		    100 : 0);
	}
	return 0;
}
#else
static int
bench_trace(int argc, char **argv)
{
	fprintf(stderr, "grove bench trace: not available in this build "
	    "(no tracing fast-path benchmark)\n");
	return 1;
}
#endif

/* Every benchmark: `grove bench NAME` runs fn(argc, argv) with argv[0]
 * "bench" and argv[1] NAME; the list in --help comes from here. */
static const struct {
	const char *name;
	int (*fn)(int, char **);
	const char *what;
} benches[] = {
	{"micro", bench_micro, "the MRNet paper's micro-benchmark: "
	    "instantiation, round trip,\n"
	    "                throughput"},
	{"trace", bench_trace, "the cost of tracing"},
	{"offered-load", bench_offered_load, "time-aligned aggregation "
	    "under an offered load"},
	{"startup", bench_startup, "a tool's start-up: ReportSelf, "
	    "equivalence classes, clock skew"},
	{"skew", bench_skew, "accuracy of clock-skew detection"},
	{"bcast", bench_bcast, "the P-LogP paper's broadcast experiment"},
	{"align", bench_align, "event spaces of several hosts on one "
	    "timeline"},
	{"floor", bench_floor, "the micro-benchmark's tree on bare "
	    "processes: this machine's floor"},
	{"bcs", bench_bcs, "the BCS core primitives: Compare-And-Write "
	    "and Xfer-And-Signal"},
	{"recovery", bench_recovery, "CPs killed under load: time to "
	    "re-parent, throughput before and\n"
	    "                after"},
};

static int
bench_usage(FILE *f)
{
	fprintf(f, "usage: grove bench BENCHMARK [OPTIONS]\n\n"
	    "Benchmarks are programs, not timed tests; each prints its "
	    "results (-j,\n--json: one JSON object) and describes its "
	    "options in\n'grove bench BENCHMARK --help'.\n\n");
	for (unsigned i = 0; i < sizeof benches / sizeof benches[0]; i++)
		fprintf(f, "  %-13s %s\n", benches[i].name, benches[i].what);
	fprintf(f, "\nExit status: 0 ok, 1 the benchmark failed (said on "
	    "standard error), 2\nusage error.\n");
	return f == stdout ? 0 : 2;
}

int
cmd_bench(int argc, char **argv)
{
	if (argc < 2) {
		bench_usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))
		return bench_usage(stdout);
	for (unsigned i = 0; i < sizeof benches / sizeof benches[0]; i++)
		if (!strcmp(argv[1], benches[i].name))
			return benches[i].fn(argc, argv);
	return tool_usage_error("grove bench", argv[1][0] == '-' ?
	    "unknown option" : "unknown benchmark", argv[1]);
}

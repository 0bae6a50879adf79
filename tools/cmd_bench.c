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
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_agents.h"
#include "bench_align.h"
#include "bench_bcast.h"
#include "bench_skew.h"
#include "grove/grove.h"
#include "toolutil.h"
#include "treecost.h"
#include "../examples/worker_protocol.h"

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
	unsigned backends;
	int rt_iters;
	int thru_iters;
	int create_timeout_ms;
	int measure_cost;   /* also count CPU time and trace tuples per phase */
} micro_cfg;

typedef struct micro_res {
	uint32_t nodes, cps, depth;
	double inst_s;
	double rt_mean_s, rt_min_s, rt_median_s, rt_max_s;
	double thru_s, thru_wps;
	double shutdown_s;
	/* with measure_cost: per round trip and per wave */
	double rt_cpu_s, rt_tuples, thru_cpu_s, thru_tuples;
	char err[768];
} micro_res;

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

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
		qsort(t, (size_t)c->rt_iters, sizeof *t, cmp_double);
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

/* One run of the micro-benchmark: create, round trips, throughput,
 * destroy. */
static int
micro_run(const micro_cfg *c, const tool_programs *pg, micro_res *r)
{
	grove_net_opts o;
	grove_net *net = NULL;

	memset(r, 0, sizeof *r);
	tool_net_opts(&o, pg, c->spec, c->backends);
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
	double cpu0 = 0;
	uint64_t tup0 = 0;
	if (c->measure_cost) {
		cpu0 = treecost_cpu_s();
		tup0 = treecost_tuples(grove_net_id(net));
	}
	rc = roundtrips(net, c, r);
	if (rc == 0 && c->measure_cost) {
		double cpu1 = treecost_cpu_s();
		uint64_t tup1 = treecost_tuples(grove_net_id(net));
		r->rt_cpu_s = (cpu1 - cpu0) / c->rt_iters;
		r->rt_tuples = (double)(tup1 - tup0) / c->rt_iters;
		cpu0 = cpu1;
		tup0 = tup1;
	}
	if (rc == 0)
		rc = throughput(net, c, r);
	if (rc == 0 && c->measure_cost) {
		r->thru_cpu_s = (treecost_cpu_s() - cpu0) / c->thru_iters;
		r->thru_tuples = (double)(treecost_tuples(grove_net_id(net)) -
		    tup0) / c->thru_iters;
	}
	t0 = tool_now();
	grove_net_destroy(net);
	r->shutdown_s = tool_now() - t0;
	return rc;
}

/* Prints s as a JSON string. */
static void
json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch == '"' || ch == '\\')
			printf("\\%c", ch);
		else if (ch < 0x20)
			printf("\\u%04x", ch);
		else
			putchar(ch);
	}
	putchar('"');
}

/* The CPU model, for the record of where numbers were measured. */
static void
cpu_model(char *buf, size_t len)
{
	snprintf(buf, len, "unknown");
	FILE *f = fopen("/proc/cpuinfo", "r");
	if (!f)
		return;
	char line[512];
	while (fgets(line, sizeof line, f)) {
		if (strncmp(line, "model name", 10))
			continue;
		char *colon = strchr(line, ':');
		if (!colon)
			break;
		colon++;
		while (*colon == ' ' || *colon == '\t')
			colon++;
		colon[strcspn(colon, "\n")] = '\0';
		snprintf(buf, len, "%s", colon);
		break;
	}
	fclose(f);
}

static void
json_machine(void)
{
	char cpu[256];
	cpu_model(cpu, sizeof cpu);
	printf(", \"cpu\": ");
	json_str(cpu);
	printf(", \"cpus\": %ld", sysconf(_SC_NPROCESSORS_ONLN));
	const char *commit = getenv("GROVE_COMMIT");
	if (commit && *commit) {
		printf(", \"commit\": ");
		json_str(commit);
	}
}

static void
micro_print_json(const micro_cfg *c, const micro_res *r)
{
	printf("{\"topology\": ");
	json_str(c->spec);
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
	json_machine();
	printf("}\n");
}

static void
micro_print_text(const micro_cfg *c, const micro_res *r)
{
	printf("grove bench micro: topology %s, %u back-ends (%" PRIu32
	    " communication processes, depth %" PRIu32 ")\n", c->spec,
	    c->backends, r->cps, r->depth);
	printf("  instantiation   %10.2f ms\n", r->inst_s * 1e3);
	printf("  round trip      %10.3f ms   mean of %d (min %.3f, median "
	    "%.3f, max %.3f)\n", r->rt_mean_s * 1e3, c->rt_iters,
	    r->rt_min_s * 1e3, r->rt_median_s * 1e3, r->rt_max_s * 1e3);
	printf("  throughput      %10.0f waves/s   (%d waves in %.3f s)\n",
	    r->thru_wps, c->thru_iters, r->thru_s);
	printf("  shutdown        %10.2f ms\n", r->shutdown_s * 1e3);
}

static int
bench_usage(FILE *f)
{
	fprintf(f,
	    "usage: grove bench micro [--topology SPEC] [--backends N]\n"
	    "                         [--rt-iters R] [--thru-iters T] "
	    "[--json]\n"
	    "       grove bench trace [--topology SPEC] [--backends N] "
	    "[--rounds K] [--json]\n"
	    "       grove bench offered-load [--backends D] [--metrics M] "
	    "[--rate R] ...\n"
	    "       grove bench startup [--backends D] [--topology SPEC] ...\n"
	    "       grove bench skew  [--topology SPEC] [--backends N] "
	    "[--rounds R]\n"
	    "                         [--inject-step NS] [--repeat K] [--json]\n"
	    "       grove bench bcast [--clusters C] [--per-cluster P] "
	    "[--sizes LIST] ... (--help)\n"
	    "       grove bench align [--topology SPEC] [--backends N] "
	    "[--inject-step NS] ...\n"
	    "\n"
	    "micro: instantiation latency (spawn mode, be_worker), round "
	    "trip of a\n"
	    "  broadcast int followed by a sum reduction (mean of R, default "
	    "200, after\n"
	    "  %d warm-ups), and reduction throughput (every back-end sends "
	    "T packets,\n"
	    "  default 1000; reduced waves per second).  Defaults: kary:8, "
	    "64 back-ends.\n"
	    "trace: cost of one trace record (on and off) and the "
	    "micro-benchmark\n"
	    "  with tracing on and off, alternating K rounds (default 7).\n"
	    "offered-load: the fraction of an offered sample load that "
	    "time-aligned\n"
	    "  aggregation delivers to the front-end (see its --help).\n"
	    "startup: a tool's start-up activities: ReportSelf, equivalence "
	    "classes,\n  clock skew (see its --help).\n"
	    "skew: error of grove_net_clock_skew against the true offsets "
	    "(see\n"
	    "  grove bench skew --help).\n"
	    "align: accuracy of the event spaces of several hosts on the "
	    "front-end's\n  timeline (see grove bench align --help).\n"
	    "\n"
	    "$GROVE_COMMIT, when set, is copied into the JSON output.\n",
	    BENCH_WARMUP);
	return f == stdout ? 0 : 2;
}

/* Parses the options shared by both benchmarks.  Returns 0, or the exit
 * status for a usage error / --help. */
static int
parse_opts(int argc, char **argv, micro_cfg *c, int *json, int *rounds)
{
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		long x;
		if (!strcmp(a, "--json")) {
			*json = 1;
			continue;
		}
		if (!strcmp(a, "-h") || !strcmp(a, "--help"))
			return bench_usage(stdout) + 100;
		if (!v) {
			fprintf(stderr, "grove bench: '%s' needs a value "
			    "or is unknown\n", a);
			return 2;
		}
		i++;
		if (!strcmp(a, "--topology")) {
			c->spec = v;
			continue;
		}
		if (!strcmp(a, "--backends"))
			x = tool_parse_count(v, 65536);
		else if (!strcmp(a, "--rt-iters") ||
		    !strcmp(a, "--thru-iters") || !strcmp(a, "--rounds"))
			x = tool_parse_count(v, 100000000);
		else if (!strcmp(a, "--timeout-ms"))
			x = tool_parse_count(v, 3600000);
		else {
			fprintf(stderr, "grove bench: unknown option '%s'\n",
			    a);
			return 2;
		}
		if (x < 0) {
			fprintf(stderr, "grove bench: %s wants a positive "
			    "number, not '%s'\n", a, v);
			return 2;
		}
		if (!strcmp(a, "--backends"))
			c->backends = (unsigned)x;
		else if (!strcmp(a, "--rt-iters"))
			c->rt_iters = (int)x;
		else if (!strcmp(a, "--thru-iters"))
			c->thru_iters = (int)x;
		else if (!strcmp(a, "--rounds") && rounds)
			*rounds = (int)x;
		else if (!strcmp(a, "--timeout-ms"))
			c->create_timeout_ms = (int)x;
		else {
			fprintf(stderr, "grove bench: unknown option '%s'\n",
			    a);
			return 2;
		}
	}
	return 0;
}

static int
bench_micro(int argc, char **argv)
{
	micro_cfg c = {.spec = "kary:8", .backends = 64, .rt_iters = 200,
	    .thru_iters = 1000};
	int json = 0;
	int rc = parse_opts(argc, argv, &c, &json, NULL);
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
		    c.spec, c.backends, r.err);
		return 1;
	}
	if (json)
		micro_print_json(&c, &r);
	else
		micro_print_text(&c, &r);
	return 0;
}

#ifdef BENCH_HAVE_TRACE
static int
bench_trace(int argc, char **argv)
{
	/* Longer runs than the micro-benchmark's defaults: the effect to see
	 * is about 1%, a 1000-wave burst lasts 50 ms. */
	micro_cfg c = {.spec = "kary:8", .backends = 64, .rt_iters = 1000,
	    .thru_iters = 5000};
	int json = 0, rounds = 7;
	int rc = parse_opts(argc, argv, &c, &json, &rounds);
	if (rc)
		return rc >= 100 ? rc - 100 : rc;
	if (rounds < 1 || rounds > 100) {
		fprintf(stderr, "grove bench trace: --rounds must be 1..100\n");
		return 2;
	}

	double ns_on = 0, ns_off = 0;
	rc = trace_bench_fastpath(&ns_on, &ns_off);
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

	/* Alternate off/on so that drift of the machine (other load, CPU
	 * frequency) hits both sides alike.  Each round gives one paired
	 * ratio per metric (the median round trip, and throughput); the
	 * overhead is the median of those ratios, and their spread says how
	 * much of it is noise. */
	double rt[2] = {0, 0}, wps[2] = {0, 0};
	double rt_ratio[100], th_ratio[100], last_rt = 0, last_wps = 0;
	/* Also the CPU time all processes spend per round trip (per wave),
	 * on vs off: wall-clock time on a shared machine swings by more than
	 * the effect, CPU time much less. */
	double rt_share[100], th_share[100], rt_tup = 0, th_tup = 0;
	double rt_cpu = 0, th_cpu = 0, last_rt_cpu = 0, last_th_cpu = 0;
	c.measure_cost = 1;
	const char *saved = getenv("GROVE_TRACE");
	char *saved_copy = saved ? strdup(saved) : NULL;
	for (int k = 0; k < rounds && rc == 0; k++) {
		for (int on = 0; on <= 1 && rc == 0; on++) {
			micro_res r;
			/* Every process of the run, the front-end included,
			 * reads GROVE_TRACE when it opens its event space
			 * (the front-end in grove_net_create). */
			setenv("GROVE_TRACE", on ? "1" : "0", 1);
			rc = micro_run(&c, &pg, &r);
			if (rc < 0) {
				fprintf(stderr, "grove bench trace (tracing "
				    "%s): %s\n", on ? "on" : "off", r.err);
				break;
			}
			if (!json)
				fprintf(stderr, "  round %d, tracing %-3s: "
				    "round trip %.3f ms, %.0f waves/s\n",
				    k + 1, on ? "on" : "off",
				    r.rt_mean_s * 1e3, r.thru_wps);
			if (rt[on] == 0 || r.rt_median_s < rt[on])
				rt[on] = r.rt_median_s;
			if (r.thru_wps > wps[on])
				wps[on] = r.thru_wps;
			if (!on) {
				last_rt = r.rt_median_s;
				last_wps = r.thru_wps;
				last_rt_cpu = r.rt_cpu_s;
				last_th_cpu = r.thru_cpu_s;
			} else {
				rt_ratio[k] = r.rt_median_s / last_rt - 1;
				th_ratio[k] = r.thru_wps > 0 ? last_wps / r.thru_wps - 1 : 0;
				rt_share[k] = last_rt_cpu > 0 ? r.rt_cpu_s /
				    last_rt_cpu - 1 : 0;
				th_share[k] = last_th_cpu > 0 ? r.thru_cpu_s /
				    last_th_cpu - 1 : 0;
				rt_tup = r.rt_tuples;
				th_tup = r.thru_tuples;
				rt_cpu = r.rt_cpu_s;
				th_cpu = r.thru_cpu_s;
			}
		}
	}
	if (saved_copy)
		setenv("GROVE_TRACE", saved_copy, 1);
	else
		unsetenv("GROVE_TRACE");
	free(saved_copy);
	if (rc < 0)
		return 1;

	qsort(rt_ratio, (size_t)rounds, sizeof *rt_ratio, cmp_double);
	qsort(th_ratio, (size_t)rounds, sizeof *th_ratio, cmp_double);
	double ov_rt = rt_ratio[rounds / 2] * 100, ov_th = th_ratio[rounds / 2] * 100;
	double rt_lo = rt_ratio[0] * 100, rt_hi = rt_ratio[rounds - 1] * 100;
	double th_lo = th_ratio[0] * 100, th_hi = th_ratio[rounds - 1] * 100;
	qsort(rt_share, (size_t)rounds, sizeof *rt_share, cmp_double);
	qsort(th_share, (size_t)rounds, sizeof *th_share, cmp_double);
	double cost_rt = rt_share[rounds / 2] * 100;
	double cost_th = th_share[rounds / 2] * 100;
	if (json) {
		printf("{\"ns_per_event\": %.2f, \"ns_disabled\": %.3f"
		    ", \"overhead_roundtrip_pct\": %.2f"
		    ", \"overhead_throughput_pct\": %.2f", ns_on, ns_off,
		    ov_rt, ov_th);
		printf(", \"topology\": ");
		json_str(c.spec);
		printf(", \"cpu_overhead_roundtrip_pct\": %.2f"
		    ", \"cpu_overhead_throughput_pct\": %.2f"
		    ", \"tuples_per_roundtrip\": %.1f, \"tuples_per_wave\": %.1f"
		    ", \"cpu_us_per_roundtrip\": %.1f, \"cpu_us_per_wave\": %.2f",
		    cost_rt, cost_th, rt_tup, th_tup, rt_cpu * 1e6, th_cpu * 1e6);
		printf(", \"overhead_roundtrip_pct_range\": [%.2f, %.2f]"
		    ", \"overhead_throughput_pct_range\": [%.2f, %.2f]", rt_lo,
		    rt_hi, th_lo, th_hi);
		printf(", \"backends\": %u, \"rounds\": %d"
		    ", \"roundtrip_off_s\": %.9f, \"roundtrip_on_s\": %.9f"
		    ", \"throughput_off_waves_per_s\": %.1f"
		    ", \"throughput_on_waves_per_s\": %.1f", c.backends,
		    rounds, rt[0], rt[1], wps[0], wps[1]);
		json_machine();
		printf("}\n");
	} else {
		printf("grove bench trace\n");
		printf("  record, tracing on    %8.2f ns/event\n", ns_on);
		printf("  record, tracing off   %8.3f ns/event\n", ns_off);
		printf("  micro-benchmark %s, %u back-ends, %d alternations "
		    "(best of each side; overhead = median of paired ratios, "
		    "[min, max]):\n", c.spec, c.backends, rounds);
		printf("    round trip  off %.3f ms  on %.3f ms  overhead "
		    "%+.2f%% [%+.2f, %+.2f]\n", rt[0] * 1e3, rt[1] * 1e3, ov_rt,
		    rt_lo, rt_hi);
		printf("    throughput  off %.0f  on %.0f waves/s  overhead "
		    "%+.2f%% [%+.2f, %+.2f]\n", wps[0], wps[1], ov_th, th_lo,
		    th_hi);
		printf("  CPU time of all processes, tracing on vs off (median of "
		    "paired ratios):\n");
		printf("    round trip  %.0f us CPU, %.0f tuples  -> %+.2f%%\n",
		    rt_cpu * 1e6, rt_tup, cost_rt);
		printf("    throughput  %.1f us CPU, %.1f tuples per wave -> "
		    "%+.2f%%\n", th_cpu * 1e6, th_tup, cost_th);
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

int
cmd_bench(int argc, char **argv)
{
	if (argc < 2) {
		bench_usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))
		return bench_usage(stdout);
	if (!strcmp(argv[1], "micro"))
		return bench_micro(argc, argv);
	if (!strcmp(argv[1], "trace"))
		return bench_trace(argc, argv);
	if (!strcmp(argv[1], "offered-load"))
		return bench_offered_load(argc, argv);
	if (!strcmp(argv[1], "startup"))
		return bench_startup(argc, argv);
	if (!strcmp(argv[1], "skew"))
		return bench_skew(argc, argv);
	if (!strcmp(argv[1], "bcast"))
		return bench_bcast(argc, argv);
	if (!strcmp(argv[1], "align"))
		return bench_align(argc, argv);
	fprintf(stderr, "grove bench: unknown benchmark '%s'\n", argv[1]);
	return bench_usage(stderr);
}

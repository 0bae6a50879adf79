/* grove bench align: how well the event spaces of several hosts line up
 * on the front-end's timeline, on this machine.
 *
 * Every process ships its event space as if it were on another host
 * (GROVE_TRACE_SHIP=all), and back-end rank r's realtime clock is shifted
 * by r * STEP (GROVE_CLOCK_INJECT_NS).  All processes share this machine's
 * clock, so the true shift of every process onto the front-end's clock
 * is 0: |shift| is the real error of the alignment, to compare with the
 * bound it reports.  Also counts the message arrows that go backwards
 * beyond the bounds of their ends (must be 0), and, for contrast, those
 * that do on the uncorrected realtime timeline.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_align.h"
#include "../bench_stats.h"
#include "../cli_opts.h"
#include "grove/grove.h"
#include "../toolutil.h"
#include "trace/align.h"
#include "trace/trace_impl.h"
#include "proto/worker_protocol.h"

#define ALIGN_WAVES 3 /* reductions traced before the collections */
/* The most back-ends it starts, by --backends or a levels: spec. */
#define ALIGN_MAX_BACKENDS 4096

typedef struct align_cfg {
	const char *spec;
	const char *file;   /* --file: an MRNet topology file, else NULL */
	unsigned backends;
	unsigned repeat;
	int64_t step;
	int json;
} align_cfg;

#define ALIGN_CMD "grove bench align"

static int
usage(FILE *f)
{
	fprintf(f,
	    "usage: grove bench align [-t SPEC | -f FILE] [-b N] "
	    "[--inject-step NS]\n"
	    "                         [--repeat K] [-j]\n"
	    "\n"
	    "Starts one network of be_worker back-ends (default kary:8, 64 "
	    "back-ends)\n"
	    "whose processes all ship their event spaces as if on other "
	    "hosts, with\n"
	    "back-end rank r's clock shifted by r * NS (default 1000000).  "
	    "Runs %d\n"
	    "reductions, then grove_net_trace_collect K times (default 5; "
	    "each measures\n"
	    "the clock offsets first) and grove_net_clock_skew alone K times, "
	    "and puts\n"
	    "the last copies on the front-end's timeline.  The true shift of "
	    "every\n"
	    "process is 0 here: prints the distribution of |shift| and of the "
	    "reported\n"
	    "bounds, the shifts beyond their bound and the message arrows "
	    "going\n"
	    "backwards beyond the bounds of their ends (both must be 0; the "
	    "exit status\n"
	    "says), and the arrows going backwards on the uncorrected realtime "
	    "timeline.\n"
	    "\n"
	    CLI_HELP_TREE
	    "                       (1..%d)\n"
	    "      --inject-step NS back-end rank r's clock is r * NS off\n"
	    "      --repeat K       collections and skew calls to time "
	    "(1..1000)\n"
	    "  -j, --json           one JSON object\n"
	    "  -h, --help           show this help\n"
	    "\n"
	    "Exit status: 0 ok, 1 the network failed or a shift or arrow went "
	    "beyond its\nbounds (said on standard error or in the output), "
	    "2 usage error.\n", ALIGN_WAVES, ALIGN_MAX_BACKENDS);
	return f == stdout ? 0 : 2;
}

enum { OPT_REPEAT = 256, OPT_INJECT_STEP };

/* -1 to go on; else the exit status (0 after --help). */
static int
parse(int argc, char **argv, align_cfg *c)
{
	static const struct option opts[] = {
		CLI_OPT_TOPOLOGY, CLI_OPT_FILE, CLI_OPT_BACKENDS, CLI_OPT_JSON,
		CLI_OPT_HELP,
		{"repeat", required_argument, NULL, OPT_REPEAT},
		{"inject-step", required_argument, NULL, OPT_INJECT_STEP},
		{NULL, 0, NULL, 0},
	};
	cli_tree t = {.spec = c->spec, .backends = c->backends};
	int ch, rc;

	optind = 1;
	opterr = 0;
	/* argv + 1: argv[1] is the benchmark's name. */
	while ((ch = getopt_long(argc - 1, argv + 1, ":t:f:b:jh", opts,
	    NULL)) != -1) {
		if (cli_tree_opt(ALIGN_CMD, ch, optarg, ALIGN_MAX_BACKENDS, &t,
		    &rc)) {
			if (rc)
				return rc;
			continue;
		}
		switch (ch) {
		case 'j':
			c->json = 1;
			break;
		case 'h':
			return usage(stdout);
		case OPT_INJECT_STEP:
			if (tool_parse_inject_step(ALIGN_CMD, optarg, &c->step))
				return 2;
			break;
		case OPT_REPEAT: {
			long x = tool_parse_count(optarg, 1000);
			if (x < 0)
				return tool_count_error(ALIGN_CMD, "--repeat",
				    optarg, 1000);
			c->repeat = (unsigned)x;
			break;
		}
		default:
			return cli_opt_error(ALIGN_CMD, ch, argv + 1);
		}
	}
	if (optind < argc - 1)
		return tool_usage_error(ALIGN_CMD, "unexpected argument",
		    argv[optind + 1]);
	rc = cli_tree_resolve(ALIGN_CMD, &t, ALIGN_MAX_BACKENDS);
	c->spec = t.spec;
	c->file = t.file;
	c->backends = t.backends;
	return rc ? rc : -1;
}

/* What one timeline looks like. */
typedef struct align_result {
	size_t procs, violations, unaligned;
	size_t arrows, backwards;
	double min_latency_ns;   /* raw: may be negative */
	double *shift, *bound;   /* per process but the FE, ns */
	size_t n;
} align_result;

static int
measure(const char *netid, enum trace_timeline tl, align_result *r)
{
	struct trace_set set;
	char name[16];
	snprintf(name, sizeof name, "%s", trace_timeline_name(tl));
	setenv("GROVE_TRACE_TIMELINE", name, 1);
	int rc = trace_set_collect(netid, &set);
	unsetenv("GROVE_TRACE_TIMELINE");
	if (rc)
		return rc;
	memset(r, 0, sizeof *r);
	r->procs = set.n;
	r->unaligned = set.unaligned;
	r->shift = calloc(set.n ? set.n : 1, sizeof *r->shift);
	r->bound = calloc(set.n ? set.n : 1, sizeof *r->bound);
	struct trace_msg *m = NULL;
	size_t nm = 0;
	if (!r->shift || !r->bound ||
	    (rc = trace_match_messages(&set, &m, &nm)) != 0) {
		trace_set_free(&set);
		return rc ? rc : GROVE_ENOMEM;
	}
	for (size_t i = 0; i < set.n; i++) {
		const struct trace_proc *p = &set.p[i];
		if (p->align == TRACE_PROC_REFERENCE)
			continue;
		int64_t s = p->align_shift_ns;
		uint64_t a = s < 0 ? -(uint64_t)s : (uint64_t)s;
		r->violations += tl == TRACE_TIMELINE_FRONTEND &&
		    a > p->align_err_ns;
		r->shift[r->n] = (double)a;
		r->bound[r->n] = (double)p->align_err_ns;
		r->n++;
	}
	r->arrows = nm;
	r->min_latency_ns = nm ? 1e300 : 0;
	for (size_t i = 0; i < nm; i++) {
		const struct trace_proc *ps = &set.p[m[i].send.proc];
		const struct trace_proc *pr = &set.p[m[i].recv.proc];
		int64_t s = (int64_t)trace_proc_ns(ps,
		    trace_ref_tuple(&set, m[i].send)->t_start);
		int64_t f = (int64_t)trace_proc_ns(pr,
		    trace_ref_tuple(&set, m[i].recv)->t_end);
		double lat = (double)(f - s);
		double slack = (double)ps->align_err_ns + (double)pr->align_err_ns;
		r->backwards += lat < -slack;
		if (lat < r->min_latency_ns)
			r->min_latency_ns = lat;
	}
	free(m);
	trace_set_free(&set);
	return 0;
}

static void
result_free(align_result *r)
{
	free(r->shift);
	free(r->bound);
}

/* Runs the reductions and the timed calls; the copies stay in /dev/shm
 * until the network is destroyed. */
static int
run(grove_net *net, const align_cfg *c, double *collect_s, double *skew_s)
{
	grove_stream_opts so;
	grove_stream *s = NULL;
	grove_stream_opts_init(&so);
	so.up_filter = "sum";
	int rc = grove_stream_create(net, grove_net_comm_all(net), &so, &s);
	for (int w = 0; rc == 0 && w < ALIGN_WAVES; w++) {
		grove_packet *p = NULL;
		int32_t tag = 0;
		rc = grove_stream_send(s, WORKER_RANK, "");
		if (rc == 0)
			rc = grove_stream_recv(s, &tag, &p, 60000);
		grove_packet_unref(p);
	}
	uint32_t nb = grove_net_backends(net);
	grove_skew *sk = calloc(nb ? nb : 1, sizeof *sk);
	if (!sk)
		return GROVE_ENOMEM;
	for (unsigned i = 0; rc >= 0 && i < c->repeat; i++) {
		double t0 = tool_now();
		rc = grove_net_clock_skew(net, 0, sk, 60000);
		skew_s[i] = tool_now() - t0;
	}
	/* The last collection's copies are the ones measured. */
	for (unsigned i = 0; rc >= 0 && i < c->repeat; i++) {
		double t0 = tool_now();
		rc = grove_net_trace_collect(net, 60000);
		collect_s[i] = tool_now() - t0;
	}
	free(sk);
	if (rc < 0)
		fprintf(stderr, "grove bench align: %s: %s\n", grove_strerror(rc),
		    grove_net_last_error(net));
	return rc < 0 ? rc : 0;
}

static void
print(const align_cfg *c, const align_result *fe, const align_result *rt,
    double *collect_s, double *skew_s)
{
	const char *tree = c->file ? c->file : c->spec;
	bench_dist ds = bench_dist_of(fe->shift, fe->n), db = bench_dist_of(fe->bound, fe->n);
	bench_dist dc = bench_dist_of(collect_s, c->repeat), dk = bench_dist_of(skew_s, c->repeat);
	if (c->json) {
		printf("{\"topology\": \"%s\", \"backends\": %u, \"processes\": %zu"
		    ", \"repeat\": %u, \"inject_step_ns\": %" PRId64
		    ", \"shift_ns\": {\"min\": %.0f, \"median\": %.0f, \"p90\": %.0f"
		    ", \"max\": %.0f}, \"bound_ns\": {\"min\": %.0f, \"median\": "
		    "%.0f, \"p90\": %.0f, \"max\": %.0f}, \"violations\": %zu, "
		    "\"unaligned\": %zu, \"arrows\": %zu, \"backwards\": %zu, "
		    "\"min_latency_ns\": %.0f, \"realtime_backwards\": %zu, "
		    "\"realtime_min_latency_ns\": %.0f, \"collect_s\": {\"median\":"
		    " %.6f, \"max\": %.6f}, \"skew_s\": {\"median\": %.6f, \"max\":"
		    " %.6f}}\n", tree, c->backends, fe->procs, c->repeat,
		    c->step, ds.min, ds.median, ds.p90, ds.max, db.min, db.median,
		    db.p90, db.max, fe->violations, fe->unaligned, fe->arrows,
		    fe->backwards, fe->min_latency_ns, rt->backwards,
		    rt->min_latency_ns, dc.median, dc.max, dk.median, dk.max);
		return;
	}
	printf("grove bench align: %s, %u back-ends (%zu processes), "
	    "injected rank * %" PRId64 " ns, %u runs\n", tree, c->backends,
	    fe->procs, c->step, c->repeat);
	printf("                        min    median       p90       max   "
	    "(us)\n");
	printf("  |shift| (true 0)  %8.1f  %8.1f  %8.1f  %8.1f\n",
	    ds.min / 1e3, ds.median / 1e3, ds.p90 / 1e3, ds.max / 1e3);
	printf("  reported bound    %8.1f  %8.1f  %8.1f  %8.1f\n",
	    db.min / 1e3, db.median / 1e3, db.p90 / 1e3, db.max / 1e3);
	printf("  shifts beyond their bound %zu of %zu; not aligned %zu\n",
	    fe->violations, fe->n, fe->unaligned);
	printf("  arrows backwards beyond the bounds %zu of %zu (smallest "
	    "latency %.1f us)\n", fe->backwards, fe->arrows,
	    fe->min_latency_ns / 1e3);
	printf("  uncorrected realtime: %zu of %zu backwards (down to %.1f "
	    "us)\n", rt->backwards, rt->arrows, rt->min_latency_ns / 1e3);
	printf("  grove_net_trace_collect %.2f ms median, %.2f ms max; "
	    "grove_net_clock_skew alone %.2f ms median\n", dc.median * 1e3,
	    dc.max * 1e3, dk.median * 1e3);
}

int
bench_align(int argc, char **argv)
{
	align_cfg c = {.spec = "kary:8", .backends = 64, .repeat = 5,
	    .step = 1000000};
	int rc = parse(argc, argv, &c);
	if (rc >= 0)
		return rc;
	tool_programs pg;
	char err[512];
	if (tool_find_programs(&pg, err, sizeof err) < 0) {
		fprintf(stderr, "grove bench align: %s\n", err);
		return 1;
	}
	tool_raise_nofile();
	/* The front-end reads GROVE_TRACE_SHIP at each collection. */
	setenv("GROVE_TRACE_SHIP", "all", 1);
	grove_net *net = NULL;
	rc = tool_net_create_injected("grove bench align", &pg, c.spec, c.file,
	    c.backends, c.step, &net);
	double *collect_s = calloc(c.repeat, sizeof *collect_s);
	double *skew_s = calloc(c.repeat, sizeof *skew_s);
	align_result fe = {0}, rt = {0};
	if (rc < 0) {
		/* tool_net_create_injected said why */
	} else if (!collect_s || !skew_s) {
		rc = GROVE_ENOMEM;
	} else if ((rc = run(net, &c, collect_s, skew_s)) == 0 &&
	    (rc = measure(grove_net_id(net), TRACE_TIMELINE_FRONTEND, &fe)) == 0 &&
	    (rc = measure(grove_net_id(net), TRACE_TIMELINE_REALTIME, &rt)) == 0) {
		print(&c, &fe, &rt, collect_s, skew_s);
	} else if (rc) {
		fprintf(stderr, "grove bench align: %s\n", grove_strerror(rc));
	}
	unsetenv("GROVE_TRACE_SHIP");
	grove_net_destroy(net);
	int bad = rc != 0 || fe.violations || fe.backwards || fe.unaligned;
	result_free(&fe);
	result_free(&rt);
	free(collect_s);
	free(skew_s);
	return bad ? 1 : 0;
}

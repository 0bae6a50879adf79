/* grove bench offered-load: the MRNet paper's Figure 9 experiment.
 *
 * D agents each produce M metrics at R samples per second per metric (one
 * stream per metric, one packet per sample), aggregated by the
 * "timealign" filter.  Every sample carries the value 1.0, so the sum in an
 * aggregated interval is the number of samples it represents: the
 * front-end's processed load is the sum of what it receives per second in
 * steady state, set against the offered load R·D·M.  A flat tree makes the
 * front-end do all the work; a deeper tree spreads it over the CPs.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../agent/agent_proto.h"
#include "../agent_net.h"
#include "../cli_opts.h"
#include "bench_agents.h"
#include "grove/grove.h"
#include "../top/top_view.h"
#include "../toolutil.h"

typedef struct offered_cfg {
	const char *topology;
	const char *file;   /* --file: an MRNet topology file, else NULL */
	unsigned backends, metrics;
	double rate, seconds, warmup;
	int json;
} offered_cfg;

typedef struct offered_res {
	double offered, processed;
	double inst_s;
	uint64_t intervals;     /* aggregated intervals received */
	double lag_s;           /* mean age of an interval when it arrived */
	double fe_cpu;          /* front-end CPU seconds per second */
	uint32_t max_count;     /* most agents in one interval */
} offered_res;

#define OFFERED_CMD "grove bench offered-load"

static int
offered_usage(FILE *f)
{
	fprintf(f,
	    "usage: grove bench offered-load [-t SPEC | -f FILE] [-b D] "
	    "[--metrics M]\n"
	    "         [--rate R] [--seconds S] [--warmup W] [-j]\n"
	    "\n"
	    "D agents (default 64) each send M metrics (default 8) at R "
	    "samples/s per\nmetric (default 5) through time-aligned "
	    "aggregation; after W seconds\n(default 2) counts, for S seconds "
	    "(default 5), the samples the front-end\nreceives aggregated, and "
	    "prints the fraction of the offered load R*D*M.\nTopology default "
	    "kary:8 (\"flat\": the front-end does all the work).\n"
	    "\n"
	    CLI_HELP_TREE
	    "                       (1..65536)\n"
	    "      --metrics M      metrics per agent (1..%d)\n"
	    "      --rate R         samples/s per metric (0.001..1000)\n"
	    "      --seconds S      seconds counted (0.1..86400)\n"
	    "      --warmup W       seconds before counting (0..3600)\n"
	    "  -j, --json           one JSON object ($GROVE_COMMIT, when set, "
	    "is copied in)\n"
	    "  -h, --help           show this help\n"
	    "\n"
	    "Exit status: 0 ok, 1 the network failed (said on standard "
	    "error), 2 usage\nerror.\n", AGENT_MAX_STREAMS);
	return f == stdout ? 0 : 2;
}

/* A number in [lo, hi] into *out; 0, or 2 after the usage error. */
static int
parse_num(const char *opt, const char *v, double lo, double hi, double *out)
{
	char *end;
	double x = strtod(v, &end);
	if (end == v || *end || !(x >= lo && x <= hi)) {
		char msg[128];
		snprintf(msg, sizeof msg, "%s wants a number in [%g, %g], not "
		    "'%.40s'", opt, lo, hi, v);
		return tool_usage_error(OFFERED_CMD, msg, NULL);
	}
	*out = x;
	return 0;
}

enum { OPT_METRICS = 256, OPT_RATE, OPT_SECONDS, OPT_WARMUP };

/* -1 to go on; else the exit status (0 after --help). */
static int
parse(int argc, char **argv, offered_cfg *c)
{
	static const struct option opts[] = {
		CLI_OPT_TOPOLOGY, CLI_OPT_FILE, CLI_OPT_BACKENDS, CLI_OPT_JSON,
		CLI_OPT_HELP,
		{"metrics", required_argument, NULL, OPT_METRICS},
		{"rate", required_argument, NULL, OPT_RATE},
		{"seconds", required_argument, NULL, OPT_SECONDS},
		{"warmup", required_argument, NULL, OPT_WARMUP},
		{NULL, 0, NULL, 0},
	};
	cli_tree t = {.spec = c->topology, .backends = c->backends};
	int ch, rc;

	optind = 1;
	opterr = 0;
	/* argv + 1: argv[1] is the benchmark's name. */
	while ((ch = getopt_long(argc - 1, argv + 1, ":t:f:b:jh", opts,
	    NULL)) != -1) {
		if (cli_tree_opt(OFFERED_CMD, ch, optarg, 65536, &t, &rc)) {
			if (rc)
				return rc;
			continue;
		}
		switch (ch) {
		case 'j':
			c->json = 1;
			break;
		case 'h':
			return offered_usage(stdout);
		case OPT_METRICS: {
			/* A whole count ("1.5" is refused, not cut to 1). */
			long n = tool_parse_count(optarg, AGENT_MAX_STREAMS);
			if (n < 0)
				return tool_count_error(OFFERED_CMD, "--metrics",
				    optarg, AGENT_MAX_STREAMS);
			c->metrics = (unsigned)n;
			break;
		}
		case OPT_RATE:
			rc = parse_num("--rate", optarg, 0.001, 1000, &c->rate);
			if (rc)
				return rc;
			break;
		case OPT_SECONDS:
			rc = parse_num("--seconds", optarg, 0.1, 86400,
			    &c->seconds);
			if (rc)
				return rc;
			break;
		case OPT_WARMUP:
			rc = parse_num("--warmup", optarg, 0, 3600, &c->warmup);
			if (rc)
				return rc;
			break;
		default:
			return cli_opt_error(OFFERED_CMD, ch, argv + 1);
		}
	}
	if (optind < argc - 1)
		return tool_usage_error(OFFERED_CMD, "unexpected argument",
		    argv[optind + 1]);
	rc = cli_tree_resolve(OFFERED_CMD, &t, 65536);
	c->topology = t.spec;
	c->file = t.file;
	c->backends = t.backends;
	return rc ? rc : -1;
}

static uint64_t
wall_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int
run(const offered_cfg *c, offered_res *r, char *err, size_t errlen)
{
	grove_net *net = NULL;
	grove_stream *ctl = NULL;
	grove_stream **ms = calloc(c->metrics, sizeof *ms);
	uint32_t *ids = calloc(c->metrics, sizeof *ids);
	int rc = ms && ids ? 0 : GROVE_ENOMEM;
	uint64_t interval_ns = (uint64_t)(1e9 / c->rate);

	memset(r, 0, sizeof *r);
	double t0 = tool_now();
	if (rc == 0)
		rc = agent_net_start(c->topology, c->file, c->backends, NULL,
		    &net, err, errlen);
	r->inst_s = tool_now() - t0;
	if (rc == 0)
		rc = agent_net_stream(net, "null", "dont_wait", &ctl, err,
		    errlen);
	for (unsigned i = 0; rc == 0 && i < c->metrics; i++) {
		rc = agent_net_stream(net, "timealign", "dont_wait", &ms[i],
		    err, errlen);
		if (rc == 0)
			rc = grove_stream_set_params(ms[i], GROVE_FILTER_UP,
			    "%uld %ud", interval_ns, 4u);
		if (rc == 0)
			ids[i] = grove_stream_id(ms[i]);
	}
	if (rc == 0)
		rc = grove_stream_send(ctl, AGENT_TAG_START, AGENT_START_FMT,
		    (int32_t)AGENT_MODE_LOAD, interval_ns, 1u, ids,
		    (uint64_t)c->metrics);
	if (rc < 0 && net && !err[0])
		snprintf(err, errlen, "%s", grove_net_last_error(net));

	/* Per stream: arrivals are periodic in steady state, so the rate is
	 * what arrived after the first counted interval over the time from
	 * the first to the last one; a fixed window instead would be off by
	 * up to one interval per stream. */
	double *first = calloc(c->metrics, sizeof *first);
	double *last = calloc(c->metrics, sizeof *last);
	double *after_first = calloc(c->metrics, sizeof *after_first);
	if (rc == 0 && (!first || !last || !after_first))
		rc = GROVE_ENOMEM;
	double start = tool_now(), from = start + c->warmup;
	double until = from + c->seconds;
	double cpu_from = -1, wall_from = 0;
	double lag = 0;
	uint64_t nlag = 0;
	while (rc == 0) {
		double now = tool_now();
		if (now >= until)
			break;
		grove_stream *s;
		int32_t tag;
		grove_packet *p;
		int left = (int)((until - now) * 1000) + 1;
		rc = grove_net_recv(net, &s, &tag, &p, left);
		if (rc == GROVE_ETIMEDOUT) {
			rc = 0;
			break;
		}
		if (rc < 0) {
			snprintf(err, errlen, "receive: %s (%s)",
			    grove_strerror(rc), grove_net_last_error(net));
			break;
		}
		top_sample smp;
		int drc = top_sample_decode(p, &smp);
		now = tool_now();
		unsigned i = 0;
		while (i < c->metrics && ms[i] != s)
			i++;
		if (cpu_from < 0 && now >= from) {
			cpu_from = tool_cpu_self();
			wall_from = now;
		}
		if (drc == 0 && i < c->metrics && now >= from) {
			if (first[i] == 0)
				first[i] = now;
			else
				after_first[i] += smp.sum[0];
			last[i] = now;
			r->intervals++;
			if (smp.count > r->max_count)
				r->max_count = smp.count;
			uint64_t w = wall_ns();
			if (w > smp.end_ns) {
				lag += (double)(w - smp.end_ns) / 1e9;
				nlag++;
			}
		}
		grove_packet_unref(p);
	}
	if (cpu_from >= 0 && tool_now() > wall_from)
		r->fe_cpu = (tool_cpu_self() - cpu_from) / (tool_now() - wall_from);
	r->offered = c->rate * c->backends * c->metrics;
	for (unsigned i = 0; rc == 0 && i < c->metrics; i++)
		if (last[i] > first[i])
			r->processed += after_first[i] / (last[i] - first[i]);
	free(first);
	free(last);
	free(after_first);
	r->lag_s = nlag ? lag / (double)nlag : 0;
	if (net)
		grove_net_destroy(net);
	free(ms);
	free(ids);
	return rc;
}

int
bench_offered_load(int argc, char **argv)
{
	offered_cfg c = {.topology = "kary:8", .backends = 64, .metrics = 8,
	    .rate = 5, .seconds = 5, .warmup = 2};
	int rc = parse(argc, argv, &c);
	if (rc >= 0)
		return rc;
	/* The tree as the output names it: the file, else the spec. */
	const char *tree = c.file ? c.file : c.topology;
	char err[1024] = "";
	offered_res r;
	rc = run(&c, &r, err, sizeof err);
	if (rc < 0) {
		fprintf(stderr, "grove bench offered-load (%s, %u back-ends, %u "
		    "metrics): %s\n", tree, c.backends, c.metrics, err);
		return 1;
	}
	const char *commit = getenv("GROVE_COMMIT");
	if (c.json) {
		printf("{\"backends\":%u,\"metrics\":%u,\"topology\":\"%s\","
		    "\"rate\":%g,\"seconds\":%g,\"offered_per_s\":%.1f,"
		    "\"processed_per_s\":%.1f,\"fraction\":%.4f,"
		    "\"intervals\":%" PRIu64 ",\"mean_lag_s\":%.3f,"
		    "\"fe_cpu\":%.3f,\"instantiation_s\":%.3f%s%s%s}\n",
		    c.backends, c.metrics, tree, c.rate, c.seconds,
		    r.offered, r.processed, r.processed / r.offered,
		    r.intervals, r.lag_s, r.fe_cpu, r.inst_s,
		    commit ? ",\"commit\":\"" : "", commit ? commit : "",
		    commit ? "\"" : "");
	} else {
		printf("offered load: %u back-ends x %u metrics x %g samples/s "
		    "(%s tree)\n", c.backends, c.metrics, c.rate, tree);
		printf("  offered    %10.1f samples/s\n", r.offered);
		printf("  processed  %10.1f samples/s  (%.1f%%)\n", r.processed,
		    100 * r.processed / r.offered);
		printf("  %" PRIu64 " aggregated intervals in %g s, mean age on "
		    "arrival %.3f s; instantiation %.3f s\n", r.intervals,
		    c.seconds, r.lag_s, r.inst_s);
		printf("  front-end CPU %.1f%% of one core\n", 100 * r.fe_cpu);
	}
	return 0;
}

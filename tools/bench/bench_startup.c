/* grove bench startup: the start-up activities of a tool (the MRNet
 * paper's section 3.1, Paradyn on MRNet) on a flat tree and on a deeper
 * one: instantiation, ReportSelf (every node's record, "report"),
 * equivalence classes ("equiv") and clock-skew detection.  Each activity
 * after instantiation runs R times on the same network; the median and
 * the minimum are printed.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../agent/agent_proto.h"
#include "../agent_net.h"
#include "bench_agents.h"
#include "../bench_stats.h"
#include "../cli_opts.h"
#include "grove/grove.h"
#include "../toolutil.h"

typedef struct startup_cfg {
	const char *topology;
	const char *file;   /* --file: an MRNet topology file, else NULL */
	unsigned backends, reps, skew_rounds;
	int json;
} startup_cfg;

#define N_ACT 3
static const char *const act_name[N_ACT] = {"report", "equiv", "skew"};

typedef struct startup_res {
	double inst_s;
	double med[N_ACT], min[N_ACT];
	uint64_t reply_bytes[N_ACT - 1]; /* size of the FE's packet */
} startup_res;

#define STARTUP_CMD "grove bench startup"

static int
startup_usage(FILE *f)
{
	fprintf(f,
	    "usage: grove bench startup [-t SPEC | -f FILE] [-b D] [--reps R]\n"
	    "         [--skew-rounds K] [-j]\n"
	    "\n"
	    "Start-up of a tool on D grove-agents (default 256): instantiation, "
	    "then R\n(default 5) times each: ReportSelf (\"report\" filter: "
	    "one record per node),\nequivalence classes (\"equiv\": nodes "
	    "grouped by kernel release) and clock\nskew (K probes per link, "
	    "default 16).  Topology default kary:8.\n"
	    "\n"
	    CLI_HELP_TREE
	    "                       (1..65536)\n"
	    "      --reps R         times each activity runs (1..1000)\n"
	    "      --skew-rounds K  clock-skew probes per link (1..4096)\n"
	    "  -j, --json           one JSON object ($GROVE_COMMIT, when set, "
	    "is copied in)\n"
	    "  -h, --help           show this help\n"
	    "\n"
	    "Exit status: 0 ok, 1 the network or an activity failed (said on "
	    "standard\nerror), 2 usage error.\n");
	return f == stdout ? 0 : 2;
}

enum { OPT_REPS = 256, OPT_SKEW_ROUNDS };

/* -1 to go on; else the exit status (0 after --help). */
static int
parse(int argc, char **argv, startup_cfg *c)
{
	static const struct option opts[] = {
		CLI_OPT_TOPOLOGY, CLI_OPT_FILE, CLI_OPT_BACKENDS, CLI_OPT_JSON,
		CLI_OPT_HELP,
		{"reps", required_argument, NULL, OPT_REPS},
		{"skew-rounds", required_argument, NULL, OPT_SKEW_ROUNDS},
		{NULL, 0, NULL, 0},
	};
	cli_tree t = {.spec = c->topology, .backends = c->backends};
	int ch, rc;

	optind = 1;
	opterr = 0;
	/* argv + 1: argv[1] is the benchmark's name. */
	while ((ch = getopt_long(argc - 1, argv + 1, ":t:f:b:jh", opts,
	    NULL)) != -1) {
		if (cli_tree_opt(STARTUP_CMD, ch, optarg, 65536, &t, &rc)) {
			if (rc)
				return rc;
			continue;
		}
		switch (ch) {
		case 'j':
			c->json = 1;
			break;
		case 'h':
			return startup_usage(stdout);
		case OPT_REPS:
		case OPT_SKEW_ROUNDS: {
			long max = ch == OPT_REPS ? 1000 : 4096;
			long x = tool_parse_count(optarg, max);
			if (x < 0)
				return tool_count_error(STARTUP_CMD, ch == OPT_REPS ?
				    "--reps" : "--skew-rounds", optarg, max);
			if (ch == OPT_REPS)
				c->reps = (unsigned)x;
			else
				c->skew_rounds = (unsigned)x;
			break;
		}
		default:
			return cli_opt_error(STARTUP_CMD, ch, argv + 1);
		}
	}
	if (optind < argc - 1)
		return tool_usage_error(STARTUP_CMD, "unexpected argument",
		    argv[optind + 1]);
	rc = cli_tree_resolve(STARTUP_CMD, &t, 65536);
	c->topology = t.spec;
	c->file = t.file;
	c->backends = t.backends;
	return rc ? rc : -1;
}

/* One request/answer: asks every agent (tag) to answer on `s`, waits for
 * the single reduced packet. */
static int
round_trip(grove_net *net, grove_stream *ctl, grove_stream *s, int32_t tag,
    double *took, uint64_t *bytes, char *err, size_t errlen)
{
	double t0 = tool_now();
	int rc = grove_stream_send(ctl, tag, "%ud", grove_stream_id(s));
	grove_packet *p = NULL;
	if (rc == 0)
		rc = grove_stream_recv(s, NULL, &p, 60000);
	*took = tool_now() - t0;
	if (rc < 0) {
		snprintf(err, errlen, "%s: %s (%s)", tag == AGENT_TAG_EQUIV_REQ ?
		    "equivalence classes" : "report", grove_strerror(rc),
		    grove_net_last_error(net));
		return rc;
	}
	*bytes = grove_packet_size(p);
	grove_packet_unref(p);
	return 0;
}

static int
run(const startup_cfg *c, startup_res *r, char *err, size_t errlen)
{
	grove_net *net = NULL;
	grove_stream *ctl = NULL, *rep = NULL, *eq = NULL;
	uint32_t nb = c->backends;
	double *t[N_ACT];
	grove_skew *sk = calloc(nb, sizeof *sk);
	for (int a = 0; a < N_ACT; a++)
		t[a] = calloc(c->reps, sizeof *t[a]);
	int rc = sk && t[0] && t[1] && t[2] ? 0 : GROVE_ENOMEM;

	memset(r, 0, sizeof *r);
	double t0 = tool_now();
	if (rc == 0)
		rc = agent_net_start(c->topology, c->file, nb, NULL, &net, err,
		    errlen);
	r->inst_s = tool_now() - t0;
	if (rc == 0)
		rc = agent_net_stream(net, "null", "dont_wait", &ctl, err,
		    errlen);
	if (rc == 0)
		rc = agent_net_stream(net, "report", "wait_for_all", &rep, err,
		    errlen);
	if (rc == 0)
		rc = agent_net_stream(net, "equiv", "wait_for_all", &eq, err,
		    errlen);
	for (unsigned i = 0; rc == 0 && i < c->reps; i++) {
		rc = round_trip(net, ctl, rep, AGENT_TAG_REPORT_REQ, &t[0][i],
		    &r->reply_bytes[0], err, errlen);
		if (rc == 0)
			rc = round_trip(net, ctl, eq, AGENT_TAG_EQUIV_REQ,
			    &t[1][i], &r->reply_bytes[1], err, errlen);
		if (rc == 0) {
			double s0 = tool_now();
			int n = grove_net_clock_skew(net, c->skew_rounds, sk,
			    60000);
			t[2][i] = tool_now() - s0;
			if (n < 0 || (uint32_t)n != nb) {
				snprintf(err, errlen, "clock skew: %s",
				    grove_net_last_error(net));
				rc = n < 0 ? n : GROVE_ELOST;
			}
		}
	}
	for (int a = 0; rc == 0 && a < N_ACT; a++) {
		qsort(t[a], c->reps, sizeof *t[a], bench_cmp_double);
		r->min[a] = t[a][0];
		r->med[a] = t[a][c->reps / 2];
	}
	if (net)
		grove_net_destroy(net);
	for (int a = 0; a < N_ACT; a++)
		free(t[a]);
	free(sk);
	return rc;
}

int
bench_startup(int argc, char **argv)
{
	startup_cfg c = {.topology = "kary:8", .backends = 256, .reps = 5,
	    .skew_rounds = 16};
	int rc = parse(argc, argv, &c);
	if (rc >= 0)
		return rc;
	/* The tree as the output names it: the file, else the spec. */
	const char *tree = c.file ? c.file : c.topology;
	char err[1024] = "";
	startup_res r;
	if (run(&c, &r, err, sizeof err) < 0) {
		fprintf(stderr, "grove bench startup (%s, %u back-ends): %s\n",
		    tree, c.backends, err);
		return 1;
	}
	const char *commit = getenv("GROVE_COMMIT");
	if (c.json) {
		printf("{\"backends\":%u,\"topology\":\"%s\",\"reps\":%u,"
		    "\"instantiation_s\":%.4f", c.backends, tree, c.reps,
		    r.inst_s);
		for (int a = 0; a < N_ACT; a++)
			printf(",\"%s_median_s\":%.6f,\"%s_min_s\":%.6f",
			    act_name[a], r.med[a], act_name[a], r.min[a]);
		printf(",\"report_bytes\":%" PRIu64 ",\"equiv_bytes\":%" PRIu64
		    "%s%s%s}\n", r.reply_bytes[0], r.reply_bytes[1],
		    commit ? ",\"commit\":\"" : "", commit ? commit : "",
		    commit ? "\"" : "");
		return 0;
	}
	printf("start-up of %u agents, %s tree (median / min of %u)\n",
	    c.backends, tree, c.reps);
	printf("  instantiation       %8.1f ms\n", r.inst_s * 1e3);
	printf("  ReportSelf          %8.2f / %.2f ms  (%" PRIu64 " bytes at "
	    "the front-end)\n", r.med[0] * 1e3, r.min[0] * 1e3,
	    r.reply_bytes[0]);
	printf("  equivalence classes %8.2f / %.2f ms  (%" PRIu64 " bytes)\n",
	    r.med[1] * 1e3, r.min[1] * 1e3, r.reply_bytes[1]);
	printf("  clock skew          %8.2f / %.2f ms  (%u rounds per link)\n",
	    r.med[2] * 1e3, r.min[2] * 1e3, c.skew_rounds);
	return 0;
}

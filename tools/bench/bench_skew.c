/* grove bench skew: how well grove_net_clock_skew does on this machine.
 *
 * Every process here reads the same clock, so the true offset of BE rank
 * r is what the benchmark injects (r * STEP, GROVE_CLOCK_INJECT_NS) and
 * |measured - true| is the real error.  Prints its distribution, that of
 * the reported bounds, how many bounds were wrong (must be 0) and how long
 * the call took.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_skew.h"
#include "../bench_stats.h"
#include "../cli_opts.h"
#include "grove/grove.h"
#include "../toolutil.h"

typedef struct skew_cfg {
	const char *spec;
	const char *file;   /* --file: an MRNet topology file, else NULL */
	unsigned backends;
	unsigned rounds;
	unsigned repeat;
	int64_t step;
	int json;
} skew_cfg;

#define SKEW_CMD "grove bench skew"

static int
usage(FILE *f)
{
	fprintf(f,
	    "usage: grove bench skew [-t SPEC | -f FILE] [-b N] [--rounds R]\n"
	    "                        [--inject-step NS] [--repeat K] [-j]\n"
	    "\n"
	    "Runs grove_net_clock_skew K times (default 5) on one network of "
	    "be_worker\n"
	    "back-ends (default kary:8, 64 back-ends, 16 rounds).  Back-end "
	    "rank r's\n"
	    "clock is shifted by r * NS (default 0); all processes share this "
	    "machine's\n"
	    "clock, so that is the true offset.  Prints the distribution of "
	    "|measured -\n"
	    "true| and of the reported bounds over all ranks and runs, the "
	    "number of\n"
	    "bounds that did not hold (must be 0), and the time per call.\n"
	    "\n"
	    CLI_HELP_TREE
	    "                       (1..65536)\n"
	    "      --rounds R       probes per link (1..4096, default 16)\n"
	    "      --inject-step NS back-end rank r's clock is r * NS off "
	    "(default 0)\n"
	    "      --repeat K       calls to time (1..100000, default 5)\n"
	    "  -j, --json           one JSON object\n"
	    "  -h, --help           show this help\n"
	    "\n"
	    "Exit status: 0 ok, 1 the network failed, a bound did not hold or "
	    "a rank\nwent unmeasured (said on standard error or in the "
	    "output), 2 usage error.\n");
	return f == stdout ? 0 : 2;
}

enum { OPT_ROUNDS = 256, OPT_REPEAT, OPT_INJECT_STEP };

/* -1 to go on; else the exit status (0 after --help). */
static int
parse(int argc, char **argv, skew_cfg *c)
{
	static const struct option opts[] = {
		CLI_OPT_TOPOLOGY, CLI_OPT_FILE, CLI_OPT_BACKENDS, CLI_OPT_JSON,
		CLI_OPT_HELP,
		{"rounds", required_argument, NULL, OPT_ROUNDS},
		{"repeat", required_argument, NULL, OPT_REPEAT},
		{"inject-step", required_argument, NULL, OPT_INJECT_STEP},
		{NULL, 0, NULL, 0},
	};
	cli_tree t = {.spec = c->spec, .backends = c->backends};
	int ch, rc;
	long x;

	optind = 1;
	opterr = 0;
	/* argv + 1: argv[1] is the benchmark's name. */
	while ((ch = getopt_long(argc - 1, argv + 1, ":t:f:b:jh", opts,
	    NULL)) != -1) {
		if (cli_tree_opt(SKEW_CMD, ch, optarg, 65536, &t, &rc)) {
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
			if (tool_parse_inject_step(SKEW_CMD, optarg, &c->step))
				return 2;
			break;
		case OPT_ROUNDS:
		case OPT_REPEAT: {
			long max = ch == OPT_ROUNDS ? 4096 : 100000;
			x = tool_parse_count(optarg, max);
			if (x < 0)
				return tool_count_error(SKEW_CMD, ch == OPT_ROUNDS ?
				    "--rounds" : "--repeat", optarg, max);
			if (ch == OPT_ROUNDS)
				c->rounds = (unsigned)x;
			else
				c->repeat = (unsigned)x;
			break;
		}
		default:
			return cli_opt_error(SKEW_CMD, ch, argv + 1);
		}
	}
	if (optind < argc - 1)
		return tool_usage_error(SKEW_CMD, "unexpected argument",
		    argv[optind + 1]);
	rc = cli_tree_resolve(SKEW_CMD, &t, 65536);
	c->spec = t.spec;
	c->file = t.file;
	c->backends = t.backends;
	return rc ? rc : -1;
}

int
bench_skew(int argc, char **argv)
{
	skew_cfg c = {.spec = "kary:8", .backends = 64, .rounds = 16,
	    .repeat = 5};
	int rc = parse(argc, argv, &c);
	if (rc >= 0)
		return rc;
	tool_programs pg;
	char err[512];
	if (tool_find_programs(&pg, err, sizeof err) < 0) {
		fprintf(stderr, "grove bench skew: %s\n", err);
		return 1;
	}
	tool_raise_nofile();
	grove_net *net = NULL;
	rc = tool_net_create_injected("grove bench skew", &pg, c.spec, c.file,
	    c.backends, c.step, &net);
	if (rc < 0) {
		grove_net_destroy(net);
		return 1;
	}
	size_t nb = grove_net_backends(net);
	const char *tree = c.file ? c.file : c.spec;
	size_t total = nb * c.repeat, k = 0;
	grove_skew *out = calloc(nb ? nb : 1, sizeof *out);
	double *dev = calloc(total ? total : 1, sizeof *dev);
	double *bound = calloc(total ? total : 1, sizeof *bound);
	double *secs = calloc(c.repeat, sizeof *secs);
	size_t violations = 0, unmeasured = 0;
	if (!out || !dev || !bound || !secs) {
		fprintf(stderr, "grove bench skew: out of memory\n");
		rc = GROVE_ENOMEM;
	}
	for (unsigned i = 0; rc >= 0 && i < c.repeat; i++) {
		double t0 = tool_now();
		rc = grove_net_clock_skew(net, c.rounds, out, 60000);
		secs[i] = tool_now() - t0;
		if (rc < 0) {
			fprintf(stderr, "grove bench skew: %s: %s\n",
			    grove_strerror(rc), grove_net_last_error(net));
			break;
		}
		for (size_t r = 0; r < nb; r++) {
			if (out[r].error_ns == GROVE_SKEW_UNKNOWN) {
				unmeasured++;
				continue;
			}
			int64_t want = (int64_t)r * c.step;
			uint64_t d = out[r].offset_ns >= want
			    ? (uint64_t)out[r].offset_ns - (uint64_t)want
			    : (uint64_t)want - (uint64_t)out[r].offset_ns;
			violations += d > out[r].error_ns;
			dev[k] = (double)d;
			bound[k] = (double)out[r].error_ns;
			k++;
		}
	}
	grove_net_destroy(net);
	if (rc >= 0) {
		bench_dist de = bench_dist_of(dev, k), db = bench_dist_of(bound, k);
		qsort(secs, c.repeat, sizeof *secs, bench_cmp_double);
		double call_med = secs[c.repeat / 2], call_max = secs[c.repeat - 1];
		if (c.json) {
			printf("{\"topology\": \"%s\", \"backends\": %zu, \"rounds\": %u"
			    ", \"repeat\": %u, \"inject_step_ns\": %" PRId64
			    ", \"samples\": %zu, \"unmeasured\": %zu, \"violations\": %zu"
			    ", \"error_ns\": {\"min\": %.0f, \"median\": %.0f, \"p90\": "
			    "%.0f, \"max\": %.0f}, \"bound_ns\": {\"min\": %.0f, "
			    "\"median\": %.0f, \"p90\": %.0f, \"max\": %.0f}, "
			    "\"call_s\": {\"median\": %.6f, \"max\": %.6f}}\n", tree, nb,
			    c.rounds, c.repeat, c.step, k, unmeasured, violations, de.min,
			    de.median, de.p90, de.max, db.min, db.median, db.p90, db.max,
			    call_med, call_max);
		} else {
			printf("grove bench skew: %s, %zu back-ends, %u rounds, %u runs, "
			    "injected rank * %" PRId64 " ns\n", tree, nb, c.rounds,
			    c.repeat, c.step);
			printf("                      min    median       p90       max"
			    "   (us)\n");
			printf("  |measured - true| %8.1f  %8.1f  %8.1f  %8.1f\n",
			    de.min / 1e3, de.median / 1e3, de.p90 / 1e3, de.max / 1e3);
			printf("  reported bound    %8.1f  %8.1f  %8.1f  %8.1f\n",
			    db.min / 1e3, db.median / 1e3, db.p90 / 1e3, db.max / 1e3);
			printf("  bounds violated   %zu of %zu; unmeasured %zu\n",
			    violations, k, unmeasured);
			printf("  call              %.2f ms median, %.2f ms max\n",
			    call_med * 1e3, call_max * 1e3);
		}
	}
	free(out);
	free(dev);
	free(bound);
	free(secs);
	if (rc < 0)
		return 1;
	return violations || unmeasured ? 1 : 0;
}

/* grove report: reads the event spaces of a network or a `grove run` job
 * (running, or kept after it: GROVE_TRACE_KEEP, grove run --keep-trace),
 * runs the analysis of src/monitor over them and writes one
 * self-contained HTML file with its pictures (docs/monitoring.md). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cli_opts.h"
#include "../cmds.h"
#include "../toolutil.h"
#include "../trace_select.h"
#include "grove/error.h"
#include "report.h"
#include "trace/align.h"
#include "trace/trace_impl.h"

#define CMD "grove report"

static void
usage(FILE *f)
{
	fprintf(f, "usage: grove report [--net ID] [-o FILE] [--collect "
	    "[--timeout MS]]\n"
	    "                    [--timeline MODE] [--sigma K] [--min-count N] "
	    "[--spans N]\n\n"
	    "Analyses the event spaces of one network or grove run job (--net "
	    "may be\nleft out when only one has event spaces in /dev/shm; it "
	    "may be running,\nor kept: GROVE_TRACE_KEEP, grove run "
	    "--keep-trace) and writes one HTML\nfile that needs nothing else "
	    "to open: who arrives last in each collective\n(a weighted tree "
	    "per stream or communicator), latency per path with\nhotspots, "
	    "per-process timelines of calls and the gaps between them,\n"
	    "arrival orders per MPI collective, the clock accuracy per host, "
	    "and the\ntuples lost.\n\n"
	    "  -n, --net ID         the network or job\n"
	    "  -o, --output FILE    where the page goes (default: standard "
	    "output)\n"
	    "      --collect        first ask the network's running front-end "
	    "to bring home\n"
	    "                       the event spaces of other hosts "
	    "(--timeout MS, default\n"
	    "                       10000)\n"
	    "      --timeline MODE  auto, local, frontend or realtime (as grove "
	    "trace dump)\n"
	    "      --sigma K        a hotspot's mean is more than K standard "
	    "deviations of\n"
	    "                       its peers from theirs (default 3)\n"
	    "      --min-count N    samples a path and its peers need to be "
	    "compared\n"
	    "                       (default 10)\n"
	    "      --spans N        spans kept per process for the timelines "
	    "(default 65536)\n"
	    "  -h, --help           show this help\n\n"
	    "Exit status: 0 ok, 1 failure (said on standard error), 2 usage "
	    "error.\n");
}

/* Reads, analyses and writes: 0 or 1 after saying why. */
static int
report(const char *net, const char *out, const struct report_opts *opts,
       size_t spans)
{
	struct trace_set set;
	if (trace_set_collect(net, &set) != 0) {
		fprintf(stderr, CMD ": cannot read the event spaces of %s\n",
		        net);
		return 1;
	}
	if (!set.n) {
		fprintf(stderr, CMD ": network %s has no event spaces in "
		        "/dev/shm (see grove trace list)\n", net);
		trace_set_free(&set);
		return 1;
	}
	struct mon_analysis_opts ao = {.timeline_keep = spans};
	struct report r = {.net = net, .set = &set, .opts = *opts};
	int rc = GROVE_ENOMEM;
	if ((r.a = mon_analysis_new(&ao)) &&
	    (rc = report_feed(&set, r.a)) == 0)
		rc = report_gather(&r);
	if (rc) {
		fprintf(stderr, CMD ": analysing the event spaces of %s: %s\n",
		        net, grove_strerror(rc));
		report_free(&r);
		mon_analysis_free(r.a);
		trace_set_free(&set);
		return 1;
	}
	FILE *f = out ? fopen(out, "w") : stdout;
	if (!f) {
		fprintf(stderr, CMD ": cannot write %s: %s\n", out,
		        strerror(errno));
		rc = 1;
	} else {
		rc = tool_finish_output(CMD, f, out,
		                        report_write_html(f, &r) != 0);
	}
	report_free(&r);
	mon_analysis_free(r.a);
	trace_set_free(&set);
	return rc;
}

int
cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
		{"net", required_argument, 0, 'n'},
		CLI_OPT_OUTPUT,
		{"collect", no_argument, 0, 'c'},
		{"timeout", required_argument, 0, 'M'},
		{"timeline", required_argument, 0, 'T'},
		{"sigma", required_argument, 0, 'S'},
		{"min-count", required_argument, 0, 'C'},
		{"spans", required_argument, 0, 'P'},
		CLI_OPT_HELP,
		{0, 0, 0, 0},
	};
	const char *net = NULL, *out = NULL;
	int collect = 0, timeout_given = 0, c;
	long timeout_ms = 10000, v;
	struct report_opts ro = {3.0, 10};
	size_t spans = 65536;
	char *end;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":n:o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'n': net = optarg; break;
		case 'o': out = optarg; break;
		case 'c': collect = 1; break;
		case 'M':
			if ((timeout_ms = tool_parse_count(optarg, 3600000)) < 0)
				return tool_count_error(CMD, "--timeout", optarg,
				                        3600000);
			timeout_given = 1;
			break;
		case 'T': {
			/* The readers take it from the environment, as grove
			 * trace dump does. */
			enum trace_timeline tl;
			if (trace_timeline_parse(optarg, &tl) != 0)
				return tool_usage_error(CMD, "--timeline wants "
				    "auto, local, frontend or realtime", optarg);
			setenv("GROVE_TRACE_TIMELINE", optarg, 1);
			break;
		}
		case 'S':
			errno = 0;
			ro.sigma = strtod(optarg, &end);
			if (errno || *end || end == optarg || !(ro.sigma > 0) ||
			    ro.sigma > 1e6)
				return tool_usage_error(CMD, "--sigma wants a "
				    "number above 0 (standard deviations)",
				    optarg);
			break;
		case 'C':
			if ((v = tool_parse_count(optarg, 1000000000L)) < 0)
				return tool_count_error(CMD, "--min-count",
				                        optarg, 1000000000L);
			ro.min_count = (uint64_t)v;
			break;
		case 'P':
			if ((v = tool_parse_count(optarg, 1L << 24)) < 0)
				return tool_count_error(CMD, "--spans", optarg,
				                        1L << 24);
			spans = (size_t)v;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default: return cli_opt_error(CMD, c, argv);
		}
	}
	if (optind != argc)
		return tool_usage_error(CMD, "unexpected argument", argv[optind]);
	if (timeout_given && !collect)
		return tool_usage_error(CMD, "--timeout applies only with "
		    "--collect", NULL);
	if (out && !*out)
		return tool_usage_error(CMD, "-o wants a path, not an empty "
		    "string (leave -o out for standard output)", NULL);
	int rc;
	if (net && (rc = tool_check_net(CMD, net)))
		return rc;
	char netbuf[128];
	if (tool_pick_net(CMD, net, netbuf, sizeof netbuf))
		return 1;
	if (collect && tool_collect_live(CMD, netbuf, (int)timeout_ms))
		return 1;
	return report(netbuf, out, &ro, spans);
}

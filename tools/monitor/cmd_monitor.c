/* grove monitor: attaches to a running grove run job or Grove network on
 * this host, pulls its processes' new tuples through an event scope every
 * interval, runs a monitor of src/monitor over them and prints what it
 * found (docs/monitoring.md, "Live monitoring").  Reading never touches
 * the monitored processes: leaving (after --count views, at the job's
 * end, or on a signal) does not disturb them. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../cli_opts.h"
#include "../cmds.h"
#include "../toolutil.h"
#include "../trace_select.h"
#include "grove/error.h"
#include "cosched.h"
#include "host_serve.h"
#include "host_watch.h"
#include "monitor_view.h"
#include "pull.h"
#include "scope/placement.h"
#include "scope/scope.h"
#include "tree_watch.h"

#define CMD "grove monitor"

static void
usage(FILE *f)
{
	fprintf(f, "usage: grove monitor load-balance|stats (--job ID | --net ID) "
	    "[--interval S]\n"
	    "                     [--pull S|auto] [--count N] [--json] [--layer L] "
	    "[--name N]\n"
	    "                     [--op OP] [--sigma K] [--min-count N] "
	    "[--rows N]\n"
	    "                     [--cosched] [--local | --raw] [--readers host|node]\n\n"
	    "Watches a running grove run job or Grove network: it reads what "
	    "its processes\nrecorded (their event spaces, as often as their "
	    "rings need; the processes\nthemselves are never asked), and "
	    "every interval shows\n"
	    "  load-balance  who arrives last in each collective (MPI "
	    "communicator or\n"
	    "                TBON stream and node), with counts\n"
	    "  stats         latency per path (count, mean, sd, min, max) with "
	    "hotspots:\n"
	    "                paths slower (!) or faster (-) than their peers\n"
	    "and the tuples lost (overwritten before they were read).\n\n"
	    "  -J, --job ID       the job (grove run --verbose names it); "
	    "a job of grove run\n"
	    "                     --hosts is read on every host: here, and "
	    "elsewhere by a\n"
	    "                     reader started over $GROVE_RSH (else ssh) "
	    "that sends\n"
	    "                     its share (run this on grove run's host, "
	    "same TMPDIR)\n"
	    "  -n, --net ID       the network, read through its tree: every "
	    "host's CP or\n"
	    "                     front-end reads and analyses its "
	    "processes' spaces, and\n"
	    "                     only merged results travel\n"
	    "      --local        read --net's spaces on this host directly, "
	    "as --job does\n"
	    "      --raw          through the tree, or from the hosts of a job, "
	    "gather the\n"
	    "                     tuples unreduced (for load-balance: the "
	    "last-arrival\n"
	    "                     tuples) and analyse here; always so for "
	    "load-balance\n"
	    "                     of a job across hosts\n"
	    "      --readers R    host: one reader per host (default); node: "
	    "every CP\n"
	    "                     reads itself and its back-ends\n"
	    "  -i, --interval S   seconds between views (default 1)\n"
	    "  -p, --pull S|auto  seconds between reads of the event spaces; "
	    "auto (the\n"
	    "                     default) reads when the busiest ring is "
	    "about a quarter\n"
	    "                     full, at most every 0.01 s and at least "
	    "every interval\n"
	    "  -c, --count N      stop after N views (default: until the job "
	    "ends)\n"
	    "  -j, --json         one JSON object per line per view\n"
	    "      --layer L      only tuples of collectors of layer L\n"
	    "      --name N       only tuples of collectors named N\n"
	    "      --op OP        only tuples of operation OP (mpi_call, "
	    "send ...)\n"
	    "      --sigma K      hotspot: more than K standard deviations off "
	    "(default 3)\n"
	    "      --min-count N  samples a path needs to be compared "
	    "(default 10)\n"
	    "      --rows N       paths in the text view of stats (default 20)\n"
	    "      --cosched      run at the lowest priority (SCHED_IDLE) and "
	    "read while\n"
	    "                     the job's processes are blocked in a wait: "
	    "each read\n"
	    "                     waits for such a moment in the second half "
	    "of its\n"
	    "                     period, and is made anyway at its end\n"
	    "  -h, --help         show this help\n\n"
	    "Exit status: 0 ok, 1 failure (said on standard error), 2 usage "
	    "error.\n");
}

static int
watch(const char *net, const struct scope_select *sel,
      struct monitor_view *v, double interval, double pull, long count,
      struct cosched *cs)
{
	/* Few spans per process: the live views draw no timelines. */
	struct mon_analysis_opts ao = {.timeline_keep = 16};
	struct mon_analysis *a = mon_analysis_new(&ao);
	struct scope s;
	if (!a || scope_init(&s, net, sel, a) != 0) {
		fprintf(stderr, CMD ": out of memory\n");
		mon_analysis_free(a);
		return 1;
	}
	struct monitor_pull mp;
	monitor_pull_default(&mp, interval, pull, monitor_pull_scope, &s);
	if (cs)
		monitor_pull_cosched(&mp, cs, &s);
	v->pace = &mp.pace;
	int rc = 0;
	for (unsigned i = 1; count <= 0 || i <= (unsigned long)count; i++) {
		int r = i == 1 ? monitor_pull_now(&mp)
		               : monitor_pull_for(&mp, interval);
		/* The job ended since the last pull, which may be older than
		 * the view (pull.h): its last tuples are read before its last
		 * view. */
		int over = !r && scope_procs(&s) && !scope_running(&s);
		if (over)
			r = monitor_pull_now(&mp);
		if (r) {
			fprintf(stderr, CMD ": reading the event spaces of %s: "
			        "%s\n", net, grove_strerror(r));
			rc = 1;
			break;
		}
		if (!scope_procs(&s)) {
			fprintf(stderr, CMD ": %s has no event spaces in "
			        "/dev/shm on this host (see grove trace "
			        "list)\n", net);
			rc = 1;
			break;
		}
		if ((r = monitor_view_print(stdout, v, &s, i)) != 0) {
			fprintf(stderr, CMD ": writing the view: %s\n",
			        grove_strerror(r));
			rc = 1;
			break;
		}
		if (over)
			break; /* the job is over: that was its last view */
	}
	v->pace = NULL;
	scope_free(&s);
	mon_analysis_free(a);
	return rc;
}

int
cmd_monitor(int argc, char **argv)
{
	static const struct option opts[] = {
		{"job", required_argument, 0, 'J'},
		{"net", required_argument, 0, 'n'},
		{"interval", required_argument, 0, 'i'},
		{"count", required_argument, 0, 'c'},
		{"pull", required_argument, 0, 'p'},
		CLI_OPT_JSON,
		{"layer", required_argument, 0, 'L'},
		{"name", required_argument, 0, 'N'},
		{"op", required_argument, 0, 'O'},
		{"sigma", required_argument, 0, 'S'},
		{"min-count", required_argument, 0, 'C'},
		{"rows", required_argument, 0, 'R'},
		{"cosched", no_argument, 0, 'K'},
		{"local", no_argument, 0, 'l'},
		{"raw", no_argument, 0, 'r'},
		{"readers", required_argument, 0, 'e'},
		/* A host's reader of a job across hosts, started by the
		 * monitor over the remote shell (host_serve.h). */
		{"serve-share", no_argument, 0, 'Z'},
		{"ranks", required_argument, 0, 'Y'},
		{"last-only", no_argument, 0, 'X'},
		CLI_OPT_HELP,
		{0, 0, 0, 0},
	};
	const char *net = NULL;
	struct scope_select sel = {NULL, NULL, -1, 0};
	struct monitor_view v = {MONITOR_BALANCE, 0, 0, 3.0, 10, 20, NULL, NULL};
	double interval = 1.0, pull = 0;
	long count = 0, x;
	int cosched = 0;
	int by_net = 0, local = 0, raw = 0, readers = SCOPE_READERS_HOST;
	int serve = 0, last_only = 0;
	struct host_ranks ranks = {0, 0};
	char *end;
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":J:n:i:p:c:jh", opts, NULL)) != -1) {
		switch (c) {
		case 'J':
		case 'n':
			if (net && strcmp(net, optarg))
				return tool_usage_error(CMD, "--job and --net "
				    "name the same thing; give one", optarg);
			net = optarg;
			by_net = c == 'n';
			break;
		case 'l': local = 1; break;
		case 'r': raw = 1; break;
		case 'e':
			if (strcmp(optarg, "host") && strcmp(optarg, "node"))
				return tool_usage_error(CMD, "--readers wants "
				    "host or node", optarg);
			readers = !strcmp(optarg, "node") ? SCOPE_READERS_NODE
			                                  : SCOPE_READERS_HOST;
			break;
		case 'i':
			errno = 0;
			interval = strtod(optarg, &end);
			if (errno || *end || end == optarg ||
			    !(interval >= 0.01 && interval <= 3600))
				return tool_usage_error(CMD, "--interval wants "
				    "seconds from 0.01 to 3600", optarg);
			break;
		case 'p':
			errno = 0;
			if (!strcmp(optarg, "auto")) {
				pull = 0;
				break;
			}
			pull = strtod(optarg, &end);
			if (errno || *end || end == optarg ||
			    !(pull >= 0.001 && pull <= 3600))
				return tool_usage_error(CMD, "--pull wants "
				    "auto or seconds from 0.001 to 3600", optarg);
			break;
		case 'c':
			if ((count = tool_parse_count(optarg, 1000000000L)) < 0)
				return tool_count_error(CMD, "--count", optarg,
				                        1000000000L);
			break;
		case 'j': v.json = 1; break;
		case 'L': sel.layer = optarg; break;
		case 'N': sel.name = optarg; break;
		case 'O':
			if ((sel.op = scope_op_parse(optarg)) < 0)
				return tool_usage_error(CMD, "--op wants an "
				    "operation as grove trace dump names it",
				    optarg);
			break;
		case 'S':
			errno = 0;
			v.sigma = strtod(optarg, &end);
			if (errno || *end || end == optarg || !(v.sigma > 0) ||
			    v.sigma > 1e6)
				return tool_usage_error(CMD, "--sigma wants a "
				    "number above 0 (standard deviations)",
				    optarg);
			break;
		case 'C':
			if ((x = tool_parse_count(optarg, 1000000000L)) < 0)
				return tool_count_error(CMD, "--min-count",
				                        optarg, 1000000000L);
			v.min_count = (uint64_t)x;
			break;
		case 'R':
			if ((x = tool_parse_count(optarg, 1000000L)) < 0)
				return tool_count_error(CMD, "--rows", optarg,
				                        1000000L);
			v.rows = (unsigned)x;
			break;
		case 'K': cosched = 1; break;
		case 'Z': serve = 1; break;
		case 'X': last_only = 1; break;
		case 'Y': {
			char extra;
			if (sscanf(optarg, "%u:%u%c", &ranks.first, &ranks.n,
			           &extra) != 2 || !ranks.n)
				return tool_usage_error(CMD, "--ranks wants "
				    "FIRST:COUNT", optarg);
			break;
		}
		case 'h':
			usage(stdout);
			return 0;
		default: return cli_opt_error(CMD, c, argv);
		}
	}
	if (optind >= argc)
		return tool_usage_error(CMD, "which monitor? load-balance or "
		    "stats", NULL);
	if (!strcmp(argv[optind], "load-balance"))
		v.kind = MONITOR_BALANCE;
	else if (!strcmp(argv[optind], "stats"))
		v.kind = MONITOR_STATS;
	else
		return tool_usage_error(CMD, "unknown monitor (load-balance "
		    "or stats)", argv[optind]);
	if (optind + 1 != argc)
		return tool_usage_error(CMD, "unexpected argument",
		                        argv[optind + 1]);
	if (!net)
		return tool_usage_error(CMD, "--job ID or --net ID says what "
		    "to watch", NULL);
	int rc = tool_check_net(CMD, net);
	if (rc)
		return rc;
	v.redraw = !v.json && isatty(STDOUT_FILENO);
	if (serve) {
		if (by_net || !ranks.n)
			return tool_usage_error(CMD, "--serve-share reads "
			    "--job's --ranks FIRST:COUNT", NULL);
		sel.last_only = last_only;
		return monitor_serve_share(net, &sel, raw, ranks);
	}
	if (local && raw)
		return tool_usage_error(CMD, "--raw reads through the tree; "
		    "--local reads here", NULL);
	/* A network is read through its tree; a grove run job (no CPs: its
	 * launcher is the front-end of its ranks) by this monitor, the
	 * reader of the launcher's host, as --local does. */
	if (by_net && !local) {
		if (cosched)
			return tool_usage_error(CMD, "--cosched gates the reads "
			    "of this host's ranks: --job, or --local", NULL);
		/* The load balance needs the last arrivals only: the
		 * readers analyse (or send) nothing else. */
		sel.last_only = v.kind == MONITOR_BALANCE;
		return monitor_watch_tree(net, &sel, &v, interval, pull, count, raw,
		                          readers);
	}
	/* A job of grove run --hosts: a reader on every other host. */
	struct host_scope hs;
	char err[600];
	/* The last arrival of a collective is found where all its calls
	 * meet: for load-balance the readers send the selected tuples. */
	int kind = raw || v.kind == MONITOR_BALANCE ? MON_SHARE_RAW
	                                            : MON_SHARE_ANALYSIS;
	if (!by_net && host_scope_load(&hs, net, kind, err, sizeof err)) {
		fprintf(stderr, CMD ": %s\n", err);
		return 1;
	}
	if (!by_net && hs.n) {
		if (cosched) {
			host_scope_stop(&hs);
			return tool_usage_error(CMD, "--cosched gates the reads "
			    "of this host's ranks; the job runs on several "
			    "hosts", NULL);
		}
		sel.last_only = v.kind == MONITOR_BALANCE;
		return monitor_watch_hosts(&hs, net, &sel, &v, interval, pull,
		                           count);
	}
	if (!by_net)
		host_scope_stop(&hs);
	if (raw)
		return tool_usage_error(CMD, "--raw is for --net, or a job "
		    "across hosts", NULL);
	if (!cosched)
		return watch(net, &sel, &v, interval, pull, count, NULL);
	struct cosched cs;
	cosched_init(&cs);
	v.cosched = &cs;
	rc = watch(net, &sel, &v, interval, pull, count, &cs);
	cosched_free(&cs);
	return rc;
}

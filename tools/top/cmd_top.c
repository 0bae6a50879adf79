/* grove top: a cluster monitor on a Grove tree.
 *
 * The front-end starts one grove-agent per node (here: per back-end), the
 * agents sample /proc every interval, and the tree aligns the samples in
 * time and reduces them ("timealign": sum, min, max and who holds them),
 * so the front-end handles one packet per interval however many nodes
 * there are.  At start-up the tree also groups the nodes by kernel release
 * ("equiv") and gathers one record per node ("report").
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "../agent/agent_proto.h"
#include "../agent/metrics.h"
#include "../agent_net.h"
#include "../cli_opts.h"
#include "../cmds.h"
#include "grove/aggregate.h"
#include "grove/grove.h"
#include "top_view.h"
#include "../toolutil.h"
#include "trace/trace_impl.h" /* trace_json_str */

/* Set by SIGINT/SIGQUIT/SIGTERM: a signal handler can only talk through a
 * global. */
static volatile sig_atomic_t top_stop;

static void
on_signal(int sig)
{
	(void)sig;
	top_stop = 1;
}

typedef struct top_opts {
	const char *topology;
	const char *file;  /* --file: an MRNet topology file, else NULL */
	const char *hosts;
	unsigned backends;
	unsigned interval_ms;
	double seconds;    /* 0: until q / Ctrl-C */
	int once, json, skew;
	int backends_given;
} top_opts;

typedef struct top {
	top_opts o;
	grove_net *net;
	grove_stream *ctl, *equiv, *report, *samples;
	double scale[METRIC_COUNT];
	int tty_in, tty_out;
	struct termios saved;
	int raw;
	int out_failed;      /* a write to standard output failed */
	uint64_t intervals;
	char *classes_json;  /* "hosts":[...],"classes":[...] for --json */
	char skew_json[256]; /* {...} of the last skew measurement, or "" */
} top;

static int
top_usage(FILE *f)
{
	fprintf(f,
	    "usage: grove top [-t SPEC | -f FILE] [-b N] [-H FILE] "
	    "[--interval MS]\n"
	    "                 [--seconds S] [--once] [-j] [--skew]\n"
	    "\n"
	    "A cluster monitor: one grove-agent per node samples /proc every "
	    "interval;\nthe tree aligns the samples in time and reduces them; "
	    "the view shows,\nper metric, min / avg / max over the nodes, where "
	    "they sit on the\nmetric's scale, and which ranks hold the min and "
	    "max.\n"
	    "\n"
	    CLI_HELP_TREE
	    "                       (default kary:8 with 16 agents, 1..65536; "
	    "with --hosts:\n"
	    "                       one per slot)\n"
	    "  -H, --hosts FILE     host list, \"host[:slots]\" per line "
	    "(default: all local)\n"
	    "      --interval MS    sample interval (default 1000, at least 10)\n"
	    "      --seconds S      stop after S seconds, at most 1e6 (default: "
	    "run until q\n"
	    "                       or Ctrl-C)\n"
	    "      --once           print one complete interval and exit\n"
	    "  -j, --json           print intervals as JSON objects, one per "
	    "line\n"
	    "      --skew           measure clock skew to every agent at start\n"
	    "  -h, --help           show this help\n"
	    "\nExit status: 0 ok (q, Ctrl-C, --seconds or --once), 1 the "
	    "network failed\n(said on standard error), 2 usage error.\n"
	    "\nKeys: q quit, s measure clock skew.\n"
	    "Metrics:\n");
	const metric_desc *md = metric_table();
	for (int i = 0; i < METRIC_COUNT; i++)
		fprintf(f, "  %-7s %-6s %s\n", md[i].name, md[i].unit,
		    md[i].what);
	return f == stdout ? 0 : 2;
}

static int
parse_opts(int argc, char **argv, top_opts *o)
{
	static const struct option opts[] = {
		CLI_OPT_TOPOLOGY, CLI_OPT_FILE, CLI_OPT_BACKENDS, CLI_OPT_HOSTS,
		CLI_OPT_JSON, CLI_OPT_HELP,
		{"interval", required_argument, NULL, 'I'},
		{"seconds", required_argument, NULL, 'S'},
		{"once", no_argument, NULL, '1'},
		{"skew", no_argument, NULL, 'K'},
		{NULL, 0, NULL, 0},
	};
	cli_tree tree = {.spec = "kary:8", .backends = 16};
	int c, bad;
	long n;
	o->interval_ms = 1000;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":t:f:b:H:jh", opts, NULL)) != -1) {
		if (cli_tree_opt("grove top", c, optarg, 65536, &tree, &bad)) {
			if (bad)
				return bad;
			continue;
		}
		switch (c) {
		case 'h':
			return top_usage(stdout) - 1; /* -1: exit 0 */
		case '1':
			o->once = 1;
			break;
		case 'j':
			o->json = 1;
			break;
		case 'K':
			o->skew = 1;
			break;
		case 'H':
			o->hosts = optarg;
			break;
		case 'I':
			if ((n = tool_parse_count(optarg, 3600000)) < 10)
				return tool_usage_error("grove top", "--interval "
				    "wants 10..3600000 ms, not", optarg);
			o->interval_ms = (unsigned)n;
			break;
		case 'S': {
			char *end;
			errno = 0;
			double s = strtod(optarg, &end);
			if (errno || *end || !(s > 0) || s > 1e6)
				return tool_usage_error("grove top", "--seconds "
				    "wants seconds above 0, at most 1e6, not",
				    optarg);
			o->seconds = s;
			break;
		}
		default:
			return cli_opt_error("grove top", c, argv);
		}
	}
	if (optind < argc)
		return tool_usage_error("grove top", "unexpected argument",
		    argv[optind]);
	if (tree.file && o->hosts)
		return tool_usage_error("grove top", "--hosts goes with "
		    "--topology; a topology file names its own hosts", NULL);
	/* A levels: spec or a file says how many agents it has, within the
	 * same limit. */
	int levels = tree.file || tool_spec_backends(tree.spec) != 0;
	bad = cli_tree_resolve("grove top", &tree, 65536);
	if (bad)
		return bad;
	o->topology = tree.spec;
	o->file = tree.file;
	o->backends = tree.backends;
	o->backends_given = tree.backends_given;
	/* With a host list and no --backends: one agent per slot.  Reading
	 * the list here also reports a bad one before anything starts. */
	if (o->hosts) {
		char err[512];
		grove_hostlist *hl;
		if (grove_hostlist_parse_file(o->hosts, &hl, err, sizeof err)) {
			fprintf(stderr, "grove top: host list %s: %s\n", o->hosts,
			    err);
			return 1;
		}
		uint64_t slots = grove_hostlist_slots(hl);
		grove_hostlist_destroy(hl);
		if (!o->backends_given && !levels)
			o->backends = slots > 65536 ? 65536 : (unsigned)slots;
	}
	return 0;
}

static int
start_network(top *t)
{
	char err[1024];
	int rc = agent_net_start(t->o.topology, t->o.file, t->o.backends,
	    t->o.hosts, &t->net, err, sizeof err);
	if (rc == 0 &&
	    (rc = agent_net_stream(t->net, "null", "dont_wait", &t->ctl, err,
	    sizeof err)) == 0 &&
	    (rc = agent_net_stream(t->net, "equiv", "wait_for_all", &t->equiv,
	    err, sizeof err)) == 0 &&
	    (rc = agent_net_stream(t->net, "report", "wait_for_all",
	    &t->report, err, sizeof err)) == 0)
		rc = agent_net_stream(t->net, "timealign", "dont_wait",
		    &t->samples, err, sizeof err);
	if (rc < 0) {
		fprintf(stderr, "grove top: %s\n", err);
		return rc;
	}
	uint64_t interval_ns = (uint64_t)t->o.interval_ms * 1000000u;
	/* A node more than 3 intervals behind the others is left out of
	 * the intervals being closed, so one stuck node cannot freeze the
	 * view.  M is known here: a sample with another number of metrics
	 * (an agent of another version) is then refused on its own. */
	rc = grove_stream_set_params(t->samples, GROVE_FILTER_UP,
	    GROVE_TIMEALIGN_PARAMS_M_FMT, interval_ns, 3u,
	    (uint32_t)METRIC_COUNT);
	if (rc < 0) {
		fprintf(stderr, "grove top: timealign parameters: %s\n",
		    grove_net_last_error(t->net));
		return rc;
	}
	uint32_t ids[AGENT_TOP_NSTREAMS];
	ids[AGENT_TOP_EQUIV] = grove_stream_id(t->equiv);
	ids[AGENT_TOP_REPORT] = grove_stream_id(t->report);
	ids[AGENT_TOP_SAMPLES] = grove_stream_id(t->samples);
	rc = grove_stream_send(t->ctl, AGENT_TAG_START, AGENT_START_FMT,
	    (int32_t)AGENT_MODE_TOP, interval_ns, (uint32_t)METRIC_COUNT, ids,
	    (uint64_t)AGENT_TOP_NSTREAMS);
	if (rc < 0)
		fprintf(stderr, "grove top: start request: %s\n",
		    grove_net_last_error(t->net));
	return rc;
}

static void
print_class_ranges(FILE *f, const grove_equiv_set *set, size_t c)
{
	size_t n = grove_equiv_nranges(set, c);
	for (size_t i = 0; i < n; i++) {
		uint32_t lo, hi;
		if (grove_equiv_range(set, c, i, &lo, &hi) < 0)
			break;
		fprintf(f, "%s%u", i ? "," : "", lo);
		if (hi > lo + 1)
			fprintf(f, "-%u", hi - 1);
	}
}

/* grove_stream_recv in slices, so Ctrl-C during start-up does not wait
 * for the whole timeout (the agents ignore it and stay: see cmd_top). */
static int
recv_startup(grove_stream *s, grove_packet **p, int timeout_ms)
{
	double until = tool_now() + timeout_ms / 1e3;
	for (;;) {
		double left = until - tool_now();
		int ms = left > 0.25 ? 250 : left > 0 ? (int)(left * 1e3) + 1 : 0;
		int rc = grove_stream_recv(s, NULL, p, ms);
		if (rc != GROVE_ETIMEDOUT && rc != GROVE_EAGAIN)
			return rc;
		/* The last slice polls with 0 (GROVE_EAGAIN): the start-up
		 * ran out of time all the same. */
		if (top_stop || left <= 0)
			return GROVE_ETIMEDOUT;
	}
}

/* Nodes grouped by kernel release: one line per class with its rank
 * ranges, however many nodes there are. */
static int
show_classes(top *t, FILE *json, int timeout_ms)
{
	grove_packet *p;
	int rc = recv_startup(t->equiv, &p, timeout_ms);
	if (rc < 0) {
		if (top_stop)
			return rc;
		fprintf(stderr, "grove top: equivalence classes: %s (%s)\n",
		    grove_strerror(rc), grove_net_last_error(t->net));
		return rc;
	}
	grove_equiv_set *set;
	rc = grove_equiv_decode(p, &set);
	grove_packet_unref(p);
	if (rc < 0) {
		fprintf(stderr, "grove top: equivalence classes: bad reply "
		    "(%s)\n", grove_strerror(rc));
		return rc;
	}
	size_t nk = grove_equiv_count(set);
	if (json)
		fprintf(json, "\"classes\":[");
	else
		printf("%zu kernel release%s:\n", nk, nk == 1 ? "" : "s");
	for (size_t c = 0; c < nk; c++) {
		uint64_t members = grove_equiv_members(set, c);
		if (json) {
			/* A kernel release is any bytes an agent sent. */
			fprintf(json, "%s{\"key\":", c ? "," : "");
			trace_json_str(json, grove_equiv_key(set, c));
			fprintf(json, ",\"count\":%" PRIu64 ",\"ranks\":\"",
			    members);
			print_class_ranges(json, set, c);
			fprintf(json, "\"}");
		} else {
			printf("  %-32s %5" PRIu64 " nodes  ranks ",
			    grove_equiv_key(set, c), members);
			print_class_ranges(stdout, set, c);
			printf("\n");
		}
	}
	if (json)
		fprintf(json, "]");
	grove_equiv_free(set);
	return 0;
}

/* One host of the ReportSelf records. */
typedef struct host_sum {
	char name[128];
	uint32_t agents, cpus, lo_rank;
	uint64_t mem_mib;
} host_sum;

/* ReportSelf: every agent's record (host, pid, kernel, CPUs, memory),
 * summarized per host. */
static int
show_hosts(top *t, FILE *json, int timeout_ms)
{
	grove_packet *p;
	int rc = recv_startup(t->report, &p, timeout_ms);
	if (rc < 0) {
		if (top_stop)
			return rc;
		fprintf(stderr, "grove top: reports: %s (%s)\n",
		    grove_strerror(rc), grove_net_last_error(t->net));
		return rc;
	}
	grove_report *rep;
	rc = grove_report_decode(p, &rep);
	grove_packet_unref(p);
	if (rc < 0) {
		fprintf(stderr, "grove top: reports: bad reply (%s)\n",
		    grove_strerror(rc));
		return rc;
	}
	size_t n = grove_report_count(rep), nh = 0, bad = 0;
	host_sum *hs = calloc(n ? n : 1, sizeof *hs);
	if (!hs) {
		grove_report_free(rep);
		return GROVE_ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		uint32_t rank, pid, cpus;
		uint64_t mib;
		const char *host, *kernel;
		grove_packet *rec;
		if (grove_report_record(rep, i, &rank, &rec) < 0) {
			bad++;
			continue;
		}
		if (grove_packet_unpack(rec, AGENT_REPORT_FMT, &host, &pid,
		    &kernel, &cpus, &mib) == 0) {
			size_t h = 0;
			while (h < nh && strcmp(hs[h].name, host))
				h++;
			if (h == nh) {
				snprintf(hs[nh].name, sizeof hs[nh].name, "%s",
				    host);
				hs[nh].lo_rank = rank;
				hs[nh].cpus = cpus;
				hs[nh].mem_mib = mib;
				nh++;
			}
			hs[h].agents++;
		} else {
			bad++;
		}
		grove_packet_unref(rec);
	}
	if (json) {
		fprintf(json, "\"hosts\":[");
		for (size_t h = 0; h < nh; h++) {
			/* Host names are whatever the nodes are called. */
			fprintf(json, "%s{\"host\":", h ? "," : "");
			trace_json_str(json, hs[h].name);
			fprintf(json, ",\"agents\":%u,\"cpus\":%u,\"mem_mib\":%"
			    PRIu64 "}", hs[h].agents, hs[h].cpus,
			    hs[h].mem_mib);
		}
		fprintf(json, "],");
	} else {
		printf("%zu agents on %zu host%s", n, nh, nh == 1 ? "" : "s");
		if (bad)
			printf(" (%zu unreadable records)", bad);
		printf(":\n");
		for (size_t h = 0; h < nh && h < 16; h++)
			printf("  %-32s %5u agents  %u CPUs  %" PRIu64 " MiB\n",
			    hs[h].name, hs[h].agents, hs[h].cpus,
			    hs[h].mem_mib);
		if (nh > 16)
			printf("  ... and %zu more hosts\n", nh - 16);
	}
	free(hs);
	grove_report_free(rep);
	return 0;
}

/* The start-up view; for --json it becomes part of every object. */
static int
show_startup(top *t)
{
	size_t len = 0;
	FILE *json = NULL;
	if (t->o.json && !(json = open_memstream(&t->classes_json, &len)))
		return GROVE_ENOMEM;
	int rc = show_hosts(t, json, 30000);
	if (rc == 0)
		rc = show_classes(t, json, 30000);
	if (json)
		fclose(json);
	else
		printf("\n");
	return rc;
}

/* Hands what was printed to standard output.  A write that failed (the
 * reader of the pipe left, a full disk) ends the run: nothing printed
 * later would arrive.  Grove ignores SIGPIPE in this process (see
 * grove_net_create), so a closed pipe shows only here.  -1 then. */
static int
top_flush(top *t)
{
	if (fflush(stdout) != 0 || ferror(stdout))
		t->out_failed = 1;
	return t->out_failed ? -1 : 0;
}

static int
cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

/* Measures the clock offset of every agent to this front-end and shows
 * the spread, the worst error bound and the most skewed agents. */
static int
show_skew(top *t)
{
	uint32_t nb = grove_net_backends(t->net);
	grove_skew *sk = calloc(nb, sizeof *sk);
	int64_t *offs = calloc(nb, sizeof *offs);
	if (!sk || !offs) {
		free(sk);
		free(offs);
		return GROVE_ENOMEM;
	}
	double t0 = tool_now();
	int rc = grove_net_clock_skew(t->net, 0, sk, 10000);
	double took = tool_now() - t0;
	if (rc < 0) {
		fprintf(stderr, "grove top: clock skew: %s (%s)\n",
		    grove_strerror(rc), grove_net_last_error(t->net));
		free(sk);
		free(offs);
		return rc;
	}
	uint32_t n = 0, worst = 0;
	uint64_t max_err = 0;
	for (uint32_t r = 0; r < nb; r++) {
		if (sk[r].error_ns == GROVE_SKEW_UNKNOWN)
			continue;
		offs[n++] = sk[r].offset_ns;
		if (sk[r].error_ns > max_err)
			max_err = sk[r].error_ns;
		if (llabs(sk[r].offset_ns) > llabs(sk[worst].offset_ns) ||
		    sk[worst].error_ns == GROVE_SKEW_UNKNOWN)
			worst = r;
	}
	qsort(offs, n, sizeof *offs, cmp_i64);
	int64_t lo = n ? offs[0] : 0, mid = n ? offs[n / 2] : 0;
	int64_t hi = n ? offs[n - 1] : 0;
	snprintf(t->skew_json, sizeof t->skew_json, "{\"measured\":%u,"
	    "\"min_ns\":%" PRId64 ",\"median_ns\":%" PRId64 ",\"max_ns\":%"
	    PRId64 ",\"max_error_ns\":%" PRIu64 ",\"took_s\":%.3f}", n, lo,
	    mid, hi, max_err, took);
	if (!t->o.json) {
		printf("clock skew of %u of %u agents to this front-end "
		    "(%.0f ms):\n  offset min %+.3f ms, median %+.3f ms, max "
		    "%+.3f ms; error bound at most %.3f ms\n", n, nb,
		    took * 1e3, lo / 1e6, mid / 1e6, hi / 1e6, max_err / 1e6);
		if (n)
			printf("  most skewed: rank %u, %+.3f ms +- %.3f ms\n",
			    worst, sk[worst].offset_ns / 1e6,
			    sk[worst].error_ns / 1e6);
		printf("\n");
		top_flush(t);
	}
	free(sk);
	free(offs);
	return 0;
}

static void
raw_on(top *t)
{
	if (!t->tty_in || tcgetattr(STDIN_FILENO, &t->saved) < 0)
		return;
	struct termios r = t->saved;
	r.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
	r.c_cc[VMIN] = 0;
	r.c_cc[VTIME] = 0;
	if (tcsetattr(STDIN_FILENO, TCSANOW, &r) == 0)
		t->raw = 1;
}

static void
raw_off(top *t)
{
	if (t->raw)
		tcsetattr(STDIN_FILENO, TCSANOW, &t->saved);
	t->raw = 0;
}

/* Prints one interval; -1 when standard output failed (top_flush). */
static int
show_sample(top *t, const top_sample *s)
{
	/* Back-ends the tree reported lost: the view counts the missing
	 * among the live ones and names the lost apart. */
	uint32_t up = grove_net_backends_up(t->net);
	uint32_t all = grove_net_backends(t->net);
	uint32_t lost = all > up ? all - up : 0;
	if (t->o.json) {
		top_render_json(stdout, s, up, lost, t->classes_json,
		    t->skew_json[0] ? t->skew_json : NULL);
		fputc('\n', stdout);
		return top_flush(t);
	}
	char title[256], when[64];
	time_t secs = (time_t)(s->end_ns / 1000000000u);
	struct tm tm;
	localtime_r(&secs, &tm);
	strftime(when, sizeof when, "%H:%M:%S", &tm);
	snprintf(title, sizeof title, "grove top: %u nodes, %s tree, "
	    "interval ending %s%s", up,
	    t->o.file ? t->o.file : t->o.topology, when,
	    t->tty_in && !t->o.once ? "   (q quit, s clock skew)" : "");
	if (t->tty_out && !t->o.once)
		fputs("\033[H\033[2J", stdout);
	top_render_table(stdout, title, s, t->scale, up, lost);
	if (!t->tty_out || t->o.once)
		fputc('\n', stdout);
	return top_flush(t);
}

/* Intervals --once waits for one with every live agent in it: more than
 * the lag policy's longest wait (2 * 3 intervals), after which a missing
 * agent is left out of what closes anyway. */
#define TOP_ONCE_MAX_WAIT 10u

/* Handles one packet from the tree; returns 1 when --once is satisfied,
 * -1 when standard output failed. */
static int
on_packet(top *t, grove_stream *s, grove_packet *p)
{
	if (s != t->samples)
		return 0;
	top_sample smp;
	int rc = top_sample_decode(p, &smp);
	if (rc < 0) {
		fprintf(stderr, "grove top: bad aggregated sample (%s, format "
		    "%s)\n", grove_strerror(rc), grove_packet_format(p));
		return 0;
	}
	uint64_t seen = t->intervals++;
	uint32_t up = grove_net_backends_up(t->net);
	top_pick pick = top_pick_interval(seen, t->o.once, smp.count, up,
	    TOP_ONCE_MAX_WAIT);
	if (pick == TOP_SKIP)
		return 0;
	if (pick == TOP_SHOW_INCOMPLETE)
		fprintf(stderr, "grove top: no interval with all %u live "
		    "agents after %u; showing one with %u\n", up,
		    TOP_ONCE_MAX_WAIT, smp.count);
	if (show_sample(t, &smp) < 0)
		return -1;
	return t->o.once;
}

static int
run_loop(top *t)
{
	double t0 = tool_now();
	struct pollfd pf[2] = {{.fd = grove_net_fd(t->net), .events = POLLIN},
	    {.fd = STDIN_FILENO, .events = POLLIN}};
	int nfds = t->tty_in ? 2 : 1;
	while (!top_stop) {
		double left = t->o.seconds > 0 ?
		    t->o.seconds - (tool_now() - t0) : 1e9;
		if (left <= 0)
			break;
		int ms = left > 0.25 ? 250 : (int)(left * 1000) + 1;
		if (poll(pf, (nfds_t)nfds, ms) < 0 && errno != EINTR)
			return GROVE_ESYS;
		if (nfds == 2 && (pf[1].revents & POLLIN)) {
			char c;
			if (read(STDIN_FILENO, &c, 1) == 1) {
				if (c == 'q' || c == 'Q')
					break;
				if (c == 's' || c == 'S') {
					raw_off(t);
					if (t->tty_out)
						fputs("\033[H\033[2J", stdout);
					show_skew(t);
					if (t->out_failed)
						return 0;
					/* Long enough to read it before the
					 * next interval redraws the screen. */
					sleep(3);
					raw_on(t);
				}
			}
		}
		for (;;) {
			grove_stream *s;
			int32_t tag;
			grove_packet *p;
			int rc = grove_net_recv(t->net, &s, &tag, &p, 0);
			if (rc == GROVE_EAGAIN)
				break;
			/* A SIGTERM sent to the whole process group ends
			 * the agents with this process: what the tree says
			 * about that after the stop was asked for is the
			 * stop, not an error. */
			if (rc < 0 && top_stop)
				break;
			if (rc < 0) {
				fprintf(stderr, "grove top: %s (%s)\n",
				    grove_strerror(rc),
				    grove_net_last_error(t->net));
				return rc;
			}
			int done = on_packet(t, s, p);
			grove_packet_unref(p);
			/* --once has its interval, or (done < 0) standard
			 * output failed, which cmd_top reports. */
			if (done)
				return 0;
		}
		grove_event ev;
		/* On standard error in every mode: it leaves --json's lines
		 * on standard output whole, and a script learns which agents
		 * died (the records count them as "lost"). */
		while (grove_net_next_event(t->net, &ev, 0) == 0)
			if (ev.type == GROVE_EV_LOST && !top_stop)
				fprintf(stderr, "grove top: lost ranks %u-%u: "
				    "%s\n", ev.rank_lo, ev.rank_hi - 1,
				    ev.text);
	}
	if (t->o.once) {
		fprintf(stderr, "grove top: stopped before a whole interval "
		    "was reduced\n");
		return GROVE_ETIMEDOUT;
	}
	return 0;
}

int
cmd_top(int argc, char **argv)
{
	top t;
	memset(&t, 0, sizeof t);
	int rc = parse_opts(argc, argv, &t.o);
	if (rc)
		return rc < 0 ? 0 : rc;
	t.tty_in = isatty(STDIN_FILENO);
	t.tty_out = isatty(STDOUT_FILENO);
	if (t.o.once && !t.o.seconds)
		t.o.seconds = 30 + 3.0 * t.o.interval_ms / 1000;

	/* A terminal sends Ctrl-C and Ctrl-\ to its whole foreground
	 * process group, which holds the CPs and agents Grove starts too.
	 * Ignored while they are started, the two signals stay ignored in
	 * them (docs/api.md, "What children inherit"); only this process
	 * acts on them, by shutting the network down.  A handler installed
	 * before the start would leave them at the default action, and
	 * Ctrl-C would kill the tree under the front-end.  (So Ctrl-C takes
	 * effect once the processes are started.) */
	struct sigaction sa = {.sa_handler = SIG_IGN};
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGQUIT, &sa, NULL);
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);

	int status = 1;
	rc = start_network(&t);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGQUIT, &sa, NULL);
	if (rc < 0)
		goto out;
	/* Stopped during start-up: run_loop says what that means. */
	if (show_startup(&t) < 0 && !top_stop)
		goto out;
	if (!top_stop && t.o.skew && show_skew(&t) < 0)
		goto out;
	if (!t.o.once)
		raw_on(&t);
	rc = t.out_failed ? 0 : run_loop(&t);
	raw_off(&t);
	status = rc < 0 ? 1 : 0;
out:
	raw_off(&t);
	if (t.net)
		grove_net_destroy(t.net);
	free(t.classes_json);
	/* Standard output failed: the run ended there, the network is shut
	 * down; say so and fail, as every command does. */
	if (t.out_failed)
		return tool_finish_output("grove top", stdout, NULL,
		    GROVE_ESYS);
	return status;
}

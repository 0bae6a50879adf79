/* grove logp: P-LogP parameters of this machine's link classes.
 *
 *   grove logp measure [-c host|lan|wan[,...]] [-s 1-4M] [-r N] [-l D]
 *                      [-B R] [-k pipe|socket] [-o FILE] [-q]
 *
 * The method is in docs/logp-measure.md; the measurement itself in
 * logp_measure.c and the file format in logp_write.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../cli_opts.h"
#include "../cmds.h"
#include "topo/quantity.h"
#include "logp_crowd.h"
#include "logp_measure.h"
#include "logp_write.h"
#include "../toolutil.h"

/* Largest message size accepted on the command line. */
#define LOGP_MAX_SIZE (256ull << 20)
#define LOGP_MAX_SIZES 64
#define LOGP_MAX_REPS 1000

#define LOGP_USAGE_MEASURE \
	"grove logp measure [--class host|lan|wan[,...]] [--sizes LIST]\n" \
	"                          [--reps N] [--latency D] [--bandwidth R] " \
	"[-o FILE]\n" \
	"                          [--local-link pipe|socket] [-q]\n"

/* grove logp --help (measure 0), or grove logp measure --help. */
static void
logp_usage(FILE *f, int measure)
{
	if (!measure) {
		fprintf(f,
		    "usage: " LOGP_USAGE_MEASURE
		    "\n"
		    "P-LogP parameters of this machine's link classes "
		    "(docs/logp-measure.md).\n"
		    "'measure' measures them and writes a parameter file; "
		    "'grove logp measure\n--help' describes its options.\n"
		    "\n"
		    "Exit status: 0 ok, 1 measurement failed or output not "
		    "written,\n2 usage error.\n");
		return;
	}
	fprintf(f,
	    "usage: " LOGP_USAGE_MEASURE
	    "\n"
	    "Measure the P-LogP parameters L, os(m), or(m) and g(m) between two\n"
	    "processes over Grove's connection layer, print them with their\n"
	    "spread over the repetitions, and write a parameter file.\n"
	    "\n"
	    "  -c, --class LIST     link classes, comma-separated (default host):\n"
	    "                         host  two local processes, linked as a node\n"
	    "                               and a child it starts on its host\n"
	    "                         lan   TCP over loopback\n"
	    "                         wan   TCP over loopback through the link\n"
	    "                               emulator (--latency, --bandwidth)\n"
	    "  -s, --sizes LIST     message sizes in bytes: A-B (powers of two\n"
	    "                       from A up to B) or A,B,C; K and M suffixes\n"
	    "                       are KiB and MiB; every size a power of two\n"
	    "                       up to 256M (default 1-4M; wan: 1-64K)\n"
	    "  -r, --reps N         repetitions (default 5; wan: 3)\n"
	    "  -l, --latency D      wan latency (default 10ms, as in the paper)\n"
	    "  -B, --bandwidth R    wan bandwidth (default 1MB/s)\n"
	    "  -k, --local-link T   host: pipe (two pipes) or socket (a Unix\n"
	    "                       socket pair); default pipe, or socket when\n"
	    "                       $GROVE_LOCAL_LINK is socket, as for networks\n"
	    "  -o, --output FILE    write the parameter file there\n"
	    "  -q, --quiet          no progress on standard error\n"
	    "  -h, --help           show this help\n"
	    "\n"
	    "Exit status: 0 ok, 1 measurement failed or output not written,\n"
	    "2 usage error.\n");
}

#define MEASURE_CMD "grove logp measure"

static int
usage_error(const char *msg, const char *arg)
{
	return tool_usage_error(MEASURE_CMD, msg, arg);
}

/* One size of a --sizes list: "123", "4K", "4M" (KiB, MiB).  It must be
 * a power of two in [1, LOGP_MAX_SIZE]: the parameter file holds the log2
 * grid (docs/logp.md), and finding that out after the whole measurement
 * would waste it.  Returns the size and sets *end past it, or returns 0
 * with why naming the size and what is wrong. */
static unsigned long long
parse_size(const char *s, const char **end, char *why, size_t whylen)
{
	int len = (int)strcspn(s, ",-");
	*end = s;
	if (!len) {
		snprintf(why, whylen, "a size is missing");
		return 0;
	}
	if (*s < '0' || *s > '9') {
		snprintf(why, whylen, "'%.*s' is not a size in bytes", len, s);
		return 0;
	}
	errno = 0;
	char *e;
	unsigned long long v = strtoull(s, &e, 10);
	unsigned shift = 0;
	if (*e == 'K' || *e == 'k')
		shift = 10;
	else if (*e == 'M' || *e == 'm')
		shift = 20;
	if (shift)
		e++;
	if (e != s + len) {
		snprintf(why, whylen, "'%.*s' is not a size in bytes (K and M "
		    "suffixes)", len, s);
		return 0;
	}
	/* Compared before shifting: a shift would lose the high bits. */
	if (errno || v > LOGP_MAX_SIZE >> shift) {
		snprintf(why, whylen, "size %.*s is larger than 256M", len, s);
		return 0;
	}
	v <<= shift;
	if (v == 0 || (v & (v - 1))) {
		snprintf(why, whylen, "size %.*s is not a power of two", len, s);
		return 0;
	}
	*end = e;
	return v;
}

/* Fills sizes[] (ascending, at most LOGP_MAX_SIZES); returns the count,
 * or -1 with why saying what is wrong. */
static int
parse_sizes(const char *spec, size_t *sizes, char *why, size_t whylen)
{
	const char *e;
	unsigned long long a = parse_size(spec, &e, why, whylen);
	if (!a)
		return -1;
	int n = 0;
	if (*e == '-') {
		unsigned long long b = parse_size(e + 1, &e, why, whylen);
		if (!b)
			return -1;
		if (*e || b < a) {
			snprintf(why, whylen, "A-B wants two sizes, A <= B");
			return -1;
		}
		for (unsigned long long m = a; m <= b; m *= 2)
			sizes[n++] = (size_t)m;	/* at most 29: 1-256M */
		return n;
	}
	sizes[n++] = (size_t)a;
	while (*e == ',') {
		unsigned long long v = parse_size(e + 1, &e, why, whylen);
		if (!v)
			return -1;
		if (v <= sizes[n - 1]) {
			snprintf(why, whylen, "sizes must ascend: %llu after %zu",
			    v, sizes[n - 1]);
			return -1;
		}
		if (n == LOGP_MAX_SIZES) {
			snprintf(why, whylen, "more than %d sizes", LOGP_MAX_SIZES);
			return -1;
		}
		sizes[n++] = (size_t)v;
	}
	if (*e) {
		snprintf(why, whylen, "A-B or A,B,C wanted");
		return -1;
	}
	return n;
}

/* Latency and bandwidth in the cluster map's units ("10ms", "1MB/s"),
 * each read on its own by the map's quantity parser: pasted into map
 * text, a '#' or a space in one would end or split its word and let the
 * rest of the line go unread.  0, or 2 after the usage error. */
static int
parse_wan(const char *lat, const char *bw, double *lat_s, double *bw_Bps)
{
	if (cluster_parse_duration(lat, lat_s) != 0)
		return usage_error("bad --latency (a number with s, ms, us or "
		    "ns, e.g. 10ms)", lat);
	if (cluster_parse_rate(bw, bw_Bps) != 0)
		return usage_error("bad --bandwidth (a number with B/s, KB/s, "
		    "MB/s, GB/s, KiB/s, MiB/s, GiB/s, bit/s, kbit/s, Mbit/s "
		    "or Gbit/s, e.g. 1MB/s)", bw);
	return 0;
}

/* 1.23 us / 4.56 ms / 1.2 s */
static const char *
fmt_time(double s, char *buf, size_t len)
{
	if (s < 1e-3)
		snprintf(buf, len, "%8.2f us", s * 1e6);
	else if (s < 1)
		snprintf(buf, len, "%8.3f ms", s * 1e3);
	else
		snprintf(buf, len, "%8.3f s ", s);
	return buf;
}

static void
print_table(const logp_table *t, const logp_cfg *cfg)
{
	char a[32], b[32], c[32], d[32];
	printf("class %s", t->cls);
	if (cfg->link == LOGP_WAN)
		printf(" (emulated: latency %g ms, bandwidth %g MB/s)",
		    cfg->latency_s * 1e3, cfg->bandwidth_Bps * 1e-6);
	printf(": %d repetitions in %.1f s\n", cfg->reps, t->seconds);
	printf("  L = %s   (spread %.1f%%)\n", fmt_time(t->L, a, sizeof a),
	    t->L_spread * 100);
	printf("  %9s  %11s  %11s  %11s  %11s   spread os/or/g/w (%%)\n",
	    "size", "os", "or", "g", "w");
	for (size_t i = 0; i < t->n; i++) {
		const logp_row *r = &t->rows[i];
		printf("  %9zu  %s  %s  %s  %s   %5.1f %5.1f %5.1f %5.1f\n",
		    r->size, fmt_time(r->os, a, sizeof a), fmt_time(r->or_, b,
		    sizeof b), fmt_time(r->g, c, sizeof c), fmt_time(r->w, d,
		    sizeof d), r->os_spread * 100, r->or_spread * 100,
		    r->g_spread * 100, r->w_spread * 100);
	}
	if (!t->n_crowds)
		return;
	printf("  w with K processes per core taking turns:\n  %9s",
	    "size");
	for (size_t k = 0; k < t->n_crowds; k++)
		printf("  %8s%-3u", "K=", t->crowd_K[k]);
	printf("\n");
	for (size_t i = 0; i < t->n; i++) {
		if (t->crowd_w[i] < 0)
			continue;
		printf("  %9zu", t->rows[i].size);
		for (size_t k = 0; k < t->n_crowds; k++)
			printf("  %s", fmt_time(t->crowd_w[k * t->n + i], a,
			    sizeof a));
		printf("\n");
	}
}

static int
logp_measure_cmd(int argc, char **argv)
{
	static const struct option opts[] = {
		{"class", required_argument, NULL, 'c'},
		{"sizes", required_argument, NULL, 's'},
		{"reps", required_argument, NULL, 'r'},
		{"latency", required_argument, NULL, 'l'},
		{"bandwidth", required_argument, NULL, 'B'},
		{"local-link", required_argument, NULL, 'k'},
		CLI_OPT_OUTPUT,
		{"quiet", no_argument, NULL, 'q'},
		CLI_OPT_HELP,
		{NULL, 0, NULL, 0},
	};
	const char *classes = "host", *sizes_spec = NULL, *out = NULL;
	const char *lat = "10ms", *bw = "1MB/s";
	/* Default: what grove_net_create picks (grove_local_link). */
	const char *ll = getenv("GROVE_LOCAL_LINK");
	int host_socket = ll && !strcmp(ll, "socket");
	long reps = 0;
	int quiet = 0, ch;
	optind = 1;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":c:s:r:l:B:k:o:qh", opts,
	    NULL)) != -1) {
		switch (ch) {
		case 'c': classes = optarg; break;
		case 's': sizes_spec = optarg; break;
		case 'r': {
			char *e;
			errno = 0;
			reps = strtol(optarg, &e, 10);
			if (errno || *e || reps < 1 || reps > LOGP_MAX_REPS)
				return usage_error("--reps wants 1..1000", optarg);
			break;
		}
		case 'l': lat = optarg; break;
		case 'B': bw = optarg; break;
		case 'k':
			if (strcmp(optarg, "pipe") && strcmp(optarg, "socket"))
				return usage_error("--local-link wants pipe or "
				    "socket", optarg);
			host_socket = optarg[0] == 's';
			break;
		case 'o': out = optarg; break;
		case 'q': quiet = 1; break;
		case 'h': logp_usage(stdout, 1); return 0;
		default: return cli_opt_error(MEASURE_CMD, ch, argv);
		}
	}
	if (optind < argc)
		return usage_error("unexpected argument", argv[optind]);

	logp_link links[3];
	size_t n_links = 0;
	char list[64];
	if (strlen(classes) >= sizeof list)
		return usage_error("bad class list", classes);
	snprintf(list, sizeof list, "%s", classes);
	char *save = NULL;
	for (char *tok = strtok_r(list, ",", &save); tok;
	    tok = strtok_r(NULL, ",", &save)) {
		logp_link l;
		if (logp_link_parse(tok, &l) != 0)
			return usage_error("unknown class (host, lan or wan)", tok);
		for (size_t i = 0; i < n_links; i++)
			if (links[i] == l)
				return usage_error("class given twice", tok);
		links[n_links++] = l;
	}
	if (!n_links)
		return usage_error("no class given", classes);
	size_t sizes[LOGP_MAX_SIZES];
	int n_sizes = 0;
	if (sizes_spec) {
		char why[128], msg[256];
		n_sizes = parse_sizes(sizes_spec, sizes, why, sizeof why);
		if (n_sizes <= 0) {
			snprintf(msg, sizeof msg, "bad size list '%.64s': %s",
			    sizes_spec, why);
			return usage_error(msg, NULL);
		}
	}
	double lat_s, bw_Bps;
	int bad = parse_wan(lat, bw, &lat_s, &bw_Bps);
	if (bad)
		return bad;
	/* Before the measurement, not a minute later. */
	if (out) {
		char err[256];
		if (logp_check_output(out, err, sizeof err) != 0) {
			fprintf(stderr, "grove logp: %s: %s\n", out, err);
			return 1;
		}
	}

	logp_table tables[3];
	size_t done = 0;
	int status = 0;
	for (size_t i = 0; i < n_links; i++) {
		size_t def[LOGP_MAX_SIZES];
		char why[128];
		int n_def = parse_sizes(links[i] == LOGP_WAN ? "1-64K" : "1-4M",
		    def, why, sizeof why);
		logp_cfg cfg = {
			.link = links[i],
			.sizes = sizes_spec ? sizes : def,
			.n_sizes = (size_t)(sizes_spec ? n_sizes : n_def),
			.reps = reps ? (int)reps : links[i] == LOGP_WAN ? 3 : 5,
			.latency_s = lat_s,
			.bandwidth_Bps = bw_Bps,
			.host_socket = host_socket,
			.verbose = !quiet && isatty(2),
		};
		char err[512];
		int rc = logp_measure(&cfg, &tables[done], err, sizeof err);
		/* Local hops also in crowds of processes sharing a core,
		 * for the model's host CPU bound (docs/logp.md). */
		if (rc == 0 && links[i] == LOGP_HOST) {
			struct timespec t0, t1;
			clock_gettime(CLOCK_MONOTONIC, &t0);
			rc = logp_crowd_table(&tables[done], cfg.verbose, err,
			    sizeof err);
			clock_gettime(CLOCK_MONOTONIC, &t1);
			tables[done].seconds += (double)(t1.tv_sec -
			    t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9;
			if (rc != 0)
				logp_table_fini(&tables[done]);
		}
		if (rc != 0) {
			fprintf(stderr, "grove logp: class %s: %s\n",
			    logp_link_name(links[i]), err);
			status = 1;
			break;
		}
		print_table(&tables[done], &cfg);
		done++;
	}
	if (status == 0 && out) {
		char err[512];
		if (logp_write_file(out, tables, done, err, sizeof err) != 0) {
			fprintf(stderr, "grove logp: %s: %s\n", out, err);
			status = 1;
		} else {
			printf("wrote %s\n", out);
		}
	}
	for (size_t i = 0; i < done; i++)
		logp_table_fini(&tables[i]);
	return status;
}

int
cmd_logp(int argc, char **argv)
{
	if (argc < 2) {
		logp_usage(stderr, 0);
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		logp_usage(stdout, 0);
		return 0;
	}
	if (!strcmp(argv[1], "measure"))
		return logp_measure_cmd(argc - 1, argv + 1);
	return tool_usage_error("grove logp", argv[1][0] == '-' ?
	    "unknown option" : "unknown subcommand (try 'measure')", argv[1]);
}

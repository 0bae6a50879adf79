/* grove bench bcs: what the BCS core primitives cost on this machine.
 *
 * For each machine size (flat networks of 1, 2 and 4 nodes by default;
 * the nodes are this program again, `grove bench bcs --node`, which open
 * a node and serve it): the round trip of a Compare-And-Write over every
 * node (query down, reduction up), of one that also writes and signals
 * (the strobe's use: a query, a reduction and the write's multicast),
 * and of a manager Xfer-And-Signal of 64 bytes and of 4 KiB to every
 * node until its local event says every node has it.  Prints mean,
 * median, 99th percentile and minimum of each.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_bcs.h"
#include "../bench_stats.h"
#include "../cli_opts.h"
#include "../toolutil.h"
#include "grove/grove.h"
#include "grove/bcs.h"
#include "bcs/strobe.h"

#define BCS_CMD "grove bench bcs"
#define BCS_OPS 4

typedef struct bcs_cfg {
	unsigned sizes[8];
	unsigned nsizes;
	int iters;
	int json;
	unsigned strobe_slices; /* --strobe N: slices of 1 ms first */
} bcs_cfg;

static const char *const op_names[BCS_OPS] = {
	"caw", "caw_write", "xfer_64", "xfer_4k",
};

typedef struct bcs_res {
	double mean, median, p99, min;
} bcs_res;

static int
usage(FILE *f)
{
	fprintf(f,
	    "usage: grove bench bcs [--nodes LIST] [--iters K] [--strobe N] "
	    "[-j]\n"
	    "\n"
	    "The BCS core primitives on flat networks of this program's "
	    "nodes: round\n"
	    "trips of Compare-And-Write over every node (caw), of one that "
	    "also writes\n"
	    "a variable and signals an event (caw_write), and of a manager\n"
	    "Xfer-And-Signal to every node of 64 bytes and 4 KiB until the "
	    "local\n"
	    "event (xfer_64, xfer_4k).  Mean, median, 99th percentile and "
	    "minimum.\n"
	    "\n"
	    "      --nodes LIST     machine sizes (default 1,2,4; each "
	    "1..1024)\n"
	    "      --iters K        operations of each kind to time "
	    "(1..1000000,\n"
	    "                       default 2000)\n"
	    "      --strobe N       first N idle strobe slices of 1 ms: "
	    "GETTS against\n"
	    "                       the slice (mean, p99 and max deviation), "
	    "GTTS\n"
	    "  -j, --json           one JSON object\n"
	    "  -h, --help           show this help\n"
	    "\n"
	    "Exit status: 0 ok, 1 the machine failed (said on standard "
	    "error), 2 usage\nerror.\n");
	return f == stdout ? 0 : 2;
}

static int
idle_phase(void *arg, uint64_t slice, int ph, bool *more,
    bcs_strobe_counts *c)
{
	(void)arg;
	(void)slice;
	(void)ph;
	(void)c;
	*more = false;
	return 0;
}

/* The node: open, then serve until the manager closes the machine. */
static int
node_main(int argc, char **argv)
{
	grove_be *be = NULL;
	int rc = grove_be_init(&argc, &argv, &be);
	if (rc != 0) {
		fprintf(stderr, "%s --node: %s\n", BCS_CMD,
		    be ? grove_be_last_error(be) : grove_strerror(rc));
		grove_be_destroy(be);
		return 1;
	}
	grove_bcs *b = NULL;
	rc = grove_bcs_node_open(be, NULL, &b);
	if (rc != 0) {
		fprintf(stderr, "%s --node: %s\n", BCS_CMD,
		    b ? grove_bcs_last_error(b) : grove_strerror(rc));
		grove_bcs_close(b);
		grove_be_destroy(be);
		return 1;
	}
	/* Idle microphases while the manager strobes (--strobe), then
	 * serve the other operations until the machine closes. */
	if (argc > 3 && !strcmp(argv[3], "--strobe"))
		bcs_strobe_receiver_run(b, idle_phase, NULL, NULL);
	while (grove_bcs_test_event(b, 0, 1000) != GROVE_ECLOSED)
		;
	grove_bcs_close(b);
	grove_be_destroy(be);
	return 0;
}

static void
summarize(double *t, int n, bcs_res *r)
{
	double sum = 0;
	for (int i = 0; i < n; i++)
		sum += t[i];
	qsort(t, (size_t)n, sizeof *t, bench_cmp_double);
	r->mean = sum / n;
	r->median = t[n / 2];
	r->p99 = t[(int)((n - 1) * 0.99)];
	r->min = t[0];
}

static int
fail(grove_bcs *b, const char *what, int rc)
{
	fprintf(stderr, "%s: %s: %s: %s\n", BCS_CMD, what, grove_err_name(rc),
	    b ? grove_bcs_last_error(b) : "");
	return 1;
}

/* One timed operation of kind op (i: its number). */
static int
one(grove_bcs *b, int op, int i, char *buf)
{
	int rc;
	if (op < 2) {
		grove_bcs_cw cw = {.var = 0, .cmp = GROVE_BCS_GE,
		    .value = 0, .write = op == 1, .write_var = 1,
		    .write_value = i, .write_event = 1};
		rc = grove_bcs_compare_and_write(b, &cw, 30000);
		return rc == 1 ? 0 : rc == 0 ? GROVE_EPROTO : rc;
	}
	grove_bcs_xfer x = {.src_addr = (uintptr_t)buf, .dst_addr = 0,
	    .len = op == 2 ? 64 : 4096, .local_event = 2,
	    .remote_event = 3};
	rc = grove_bcs_xfer_and_signal(b, &x);
	if (rc == 0)
		rc = grove_bcs_test_event(b, 2, 30000);
	return rc == 1 ? 0 : rc == 0 ? GROVE_ETIMEDOUT : rc;
}

/* Idle slices of 1 ms: GETTS (strobe to strobe) against the slice, and
 * the shortest GTTS (a slice that ends after MSM). */
static int
strobe_run(const bcs_cfg *c, grove_bcs *b, unsigned nodes)
{
	bcs_emds e;
	char err[200];
	if (bcs_emds_init(&e, 0, 0, 0, c->strobe_slices - 1, err,
	    sizeof err) != 0) {
		fprintf(stderr, "%s: %s\n", BCS_CMD, err);
		return 1;
	}
	bcs_strobe_cfg sc = {.slice_ns = 1000000, .slices = c->strobe_slices,
	    .emds = &e};
	bcs_strobe_result r;
	int rc = bcs_strobe_sender_run(b, &sc, &r);
	if (rc != 0) {
		bcs_emds_fini(&e);
		return fail(b, "strobe", rc);
	}
	unsigned n = c->strobe_slices - 1;
	double *dev = malloc((n ? n : 1) * sizeof *dev);
	double sum = 0, gtts = 0;
	for (unsigned i = 1; i <= n; i++) {
		const uint64_t *v = e.vals + (size_t)i * BCS_EMDS_COLS;
		sum += (double)v[BCS_GETTS];
		double d = (double)v[BCS_GETTS] - 1e6;
		dev[i - 1] = d < 0 ? -d : d;
	}
	for (unsigned i = 0; i <= n; i++)
		gtts += (double)e.vals[(size_t)i * BCS_EMDS_COLS + BCS_GTTS];
	if (n) {
		qsort(dev, n, sizeof *dev, bench_cmp_double);
		printf("%s  strobe, %u nodes: %u idle slices of 1 ms: GETTS mean "
		    "%.1f us, |GETTS - slice| p99 %.1f us, max %.1f us; GTTS "
		    "mean %.1f us, min %.1f us; %llu retries\n",
		    c->json ? "# " : "", nodes, c->strobe_slices, sum / n / 1e3,
		    dev[(size_t)((n - 1) * 0.99)] / 1e3, dev[n - 1] / 1e3,
		    gtts / (n + 1) / 1e3, (double)r.min_gtts_ns / 1e3,
		    (unsigned long long)r.retries);
	}
	free(dev);
	bcs_emds_fini(&e);
	return 0;
}

static int
machine(const bcs_cfg *c, const char *self, unsigned nodes,
    bcs_res res[BCS_OPS])
{
	static char *argv[] = {"grove", "bench", "bcs", "--node", NULL, NULL};
	argv[4] = c->strobe_slices ? "--strobe" : NULL;
	grove_net_opts o;
	grove_net_opts_init(&o);
	o.topology = "flat";
	o.backends = nodes;
	o.be_exe = self;
	o.be_argv = argv;
	char cn[4096], err[512];
	if (tool_find_program("grove-commnode", "GROVE_COMMNODE", cn,
	    sizeof cn, err, sizeof err) == 0)
		o.commnode_exe = cn;
	grove_net *net = NULL;
	int rc = grove_net_create(&o, &net);
	if (rc != 0) {
		fprintf(stderr, "%s: create: %s\n", BCS_CMD,
		    net ? grove_net_last_error(net) : grove_strerror(rc));
		grove_net_destroy(net);
		return 1;
	}
	grove_bcs *b = NULL;
	rc = grove_bcs_manager_open(net, NULL, &b);
	if (rc != 0) {
		fail(b, "open", rc);
		grove_bcs_close(b);
		grove_net_destroy(net);
		return 1;
	}
	if (c->strobe_slices && strobe_run(c, b, nodes) != 0) {
		grove_bcs_close(b);
		grove_net_destroy(net);
		return 1;
	}
	double *t = malloc((size_t)c->iters * sizeof *t);
	char buf[4096];
	memset(buf, 1, sizeof buf);
	int status = 0;
	for (int op = 0; op < BCS_OPS && !status; op++) {
		for (int i = -100; i < c->iters; i++) {
			double t0 = tool_now();
			rc = one(b, op, i, buf);
			if (rc != 0) {
				status = fail(b, op_names[op], rc);
				break;
			}
			if (i >= 0)
				t[i] = tool_now() - t0;
		}
		if (!status)
			summarize(t, c->iters, &res[op]);
	}
	free(t);
	grove_bcs_close(b);
	grove_net_destroy(net);
	return status;
}

static int
parse(int argc, char **argv, bcs_cfg *c)
{
	enum { OPT_NODES = 256, OPT_ITERS, OPT_STROBE };
	static const struct option opts[] = {
		CLI_OPT_JSON, CLI_OPT_HELP,
		{"nodes", required_argument, NULL, OPT_NODES},
		{"iters", required_argument, NULL, OPT_ITERS},
		{"strobe", required_argument, NULL, OPT_STROBE},
		{NULL, 0, NULL, 0},
	};
	int ch;
	optind = 1;
	opterr = 0;
	while ((ch = getopt_long(argc - 1, argv + 1, ":jh", opts, NULL)) !=
	    -1) {
		switch (ch) {
		case 'j':
			c->json = 1;
			break;
		case 'h':
			return usage(stdout) + 100;
		case OPT_ITERS: {
			long x = tool_parse_count(optarg, 1000000);
			if (x < 1)
				return tool_usage_error(BCS_CMD, "--iters wants "
				    "1..1000000, not", optarg);
			c->iters = (int)x;
			break;
		}
		case OPT_STROBE: {
			long x = tool_parse_count(optarg, 100000);
			if (x < 2)
				return tool_usage_error(BCS_CMD, "--strobe wants "
				    "2..100000 slices, not", optarg);
			c->strobe_slices = (unsigned)x;
			break;
		}
		case OPT_NODES: {
			c->nsizes = 0;
			char *s = optarg, *end;
			for (;;) {
				long x = strtol(s, &end, 10);
				if (end == s || x < 1 || x > 1024 ||
				    c->nsizes == 8 || (*end && *end != ','))
					return tool_usage_error(BCS_CMD,
					    "--nodes wants up to 8 sizes "
					    "1..1024 (1,2,4), not", optarg);
				c->sizes[c->nsizes++] = (unsigned)x;
				if (!*end)
					break;
				s = end + 1;
			}
			break;
		}
		case ':':
			return tool_usage_error(BCS_CMD, "missing value for",
			    argv[optind]);
		default:
			return tool_usage_error(BCS_CMD, "unknown option",
			    argv[optind]);
		}
	}
	if (optind + 1 < argc)
		return tool_usage_error(BCS_CMD, "unexpected argument",
		    argv[optind + 1]);
	return 0;
}

int
bench_bcs(int argc, char **argv)
{
	if (argc > 2 && !strcmp(argv[2], "--node"))
		return node_main(argc, argv);
	bcs_cfg c = {.sizes = {1, 2, 4}, .nsizes = 3, .iters = 2000};
	int rc = parse(argc, argv, &c);
	if (rc)
		return rc >= 100 ? rc - 100 : rc;
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n <= 0) {
		fprintf(stderr, "%s: cannot read /proc/self/exe\n", BCS_CMD);
		return 1;
	}
	self[n] = '\0';
	if (c.json)
		printf("{\"benchmark\": \"bcs\", \"iters\": %d, \"machines\": [",
		    c.iters);
	else
		printf("grove bench bcs: flat networks, %d operations of each "
		    "kind (after 100 warm-ups), microseconds\n", c.iters);
	for (unsigned k = 0; k < c.nsizes; k++) {
		bcs_res res[BCS_OPS];
		if (machine(&c, self, c.sizes[k], res) != 0)
			return 1;
		if (c.json) {
			printf("%s{\"nodes\": %u", k ? ", " : "", c.sizes[k]);
			for (int op = 0; op < BCS_OPS; op++)
				printf(", \"%s\": {\"mean_s\": %.9f, \"median_s\": "
				    "%.9f, \"p99_s\": %.9f, \"min_s\": %.9f}",
				    op_names[op], res[op].mean, res[op].median,
				    res[op].p99, res[op].min);
			printf("}");
			continue;
		}
		printf("  %u node%s\n", c.sizes[k], c.sizes[k] > 1 ? "s" : "");
		for (int op = 0; op < BCS_OPS; op++)
			printf("    %-10s mean %8.1f  median %8.1f  p99 %8.1f  "
			    "min %8.1f\n", op_names[op], res[op].mean * 1e6,
			    res[op].median * 1e6, res[op].p99 * 1e6,
			    res[op].min * 1e6);
	}
	if (c.json) {
		printf("]");
		tool_json_machine();
		printf("}\n");
	}
	return 0;
}

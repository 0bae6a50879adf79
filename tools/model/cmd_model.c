/* grove model: the P-LogP model from the command line: print a parameter
 * file as a table, predict and optimize broadcasts. */
#include <stdio.h>
#include <string.h>

#include "../cli_opts.h"
#include "../cmds.h"
#include "grove/logp.h"
#include "../model_opts.h"
#include "../toolutil.h"

/* What each subcommand's --help says after its usage lines. */
#define MODEL_PARAMS_OPTS \
	"  -p, --params FILE     parameter file (`grove logp measure` makes\n" \
	"                        one); a bare name that is no file here is\n" \
	"                        looked up in Grove's share/grove/logp, which\n" \
	"                        holds the example default.params\n"
#define MODEL_BCAST_OPTS \
	"  -c, --clusters C      number of clusters (1: a single LAN)\n" \
	"  -n, --per-cluster P   processes per cluster (1: WAN only)\n" \
	"  -s, --size BYTES      message size; suffixes K, M, G (1024-based)\n" \
	"  -S, --scheme NAME     optimized (default), original,\n" \
	"                        whole-nonblocking, sequential, or all\n" \
	"  -e, --elem BYTES      element size; segments are multiples (1)\n" \
	"  -x, --search HOW      heuristic (default), paper (the paper's\n" \
	"                        heuristics exactly) or exhaustive\n" \
	"  -l, --local CLASS     link class inside clusters (lan)\n" \
	"  -w, --wide CLASS      link class between clusters (wan)\n" \
	"  -j, --json            one JSON object per scheme\n"
#define MODEL_USAGE_PARAMS "grove model params --params FILE\n"
#define MODEL_USAGE_BCAST \
	"grove model bcast --params FILE --clusters C --per-cluster P\n" \
	"                         --size BYTES [--scheme NAME] [--elem BYTES]\n" \
	"                         [--search heuristic|paper|exhaustive]\n" \
	"                         [--local CLASS] [--wide CLASS] [--json]\n"

/* grove model --help (sub NULL), or one subcommand's. */
static void
model_usage(FILE *f, const char *sub)
{
	if (sub && !strcmp(sub, "params")) {
		fprintf(f, "usage: " MODEL_USAGE_PARAMS "\n"
		    "Prints a P-LogP parameter file (docs/logp.md) as a "
		    "table.\n\n" MODEL_PARAMS_OPTS
		    "  -h, --help            show this help\n"
		    "\n"
		    "Exit status: 0 ok, 1 bad parameter file or output that "
		    "cannot be written,\n2 usage error (also an option only "
		    "bcast takes).\n");
		return;
	}
	if (sub) {
		fprintf(f, "usage: " MODEL_USAGE_BCAST "\n"
		    "Predicts the completion time of a broadcast of BYTES over "
		    "C clusters of P\nprocesses each, with the segment size "
		    "and trees the optimizer chooses\n(docs/logp.md).  Times "
		    "are in microseconds.\n\n" MODEL_PARAMS_OPTS
		    MODEL_BCAST_OPTS
		    "  -h, --help            show this help\n"
		    "\n"
		    "Exit status: 0 ok, 1 bad parameter file or cluster map, "
		    "exhaustive search\ntoo large (over 1e9 evaluations), "
		    "prediction out of range or output that\ncannot be "
		    "written, 2 usage error.\n");
		return;
	}
	fprintf(f,
	    "usage: " MODEL_USAGE_PARAMS "       " MODEL_USAGE_BCAST
	    "\n"
	    "The P-LogP model (docs/logp.md).  'params' prints a parameter file\n"
	    "as a table; 'bcast' predicts the completion time of a broadcast of\n"
	    "BYTES over C clusters of P processes each, with the segment size\n"
	    "and trees the optimizer chooses.  'grove model SUBCOMMAND --help'\n"
	    "describes its options.\n"
	    "\n"
	    "Times are in microseconds.  Exit status: 0 ok, 1 bad parameter\n"
	    "file or cluster map, exhaustive search too large (over 1e9\n"
	    "evaluations), prediction out of range or output that cannot be\n"
	    "written, 2 usage error.\n");
}

struct model_args {
	const char *cmd;    /* "grove model params" or "grove model bcast" */
	const char *sub;    /* "params" or "bcast" */
	const char *params;
	const char *clusters, *per_cluster, *size;
	const char *scheme;
	uint32_t elem;
	grove_logp_search how;
	grove_logp_class local, wide;
	int json;
	/* The first option given that only bcast uses (its long name):
	 * params refuses it rather than ignore it. */
	const char *bcast_only;
};

/* A usage error of the subcommand a is for. */
static int
usage_error(const struct model_args *a, const char *msg, const char *arg)
{
	return tool_usage_error(a->cmd, msg, arg);
}

static void
note_bcast_only(struct model_args *a, const char *name)
{
	if (!a->bcast_only)
		a->bcast_only = name;
}

static int
parse_args(int argc, char **argv, struct model_args *a)
{
	static const struct option opts[] = {
		{"params", required_argument, NULL, 'p'},
		{"clusters", required_argument, NULL, 'c'},
		{"per-cluster", required_argument, NULL, 'n'},
		{"size", required_argument, NULL, 's'},
		{"scheme", required_argument, NULL, 'S'},
		{"elem", required_argument, NULL, 'e'},
		{"search", required_argument, NULL, 'x'},
		{"local", required_argument, NULL, 'l'},
		{"wide", required_argument, NULL, 'w'},
		{"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	uint64_t elem;
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":p:c:n:s:S:e:x:l:w:jh", opts,
	    NULL)) != -1) {
		switch (c) {
		case 'p':
			a->params = optarg;
			break;
		case 'c':
			note_bcast_only(a, "--clusters");
			a->clusters = optarg;
			break;
		case 'n':
			note_bcast_only(a, "--per-cluster");
			a->per_cluster = optarg;
			break;
		case 's':
			note_bcast_only(a, "--size");
			a->size = optarg;
			break;
		case 'S':
			note_bcast_only(a, "--scheme");
			a->scheme = optarg;
			break;
		case 'e':
			note_bcast_only(a, "--elem");
			if (model_parse_size(optarg, &elem) || elem == 0 ||
			    elem > UINT32_MAX)
				return usage_error(a, "--elem needs a positive "
				    "size", optarg);
			a->elem = (uint32_t)elem;
			break;
		case 'x':
			note_bcast_only(a, "--search");
			if (!strcmp(optarg, "heuristic"))
				a->how = GROVE_LOGP_HEURISTIC;
			else if (!strcmp(optarg, "exhaustive"))
				a->how = GROVE_LOGP_EXHAUSTIVE;
			else if (!strcmp(optarg, "paper"))
				a->how = GROVE_LOGP_PAPER;
			else
				return usage_error(a, "--search is heuristic, "
				    "paper or exhaustive", optarg);
			break;
		case 'l':
		case 'w':
			note_bcast_only(a, c == 'l' ? "--local" : "--wide");
			if (grove_logp_class_parse(optarg, c == 'l' ?
			    &a->local : &a->wide))
				return usage_error(a, "unknown link class "
				    "(host, lan, wan)", optarg);
			break;
		case 'j':
			note_bcast_only(a, "--json");
			a->json = 1;
			break;
		case 'h':
			model_usage(stdout, a->sub);
			return 0;
		default:
			return cli_opt_error(a->cmd, c, argv);
		}
	}
	if (optind < argc)
		return usage_error(a, "unexpected argument", argv[optind]);
	if (!a->params)
		return usage_error(a, "--params FILE is required", NULL);
	return -1; /* go on */
}

static int
cmd_params(struct model_args *a)
{
	grove_logp_params *p = model_load_params("model", a->params);

	if (!p)
		return 1;
	int rc = grove_logp_params_print_table(p, stdout);
	grove_logp_params_destroy(p);
	return tool_finish_output("grove model", stdout, NULL, rc);
}

static int
cmd_bcast(struct model_args *a)
{
	static const grove_logp_scheme all[] = {
		GROVE_LOGP_OPTIMIZED, GROVE_LOGP_ORIGINAL,
		GROVE_LOGP_WHOLE_NONBLOCKING, GROVE_LOGP_SEQUENTIAL,
	};
	grove_logp_system sys = {0, 0, a->local, a->wide, 0, 0};
	grove_logp_scheme one;
	grove_logp_params *p;
	grove_logp_plan plan;
	uint64_t size;
	char err[512];
	unsigned first = 0, end = 1;
	int rc = 0;

	if (!a->clusters || !a->per_cluster || !a->size)
		return usage_error(a, "bcast needs --clusters, --per-cluster "
		    "and --size", NULL);
	if (model_parse_u32(a->clusters, &sys.clusters))
		return usage_error(a, "--clusters needs a number", a->clusters);
	if (model_parse_u32(a->per_cluster, &sys.per_cluster))
		return usage_error(a, "--per-cluster needs a number",
		    a->per_cluster);
	if (model_parse_size(a->size, &size))
		return usage_error(a, "--size needs a size in bytes (4096, "
		    "64K, 4M)", a->size);
	if (a->scheme && !strcmp(a->scheme, "all")) {
		end = sizeof all / sizeof all[0];
	} else if (a->scheme) {
		if (grove_logp_scheme_parse(a->scheme, &one))
			return usage_error(a, "unknown scheme (optimized, "
			    "original, whole-nonblocking, sequential, all)",
			    a->scheme);
		for (first = 0; all[first] != one; first++)
			;
		end = first + 1;
	}
	p = model_load_params("model", a->params);
	if (!p)
		return 1;
	for (unsigned i = first; i < end && !rc; i++) {
		rc = grove_logp_bcast_plan(p, &sys, all[i], size, a->elem,
		    a->how, &plan, err, sizeof err);
		if (rc) {
			fprintf(stderr, "grove model: %s%s%s\n",
			    rc == GROVE_ENOENT ? a->params : "",
			    rc == GROVE_ENOENT ? ": " : "", err);
			break;
		}
		/* A full disk ends the loop: the other schemes' searches
		 * would be printed nowhere. */
		if (grove_logp_plan_print(&plan, a->json, stdout) ||
		    ferror(stdout)) {
			grove_logp_params_destroy(p);
			return tool_finish_output("grove model", stdout, NULL,
			    GROVE_ESYS);
		}
	}
	grove_logp_params_destroy(p);
	if (rc)
		return 1;
	return tool_finish_output("grove model", stdout, NULL, 0);
}

int
cmd_model(int argc, char **argv)
{
	struct model_args a = {
		.elem = 1, .how = GROVE_LOGP_HEURISTIC,
		.local = GROVE_LOGP_LAN, .wide = GROVE_LOGP_WAN,
	};
	const char *sub;
	int rc;

	if (argc < 2) {
		model_usage(stderr, NULL);
		return 2;
	}
	sub = argv[1];
	if (!strcmp(sub, "-h") || !strcmp(sub, "--help")) {
		model_usage(stdout, NULL);
		return 0;
	}
	/* Known before the options: their usage errors name it. */
	if (!strcmp(sub, "params"))
		a.cmd = "grove model params";
	else if (!strcmp(sub, "bcast"))
		a.cmd = "grove model bcast";
	else
		return tool_usage_error("grove model", sub[0] == '-' ?
		    "unknown option" : "unknown subcommand (params, bcast)",
		    sub);
	a.sub = sub;
	rc = parse_args(argc - 1, argv + 1, &a);
	if (rc >= 0)
		return rc;
	if (!strcmp(sub, "params")) {
		if (a.bcast_only)
			return tool_usage_error(a.cmd, "params takes only "
			    "--params, not", a.bcast_only);
		return cmd_params(&a);
	}
	return cmd_bcast(&a);
}

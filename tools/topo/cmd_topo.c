/* grove topo: generate or read a topology, validate it, print it. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cmds.h"
#include "grove/topology.h"
#include "../model_opts.h"
#include "../toolutil.h"
#include "topo/spec.h"

static void
topo_usage(FILE *f)
{
	fprintf(f,
	    "usage: grove topo --topology SPEC --backends N [--hosts FILE]\n"
	    "                  [--format text|dot|mrnet] [-o FILE]\n"
	    "       grove topo --file PATH [--format text|dot|mrnet] [-o FILE]\n"
	    "       grove topo --optimize-bcast --params FILE --clusters C\n"
	    "                  --per-cluster P --size BYTES [--format ...]\n"
	    "\n"
	    "Generate a topology from a spec, read and validate an MRNet\n"
	    "topology file, or build the tree the P-LogP model says\n"
	    "broadcasts BYTES fastest over C clusters of P processes\n"
	    "(docs/logp.md), and print it.\n"
	    "\n"
	    "  -t, --topology SPEC  flat, kary:K, knomial:K, levels:AxBx...\n"
	    "                       (or AxBx... alone)\n"
	    "  -b, --backends N     number of back-ends (optional for levels:)\n"
	    "  -H, --hosts FILE     host list, one 'host[:slots]' per line;\n"
	    "                       without it every node is on localhost\n"
	    "  -f, --file PATH      read an MRNet topology file\n"
	    "                       ('host:N => host:N host:N ;')\n"
	    "      --optimize-bcast the model's tree; with --params FILE,\n"
	    "                       --clusters C, --per-cluster P, --size BYTES\n"
	    "                       (suffixes K, M, G); FILE as for grove model\n"
	    "                       (--params default.params: the example)\n"
	    "  -F, --format FMT     text (default), dot or mrnet\n"
	    "  -o, --output FILE    write there instead of standard output\n"
	    "  -h, --help           show this help\n"
	    "\n"
	    "Exit status: 0 ok, 1 bad topology or file or a failed write, 2\n"
	    "usage error.\n");
}

static int
usage_error(const char *msg, const char *arg)
{
	return tool_usage_error("grove topo", msg, arg);
}

static int
write_out(const grove_topo *t, grove_topo_format fmt, const char *path)
{
	FILE *f = stdout;
	int rc;

	if (path) {
		f = fopen(path, "w");
		if (!f) {
			fprintf(stderr, "grove topo: %s: %s\n", path,
			    strerror(errno));
			return 1;
		}
	}
	rc = grove_topo_print(t, fmt, f);
	return tool_finish_output("grove topo", f, path, rc);
}

int
cmd_topo(int argc, char **argv)
{
	static const struct option opts[] = {
		{"topology", required_argument, NULL, 't'},
		{"backends", required_argument, NULL, 'b'},
		{"hosts", required_argument, NULL, 'H'},
		{"file", required_argument, NULL, 'f'},
		{"format", required_argument, NULL, 'F'},
		{"output", required_argument, NULL, 'o'},
		{"help", no_argument, NULL, 'h'},
		{"optimize-bcast", no_argument, NULL, 'O'},
		{"params", required_argument, NULL, 'P'},
		{"clusters", required_argument, NULL, 'C'},
		{"per-cluster", required_argument, NULL, 'N'},
		{"size", required_argument, NULL, 'S'},
		{NULL, 0, NULL, 0},
	};
	const char *spec = NULL, *hosts_path = NULL, *file = NULL;
	const char *params = NULL, *clusters = NULL, *per_cluster = NULL;
	const char *size = NULL;
	int optimize = 0;
	const char *outpath = NULL;
	grove_topo_format fmt = GROVE_TOPO_TEXT;
	grove_hostlist *hl = NULL;
	grove_topo *t = NULL;
	uint32_t backends = 0;
	char err[1024];
	int c, rc;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":t:b:H:f:F:o:h", opts,
	    NULL)) != -1) {
		switch (c) {
		case 't':
			spec = optarg;
			break;
		case 'b':
			if (model_parse_u32(optarg, &backends)) {
				char msg[64];
				snprintf(msg, sizeof msg, "--backends needs a "
				    "number in 1..%u", TOPO_MAX_BACKENDS);
				return usage_error(msg, optarg);
			}
			break;
		case 'H':
			hosts_path = optarg;
			break;
		case 'f':
			file = optarg;
			break;
		case 'F':
			if (grove_topo_format_parse(optarg, &fmt))
				return usage_error("unknown format (expected "
				    "text, dot or mrnet)", optarg);
			break;
		case 'o':
			outpath = optarg;
			break;
		case 'h':
			topo_usage(stdout);
			return 0;
		case 'O':
			optimize = 1;
			break;
		case 'P':
			params = optarg;
			break;
		case 'C':
			clusters = optarg;
			break;
		case 'N':
			per_cluster = optarg;
			break;
		case 'S':
			size = optarg;
			break;
		case ':':
			return usage_error("option needs an argument",
			    argv[optind - 1]);
		default:
			return usage_error("unknown option",
			    argv[optind - 1]);
		}
	}
	if (optind < argc)
		return usage_error("unexpected argument", argv[optind]);
	if (!!spec + !!file + optimize != 1)
		return usage_error("give exactly one of --topology, --file and "
		    "--optimize-bcast", NULL);
	if (!optimize && (params || clusters || per_cluster || size))
		return usage_error("--params, --clusters, --per-cluster and "
		    "--size go with --optimize-bcast", NULL);
	if (optimize && (hosts_path || backends))
		return usage_error("--hosts and --backends go with --topology",
		    NULL);
	if (file && (hosts_path || backends))
		return usage_error("--hosts and --backends go with --topology; "
		    "a file names its own hosts", NULL);

	if (optimize) {
		rc = model_bcast_topology("topo", params, clusters,
		    per_cluster, size, &t);
		if (rc)
			return rc;
	} else if (file) {
		rc = grove_topo_parse_file(file, &t, err, sizeof err);
		if (rc) {
			fprintf(stderr, "grove topo: %s: %s\n", file, err);
			return 1;
		}
	} else {
		if (hosts_path) {
			rc = grove_hostlist_parse_file(hosts_path, &hl, err,
			    sizeof err);
			if (rc) {
				fprintf(stderr, "grove topo: %s: %s\n",
				    hosts_path, err);
				return 1;
			}
		}
		rc = grove_topo_generate(spec, backends, hl, &t, err,
		    sizeof err);
		grove_hostlist_destroy(hl);
		if (rc) {
			fprintf(stderr, "grove topo: %s\n", err);
			return 1;
		}
	}
	rc = write_out(t, fmt, outpath);
	grove_topo_destroy(t);
	return rc;
}

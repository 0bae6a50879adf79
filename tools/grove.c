/* grove: the command-line tool (topologies, demo, benchmarks, traces,
 * P-LogP measurements). */
#include <stdio.h>
#include <string.h>

#include "cmds.h"
#include "toolutil.h"

static const struct {
	const char *name;
	int (*fn)(int, char **);
	const char *help;
} commands[] = {
	{"topo", cmd_topo, "generate, validate, print and convert topologies"},
	{"top", cmd_top, "cluster monitor: node metrics reduced in the tree"},
	{"demo", cmd_demo, "run a local tree and show reductions on several streams"},
	{"bench", cmd_bench, "benchmarks: micro, trace, floor, startup, skew, bcast,\n"
	    "         align, offered-load"},
	{"trace", cmd_trace, "event spaces: list, dump, stats, clean, sample"},
	{"model", cmd_model, "P-LogP model: parameter tables, broadcast plans"},
	{"logp", cmd_logp, "measure P-LogP parameters (host, lan, emulated wan)"},
	{"run", cmd_run, "start an MPI job (mpiexec): grove run -n N PROGRAM"},
};

static void
usage(FILE *f)
{
	fprintf(f, "usage: grove COMMAND [ARGS]\n\ncommands:\n");
	for (unsigned i = 0; i < sizeof commands / sizeof commands[0]; i++)
		fprintf(f, "  %-6s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "\n'grove COMMAND --help' describes a command.\n");
}

int
main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		return tool_finish_output("grove", stdout, NULL, 0);
	}
	for (unsigned i = 0; i < sizeof commands / sizeof commands[0]; i++) {
		if (strcmp(argv[1], commands[i].name))
			continue;
		int rc = commands[i].fn(argc - 1, argv + 1);
		/* What a command printed may still sit in stdout's buffer, and
		 * an earlier write may have failed: a command that succeeded
		 * only did if its results reached standard output (a full
		 * disk).  A failing one has said why already. */
		if (rc == 0) {
			char cmd[64];
			snprintf(cmd, sizeof cmd, "grove %s", commands[i].name);
			rc = tool_finish_output(cmd, stdout, NULL, 0);
		}
		return rc;
	}
	fprintf(stderr, "grove: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}

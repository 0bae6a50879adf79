/* grove: the command-line tool (topologies, demo, benchmarks, traces,
 * P-LogP measurements).  Each command lives in its folder of tools/
 * (tools/<name>/cmd_<name>.c) and is dispatched from the table below. */
#include <stdio.h>
#include <string.h>

#include "cmds.h"
#include "toolutil.h"

#ifndef GROVE_VERSION
#define GROVE_VERSION "unknown" /* set by the build from PROJECT_VERSION */
#endif

static const struct {
	const char *name;
	int (*fn)(int, char **);
	const char *help;
} commands[] = {
	{"topo", cmd_topo, "generate, validate, print and convert topologies"},
	{"top", cmd_top, "cluster monitor: node metrics reduced in the tree"},
	{"demo", cmd_demo, "run a local tree and show reductions on several streams"},
	{"bench", cmd_bench, "benchmarks ('grove bench --help' lists them)"},
	{"trace", cmd_trace, "event spaces: list, dump, stats, clean, sample"},
	{"report", cmd_report, "an HTML report of a network's or job's event spaces"},
	{"monitor", cmd_monitor, "watch a running job: who arrives last, latency per path"},
	{"model", cmd_model, "P-LogP model: parameter tables, broadcast plans"},
	{"logp", cmd_logp, "measure P-LogP parameters (host, lan, emulated wan)"},
	{"run", cmd_run, "start an MPI job (mpiexec): grove run -n N PROGRAM"},
};
#define N_COMMANDS (sizeof commands / sizeof commands[0])

static void
usage(FILE *f)
{
	fprintf(f, "usage: grove COMMAND [ARGS]\n"
	    "       grove help [COMMAND [SUBCOMMAND]]\n"
	    "       grove --version\n\ncommands:\n");
	for (unsigned i = 0; i < N_COMMANDS; i++)
		fprintf(f, "  %-7s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "\n'grove help COMMAND' or 'grove COMMAND --help' describes "
	    "a command.\n"
	    "Short options mean the same in every command: -t --topology, "
	    "-f --file\n(an MRNet topology file), -b --backends, -H --hosts, "
	    "-F --format,\n-o --output, -j --json, -h --help.\n"
	    "\nExit status: 0 ok, 1 failure, 2 usage error (each command's "
	    "--help says\nmore).\n");
}

static int
find_command(const char *name)
{
	for (unsigned i = 0; i < N_COMMANDS; i++)
		if (!strcmp(name, commands[i].name))
			return (int)i;
	return -1;
}

static int
run_command(int i, int argc, char **argv)
{
	int rc = commands[i].fn(argc, argv);
	/* What a command printed may still sit in stdout's buffer, and an
	 * earlier write may have failed: a command that succeeded only did
	 * if its results reached standard output (a full disk).  A failing
	 * one has said why already. */
	if (rc == 0) {
		char cmd[64];
		snprintf(cmd, sizeof cmd, "grove %s", commands[i].name);
		rc = tool_finish_output(cmd, stdout, NULL, 0);
	}
	return rc;
}

/* grove help [COMMAND [SUBCOMMAND]]: the command's own --help. */
static int
help(int argc, char **argv)
{
	if (argc < 2) {
		usage(stdout);
		return tool_finish_output("grove", stdout, NULL, 0);
	}
	if (argc > 3)
		return tool_usage_error("grove help", "too many arguments",
		    argv[3]);
	int i = find_command(argv[1]);
	if (i < 0)
		return tool_usage_error("grove help", "unknown command",
		    argv[1]);
	char *sub_argv[] = {argv[1], argc > 2 ? argv[2] : "--help",
	    argc > 2 ? "--help" : NULL, NULL};
	return run_command(i, argc > 2 ? 3 : 2, sub_argv);
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
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")) {
		printf("grove %s\n", GROVE_VERSION);
		return tool_finish_output("grove", stdout, NULL, 0);
	}
	if (!strcmp(argv[1], "help"))
		return help(argc - 1, argv + 1);
	int i = find_command(argv[1]);
	if (i >= 0)
		return run_command(i, argc - 1, argv + 1);
	if (argv[1][0] == '-')
		return tool_usage_error("grove", "unknown option", argv[1]);
	return tool_usage_error("grove", "unknown command", argv[1]);
}

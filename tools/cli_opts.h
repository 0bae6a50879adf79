/* The options every grove command spells the same way, and the one style
 * of usage error.
 *
 * One table, applied by every command that takes the option:
 *
 *   -t, --topology SPEC   a generated tree (flat, kary:K, knomial:K, AxB)
 *   -f, --file PATH       an MRNet topology file, instead of --topology
 *   -b, --backends N      the back-end count of a --topology spec
 *   -H, --hosts FILE      a host list
 *   -F, --format FMT      the output format
 *   -o, --output FILE     where the output goes
 *   -j, --json            JSON output
 *   -h, --help            usage on standard output, exit 0
 *
 * No command gives these letters another meaning.  Exit statuses: 0 ok,
 * 1 failure (said on standard error), 2 usage error. */
#ifndef GROVE_TOOLS_CLI_OPTS_H
#define GROVE_TOOLS_CLI_OPTS_H

#include <getopt.h>

#define CLI_OPT_TOPOLOGY {"topology", required_argument, NULL, 't'}
#define CLI_OPT_FILE     {"file", required_argument, NULL, 'f'}
#define CLI_OPT_BACKENDS {"backends", required_argument, NULL, 'b'}
#define CLI_OPT_HOSTS    {"hosts", required_argument, NULL, 'H'}
#define CLI_OPT_FORMAT   {"format", required_argument, NULL, 'F'}
#define CLI_OPT_OUTPUT   {"output", required_argument, NULL, 'o'}
#define CLI_OPT_JSON     {"json", no_argument, NULL, 'j'}
#define CLI_OPT_HELP     {"help", no_argument, NULL, 'h'}

/* The usage lines of the tree options, for a command's --help. */
#define CLI_HELP_TREE \
	"  -t, --topology SPEC  flat, kary:K, knomial:K, levels:AxB... " \
	"(or AxB... alone)\n" \
	"  -f, --file PATH      an MRNet topology file ('host:N => host:N " \
	"... ;'),\n" \
	"                       instead of --topology; it names its own " \
	"back-ends\n" \
	"  -b, --backends N     back-ends of a --topology spec (a levels: " \
	"spec\n" \
	"                       makes its own count)\n"

/* The tree a command starts: --topology or --file, and --backends. */
typedef struct cli_tree {
	const char *spec;   /* --topology, else the command's default */
	const char *file;   /* --file, or NULL */
	unsigned backends;  /* --backends, else the default; then resolved */
	int spec_given;
	int backends_given;
} cli_tree;

/* Takes option c (t, f or b) of a command whose --backends allows
 * 1..max: 1 when c is one of them (0 done, or 2 after a usage error in
 * *rc); 0 when c is another option. */
int cli_tree_opt(const char *cmd, int c, const char *arg, unsigned max,
    cli_tree *t, int *rc);

/* After the options: refuses --file with --topology or --backends (usage
 * error, 2), reads the file (its back-end count replaces --backends; a
 * bad file says why on standard error and returns 1), or resolves the
 * count a spec fixes itself (tool_resolve_backends).  0 when the tree is
 * good. */
int cli_tree_resolve(const char *cmd, cli_tree *t, unsigned max);

/* The usage error of getopt_long's result c (':' a missing value, '?'
 * an unknown option) for argv as getopt_long left it, with opterr 0 and
 * a leading ':' in the short options; returns 2. */
int cli_opt_error(const char *cmd, int c, char **argv);

#endif

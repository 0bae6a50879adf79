/* The options every grove command spells the same way (cli_opts.h). */
#include <stdio.h>
#include <string.h>

#include "cli_opts.h"
#include "grove/topology.h"
#include "toolutil.h"

int
cli_tree_opt(const char *cmd, int c, const char *arg, unsigned max,
    cli_tree *t, int *rc)
{
	*rc = 0;
	switch (c) {
	case 't':
		t->spec = arg;
		t->spec_given = 1;
		return 1;
	case 'f':
		t->file = arg;
		return 1;
	case 'b': {
		long n = tool_parse_count(arg, max);
		if (n < 0)
			*rc = tool_count_error(cmd, "--backends", arg, max);
		else {
			t->backends = (unsigned)n;
			t->backends_given = 1;
		}
		return 1;
	}
	default:
		return 0;
	}
}

int
cli_tree_resolve(const char *cmd, cli_tree *t, unsigned max)
{
	if (!t->file)
		return tool_resolve_backends(cmd, t->spec, t->backends_given,
		    max, &t->backends);
	if (t->spec_given)
		return tool_usage_error(cmd, "give --topology or --file, not "
		    "both", NULL);
	if (t->backends_given)
		return tool_usage_error(cmd, "--backends goes with --topology; "
		    "a topology file names its own back-ends", NULL);
	/* Read here, so that a bad file is reported before any process
	 * starts, and the count is known to what the command prints. */
	grove_topo *topo = NULL;
	char err[1024];
	if (grove_topo_parse_file(t->file, &topo, err, sizeof err) != 0) {
		fprintf(stderr, "%s: %s: %s\n", cmd, t->file, err);
		return 1;
	}
	uint32_t n = grove_topo_backends(topo);
	grove_topo_destroy(topo);
	if (n < 1 || n > max) {
		fprintf(stderr, "%s: %s has %u back-ends; this command takes "
		    "1..%u\n", cmd, t->file, (unsigned)n, max);
		return 1;
	}
	t->backends = n;
	return 0;
}

int
cli_opt_error(const char *cmd, int c, char **argv)
{
	/* optind has passed the option.  A long option is named as given
	 * (without "=value"); a short one by its letter, which may sit in
	 * a cluster ("-jx"). */
	const char *a = argv[optind - 1];
	char what[64];
	if (!strncmp(a, "--", 2))
		snprintf(what, sizeof what, "%.*s", (int)strcspn(a, "="), a);
	else
		snprintf(what, sizeof what, "-%c", optopt);
	return tool_usage_error(cmd, c == ':' ? "option needs a value" :
	    "unknown option", what);
}

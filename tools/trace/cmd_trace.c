/* grove trace: list, dump, stats and clean the event spaces in /dev/shm. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../cli_opts.h"
#include "../cmds.h"
#include "../toolutil.h"
#include "../trace_select.h"
#include "grove/error.h"
#include "trace/align.h"
#include "trace/owner.h"
#include "trace/trace_impl.h"

/* Each subcommand's usage line and what it does, for its own --help. */
static const struct {
	const char *sub;
	const char *usage;
	const char *text;
} sub_help[] = {
	{"list", "grove trace list",
	    "Lists the event spaces of this user in /dev/shm, by network.\n"},
	{"dump", "grove trace dump [--net ID] [-F perfetto|otf2|text] "
	    "[-o PATH]\n"
	    "                        [--collect [--timeout MS]] "
	    "[--timeline MODE]",
	    "Exports the event spaces of one network (--net may be left out "
	    "when only\none network has segments): perfetto JSON opens in "
	    "ui.perfetto.dev; otf2\nwrites an archive directory PATH "
	    "(PATH/traces.otf2).\n"},
	{"stats", "grove trace stats [--net ID] [-j] [-o PATH] "
	    "[--collect [--timeout MS]]\n"
	    "                         [--timeline MODE]",
	    "Summary statistics of one network's event spaces (-j, --json: "
	    "as JSON).\n"},
	{"clean", "grove trace clean [--net ID] [--force]",
	    "Removes event spaces whose process is gone (all of them with "
	    "--force).\n"},
	{"sample", "grove trace sample --net ID [-b N]",
	    "Runs a small synthetic traced tree (fe, cp, N back-ends over "
	    "pipes,\n1..32, default 4) and keeps its event spaces.\n"},
};

#define TRACE_HELP_COMMON \
	"\nEvent spaces are the per-process trace segments\n" \
	"/dev/shm/grove.<net>.<role>.<rank>, per user: another user's file " \
	"of that\nname is named on stderr, never read or removed.\n" \
	"--collect first asks the network's running front-end to bring the " \
	"event\nspaces of processes on other hosts home through the tree " \
	"(answered inside\nthe front-end's next Grove call; --timeout MS, " \
	"default 10000).\n" \
	"--timeline: the clock of processes of several hosts: auto (the " \
	"front-end's\nwhen there are several), local (each its own), " \
	"frontend (the front-end's,\nwith the measured offsets) or realtime " \
	"(each host's realtime clock as is).\n"

#define TRACE_HELP_EXIT \
	"\nExit status: 0 ok, 1 failure (said on standard error), 2 usage " \
	"error.\n"

/* grove trace --help (sub NULL), or one subcommand's. */
static void
usage(FILE *f, const char *sub)
{
	size_t n = sizeof sub_help / sizeof sub_help[0];
	for (size_t i = 0; sub && i < n; i++) {
		if (strcmp(sub, sub_help[i].sub))
			continue;
		fprintf(f, "usage: %s\n\n%s", sub_help[i].usage,
		    sub_help[i].text);
		if (!strcmp(sub, "dump") || !strcmp(sub, "stats"))
			fputs(TRACE_HELP_COMMON, f);
		fputs(TRACE_HELP_EXIT, f);
		return;
	}
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s %s\n", i ? "      " : "usage:",
		    sub_help[i].usage);
	fputs(TRACE_HELP_COMMON, f);
	fputs("\n'grove trace SUBCOMMAND --help' describes one.\n", f);
	fputs(TRACE_HELP_EXIT, f);
}

static int
do_list(void)
{
	char **names;
	size_t n;
	int rc = trace_list(NULL, stderr, &names, &n);
	if (rc) {
		tool_say_no_list("grove trace", rc);
		return 1;
	}
	/* no-ring: threads that recorded into the sink because no ring
	 * was left for them (all taken, or /dev/shm full): their events
	 * are missing from the trace. */
	printf("%-40s %8s %-8s %5s %7s %6s %12s %5s\n", "segment", "pid",
	       "state", "rings", "no-ring", "coll", "tuples", "clock");
	for (size_t i = 0; i < n; i++) {
		struct trace_seg s;
		char err[256];
		if (trace_seg_open(names[i], &s, err, sizeof err)) {
			printf("%-40s (%s)\n", names[i], err);
			continue;
		}
		/* Read from the file (trace/reader.h): another process may
		 * truncate it meanwhile, which is then said, not a crash. */
		struct trace_header h;
		uint64_t tuples = 0, head;
		int rc = trace_seg_header(&s, &h);
		uint32_t nr = h.n_rings < s.hdr.max_rings ? h.n_rings :
		              s.hdr.max_rings;
		for (uint32_t r = 0; r < nr && !rc; r++) {
			rc = trace_seg_ring_head(&s, r, &head);
			tuples += head;
		}
		if (rc) {
			printf("%-40s (%s)\n", names[i], rc == GROVE_EFORMAT ?
			       "shrank while being read" : grove_strerror(rc));
			trace_seg_close(&s);
			continue;
		}
		const char *state = h.finished ? "finished" :
		    trace_writer_alive(h.pid, h.calib_init.mono_ns) ?
		    "running" : "dead";
		printf("%-40s %8d %-8s %5u %7u %6u %12llu %5s\n", names[i],
		       h.pid, state, nr, h.threads_without_ring,
		       h.n_collectors < s.hdr.max_collectors ? h.n_collectors :
		       s.hdr.max_collectors, (unsigned long long)tuples,
		       h.clock == TRACE_CLOCK_TSC ? "tsc" : "mono");
		trace_seg_close(&s);
	}
	if (!n)
		printf("(no event spaces)\n");
	trace_list_free(names, n);
	return 0;
}

enum seg_owner {
	SEG_GONE,    /* finished, or its writer is gone */
	SEG_RUNNING, /* its writer is alive */
	SEG_UNKNOWN, /* not initialised yet, or a header that does not say */
};

/* Whether the writer of segment `name` is gone.  Decided from the pid in
 * the header, not from whether the header validates: a live process of
 * another Grove version, or one still in grove_trace_init (the magic is
 * written last), has a header this version rejects.  The pid is trusted
 * where the header's identity fields (network, role, rank, at the start
 * of every version's header) match the name, which shows that the layout
 * up to the pid is this one. */
static enum seg_owner
segment_owner_state(const char *name)
{
	struct trace_seg s;
	char err[256];
	if (!trace_seg_open(name, &s, err, sizeof err)) {
		/* A valid header of this version.  A finished writer is
		 * gone even if its pid was reused. */
		struct trace_header h;
		int rc = trace_seg_header(&s, &h);
		trace_seg_close(&s);
		if (rc)
			return SEG_UNKNOWN; /* shrank since it was opened */
		return h.finished ? SEG_GONE :
		       trace_writer_alive(h.pid, h.calib_init.mono_ns) ?
		       SEG_RUNNING : SEG_GONE;
	}
	char net[TRACE_NET_LEN], role[TRACE_ROLE_LEN];
	uint32_t rank;
	if (trace_parse_name(name, net, sizeof net, role, sizeof role, &rank))
		return SEG_UNKNOWN;
	struct trace_header h;
	memset(&h, 0, sizeof h);
	int fd = shm_open(name, O_RDONLY | O_NONBLOCK | O_CLOEXEC, 0);
	if (fd < 0)
		return errno == ENOENT ? SEG_GONE : SEG_UNKNOWN;
	struct stat st;
	if (fstat(fd, &st) != 0 || !trace_owner_mine(&st)) {
		close(fd); /* replaced since it was listed */
		return SEG_UNKNOWN;
	}
	/* A short read leaves zeros: a segment just created and not yet
	 * sized, which the checks below call unknown. */
	ssize_t got = pread(fd, &h, sizeof h, 0);
	close(fd);
	if (got < 0)
		return SEG_UNKNOWN;
	h.network_id[sizeof h.network_id - 1] = '\0';
	h.role[sizeof h.role - 1] = '\0';
	if (strcmp(h.network_id, net) || strcmp(h.role, role) ||
	    h.rank != rank || h.pid <= 0)
		return SEG_UNKNOWN;
	/* Only the prefix is known to be this layout: no finished flag or
	 * init time from it. */
	return trace_writer_alive(h.pid, 0) ? SEG_RUNNING : SEG_GONE;
}

static int
do_clean(const char *net, int force)
{
	char **names;
	size_t n;
	unsigned removed = 0, kept = 0, unknown = 0;
	/* Only this user's segments: another user's file is named on
	 * stderr and never removed (nor counted as removed), even by root. */
	int rc = trace_list(net, stderr, &names, &n);
	if (rc) {
		tool_say_no_list("grove trace", rc);
		return 1;
	}
	for (size_t i = 0; i < n; i++) {
		if (!force) {
			enum seg_owner st = segment_owner_state(names[i]);
			if (st == SEG_RUNNING) {
				kept++;
				continue;
			}
			if (st == SEG_UNKNOWN) {
				unknown++;
				continue;
			}
		}
		if (shm_unlink(names[i]) == 0)
			removed++;
		else if (errno != ENOENT)
			fprintf(stderr, "grove trace: cannot remove %s: %s\n",
			        names[i], strerror(errno));
	}
	printf("removed %u event space%s", removed, removed == 1 ? "" : "s");
	if (kept)
		printf(", kept %u of running processes", kept);
	if (unknown)
		printf(", kept %u not initialised yet or of unknown owner",
		       unknown);
	if (kept || unknown)
		printf(" (--force removes them)");
	printf("\n");
	trace_list_free(names, n);
	return 0;
}

/* The options each subcommand takes (by their getopt character): any
 * other is a usage error rather than silently ignored. */
static const struct {
	const char *sub;
	const char *opts;
} sub_opts[] = {
	{"list", ""},
	{"dump", "nFocTM"},
	{"stats", "nojcTM"},
	{"clean", "nX"},
	{"sample", "nb"},
};

/* 0, or 2 after a message when sub is unknown or an option given does
 * not apply to it. */
static int
check_sub_options(const char *sub, const char *given,
                  const struct option *opts)
{
	const char *allowed = NULL;
	for (size_t i = 0; i < sizeof sub_opts / sizeof sub_opts[0]; i++)
		if (!strcmp(sub, sub_opts[i].sub))
			allowed = sub_opts[i].opts;
	if (!allowed)
		return tool_usage_error("grove trace", sub[0] == '-' ?
		    "unknown option" : "unknown subcommand", sub);
	for (const struct option *o = opts; o->name; o++) {
		if (o->val == 'h' || !given[o->val] ||
		    strchr(allowed, o->val))
			continue;
		char cmd[64], what[64];
		snprintf(cmd, sizeof cmd, "grove trace %s", sub);
		snprintf(what, sizeof what, "--%s", o->name);
		return tool_usage_error(cmd, "option does not apply", what);
	}
	if (given['M'] && !given['c']) {
		fprintf(stderr, "grove trace %s: --timeout applies only with "
		        "--collect\n", sub);
		return 2;
	}
	return 0;
}

int
cmd_trace(int argc, char **argv)
{
	static const struct option opts[] = {
		{"net", required_argument, 0, 'n'},
		{"format", required_argument, 0, 'F'},
		{"output", required_argument, 0, 'o'},
		{"json", no_argument, 0, 'j'},
		{"force", no_argument, 0, 'X'},
		{"backends", required_argument, 0, 'b'},
		{"collect", no_argument, 0, 'c'},
		{"timeout", required_argument, 0, 'M'},
		{"timeline", required_argument, 0, 'T'},
		{"help", no_argument, 0, 'h'},
		{0, 0, 0, 0},
	};
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(argc < 2 ? stderr : stdout, NULL);
		return argc < 2 ? 2 : 0;
	}
	const char *sub = argv[1];
	const char *net = NULL, *format = "perfetto", *out = NULL;
	int json = 0, force = 0, nbe = 4, c, collect = 0;
	long timeout_ms = 10000;
	char *end;
	int rc;
	char given[128] = {0}; /* option characters seen */
	optind = 1;
	/* A subcommand known before its options: their errors name it. */
	if ((rc = check_sub_options(sub, given, opts)))
		return rc;
	char cmd[64]; /* "grove trace SUB", for usage errors */
	snprintf(cmd, sizeof cmd, "grove trace %.40s", sub);
	opterr = 0;
	while ((c = getopt_long(argc - 1, argv + 1, ":n:F:o:jb:h", opts,
	                        NULL)) != -1) {
		if (c > 0 && c < (int)sizeof given)
			given[c] = 1;
		switch (c) {
		case 'n': net = optarg; break;
		case 'F': format = optarg; break;
		case 'o': out = optarg; break;
		case 'j': json = 1; break;
		case 'X': force = 1; break;
		case 'b':
			nbe = (int)strtol(optarg, &end, 10);
			if (*end || nbe < 1 || nbe > 32) {
				fprintf(stderr, "grove trace: --backends wants "
				        "1..32, not '%s'\n", optarg);
				return 2;
			}
			break;
		case 'c': collect = 1; break;
		case 'M':
			timeout_ms = strtol(optarg, &end, 10);
			if (*end || timeout_ms < 1 || timeout_ms > 3600000) {
				fprintf(stderr, "grove trace: --timeout wants "
				        "1..3600000 ms, not '%s'\n", optarg);
				return 2;
			}
			break;
		case 'T': {
			/* The readers take it from the environment, as the
			 * front-end's export at exit does. */
			enum trace_timeline tl;
			if (trace_timeline_parse(optarg, &tl) != 0) {
				fprintf(stderr, "grove trace: --timeline wants "
				        "auto, local, frontend or realtime, not "
				        "'%s'\n", optarg);
				return 2;
			}
			setenv("GROVE_TRACE_TIMELINE", optarg, 1);
			break;
		}
		case 'h':
			usage(stdout, sub);
			return 0;
		default: return cli_opt_error(cmd, c, argv + 1);
		}
	}
	if ((rc = check_sub_options(sub, given, opts)))
		return rc;
	if (optind != argc - 1)
		return tool_usage_error(cmd, "unexpected argument",
		    argv[optind + 1]);
	if (net && (rc = tool_check_net(cmd, net)))
		return rc;
	if (out && !*out) {
		fprintf(stderr, "grove trace %s: -o wants a path, not an empty "
		        "string (leave -o out for standard output)\n", sub);
		return 2;
	}
	if (out && !strcmp(format, "otf2") && out[strlen(out) - 1] == '/') {
		fprintf(stderr, "grove trace %s: -o '%s': name the OTF2 archive "
		        "directory without a trailing '/'\n", sub, out);
		return 2;
	}
	char netbuf[TRACE_NET_LEN];
	if (!strcmp(sub, "list"))
		return do_list();
	if (!strcmp(sub, "clean"))
		return do_clean(net, force);
	if (!strcmp(sub, "sample")) {
		if (!net) {
			fprintf(stderr, "grove trace sample: --net ID is "
			        "required\n");
			return 2;
		}
		char why[256];
		rc = trace_write_sample(net, nbe, why, sizeof why);
		if (rc && why[0]) {
			fprintf(stderr, "grove trace sample: %s\n", why);
			return 1;
		}
		if (!rc)
			printf("wrote event spaces of network %s (fe 0, cp 0, "
			       "be 0..%d)\n", net, nbe - 1);
	} else if (!strcmp(sub, "dump")) {
		if (tool_pick_net("grove trace", net, netbuf, sizeof netbuf))
			return 1;
		if (collect && tool_collect_live("grove trace", netbuf,
		    (int)timeout_ms))
			return 1;
		rc = trace_collect_and_export(netbuf, NULL, format, out ? out : "-");
	} else if (!strcmp(sub, "stats")) {
		if (tool_pick_net("grove trace", net, netbuf, sizeof netbuf))
			return 1;
		if (collect && tool_collect_live("grove trace", netbuf,
		    (int)timeout_ms))
			return 1;
		rc = trace_stats_write(netbuf, NULL, out ? out : "-", json);
	} else {
		return 2; /* check_sub_options refused it */
	}
	/* dump and stats said what failed, with its path, and sample which
	 * event space could not be made, and why (trace_impl.h). */
	if (rc && rc != GROVE_ESYS && !strcmp(sub, "sample"))
		fprintf(stderr, "grove trace %s: %s\n", sub,
		        grove_strerror(rc));
	return rc ? 1 : 0;
}

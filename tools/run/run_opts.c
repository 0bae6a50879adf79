/* grove run: the command line (Open MPI's spellings where they exist:
 * -n/-np, -x, --tag-output), and finding PROGRAM. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run.h"
#include "run_slurm.h"
#include "topo/quantity.h"
#include "../toolutil.h"

static void
run_usage(FILE *f)
{
	fprintf(f,
	    "usage: grove run -n N [options] PROGRAM [ARGS...]\n"
	    "       (also as mpiexec and mpirun)\n"
	    "\n"
	    "Start N ranks of an MPI program linked with Grove MPI on this host\n"
	    "(or on the hosts of --hosts, or of the Slurm allocation).\n"
	    "\n"
	    "  -n, -np, --np N      number of ranks (1..%d); default inside a\n"
	    "                       Slurm allocation (salloc -n N): its task\n"
	    "                       count, on its hosts when it has several\n"
	    "  --tag-output         prefix each line with [1,RANK]<stdout>: or\n"
	    "                       [1,RANK]<stderr>: (as Open MPI does)\n"
	    "  -x VAR[=VAL]         pass VAR (its value here, or VAL) to the ranks\n"
	    "  --env VAR=VAL        set VAR to VAL in the ranks\n"
	    "  --verbose            the launcher and the ranks say what they do\n"
	    "  --stats              per-call statistics of every rank at the end\n"
	    "  --stats-json FILE    the same as JSON into FILE\n"
	    "  --keep-trace         keep the ranks' event spaces for\n"
	    "                       'grove trace dump' (remove them with\n"
	    "                       'grove trace clean')\n"
	    "  --timeout SECONDS    end the job after that long (status 124)\n"
	    "  --transport shm|tcp  how ranks talk: shared memory (the default\n"
	    "                       on one host) or TCP sockets (see docs/mpi.md)\n"
	    "  --hosts H1,H2,...    run the ranks on these hosts, in blocks (N/H\n"
	    "                       each, in order), over TCP; other hosts are\n"
	    "                       reached by $GROVE_RSH, else ssh (docs/hosts.md)\n"
	    "  --hostfile FILE      the same with one host per line (host:slots\n"
	    "                       taken, slots unused); -H/--hosts FILE too\n"
	    "  --bcs                buffered coscheduling: communication is\n"
	    "                       scheduled by a node manager once per time\n"
	    "                       slice (see docs/bcs.md)\n"
	    "  --slice DURATION     BCS time slice, 250us..10ms (default %s)\n"
	    "  --record FILE        BCS: write the schedule's decisions (wildcard\n"
	    "                       matches, tests that succeeded) to FILE\n"
	    "  --replay FILE        BCS: run again forcing the decisions of FILE\n"
	    "  --emds FROM:TO       BCS: per-slice statistics (EMDS) of slices\n"
	    "                       FROM..TO (at most 100000 slices), written\n"
	    "                       at the end to PREFIX.global.csv/.json and\n"
	    "                       PREFIX.local.csv/.json\n"
	    "  --emds-out PREFIX    where (default bcs-emds)\n"
	    "  (--stats, --keep-trace and --bcs are not supported with --hosts)\n"
	    "  --oversubscribe, --allow-run-as-root, --bind-to X, --map-by X\n"
	    "                       accepted for Open MPI's command lines;\n"
	    "                       ignored (ranks are never bound, and any\n"
	    "                       number fits on the host)\n"
	    "  -h, --help           show this help\n"
	    "\n"
	    "Environment and working directory are the launcher's.  Standard\n"
	    "input goes to rank 0 (the others read /dev/null); each rank's\n"
	    "standard output and error come out here line by line.\n"
	    "\n"
	    "Exit status: 0 when every rank called MPI_Finalize and exited 0\n"
	    "(or, for a program that does not use MPI, every rank exited 0);\n"
	    "else the first failing rank's status (128+N for signal N), the\n"
	    "code given to MPI_Abort, 124 on --timeout, 128+N when grove run\n"
	    "got signal N (130 for Ctrl-C), 127/126 when PROGRAM is not found\n"
	    "or cannot be executed, 2 for a usage error, 1 when the launcher\n"
	    "itself failed.\n",
	    RUN_MAX_RANKS, RUN_BCS_DEFAULT_SLICE_TEXT);
}

/* One line on standard error, as the launcher's usage errors are. */
static int
usage_error(const char *msg, const char *arg)
{
	/* The one style of every grove command (tools/toolutil.c). */
	return tool_usage_error(RUN_CMD, msg, arg);
}

static int
add_env(struct run_opts *o, const char *s)
{
	char **v = realloc(o->env_set, (o->n_env_set + 1) * sizeof *v);
	if (!v)
		return -1;
	o->env_set = v;
	if (!(v[o->n_env_set] = strdup(s)))
		return -1;
	o->n_env_set++;
	return 0;
}

static int
valid_name(const char *s, size_t len)
{
	if (len == 0)
		return 0;
	for (size_t i = 0; i < len; i++)
		if (!(s[i] == '_' || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= 'a' && s[i] <= 'z') ||
		      (i > 0 && s[i] >= '0' && s[i] <= '9')))
			return 0;
	return 1;
}

/* The value of an option: "--opt=VAL" or the next word. */
static const char *
take_value(int argc, char **argv, int *i, const char *eq)
{
	if (eq)
		return eq + 1;
	if (*i + 1 >= argc)
		return NULL;
	return argv[++*i];
}

int
run_parse(int argc, char **argv, struct run_opts *o)
{
	memset(o, 0, sizeof *o);
	int i = 1;
	bool have_n = false, said_shm = false;
	/* A hand loop: Open MPI's single-dash long options (-np) and the
	 * first word that is not an option starting PROGRAM, whose own
	 * options must never be read as ours. */
	for (; i < argc; i++) {
		const char *a = argv[i];
		if (a[0] != '-' || a[1] == '\0')
			break;
		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		/* "--opt" and "-opt" alike, with "=VAL" allowed on long ones. */
		const char *name = a + (a[1] == '-' ? 2 : 1);
		const char *eq = strchr(name, '=');
		size_t nl = eq ? (size_t)(eq - name) : strlen(name);
#define IS(s) (nl == strlen(s) && !strncmp(name, (s), nl))
		if (IS("h") || IS("help")) {
			run_usage(stdout);
			return 1;
		} else if (IS("n") || IS("np") || IS("c")) {
			const char *v = take_value(argc, argv, &i, eq);
			long n = v ? tool_parse_count(v, RUN_MAX_RANKS) : -1;
			if (n < 1)
				return usage_error("-n wants a number of ranks "
				    "in 1..4096", v ? v : "nothing");
			o->n = (unsigned)n;
			have_n = true;
		} else if (IS("tag-output")) {
			o->tag_output = true;
		} else if (IS("verbose") || IS("v")) {
			o->verbose = true;
		} else if (IS("stats")) {
			o->stats = true;
		} else if (IS("stats-json")) {
			const char *v = take_value(argc, argv, &i, eq);
			if (!v || !*v)
				return usage_error("--stats-json wants a file", NULL);
			o->stats_json = v;
		} else if (IS("bcs")) {
			o->bcs = true;
		} else if (IS("hosts") || IS("host") || IS("H")) {
			const char *v = take_value(argc, argv, &i, eq);
			if (!v || !*v)
				return usage_error("--hosts wants H1,H2,...", NULL);
			o->hosts = v;
		} else if (IS("hostfile") || IS("machinefile")) {
			const char *v = take_value(argc, argv, &i, eq);
			if (!v || !*v)
				return usage_error("--hostfile wants a file", NULL);
			o->hostfile = v;
		} else if (IS("transport")) {
			const char *v = take_value(argc, argv, &i, eq);
			if (!v || (strcmp(v, "tcp") && strcmp(v, "shm")))
				return usage_error("--transport wants shm or tcp",
				    v ? v : "nothing");
			o->tcp = !strcmp(v, "tcp");
			said_shm = !o->tcp;
		} else if (IS("slice")) {
			const char *v = take_value(argc, argv, &i, eq);
			double t = -1;
			if (!v || cluster_parse_duration(v, &t) != 0 ||
			    t < 250e-6 || t > 10e-3)
				return usage_error("--slice wants a duration in "
				    "250us..10ms", v ? v : "nothing");
			o->slice_ns = (uint64_t)(t * 1e9 + 0.5);
		} else if (IS("record") || IS("replay")) {
			bool rec = IS("record");
			const char *v = take_value(argc, argv, &i, eq);
			if (!v || !*v)
				return usage_error(rec ? "--record wants a file"
				                       : "--replay wants a file", NULL);
			if (rec)
				o->record = v;
			else
				o->replay = v;
		} else if (IS("emds")) {
			const char *v = take_value(argc, argv, &i, eq);
			unsigned long long a, z;
			int used = 0;
			if (!v || sscanf(v, "%llu:%llu%n", &a, &z, &used) != 2 ||
			    v[used] || a > z || z - a >= 100000)
				return usage_error("--emds wants FROM:TO, a window of "
				    "at most 100000 slices", v ? v : "nothing");
			o->emds = true;
			o->emds_from = a;
			o->emds_to = z;
		} else if (IS("emds-out")) {
			const char *v = take_value(argc, argv, &i, eq);
			if (!v || !*v)
				return usage_error("--emds-out wants a file prefix",
				    NULL);
			o->emds_out = v;
		} else if (IS("keep-trace")) {
			o->keep_trace = true;
		} else if (IS("timeout")) {
			const char *v = take_value(argc, argv, &i, eq);
			char *end = NULL;
			double t = v ? strtod(v, &end) : -1;
			if (!v || end == v || *end || !(t > 0) || t > 1e7)
				return usage_error("--timeout wants a number of "
				    "seconds", v ? v : "nothing");
			o->timeout_s = t;
		} else if (IS("x") || IS("env")) {
			bool is_x = IS("x");
			const char *v = take_value(argc, argv, &i, eq);
			if (!v)
				return usage_error(is_x ? "-x wants VAR or VAR=VAL"
				    : "--env wants VAR=VAL", NULL);
			const char *veq = strchr(v, '=');
			size_t vl = veq ? (size_t)(veq - v) : strlen(v);
			if (!valid_name(v, vl) || (!is_x && !veq))
				return usage_error(is_x ? "-x wants VAR or VAR=VAL"
				    : "--env wants VAR=VAL", v);
			if (veq) {
				if (add_env(o, v))
					goto nomem;
			} else {
				/* Open MPI's -x VAR exports the launcher's value;
				 * the ranks inherit the whole environment, so
				 * only an unset VAR needs a word. */
				if (!getenv(v))
					fprintf(stderr, "%s: -x %s: not set here; "
					    "the ranks do not get it\n", RUN_CMD, v);
			}
		} else if (IS("oversubscribe") || IS("allow-run-as-root")) {
			/* Open MPI's: nothing to do here. */
		} else if (IS("bind-to") || IS("map-by")) {
			if (!take_value(argc, argv, &i, eq))
				return usage_error("this option wants a value", a);
		} else {
			return usage_error("unknown option", a);
		}
#undef IS
	}
	if (!o->hosts && !o->hostfile) {
		/* Inside a Slurm allocation: its task count and hosts
		 * (run_slurm.c). */
		char err[512];
		int rc = run_slurm_apply(&o->n, have_n, &o->hosts_alloc,
		                         RUN_MAX_RANKS, err, sizeof err);
		if (rc < 0) {
			fprintf(stderr, "%s: %s\n", RUN_CMD, err);
			return 2;
		}
		if (rc > 0 && !have_n)
			return usage_error("the number of ranks is missing (-n N)",
			                   NULL);
		if (o->hosts_alloc)
			o->hosts = o->hosts_alloc;
	} else if (!have_n) {
		return usage_error("the number of ranks is missing (-n N)", NULL);
	}
	if (i >= argc)
		return usage_error("the program to run is missing", NULL);
	o->argv = argv + i;
	if (!o->bcs && (o->slice_ns || o->record || o->replay || o->emds ||
	    o->emds_out))
		return usage_error(o->slice_ns ? "--slice needs --bcs"
		                   : o->record ? "--record needs --bcs"
		                   : o->replay ? "--replay needs --bcs"
		                               : "--emds needs --bcs", NULL);
	bool across = o->hosts || o->hostfile;
	if (across && o->bcs)
		return usage_error(o->hosts_alloc ? "--bcs runs on one host only; "
		    "this Slurm allocation has several" : "--bcs runs on one host "
		    "only; it cannot be used with --hosts", NULL);
	if (across && (o->stats || o->stats_json || o->keep_trace))
		return usage_error(o->keep_trace ? "--keep-trace is not supported "
		    "with --hosts (the event spaces of ranks on other hosts stay "
		    "there)" : "--stats is not supported with --hosts (ranks on "
		    "other hosts keep their statistics in their own host's "
		    "memory)", NULL);
	if (across && said_shm)
		return usage_error("--hosts runs over TCP; --transport shm "
		    "cannot be used with it", NULL);
	if (across)
		o->tcp = true; /* between hosts only TCP */
	if (o->bcs && o->tcp)
		return usage_error("--bcs runs on shared memory only; it cannot "
		    "be used with --transport tcp", NULL);
	if (o->emds_out && !o->emds)
		return usage_error("--emds-out needs --emds", NULL);
	if (o->emds && !o->emds_out)
		o->emds_out = "bcs-emds";
	if (!o->slice_ns)
		o->slice_ns = RUN_BCS_DEFAULT_SLICE_NS;
	/* The environment's switches, as the options (docs/mpi.md). */
	const char *e = getenv("GROVE_MPI_STATS");
	if (e && *e && strcmp(e, "0") != 0)
		o->stats = true;
	e = getenv("GROVE_MPI_VERBOSE");
	if (e && *e && strcmp(e, "0") != 0)
		o->verbose = true;
	return 0;
nomem:
	fprintf(stderr, "%s: out of memory\n", RUN_CMD);
	return 2;
}

void
run_opts_free(struct run_opts *o)
{
	free(o->hosts_alloc);
	o->hosts_alloc = NULL;
	for (size_t i = 0; i < o->n_env_set; i++)
		free(o->env_set[i]);
	free(o->env_set);
	o->env_set = NULL;
	o->n_env_set = 0;
}

/* Whether path is a file this process may execute: 0, or errno. */
static int
check_exec(const char *path)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return errno;
	if (S_ISDIR(st.st_mode))
		return EISDIR;
	if (access(path, X_OK) != 0)
		return errno;
	return 0;
}

int
run_resolve_program(struct run_opts *o)
{
	const char *prog = o->argv[0];
	int err = ENOENT;
	/* Done once here, so that the ranks exec a path and a missing
	 * program costs one message instead of N. */
	if (strchr(prog, '/')) {
		if (strlen(prog) >= sizeof o->exe)
			err = ENAMETOOLONG;
		else if (!(err = check_exec(prog)))
			snprintf(o->exe, sizeof o->exe, "%s", prog);
	} else {
		const char *path = getenv("PATH");
		if (!path || !*path)
			path = "/usr/local/bin:/usr/bin:/bin";
		/* As execvp: the first executable match wins; a match that is
		 * not executable is remembered (permission denied) when
		 * nothing later is. */
		bool denied = false;
		for (const char *p = path;; ) {
			const char *c = strchr(p, ':');
			size_t dl = c ? (size_t)(c - p) : strlen(p);
			char cand[sizeof o->exe];
			int w = snprintf(cand, sizeof cand, "%.*s%s%s", (int)dl, p,
			    dl ? "/" : "", prog);
			if (w > 0 && (size_t)w < sizeof cand) {
				int e = check_exec(cand);
				if (!e) {
					snprintf(o->exe, sizeof o->exe, "%s", cand);
					err = 0;
					break;
				}
				if (e == EACCES || e == EISDIR)
					denied = true;
			}
			if (!c)
				break;
			p = c + 1;
		}
		if (err && denied)
			err = EACCES;
	}
	if (!err)
		return 0;
	if (err == ENOENT && !strchr(prog, '/')) {
		fprintf(stderr, "%s: %s: command not found\n", RUN_CMD, prog);
		return 127;
	}
	if (err == EISDIR)
		err = EACCES;
	fprintf(stderr, "%s: %s: %s\n", RUN_CMD, prog, strerror(err));
	return err == ENOENT || err == ENOTDIR || err == ENAMETOOLONG ||
	       err == ELOOP ? 127 : 126;
}

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "toolutil.h"

#include "grove/error.h"
#include "topo/spec.h"

/* The directory of the running executable: grove-commnode and
 * grove-agent are built (and installed) beside grove; be_worker is built
 * beside it too, and installed in GROVE_WORKER_REL_DIR relative to it. */
static int
exe_dir(char *buf, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", buf, len - 1);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	char *slash = strrchr(buf, '/');
	if (!slash)
		return -1;
	*slash = '\0';
	return 0;
}

/* be_worker beside grove (the build tree), else in the installed tree's
 * libexec directory: the example back-end is no command for PATH. */
static int
find_worker(const char *dir, char *out, size_t len, char *err,
    size_t errlen)
{
	char beside[4096], installed[4096];
	snprintf(beside, sizeof beside, "%.4000s/be_worker", dir);
	snprintf(installed, sizeof installed, "%.3000s/%.900s/be_worker", dir,
	    GROVE_WORKER_REL_DIR);
	if (access(beside, X_OK) == 0) {
		snprintf(out, len, "%s", beside);
		return 0;
	}
	int e1 = errno;
	if (access(installed, X_OK) == 0) {
		snprintf(out, len, "%s", installed);
		return 0;
	}
	snprintf(err, errlen, "back-end program be_worker not found: %s: %s; "
	    "%s: %s (set GROVE_WORKER to use another)", beside, strerror(e1),
	    installed, strerror(errno));
	return GROVE_ENOENT;
}

int
tool_find_programs(tool_programs *pg, char *err, size_t errlen)
{
	char dir[4096];
	int have_dir = exe_dir(dir, sizeof dir) == 0;
	const char *env = getenv("GROVE_WORKER");

	memset(pg, 0, sizeof *pg);
	if (env && *env) {
		snprintf(pg->worker, sizeof pg->worker, "%s", env);
		if (access(pg->worker, X_OK) < 0) {
			snprintf(err, errlen, "back-end program %s: %s (from "
			    "GROVE_WORKER)", pg->worker, strerror(errno));
			return GROVE_ENOENT;
		}
	} else if (have_dir) {
		int rc = find_worker(dir, pg->worker, sizeof pg->worker, err,
		    errlen);
		if (rc != 0)
			return rc;
	} else {
		snprintf(err, errlen, "cannot read /proc/self/exe to find "
		    "be_worker; set GROVE_WORKER");
		return GROVE_ENOENT;
	}
	const char *cn = getenv("GROVE_COMMNODE");
	if ((!cn || !*cn) && have_dir) {
		snprintf(pg->commnode, sizeof pg->commnode,
		    "%.4000s/grove-commnode", dir);
		if (access(pg->commnode, X_OK) < 0)
			pg->commnode[0] = '\0';
	}
	return 0;
}

int
tool_find_program(const char *name, const char *env_var, char *out,
    size_t len, char *err, size_t errlen)
{
	const char *env = getenv(env_var);
	char dir[4096];
	if (env && *env) {
		snprintf(out, len, "%s", env);
	} else if (exe_dir(dir, sizeof dir) == 0) {
		snprintf(out, len, "%.4000s/%s", dir, name);
	} else {
		snprintf(err, errlen, "cannot read /proc/self/exe to find %s; "
		    "set %s", name, env_var);
		return GROVE_ENOENT;
	}
	if (access(out, X_OK) < 0) {
		snprintf(err, errlen, "%s: %s%s%s%s", out, strerror(errno),
		    env && *env ? " (from " : " (set ", env_var,
		    env && *env ? ")" : " to use another)");
		return GROVE_ENOENT;
	}
	return 0;
}

void
tool_net_opts(grove_net_opts *o, const tool_programs *pg,
    const char *topology, unsigned backends)
{
	static char *const worker_argv[] = {"be_worker", NULL};

	grove_net_opts_init(o);
	o->topology = topology;
	o->backends = backends;
	o->mode = GROVE_LAUNCH_SPAWN;
	o->be_exe = pg->worker;
	o->be_argv = worker_argv;
	if (pg->commnode[0])
		o->commnode_exe = pg->commnode;
}

void
tool_raise_nofile(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

double
tool_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

long
tool_parse_count(const char *s, long max)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v <= 0 || v > max)
		return -1;
	return v;
}

int
tool_usage_error(const char *cmd, const char *msg, const char *arg)
{
	/* One line, one style for every command and subcommand. */
	fprintf(stderr, "%s: %s%s%s; try '%s --help'\n", cmd, msg,
	    arg ? ": " : "", arg ? arg : "", cmd);
	return 2;
}

int
tool_parse_inject_step(const char *cmd, const char *v, int64_t *out)
{
	char *end;
	errno = 0;
	long long x = strtoll(v, &end, 10);
	if (!*v || *end || errno || x < -1000000000000LL ||
	    x > 1000000000000LL) {
		char msg[128];
		snprintf(msg, sizeof msg, "--inject-step wants nanoseconds in "
		    "[-1e12, 1e12], not '%.60s'", v);
		return tool_usage_error(cmd, msg, NULL);
	}
	*out = x;
	return 0;
}

int
tool_net_create_injected(const char *cmd, const tool_programs *pg,
    const char *topology, const char *file, unsigned backends, int64_t step,
    grove_net **out)
{
	char text[32];
	grove_net_opts o;
	snprintf(text, sizeof text, "%" PRId64, step);
	setenv("GROVE_CLOCK_INJECT_NS", text, 1);
	tool_net_opts(&o, pg, topology, backends);
	o.topology_file = file;
	int rc = grove_net_create(&o, out);
	unsetenv("GROVE_CLOCK_INJECT_NS");
	if (rc < 0)
		fprintf(stderr, "%s: create %s with %u back-ends: %s: %s\n",
		    cmd, file ? file : topology, backends, grove_strerror(rc),
		    *out ? grove_net_last_error(*out) : "");
	return rc;
}

double
tool_cpu_self(void)
{
	struct rusage ru;
	if (getrusage(RUSAGE_SELF, &ru) != 0)
		return 0;
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	    (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

/* Prints s as a JSON string. */
void
tool_json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch == '"' || ch == '\\')
			printf("\\%c", ch);
		else if (ch < 0x20)
			printf("\\u%04x", ch);
		else
			putchar(ch);
	}
	putchar('"');
}

/* The CPU model, for the record of where numbers were measured. */
static void
cpu_model(char *buf, size_t len)
{
	snprintf(buf, len, "unknown");
	FILE *f = fopen("/proc/cpuinfo", "r");
	if (!f)
		return;
	char line[512];
	while (fgets(line, sizeof line, f)) {
		if (strncmp(line, "model name", 10))
			continue;
		char *colon = strchr(line, ':');
		if (!colon)
			break;
		colon++;
		while (*colon == ' ' || *colon == '\t')
			colon++;
		colon[strcspn(colon, "\n")] = '\0';
		snprintf(buf, len, "%s", colon);
		break;
	}
	fclose(f);
}

void
tool_json_machine(void)
{
	char cpu[256];
	cpu_model(cpu, sizeof cpu);
	printf(", \"cpu\": ");
	tool_json_str(cpu);
	printf(", \"cpus\": %ld", sysconf(_SC_NPROCESSORS_ONLN));
	const char *commit = getenv("GROVE_COMMIT");
	if (commit && *commit) {
		printf(", \"commit\": ");
		tool_json_str(commit);
	}
}

uint32_t
tool_spec_backends(const char *spec)
{
	uint32_t n = 0;
	if (topo_spec_backends(spec, &n, NULL, 0) != 0)
		return 0;
	return n;
}

int
tool_resolve_backends(const char *cmd, const char *spec, int given,
    unsigned max, unsigned *n)
{
	if (given)
		return 0;
	uint32_t fixed = tool_spec_backends(spec);
	if (!fixed)
		return 0;
	if (fixed > max) {
		/* Checked here: the topology module allows far larger trees
		 * than a tool starts processes for. */
		fprintf(stderr, "%s: topology '%s' makes %" PRIu32 " back-ends;"
		    " the back-end count wants a number in 1..%u, as "
		    "--backends does\n", cmd, spec, fixed, max);
		return 2;
	}
	*n = fixed;
	return 0;
}

int
tool_count_error(const char *cmd, const char *opt, const char *v, long max)
{
	fprintf(stderr, "%s: %s wants a number in 1..%ld, not '%s'; try "
	    "'%s --help'\n", cmd, opt, max, v, cmd);
	return 2;
}

int
tool_finish_output(const char *cmd, FILE *f, const char *path, int rc)
{
	/* A failed write leaves the stream's error flag set.  The flush
	 * tries what is still buffered again and sets errno; when the
	 * failed write took its data along, there is nothing left to try
	 * and the reason is gone with it. */
	int failed = rc != 0 || ferror(f);
	errno = 0;
	if (path ? fclose(f) != 0 : fflush(f) != 0)
		failed = 1;
	if (!failed)
		return 0;
	int e = errno;
	fprintf(stderr, "%s: %s: write failed%s%s\n", cmd,
	    path ? path : "standard output", e ? ": " : "",
	    e ? strerror(e) : "");
	return 1;
}

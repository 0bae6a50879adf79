/* grove run --hosts / --hostfile: which host each rank runs on, and the
 * remote shell command that starts a rank on another host.
 *
 * Placement is in blocks: with N ranks on H hosts, host i takes the
 * next N/H ranks (one more for the first N mod H hosts), in the order
 * listed.  A host naming this machine (spawn_host_is_local: localhost,
 * 127.x, this host's name) gets its ranks by fork and exec as without
 * --hosts; every other host through the remote shell ($GROVE_RSH, else
 * ssh), like the tree's remote processes (docs/hosts.md):
 *
 *   ssh HOST "cd 'CWD' && exec env 'VAR=VAL'... /bin/sh -c 'WRAPPER' sh
 *             'PROGRAM' 'ARG'..."
 *
 * The wrapper runs the program with its standard input on /dev/null,
 * removes the rank's event space (/dev/shm/grove.JOB.mpi.RANK, which a
 * killed rank leaves on its host) when it ends, and kills it when the
 * remote shell's standard input ends: grove run keeps
 * the other end of that pipe open for the life of the job, so a launcher
 * that dies (even by SIGKILL: its ssh children die with it) leaves no
 * rank behind on another host.  The remote shell exits with the
 * program's status (128+N for signal N), which is what grove run sees. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "net/remote_cmd.h"
#include "net/spawn.h"
#include "run.h"

extern char **environ;

static int
add_host(struct run_hosts *h, const char *name, size_t len)
{
	while (len && (name[len - 1] == ' ' || name[len - 1] == '\t' ||
	               name[len - 1] == '\r'))
		len--;
	while (len && (*name == ' ' || *name == '\t')) {
		name++;
		len--;
	}
	/* A host list's "host:slots" (topology.md): placement is in even
	 * blocks, so the slots are not used. */
	const char *colon = memchr(name, ':', len);
	if (colon)
		len = (size_t)(colon - name);
	if (len == 0)
		return 0;
	if (len >= sizeof h->names[0] || name[0] == '-') {
		fprintf(stderr, "%s: bad host name '%.*s'\n", RUN_CMD, (int)len,
		    name);
		return -1;
	}
	for (size_t i = 0; i < len; i++)
		if (name[i] == ' ' || name[i] == '\'' || name[i] == '"' ||
		    name[i] == ';' || name[i] == '\\') {
			fprintf(stderr, "%s: bad host name '%.*s'\n", RUN_CMD,
			    (int)len, name);
			return -1;
		}
	if (h->n == RUN_MAX_HOSTS) {
		fprintf(stderr, "%s: more than %d hosts\n", RUN_CMD, RUN_MAX_HOSTS);
		return -1;
	}
	memcpy(h->names[h->n], name, len);
	h->names[h->n][len] = '\0';
	h->n++;
	return 0;
}

static int
load_file(const char *path, struct run_hosts *h)
{
	FILE *f = fopen(path, "re");
	if (!f) {
		fprintf(stderr, "%s: host file %s: %s\n", RUN_CMD, path,
		    strerror(errno));
		return -1;
	}
	char line[512];
	while (fgets(line, sizeof line, f)) {
		char *hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		if (add_host(h, line, strcspn(line, "\n")) != 0) {
			fclose(f);
			return -1;
		}
	}
	fclose(f);
	return 0;
}

int
run_hosts_load(const struct run_opts *o, struct run_hosts *h)
{
	memset(h, 0, sizeof *h);
	struct stat st;
	/* -H FILE means a host list file, as in the other commands. */
	if (o->hosts && stat(o->hosts, &st) == 0 && S_ISREG(st.st_mode)) {
		if (load_file(o->hosts, h) != 0)
			return -1;
	} else if (o->hosts) {
		for (const char *p = o->hosts;;) {
			const char *c = strchr(p, ',');
			size_t len = c ? (size_t)(c - p) : strlen(p);
			if (add_host(h, p, len) != 0)
				return -1;
			if (!c)
				break;
			p = c + 1;
		}
	}
	if (o->hostfile && load_file(o->hostfile, h) != 0)
		return -1;
	if (h->n == 0) {
		fprintf(stderr, "%s: %s names no host\n", RUN_CMD,
		    o->hostfile ? o->hostfile : "--hosts");
		return -1;
	}
	/* Ranks on this machine listen on the address of its own name:
	 * "localhost" would give the other hosts 127.0.0.1. */
	if (gethostname(h->self, sizeof h->self - 1) != 0 || !h->self[0])
		snprintf(h->self, sizeof h->self, "localhost");
	for (unsigned i = 0; i < h->n; i++)
		h->local[i] = spawn_host_is_local(h->names[i]) == 1;
	return 0;
}

unsigned
run_hosts_of_rank(const struct run_hosts *h, unsigned n, unsigned r)
{
	unsigned per = n / h->n, extra = n % h->n;
	/* The first `extra` hosts take per + 1 ranks. */
	unsigned big = extra * (per + 1);
	if (r < big)
		return r / (per + 1);
	return extra + (per ? (r - big) / per : 0);
}

const char *
run_hosts_tcp_name(const struct run_hosts *h, unsigned host)
{
	return h->local[host] ? h->self : h->names[host];
}

/* Whether the launcher's variable `entry` goes to remote ranks: Grove's
 * own tuning variables (not those grove run sets), and the sanitizers'
 * and the loader's settings. */
static bool
passes(const char *entry)
{
	static const char *const also[] = {
		"ASAN_OPTIONS=", "UBSAN_OPTIONS=", "LSAN_OPTIONS=",
		"LD_LIBRARY_PATH=",
	};
	for (size_t i = 0; i < sizeof also / sizeof also[0]; i++)
		if (!strncmp(entry, also[i], strlen(also[i])))
			return true;
	return !strncmp(entry, "GROVE_", 6) && !run_spawn_ours(entry);
}

struct strv {
	char **v;
	size_t n, cap;
};

static int
strv_push(struct strv *s, char *str)
{
	if (!str)
		return -1;
	if (s->n + 2 > s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 32;
		char **v = realloc(s->v, cap * sizeof *v);
		if (!v) {
			free(str);
			return -1;
		}
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = str;
	s->v[s->n] = NULL;
	return 0;
}

static char *
quoted_fmt(const char *fmt, const char *a, unsigned u)
{
	char buf[4400];
	snprintf(buf, sizeof buf, fmt, a ? a : "", u);
	return remote_quote(buf);
}

/* The shell text run on the remote host (see the top of this file). */
static const char wrapper[] =
	"exec 3<&0; \"$@\" </dev/null 3<&- & p=$!; "
	"(while read -r _; do :; done; kill -KILL $p) <&3 >/dev/null 2>&1 & "
	"w=$!; exec 3<&-; wait $p; s=$?; kill $w 2>/dev/null; "
	"rm -f \"/dev/shm/grove.$GROVE_MPI_JOBID.mpi.$GROVE_MPI_RANK\"; "
	"exit $s";

char **
run_hosts_argv(const struct run_job *job, unsigned r, unsigned host)
{
	const struct run_opts *o = job->o;
	const struct run_hosts *h = job->hosts;
	struct strv words = {0}, cmd = {0};
	char **rsh = NULL;
	const char *setting = getenv("GROVE_RSH");
	if (remote_shell_words(setting && *setting ? setting : "ssh", &rsh) != 0)
		return NULL;
	char cwd[4096];
	if (!getcwd(cwd, sizeof cwd))
		snprintf(cwd, sizeof cwd, "/");
	bool ok = true;
	ok = ok && strv_push(&cmd, strdup("cd")) == 0;
	ok = ok && strv_push(&cmd, remote_quote(cwd)) == 0;
	ok = ok && strv_push(&cmd, strdup("&& exec env")) == 0;
	for (char **p = environ; ok && *p; p++)
		if (passes(*p))
			ok = strv_push(&cmd, remote_quote(*p)) == 0;
	for (size_t i = 0; ok && i < o->n_env_set; i++)
		ok = strv_push(&cmd, remote_quote(o->env_set[i])) == 0;
	ok = ok && strv_push(&cmd, quoted_fmt("GROVE_MPI_RANK=%s%u", "", r)) == 0;
	ok = ok && strv_push(&cmd, quoted_fmt("GROVE_MPI_SIZE=%s%u", "",
	    job->n)) == 0;
	ok = ok && strv_push(&cmd, quoted_fmt("GROVE_MPI_JOBID=%s", job->jobid,
	    0)) == 0;
	ok = ok && strv_push(&cmd, quoted_fmt("GROVE_MPI_CONNECT=%s",
	    job->connect, 0)) == 0;
	ok = ok && strv_push(&cmd, strdup("GROVE_MPI_TRANSPORT=tcp")) == 0;
	ok = ok && strv_push(&cmd, quoted_fmt("GROVE_MPI_TCP_HOST=%s",
	    run_hosts_tcp_name(h, host), 0)) == 0;
	if (o->verbose)
		ok = ok && strv_push(&cmd, strdup("GROVE_MPI_VERBOSE=1")) == 0;
	ok = ok && strv_push(&cmd, strdup("/bin/sh -c")) == 0;
	ok = ok && strv_push(&cmd, remote_quote(wrapper)) == 0;
	ok = ok && strv_push(&cmd, strdup("sh")) == 0;
	ok = ok && strv_push(&cmd, remote_quote(o->exe)) == 0;
	for (size_t i = 1; ok && o->argv[i]; i++)
		ok = strv_push(&cmd, remote_quote(o->argv[i])) == 0;
	char *line = NULL;
	if (ok) {
		size_t len = 1;
		for (size_t i = 0; i < cmd.n; i++)
			len += strlen(cmd.v[i]) + 1;
		line = malloc(len);
		if (line) {
			size_t at = 0;
			for (size_t i = 0; i < cmd.n; i++) {
				size_t l = strlen(cmd.v[i]);
				memcpy(line + at, cmd.v[i], l);
				at += l;
				line[at++] = i + 1 < cmd.n ? ' ' : '\0';
			}
		}
	}
	for (size_t i = 0; i < cmd.n; i++)
		free(cmd.v[i]);
	free(cmd.v);
	ok = line != NULL;
	for (size_t i = 0; ok && rsh[i]; i++)
		ok = strv_push(&words, strdup(rsh[i])) == 0;
	ok = ok && strv_push(&words, strdup(h->names[host])) == 0;
	ok = ok && strv_push(&words, line) == 0;
	free(rsh);
	if (!ok) {
		for (size_t i = 0; i < words.n; i++)
			free(words.v[i]);
		free(words.v);
		return NULL;
	}
	return words.v;
}

/* The placement, where grove monitor --job on this host finds the hosts
 * it has to start readers on (docs/monitoring.md, "Jobs across hosts").
 * Written to a temporary name and renamed: a monitor never reads half a
 * file. */
int
run_hosts_write_file(const struct run_job *job)
{
	const struct run_hosts *h = job->hosts;
	bool remote = false;
	for (unsigned i = 0; h && i < h->n; i++)
		remote = remote || !h->local[i];
	if (!remote)
		return 0;
	char path[4200], tmp[4220];
	snprintf(path, sizeof path, "%.4000s/hosts", job->dir);
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	FILE *f = fopen(tmp, "wxe");
	if (!f) {
		fprintf(stderr, "%s: %s: %s\n", RUN_CMD, tmp, strerror(errno));
		return -1;
	}
	fprintf(f, "# grove run --hosts: host first-rank ranks local|remote\n");
	for (unsigned i = 0, r = 0; i < h->n; i++) {
		unsigned first = r;
		while (r < job->n && run_hosts_of_rank(h, job->n, r) == i)
			r++;
		fprintf(f, "%s %u %u %s\n", h->names[i], first, r - first,
		    h->local[i] ? "local" : "remote");
	}
	if (fclose(f) != 0 || rename(tmp, path) != 0) {
		fprintf(stderr, "%s: %s: %s\n", RUN_CMD, path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}

void
run_hosts_argv_free(char **argv)
{
	if (!argv)
		return;
	for (size_t i = 0; argv[i]; i++)
		free(argv[i]);
	free(argv);
}

/* A grove run job across hosts, the monitor's side (see host_scope.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "grove/error.h"
#include "host_scope.h"
#include "monitor/share_frame.h"
#include "net/remote_cmd.h"
#include "net/sockio.h"
#include "say.h"
#include "trace/trace_impl.h"

#define CMD "grove monitor"

extern char **environ;

static int
good_host(const char *h)
{
	if (!*h || *h == '-')
		return 0;
	for (; *h; h++)
		if (strchr(" '\"\\;,`$", *h))
			return 0;
	return 1;
}

int
host_scope_load(struct host_scope *h, const char *job, int kind, char *err,
                size_t errlen)
{
	memset(h, 0, sizeof *h);
	h->kind = kind;
	if (strlen(job) >= sizeof h->job)
		return say(err, errlen, "job id too long");
	snprintf(h->job, sizeof h->job, "%s", job);
	const char *base = getenv("TMPDIR");
	if (!base || !*base)
		base = "/tmp";
	char path[4200];
	snprintf(path, sizeof path, "%.4000s/grove-run.%s/hosts", base, job);
	FILE *f = fopen(path, "re");
	if (!f)
		return 0; /* one host only, or not grove run --hosts */
	char line[512];
	unsigned lineno = 0;
	int rc = 0;
	while (!rc && fgets(line, sizeof line, f)) {
		lineno++;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		char host[256], where[16], extra;
		unsigned first, n;
		if (sscanf(line, "%255s %u %u %15s %c", host, &first, &n, where,
		           &extra) != 4 || !good_host(host) ||
		    (strcmp(where, "local") && strcmp(where, "remote"))) {
			rc = say(err, errlen, "%s, line %u: not \"HOST "
			         "FIRST-RANK RANKS local|remote\"", path, lineno);
			break;
		}
		if (!n)
			continue; /* more hosts than ranks: nothing there */
		if (!strcmp(where, "local")) {
			struct host_ranks *l = realloc(h->local,
			    (h->n_local + 1) * sizeof *l);
			if (!l) {
				rc = say(err, errlen, "out of memory");
				break;
			}
			h->local = l;
			h->local[h->n_local++] = (struct host_ranks){first, n};
			continue;
		}
		struct host_reader *r = realloc(h->r, (h->n + 1) * sizeof *r);
		if (!r) {
			rc = say(err, errlen, "out of memory");
			break;
		}
		h->r = r;
		r = &h->r[h->n++];
		memset(r, 0, sizeof *r);
		snprintf(r->host, sizeof r->host, "%s", host);
		r->ranks = (struct host_ranks){first, n};
		r->to = r->from = -1;
	}
	fclose(f);
	if (rc)
		host_scope_stop(h);
	return rc;
}

int
host_scope_admit_local(void *ctx, const char *role, uint32_t rank,
                       int64_t *node)
{
	const struct host_scope *h = ctx;
	*node = -1;
	if (strcmp(role, "mpi") != 0)
		return 1; /* the launcher's own space */
	for (size_t i = 0; i < h->n_local; i++)
		if (rank >= h->local[i].first &&
		    rank - h->local[i].first < h->local[i].n)
			return 1;
	return 0;
}

/* ---- starting the readers ------------------------------------------- */

struct words {
	char **v;
	size_t n, cap;
	int bad;
};

static void
push(struct words *w, char *s)
{
	if (!s || w->bad) {
		free(s);
		w->bad = 1;
		return;
	}
	if (w->n + 2 > w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 32;
		char **v = realloc(w->v, cap * sizeof *v);
		if (!v) {
			free(s);
			w->bad = 1;
			return;
		}
		w->v = v;
		w->cap = cap;
	}
	w->v[w->n++] = s;
	w->v[w->n] = NULL;
}

static void
words_free(struct words *w)
{
	for (size_t i = 0; i < w->n; i++)
		free(w->v[i]);
	free(w->v);
	memset(w, 0, sizeof *w);
}

static char *
join(const struct words *w)
{
	size_t len = 1;
	for (size_t i = 0; i < w->n; i++)
		len += strlen(w->v[i]) + 1;
	char *s = malloc(len), *at = s;
	if (!s)
		return NULL;
	for (size_t i = 0; i < w->n; i++)
		at += sprintf(at, "%s%s", i ? " " : "", w->v[i]);
	*at = '\0';
	return s;
}

/* What the remote shell runs: this grove binary (the same path on every
 * host, as grove run assumes of its program) as the host's reader, with
 * the sanitizers', the loader's and Grove's settings. */
static char *
remote_line(const struct host_scope *h, const struct host_reader *r,
            const struct scope_select *sel, const char *grove)
{
	static const char *const pass[] = {
		"ASAN_OPTIONS=", "UBSAN_OPTIONS=", "LSAN_OPTIONS=",
		"LD_LIBRARY_PATH=", "GROVE_",
	};
	struct words w = {0};
	char buf[64];
	push(&w, strdup("exec env"));
	for (char **e = environ; *e; e++)
		for (size_t i = 0; i < sizeof pass / sizeof pass[0]; i++)
			if (!strncmp(*e, pass[i], strlen(pass[i]))) {
				push(&w, remote_quote(*e));
				break;
			}
	push(&w, remote_quote(grove));
	push(&w, strdup("monitor --serve-share --ranks"));
	snprintf(buf, sizeof buf, "%u:%u", r->ranks.first, r->ranks.n);
	push(&w, strdup(buf));
	push(&w, strdup("--job"));
	push(&w, remote_quote(h->job));
	if (h->kind == MON_SHARE_RAW)
		push(&w, strdup("--raw"));
	if (sel->last_only)
		push(&w, strdup("--last-only"));
	if (sel->layer) {
		push(&w, strdup("--layer"));
		push(&w, remote_quote(sel->layer));
	}
	if (sel->name) {
		push(&w, strdup("--name"));
		push(&w, remote_quote(sel->name));
	}
	if (sel->op >= 0) {
		char op[32];
		push(&w, strdup("--op"));
		push(&w, remote_quote(trace_op_name((uint16_t)sel->op, op,
		                                    sizeof op)));
	}
	push(&w, strdup("stats"));
	char *line = w.bad ? NULL : join(&w);
	words_free(&w);
	return line;
}

static void
end_reader(struct host_reader *r)
{
	if (r->to >= 0)
		close(r->to);
	if (r->from >= 0)
		close(r->from);
	r->to = r->from = -1;
	if (r->pid > 0) {
		/* Its standard input closed: the remote reader ends, and
		 * with it the remote shell.  One that does not within a
		 * second is ended. */
		for (int i = 0; i < 100; i++) {
			if (waitpid(r->pid, NULL, WNOHANG) == r->pid) {
				r->pid = 0;
				return;
			}
			struct timespec ts = {0, 10 * 1000 * 1000};
			nanosleep(&ts, NULL);
		}
		kill(r->pid, SIGKILL);
		waitpid(r->pid, NULL, 0);
		r->pid = 0;
	}
}

static void
fail(struct host_reader *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
fail(struct host_reader *r, const char *fmt, ...)
{
	char why[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	snprintf(r->why, sizeof r->why, "host %s: %s", r->host, why);
	fprintf(stderr, CMD ": %s; its ranks %u-%u are not read from now "
	        "on\n", r->why, r->ranks.first, r->ranks.first + r->ranks.n - 1);
	r->failed = 1;
	r->answered = 0;
	end_reader(r);
}

static void
start_one(struct host_scope *h, struct host_reader *r,
          const struct scope_select *sel, char **rsh, const char *grove)
{
	char *line = remote_line(h, r, sel, grove);
	int in[2] = {-1, -1}, out[2] = {-1, -1};
	if (!line) {
		fail(r, "out of memory");
		return;
	}
	struct words argv = {0};
	for (size_t i = 0; rsh[i]; i++)
		push(&argv, strdup(rsh[i]));
	push(&argv, strdup(r->host));
	push(&argv, line);
	if (argv.bad || pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC)) {
		fail(r, "cannot start its reader: %s", argv.bad ?
		     "out of memory" : strerror(errno));
		goto out;
	}
	pid_t pid = fork();
	if (pid < 0) {
		fail(r, "cannot start its reader: fork: %s", strerror(errno));
		goto out;
	}
	if (pid == 0) {
		if (dup2(in[0], 0) < 0 || dup2(out[1], 1) < 0)
			_exit(127);
		execvp(argv.v[0], argv.v);
		fprintf(stderr, CMD ": %s: %s\n", argv.v[0], strerror(errno));
		_exit(127);
	}
	r->pid = pid;
	r->to = in[1];
	r->from = out[0];
	in[1] = out[0] = -1;
	/* The reads wait with a deadline (sockio_read_some polls). */
	fcntl(r->from, F_SETFL, fcntl(r->from, F_GETFL) | O_NONBLOCK);
out:
	for (int i = 0; i < 2; i++) {
		if (in[i] >= 0)
			close(in[i]);
		if (out[i] >= 0)
			close(out[i]);
	}
	words_free(&argv);
}

int
host_scope_start(struct host_scope *h, const struct scope_select *sel,
                 char *err, size_t errlen)
{
	char grove[4096];
	ssize_t n = readlink("/proc/self/exe", grove, sizeof grove - 1);
	if (n <= 0)
		return say(err, errlen, "cannot find this program's path "
		           "(/proc/self/exe): %s", strerror(errno));
	grove[n] = '\0';
	char **rsh = NULL;
	const char *setting = getenv("GROVE_RSH");
	if (remote_shell_words(setting && *setting ? setting : "ssh", &rsh))
		return say(err, errlen, "GROVE_RSH names no remote shell");
	/* A reader that is gone makes writing to it fail, not end the
	 * monitor. */
	signal(SIGPIPE, SIG_IGN);
	for (size_t i = 0; i < h->n; i++)
		start_one(h, &h->r[i], sel, rsh, grove);
	free(rsh);
	return 0;
}

/* ---- pulling ---------------------------------------------------------- */

static uint64_t
now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* len bytes before the deadline: 0, or what went wrong in why. */
static int
read_by(int fd, uint8_t *p, size_t len, uint64_t deadline, char *why,
        size_t whylen)
{
	for (size_t got = 0; got < len;) {
		uint64_t now = now_ms();
		int left = deadline > now ? (int)(deadline - now) : 0;
		int r = left ? sockio_read_some(fd, p + got, len - got, left)
		             : GROVE_ETIMEDOUT;
		if (r == 0)
			return say(why, whylen, "its reader ended%s",
			           got ? " in the middle of a share" : "");
		if (r < 0)
			return say(why, whylen, "%s",
			           r == GROVE_ETIMEDOUT ? "no answer in time"
			                                : strerror(errno));
		got += (size_t)r;
	}
	return 0;
}

static void
take(struct host_scope *h, struct host_reader *r, struct mon_analysis *raw,
     uint64_t deadline)
{
	uint8_t head[MON_SHARE_FRAME_HEAD];
	char why[400];
	uint32_t len;
	if (read_by(r->from, head, sizeof head, deadline, why, sizeof why)) {
		fail(r, "%s", why);
		return;
	}
	if (mon_share_frame_head(head, &len, why, sizeof why)) {
		fail(r, "%s", why);
		return;
	}
	uint8_t *p = malloc(len ? len : 1);
	if (!p) {
		fail(r, "out of memory for a share of %u bytes", len);
		return;
	}
	if (read_by(r->from, p, len, deadline, why, sizeof why)) {
		free(p);
		fail(r, "%s (a share of %u bytes announced)", why, len);
		return;
	}
	h->bytes += len + sizeof head;
	/* Byte 5 is the share's kind (share.h): a share of another kind
	 * would be merged, or fed, as what it is not.  A shorter one is
	 * refused by the decoder. */
	if (len >= 6 && p[5] != (uint8_t)h->kind) {
		free(p);
		fail(r, "not a share of the kind asked for");
		return;
	}
	struct mon_share_counts c = {0};
	struct mon_analysis *a = raw;
	if (h->kind == MON_SHARE_ANALYSIS) {
		struct mon_analysis_opts ao = {.timeline_keep = 16};
		if (!(a = mon_analysis_new(&ao))) {
			free(p);
			fail(r, "out of memory");
			return;
		}
	}
	int kind;
	int rc = mon_share_decode(p, len, &c, &kind, a, NULL, why, sizeof why);
	free(p);
	if (rc) {
		if (a != raw)
			mon_analysis_free(a);
		fail(r, "its share was left out: %s", why);
		return;
	}
	if (a != raw) {
		mon_analysis_free(r->a);
		r->a = a;
	}
	r->c = c;
	r->answered = 1;
}

size_t
host_scope_pull(struct host_scope *h, struct mon_analysis *raw_into,
                int timeout_ms)
{
	static const char pull[] = "pull\n";
	for (size_t i = 0; i < h->n; i++) {
		struct host_reader *r = &h->r[i];
		r->answered = 0;
		if (!r->failed &&
		    sockio_write_all(r->to, pull, sizeof pull - 1, 2000) < 0)
			fail(r, "its reader ended (%s)", strerror(errno));
	}
	/* Every reader was asked before any is waited for: they read their
	 * hosts at the same time. */
	uint64_t deadline = now_ms() + (uint64_t)timeout_ms;
	size_t answered = 0;
	for (size_t i = 0; i < h->n; i++) {
		if (h->r[i].failed)
			continue;
		take(h, &h->r[i], raw_into, deadline);
		answered += h->r[i].answered;
	}
	return answered;
}

void
host_scope_stop(struct host_scope *h)
{
	/* Every reader told first (its standard input ends), then each
	 * waited for. */
	for (size_t i = 0; i < h->n; i++)
		if (h->r[i].to >= 0) {
			close(h->r[i].to);
			h->r[i].to = -1;
		}
	for (size_t i = 0; i < h->n; i++) {
		end_reader(&h->r[i]);
		mon_analysis_free(h->r[i].a);
	}
	free(h->r);
	free(h->local);
	memset(h, 0, sizeof *h);
}

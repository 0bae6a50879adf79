/* Shared helpers of the integration tests: checks, watchdog, artefact
 * paths, and process accounting through /proc.  The helpers that build
 * and talk to networks are in helper_net.c.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "helper_common.h"
#include "../../src/proto/worker_protocol.h"

/* Process-wide test context.  Global on purpose: the watchdog and the
 * fatal-signal handlers must reach it, and every test is one process that
 * calls it_init() once. */
static struct {
	char name[64];
	char build_dir[PATH_MAX];
	char source_dir[PATH_MAX];
	char commnode[PATH_MAX];
	char be_worker[PATH_MAX];
	char tmpdir[PATH_MAX];
	pid_t self;
	unsigned watchdog_s;
	/* Networks the test created (it_note_network): their event spaces
	 * go when the test ends, passed or failed, as its processes do. */
	char nets[64][48];
	int n_nets;
} g_it;

/* ---- /proc scanning, async-signal-safe ------------------------------- */

/* The scanner runs inside the watchdog handler, so it uses only raw
 * system calls and these static tables (no malloc, no stdio). */
#define IT_MAX_PROCS 65536
struct it_proc {
	pid_t pid, ppid, pgrp;
	char state;
};
static struct it_proc g_procs[IT_MAX_PROCS];
static unsigned char g_mark[IT_MAX_PROCS];

struct it_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

static int
parse_uint(const char *s, long *out)
{
	long v = 0;
	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (*s - '0');
	}
	*out = v;
	return 0;
}

/* Small signal-safe formatting: decimal of v into b, returns length. */
static size_t
fmt_long(char *b, long v)
{
	char t[24];
	size_t n = 0, len = 0;
	int neg = v < 0;
	unsigned long u = neg ? (unsigned long)-v : (unsigned long)v;
	do {
		t[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (neg)
		b[len++] = '-';
	while (n)
		b[len++] = t[--n];
	b[len] = '\0';
	return len;
}

/* Reads /proc/<pid>/stat: state, ppid, pgrp.  0 or -1. */
static int
read_stat(pid_t pid, struct it_proc *out)
{
	char path[64] = "/proc/";
	char buf[1024];
	size_t l = 6;
	l += fmt_long(path + l, pid);
	memcpy(path + l, "/stat", 6);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	/* comm may hold spaces and parentheses: the last ')' ends it. */
	char *p = NULL;
	for (ssize_t i = n - 1; i >= 0; i--)
		if (buf[i] == ')') {
			p = buf + i;
			break;
		}
	if (!p || p[1] != ' ' || !p[2])
		return -1;
	p += 2;
	out->pid = pid;
	out->state = *p++;
	long vals[2];
	for (int k = 0; k < 2; k++) {
		while (*p == ' ')
			p++;
		long v = 0;
		int neg = 0;
		if (*p == '-') {
			neg = 1;
			p++;
		}
		while (*p >= '0' && *p <= '9')
			v = v * 10 + (*p++ - '0');
		vals[k] = neg ? -v : v;
	}
	out->ppid = (pid_t)vals[0];
	out->pgrp = (pid_t)vals[1];
	return 0;
}

/* Fills g_procs with every process; returns the count. */
static size_t
scan_procs(void)
{
	char buf[8192];
	size_t n = 0;
	int fd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	for (;;) {
		long got = syscall(SYS_getdents64, fd, buf, sizeof buf);
		if (got <= 0)
			break;
		for (long off = 0; off < got;) {
			struct it_dirent64 *d = (void *)(buf + off);
			long pid;
			off += d->d_reclen;
			if (parse_uint(d->d_name, &pid) < 0)
				continue;
			if (n < IT_MAX_PROCS &&
			    read_stat((pid_t)pid, &g_procs[n]) == 0)
				n++;
		}
	}
	close(fd);
	return n;
}

/* Marks (g_mark) the descendants of root among the n scanned processes;
 * returns how many.  Fixed-point passes: trees here are a few levels. */
static size_t
mark_descendants(size_t n, pid_t root)
{
	size_t count = 0;
	int changed = 1;
	memset(g_mark, 0, n);
	while (changed) {
		changed = 0;
		for (size_t i = 0; i < n; i++) {
			if (g_mark[i] || g_procs[i].pid == root)
				continue;
			int in = g_procs[i].ppid == root;
			for (size_t j = 0; !in && j < n; j++)
				in = g_mark[j] &&
				    g_procs[j].pid == g_procs[i].ppid;
			if (in) {
				g_mark[i] = 1;
				count++;
				changed = 1;
			}
		}
	}
	return count;
}

static void
kill_descendants_raw(void)
{
	pid_t self = getpid();
	pid_t mygrp = getpgrp();
	for (int round = 0; round < 5; round++) {
		size_t n = scan_procs();
		size_t live = 0;
		mark_descendants(n, self);
		for (size_t i = 0; i < n; i++) {
			if (!g_mark[i] || g_procs[i].state == 'Z')
				continue;
			live++;
			if (g_procs[i].pgrp != mygrp &&
			    g_procs[i].pgrp == g_procs[i].pid)
				kill(-g_procs[i].pgrp, SIGKILL);
			kill(g_procs[i].pid, SIGKILL);
		}
		/* Reap what died so a later scan does not see it. */
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		if (!live)
			break;
		struct timespec ts = {0, 20 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
}

static void
write_str(const char *s)
{
	ssize_t r = write(2, s, strlen(s));
	(void)r;
}

/* ---- start, end, failure ------------------------------------------ */

static void
rm_tmpdir(void)
{
	if (!g_it.tmpdir[0] || getpid() != g_it.self)
		return;
	DIR *d = opendir(g_it.tmpdir);
	if (d) {
		struct dirent *e;
		char p[PATH_MAX + 256];
		while ((e = readdir(d))) {
			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
				continue;
			snprintf(p, sizeof p, "%s/%s", g_it.tmpdir, e->d_name);
			unlink(p);
		}
		closedir(d);
	}
	rmdir(g_it.tmpdir);
	g_it.tmpdir[0] = '\0';
}

void
it_note_network(const char *netid)
{
	if (netid && netid[0] && g_it.n_nets < (int)(sizeof g_it.nets /
	    sizeof g_it.nets[0]))
		snprintf(g_it.nets[g_it.n_nets++], sizeof g_it.nets[0], "%s",
		    netid);
}

/* Removes the event spaces in /dev/shm of the networks noted. */
static void
rm_segments(void)
{
	if (!g_it.n_nets || getpid() != g_it.self)
		return;
	DIR *d = opendir("/dev/shm");
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d))) {
		for (int i = 0; i < g_it.n_nets; i++) {
			size_t l = strlen(g_it.nets[i]);
			if (!strncmp(e->d_name, "grove.", 6) &&
			    !strncmp(e->d_name + 6, g_it.nets[i], l) &&
			    e->d_name[6 + l] == '.') {
				shm_unlink(e->d_name);
				break;
			}
		}
	}
	closedir(d);
}

static void
at_exit_cleanup(void)
{
	if (getpid() != g_it.self)
		return;
	kill_descendants_raw();
	rm_tmpdir();
	rm_segments();
}

static void
fatal_signal(int sig)
{
	char b[160];
	size_t l;
	/* Signal handler: no snprintf; copy at most 60 bytes of the name. */
	l = strnlen(g_it.name, 60);
	memcpy(b, g_it.name, l);
	b[l] = '\0';
	strcat(b, sig == SIGALRM ? ": watchdog: test hung for " :
	    ": killed by signal ");
	l = strlen(b);
	l += fmt_long(b + l, sig == SIGALRM ? (long)g_it.watchdog_s : sig);
	strcpy(b + l, sig == SIGALRM ? " s\n" : "\n");
	write_str(b);
	if (getpid() == g_it.self)
		kill_descendants_raw();
	if (sig == SIGABRT) {
		signal(SIGABRT, SIG_DFL);
		raise(SIGABRT);
	}
	_exit(3);
}

#if defined(__SANITIZE_ADDRESS__)
/* Sanitizer reports of the network's processes go to files in the test's
 * temporary directory (their exit codes are seen by Grove, not by us);
 * it_done() fails the test when there is any. */
static void
sanitizer_logs_to_tmpdir(void)
{
	static const char *const vars[] = {"ASAN_OPTIONS", "UBSAN_OPTIONS"};
	for (size_t i = 0; i < 2; i++) {
		const char *old = getenv(vars[i]);
		char v[PATH_MAX + 512];
		snprintf(v, sizeof v, "%s%slog_path=%s/sanitizer", old ? old : "",
		    old && *old ? ":" : "", it_tmpdir());
		setenv(vars[i], v, 1);
	}
}

/* 1 when a log holds nothing but LeakSanitizer's note that it could not
 * stop a thread for its exit-time check: the process was killed (a
 * destroy's SIGKILL of a straggler) while it ran that check, and no
 * report follows.  Anything else in the file is a finding. */
static int
only_killed_during_leak_check(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[512];
	int lines = 0, other = 0;
	while (f && fgets(line, sizeof line, f)) {
		lines++;
		if (!strstr(line, "Unable to get registers from thread"))
			other++;
	}
	if (f)
		fclose(f);
	return f && lines > 0 && other == 0;
}

static void
check_sanitizer_logs(void)
{
	DIR *d = opendir(it_tmpdir());
	struct dirent *e;
	int reports = 0;
	if (!d)
		return;
	while ((e = readdir(d))) {
		char p[PATH_MAX + 256], line[512];
		if (strncmp(e->d_name, "sanitizer.", 10))
			continue;
		snprintf(p, sizeof p, "%s/%s", it_tmpdir(), e->d_name);
		if (only_killed_during_leak_check(p)) {
			it_step("%s: killed during its leak check (not a "
			    "report)", e->d_name);
			continue;
		}
		reports++;
		FILE *f = fopen(p, "r");
		for (int k = 0; f && k < 40 && fgets(line, sizeof line, f);
		    k++)
			fprintf(stderr, "%s: %s", e->d_name, line);
		if (f)
			fclose(f);
	}
	closedir(d);
	if (reports)
		IT_FAIL("sanitizer reports from %d processes of the network "
		    "(first lines above)", reports);
}
#else
static void
sanitizer_logs_to_tmpdir(void)
{
}

static void
check_sanitizer_logs(void)
{
}
#endif

void
it_init(const char *name, unsigned watchdog_s)
{
	snprintf(g_it.name, sizeof g_it.name, "%s", name);
	g_it.self = getpid();
	g_it.watchdog_s = watchdog_s ? watchdog_s : IT_WATCHDOG_S;
	setvbuf(stdout, NULL, _IOLBF, 0);

	/* Orphans of a killed CP or FE are reparented here, so they remain
	 * our descendants: the fault tests find and reap them. */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0)
		fprintf(stderr, "%s: PR_SET_CHILD_SUBREAPER: %s\n", name,
		    strerror(errno));
	struct rlimit rl = {0, 0};
	setrlimit(RLIMIT_CORE, &rl);

	const char *b = getenv("GROVE_BUILD_DIR");
	if (b && *b) {
		snprintf(g_it.build_dir, sizeof g_it.build_dir, "%s", b);
	} else {
		ssize_t n = readlink("/proc/self/exe", g_it.build_dir,
		    sizeof g_it.build_dir - 1);
		if (n < 0)
			n = 0;
		g_it.build_dir[n] = '\0';
		char *slash = strrchr(g_it.build_dir, '/');
		if (slash)
			*slash = '\0';
		else
			strcpy(g_it.build_dir, ".");
	}
	const char *s = getenv("GROVE_SOURCE_DIR");
	snprintf(g_it.source_dir, sizeof g_it.source_dir, "%s",
	    s && *s ? s : ".");
	it_build_path("grove-commnode", g_it.commnode, sizeof g_it.commnode);
	it_build_path("be_worker", g_it.be_worker, sizeof g_it.be_worker);
	if (access(g_it.be_worker, X_OK) < 0 ||
	    access(g_it.commnode, X_OK) < 0) {
		fprintf(stderr, "%s: missing %s or %s (set GROVE_BUILD_DIR)\n",
		    name, g_it.be_worker, g_it.commnode);
		exit(1);
	}

	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = fatal_signal;
	sigemptyset(&sa.sa_mask);
	int sigs[] = {SIGALRM, SIGTERM, SIGINT, SIGHUP, SIGABRT};
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		sigaction(sigs[i], &sa, NULL);
	/* Writes to a peer that went away must be errors, not deaths. */
	signal(SIGPIPE, SIG_IGN);
	atexit(at_exit_cleanup);
	sanitizer_logs_to_tmpdir();
	alarm(g_it.watchdog_s);
	it_step("start (build dir %s)", g_it.build_dir);
}

int
it_done(void)
{
	it_check_no_procs(NULL, 0, 5000);
	check_sanitizer_logs();
	printf("%s: OK\n", g_it.name);
	fflush(stdout);
	return 0;
}

void
it_step(const char *fmt, ...)
{
	va_list ap;
	printf("%s: ", g_it.name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

void
it_fail_exit(void)
{
	fflush(stdout);
	fflush(stderr);
	kill_descendants_raw();
	rm_tmpdir();
	rm_segments();
	_exit(1);
}

void
it_failf(const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	fflush(stdout);
	fprintf(stderr, "%s:%d: %s: FAIL: ", file, line, g_it.name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	it_fail_exit();
}

int
it_dbl_near(double a, double b, double eps)
{
	double scale = fabs(b) > 1.0 ? fabs(b) : 1.0;
	return fabs(a - b) <= eps * scale;
}

/* ---- artefacts -------------------------------------------------------- */

const char *
it_build_dir(void)
{
	return g_it.build_dir;
}

const char *
it_source_dir(void)
{
	return g_it.source_dir;
}

char *
it_build_path(const char *name, char *buf, size_t cap)
{
	snprintf(buf, cap, "%s/%s", g_it.build_dir, name);
	return buf;
}

const char *
it_be_worker_path(void)
{
	return g_it.be_worker;
}

const char *
it_commnode_path(void)
{
	return g_it.commnode;
}

const char *
it_tmpdir(void)
{
	if (!g_it.tmpdir[0]) {
		const char *t = getenv("TMPDIR");
		snprintf(g_it.tmpdir, sizeof g_it.tmpdir, "%s/grove-it-XXXXXX",
		    t && *t ? t : "/tmp");
		if (!mkdtemp(g_it.tmpdir))
			IT_FAIL("mkdtemp(%s): %s", g_it.tmpdir,
			    strerror(errno));
	}
	return g_it.tmpdir;
}

/* ---- processes -------------------------------------------------------- */

static int
cmdline_contains(pid_t pid, const char *needle)
{
	char path[64], buf[4096];
	snprintf(path, sizeof path, "/proc/%d/cmdline", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return 0;
	for (ssize_t i = 0; i < n; i++)
		if (buf[i] == '\0')
			buf[i] = ' ';
	buf[n] = '\0';
	return strstr(buf, needle) != NULL;
}

size_t
it_descendants_of(pid_t root, pid_t *pids, size_t cap,
    const char *name_filter)
{
	size_t n = scan_procs(), count = 0;
	mark_descendants(n, root);
	for (size_t i = 0; i < n; i++) {
		if (!g_mark[i] || g_procs[i].state == 'Z')
			continue;
		if (name_filter && !cmdline_contains(g_procs[i].pid,
		    name_filter))
			continue;
		if (count < cap)
			pids[count] = g_procs[i].pid;
		count++;
	}
	return count;
}

size_t
it_descendants(pid_t *pids, size_t cap, const char *name_filter)
{
	return it_descendants_of(getpid(), pids, cap, name_filter);
}

pid_t
it_ppid(pid_t pid)
{
	struct it_proc p;
	return read_stat(pid, &p) == 0 ? p.ppid : -1;
}

char
it_proc_state(pid_t pid)
{
	struct it_proc p;
	return read_stat(pid, &p) == 0 ? p.state : '?';
}

int
it_alive(pid_t pid)
{
	struct it_proc p;
	return read_stat(pid, &p) == 0 && p.state != 'Z';
}

void
it_reap_zombies(void)
{
	pid_t self = getpid();
	size_t n = scan_procs();
	for (size_t i = 0; i < n; i++)
		if (g_procs[i].ppid == self && g_procs[i].state == 'Z')
			waitpid(g_procs[i].pid, NULL, WNOHANG);
}

size_t
it_wait_gone(const pid_t *pids, size_t n, int ms)
{
	uint64_t end = it_now_ms() + (uint64_t)ms;
	for (;;) {
		size_t alive = 0;
		it_reap_zombies();
		for (size_t i = 0; i < n; i++)
			alive += it_alive(pids[i]) != 0;
		if (!alive || it_now_ms() >= end)
			return alive;
		it_sleep_ms(20);
	}
}

void
it_check_no_procs(const pid_t *keep, size_t nkeep, int ms)
{
	pid_t pids[256];
	size_t n = 0, left = 0;
	uint64_t end = it_now_ms() + (uint64_t)ms;
	for (;;) {
		it_reap_zombies();
		n = it_descendants(pids, sizeof pids / sizeof pids[0], NULL);
		if (n > sizeof pids / sizeof pids[0])
			n = sizeof pids / sizeof pids[0];
		left = 0;
		for (size_t i = 0; i < n; i++) {
			int kept = 0;
			for (size_t k = 0; k < nkeep; k++)
				kept |= keep[k] == pids[i];
			if (!kept)
				pids[left++] = pids[i];
		}
		if (!left || it_now_ms() >= end)
			break;
		it_sleep_ms(20);
	}
	if (!left)
		return;
	fprintf(stderr, "%s: %zu processes still alive after %d ms:\n",
	    g_it.name, left, ms);
	for (size_t i = 0; i < left && i < 20; i++) {
		char path[64], buf[512];
		snprintf(path, sizeof path, "/proc/%d/cmdline", (int)pids[i]);
		FILE *f = fopen(path, "r");
		size_t got = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
		if (f)
			fclose(f);
		for (size_t k = 0; k < got; k++)
			if (!buf[k])
				buf[k] = ' ';
		buf[got] = '\0';
		fprintf(stderr, "  pid %d (parent %d): %s\n", (int)pids[i],
		    (int)it_ppid(pids[i]), buf);
	}
	IT_FAIL("processes of the network remain");
}

void
it_kill_descendants(void)
{
	kill_descendants_raw();
}

static size_t
status_kb(const char *key)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	size_t kb = 0, klen = strlen(key);
	if (!f)
		return 0;
	while (fgets(line, sizeof line, f))
		if (!strncmp(line, key, klen) && line[klen] == ':') {
			kb = strtoull(line + klen + 1, NULL, 10);
			break;
		}
	fclose(f);
	return kb;
}

size_t
it_vm_rss(void)
{
	return status_kb("VmRSS") * 1024;
}

size_t
it_vm_hwm(void)
{
	return status_kb("VmHWM") * 1024;
}

uint64_t
it_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

void
it_sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

#if defined(__SANITIZE_ADDRESS__)
/* A small quarantine keeps freed packet buffers from inflating the RSS
 * that the back-pressure test bounds. */
const char *__asan_default_options(void);
const char *
__asan_default_options(void)
{
	return "quarantine_size_mb=16";
}
#endif

char *
it_slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		IT_FAIL("cannot open %s", path);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
	if (!s || fread(s, 1, (size_t)n, f) != (size_t)n)
		IT_FAIL("cannot read %s", path);
	s[n] = 0;
	fclose(f);
	return s;
}

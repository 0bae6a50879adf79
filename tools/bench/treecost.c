#include "treecost.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace/reader.h"

typedef struct proc_cost {
	int pid, ppid;
	double cpu_s;
} proc_cost;

/* Time on CPU in ns from /proc/PID/schedstat (the scheduler's own
 * accounting, nanosecond resolution); -1 when not there.  utime+stime in
 * /proc/PID/stat count whole clock ticks (10 ms), too coarse to see a
 * percent in a tree of a hundred processes. */
static double
schedstat_s(int pid)
{
	char path[64];
	unsigned long long ns;
	snprintf(path, sizeof path, "/proc/%d/schedstat", pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	int ok = fscanf(f, "%llu", &ns) == 1;
	fclose(f);
	return ok ? (double)ns / 1e9 : -1;
}

/* pid, ppid and utime+stime from /proc/PID/stat (the command name may hold
 * spaces and parentheses: parse after the last ')'). */
static int
read_stat(int pid, proc_cost *out)
{
	char path[64], buf[1024];
	snprintf(path, sizeof path, "/proc/%d/stat", pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = 0;
	char *p = strrchr(buf, ')');
	if (!p)
		return -1;
	char state;
	int ppid;
	unsigned long long ut, st;
	/* fields 3.. : state ppid pgrp session tty tpgid flags minflt
	 * cminflt majflt cmajflt utime stime */
	if (sscanf(p + 2, "%c %d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
	    &state, &ppid, &ut, &st) != 4)
		return -1;
	out->pid = pid;
	out->ppid = ppid;
	double sched = schedstat_s(pid);
	/* A zero runtime with ticks counted means the kernel does not keep
	 * the accounting: fall back to ticks. */
	out->cpu_s = sched > 0 || ut + st == 0 ? sched :
	    (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
	if (out->cpu_s < 0)
		out->cpu_s = (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
	return 0;
}

double
treecost_cpu_s(void)
{
	size_t cap = 1024, n = 0;
	proc_cost *pc = malloc(cap * sizeof *pc);
	DIR *d = opendir("/proc");
	struct dirent *e;
	while (pc && d && (e = readdir(d))) {
		int pid = atoi(e->d_name);
		if (pid <= 0)
			continue;
		if (n == cap) {
			proc_cost *np = realloc(pc, 2 * cap * sizeof *pc);
			if (!np)
				break;
			pc = np;
			cap *= 2;
		}
		if (read_stat(pid, &pc[n]) == 0)
			n++;
	}
	if (d)
		closedir(d);
	if (!pc)
		return 0;
	/* Mark descendants of this process (a few passes settle the tree). */
	char *mine = calloc(n ? n : 1, 1);
	int me = getpid();
	for (size_t i = 0; i < n && mine; i++)
		mine[i] = pc[i].pid == me;
	for (int changed = 1; changed && mine;) {
		changed = 0;
		for (size_t i = 0; i < n; i++) {
			if (mine[i])
				continue;
			for (size_t j = 0; j < n; j++)
				if (mine[j] && pc[j].pid == pc[i].ppid) {
					mine[i] = 1;
					changed = 1;
					break;
				}
		}
	}
	double total = 0;
	for (size_t i = 0; i < n && mine; i++)
		if (mine[i])
			total += pc[i].cpu_s;
	free(mine);
	free(pc);
	return total;
}

/* Calls fn for every ring of every event space of network netid on this
 * host, with the ring's head loaded; stops early when fn returns
 * non-zero and returns that.  fn gets the open segment to read the
 * ring's tuples from (trace_seg_ring_read: never through a mapping,
 * which faults if the file is truncated meanwhile). */
typedef int (*ring_fn)(const char *name, const struct trace_seg *s,
    uint32_t r, uint64_t head, void *arg);

static int
for_each_ring(const char *netid, ring_fn fn, void *arg)
{
	char **names = NULL;
	size_t nn = 0;
	int rc = 0;
	if (trace_list(netid, stderr, &names, &nn) != 0)
		return 0;
	for (size_t i = 0; i < nn && rc == 0; i++) {
		struct trace_seg s;
		char err[256];
		if (trace_seg_open(names[i], &s, err, sizeof err) != 0)
			continue;
		uint32_t nr = trace_seg_n_rings(&s);
		for (uint32_t r = 0; r < nr && rc == 0; r++) {
			uint64_t head;
			if (trace_seg_ring_head(&s, r, &head) != 0)
				break; /* shrank: nothing more to count */
			rc = fn(names[i], &s, r, head, arg);
		}
		trace_seg_close(&s);
	}
	trace_list_free(names, nn);
	return rc;
}

static int
add_head(const char *name, const struct trace_seg *s, uint32_t r,
    uint64_t head, void *arg)
{
	(void)name, (void)r, (void)s;
	*(uint64_t *)arg += head;
	return 0;
}

uint64_t
treecost_tuples(const char *netid)
{
	uint64_t total = 0;
	for_each_ring(netid, add_head, &total);
	return total;
}

typedef struct marks {
	treecost_mark *v;
	size_t n, cap;
} marks;

static int
add_mark(const char *name, const struct trace_seg *s, uint32_t r,
    uint64_t head, void *arg)
{
	marks *m = arg;
	(void)s;
	if (m->n == m->cap) {
		size_t nc = m->cap ? 2 * m->cap : 256;
		treecost_mark *nv = realloc(m->v, nc * sizeof *nv);
		if (!nv)
			return -1;
		m->v = nv;
		m->cap = nc;
	}
	treecost_mark *k = &m->v[m->n++];
	snprintf(k->name, sizeof k->name, "%s", name);
	k->ring = r;
	k->head = head;
	return 0;
}

int
treecost_marks(const char *netid, treecost_mark **out, size_t *n)
{
	marks m = {0};
	int rc = for_each_ring(netid, add_mark, &m);
	*out = m.v;
	*n = m.n;
	return rc;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Distinct timestamps among the n tuples t. */
static uint64_t
distinct_stamps(const grove_trace_tuple *t, size_t n)
{
	size_t m = 0;
	uint64_t *v = malloc(2 * n * sizeof *v + 1);
	if (!v)
		return 0;
	for (size_t i = 0; i < n; i++) {
		v[m++] = t[i].t_start;
		v[m++] = t[i].t_end;
	}
	qsort(v, m, sizeof *v, cmp_u64);
	uint64_t d = 0;
	for (size_t i = 0; i < m; i++)
		d += i == 0 || v[i] != v[i - 1];
	free(v);
	return d;
}

typedef struct stamps {
	const treecost_mark *m;
	size_t n;
	double total;
} stamps;

static int
add_stamps(const char *name, const struct trace_seg *s, uint32_t r,
    uint64_t head, void *arg)
{
	stamps *st = arg;
	uint64_t from = 0;
	(void)head;
	for (size_t j = 0; j < st->n; j++)
		if (st->m[j].ring == r && !strcmp(st->m[j].name, name))
			from = st->m[j].head;
	/* The tuples since the mark that are still in the ring (a live
	 * ring yields its newest slots - 1), scaled up to all of them. */
	struct trace_ring_cursor cur = {.next = from};
	grove_trace_tuple *t = malloc(s->hdr.ring_slots * sizeof *t);
	size_t n = 0;
	if (!t)
		return 0;
	if (trace_seg_ring_read(s, r, 0, &cur, t, &n) == 0 && n &&
	    cur.next > from)
		st->total += (double)distinct_stamps(t, n) *
		             (double)(cur.next - from) / (double)n;
	free(t);
	return 0;
}

double
treecost_stamps_since(const char *netid, const treecost_mark *m, size_t n)
{
	stamps st = {m, n, 0};
	for_each_ring(netid, add_stamps, &st);
	return st.total;
}

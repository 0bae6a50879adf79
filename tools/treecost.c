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

uint64_t
treecost_tuples(const char *netid)
{
	char **names = NULL;
	size_t n = 0;
	uint64_t total = 0;
	if (trace_list(netid, &names, &n) != 0)
		return 0;
	for (size_t i = 0; i < n; i++) {
		struct trace_seg s;
		char err[256];
		if (trace_seg_open(names[i], &s, err, sizeof err) != 0)
			continue;
		for (uint32_t r = 0; r < trace_seg_n_rings(&s); r++)
			total += __atomic_load_n(&trace_seg_ring(&s, r)->head,
			    __ATOMIC_ACQUIRE);
		trace_seg_close(&s);
	}
	trace_list_free(names, n);
	return total;
}

int
treecost_marks(const char *netid, treecost_mark **out, size_t *n)
{
	char **names = NULL;
	size_t nn = 0, cap = 0;
	*out = NULL;
	*n = 0;
	if (trace_list(netid, &names, &nn) != 0)
		return 0;
	for (size_t i = 0; i < nn; i++) {
		struct trace_seg s;
		char err[256];
		if (trace_seg_open(names[i], &s, err, sizeof err) != 0)
			continue;
		for (uint32_t r = 0; r < trace_seg_n_rings(&s); r++) {
			if (*n == cap) {
				size_t nc = cap ? 2 * cap : 256;
				treecost_mark *nm = realloc(*out, nc * sizeof *nm);
				if (!nm) {
					trace_seg_close(&s);
					trace_list_free(names, nn);
					return -1;
				}
				*out = nm;
				cap = nc;
			}
			treecost_mark *m = &(*out)[(*n)++];
			snprintf(m->name, sizeof m->name, "%s", names[i]);
			m->ring = r;
			m->head = __atomic_load_n(&trace_seg_ring(&s, r)->head,
			    __ATOMIC_ACQUIRE);
		}
		trace_seg_close(&s);
	}
	trace_list_free(names, nn);
	return 0;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Distinct timestamps among tuples [from, to) of ring r (all still in the
 * ring: the caller keeps to - from below its size). */
static uint64_t
ring_stamps(const struct grove_trace_ring_ *r, uint64_t from, uint64_t to)
{
	size_t k = (size_t)(to - from), m = 0;
	uint64_t *v = malloc(2 * k * sizeof *v + 1);
	if (!v)
		return 0;
	for (uint64_t i = from; i < to; i++) {
		const grove_trace_tuple *t = &r->slots[i & r->mask];
		v[m++] = t->t_start;
		v[m++] = t->t_end;
	}
	qsort(v, m, sizeof *v, cmp_u64);
	uint64_t d = 0;
	for (size_t i = 0; i < m; i++)
		d += i == 0 || v[i] != v[i - 1];
	free(v);
	return d;
}

double
treecost_stamps_since(const char *netid, const treecost_mark *m, size_t n)
{
	char **names = NULL;
	size_t nn = 0;
	double total = 0;
	if (trace_list(netid, &names, &nn) != 0)
		return 0;
	for (size_t i = 0; i < nn; i++) {
		struct trace_seg s;
		char err[256];
		if (trace_seg_open(names[i], &s, err, sizeof err) != 0)
			continue;
		for (uint32_t r = 0; r < trace_seg_n_rings(&s); r++) {
			const struct grove_trace_ring_ *ring = trace_seg_ring(&s, r);
			uint64_t head = __atomic_load_n(&ring->head,
			    __ATOMIC_ACQUIRE), from = 0;
			for (size_t j = 0; j < n; j++)
				if (m[j].ring == r && !strcmp(m[j].name, names[i]))
					from = m[j].head;
			if (head <= from)
				continue;
			/* The newest slots - 1: the writer may be storing the
			 * slot after head. */
			uint64_t keep = ring->mask, first = head - from > keep ?
			    head - keep : from;
			uint64_t d = ring_stamps(ring, first, head);
			total += (double)d * (double)(head - from) /
			    (double)(head - first);
		}
		trace_seg_close(&s);
	}
	trace_list_free(names, nn);
	return total;
}

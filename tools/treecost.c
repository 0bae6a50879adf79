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

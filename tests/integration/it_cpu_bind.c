/* grove_net_opts.cpu_bind: by default every process of a network may run
 * on every CPU the tool may.  With GROVE_CPU_BIND_SUBTREE (the option, or
 * $GROVE_CPU_BIND=subtree) each child gets a share of its parent's CPUs:
 * a subset of them, disjoint from its siblings' and covering the parent's
 * together when there are CPUs enough, else one CPU each with the
 * children per CPU even.  The tool's own process keeps its CPUs.  Checked
 * on kary:2 (CPs exec'd by the front-end), on levels:1x2x4 (one CP that
 * has every CPU copies itself into two CPs that split them), on flat
 * (back-ends exec'd by the front-end), and with the test itself held to
 * one CPU.  A reduction is right in every case.
 */
#define _GNU_SOURCE /* sched_getaffinity */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helper_common.h"
#include "net/cpu_share.h"

#define MAXP 64

typedef struct proc {
	pid_t pid, ppid;
	cpu_set_t cpus;
} proc;

/* The network's processes (CPs and BEs) below the test, with their
 * parents and CPUs. */
static size_t
network_procs(proc *out)
{
	pid_t pids[MAXP];
	size_t n = it_descendants(pids, MAXP / 2, "grove-commnode");
	n += it_descendants(pids + n, MAXP / 2, "be_worker");
	for (size_t i = 0; i < n; i++) {
		out[i].pid = pids[i];
		out[i].ppid = it_ppid(pids[i]);
		if (sched_getaffinity(pids[i], sizeof out[i].cpus,
		    &out[i].cpus) != 0)
			IT_FAIL("sched_getaffinity(%d) failed", (int)pids[i]);
	}
	return n;
}

/* Unbound: every process has exactly the test's CPUs. */
static void
check_unbound(const proc *p, size_t n, const cpu_set_t *mine)
{
	for (size_t i = 0; i < n; i++)
		if (!CPU_EQUAL(&p[i].cpus, mine)) {
			char a[256], b[256];
			cpu_set_text(&p[i].cpus, a, sizeof a);
			cpu_set_text(mine, b, sizeof b);
			IT_FAIL("pid %d runs on CPUs %s, not the tool's %s",
			    (int)p[i].pid, a, b);
		}
}

/* Bound: the children of `parent` (CPUs `theirs`) share those CPUs as
 * described at the top.  Returns how many children it has. */
static size_t
check_siblings(const proc *p, size_t n, pid_t parent, const cpu_set_t *theirs)
{
	size_t k = 0;
	int per_cpu[CPU_SETSIZE] = {0};
	cpu_set_t seen;
	CPU_ZERO(&seen);
	int m = CPU_COUNT(theirs);
	for (size_t i = 0; i < n; i++)
		k += p[i].ppid == parent;
	for (size_t i = 0; i < n; i++) {
		if (p[i].ppid != parent)
			continue;
		char a[256], b[256];
		cpu_set_text(&p[i].cpus, a, sizeof a);
		cpu_set_text(theirs, b, sizeof b);
		cpu_set_t both;
		CPU_AND(&both, &p[i].cpus, theirs);
		if (CPU_COUNT(&p[i].cpus) == 0 || !CPU_EQUAL(&both, &p[i].cpus))
			IT_FAIL("pid %d runs on CPUs %s, not a share of its "
			    "parent's %s", (int)p[i].pid, a, b);
		CPU_AND(&both, &p[i].cpus, &seen);
		if ((size_t)m >= k && CPU_COUNT(&both) != 0)
			IT_FAIL("pid %d (CPUs %s) overlaps a sibling though "
			    "its parent has %d CPUs for %zu children",
			    (int)p[i].pid, a, m, k);
		if ((size_t)m < k && CPU_COUNT(&p[i].cpus) != 1)
			IT_FAIL("pid %d has CPUs %s: one each, when %zu "
			    "children share %d", (int)p[i].pid, a, k, m);
		CPU_OR(&seen, &seen, &p[i].cpus);
		for (int c = 0; c < CPU_SETSIZE; c++)
			per_cpu[c] += CPU_ISSET(c, &p[i].cpus);
	}
	if (k > 0 && (size_t)m >= k && !CPU_EQUAL(&seen, theirs))
		IT_FAIL("the children of pid %d leave some of its %d CPUs "
		    "unused", (int)parent, m);
	int lo = 1 << 30, hi = 0;
	for (int c = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, theirs))
			continue;
		lo = per_cpu[c] < lo ? per_cpu[c] : lo;
		hi = per_cpu[c] > hi ? per_cpu[c] : hi;
	}
	if (k > 0 && hi - lo > 1)
		IT_FAIL("the children of pid %d are uneven over its CPUs: "
		    "%d on one, %d on another", (int)parent, hi, lo);
	return k;
}

static void
check_bound(const proc *p, size_t n, const cpu_set_t *mine)
{
	size_t checked = check_siblings(p, n, getpid(), mine);
	for (size_t i = 0; i < n; i++)
		checked += check_siblings(p, n, p[i].pid, &p[i].cpus);
	CHECK_UINT_EQ(checked, n);
}

/* A network of `topology`, its processes' CPUs checked against the
 * test's; expect the number of processes. */
static void
run(const char *topology, uint32_t backends, grove_cpu_bind bind, int bound,
    size_t expect)
{
	cpu_set_t mine;
	if (sched_getaffinity(0, sizeof mine, &mine) != 0)
		IT_FAIL("sched_getaffinity failed");
	grove_net_opts o;
	it_net_opts(&o, topology, backends);
	o.cpu_bind = bind;
	grove_net *net = it_net_create(&o);
	proc p[MAXP];
	size_t n = network_procs(p);
	CHECK_UINT_EQ(n, expect);
	if (bound)
		check_bound(p, n, &mine);
	else
		check_unbound(p, n, &mine);
	cpu_set_t after;
	sched_getaffinity(0, sizeof after, &after);
	CHECK(CPU_EQUAL(&after, &mine));
	it_check_rank_sum(net);
	it_net_destroy(net);
}

int
main(void)
{
	it_init("it_cpu_bind", 0);
	unsetenv("GROVE_CPU_BIND");
	it_step("default: unbound");
	run("kary:2", 8, GROVE_CPU_BIND_DEFAULT, 0, 14);
	it_step("GROVE_CPU_BIND_NONE: unbound");
	run("kary:2", 8, GROVE_CPU_BIND_NONE, 0, 14);
	it_step("subtree: kary:2, 8 back-ends");
	run("kary:2", 8, GROVE_CPU_BIND_SUBTREE, 1, 14);
	it_step("subtree: levels:1x2x4 (CPs copied by a CP)");
	run("levels:1x2x4", 8, GROVE_CPU_BIND_SUBTREE, 1, 11);
	it_step("subtree: flat, 8 back-ends");
	run("flat", 8, GROVE_CPU_BIND_SUBTREE, 1, 8);
	setenv("GROVE_CPU_BIND", "subtree", 1);
	it_step("GROVE_CPU_BIND=subtree: bound");
	run("kary:2", 8, GROVE_CPU_BIND_DEFAULT, 1, 14);
	it_step("GROVE_CPU_BIND_NONE wins over the environment");
	run("kary:2", 8, GROVE_CPU_BIND_NONE, 0, 14);
	unsetenv("GROVE_CPU_BIND");

	/* The test on one CPU: the whole network on it. */
	cpu_set_t all, one;
	if (sched_getaffinity(0, sizeof all, &all) != 0)
		IT_FAIL("sched_getaffinity failed");
	CPU_ZERO(&one);
	for (int c = CPU_SETSIZE - 1; c >= 0; c--)
		if (CPU_ISSET(c, &all)) {
			CPU_SET(c, &one);
			break;
		}
	if (sched_setaffinity(0, sizeof one, &one) != 0)
		IT_FAIL("sched_setaffinity failed");
	it_step("subtree, the tool on one CPU");
	run("kary:2", 8, GROVE_CPU_BIND_SUBTREE, 1, 14);
	sched_setaffinity(0, sizeof all, &all);
	return it_done();
}

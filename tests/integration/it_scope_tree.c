/* Event scopes through the tree (docs/monitoring.md): a kary:2 network
 * of 8 back-ends (6 CPs on two levels) reduces, then a monitor (a child
 * of this test, so that this process can go on serving the front-end's
 * control socket) attaches through the control socket and pulls:
 *
 *  - distributed analysis with a reader per node (every CP reads itself
 *    and its back-ends: 7 readers, shares merged at every level) and
 *    with one reader per host (the front-end): the last-arrival counts
 *    of every node, every back-end's tuples, lost tuples and path
 *    statistics, and every filter and wave path, equal those of a direct
 *    read of the same spaces; every node read (unread 0);
 *  - the single scope (raw last-arrival tuples): the same counts, and
 *    one tuple sent per last arrival;
 *  - with rings of 256 tuples after 400 waves, the lost tuples of every
 *    back-end equal those of the direct read, and are not 0;
 *  - a monitor that leaves in the middle of a pull.
 *
 * Between pulls the network only waits, so the spaces read through the
 * tree and directly hold the same tuples, except those that the scope's
 * own messages add to the links of the front-end and the CPs (paths of
 * layer net, left out of the comparison).  After each monitor left, the
 * network reduces on, every sum right and every back-end up. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helper_common.h"
#include "monitor/analysis.h"
#include "monitor/share.h"
#include "scope/placement.h"
#include "scope/scope.h"
#include "tree_scope.h"
#include "../../src/proto/worker_protocol.h"

static void
waves(grove_net *net, grove_stream *s, int k)
{
	int64_t n = grove_net_backends(net);
	for (int i = 0; i < k; i++) {
		CHECK_OK_NET(net, grove_stream_send(s, WORKER_RANK, ""));
		CHECK_INT_EQ(it_recv_int(net, s, WORKER_RANK), n * (n - 1) / 2);
	}
}

/* Serves the front-end (its control socket) until child pid exits; its
 * exit status. */
static int
serve_until(grove_net *net, pid_t pid)
{
	int st = 0;
	for (;;) {
		CHECK_OK_NET(net, grove_net_progress(net));
		pid_t r = waitpid(pid, &st, WNOHANG);
		CHECK(r >= 0);
		if (r == pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
		usleep(1000);
	}
}

/* ---- in the monitor (the child) -------------------------------------- */

static struct mon_analysis *
direct_read(const char *net, const struct scope_select *sel)
{
	struct mon_analysis *a = mon_analysis_new(NULL);
	CHECK(a != NULL);
	struct scope s;
	CHECK_OK(scope_init(&s, net, sel, a));
	CHECK_OK(scope_poll(&s));
	scope_free(&s);
	return a;
}

static void
same_balance(const struct mon_analysis *x, const struct mon_analysis *y)
{
	struct mon_balance_edge *e, *f;
	size_t ne, nf;
	CHECK_OK(mon_balance_edges(x->balance, &e, &ne));
	CHECK_OK(mon_balance_edges(y->balance, &f, &nf));
	CHECK_UINT_EQ(ne, nf);
	CHECK(ne >= 14); /* fe, 6 CPs: two children each */
	for (size_t i = 0; i < ne; i++) {
		CHECK_STR_CONTAINS(e[i].scope, f[i].scope);
		CHECK(!strcmp(e[i].parent, f[i].parent));
		CHECK(!strcmp(e[i].child, f[i].child));
		CHECK_UINT_EQ(e[i].last, f[i].last);
		CHECK_UINT_EQ(e[i].waves, f[i].waves);
	}
	free(e);
	free(f);
	CHECK_UINT_EQ(mon_balance_total(x->balance),
	              mon_balance_total(y->balance));
}

/* Paths that the scope's own traffic does not touch: every back-end's,
 * and the filters' and waves' of every node. */
static int
quiet_path(const struct mon_path_stats *p)
{
	return !strncmp(p->proc, "be ", 3) || !strcmp(p->layer, "filter") ||
	       !strcmp(p->layer, "tbon");
}

/* The same duration, but for the calibration: each read turns ticks
 * into ns with its own estimate of the tick rate (init and now), so two
 * reads of one tuple differ by a few ns, and a message's latency, which
 * joins two processes' times, by a few more. */
static int
close_ns(double a, double b)
{
	return fabs(a - b) <= 50 + 1e-3 * fabs(b);
}

static void
same_paths(const struct mon_analysis *x, const struct mon_analysis *y)
{
	struct mon_path_stats *p, *q;
	size_t np, nq, i = 0, j = 0, compared = 0;
	CHECK_OK(mon_pathstats_results(x->stats, 3, 10, &p, &np));
	CHECK_OK(mon_pathstats_results(y->stats, 3, 10, &q, &nq));
	for (;;) {
		while (i < np && !quiet_path(&p[i]))
			i++;
		while (j < nq && !quiet_path(&q[j]))
			j++;
		if (i == np || j == nq)
			break;
		CHECK(!strcmp(p[i].proc, q[j].proc));
		CHECK(!strcmp(p[i].name, q[j].name));
		CHECK(!strcmp(p[i].where, q[j].where));
		CHECK(!strcmp(p[i].op, q[j].op));
		CHECK_UINT_EQ(p[i].count, q[j].count);
		/* Ticks become ns by a calibration each reader takes when
		 * it reads (init and now): two reads of one tuple may differ
		 * by the drift of that estimate, far below 1e-4. */
		CHECK(close_ns((double)p[i].min_ns, (double)q[j].min_ns));
		CHECK(close_ns((double)p[i].max_ns, (double)q[j].max_ns));
		CHECK(close_ns(p[i].mean_ns, q[j].mean_ns));
		CHECK(close_ns(p[i].sd_ns, q[j].sd_ns));
		compared++;
		i++;
		j++;
	}
	CHECK(i == np && j == nq);
	CHECK(compared > 20);
	free(p);
	free(q);
}

/* Every back-end: tuples and lost tuples.  Their sum of lost. */
static uint64_t
same_backends(const struct mon_analysis *x, const struct mon_analysis *y,
              uint32_t backends)
{
	uint64_t lost = 0;
	for (uint32_t r = 0; r < backends; r++) {
		char label[32];
		snprintf(label, sizeof label, "be %u", r);
		int64_t i = mon_pathmap_find(&x->pm, label);
		int64_t j = mon_pathmap_find(&y->pm, label);
		CHECK(i >= 0 && j >= 0);
		CHECK_UINT_EQ(x->pm.p[i].tuples, y->pm.p[j].tuples);
		CHECK_UINT_EQ(x->pm.p[i].lost, y->pm.p[j].lost);
		CHECK(x->pm.p[i].node >= 0);
		lost += x->pm.p[i].lost;
	}
	return lost;
}

static void
pull_once(struct tree_scope *t, const char *net, int kind, int readers,
          const struct scope_select *sel)
{
	char err[512];
	if (tree_scope_attach(t, net, kind, readers, sel, err, sizeof err))
		it_failf(__FILE__, __LINE__, "attach: %s", err);
	if (tree_scope_pull(t, 20000, err, sizeof err))
		it_failf(__FILE__, __LINE__, "pull: %s", err);
	CHECK(t->note[0] == '\0');
	CHECK_UINT_EQ(t->answered, t->asked);
	CHECK_UINT_EQ(t->c.readers, t->readers);
	CHECK_UINT_EQ(tree_scope_unread(t), 0);
}

/* The comparisons of a network whose rings hold everything. */
static void
monitor_whole(const char *net, uint32_t backends)
{
	struct scope_select all = {NULL, NULL, -1, 0};
	struct mon_analysis *d = direct_read(net, &all);
	uint32_t nodes = d->pm.n;

	struct tree_scope t;
	pull_once(&t, net, MON_SHARE_ANALYSIS, SCOPE_READERS_NODE, &all);
	CHECK_UINT_EQ(t.readers, 7); /* the front-end and 6 CPs */
	CHECK_UINT_EQ(t.c.procs, nodes);
	CHECK_UINT_EQ(t.a->pm.n, nodes);
	same_balance(t.a, d);
	same_paths(t.a, d);
	CHECK_UINT_EQ(same_backends(t.a, d, backends), 0);
	it_step("merged from 7 readers: %u processes, %llu waves, as read "
	        "directly (%llu share bytes)", nodes,
	        (unsigned long long)mon_balance_total(d->balance),
	        (unsigned long long)t.bytes);
	/* A second pull of the same scope: nothing new but the scope's own
	 * traffic, the same counts. */
	char err[512];
	if (tree_scope_pull(&t, 20000, err, sizeof err))
		it_failf(__FILE__, __LINE__, "second pull: %s", err);
	same_balance(t.a, d);
	tree_scope_detach(&t);

	pull_once(&t, net, MON_SHARE_ANALYSIS, SCOPE_READERS_HOST, &all);
	CHECK_UINT_EQ(t.readers, 1); /* one host */
	same_balance(t.a, d);
	same_paths(t.a, d);
	tree_scope_detach(&t);
	it_step("one reader per host: the same");

	struct scope_select last = {NULL, NULL, -1, 1};
	pull_once(&t, net, MON_SHARE_ANALYSIS, SCOPE_READERS_NODE, &last);
	same_balance(t.a, d);
	it_step("distributed, last arrivals only: the same counts (%llu share "
	        "bytes)", (unsigned long long)t.bytes);
	tree_scope_detach(&t);

	pull_once(&t, net, MON_SHARE_RAW, SCOPE_READERS_NODE, &last);
	same_balance(t.a, d);
	CHECK_UINT_EQ(t.c.sent, mon_balance_total(d->balance));
	CHECK_UINT_EQ(t.c.selected, t.c.sent);
	it_step("single scope: %llu last-arrival tuples gathered raw, the "
	        "same counts (%llu share bytes)",
	        (unsigned long long)t.c.sent, (unsigned long long)t.bytes);
	tree_scope_detach(&t);
	mon_analysis_free(d);
}

/* Rings that lost tuples: every back-end's count, exactly. */
static void
monitor_lossy(const char *net, uint32_t backends)
{
	struct scope_select all = {NULL, NULL, -1, 0};
	struct mon_analysis *d = direct_read(net, &all);
	struct tree_scope t;
	pull_once(&t, net, MON_SHARE_ANALYSIS, SCOPE_READERS_NODE, &all);
	uint64_t lost = same_backends(t.a, d, backends);
	CHECK(lost > 0);
	CHECK(t.c.lost_before >= lost);
	CHECK_UINT_EQ(t.c.lost, 0);
	it_step("rings of 256: %llu tuples of the back-ends lost, counted "
	        "as the direct read counts them", (unsigned long long)lost);
	tree_scope_detach(&t);
	mon_analysis_free(d);
}

/* A monitor that asks for a pull and leaves without its answer. */
static void
monitor_rude(const char *net)
{
	struct tree_scope t;
	char err[512];
	if (tree_scope_attach(&t, net, MON_SHARE_ANALYSIS, SCOPE_READERS_NODE,
	                      NULL, err, sizeof err))
		it_failf(__FILE__, __LINE__, "attach: %s", err);
	static const char req[] = "pull 5000\n";
	CHECK(write(t.fd, req, sizeof req - 1) == (ssize_t)(sizeof req - 1));
	close(t.fd);
	t.fd = -1;
	tree_scope_detach(&t);
}

static pid_t
monitor(void (*fn)(const char *, uint32_t), const char *net, uint32_t n)
{
	pid_t pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		fn(net, n);
		fflush(stdout);
		_exit(0);
	}
	return pid;
}

static void
rude(const char *net, uint32_t n)
{
	(void)n;
	monitor_rude(net);
}

/* ---- the networks ----------------------------------------------------- */

static void
run(const char *ring_size, int before, void (*fn)(const char *, uint32_t))
{
	if (ring_size)
		setenv("GROVE_TRACE_SIZE", ring_size, 1);
	else
		unsetenv("GROVE_TRACE_SIZE");
	grove_net *net = it_net_spawn("kary:2", 8);
	const char *id = grove_net_id(net);
	grove_stream *s = it_stream(net, NULL, "sum", NULL);
	waves(net, s, before);
	CHECK_INT_EQ(serve_until(net, monitor(fn, id, 8)), 0);
	waves(net, s, 20);
	CHECK_INT_EQ(serve_until(net, monitor(rude, id, 8)), 0);
	waves(net, s, 20);
	CHECK_INT_EQ(grove_net_backends_up(net), 8);
	it_step("the network reduces on after the monitors left");
	CHECK_OK_NET(net, grove_stream_destroy(s));
	it_check_rank_sum(net);
	it_net_destroy(net);
}

int
main(void)
{
	it_init("it_scope_tree", 240);
	run(NULL, 200, monitor_whole);
	run("256", 400, monitor_lossy);
	return it_done();
}

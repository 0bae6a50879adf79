/* Failures: a BE that dies, a CP that is killed, a CP that falls silent
 * (both without re-parenting: it_recovery has them with it), and a
 * front-end that is killed.  Reductions must complete with the
 * survivors, the FE must be told which ranks are gone, and no process may
 * outlive its network.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helper_common.h"
#include "../../src/proto/worker_protocol.h"

#define N 8
/* Failure detection is EOF-driven (or heartbeat-driven for a silent
 * peer): a lost member must show up well within this. */
#define DETECT_MS 10000

typedef struct lost_log {
	int lost[N];
	int nevents;
	grove_event ev[32];
} lost_log;

/* Collects GROVE_EV_LOST events until done(log) or DETECT_MS pass. */
static void
wait_lost(grove_net *net, lost_log *log, int (*done)(const lost_log *,
    const grove_net *))
{
	uint64_t end = it_now_ms() + DETECT_MS;
	while (!done(log, net)) {
		int64_t left = (int64_t)(end - it_now_ms());
		if (left <= 0) {
			fprintf(stderr, "lost ranks so far:");
			for (int r = 0; r < N; r++)
				if (log->lost[r])
					fprintf(stderr, " %d", r);
			fprintf(stderr, " (%d events)\n", log->nevents);
			IT_FAIL("no GROVE_EV_LOST for the failure within %d ms",
			    DETECT_MS);
		}
		grove_event ev;
		int rc = grove_net_next_event(net, &ev, (int)left);
		if (rc == GROVE_ETIMEDOUT)
			continue;
		CHECK_OK_NET(net, rc);
		if (ev.type != GROVE_EV_LOST)
			continue;
		it_step("GROVE_EV_LOST ranks [%u, %u) node %u: %s",
		    ev.rank_lo, ev.rank_hi, ev.node, ev.text);
		CHECK(ev.rank_lo < ev.rank_hi && ev.rank_hi <= N);
		for (uint32_t r = ev.rank_lo; r < ev.rank_hi; r++)
			log->lost[r]++;
		if (log->nevents < 32)
			log->ev[log->nevents] = ev;
		log->nevents++;
	}
}

static int64_t
sum_except(const lost_log *log)
{
	int64_t s = 0;
	for (int r = 0; r < N; r++)
		if (!log->lost[r])
			s += r;
	return s;
}

static void
check_sum(grove_net *net, grove_stream *s, int64_t want, const char *what)
{
	uint64_t t0 = it_now_ms();
	grove_packet *p = NULL;
	int32_t tag = 0, v = 0;
	CHECK_OK_NET(net, grove_stream_send(s, WORKER_RANK, ""));
	int rc = grove_stream_recv(s, &tag, &p, DETECT_MS);
	if (rc != 0)
		IT_FAIL("%s: reduction did not complete within %d ms: %s (%s)",
		    what, DETECT_MS, grove_err_name(rc),
		    grove_net_last_error(net));
	CHECK_INT_EQ(tag, WORKER_RANK);
	CHECK_OK(grove_packet_unpack(p, "%d", &v));
	grove_packet_unref(p);
	if (v != want)
		IT_FAIL("%s: sum of ranks is %d, expected %lld", what, v,
		    (long long)want);
	it_step("%s: sum %d in %llu ms", what, v,
	    (unsigned long long)(it_now_ms() - t0));
}

/* ---- a BE dies --------------------------------------------------------- */

#define DEAD_BE 5

static int
be_lost(const lost_log *log, const grove_net *net)
{
	return log->lost[DEAD_BE] > 0;
}

static void
kill_be(void)
{
	it_step("--- a BE aborts during a wait_for_all stream");
	grove_net *net = it_net_spawn("kary:2", N);
	grove_stream *s = it_stream(net, NULL, "sum", NULL);
	check_sum(net, s, N * (N - 1) / 2, "before");

	/* The BE aborts before it sees the request on the stream, so the
	 * wave can only complete without it. */
	CHECK_OK_NET(net, grove_net_send_to(net, DEAD_BE, WORKER_CRASH, "%d",
	    DEAD_BE));
	check_sum(net, s, N * (N - 1) / 2 - DEAD_BE, "BE died");

	lost_log log;
	memset(&log, 0, sizeof log);
	wait_lost(net, &log, be_lost);
	for (int r = 0; r < N; r++)
		CHECK_INT_EQ(log.lost[r], r == DEAD_BE);
	CHECK_UINT_EQ(grove_net_backends_up(net), N - 1);

	check_sum(net, s, N * (N - 1) / 2 - DEAD_BE, "again");
	grove_stream *s2 = it_stream(net, NULL, "sum", NULL);
	check_sum(net, s2, N * (N - 1) / 2 - DEAD_BE, "new stream");
	CHECK_OK_NET(net, grove_stream_destroy(s2));
	CHECK_OK_NET(net, grove_stream_destroy(s));
	it_net_destroy(net);
}

/* ---- a CP is killed or stopped -------------------------------------- */

/* A leaf CP of the test: a grove-commnode whose children are BEs. */
static pid_t
find_leaf_cp(pid_t *bes, size_t *nbes)
{
	pid_t cps[64];
	size_t n = it_descendants(cps, 64, "grove-commnode");
	CHECK(n > 0 && n <= 64);
	for (size_t i = 0; i < n; i++) {
		pid_t sub[64];
		size_t ncp = it_descendants_of(cps[i], sub, 64,
		    "grove-commnode");
		if (ncp)
			continue;
		*nbes = it_descendants_of(cps[i], bes, 64, "be_worker");
		if (*nbes)
			return cps[i];
	}
	IT_FAIL("no leaf CP among %zu grove-commnode processes", n);
}

/* Done when the lost ranks are exactly the BEs of one leaf CP. */
static int
cp_lost(const lost_log *log, const grove_net *net)
{
	const grove_topo *t = grove_net_topology(net);
	for (uint32_t id = 0; id < grove_topo_size(t); id++) {
		const grove_topo_node *nd = grove_topo_node_at(t, id);
		if (nd->role != GROVE_ROLE_CP)
			continue;
		int match = 1;
		for (uint32_t r = 0; r < N; r++)
			match &= (log->lost[r] > 0) ==
			    (r >= nd->be_lo && r < nd->be_hi);
		if (match)
			return 1;
	}
	return 0;
}

static void
lose_cp(int sig, int heartbeat_ms)
{
	it_step("--- a leaf CP gets %s", sig == SIGKILL ? "SIGKILL" :
	    "SIGSTOP (silent peer)");
	grove_net_opts o;
	it_net_opts(&o, "kary:2", N);
	o.heartbeat_ms = heartbeat_ms;
	/* The CP's subtree is lost with it: without re-parenting (which
	 * it_recovery tests). */
	o.reparent_ms = -1;
	grove_net *net = it_net_create(&o);
	grove_stream *s = it_stream(net, NULL, "sum", NULL);
	check_sum(net, s, N * (N - 1) / 2, "before");

	pid_t bes[64];
	size_t nbes = 0;
	pid_t cp = find_leaf_cp(bes, &nbes);
	CHECK_UINT_EQ(nbes, 2);
	CHECK_OK(kill(cp, sig));

	lost_log log;
	memset(&log, 0, sizeof log);
	wait_lost(net, &log, cp_lost);
	/* One event names the CP and its whole range. */
	const grove_topo *t = grove_net_topology(net);
	int named = 0;
	for (int i = 0; i < log.nevents && i < 32; i++) {
		const grove_event *ev = &log.ev[i];
		const grove_topo_node *nd = ev->node < grove_topo_size(t) ?
		    grove_topo_node_at(t, ev->node) : NULL;
		if (nd && nd->role == GROVE_ROLE_CP &&
		    nd->be_lo == ev->rank_lo && nd->be_hi == ev->rank_hi)
			named = 1;
	}
	if (!named)
		IT_FAIL("no GROVE_EV_LOST names the lost CP's node id with "
		    "its rank range");
	CHECK_UINT_EQ(grove_net_backends_up(net), N - 2);

	check_sum(net, s, sum_except(&log), "CP lost");
	grove_stream *s2 = it_stream(net, NULL, "sum", NULL);
	check_sum(net, s2, sum_except(&log), "new stream");

	if (sig == SIGSTOP)
		CHECK_OK(kill(cp, SIGCONT));
	/* The BEs below the lost CP (and the CP itself, once it runs
	 * again) go away on their own: no orphans. */
	size_t left = it_wait_gone(bes, nbes, 5000);
	if (left)
		IT_FAIL("%zu BEs of the lost CP still alive after 5 s", left);
	if (it_wait_gone(&cp, 1, 5000))
		IT_FAIL("the lost CP (pid %d) still alive after 5 s",
		    (int)cp);

	check_sum(net, s, sum_except(&log), "after cleanup");
	CHECK_OK_NET(net, grove_stream_destroy(s2));
	CHECK_OK_NET(net, grove_stream_destroy(s));
	it_net_destroy(net);
}

/* ---- the FE is killed ------------------------------------------------- */

static void
kill_fe(void)
{
	it_step("--- the FE process is killed");
	int pfd[2];
	CHECK(pipe(pfd) == 0);
	pid_t fe = fork();
	CHECK(fe >= 0);
	if (fe == 0) {
		close(pfd[0]);
		grove_net *net = it_net_spawn("kary:2", N);
		grove_stream *s = it_stream(net, NULL, "sum", NULL);
		check_sum(net, s, N * (N - 1) / 2, "FE child");
		/* The network id, so the parent can remove the event spaces
		 * a killed network leaves behind (kept for post-mortem
		 * reading until `grove trace clean`). */
		char id[64] = "";
		snprintf(id, sizeof id, "%s", grove_net_id(net));
		if (write(pfd[1], id, sizeof id) != (ssize_t)sizeof id)
			_exit(1);
		for (;;)
			pause();
	}
	close(pfd[1]);
	struct pollfd pf = {.fd = pfd[0], .events = POLLIN};
	CHECK(poll(&pf, 1, 60000) == 1);
	char netid[64] = "";
	CHECK(read(pfd[0], netid, sizeof netid) == (ssize_t)sizeof netid);
	CHECK(netid[0] != '\0' && memchr(netid, '\0', sizeof netid));
	close(pfd[0]);

	pid_t procs[256];
	size_t n = it_descendants_of(fe, procs, 256, NULL);
	size_t nbe = it_descendants_of(fe, NULL, 0, "be_worker");
	size_t ncp = it_descendants_of(fe, NULL, 0, "grove-commnode");
	it_step("FE child %d has %zu processes (%zu CPs, %zu BEs)", (int)fe,
	    n, ncp, nbe);
	CHECK_UINT_EQ(nbe, N);
	CHECK(ncp > 0);
	CHECK(n <= 256);

	CHECK_OK(kill(fe, SIGKILL));
	int st;
	CHECK(waitpid(fe, &st, 0) == fe);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);

	uint64_t t0 = it_now_ms();
	size_t left = it_wait_gone(procs, n, 5000);
	if (left) {
		for (size_t i = 0; i < n; i++)
			if (it_alive(procs[i]))
				fprintf(stderr, "  still alive: pid %d\n",
				    (int)procs[i]);
		IT_FAIL("%zu of %zu processes outlived their FE by 5 s", left,
		    n);
	}
	it_step("all %zu processes gone %llu ms after the FE died", n,
	    (unsigned long long)(it_now_ms() - t0));
	it_check_no_procs(NULL, 0, 5000);
	it_remove_segments(netid);
}

/* ---- a clean shutdown -------------------------------------------------- */

static void
clean_destroy(void)
{
	it_step("--- clean shutdown of a busy network");
	grove_net *net = it_net_spawn("kary:4", 32);
	grove_stream *s = it_stream(net, NULL, "sum", NULL);
	/* Leave answers unread and requests in flight. */
	for (int i = 0; i < 10; i++)
		CHECK_OK_NET(net, grove_stream_send(s, WORKER_ECHO, "%d", i));
	CHECK_OK_NET(net, grove_stream_send(s, WORKER_BURST, "%d %d", 1000,
	    1));
	it_net_destroy(net);
}

int
main(void)
{
	it_init("it_faults", 180);
	kill_be();
	lose_cp(SIGKILL, 0);
	lose_cp(SIGSTOP, 200);
	kill_fe();
	clean_destroy();
	return it_done();
}

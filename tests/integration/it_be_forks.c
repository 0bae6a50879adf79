/* A back-end that forks a daemon (fork without exec, as a tool's
 * background process would be started) and then dies.  The daemon keeps
 * copies of the back-end's descriptors, its link to its parent among
 * them, so the link never reaches EOF: the node that started the back-end must see the
 * exit itself, report the back-end lost with its exit status, and let
 * waves complete without it.  What the back-end sent before it died (the
 * daemon's pid) must still arrive.
 *
 *   flat     the FE started the back-end; it exits with status 3.
 *   kary:2   a CP started it; it is killed by SIGKILL.
 *
 * The back-ends are this program, started by Grove with "--fork-be".  The
 * daemons outlive their back-ends on purpose: this test (a subreaper)
 * inherits them and kills them; on a failure the test kills every
 * process it has (helper_common).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "grove/backend.h"
#include "helper_common.h"
#include "../../src/proto/worker_protocol.h"

/* "%d" how (0: exit with status 3, 1: SIGKILL) -> point-to-point "%d" the
 * daemon's pid, then the back-end dies that way. */
#define FORK_AND_DIE 900
#define EXIT_STATUS 3

/* ---- the back-end ------------------------------------------------------ */

static int
fork_be_main(int argc, char **argv)
{
	grove_be *be = NULL;
	int rc = grove_be_init(&argc, &argv, &be);
	if (rc != 0) {
		fprintf(stderr, "fork-be: grove_be_init: %s\n", grove_err_name(rc));
		return 1;
	}
	for (;;) {
		uint32_t stream = 0;
		int32_t tag = 0, how = 0;
		grove_packet *p = NULL;
		if (grove_be_recv(be, &stream, &tag, &p, -1) != 0)
			break;
		if (tag == WORKER_RANK) {
			grove_packet_unref(p);
			grove_be_send(be, stream, tag, "%d",
			    (int)grove_be_rank(be));
			continue;
		}
		if (tag != FORK_AND_DIE || grove_packet_unpack(p, "%d",
		    &how) != 0) {
			grove_packet_unref(p);
			continue;
		}
		grove_packet_unref(p);
		pid_t dpid = fork();
		if (dpid == 0)
			for (;;)
				pause(); /* holding every descriptor */
		if (dpid < 0)
			return 1;
		if (grove_be_send(be, 0, FORK_AND_DIE, "%d", (int)dpid) != 0 ||
		    grove_be_flush(be, -1) != 0)
			return 1;
		if (how == 1)
			kill(getpid(), SIGKILL);
		_exit(EXIT_STATUS);
	}
	grove_be_destroy(be);
	return 0;
}

/* ---- the front-end ----------------------------------------------------- */

static int64_t
rank_sum(grove_net *net, grove_stream *s)
{
	CHECK_OK_NET(net, grove_stream_send(s, WORKER_RANK, ""));
	return it_recv_int(net, s, WORKER_RANK);
}

static void
fork_case(const char *topo, uint32_t nbe, uint32_t victim, int by_signal)
{
	char exe[4096];
	char *be_argv[] = {"it_be_forks", "--fork-be", NULL};
	it_step("--- %s, %u back-ends: rank %u forks a daemon, then %s", topo,
	    nbe, victim, by_signal ? "is killed by SIGKILL" : "exits");
	grove_net_opts o;
	it_net_opts(&o, topo, nbe);
	o.be_exe = it_build_path("it_be_forks", exe, sizeof exe);
	o.be_argv = be_argv;
	grove_net *net = it_net_create(&o);
	grove_stream *s = it_stream(net, NULL, "sum", NULL);
	int64_t all = (int64_t)nbe * (nbe - 1) / 2;
	CHECK_INT_EQ(rank_sum(net, s), all);

	CHECK_OK_NET(net, grove_net_send_to(net, victim, FORK_AND_DIE, "%d",
	    by_signal));
	pid_t dpid = (pid_t)it_recv_p2p_int(net, victim, FORK_AND_DIE);
	CHECK(dpid > 0);
	it_step("daemon pid %d", (int)dpid);

	grove_event ev;
	for (;;) {
		int rc = grove_net_next_event(net, &ev, IT_RECV_MS);
		if (rc == GROVE_ETIMEDOUT)
			IT_FAIL("no GROVE_EV_LOST for rank %u within %d ms "
			    "(backends up: %u)", victim, IT_RECV_MS,
			    grove_net_backends_up(net));
		CHECK_OK_NET(net, rc);
		if (ev.type == GROVE_EV_LOST)
			break;
	}
	it_step("GROVE_EV_LOST ranks [%u, %u) node %u: %s", ev.rank_lo,
	    ev.rank_hi, ev.node, ev.text);
	CHECK_UINT_EQ(ev.rank_lo, victim);
	CHECK_UINT_EQ(ev.rank_hi, victim + 1);
	char why[64];
	if (by_signal)
		snprintf(why, sizeof why, "killed by signal %d", SIGKILL);
	else
		snprintf(why, sizeof why, "exited with status %d", EXIT_STATUS);
	CHECK_STR_CONTAINS(ev.text, why);
	CHECK_UINT_EQ(grove_net_backends_up(net), nbe - 1);
	/* The daemon still holds the link: the loss did not come from EOF. */
	CHECK(it_alive(dpid));

	CHECK_INT_EQ(rank_sum(net, s), all - victim);
	grove_stream *s2 = it_stream(net, NULL, "sum", NULL);
	CHECK_INT_EQ(rank_sum(net, s2), all - victim);

	/* This test inherited the daemon when its back-end died. */
	CHECK_OK(kill(dpid, SIGKILL));
	CHECK_UINT_EQ(it_wait_gone(&dpid, 1, IT_RECV_MS), 0);
	CHECK_OK_NET(net, grove_stream_destroy(s2));
	CHECK_OK_NET(net, grove_stream_destroy(s));
	it_net_destroy(net);
}

int
main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--fork-be"))
		return fork_be_main(argc, argv);
	it_init("it_be_forks", 240);
	fork_case("flat", 3, 1, 0);
	fork_case("kary:2", 4, 2, 1);
	return it_done();
}

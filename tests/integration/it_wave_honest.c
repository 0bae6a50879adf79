/* Honest results: every wave says who is in it, a wave that lacks
 * members fails or is delivered marked as its stream asks, a wave that
 * cannot produce anything fails the waiting receive at once, and the
 * errors around waves say what and where:
 *
 *   whole waves        4 of 4 contributors, nobody missing;
 *   a dead wave        a filter failing on every CP: a receive without a
 *                      time limit returns GROVE_EFILTER (it waited forever);
 *   a lost back-end    default: the survivors' sum, marked (3 of 4, rank 0
 *                      lost); GROVE_PARTIAL_FAIL: GROVE_ELOST naming it;
 *   a timed-out wave   GROVE_ETIMEDOUT's last error names the rank waited
 *                      for;
 *   unknown streams    a back-end (this program with --probe-be) that
 *                      sends on a stream that was never created, or was
 *                      destroyed, gets GROVE_ENOENT and a message saying
 *                      which; a back-end that attached after its stream
 *                      was created may send on it;
 *   outside a launch   grove_be_init says how to attach;
 *   filter loads       a library that no node can load: one message
 *                      naming the nodes once, not one message per node.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grove/backend.h"
#include "helper_common.h"
#include "../../src/proto/worker_protocol.h"

/* --probe-be: answers TAG_PROBE "%ud" id on the stream it came on with
 * "%d %s": what grove_be_send on stream id returned, and the last error. */
#define TAG_PROBE 7

static int
probe_be_main(void)
{
	int argc = 0;
	char **argv = NULL;
	grove_be *be = NULL;
	if (grove_be_init(&argc, &argv, &be) != 0)
		return 1;
	for (;;) {
		uint32_t stream = 0, id = 0;
		int32_t tag = 0;
		grove_packet *p = NULL;
		if (grove_be_recv(be, &stream, &tag, &p, -1) != 0)
			break;
		if (tag == TAG_PROBE &&
		    grove_packet_unpack(p, "%ud", &id) == 0) {
			int rc = grove_be_send(be, id, TAG_PROBE, "%d", 1);
			char err[600];
			snprintf(err, sizeof err, "%s", grove_be_last_error(be));
			grove_be_send(be, stream, TAG_PROBE, "%d %s", rc, err);
		}
		grove_packet_unref(p);
	}
	grove_be_destroy(be);
	return 0;
}

static void
check_whole(grove_packet *p, uint32_t members)
{
	uint32_t in = 0, all = 0;
	CHECK_OK(grove_packet_contributors(p, &in, &all));
	CHECK_UINT_EQ(in, members);
	CHECK_UINT_EQ(all, members);
	CHECK_INT_EQ(grove_packet_missing(p, NULL, 0), 0);
}

static void
whole_and_dead_waves(void)
{
	it_step("--- whole waves, and a wave no CP can produce");
	grove_net *net = it_net_spawn("kary:2", 4);
	grove_stream *s = it_stream(net, NULL, "sum", NULL);
	CHECK_OK_NET(net, grove_stream_send(s, WORKER_ECHO, "%d", 1));
	grove_packet *p = it_recv(net, s, WORKER_ECHO);
	check_whole(p, 4);
	grove_packet_unref(p);
	/* A packet from no wave has no account. */
	CHECK_OK(grove_packet_pack(&p, 0, 0, "%d", 1));
	uint32_t in = 0;
	CHECK_RC(grove_packet_contributors(p, &in, NULL), GROVE_ENOENT);
	CHECK_RC(grove_packet_missing(p, NULL, 0), GROVE_ENOENT);
	grove_packet_unref(p);
	it_step("a sum says 4 of 4; a packet the tool built has no account");

	char fail[4096];
	it_build_path("filter_fail.so", fail, sizeof fail);
	CHECK_OK_NET(net, grove_net_load_filter(net, "fail", fail,
	    "fail_always"));
	grove_stream *fs = it_stream(net, NULL, "fail", NULL);
	CHECK_OK_NET(net, grove_stream_send(fs, WORKER_RANK, ""));
	/* No time limit: without the failure the receive waits forever (the
	 * watchdog ends the test). */
	int32_t tag = 0;
	CHECK_RC_NET(net, grove_stream_recv(fs, &tag, &p, -1), GROVE_EFILTER);
	CHECK_INT_EQ(tag, WORKER_RANK);
	const char *e = grove_net_last_error(net);
	it_step("dead wave: %s", e);
	CHECK_STR_CONTAINS(e, "4 of 4 members missing, nothing to deliver");
	CHECK_STR_CONTAINS(e, "filter 'fail' failed at node 1");
	CHECK_STR_CONTAINS(e, "a code of the filter's own (-42)");
	/* The stream goes on: the next wave fails the same way. */
	CHECK_OK_NET(net, grove_stream_send(fs, WORKER_RANK, ""));
	CHECK_RC_NET(net, grove_stream_recv(fs, NULL, &p, -1), GROVE_EFILTER);
	CHECK_OK_NET(net, grove_stream_destroy(fs));
	CHECK_OK_NET(net, grove_stream_destroy(s));
	it_check_rank_sum(net);
	it_net_destroy(net);
}

static void
wait_lost_rank(grove_net *net, uint32_t rank)
{
	for (;;) {
		grove_event ev;
		CHECK_OK_NET(net, grove_net_next_event(net, &ev, IT_RECV_MS));
		if (ev.type == GROVE_EV_LOST && ev.rank_lo <= rank &&
		    rank < ev.rank_hi)
			return;
	}
}

static void
lost_back_end(void)
{
	it_step("--- a lost back-end");
	grove_net *net = it_net_spawn("kary:2", 4);
	grove_stream *s = it_stream(net, NULL, "sum", NULL);
	grove_stream_opts so;
	grove_stream_opts_init(&so);
	so.up_filter = "sum";
	so.partial = GROVE_PARTIAL_FAIL;
	grove_stream *strict = NULL;
	CHECK_OK_NET(net, grove_stream_create(net, grove_net_comm_all(net), &so,
	    &strict));
	so.partial = (grove_partial)7;
	grove_stream *bad = NULL;
	CHECK_RC_NET(net, grove_stream_create(net, grove_net_comm_all(net), &so,
	    &bad), GROVE_EINVAL);
	CHECK_STR_CONTAINS(grove_net_last_error(net), "partial is 7");
	CHECK_OK_NET(net, grove_net_send_to(net, 0, WORKER_CRASH, "%d", 0));
	wait_lost_rank(net, 0);

	CHECK_OK_NET(net, grove_stream_send(s, WORKER_ECHO, "%d", 1));
	grove_packet *p = it_recv(net, s, WORKER_ECHO);
	int32_t v = 0;
	CHECK_OK(grove_packet_unpack(p, "%d", &v));
	CHECK_INT_EQ(v, 3);
	uint32_t in = 0, members = 0;
	CHECK_OK(grove_packet_contributors(p, &in, &members));
	CHECK_UINT_EQ(in, 3);
	CHECK_UINT_EQ(members, 4);
	grove_missing m[2];
	CHECK_INT_EQ(grove_packet_missing(p, m, 2), 1);
	CHECK_UINT_EQ(m[0].rank_lo, 0);
	CHECK_UINT_EQ(m[0].rank_hi, 1);
	CHECK_INT_EQ(m[0].reason, GROVE_MISSING_LOST);
	CHECK_STR_CONTAINS(grove_missing_reason_name(m[0].reason), "lost");
	grove_packet_unref(p);
	it_step("default stream: 3, from 3 of 4 (rank 0 lost)");

	CHECK_OK_NET(net, grove_stream_send(strict, WORKER_ECHO, "%d", 1));
	CHECK_RC_NET(net, grove_stream_recv(strict, NULL, &p, IT_RECV_MS),
	    GROVE_ELOST);
	it_step("strict stream: %s", grove_net_last_error(net));
	CHECK_STR_CONTAINS(grove_net_last_error(net), "1 of 4 members missing: "
	    "rank 0: lost");
	CHECK_OK_NET(net, grove_stream_destroy(strict));
	CHECK_OK_NET(net, grove_stream_destroy(s));
	it_net_destroy(net);
}

static void
timed_out_receive(void)
{
	it_step("--- a receive that times out names whom it waits for");
	grove_net *net = it_net_spawn("flat", 4);
	grove_stream *s = it_stream(net, NULL, "sum", NULL);
	/* Rank 3 stops reading for 3 s: its answer comes late. */
	CHECK_OK_NET(net, grove_net_send_to(net, 3, WORKER_STALL, "%d", 3));
	CHECK_OK_NET(net, grove_stream_send(s, WORKER_ECHO, "%d", 1));
	grove_packet *p = NULL;
	CHECK_RC_NET(net, grove_stream_recv(s, NULL, &p, 300), GROVE_ETIMEDOUT);
	const char *e = grove_net_last_error(net);
	it_step("timed out: %s", e);
	CHECK_STR_CONTAINS(e, "no wave within 300 ms; waiting for rank 3");
	CHECK_INT_EQ(it_recv_int(net, s, WORKER_ECHO), 4);
	CHECK_OK_NET(net, grove_stream_destroy(s));
	it_net_destroy(net);
}

/* Asks the probe back-ends to send on stream id; checks every answer. */
static void
probe(grove_net *net, grove_stream *s, uint32_t id, int want,
    const char *says)
{
	CHECK_OK_NET(net, grove_stream_send(s, TAG_PROBE, "%ud", id));
	int lone = 0;
	for (int i = 0; i < 2; i++) {
		grove_packet *p = it_recv(net, s, TAG_PROBE);
		if (!strcmp(grove_packet_format(p), "%d")) {
			/* What a send on s itself sent. */
			lone++;
			i--;
			grove_packet_unref(p);
			continue;
		}
		int32_t rc = 0;
		const char *err = NULL;
		CHECK_OK(grove_packet_unpack(p, "%d %s", &rc, &err));
		it_step("stream %u: %s: %s", id, grove_err_name(rc), err);
		CHECK_INT_EQ(rc, want);
		if (says)
			CHECK_STR_CONTAINS(err, says);
		grove_packet_unref(p);
	}
	while (lone < (id == grove_stream_id(s) ? 2 : 0)) {
		grove_packet *p = it_recv(net, s, TAG_PROBE);
		CHECK_STR_CONTAINS(grove_packet_format(p), "%d");
		grove_packet_unref(p);
		lone++;
	}
}

static void
unknown_streams(void)
{
	it_step("--- back-ends sending on streams that do not exist");
	char exe[4096];
	char *argv[] = {"it_wave_honest", "--probe-be", NULL};
	grove_net_opts o;
	it_net_opts(&o, "kary:2", 2);
	o.be_exe = it_build_path("it_wave_honest", exe, sizeof exe);
	o.be_argv = argv;
	grove_net *net = it_net_create(&o);
	grove_stream *s = it_stream(net, NULL, "null", NULL);
	grove_stream *gone = it_stream(net, NULL, "null", NULL);
	uint32_t gone_id = grove_stream_id(gone);
	CHECK_OK_NET(net, grove_stream_destroy(gone));
	probe(net, s, 999, GROVE_ENOENT, "no stream 999 for this back-end: "
	    "the front-end never created it");
	probe(net, s, gone_id, GROVE_ENOENT, "it was destroyed");
	/* A stream it is a member of: the send goes (the data is a lone
	 * packet on s itself, read below). */
	probe(net, s, grove_stream_id(s), 0, NULL);
	it_net_destroy(net);

	/* Attach mode: the stream exists before the back-ends attach; they
	 * are told of it when they do, and answer on it. */
	char file[4200];
	snprintf(file, sizeof file, "%s/honest.conn", it_tmpdir());
	it_attach_opts(&o, "kary:2", 2, file);
	net = it_net_create(&o);
	s = it_stream(net, NULL, "sum", NULL);
	pid_t be[2];
	for (uint32_t r = 0; r < 2; r++)
		be[r] = it_start_attached_be(file, r);
	CHECK_OK_NET(net, grove_net_wait_backends(net, 2, IT_RECV_MS));
	CHECK_OK_NET(net, grove_stream_send(s, WORKER_ECHO, "%d", 5));
	CHECK_INT_EQ(it_recv_int(net, s, WORKER_ECHO), 10);
	it_step("back-ends attached after their stream was made answer on it");
	grove_net_destroy(net);
	it_wait_attached_exit(be, 2, 10000);
}

static void
init_outside_launch(void)
{
	it_step("--- grove_be_init outside a Grove launch");
	unsetenv("GROVE_BOOTSTRAP");
	int argc = 0;
	char **argv = NULL;
	grove_be *be = NULL;
	CHECK_RC(grove_be_init(&argc, &argv, &be), GROVE_ENOENT);
	CHECK(be != NULL);
	it_step("%s", grove_be_last_error(be));
	CHECK_STR_CONTAINS(grove_be_last_error(be), "not started by a Grove "
	    "network (GROVE_BOOTSTRAP is not set)");
	CHECK_STR_CONTAINS(grove_be_last_error(be), "grove_be_attach(");
	grove_be_destroy(be);
}

static size_t
count_of(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

static void
grouped_load_errors(void)
{
	it_step("--- a filter no node can load");
	/* kary:2 with 16 back-ends: 14 CPs and the front-end. */
	grove_net *net = it_net_spawn("kary:2", 16);
	CHECK_RC_NET(net, grove_net_load_filter(net, "nope",
	    "/nonexistent/grove-nope.so", "nope"), GROVE_EFILTER);
	const char *e = grove_net_last_error(net);
	it_step("%s", e);
	CHECK_STR_CONTAINS(e, "cannot load filter 'nope' "
	    "(/nonexistent/grove-nope.so:nope) on 15 of 15 node(s); 15 nodes (fe 0, "
	    "cp 1-3,");
	CHECK_UINT_EQ(count_of(e, "No such file or directory"), 1);
	CHECK(strlen(e) < 1000);
	it_check_rank_sum(net);
	it_net_destroy(net);
}

int
main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--probe-be"))
		return probe_be_main();
	it_init("it_wave_honest", 240);
	init_outside_launch();
	whole_and_dead_waves();
	lost_back_end();
	timed_out_receive();
	unknown_streams();
	grouped_load_errors();
	return it_done();
}

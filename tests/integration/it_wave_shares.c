/* Waves pair each child's share of the same wave, whatever the shares
 * hold: a CP whose null filter passes on several packets (a tree that
 * does not divide evenly, a communicator of some of the back-ends), a CP
 * whose filter failed on a wave (an empty share), a CP whose every
 * back-end is lost (its parent stops waiting for it), a back-end that
 * answers and exits before its siblings answer (its answer is kept), and
 * shares larger than the limit at which a node stops reading a child (it
 * must read the rest of a share it has begun).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helper_common.h"
#include "../../src/proto/worker_protocol.h"

#define ROUNDS 4

/* Nothing more arrives on s: a packet held back from an earlier wave
 * would (with wait_for_all it could only come a wave late). */
static void
check_quiet(grove_net *net, grove_stream *s)
{
	grove_packet *p = NULL;
	int rc = grove_stream_recv(s, NULL, &p, 300);
	if (rc == 0) {
		int32_t v = -1;
		grove_packet_unpack(p, "%d", &v);
		grove_packet_unref(p);
		IT_FAIL("an extra packet (value %d) arrived after the wave", v);
	}
	CHECK_INT_EQ(rc, GROVE_ETIMEDOUT);
	(void)net;
}

/* Every round, a null stream on comm delivers one packet from each member
 * of ranks[0..n) (WORKER_RANK answers), and nothing else. */
static void
null_rounds(grove_net *net, const grove_comm *comm, const uint32_t *ranks,
    size_t n, const char *what)
{
	grove_stream *s = it_stream(net, comm, "null", "wait_for_all");
	for (int round = 1; round <= ROUNDS; round++) {
		CHECK_OK_NET(net, grove_stream_send(s, WORKER_RANK, ""));
		uint32_t seen = 0;
		for (size_t i = 0; i < n; i++) {
			int32_t r = it_recv_int(net, s, WORKER_RANK);
			size_t j = 0;
			while (j < n && ranks[j] != (uint32_t)r)
				j++;
			if (j == n || (seen & (1u << j)))
				IT_FAIL("%s, round %d: unexpected or repeated rank "
				    "%d", what, round, r);
			seen |= 1u << j;
		}
		check_quiet(net, s);
	}
	it_step("%s: %zu packets in each of %d rounds, none late", what, n,
	    ROUNDS);
	CHECK_OK_NET(net, grove_stream_destroy(s));
}

static void
uneven_trees(void)
{
	static const uint32_t all[] = {0, 1, 2, 3, 4};
	grove_net *net = it_net_spawn("kary:2", 3);
	null_rounds(net, NULL, all, 3, "kary:2, 3 back-ends");
	it_net_destroy(net);

	net = it_net_spawn("kary:2", 5);
	null_rounds(net, NULL, all, 5, "kary:2, 5 back-ends");
	it_net_destroy(net);

	/* Some of the back-ends: the CP above ranks 0 and 1 has two members,
	 * the one above 2 and 3 one. */
	static const uint32_t some[] = {0, 1, 2};
	net = it_net_spawn("kary:2", 4);
	grove_comm *c = NULL;
	CHECK_OK_NET(net, grove_comm_create(net, some, 3, &c));
	null_rounds(net, c, some, 3, "kary:2, 4 back-ends, comm {0,1,2}");
	grove_comm_destroy(c);
	it_net_destroy(net);
}

/* Waits for a GROVE_EV_FILTER_ERROR (other events are skipped). */
static void
wait_filter_error(grove_net *net)
{
	uint64_t t0 = it_now_ms();
	for (;;) {
		grove_event ev;
		int left = 10000 - (int)(it_now_ms() - t0);
		if (left <= 0)
			IT_FAIL("no GROVE_EV_FILTER_ERROR within 10 s");
		int rc = grove_net_next_event(net, &ev, left);
		if (rc == GROVE_ETIMEDOUT)
			continue;
		CHECK_OK_NET(net, rc);
		if (ev.type == GROVE_EV_FILTER_ERROR) {
			it_step("filter error: %s", ev.text);
			return;
		}
	}
}

/* A wave that fails at one CP is dropped there; by default the whole
 * wave then fails at the front-end (a sum missing a share is a wrong
 * answer); a stream that asks for partial waves gets the other CP's
 * share, marked.  The next waves are whole (the CP's share of the failed
 * wave was sent empty). */
static void
failed_wave(void)
{
	grove_net *net = it_net_spawn("kary:2", 4);
	grove_stream *s = it_stream(net, NULL, "sum", "wait_for_all");
	/* Rank 0 answers "%lf", its sibling "%d": sum fails at their CP. */
	CHECK_OK_NET(net, grove_stream_send(s, WORKER_ODD_FORMAT, "%d", 0));
	wait_filter_error(net);
	grove_packet *p = NULL;
	int32_t tag = 0;
	CHECK_RC_NET(net, grove_stream_recv(s, &tag, &p, IT_RECV_MS),
	    GROVE_EFILTER);
	CHECK_INT_EQ(tag, WORKER_ODD_FORMAT);
	CHECK_STR_CONTAINS(grove_net_last_error(net), "2 of 4 members missing: "
	    "ranks 0-1: filter 'sum' failed at node 1");
	for (int32_t v = 1; v <= ROUNDS; v++) {
		CHECK_OK_NET(net, grove_stream_send(s, WORKER_ECHO, "%d", v));
		CHECK_INT_EQ(it_recv_int(net, s, WORKER_ECHO), 4 * v);
	}
	check_quiet(net, s);
	it_step("the failed wave failed the receive; then %d whole waves",
	    ROUNDS);
	CHECK_OK_NET(net, grove_stream_destroy(s));

	/* Partial waves asked for: the other CP's share (ranks 2 and 3) is
	 * the result, and says so. */
	grove_stream_opts so;
	grove_stream_opts_init(&so);
	so.up_filter = "sum";
	so.partial = GROVE_PARTIAL_DELIVER;
	CHECK_OK_NET(net, grove_stream_create(net, grove_net_comm_all(net), &so,
	    &s));
	CHECK_OK_NET(net, grove_stream_send(s, WORKER_ODD_FORMAT, "%d", 0));
	p = it_recv(net, s, WORKER_ODD_FORMAT);
	int32_t v = 0;
	CHECK_OK(grove_packet_unpack(p, "%d", &v));
	CHECK_INT_EQ(v, 2 + 3);
	uint32_t in = 0, members = 0;
	CHECK_OK(grove_packet_contributors(p, &in, &members));
	CHECK_UINT_EQ(in, 2);
	CHECK_UINT_EQ(members, 4);
	grove_missing m[4];
	CHECK_INT_EQ(grove_packet_missing(p, m, 4), 1);
	CHECK_UINT_EQ(m[0].rank_lo, 0);
	CHECK_UINT_EQ(m[0].rank_hi, 2);
	CHECK_INT_EQ(m[0].reason, GROVE_MISSING_FILTER);
	CHECK_UINT_EQ(m[0].node, 1);
	CHECK_INT_EQ(m[0].code, GROVE_EFORMAT);
	grove_packet_unref(p);
	CHECK_OK_NET(net, grove_stream_send(s, WORKER_ECHO, "%d", 1));
	p = it_recv(net, s, WORKER_ECHO);
	CHECK_OK(grove_packet_contributors(p, &in, &members));
	CHECK_UINT_EQ(in, 4);
	CHECK_INT_EQ(grove_packet_missing(p, NULL, 0), 0);
	grove_packet_unref(p);
	it_step("a partial stream delivers 2+3, from 2 of 4 members (0-1: "
	    "filter failed at node 1), then 4 of 4");
	CHECK_OK_NET(net, grove_stream_destroy(s));
	it_net_destroy(net);
}

/* Waits until GROVE_EV_LOST events have named every rank of [lo, hi). */
static void
wait_lost(grove_net *net, uint32_t lo, uint32_t hi)
{
	uint32_t lost = 0, want = ((1u << hi) - 1) & ~((1u << lo) - 1);
	uint64_t t0 = it_now_ms();
	while ((lost & want) != want) {
		grove_event ev;
		int left = 15000 - (int)(it_now_ms() - t0);
		if (left <= 0)
			IT_FAIL("ranks [%u, %u) not all reported lost", lo, hi);
		int rc = grove_net_next_event(net, &ev, left);
		if (rc == GROVE_ETIMEDOUT)
			continue;
		CHECK_OK_NET(net, rc);
		if (ev.type != GROVE_EV_LOST)
			continue;
		for (uint32_t r = ev.rank_lo; r < ev.rank_hi && r < 32; r++)
			lost |= 1u << r;
	}
}

/* Both back-ends of a leaf CP die; the CP stays up with nothing below it
 * on the stream.  Waves above complete without it, on the stream made
 * before and on one made after. */
static void
cp_left_empty(void)
{
	grove_net *net = it_net_spawn("kary:2", 8);
	grove_stream *s = it_stream(net, NULL, "sum", "wait_for_all");
	CHECK_OK_NET(net, grove_stream_send(s, WORKER_ECHO, "%d", 1));
	CHECK_INT_EQ(it_recv_int(net, s, WORKER_ECHO), 8);
	for (int32_t r = 0; r < 2; r++)
		CHECK_OK_NET(net, grove_net_send_to(net, (uint32_t)r,
		    WORKER_CRASH, "%d", r));
	wait_lost(net, 0, 2);
	CHECK_UINT_EQ(grove_net_backends_up(net), 6);
	CHECK_OK_NET(net, grove_stream_send(s, WORKER_RANK, ""));
	CHECK_INT_EQ(it_recv_int(net, s, WORKER_RANK), 2 + 3 + 4 + 5 + 6 + 7);
	grove_stream *s2 = it_stream(net, NULL, "sum", "wait_for_all");
	CHECK_OK_NET(net, grove_stream_send(s2, WORKER_RANK, ""));
	CHECK_INT_EQ(it_recv_int(net, s2, WORKER_RANK), 2 + 3 + 4 + 5 + 6 + 7);
	it_step("a CP with no live back-end holds no wave up");
	CHECK_OK_NET(net, grove_stream_destroy(s2));
	CHECK_OK_NET(net, grove_stream_destroy(s));
	it_net_destroy(net);
}

/* Rank 0 answers and exits while its sibling (rank 1) is not reading:
 * its answer waits at their CP for rank 1's, and is still in the sum. */
static void
answer_then_exit(void)
{
	grove_net *net = it_net_spawn("kary:2", 4);
	grove_stream *s = it_stream(net, NULL, "sum", "wait_for_all");
	CHECK_OK_NET(net, grove_net_send_to(net, 1, WORKER_STALL, "%d", 1));
	CHECK_OK_NET(net, grove_stream_send(s, WORKER_ECHO, "%d", 1));
	CHECK_OK_NET(net, grove_net_send_to(net, 0, WORKER_EXIT, ""));
	wait_lost(net, 0, 1);
	CHECK_INT_EQ(it_recv_int(net, s, WORKER_ECHO), 4);
	CHECK_OK_NET(net, grove_stream_send(s, WORKER_ECHO, "%d", 1));
	CHECK_INT_EQ(it_recv_int(net, s, WORKER_ECHO), 3);
	it_step("an answer sent before its back-end exited is counted");
	CHECK_OK_NET(net, grove_stream_destroy(s));
	it_net_destroy(net);
}

/* levels:2x4: each CP passes its four back-ends' 3 MiB packets on as one
 * share of 12 MiB, over the 8 MiB at which the FE stops reading a child
 * that is ahead; the FE must read the whole share anyway. */
static void
big_shares(const char *sync)
{
	grove_net *net = it_net_spawn("levels:2x4", 8);
	grove_stream *s = it_stream(net, NULL, "null", sync);
	for (int round = 0; round < 2; round++) {
		CHECK_OK_NET(net, grove_stream_send(s, WORKER_BIG_BURST,
		    "%d %d", 1, 3 << 20));
		for (int i = 0; i < 8; i++) {
			grove_packet *p = it_recv(net, s, WORKER_BIG_BURST);
			CHECK_UINT_EQ(grove_packet_size(p) > (3u << 20), 1);
			grove_packet_unref(p);
		}
	}
	check_quiet(net, s);
	it_step("%s: shares of 12 MiB arrive whole", sync);
	CHECK_OK_NET(net, grove_stream_destroy(s));
	it_net_destroy(net);
}

int
main(void)
{
	it_init("it_wave_shares", 200);
	uneven_trees();
	failed_wave();
	cp_left_empty();
	answer_then_exit();
	big_shares("wait_for_all");
	big_shares("timeout");
	return it_done();
}

/* Event-space answers the front-end must not take at their word.  Every
 * child knows the network secret, so a live collection counts one answer
 * per process asked, from a child that may answer for it, and a copy is
 * made only of the sender's own segment.  The children here are fakes:
 * this program, started by the front-end as its back-ends
 * (GROVE_IT_FAKE_PEER says how to misbehave), proves the secret like a
 * real back-end and then answers as no real one does.  flat, 2 back-ends;
 * rank 0 does not answer unless said otherwise.
 *
 *   twice     rank 1 answers twice: still 1 of 2 processes answered;
 *   spoof     rank 1 answers for itself and again stamped as rank 0,
 *             a protocol error that closes its link;
 *   victim    rank 1 ships a snapshot named as the front-end's own
 *             segment (rank 0 answers): the front-end's segment stays;
 *   unasked   rank 1 ships its event space with tag 0 (the shutdown
 *             copy) while the network is up: no copy is made.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "codec/wire.h"
#include "grove/error.h"
#include "grove/trace.h"
#include "helper_common.h"
#include "fake_child.h"
#include "tbon/fe_internal.h"
#include "tbon/proto.h"
#include "tbon/ship.h"
#include "trace/trace_impl.h"
#include "../../src/proto/worker_protocol.h"

/* ---- the fake child ----------------------------------------------------- */

static int
trace_answer(int fd, int32_t tag, uint32_t src, const char *name,
    const uint8_t *snap, size_t len)
{
	grove_packet *q = NULL;
	wire_pack(&q, WIRE_T_TRACE_DATA, 0, tag, src, 0, PROTO_TRACE_DATA, name,
	    snap ? snap : (const uint8_t *)"", (uint64_t)len);
	return fake_send(fd, q);
}

static int
be_on_trace_req(const char *how, const boot *b, int fd, int32_t tag)
{
	uint32_t src = b->rank;
	if (b->rank == 0)
		return strcmp(how, "victim") ? 0 : trace_answer(fd, tag, 0, "",
		    NULL, 0);
	if (!strcmp(how, "twice"))
		return trace_answer(fd, tag, src, "", NULL, 0) ||
		    trace_answer(fd, tag, src, "", NULL, 0);
	if (!strcmp(how, "spoof"))
		return trace_answer(fd, tag, src, "", NULL, 0) ||
		    trace_answer(fd, tag, 0, "", NULL, 0);
	if (!strcmp(how, "victim")) {
		/* A real snapshot (of an event space of its own) under the
		 * front-end's segment name. */
		char name[256], victim[256];
		uint8_t *snap = NULL;
		size_t len = 0;
		grove_trace_init(b->netid, "be", b->rank);
		if (trace_space_snapshot(name, sizeof name, &snap, &len, 0) != 0)
			return -1;
		snprintf(victim, sizeof victim, "grove.%s.fe.0", b->netid);
		int rc = trace_answer(fd, tag, src, victim, snap, len);
		free(snap);
		return rc;
	}
	return 0;
}

/* A back-end told by a P2P message (unasked): its shutdown copy now,
 * then a P2P back, which the test waits for (links keep order). */
static int
be_on_p2p(const char *how, const boot *b, int fd)
{
	if (strcmp(how, "unasked") != 0 || b->rank != 1)
		return 0;
	grove_trace_init(b->netid, "be", b->rank);
	grove_packet *q = NULL;
	if (ship_event_space(b->rank, &q) != 0 || fake_send(fd, q) != 0)
		return -1;
	q = NULL;
	wire_pack(&q, WIRE_T_P2P, 0, WORKER_RANK, b->rank, 0, "%d",
	    (int32_t)7);
	return fake_send(fd, q);
}

static int
on_frame(fake_child *f, grove_packet *p, void *arg)
{
	int type = wire_packet_hdr(p)->type;
	if (type == WIRE_T_TRACE_REQ)
		return be_on_trace_req(arg, &f->b, f->up.wfd,
		    wire_packet_hdr(p)->tag);
	if (type == WIRE_T_P2P)
		return be_on_p2p(arg, &f->b, f->up.wfd);
	return 0;
}

/* A back-end (the tests start no fake CPs): its rank is its source. */
static int
fake_peer(const char *how)
{
	fake_child f;
	int rc = fake_join(&f);
	if (rc != 0)
		return rc;
	fake_serve(&f, on_frame, (void *)how);
	fake_leave(&f);
	return 0;
}

/* ---- the test ----------------------------------------------------------- */

static char self_exe[4096];

static grove_net *
fake_net(const char *how, const char *topology, uint32_t backends)
{
	it_step("--- %s: %s, %u back-ends", how, topology, backends);
	setenv(FAKE_ENV, how, 1);
	grove_net_opts o;
	it_net_opts(&o, topology, backends);
	o.be_exe = self_exe;
	return it_net_create(&o);
}

static void
fake_done(grove_net *net)
{
	it_net_destroy(net);
	unsetenv(FAKE_ENV);
}

/* The load must wait for CP 4 and fail with its error, and only with it. */
static void
collect_counts_processes(const char *how)
{
	grove_net *net = fake_net(how, "flat", 2);
	int rc = grove_net_trace_collect(net, 2000);
	it_step("collect: %d (%s)", rc, grove_net_last_error(net));
	CHECK_INT_EQ(rc, GROVE_ETIMEDOUT);
	CHECK_STR_CONTAINS(grove_net_last_error(net), "1 of 2 processes");
	if (!strcmp(how, "spoof")) {
		/* The answer for rank 0 was a protocol error of rank 1. */
		grove_event ev;
		uint64_t end = it_now_ms() + IT_RECV_MS;
		for (;;) {
			if (it_now_ms() >= end)
				IT_FAIL("spoof: rank 1 was never lost");
			if (grove_net_next_event(net, &ev, 100) == 0 &&
			    ev.type == GROVE_EV_LOST)
				break;
		}
		it_step("event: %s", ev.text);
		CHECK_UINT_EQ(ev.node, 2);
		CHECK_STR_CONTAINS(ev.text, "TRACE_DATA from node 2 with source "
		    "rank 0, not its own");
	}
	fake_done(net);
}

static int
segment_inode(const char *netid, const char *who, ino_t *ino)
{
	char path[256];
	struct stat st;
	snprintf(path, sizeof path, "/dev/shm/grove.%s.%s", netid, who);
	if (stat(path, &st) != 0)
		return -1;
	*ino = st.st_ino;
	return 0;
}

static void
collect_keeps_fe_segment(void)
{
	grove_net *net = fake_net("victim", "flat", 2);
	ino_t before = 0, after = 0;
	CHECK_INT_EQ(segment_inode(grove_net_id(net), "fe.0", &before), 0);
	/* Both answer; the one copy offered is refused. */
	int rc = grove_net_trace_collect(net, 30000);
	it_step("collect: %d", rc);
	CHECK_INT_EQ(segment_inode(grove_net_id(net), "fe.0", &after), 0);
	CHECK(before == after);
	CHECK_INT_EQ(rc, 0);
	fake_done(net);
}

static void
no_unasked_copy(void)
{
	grove_net *net = fake_net("unasked", "flat", 2);
	CHECK_OK_NET(net, grove_net_send_to(net, 1, WORKER_RANK, ""));
	grove_stream *s = NULL;
	int32_t tag = 0;
	grove_packet *p = NULL;
	CHECK_OK_NET(net, grove_net_recv(net, &s, &tag, &p, IT_RECV_MS));
	grove_packet_unref(p);
	/* Its own space went with the shipping; no copy was made for it. */
	ino_t ino = 0;
	CHECK_INT_EQ(segment_inode(grove_net_id(net), "be.1", &ino), -1);
	fake_done(net);
}

/* With an argument, only the case of that name runs. */
/* With an argument, only the case of that name runs. */
static int
want(int argc, char **argv, const char *how)
{
	return argc < 2 || strcmp(argv[1], how) == 0;
}

int
main(int argc, char **argv)
{
	const char *how = getenv(FAKE_ENV);
	if (how)
		return fake_peer(how);
	it_init("it_trace_answers", 240);
	ssize_t n = readlink("/proc/self/exe", self_exe, sizeof self_exe - 1);
	CHECK(n > 0);
	self_exe[n] = '\0';

	if (want(argc, argv, "twice"))
		collect_counts_processes("twice");
	if (want(argc, argv, "spoof"))
		collect_counts_processes("spoof");
	if (want(argc, argv, "victim"))
		collect_keeps_fe_segment();
	if (want(argc, argv, "unasked"))
		no_unasked_copy();
	return it_done();
}

/* Lifecycle of front-end objects around events, several networks and
 * fork: a stream destroyed by the event callback (while the loop reports
 * its filter's error, and while a receive waits on it); two networks in
 * one process sharing its event space, destroyed in both orders; a forked
 * child destroying its copy of the network, which the parent keeps using.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "grove/trace.h"
#include "helper_common.h"
#include "../../src/proto/worker_protocol.h"

/* ---- a stream destroyed by the event callback --------------------- */

typedef struct cb_state {
	grove_stream *victim; /* destroyed at its first filter error */
	uint32_t victim_id;
	int errors;           /* filter errors seen on the victim */
	int destroyed;
	int depth, max_depth; /* callbacks never nest */
	int destroy_rc;
} cb_state;

static void
destroy_on_error(grove_net *net, const grove_event *ev, void *arg)
{
	(void)net;
	cb_state *st = arg;
	st->depth++;
	if (st->depth > st->max_depth)
		st->max_depth = st->depth;
	if (ev->type == GROVE_EV_FILTER_ERROR && ev->stream == st->victim_id) {
		st->errors++;
		if (st->victim) {
			grove_stream *s = st->victim;
			st->victim = NULL;
			st->destroy_rc = grove_stream_destroy(s);
			st->destroyed++;
		}
	}
	st->depth--;
}

/* Waits for the filter error of stream id through grove_net_next_event:
 * by the time it returns, the callback has seen it. */
static void
wait_filter_error(grove_net *net, uint32_t id)
{
	for (;;) {
		grove_event ev;
		CHECK_OK_NET(net, grove_net_next_event(net, &ev, IT_RECV_MS));
		if (ev.type == GROVE_EV_FILTER_ERROR && ev.stream == id)
			return;
	}
}

/* A sum over every BE works (on a stream of its own). */
static void
round_trip(grove_net *net)
{
	it_check_rank_sum(net);
}

static void
callback_destroys_stream(void)
{
	it_step("stream destroyed by the event callback");
	grove_net *net = it_net_spawn("flat", 2);
	uint32_t n = grove_net_backends(net);
	cb_state st;
	memset(&st, 0, sizeof st);
	/* "avg" takes "%lf %d" and fails on an echoed "%d": its error is
	 * reported while the FE is still releasing the stream's waves. */
	st.victim = it_stream(net, NULL, "avg", NULL);
	st.victim_id = grove_stream_id(st.victim);
	grove_net_on_event(net, destroy_on_error, &st);

	/* A good wave (its result queued), a failing one (the callback
	 * destroys the stream), another good one (after the destroy: it
	 * must be dropped, not delivered or crash). */
	CHECK_OK_NET(net, grove_stream_send(st.victim, WORKER_AVG, ""));
	CHECK_OK_NET(net, grove_stream_send(st.victim, WORKER_ECHO, "%d", 1));
	CHECK_OK_NET(net, grove_stream_send(st.victim, WORKER_AVG, ""));
	wait_filter_error(net, st.victim_id);
	CHECK_INT_EQ(st.destroyed, 1);
	CHECK_INT_EQ(st.destroy_rc, 0);
	CHECK_INT_EQ(st.max_depth, 1);

	/* Each BE answers in order on its link, so once a later round trip
	 * is back, the third wave has arrived too: nothing of the destroyed
	 * stream may be waiting. */
	round_trip(net);
	grove_stream *from = NULL;
	grove_packet *p = NULL;
	CHECK_RC_NET(net, grove_net_recv(net, &from, NULL, &p, 0), GROVE_EAGAIN);
	CHECK_UINT_EQ(grove_net_backends_up(net), n);

	/* Destroyed while this very call waits on it: the receive ends. */
	it_step("stream destroyed while a receive waits on it");
	st.victim = it_stream(net, NULL, "avg", NULL);
	st.victim_id = grove_stream_id(st.victim);
	grove_stream *waited = st.victim;
	CHECK_OK_NET(net, grove_stream_send(waited, WORKER_ECHO, "%d", 2));
	CHECK_RC_NET(net, grove_stream_recv(waited, NULL, &p, IT_RECV_MS),
	    GROVE_ECLOSED);
	CHECK_INT_EQ(st.destroyed, 2);
	CHECK_INT_EQ(st.max_depth, 1);
	grove_net_on_event(net, NULL, NULL);
	round_trip(net);
	it_net_destroy(net);
}

/* ---- two networks, one event space -------------------------------- */

static int
space_exists(const char *netid)
{
	char name[128];
	snprintf(name, sizeof name, "/grove.%s.fe.0", netid);
	int fd = shm_open(name, O_RDONLY, 0);
	if (fd >= 0)
		close(fd);
	return fd >= 0;
}

/* Records one instant; 1 when it went into the event space. */
static int
records(void)
{
	grove_trace_collector c;
	CHECK_OK(grove_trace_user_register(&c, "it_lifecycle"));
	grove_trace_instant(&c, GROVE_OP_USER, 1);
	return c.id != 0 && c.seq == 1;
}

static void
two_networks(int second_first)
{
	it_step("two networks in one process, %s destroyed first",
	    second_first ? "the second" : "the first");
	grove_net *a = it_net_spawn("flat", 2);
	grove_net *b = it_net_spawn("flat", 2);
	char ida[64];
	snprintf(ida, sizeof ida, "%s", grove_net_id(a));
	/* One space, named after the network that opened it. */
	CHECK(space_exists(ida));
	CHECK(!space_exists(grove_net_id(b)));
	CHECK(records());
	round_trip(a);
	round_trip(b);

	grove_net *first = second_first ? b : a;
	grove_net *other = second_first ? a : b;
	/* Not it_net_destroy: the other network's processes remain. */
	grove_net_destroy(first);
	/* The other network still records into the space. */
	CHECK(space_exists(ida));
	CHECK(grove_trace_enabled());
	CHECK(records());
	round_trip(other);
	it_net_destroy(other);
	CHECK(!space_exists(ida));
	CHECK(!grove_trace_enabled());
}

/* ---- fork ----------------------------------------------------------- */

static void
fork_child_destroys(void)
{
	it_step("a forked child destroys its copy of the network");
	grove_net *net = it_net_spawn("flat", 2);
	uint32_t n = grove_net_backends(net);
	char id[64];
	snprintf(id, sizeof id, "%s", grove_net_id(net));
	round_trip(net);
	pid_t pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		/* _exit: the test's exit handlers are the parent's. */
		grove_net_destroy(net);
		_exit(0);
	}
	int status = 0;
	CHECK_INT_EQ(waitpid(pid, &status, 0), pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* No BE was told to leave or killed, no event reported it lost. */
	grove_event ev;
	CHECK_RC_NET(net, grove_net_next_event(net, &ev, 0), GROVE_EAGAIN);
	CHECK_UINT_EQ(grove_net_backends_up(net), n);
	CHECK(space_exists(id));
	round_trip(net);
	it_net_destroy(net);
}

int
main(void)
{
	it_init("it_lifecycle", 150);
	callback_destroys_stream();
	two_networks(0);
	two_networks(1);
	fork_child_destroys();
	return it_done();
}

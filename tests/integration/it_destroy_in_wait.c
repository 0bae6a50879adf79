/* grove_stream_destroy, grove_stream_set_params and grove_stream_send
 * wait, running the loop, while a link of the front-end is over its
 * limit, and the loop runs event callbacks, which may destroy the very
 * stream the call is about.  The outer call must notice: destroy returns
 * without freeing the stream again, set_params and send return
 * GROVE_ECLOSED without touching it; in a callback of the destroy itself, a send or receive on the
 * stream returns GROVE_ECLOSED.
 *
 * The back-ends are this program, started with "--idle-be PATH": they
 * join, read nothing, and wait for PATH to exist; then rank 0 exits at
 * once and rank 1 a second later.  The front-end fills rank 1's link past
 * its limit and creates PATH just before the call under test, which then
 * waits; rank 0's exit raises a lost event, whose callback destroys the
 * stream; rank 1's exit ends the wait.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "grove/backend.h"
#include "helper_common.h"
#include "net/conn.h"
#include "tbon/fe_internal.h"

static int
idle_be(int argc, char **argv)
{
	grove_be *be = NULL;
	int rc = grove_be_init(&argc, &argv, &be);
	if (rc != 0) {
		fprintf(stderr, "idle-be: grove_be_init: %s\n",
		    grove_err_name(rc));
		return 1;
	}
	const char *go = argv[argc - 1];
	while (access(go, F_OK) != 0)
		it_sleep_ms(10);
	/* Rank 0 leaves first (the event); rank 1 ends the wait after. */
	if (grove_be_rank(be) != 0)
		it_sleep_ms(1000);
	grove_be_destroy(be);
	return 0;
}

static size_t
link_queue(grove_net *net, uint32_t rank)
{
	for (uint32_t i = 0; i < net->n.n_children; i++) {
		const node_child *ch = &net->n.children[i];
		if (ch->c && ch->be_lo == rank)
			return conn_queued(ch->c);
	}
	return 0;
}

enum call { CALL_DESTROY, CALL_SET_PARAMS, CALL_SEND };

static grove_stream *victim;
static int armed;
static enum call outer;

static void
on_event(grove_net *net, const grove_event *ev, void *arg)
{
	(void)arg;
	if (!armed || ev->type != GROVE_EV_LOST)
		return;
	armed = 0;
	if (outer == CALL_DESTROY) {
		/* The stream is on its way out: nothing can be sent on it or
		 * arrive on it any more, and a receive must say so at once
		 * (it waited out its whole timeout). */
		it_step("callback: rank %u lost; using the stream being "
		    "destroyed", ev->rank_lo);
		CHECK_RC_NET(net, grove_stream_send(victim, 1, "%d", 1),
		    GROVE_ECLOSED);
		grove_packet *p = NULL;
		CHECK_RC_NET(net, grove_stream_recv(victim, NULL, &p, 20000),
		    GROVE_ECLOSED);
		CHECK(p == NULL);
	}
	it_step("callback: destroying the stream");
	CHECK_OK_NET(net, grove_stream_destroy(victim));
}

static void
run(const char *self, enum call call)
{
	char exe[4096], go[4200];
	snprintf(go, sizeof go, "%s/go.%d", it_tmpdir(), (int)call);
	outer = call;
	char *be_argv[] = {"it_destroy_in_wait", "--idle-be", go, NULL};
	grove_net_opts o;
	it_net_opts(&o, "flat", 2);
	o.be_exe = it_build_path(self, exe, sizeof exe);
	o.be_argv = be_argv;
	o.send_timeout_ms = 20000;
	grove_net *net = it_net_create(&o);
	grove_net_on_event(net, on_event, NULL);

	/* Rank 1's link over its limit, without waiting. */
	uint32_t one = 1;
	grove_comm *c = NULL;
	CHECK_OK_NET(net, grove_comm_create(net, &one, 1, &c));
	grove_stream *s = it_stream(net, c, "null", "dont_wait");
	/* Whole packets: a segmented one waits between its segments. */
	CHECK_OK_NET(net, grove_stream_set_segment_size(s,
	    GROVE_SEGMENT_WHOLE));
	size_t big = 1u << 20;
	uint8_t *b = calloc(1, big);
	CHECK(b != NULL);
	while (link_queue(net, 1) <= CONN_HWM)
		CHECK_OK_NET(net, grove_stream_send(s, 1, "%auc", b,
		    (uint64_t)big));
	free(b);
	it_step("rank 1's link holds %zu bytes", link_queue(net, 1));

	victim = s;
	armed = 1;
	FILE *f = fopen(go, "w");
	CHECK(f != NULL);
	fclose(f);
	if (call == CALL_SET_PARAMS) {
		int rc = grove_stream_set_params(s, GROVE_FILTER_UP, "%d", 1);
		CHECK_INT_EQ(rc, GROVE_ECLOSED);
		it_step("set_params: %s (%s)", grove_err_name(rc),
		    grove_net_last_error(net));
	} else if (call == CALL_SEND) {
		/* The send waits for room; its stream is gone when the wait
		 * ends: nothing was sent, and the tool must hear so. */
		int rc = grove_stream_send(s, 1, "%d", 1);
		CHECK_INT_EQ(rc, GROVE_ECLOSED);
		it_step("send: %s (%s)", grove_err_name(rc),
		    grove_net_last_error(net));
	} else {
		CHECK_OK_NET(net, grove_stream_destroy(s));
		it_step("destroy returned 0");
	}
	CHECK_INT_EQ(armed, 0);
	grove_comm_destroy(c);
	it_net_destroy(net);
}

int
main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--idle-be"))
		return idle_be(argc, argv);
	it_init("it_destroy_in_wait", 120);
	run("it_destroy_in_wait", CALL_DESTROY);
	run("it_destroy_in_wait", CALL_SET_PARAMS);
	run("it_destroy_in_wait", CALL_SEND);
	return it_done();
}

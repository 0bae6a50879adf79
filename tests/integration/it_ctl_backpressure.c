/* Stream control calls obey back-pressure like sends: a tool that creates
 * and destroys streams, or sets their parameters, in a loop without ever
 * receiving keeps every link of the front-end within its limit (each call
 * waits, running the loop, while a link is full), and the streams still
 * work afterwards.
 */
#include <stdio.h>
#include <string.h>

#include "helper_common.h"
#include "net/conn.h"
#include "tbon/fe_internal.h"
#include "../../src/proto/worker_protocol.h"

/* What the fullest child link of the front-end holds, in bytes. */
static size_t
max_link_queue(grove_net *net)
{
	size_t most = 0;
	for (uint32_t i = 0; i < net->n.n_children; i++) {
		conn *c = net->n.children[i].c;
		if (c && conn_queued(c) > most)
			most = conn_queued(c);
	}
	return most;
}

/* The limit, plus the one message that may pass it. */
#define BOUND (CONN_HWM + 4096u)

static void
params_loop(grove_net *net)
{
	grove_stream *s = it_stream(net, NULL, "sum", NULL);
	size_t most = 0;
	for (int32_t i = 0; i < 300000; i++) {
		CHECK_OK_NET(net, grove_stream_set_params(s, GROVE_FILTER_UP,
		    "%d %d %d %d", i, i, i, i));
		size_t q = max_link_queue(net);
		if (q > most)
			most = q;
		if (q > BOUND)
			IT_FAIL("after %d parameter changes a link holds %zu "
			    "bytes, over %u", i + 1, q, BOUND);
	}
	it_step("300000 parameter changes: links held at most %zu bytes",
	    most);
	CHECK_OK_NET(net, grove_stream_send(s, WORKER_ECHO, "%d", 1));
	CHECK_INT_EQ(it_recv_int(net, s, WORKER_ECHO),
	    (int32_t)grove_net_backends(net));
	CHECK_OK_NET(net, grove_stream_destroy(s));
}

static void
create_destroy_loop(grove_net *net)
{
	size_t most = 0;
	for (int i = 0; i < 30000; i++) {
		grove_stream *s = it_stream(net, NULL, "sum", NULL);
		CHECK_OK_NET(net, grove_stream_destroy(s));
		size_t q = max_link_queue(net);
		if (q > most)
			most = q;
		if (q > BOUND)
			IT_FAIL("after %d streams a link holds %zu bytes, over "
			    "%u", i + 1, q, BOUND);
	}
	it_step("30000 streams created and destroyed: links held at most "
	    "%zu bytes", most);
	it_check_rank_sum(net);
}

int
main(void)
{
	it_init("it_ctl_backpressure", 240);
	grove_net *net = it_net_spawn("kary:2", 4);
	params_loop(net);
	create_destroy_loop(net);
	it_net_destroy(net);
	return it_done();
}

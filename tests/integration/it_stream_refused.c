/* A stream that some CPs refuse must not hold its waves up: the parent of
 * each refusing CP stops waiting for that subtree, and the FE hears why.
 *
 * grove_net_load_filter never leaves a name on the FE alone (a failed
 * load is undone everywhere, see it_filter_load), so the test registers a
 * filter in the FE's registry only, through the internals, the one way
 * left to make CPs refuse a stream the FE accepts.
 *
 * knomial:2 with 4 back-ends: the FE has BEs 0 and 1 as children and the
 * CP above BEs 2 and 3.  That CP refuses; the wave is BEs 0 and 1.
 */
#include <stdio.h>
#include <string.h>

#include "filter/filter_impl.h"
#include "helper_common.h"
#include "tbon/fe_internal.h"
#include "../../src/proto/worker_protocol.h"

int
main(void)
{
	char lib[4096], err[512];
	it_init("it_stream_refused", 120);
	it_build_path("filter_intmaxloc.so", lib, sizeof lib);

	grove_net *net = it_net_spawn("knomial:2", 4);
	int rc = flt_load(net->n.filters, "feonly", lib, "intmaxloc", 0, err,
	    sizeof err);
	if (rc != 0)
		IT_FAIL("registering the filter on the FE: %s", err);

	/* By default the wave, which lacks the refusing CP's back-ends,
	 * fails at once, naming them. */
	it_step("the CP refuses; the FE's wave does not wait for it");
	grove_stream *s = it_stream(net, NULL, "feonly", NULL);
	CHECK_OK_NET(net, grove_stream_send(s, WORKER_RANK, ""));
	grove_packet *p = NULL;
	CHECK_RC_NET(net, grove_stream_recv(s, NULL, &p, IT_RECV_MS),
	    GROVE_EFILTER);
	CHECK_STR_CONTAINS(grove_net_last_error(net), "2 of 4 members missing: "
	    "ranks 2-3: filter 'feonly' failed at node 3");
	grove_event ev;
	CHECK_OK_NET(net, grove_net_next_event(net, &ev, IT_RECV_MS));
	CHECK_INT_EQ(ev.type, GROVE_EV_FILTER_ERROR);
	CHECK_OK_NET(net, grove_stream_destroy(s));

	/* A stream that takes partial waves gets the FE's own back-ends'. */
	grove_stream_opts so;
	grove_stream_opts_init(&so);
	so.up_filter = "feonly";
	so.partial = GROVE_PARTIAL_DELIVER;
	CHECK_OK_NET(net, grove_stream_create(net, grove_net_comm_all(net), &so,
	    &s));
	CHECK_OK_NET(net, grove_stream_send(s, WORKER_RANK, ""));
	p = it_recv(net, s, WORKER_RANK);
	uint32_t in = 0;
	CHECK_OK(grove_packet_contributors(p, &in, NULL));
	CHECK_UINT_EQ(in, 2);
	int32_t v = 0;
	uint32_t rank = 0;
	CHECK_OK(grove_packet_unpack(p, "%d %ud", &v, &rank));
	CHECK_INT_EQ(v, 1);
	CHECK_UINT_EQ(rank, 1);
	grove_packet_unref(p);

	CHECK_OK_NET(net, grove_net_next_event(net, &ev, IT_RECV_MS));
	it_step("event %d from node %u on stream %u: %s", (int)ev.type,
	    ev.node, ev.stream, ev.text);
	CHECK_INT_EQ(ev.type, GROVE_EV_FILTER_ERROR);
	CHECK_UINT_EQ(ev.stream, grove_stream_id(s));
	CHECK_UINT_EQ(ev.node, 3);
	CHECK_STR_CONTAINS(ev.text, "unknown filter 'feonly'");

	/* Later waves too, and the rest of the network is unaffected. */
	CHECK_OK_NET(net, grove_stream_send(s, WORKER_ECHO, "%d", 7));
	p = it_recv(net, s, WORKER_ECHO);
	CHECK_OK(grove_packet_unpack(p, "%d %ud", &v, &rank));
	CHECK_INT_EQ(v, 7);
	CHECK_UINT_EQ(rank, 0);
	grove_packet_unref(p);
	CHECK_OK_NET(net, grove_stream_destroy(s));
	it_check_rank_sum(net);
	it_net_destroy(net);
	return it_done();
}

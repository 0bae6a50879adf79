/* Stream ids after the front-end's 32-bit counter wraps (2^32 stream
 * creations in a long-lived tool): 0 means point-to-point and a live
 * stream's id is refused by the nodes, so a new stream passes over both
 * (it got 0, whose answers went back as point-to-point, then the id of a
 * live stream, GROVE_EINVAL). */
#include <stdint.h>

#include "helper_common.h"
#include "tbon/fe_internal.h"
#include "../../src/proto/worker_protocol.h"

int
main(void)
{
	it_init("it_stream_ids", 60);
	grove_net *net = it_net_spawn("flat", 2);
	grove_stream *live = it_stream(net, NULL, "sum", NULL);
	CHECK_UINT_EQ(grove_stream_id(live), 1);
	/* As after 2^32 - 2 more creations. */
	net->next_stream = UINT32_MAX;
	grove_stream *last = it_stream(net, NULL, "sum", NULL);
	CHECK_UINT_EQ(grove_stream_id(last), UINT32_MAX);
	grove_stream *next = it_stream(net, NULL, "sum", NULL);
	it_step("after %u: stream %u", grove_stream_id(last),
	    grove_stream_id(next));
	CHECK_UINT_EQ(grove_stream_id(next), 2);
	grove_stream *all[] = {live, last, next};
	for (int i = 0; i < 3; i++) {
		CHECK_OK_NET(net, grove_stream_send(all[i], WORKER_RANK, ""));
		CHECK_INT_EQ(it_recv_int(net, all[i], WORKER_RANK), 1);
	}
	for (int i = 0; i < 3; i++)
		CHECK_OK_NET(net, grove_stream_destroy(all[i]));
	it_net_destroy(net);
	return it_done();
}

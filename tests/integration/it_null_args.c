/* NULL outputs on a live network: an event queued for the FE is not
 * popped through a NULL `ev` (GROVE_EINVAL, the event stays queued), and
 * the calls that take a network, stream or output pointer refuse NULL
 * while the network keeps working.  NULL handles without a network are in
 * tests/unit/test_null_handles.c.
 */
#include <stdio.h>
#include <sys/types.h>

#include "helper_common.h"
#include "../../src/proto/worker_protocol.h"

int
main(void)
{
	char conn[4096];
	it_init("it_null_args", 120);
	snprintf(conn, sizeof conn, "%s/null.conn", it_tmpdir());

	grove_net_opts o;
	it_attach_opts(&o, "kary:2", 2, conn);
	grove_net *net = it_net_create(&o);
	pid_t be[2];
	for (uint32_t r = 0; r < 2; r++)
		be[r] = it_start_attached_be(conn, r);
	CHECK_OK_NET(net, grove_net_wait_backends(net, 2, IT_RECV_MS));

	it_step("next_event with a NULL event while events are queued");
	CHECK_RC_NET(net, grove_net_next_event(net, NULL, 0), GROVE_EINVAL);
	CHECK_RC_NET(net, grove_net_next_event(net, NULL, 100), GROVE_EINVAL);
	/* Nothing was taken: both attach events are still there. */
	grove_event ev;
	int attached = 0;
	while (grove_net_next_event(net, &ev, 0) == 0)
		if (ev.type == GROVE_EV_BE_ATTACHED)
			attached++;
	CHECK_INT_EQ(attached, 2);

	it_step("NULL outputs and handles on a live network");
	grove_stream *s = NULL;
	CHECK_RC_NET(net, grove_stream_create(net, grove_net_comm_all(net),
	    NULL, NULL), GROVE_EINVAL);
	CHECK_RC_NET(net, grove_stream_create(net, NULL, NULL, &s),
	    GROVE_EINVAL);
	CHECK_RC_NET(net, grove_net_recv(net, NULL, NULL, NULL, 0),
	    GROVE_EINVAL);
	CHECK_RC_NET(net, grove_net_attach_info(net, 0, NULL), GROVE_EINVAL);
	CHECK_RC_NET(net, grove_net_send_to(net, 0, 0, NULL), GROVE_EINVAL);
	grove_net_on_event(NULL, NULL, NULL);
	CHECK_RC(grove_net_progress(NULL), GROVE_EINVAL);
	CHECK_RC(grove_net_flush(NULL, 0), GROVE_EINVAL);
	CHECK_OK_NET(net, grove_net_progress(net));
	CHECK_OK_NET(net, grove_net_flush(net, IT_RECV_MS));

	s = it_stream(net, NULL, "sum", NULL);
	CHECK_RC_NET(net, grove_stream_recv(s, NULL, NULL, 0), GROVE_EINVAL);
	CHECK_RC_NET(net, grove_stream_send(s, 0, NULL), GROVE_EINVAL);
	CHECK_OK_NET(net, grove_stream_send(s, WORKER_RANK, ""));
	CHECK_INT_EQ(it_recv_int(net, s, WORKER_RANK), 1);
	CHECK_OK_NET(net, grove_stream_destroy(s));

	it_step("a communicator of another network is refused");
	grove_net *other = it_net_spawn("flat", 4);
	grove_comm *far = NULL;
	const uint32_t r3 = 3;
	CHECK_OK_NET(other, grove_comm_create(other, &r3, 1, &far));
	s = NULL;
	CHECK_RC_NET(net, grove_stream_create(net, far, NULL, &s),
	    GROVE_EINVAL);
	CHECK(s == NULL);
	CHECK_STR_CONTAINS(grove_net_last_error(net), "another network");
	CHECK_RC_NET(net, grove_stream_create(net, grove_net_comm_all(other),
	    NULL, &s), GROVE_EINVAL);
	grove_comm_destroy(far);
	it_check_rank_sum(other);
	/* Not it_net_destroy: the attached BEs of net are alive on purpose. */
	grove_net_destroy(other);

	it_step("the network still works");
	it_check_rank_sum(net);
	grove_net_destroy(net);
	it_wait_attached_exit(be, 2, 10000);
	return it_done();
}

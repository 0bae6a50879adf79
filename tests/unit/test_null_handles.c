/* Public front-end and packet calls given NULL handles, NULL required
 * outputs, or the network of a create that failed before its event loop
 * started: each returns GROVE_EINVAL (or the neutral value docs/api.md
 * gives for calls that do not return a grove_err) instead of crashing.
 * The same calls on a live network are in it_null_args. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "grove/error.h"
#include "grove/network.h"
#include "grove/packet.h"

static void
ignore_event(grove_net *net, const grove_event *ev, void *arg)
{
	(void)net;
	(void)ev;
	(void)arg;
}

static void
test_net_null(void **state)
{
	(void)state;
	grove_event ev;
	grove_packet *p = NULL;
	grove_stream *s = (grove_stream *)&ev; /* must stay untouched */
	grove_stream *out = NULL;
	grove_attach_info ai;
	char buf[GROVE_SECRET_HEX_LEN + 1];

	grove_net_destroy(NULL);
	grove_net_on_event(NULL, ignore_event, NULL);
	grove_stream_opts_init(NULL);
	grove_net_opts_init(NULL);
	grove_comm_destroy(NULL);
	assert_int_equal(grove_net_next_event(NULL, &ev, 0), GROVE_EINVAL);
	assert_int_equal(grove_net_next_event(NULL, NULL, 0), GROVE_EINVAL);
	assert_int_equal(grove_net_progress(NULL), GROVE_EINVAL);
	assert_int_equal(grove_net_flush(NULL, 0), GROVE_EINVAL);
	assert_int_equal(grove_net_wait_backends(NULL, 1, 0), GROVE_EINVAL);
	assert_int_equal(grove_net_attach_info(NULL, 0, &ai), GROVE_EINVAL);
	assert_int_equal(grove_net_attach_secret(NULL, buf, sizeof buf),
	    GROVE_EINVAL);
	assert_int_equal(grove_net_load_filter(NULL, "a", "/b", "c"),
	    GROVE_EINVAL);
	assert_int_equal(grove_net_trace_collect(NULL, 0), GROVE_EINVAL);
	assert_int_equal(grove_net_send_to(NULL, 0, 0, "%d", 1), GROVE_EINVAL);
	assert_int_equal(grove_net_recv(NULL, &s, NULL, &p, 0), GROVE_EINVAL);
	assert_null(s); /* documented: *s is set before anything else */
	assert_null(p);
	assert_int_equal(grove_comm_create(NULL, NULL, 0, NULL), GROVE_EINVAL);
	assert_int_equal(grove_stream_create(NULL, NULL, NULL, &out),
	    GROVE_EINVAL);
	assert_null(out);
	assert_int_equal(grove_stream_destroy(NULL), GROVE_EINVAL);
	assert_int_equal(grove_stream_send(NULL, 0, "%d", 1), GROVE_EINVAL);
	assert_int_equal(grove_stream_send_packet(NULL, NULL), GROVE_EINVAL);
	assert_int_equal(grove_stream_set_params(NULL, GROVE_FILTER_UP, "%d",
	    1), GROVE_EINVAL);
	assert_int_equal(grove_stream_recv(NULL, NULL, &p, 0), GROVE_EINVAL);

	assert_int_equal(grove_net_backends(NULL), 0);
	assert_int_equal(grove_net_backends_up(NULL), 0);
	assert_null(grove_net_topology(NULL));
	assert_string_equal(grove_net_id(NULL), "");
	assert_int_equal(grove_net_fd(NULL), -1);
	assert_null(grove_net_comm_all(NULL));
	assert_int_equal(grove_comm_size(NULL), 0);
	assert_int_equal(grove_stream_id(NULL), 0);
	size_t qb = 7;
	assert_int_equal(grove_stream_queued(NULL, &qb), 0);
	assert_int_equal(qb, 0);
	assert_non_null(grove_net_last_error(NULL));
}

static void
test_packet_null(void **state)
{
	(void)state;
	grove_item it;
	int v;
	grove_packet_unref(NULL);
	assert_null(grove_packet_ref(NULL));
	assert_int_equal(grove_packet_nitems(NULL), GROVE_EINVAL);
	assert_string_equal(grove_packet_format(NULL), "");
	assert_int_equal(grove_packet_size(NULL), 0);
	assert_int_equal(grove_packet_stream(NULL), 0);
	assert_int_equal(grove_packet_tag(NULL), 0);
	assert_int_equal(grove_packet_src(NULL), 0);
	assert_int_equal(grove_packet_item(NULL, 0, &it), GROVE_EINVAL);
	assert_int_equal(grove_packet_unpack(NULL, "%d", &v), GROVE_EINVAL);
	assert_int_equal(grove_packet_pack(NULL, 0, 0, "%d", 1), GROVE_EINVAL);

	/* A real packet still answers as before. */
	grove_packet *p = NULL;
	assert_int_equal(grove_packet_pack(&p, 3, 4, "%d %s", 5, "x"), 0);
	assert_int_equal(grove_packet_nitems(p), 2);
	assert_string_equal(grove_packet_format(p), "%d %s");
	assert_true(grove_packet_size(p) > 0);
	assert_int_equal(grove_packet_stream(p), 3);
	assert_int_equal(grove_packet_tag(p), 4);
	assert_int_equal(grove_packet_item(p, 0, NULL), GROVE_EINVAL);
	grove_packet_unref(p);
}

/* A create that fails on its topology hands out its network for the
 * error text; the calls that would run its (never started) event loop
 * refuse it. */
static void
test_failed_create(void **state)
{
	(void)state;
	grove_net_opts o;
	grove_net_opts_init(&o);
	o.mode = GROVE_LAUNCH_ATTACH;
	o.topology = "no-such-topology-kind:3";
	o.backends = 2;
	grove_net *net = NULL;
	assert_true(grove_net_create(&o, &net) < 0);
	if (!net)
		skip(); /* out of memory: nothing to call */
	grove_event ev;
	grove_packet *p = NULL;
	grove_stream *s = NULL;
	assert_int_equal(grove_net_next_event(net, &ev, 0), GROVE_EINVAL);
	assert_int_equal(grove_net_progress(net), GROVE_EINVAL);
	assert_int_equal(grove_net_flush(net, 0), GROVE_EINVAL);
	assert_int_equal(grove_net_wait_backends(net, 1, 0), GROVE_EINVAL);
	assert_int_equal(grove_net_recv(net, NULL, NULL, &p, 0),
	    GROVE_EINVAL);
	assert_int_equal(grove_net_send_to(net, 0, 0, "%d", 1), GROVE_EINVAL);
	assert_int_equal(grove_net_load_filter(net, "a", "/b", "c"),
	    GROVE_EINVAL);
	assert_int_equal(grove_stream_create(net, grove_net_comm_all(net),
	    NULL, &s), GROVE_EINVAL);
	assert_int_equal(grove_net_trace_collect(net, 0), GROVE_EINVAL);
	grove_net_on_event(net, ignore_event, NULL);
	assert_true(strlen(grove_net_last_error(net)) > 0);
	grove_net_destroy(net);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_net_null),
		cmocka_unit_test(test_packet_null),
		cmocka_unit_test(test_failed_create),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

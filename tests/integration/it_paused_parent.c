/* A CP stops reading from its parent while one of its child links is over
 * its limit (back-pressure).  When that child is then lost, its queue goes
 * with it: the CP must read from its parent again, or its other children
 * starve while still counted as up.
 *
 * kary:2 with 8 back-ends: the FE, two CPs, four leaf CPs with two
 * back-ends each.  One leaf CP is stopped (SIGSTOP), a 32 MiB multicast
 * fills its parent's link to it, the leaf is declared lost (silent for 5
 * heartbeats), and then every surviving back-end must answer.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helper_common.h"
#include "../../src/proto/worker_protocol.h"

#define BIG (32u << 20)

/* A grove-commnode of the test with no grove-commnode below it. */
static pid_t
find_leaf_cp(void)
{
	pid_t cps[64];
	size_t n = it_descendants(cps, 64, "grove-commnode");
	for (size_t i = 0; i < n; i++) {
		pid_t sub[64];
		if (it_descendants_of(cps[i], sub, 64, "grove-commnode") == 0)
			return cps[i];
	}
	IT_FAIL("no leaf CP among %zu CPs", n);
}

int
main(void)
{
	it_init("it_paused_parent", 120);
	grove_net_opts o;
	it_net_opts(&o, "kary:2", 8);
	o.heartbeat_ms = 200;
	grove_net *net = it_net_create(&o);
	grove_stream *s = it_stream(net, NULL, "null", "dont_wait");

	pid_t leaf = find_leaf_cp();
	CHECK(kill(leaf, SIGSTOP) == 0);
	it_step("leaf CP %d stopped", (int)leaf);
	uint8_t *big = calloc(1, BIG);
	CHECK(big != NULL);
	CHECK_OK_NET(net, grove_stream_send(s, WORKER_DIGEST, "%auc", big,
	    (uint64_t)BIG));
	free(big);

	/* The stopped leaf is declared lost: two back-ends fewer. */
	uint64_t t0 = it_now_ms();
	while (grove_net_backends_up(net) == 8) {
		if (it_now_ms() - t0 > 30000)
			IT_FAIL("the stopped CP was not declared lost in 30 s");
		grove_event ev;
		int rc = grove_net_next_event(net, &ev, 1000);
		if (rc != GROVE_ETIMEDOUT)
			CHECK_OK_NET(net, rc);
	}
	CHECK_UINT_EQ(grove_net_backends_up(net), 6);
	it_step("stopped CP lost after %llu ms",
	    (unsigned long long)(it_now_ms() - t0));

	/* The survivors' answers to the big message, then to a small one:
	 * every one of the six must answer both. */
	int32_t tag;
	grove_packet *p;
	int digests = 0;
	while (digests < 6 && grove_stream_recv(s, &tag, &p, 20000) == 0) {
		CHECK_INT_EQ(tag, WORKER_DIGEST);
		digests++;
		grove_packet_unref(p);
	}
	CHECK_INT_EQ(digests, 6);
	CHECK_OK_NET(net, grove_stream_send(s, WORKER_RANK, ""));
	uint32_t seen = 0;
	for (int i = 0; i < 6; i++) {
		int32_t r = it_recv_int(net, s, WORKER_RANK);
		CHECK(r >= 0 && r < 8 && !(seen & (1u << r)));
		seen |= 1u << r;
	}
	it_step("all six survivors answered after the loss (ranks 0x%02x)",
	    seen);
	kill(leaf, SIGCONT);
	CHECK_OK_NET(net, grove_stream_destroy(s));
	it_net_destroy(net);
	return it_done();
}

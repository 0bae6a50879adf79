/* Messages a node must refuse from a child that claim more than the child
 * may speak for.  Every child knows the network secret, so what it says
 * about other nodes and ranks is checked against the topology.  The
 * children here are fakes: this program, started by the front-end as its
 * back-ends or CPs (GROVE_IT_FAKE_PEER says how to misbehave), proves the
 * secret like a real child and, once the test sends it a message, sends
 * one message no real child sends:
 *
 *   be_lost      a back-end reports node 1 (rank 0) and itself lost;
 *   be_attached  a back-end reports rank 0 attached;
 *   be_launch    a back-end sends a LAUNCH_ERROR;
 *   be_p2p       back-end rank 1 sends a P2P stamped as rank 0;
 *   be_data      back-end rank 1 sends DATA stamped as rank 0;
 *   be_filter    a back-end sends a FILTER_ERROR naming node 1;
 *   cp_foreign   a CP reports node 5 (not below it) lost;
 *   cp_range     a CP reports its back-end child lost with every rank;
 *   cp_attached  a CP reports rank 2 (not below it) attached;
 *   cp_p2p       a CP sends a P2P stamped as rank 2;
 *   cp_data      a CP sends DATA stamped as the other CP;
 *   cp_filter    a CP sends a FILTER_ERROR naming the other CP;
 *   cp_lost      (allowed) a CP reports its back-end child lost.
 *
 * Each forbidden one must close that child's link as a protocol error
 * naming the child and the message (a lost node, at the front-end), and
 * change nothing the front-end knows of the other ranks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "codec/wire.h"
#include "grove/error.h"
#include "grove/topology.h"
#include "helper_common.h"
#include "fake_child.h"
#include "tbon/fe_internal.h"
#include "tbon/proto.h"
#include "../../src/proto/worker_protocol.h"

/* ---- the fake child ----------------------------------------------------- */

/* The forbidden message of case `how`, from a child that sends as `src`. */
static int
send_wrong(int fd, const char *how, uint32_t src)
{
	grove_packet *p = NULL;
	int rc = -1;
	if (!strcmp(how, "be_lost"))
		rc = wire_pack(&p, WIRE_T_NODE_LOST, 0, 0, src, 0,
		    PROTO_NODE_LOST, 1u, 0u, 2u, "forged");
	else if (!strcmp(how, "be_attached"))
		rc = wire_pack(&p, WIRE_T_BE_ATTACHED, 0, 0, src, 0,
		    PROTO_BE_ATTACHED, 0u);
	else if (!strcmp(how, "be_launch"))
		rc = wire_pack(&p, WIRE_T_LAUNCH_ERROR, 0, 0, src, 0,
		    PROTO_LAUNCH_ERROR, "forged");
	else if (!strcmp(how, "be_p2p"))
		rc = wire_pack(&p, WIRE_T_P2P, 0, WORKER_RANK, 0u, 0, "%d",
		    (int32_t)4242);
	else if (!strcmp(how, "be_data"))
		rc = wire_pack(&p, WIRE_T_DATA, 7, 0, 0u, 0, "%d",
		    (int32_t)4242);
	else if (!strcmp(how, "be_filter"))
		rc = wire_pack(&p, WIRE_T_FILTER_ERROR, 0, 0, src, 0,
		    PROTO_FILTER_ERROR, 1u, 7u, (int32_t)GROVE_EFILTER, "forged");
	else if (!strcmp(how, "cp_foreign"))
		rc = wire_pack(&p, WIRE_T_NODE_LOST, 0, 0, src, 0,
		    PROTO_NODE_LOST, 5u, 2u, 3u, "forged");
	else if (!strcmp(how, "cp_range"))
		rc = wire_pack(&p, WIRE_T_NODE_LOST, 0, 0, src, 0,
		    PROTO_NODE_LOST, 2u, 0u, 4u, "forged");
	else if (!strcmp(how, "cp_lost"))
		rc = wire_pack(&p, WIRE_T_NODE_LOST, 0, 0, src, 0,
		    PROTO_NODE_LOST, 2u, 0u, 1u, "honest");
	else if (!strcmp(how, "cp_attached"))
		rc = wire_pack(&p, WIRE_T_BE_ATTACHED, 0, 0, src, 0,
		    PROTO_BE_ATTACHED, 2u);
	else if (!strcmp(how, "cp_p2p"))
		rc = wire_pack(&p, WIRE_T_P2P, 0, WORKER_RANK, 2u, 0, "%d",
		    (int32_t)4242);
	else if (!strcmp(how, "cp_data"))
		rc = wire_pack(&p, WIRE_T_DATA, 7, 0, PROTO_NODE_RANK(4), 0,
		    "%d", (int32_t)4242);
	else if (!strcmp(how, "cp_filter"))
		rc = wire_pack(&p, WIRE_T_FILTER_ERROR, 0, 0, src, 0,
		    PROTO_FILTER_ERROR, 4u, 7u, (int32_t)GROVE_EFILTER, "forged");
	return rc == 0 ? fake_send(fd, p) : -1;
}

/* The case's message, once the test sends a message down. */
static int
on_frame(fake_child *f, grove_packet *p, void *arg)
{
	if (wire_packet_hdr(p)->type != WIRE_T_P2P)
		return 0;
	return send_wrong(f->up.wfd, arg, f->src);
}

static int
fake_peer(const char *how)
{
	fake_child f;
	int rc = fake_join(&f);
	if (rc != 0)
		return rc;
	if (f.is_cp)
		rc = fake_send_ready(f.up.wfd, f.src, f.below, f.b.node, 1);
	if (rc == 0)
		fake_serve(&f, on_frame, (void *)how);
	fake_leave(&f);
	return 0;
}

/* ---- the test ----------------------------------------------------------- */

static char self_exe[4096];

/* The fake below rank `rank` sends the message of case `how`; the node
 * that loses its link must be want_node, for the reason `want`.  Returns
 * the network for the caller's checks of what the front-end kept. */
static grove_net *
lost_after(const char *how, const char *topology, uint32_t backends,
    int fake_cps, uint32_t rank, uint32_t want_node, const char *want)
{
	it_step("--- %s: %s, %u back-ends", how, topology, backends);
	setenv(FAKE_ENV, how, 1);
	grove_net_opts o;
	it_net_opts(&o, topology, backends);
	if (fake_cps)
		o.commnode_exe = self_exe;
	else
		o.be_exe = self_exe;
	grove_net *net = it_net_create(&o);
	unsetenv(FAKE_ENV);
	CHECK_UINT_EQ(grove_net_backends_up(net), backends);
	CHECK_OK_NET(net, grove_net_send_to(net, rank, WORKER_RANK, ""));
	grove_event ev;
	uint64_t end = it_now_ms() + IT_RECV_MS;
	for (;;) {
		if (it_now_ms() >= end)
			IT_FAIL("%s: node %u was never lost", how, want_node);
		if (grove_net_next_event(net, &ev, 100) != 0)
			continue;
		it_step("event %d: %s", (int)ev.type, ev.text);
		/* The forged message must not have been acted on first. */
		CHECK(ev.type == GROVE_EV_LOST);
		break;
	}
	CHECK_UINT_EQ(ev.node, want_node);
	CHECK_STR_CONTAINS(ev.text, want);
	/* Whatever came with the forged message was dropped with it. */
	grove_stream *s = NULL;
	int32_t tag = 0;
	grove_packet *p = NULL;
	CHECK(grove_net_recv(net, &s, &tag, &p, 0) != GROVE_OK);
	return net;
}

/* Ranks [lo, hi) are lost at the front-end, the others up. */
static void
check_lost(grove_net *net, uint32_t lo, uint32_t hi)
{
	uint32_t nb = grove_topo_backends(net->topo);
	for (uint32_t r = 0; r < nb; r++)
		CHECK_UINT_EQ(net->be_state[r],
		    r >= lo && r < hi ? FE_BE_LOST : FE_BE_UP);
	CHECK_UINT_EQ(grove_net_backends_up(net), nb - (hi - lo));
	it_net_destroy(net);
}

/* Each case: the fake's misbehaviour, the tree, which rank's fake it is,
 * the node lost for it and why, and the ranks lost with it. */
static const struct {
	const char *how, *topology;
	uint32_t backends;
	int fake_cps;
	uint32_t rank, node;
	const char *why;
	uint32_t lost_lo, lost_hi;
} cases[] = {
	/* Back-ends 0 and 1 are nodes 1 and 2 of a flat tree; back-end 1
	 * misbehaves, and only it is lost. */
	{"be_lost", "flat", 2, 0, 1, 2, "NODE_LOST from node 2, a back-end",
	    1, 2},
	{"be_attached", "flat", 2, 0, 1, 2,
	    "BE_ATTACHED from node 2, a back-end", 1, 2},
	{"be_launch", "flat", 2, 0, 1, 2,
	    "LAUNCH_ERROR from node 2, a back-end", 1, 2},
	{"be_p2p", "flat", 2, 0, 1, 2,
	    "P2P from node 2 with source rank 0, not its own", 1, 2},
	{"be_data", "flat", 2, 0, 1, 2,
	    "DATA from node 2 with source rank 0, not its own", 1, 2},
	{"be_filter", "flat", 2, 0, 1, 2,
	    "FILTER_ERROR from node 2 for node 1, not it or a node below it",
	    1, 2},
	/* kary:2 with 4 back-ends: CP 1 (nodes 2, 3: ranks 0, 1) and CP 4
	 * (nodes 5, 6: ranks 2, 3); CP 1 misbehaves, and only its ranks are
	 * lost. */
	{"cp_foreign", "kary:2", 4, 1, 0, 1,
	    "NODE_LOST from node 1 for node 5, not a node below it", 0, 2},
	{"cp_range", "kary:2", 4, 1, 0, 1,
	    "NODE_LOST from node 1 gives node 2 ranks [0, 4), not its [0, 1)",
	    0, 2},
	{"cp_attached", "kary:2", 4, 1, 0, 1,
	    "BE_ATTACHED from node 1 for rank 2, not a rank below it", 0, 2},
	{"cp_p2p", "kary:2", 4, 1, 0, 1,
	    "P2P from node 1 with source rank 2, not a rank below it", 0, 2},
	{"cp_data", "kary:2", 4, 1, 0, 1,
	    "DATA from node 1 with source rank 2147483652, not a rank below it",
	    0, 2},
	{"cp_filter", "kary:2", 4, 1, 0, 1,
	    "FILTER_ERROR from node 1 for node 4, not it or a node below it",
	    0, 2},
	/* What a CP may say: its own back-end child is lost (rank 0 alone). */
	{"cp_lost", "kary:2", 4, 1, 0, 2, "honest", 0, 1},
};

/* With an argument, only the case of that name. */
int
main(int argc, char **argv)
{
	const char *how = getenv(FAKE_ENV);
	if (how)
		return fake_peer(how);
	it_init("it_child_msg_checks", 300);
	ssize_t n = readlink("/proc/self/exe", self_exe, sizeof self_exe - 1);
	CHECK(n > 0);
	self_exe[n] = '\0';
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		if (argc > 1 && strcmp(argv[1], cases[i].how) != 0)
			continue;
		check_lost(lost_after(cases[i].how, cases[i].topology,
		    cases[i].backends, cases[i].fake_cps, cases[i].rank,
		    cases[i].node, cases[i].why), cases[i].lost_lo,
		    cases[i].lost_hi);
	}
	return it_done();
}

/* READY messages a node must refuse.  A child reports its subtree up with
 * one READY: how many back-ends are below it and the endpoints of the CPs
 * below it.  The children here are fakes: this program, started by the
 * front-end as its CPs or back-ends (GROVE_IT_FAKE_PEER says how to
 * misbehave), reads its bootstrap, proves the secret like a real child
 * and then sends READYs no real child sends:
 *
 *   be        a back-end sends a READY with 1000 endpoints;
 *   second    a CP, ready with a valid READY, sends it again;
 *   oversized a CP's first READY has 100000 endpoints (its subtree has
 *             one CP);
 *   foreign   a CP's READY gives an endpoint of node 0 (not below it);
 *   bes       a CP's READY counts more back-ends than are below it.
 *
 * Each time the front-end must close that child's link as a protocol
 * error that names the child and the message (a lost node after the
 * launch, a failed create during it) and keep none of the endpoints.
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

/* The wrong READY of a case that needs one once the test sends a message
 * down. */
static int
on_frame(fake_child *f, grove_packet *p, void *arg)
{
	(void)arg;
	if (wire_packet_hdr(p)->type != WIRE_T_P2P)
		return 0;
	return f->is_cp ? fake_send_ready(f->up.wfd, f->src, f->below,
	    f->b.node, 1) : fake_send_ready(f->up.wfd, f->src, 1, f->b.node,
	    1000);
}

static int
fake_peer(const char *how)
{
	fake_child f;
	int rc = fake_join(&f);
	if (rc != 0)
		return rc;
	/* The first READY: valid, or the wrong one of the case. */
	if (f.is_cp) {
		uint32_t bes = f.below, ep = f.b.node;
		size_t n = 1;
		if (!strcmp(how, "oversized"))
			n = 100000;
		else if (!strcmp(how, "foreign"))
			ep = 0;
		else if (!strcmp(how, "bes"))
			bes += 1000;
		rc = fake_send_ready(f.up.wfd, f.src, bes, ep, n);
	}
	if (rc == 0)
		fake_serve(&f, on_frame, NULL);
	fake_leave(&f);
	return 0;
}

/* ---- the test ----------------------------------------------------------- */

static char self_exe[4096];

static void
fake_opts(grove_net_opts *o, const char *how, const char *topology,
    uint32_t backends, int fake_cps)
{
	setenv(FAKE_ENV, how, 1);
	it_net_opts(o, topology, backends);
	if (fake_cps)
		o->commnode_exe = self_exe;
	else
		o->be_exe = self_exe;
}

/* After the launch: a message down makes the fake below rank `rank` send
 * its wrong READY; the node it is must be lost for the reason `want`. */
static void
lost_after(const char *how, const char *topology, uint32_t backends,
    int fake_cps, uint32_t rank, uint32_t want_node, size_t want_eps,
    const char *want)
{
	it_step("--- %s: %s, %u back-ends", how, topology, backends);
	grove_net_opts o;
	fake_opts(&o, how, topology, backends, fake_cps);
	grove_net *net = it_net_create(&o);
	CHECK_UINT_EQ(net->n.n_ep, want_eps);
	CHECK_OK_NET(net, grove_net_send_to(net, rank, WORKER_RANK, ""));
	grove_event ev;
	uint64_t end = it_now_ms() + IT_RECV_MS;
	for (;;) {
		if (it_now_ms() >= end)
			IT_FAIL("%s: node %u was never lost", how, want_node);
		if (grove_net_next_event(net, &ev, 100) != 0)
			continue;
		it_step("event %d: %s", (int)ev.type, ev.text);
		if (ev.type == GROVE_EV_LOST)
			break;
	}
	CHECK_UINT_EQ(ev.node, want_node);
	CHECK_STR_CONTAINS(ev.text, want);
	/* Nothing of the refused READY was kept. */
	CHECK_UINT_EQ(net->n.n_ep, want_eps);
	it_net_destroy(net);
	unsetenv(FAKE_ENV);
}

/* During the launch: the wrong READY fails the create. */
static void
launch_fails(const char *how, const char *want)
{
	it_step("--- %s: kary:2, 4 back-ends", how);
	grove_net_opts o;
	fake_opts(&o, how, "kary:2", 4, 1);
	grove_net *net = NULL;
	int rc = grove_net_create(&o, &net);
	if (net)
		it_note_network(grove_net_id(net));
	it_step("%s: %s", grove_err_name(rc), net ? grove_net_last_error(net) :
	    "(no handle)");
	CHECK_INT_EQ(rc, GROVE_ESPAWN);
	CHECK(net != NULL);
	CHECK_STR_CONTAINS(grove_net_last_error(net), want);
	CHECK_UINT_EQ(net->n.n_ep, 0);
	grove_net_destroy(net);
	it_check_no_procs(NULL, 0, 5000);
	unsetenv(FAKE_ENV);
}

int
main(void)
{
	const char *how = getenv(FAKE_ENV);
	if (how)
		return fake_peer(how);
	it_init("it_ready_checks", 240);
	ssize_t n = readlink("/proc/self/exe", self_exe, sizeof self_exe - 1);
	CHECK(n > 0);
	self_exe[n] = '\0';

	/* Back-ends 0 and 1 are nodes 1 and 2 of a flat tree. */
	lost_after("be", "flat", 2, 0, 1, 2, 0,
	    "READY from node 2, a back-end");
	/* kary:2 with 4 back-ends: CPs 1 and 4, each with two back-ends;
	 * each CP's valid READY gives its own endpoint. */
	lost_after("second", "kary:2", 4, 1, 0, 1, 2,
	    "a second READY from node 1");
	launch_fails("oversized", "with 100000 endpoints; its subtree has 1 "
	    "CP");
	launch_fails("foreign", "gives an endpoint of node 0, not a CP below "
	    "it");
	launch_fails("bes", "counts 1002 back-ends, more than the 2 below it");
	return it_done();
}

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
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "codec/wire.h"
#include "grove/error.h"
#include "grove/topology.h"
#include "helper_common.h"
#include "net/auth.h"
#include "net/boot.h"
#include "net/uplink.h"
#include "tbon/fe_internal.h"
#include "tbon/proto.h"
#include "../../examples/worker_protocol.h"

#define FAKE_ENV "GROVE_IT_FAKE_PEER"

/* ---- the fake child ----------------------------------------------------- */

static int
put_all(int fd, const uint8_t *b, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, b, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		b += w;
		n -= (size_t)w;
	}
	return 0;
}

static int
send_packet(int fd, grove_packet *p)
{
	size_t len = 0;
	const uint8_t *b = wire_packet_bytes(p, &len);
	int rc = put_all(fd, b, len);
	grove_packet_unref(p);
	return rc;
}

/* A READY from node `node` (src `src`) with bes back-ends and n endpoints,
 * all naming node ep_node. */
static int
send_ready(int fd, uint32_t src, uint32_t bes, uint32_t ep_node, size_t n)
{
	uint32_t *ids = calloc(n ? n : 1, sizeof *ids);
	uint32_t *ports = calloc(n ? n : 1, sizeof *ports);
	const char **hosts = calloc(n ? n : 1, sizeof *hosts);
	grove_packet *p = NULL;
	int rc = -1;
	if (ids && ports && hosts) {
		for (size_t i = 0; i < n; i++) {
			ids[i] = ep_node;
			ports[i] = 1;
			hosts[i] = "fake";
		}
		if (wire_pack(&p, WIRE_T_READY, 0, 0, src, 0, PROTO_READY, bes,
			ids, (uint64_t)n, ports, (uint64_t)n, hosts,
			(uint64_t)n) == 0)
			rc = send_packet(fd, p);
	}
	free(ids);
	free(ports);
	free(hosts);
	return rc;
}

/* The type of the next frame from fd, its bytes skipped; -1 at EOF. */
static int
next_frame_type(int fd)
{
	static uint8_t *buf;
	static size_t cap;
	size_t have = 0, need = WIRE_HDR_SIZE;
	for (;;) {
		wire_hdr h;
		long n = wire_peek(buf, have, &h, &need);
		if (n < 0)
			return -1;
		if (n > 0)
			return h.type;
		if (need > cap) {
			uint8_t *b = realloc(buf, need);
			if (!b)
				return -1;
			buf = b;
			cap = need;
		}
		ssize_t r = read(fd, buf + have, need - have);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		have += (size_t)r;
	}
}

static int
fake_peer(const char *how)
{
	boot b;
	char err[512];
	uint8_t secret[AUTH_SECRET_LEN];
	grove_topo *topo = NULL;
	signal(SIGPIPE, SIG_IGN);
	boot_init(&b);
	if (boot_read_fd(0, &b, err, sizeof err) != 0 ||
	    auth_secret_from_hex(b.secret_hex, secret) != 0) {
		fprintf(stderr, "fake peer: bootstrap: %s\n", err);
		return 2;
	}
	/* A CP gets the topology, a back-end does not. */
	int is_cp = b.topology != NULL;
	uint32_t below = 1, src = b.rank;
	if (is_cp) {
		if (grove_topo_parse_string(b.topology, &topo, err,
			sizeof err) != 0) {
			fprintf(stderr, "fake peer: topology: %s\n", err);
			return 2;
		}
		const grove_topo_node *me = grove_topo_node_at(topo, b.node);
		below = me->be_hi - me->be_lo;
		src = PROTO_NODE_RANK(b.node);
	}
	uplink up;
	if (uplink_open(b.parent_rfd, b.parent_wfd, b.parent_unix,
		b.parent_host, b.parent_port, b.timeout_ms, &up, err,
		sizeof err) != 0 ||
	    auth_child_handshake(up.rfd, up.wfd, secret, b.node,
		is_cp ? AUTH_NO_RANK : b.rank, AUTH_TIMEOUT_MS, err,
		sizeof err) != 0) {
		fprintf(stderr, "fake peer: node %u: %s\n", b.node, err);
		return 1;
	}
	/* Plain blocking reads and writes (a pipe may come non-blocking). */
	fcntl(up.rfd, F_SETFL, fcntl(up.rfd, F_GETFL) & ~O_NONBLOCK);
	fcntl(up.wfd, F_SETFL, fcntl(up.wfd, F_GETFL) & ~O_NONBLOCK);
	int rc = 0;
	/* The first READY: valid, or the wrong one of the case. */
	if (is_cp) {
		if (!strcmp(how, "oversized"))
			rc = send_ready(up.wfd, src, below, b.node, 100000);
		else if (!strcmp(how, "foreign"))
			rc = send_ready(up.wfd, src, below, 0, 1);
		else if (!strcmp(how, "bes"))
			rc = send_ready(up.wfd, src, below + 1000, b.node, 1);
		else
			rc = send_ready(up.wfd, src, below, b.node, 1);
	}
	/* Then as a child that is up: heartbeats answered (a CP's parent
	 * gives up on a silent one), and the wrong READY of a case that
	 * needs one once the test sends a message down. */
	int type;
	while (rc == 0 && (type = next_frame_type(up.rfd)) >= 0) {
		grove_packet *p = NULL;
		if (type == WIRE_T_SHUTDOWN)
			break;
		if (type == WIRE_T_HEARTBEAT && is_cp &&
		    wire_pack(&p, WIRE_T_HEARTBEAT, 0, 0, src, 0, "") == 0)
			rc = send_packet(up.wfd, p);
		if (type == WIRE_T_P2P)
			rc = is_cp ? send_ready(up.wfd, src, below, b.node, 1) :
			    send_ready(up.wfd, src, 1, b.node, 1000);
	}
	uplink_close(&up);
	grove_topo_destroy(topo);
	boot_fini(&b);
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

/* Filter-load answers a node must not take at their word.  Every child
 * knows the network secret, so a node counts one answer from each CP
 * child it asked, and no answer from anyone else.  The children here are
 * fakes: this program, started by the front-end as its CPs
 * (GROVE_IT_FAKE_PEER says how to misbehave), proves the secret like a
 * real CP and then answers a load as no real CP does.  kary:2 with 4
 * back-ends: CPs 1 and 4; CP 4 answers late, with an error, so that the
 * result says whether the load waited for it.
 *
 *   ack2      CP 1 answers twice with success: its second answer must not
 *             stand for CP 4's, the load waits and fails with CP 4's error;
 *   ackdie    CP 1 answers and then exits: it is not lost "before
 *             answering", and the load still waits for CP 4.
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
#include "tbon/proto.h"

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
	if (!p)
		return -1;
	size_t len = 0;
	const uint8_t *b = wire_packet_bytes(p, &len);
	int rc = put_all(fd, b, len);
	grove_packet_unref(p);
	return rc;
}

static int
send_ready(int fd, uint32_t src, uint32_t bes, uint32_t node)
{
	uint32_t ids[1] = {node}, ports[1] = {1};
	const char *hosts[1] = {"fake"};
	grove_packet *p = NULL;
	if (wire_pack(&p, WIRE_T_READY, 0, 0, src, 0, PROTO_READY, bes, ids,
		(uint64_t)1, ports, (uint64_t)1, hosts, (uint64_t)1) != 0)
		return -1;
	return send_packet(fd, p);
}

/* The next frame from fd, decoded; NULL at EOF. */
static grove_packet *
next_frame(int fd)
{
	static uint8_t *buf;
	static size_t cap;
	size_t have = 0, need = WIRE_HDR_SIZE;
	for (;;) {
		wire_hdr h;
		long n = wire_peek(buf, have, &h, &need);
		if (n < 0)
			return NULL;
		if (n > 0) {
			grove_packet *p = NULL;
			return wire_packet_from_bytes(buf, (size_t)n, &p) == 0 ?
			    p : NULL;
		}
		if (need > cap) {
			uint8_t *b = realloc(buf, need);
			if (!b)
				return NULL;
			buf = b;
			cap = need;
		}
		ssize_t r = read(fd, buf + have, need - have);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return NULL;
		have += (size_t)r;
	}
}

static int
filter_ack(int fd, int32_t tag, uint32_t src, uint32_t ok, const char *err)
{
	const char *e[1] = {err};
	grove_packet *q = NULL;
	wire_pack(&q, WIRE_T_FILTER_ACK, 0, tag, src, 0, PROTO_FILTER_ACK, ok,
	    err ? e : (const char *const *)NULL, (uint64_t)(err ? 1 : 0));
	return send_packet(fd, q);
}

/* A CP's answer to a filter load. */
static int
cp_on_filter_load(const char *how, const boot *b, int fd, int32_t tag,
    uint32_t src)
{
	if (b->node != 1) {
		/* CP 4: slow, and fails, so that the result says whether
		 * the load waited for it. */
		sleep(1);
		return filter_ack(fd, tag, src, 0, "node 4: cannot load it here");
	}
	if (!strcmp(how, "ack2"))
		return filter_ack(fd, tag, src, 1, NULL) ||
		    filter_ack(fd, tag, src, 1, NULL);
	if (!strcmp(how, "ackdie")) {
		filter_ack(fd, tag, src, 1, NULL);
		_exit(0);
	}
	return 0;
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
	int rc = is_cp ? send_ready(up.wfd, src, below, b.node) : 0;
	grove_packet *p;
	while (rc == 0 && (p = next_frame(up.rfd)) != NULL) {
		int type = wire_packet_hdr(p)->type;
		int32_t tag = wire_packet_hdr(p)->tag;
		grove_packet_unref(p);
		grove_packet *q = NULL;
		if (type == WIRE_T_SHUTDOWN)
			break;
		if (type == WIRE_T_HEARTBEAT && is_cp &&
		    wire_pack(&q, WIRE_T_HEARTBEAT, 0, 0, src, 0, "") == 0)
			rc = send_packet(up.wfd, q);
		if (type == WIRE_T_FILTER_LOAD && is_cp)
			rc = cp_on_filter_load(how, &b, up.wfd, tag, src);
	}
	uplink_close(&up);
	grove_topo_destroy(topo);
	boot_fini(&b);
	return 0;
}

/* ---- the test ----------------------------------------------------------- */

static char self_exe[4096];

static grove_net *
fake_net(const char *how, const char *topology, uint32_t backends)
{
	it_step("--- %s: %s, %u back-ends", how, topology, backends);
	setenv(FAKE_ENV, how, 1);
	grove_net_opts o;
	it_net_opts(&o, topology, backends);
	o.commnode_exe = self_exe;
	return it_net_create(&o);
}

static void
fake_done(grove_net *net)
{
	it_net_destroy(net);
	unsetenv(FAKE_ENV);
}

/* The load must wait for CP 4 and fail with its error, and only with it. */
static void
load_waits_for_cp4(const char *how)
{
	grove_net *net = fake_net(how, "kary:2", 4);
	char lib[512];
	it_build_path("filter_intmaxloc.so", lib, sizeof lib);
	int rc = grove_net_load_filter(net, "intmaxloc", lib, "intmaxloc");
	it_step("%s: %s", grove_err_name(rc), grove_net_last_error(net));
	CHECK_INT_EQ(rc, GROVE_EFILTER);
	const char *err = grove_net_last_error(net);
	CHECK_STR_CONTAINS(err, "failed on 1 node(s)");
	CHECK_STR_CONTAINS(err, "node 4: cannot load it here");
	CHECK(strstr(err, "lost before answering") == NULL);
	fake_done(net);
}

/* With an argument, only the case of that name runs. */
static int
want(int argc, char **argv, const char *how)
{
	return argc < 2 || strcmp(argv[1], how) == 0;
}

int
main(int argc, char **argv)
{
	const char *how = getenv(FAKE_ENV);
	if (how)
		return fake_peer(how);
	it_init("it_filter_acks", 240);
	ssize_t n = readlink("/proc/self/exe", self_exe, sizeof self_exe - 1);
	CHECK(n > 0);
	self_exe[n] = '\0';

	if (want(argc, argv, "ack2"))
		load_waits_for_cp4("ack2");
	if (want(argc, argv, "ackdie"))
		load_waits_for_cp4("ackdie");
	return it_done();
}

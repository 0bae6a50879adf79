/* The connection handshake under stress, in attach mode:
 *
 *   reset   a peer proves the secret for a rank and resets the link at
 *           once; the parent must count the rank lost, not attached.
 *   flood   more idle connections than a node keeps waiting to
 *           authenticate; a real back-end must still get in.
 *   trickle a fake parent sends its challenge a byte at a time; the
 *           back-end's attach must give up at the handshake deadline.
 *   refuse  a second attach of a connected rank, or of a lost one, is
 *           told why by the parent.
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "grove/backend.h"
#include "helper_common.h"
#include "net/auth.h"
#include "codec/wire.h"
#include "../../src/proto/worker_protocol.h"

#define NBE 4

typedef struct net_ctx {
	grove_net *net;
	char conn_file[4096];
	pid_t be[NBE];   /* 0: not started */
	int lost[NBE];   /* EV_LOST seen */
	int attached[NBE]; /* EV_BE_ATTACHED seen */
} net_ctx;

static void
net_up(net_ctx *c, const char *topo, uint32_t nstart)
{
	static unsigned seq;
	memset(c, 0, sizeof *c);
	snprintf(c->conn_file, sizeof c->conn_file, "%s/hs-%u.conn", it_tmpdir(),
	    seq++);
	grove_net_opts o;
	it_attach_opts(&o, topo, NBE, c->conn_file);
	c->net = it_net_create(&o);
	for (uint32_t r = 0; r < nstart; r++)
		c->be[r] = it_start_attached_be(c->conn_file, r);
	CHECK_OK_NET(c->net, grove_net_wait_backends(c->net, nstart, IT_RECV_MS));
}

static void
net_down(net_ctx *c)
{
	grove_net_destroy(c->net);
	for (uint32_t r = 0; r < NBE; r++)
		if (c->be[r] > 0)
			waitpid(c->be[r], NULL, 0);
	it_check_no_procs(NULL, 0, 5000);
}

/* Take the events the FE has (waiting up to ms for the first). */
static void
take_events(net_ctx *c, int ms)
{
	grove_event ev;
	while (grove_net_next_event(c->net, &ev, ms) == 0) {
		ms = 0;
		if (ev.type == GROVE_EV_LOST)
			for (uint32_t r = ev.rank_lo; r < ev.rank_hi && r < NBE;
			    r++)
				c->lost[r]++;
		else if (ev.type == GROVE_EV_BE_ATTACHED && ev.rank_lo < NBE)
			c->attached[ev.rank_lo]++;
	}
}

static void
wait_lost(net_ctx *c, uint32_t rank)
{
	uint64_t end = it_now_ms() + IT_RECV_MS;
	while (!c->lost[rank]) {
		if (it_now_ms() >= end)
			IT_FAIL("rank %u never reported lost", rank);
		take_events(c, 100);
	}
}

/* A round trip through the tree to ranks 0..n-1: everything their parents
 * sent before the answer has reached the FE after it. */
static void
round_trip(net_ctx *c, uint32_t n)
{
	uint32_t ranks[NBE];
	for (uint32_t r = 0; r < n; r++)
		ranks[r] = r;
	grove_comm *comm = NULL;
	CHECK_OK_NET(c->net, grove_comm_create(c->net, ranks, n, &comm));
	grove_stream *s = it_stream(c->net, comm, "sum", NULL);
	CHECK_OK_NET(c->net, grove_stream_send(s, WORKER_ECHO, "%d", 5));
	CHECK_INT_EQ(it_recv_int(c->net, s, WORKER_ECHO), 5 * (int)n);
	CHECK_OK_NET(c->net, grove_stream_destroy(s));
	grove_comm_destroy(comm);
}

/* One whole frame from fd (blocking). */
static grove_packet *
read_frame(int fd)
{
	uint8_t buf[AUTH_MAX_FRAME];
	size_t have = 0;
	for (;;) {
		wire_hdr h;
		size_t need = WIRE_HDR_SIZE;
		long n = wire_peek(buf, have, &h, &need);
		CHECK(n >= 0 && need <= sizeof buf);
		if (n > 0) {
			grove_packet *p = NULL;
			CHECK_OK(wire_packet_from_bytes(buf, (size_t)n, &p));
			return p;
		}
		ssize_t r = read(fd, buf + have, need - have);
		if (r < 0 && errno == EINTR)
			continue;
		CHECK(r > 0);
		have += (size_t)r;
	}
}

/* ---- reset right after a valid hello ------------------------------------ */

/* The CPs are stopped while the hello and the reset go out, so the parent
 * finds both waiting when it runs again: it takes the hello, and its
 * AUTH_OK hits the reset link. */
static void
reset_after_hello(void)
{
	net_ctx c;
	it_step("--- reset right after a valid hello");
	net_up(&c, "kary:2", 3);
	char hex[80];
	uint8_t secret[AUTH_SECRET_LEN];
	CHECK_OK_NET(c.net, grove_net_attach_secret(c.net, hex, sizeof hex));
	CHECK_OK(auth_secret_from_hex(hex, secret));
	grove_attach_info ai;
	CHECK_OK_NET(c.net, grove_net_attach_info(c.net, 3, &ai));

	int fd = it_dial(ai.host, ai.port);
	grove_packet *ch = read_frame(fd);
	CHECK_UINT_EQ(wire_packet_hdr(ch)->type, WIRE_T_AUTH_CHALLENGE);
	const uint8_t *np = NULL;
	uint64_t nl = 0;
	CHECK_OK(grove_packet_unpack(ch, "%auc", &np, &nl));
	CHECK_UINT_EQ(nl, AUTH_NONCE_LEN);
	uint8_t nc[AUTH_NONCE_LEN], pc[AUTH_PROOF_LEN];
	auth_nonce_new(nc);
	auth_proof_child(secret, np, nc, ai.node, pc);
	grove_packet_unref(ch);
	grove_packet *hello = NULL;
	CHECK_OK(wire_pack(&hello, WIRE_T_AUTH_HELLO, 0, 0, 0, GROVE_PROTOCOL,
	    "%auc %auc %ud %ud %ud", pc, (uint64_t)AUTH_PROOF_LEN, nc,
	    (uint64_t)AUTH_NONCE_LEN, ai.node, (uint32_t)getpid(), ai.rank));
	size_t hl;
	const uint8_t *hb = wire_packet_bytes(hello, &hl);

	pid_t cps[16];
	size_t ncp = it_descendants(cps, 16, "grove-commnode");
	CHECK(ncp > 0);
	for (size_t i = 0; i < ncp; i++)
		CHECK(kill(cps[i], SIGSTOP) == 0);
	for (size_t i = 0; i < ncp; i++) {
		uint64_t end = it_now_ms() + IT_RECV_MS;
		while (it_proc_state(cps[i]) != 'T') {
			if (it_now_ms() >= end) {
				for (size_t j = 0; j < ncp; j++)
					kill(cps[j], SIGCONT);
				IT_FAIL("CP pid %d did not stop", (int)cps[i]);
			}
			it_sleep_ms(1);
		}
	}
	CHECK(write(fd, hb, hl) == (ssize_t)hl);
	struct linger lg = {1, 0};
	CHECK(setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg) == 0);
	close(fd); /* a reset, not an orderly close */
	grove_packet_unref(hello);
	for (size_t i = 0; i < ncp; i++)
		CHECK(kill(cps[i], SIGCONT) == 0);

	wait_lost(&c, 3);
	/* Whatever rank 3's parent said after the loss is in by now. */
	round_trip(&c, 3);
	take_events(&c, 0);
	it_step("rank 3: lost %d, attached %d; backends up %u", c.lost[3],
	    c.attached[3], grove_net_backends_up(c.net));
	CHECK_INT_EQ(c.attached[3], 0);
	CHECK_UINT_EQ(grove_net_backends_up(c.net), 3);
	CHECK(grove_net_wait_backends(c.net, 4, 0) != 0);
	net_down(&c);
}

/* ---- a flood of idle connections -------------------------------------- */

/* More than the pending cap of any node here (64 plus its children). */
#define FLOOD_CONNS 100

/* 1 when the peer closed fd (after whatever it sent), without waiting. */
static int
peer_closed(int fd)
{
	char buf[1024];
	for (;;) {
		struct pollfd pf = {.fd = fd, .events = POLLIN};
		if (poll(&pf, 1, 0) <= 0)
			return 0;
		ssize_t n = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
		if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN))
			return 1;
		if (n < 0 && errno == EAGAIN)
			return 0;
	}
}

static void
flood(const char *topo)
{
	net_ctx c;
	it_step("--- %s: %d idle connections to rank 3's parent", topo,
	    FLOOD_CONNS);
	net_up(&c, topo, 3);
	grove_attach_info ai;
	CHECK_OK_NET(c.net, grove_net_attach_info(c.net, 3, &ai));
	int fds[FLOOD_CONNS];
	for (int i = 0; i < FLOOD_CONNS; i++)
		fds[i] = it_dial(ai.host, ai.port);
	/* The real back-end connects after all of them. */
	c.be[3] = it_start_attached_be(c.conn_file, 3);
	CHECK_OK_NET(c.net, grove_net_wait_backends(c.net, 4, IT_RECV_MS));
	int closed = 0;
	for (int i = 0; i < FLOOD_CONNS; i++)
		closed += peer_closed(fds[i]);
	it_step("rank 3 attached; the parent closed %d of the idle "
	    "connections", closed);
	/* Each connection over the cap, and the back-end's, closed one. */
	CHECK(closed > 0);
	it_check_rank_sum(c.net);
	for (int i = 0; i < FLOOD_CONNS; i++)
		close(fds[i]);
	net_down(&c);
}

/* ---- a parent that trickles its challenge ------------------------------ */

static void
trickle(void)
{
	it_step("--- a parent that sends a byte at a time");
	int ls = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	CHECK(ls >= 0);
	struct sockaddr_in sa;
	memset(&sa, 0, sizeof sa);
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	CHECK(bind(ls, (struct sockaddr *)&sa, sizeof sa) == 0);
	CHECK(listen(ls, 1) == 0);
	socklen_t sl = sizeof sa;
	CHECK(getsockname(ls, (struct sockaddr *)&sa, &sl) == 0);
	uint16_t port = ntohs(sa.sin_port);

	pid_t fake = fork();
	CHECK(fake >= 0);
	if (fake == 0) {
		/* A challenge header that promises almost AUTH_MAX_FRAME bytes,
		 * then those bytes one every 100 ms: each read of the back-end
		 * gets something long before any per-read timeout. */
		int fd = accept(ls, NULL, NULL);
		if (fd < 0)
			_exit(1);
		uint8_t fr[AUTH_MAX_FRAME];
		memset(fr, 0, sizeof fr);
		uint32_t len = AUTH_MAX_FRAME - 8;
		for (int b = 0; b < 4; b++)
			fr[b] = (uint8_t)(len >> (8 * b));
		fr[4] = WIRE_T_AUTH_CHALLENGE;
		fr[6] = 4;
		memcpy(fr + WIRE_HDR_SIZE, "%auc", 4);
		for (uint32_t i = 0; i < len; i++) {
			if (send(fd, fr + i, 1, MSG_NOSIGNAL) != 1)
				_exit(0);
			usleep(100000);
		}
		_exit(0);
	}
	close(ls);
	/* A short deadline, so the test does not wait the default 10 s. */
	CHECK(setenv("GROVE_HANDSHAKE_TIMEOUT_MS", "1500", 1) == 0);
	char hex[65];
	memset(hex, 'a', 64);
	hex[64] = 0;
	grove_be *be = NULL;
	int rc = grove_be_attach_to("127.0.0.1", port, 0, 1, 0, 1, hex, &be);
	unsetenv("GROVE_HANDSHAKE_TIMEOUT_MS");
	it_step("attach -> %s: %s", grove_err_name(rc), grove_be_last_error(be));
	CHECK_RC(rc, GROVE_ETIMEDOUT);
	CHECK_STR_CONTAINS(grove_be_last_error(be), "timed out");
	grove_be_destroy(be);
	kill(fake, SIGKILL);
	waitpid(fake, NULL, 0);
}

/* ---- the parent says why it turns a back-end away ----------------------- */

static void
refuse(void)
{
	net_ctx c;
	it_step("--- duplicate and lost ranks");
	net_up(&c, "kary:2", NBE);

	grove_be *be = NULL;
	int rc = grove_be_attach(c.conn_file, 1, &be);
	it_step("second rank 1 -> %s: %s", grove_err_name(rc),
	    grove_be_last_error(be));
	CHECK_RC(rc, GROVE_ECLOSED);
	CHECK_STR_CONTAINS(grove_be_last_error(be), "already connected");
	grove_be_destroy(be);

	CHECK(kill(c.be[3], SIGKILL) == 0);
	wait_lost(&c, 3);
	be = NULL;
	rc = grove_be_attach(c.conn_file, 3, &be);
	it_step("rank 3 after its loss -> %s: %s", grove_err_name(rc),
	    grove_be_last_error(be));
	CHECK_RC(rc, GROVE_ECLOSED);
	CHECK_STR_CONTAINS(grove_be_last_error(be), "was lost");
	grove_be_destroy(be);

	/* A record that puts a BE in another rank's place (rank 2 at rank
	 * 0's node) is refused before the slot is looked at: rank 0 keeps
	 * its place (the round trip below counts it). */
	grove_attach_info a0;
	CHECK_OK_NET(c.net, grove_net_attach_info(c.net, 0, &a0));
	char secret[GROVE_SECRET_HEX_LEN + 1];
	CHECK_OK_NET(c.net, grove_net_attach_secret(c.net, secret,
	    sizeof secret));
	be = NULL;
	rc = grove_be_attach_to(a0.host, a0.port, a0.parent, a0.node, 2, NBE,
	    secret, &be);
	it_step("rank 2 at rank 0's node -> %s: %s", grove_err_name(rc),
	    grove_be_last_error(be));
	CHECK_RC(rc, GROVE_ECLOSED);
	CHECK_STR_CONTAINS(grove_be_last_error(be), "not rank 2");
	grove_be_destroy(be);

	/* A wrong secret learns nothing beyond the closed connection. */
	grove_attach_info ai;
	CHECK_OK_NET(c.net, grove_net_attach_info(c.net, 2, &ai));
	char wrong[65];
	memset(wrong, 'b', 64);
	wrong[64] = 0;
	be = NULL;
	rc = grove_be_attach_to(ai.host, ai.port, ai.parent, ai.node, 2, NBE,
	    wrong, &be);
	CHECK_RC(rc, GROVE_ECLOSED);
	CHECK(strstr(grove_be_last_error(be), "refused") == NULL);
	grove_be_destroy(be);

	round_trip(&c, 3);
	net_down(&c);
}

int
main(void)
{
	it_init("it_handshake", 240);
	reset_after_hello();
	flood("kary:2");
	flood("flat");
	trickle();
	refuse();
	return it_done();
}

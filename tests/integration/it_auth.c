/* Hostile clients on a listening port of the network: a wrong secret,
 * garbage before authenticating, and, after a correct handshake, malformed
 * frames.  The node must close the connection or drop the frame, never
 * crash, and the network must keep answering.
 *
 * The listening ports are those of attach mode: the connection file gives
 * host and port of each BE's parent, and the secret.  Ranks 0..2 are real
 * workers; rank 3 is never started, so the hostile client can claim it.
 */
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helper_common.h"
#include "net/auth.h"
#include "codec/wire.h"
#include "../../src/proto/worker_protocol.h"

#define NBE 4
#define FAKE_RANK 3
#define NREAL 3

typedef struct ctx {
	grove_net *net;
	char conn_file[4096];
	uint8_t secret[AUTH_SECRET_LEN];
	pid_t be[NREAL];
	pid_t cps[16];
	size_t ncps;
	grove_comm *comm;     /* the real workers */
	grove_stream *sum;    /* sum over them */
	grove_stream *all_dw; /* sum, dont_wait, over every rank */
	char host[256];       /* where FAKE_RANK connects */
	uint16_t port;
	uint32_t fake_node;
} ctx;

/* ---- network ---------------------------------------------------------- */

static void
read_secret(ctx *c)
{
	FILE *f = fopen(c->conn_file, "r");
	char line[256], hex[128] = "";
	CHECK(f != NULL);
	/* After the protocol line. */
	while (fgets(line, sizeof line, f) && !hex[0])
		if (sscanf(line, "secret %127s", hex) != 1)
			hex[0] = 0;
	fclose(f);
	CHECK_OK(auth_secret_from_hex(hex, c->secret));
}

static void
net_up(ctx *c, const char *topo)
{
	static unsigned seq;
	memset(c, 0, sizeof *c);
	snprintf(c->conn_file, sizeof c->conn_file, "%s/auth-%u.conn",
	    it_tmpdir(), seq++);
	grove_net_opts o;
	it_net_opts(&o, topo, NBE);
	o.mode = GROVE_LAUNCH_ATTACH;
	o.connect_file = c->conn_file;
	CHECK_OK_NET(c->net, grove_net_create(&o, &c->net));
	read_secret(c);

	char exe[4096];
	it_build_path("be_worker", exe, sizeof exe);
	for (uint32_t r = 0; r < NREAL; r++) {
		char rs[16];
		snprintf(rs, sizeof rs, "%u", r);
		c->be[r] = fork();
		CHECK(c->be[r] >= 0);
		if (c->be[r] == 0) {
			execl(exe, "be_worker", "--attach", c->conn_file,
			    "--rank", rs, (char *)NULL);
			_exit(127);
		}
	}
	CHECK_OK_NET(c->net, grove_net_wait_backends(c->net, NREAL,
	    IT_RECV_MS));

	grove_attach_info ai;
	CHECK_OK_NET(c->net, grove_net_attach_info(c->net, FAKE_RANK, &ai));
	snprintf(c->host, sizeof c->host, "%s", ai.host);
	c->port = ai.port;
	CHECK_INT_EQ(grove_topo_be_node(grove_net_topology(c->net),
	    FAKE_RANK), ai.node);
	c->fake_node = ai.node;
	c->ncps = it_descendants(c->cps, 16, "grove-commnode");

	uint32_t ranks[NREAL] = {0, 1, 2};
	CHECK_OK_NET(c->net, grove_comm_create(c->net, ranks, NREAL,
	    &c->comm));
	c->sum = it_stream(c->net, c->comm, "sum", NULL);
	c->all_dw = it_stream(c->net, NULL, "sum", "dont_wait");
}

/* The network answers, and no CP died. */
static void
net_check(ctx *c, const char *after)
{
	static int32_t v = 1;
	v++;
	CHECK_OK_NET(c->net, grove_stream_send(c->sum, WORKER_ECHO, "%d", v));
	int32_t got = it_recv_int(c->net, c->sum, WORKER_ECHO);
	if (got != v * NREAL)
		IT_FAIL("after %s: sum of echo %d is %d, expected %d", after,
		    v, got, v * NREAL);
	for (size_t i = 0; i < c->ncps; i++)
		if (!it_alive(c->cps[i]))
			IT_FAIL("after %s: CP pid %d died", after,
			    (int)c->cps[i]);
	for (size_t i = 0; i < NREAL; i++)
		if (!it_alive(c->be[i]))
			IT_FAIL("after %s: BE rank %zu died", after, i);
}

static void
net_down(ctx *c)
{
	CHECK_OK_NET(c->net, grove_stream_destroy(c->sum));
	CHECK_OK_NET(c->net, grove_stream_destroy(c->all_dw));
	grove_comm_destroy(c->comm);
	grove_net_destroy(c->net);
	for (size_t i = 0; i < NREAL; i++) {
		int st;
		uint64_t end = it_now_ms() + 5000;
		while (waitpid(c->be[i], &st, WNOHANG) == 0) {
			if (it_now_ms() >= end)
				IT_FAIL("BE rank %zu alive after destroy", i);
			it_sleep_ms(10);
		}
	}
	it_check_no_procs(NULL, 0, 5000);
}

/* ---- raw clients -------------------------------------------------------- */

static int
dial(const ctx *c)
{
	char port[16];
	struct addrinfo hints, *ai = NULL;
	memset(&hints, 0, sizeof hints);
	hints.ai_socktype = SOCK_STREAM;
	snprintf(port, sizeof port, "%u", c->port);
	int rc = getaddrinfo(c->host, port, &hints, &ai);
	if (rc != 0)
		IT_FAIL("getaddrinfo(%s): %s", c->host, gai_strerror(rc));
	int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	CHECK(fd >= 0);
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) < 0)
		IT_FAIL("connect %s:%s: %s", c->host, port, strerror(errno));
	freeaddrinfo(ai);
	return fd;
}

/* Writes everything; a peer that already closed is not an error here. */
static void
put(int fd, const void *b, size_t n)
{
	const uint8_t *p = b;
	while (n) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		p += w;
		n -= (size_t)w;
	}
}

/* 1 when the peer closes the connection within ms (whatever it sends
 * before is read and dropped), 0 otherwise. */
static int
closed_within(int fd, int ms)
{
	uint64_t end = it_now_ms() + (uint64_t)ms;
	char buf[4096];
	for (;;) {
		int64_t left = (int64_t)(end - it_now_ms());
		if (left <= 0)
			return 0;
		struct pollfd pf = {.fd = fd, .events = POLLIN};
		int r = poll(&pf, 1, (int)left);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return 0;
		ssize_t n = read(fd, buf, sizeof buf);
		if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN))
			return 1;
	}
}

/* A frame laid out by hand (wire.h), so it can lie about anything. */
static size_t
frame(uint8_t *out, size_t cap, uint32_t len, uint16_t type, uint32_t stream,
    int32_t tag, uint32_t src, const char *fmt, const void *payload,
    size_t plen)
{
	size_t flen = fmt ? strlen(fmt) : 0;
	size_t total = WIRE_HDR_SIZE + wire_pad8(flen) + wire_pad8(plen);
	CHECK(total <= cap);
	memset(out, 0, total);
	uint32_t u32[] = {len, 0, stream, (uint32_t)tag, src, 0};
	for (int i = 0; i < 6; i++) {
		if (i == 1)
			continue;
		for (int b = 0; b < 4; b++)
			out[i * 4 + b] = (uint8_t)(u32[i] >> (8 * b));
	}
	out[4] = (uint8_t)type;
	out[5] = (uint8_t)(type >> 8);
	out[6] = (uint8_t)flen;
	out[7] = (uint8_t)(flen >> 8);
	if (flen)
		memcpy(out + WIRE_HDR_SIZE, fmt, flen);
	if (plen)
		memcpy(out + WIRE_HDR_SIZE + wire_pad8(flen), payload, plen);
	return total;
}

/* The honest length of a frame with this format and payload. */
static uint32_t
honest_len(const char *fmt, size_t plen)
{
	return (uint32_t)(WIRE_HDR_SIZE + wire_pad8(strlen(fmt)) + plen);
}

/* ---- cases ------------------------------------------------------------ */

typedef enum mcase {
	M_SHORT_LEN,
	M_HUGE_LEN,
	M_BAD_TYPE,
	M_TRUNCATED,
	M_UNKNOWN_STREAM,
	M_FMT_MISMATCH,
	M_BAD_ARRAY,
	M_BAD_FORMAT,
	M_WRONG_DIRECTION,
	M_REFUSAL_FROM_BE,
	M_COUNT_
} mcase;

static const char *const mcase_name[] = {
	"frame length below the header", "frame length over the limit",
	"unknown frame type", "truncated payload then EOF",
	"data for an unknown stream", "payload shorter than its format",
	"array count beyond the payload", "invalid format string",
	"parent-only control messages from a child",
	"a stream refusal from a back-end",
};

/* Sends case m on an authenticated connection; returns 1 when the node
 * must close the connection for it. */
static int
send_case(const ctx *c, int fd, mcase m)
{
	uint8_t b[512];
	size_t n = 0;
	uint32_t sid = grove_stream_id(c->all_dw);
	int32_t v = 7;

	switch (m) {
	case M_SHORT_LEN:
		n = frame(b, sizeof b, 8, WIRE_T_DATA, sid, WORKER_ECHO,
		    FAKE_RANK, "%d", &v, 4);
		put(fd, b, n);
		return 1;
	case M_HUGE_LEN:
		n = frame(b, sizeof b, 0xfffffff0u, WIRE_T_DATA, sid,
		    WORKER_ECHO, FAKE_RANK, "%d", &v, 4);
		put(fd, b, n);
		return 1;
	case M_BAD_TYPE:
		n = frame(b, sizeof b, honest_len("%d", 4), 999, sid,
		    WORKER_ECHO, FAKE_RANK, "%d", &v, 4);
		put(fd, b, n);
		return 1;
	case M_TRUNCATED: {
		uint8_t pl[64] = {0};
		n = frame(b, sizeof b, honest_len("%auc", 64), WIRE_T_DATA,
		    sid, WORKER_ECHO, FAKE_RANK, "%auc", pl, 64);
		put(fd, b, n - 40);
		shutdown(fd, SHUT_WR);
		return 1;
	}
	case M_UNKNOWN_STREAM:
		n = frame(b, sizeof b, honest_len("%d", 4), WIRE_T_DATA,
		    987654, WORKER_ECHO, FAKE_RANK, "%d", &v, 4);
		put(fd, b, n);
		return 0;
	case M_FMT_MISMATCH:
		/* "%d %ld" needs 16 bytes; 4 are there.  The sum filter on
		 * the way up must decode it and fail. */
		n = frame(b, sizeof b, honest_len("%d %ld", 4), WIRE_T_DATA,
		    sid, WORKER_ECHO, FAKE_RANK, "%d %ld", &v, 4);
		put(fd, b, n);
		return 0;
	case M_BAD_ARRAY: {
		/* "%ad": u64 count of 2^40 elements, 8 bytes of them. */
		uint8_t pl[16] = {0};
		pl[5] = 1;
		n = frame(b, sizeof b, honest_len("%ad", 16), WIRE_T_DATA,
		    sid, WORKER_ECHO, FAKE_RANK, "%ad", pl, 16);
		put(fd, b, n);
		return 0;
	}
	case M_BAD_FORMAT:
		n = frame(b, sizeof b, honest_len("%q %", 4), WIRE_T_DATA,
		    sid, WORKER_ECHO, FAKE_RANK, "%q %", &v, 4);
		put(fd, b, n);
		return 0;
	case M_WRONG_DIRECTION: {
		/* Only a parent may send these: a child must not be able to
		 * shut a node down, delete a stream or load code. */
		static const uint16_t types[] = {WIRE_T_SHUTDOWN,
		    WIRE_T_STREAM_DEL, WIRE_T_AUTH_CHALLENGE,
		    WIRE_T_STREAM_PARAMS};
		for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
			n = frame(b, sizeof b, honest_len("", 0), types[i],
			    grove_stream_id(c->sum), 0, FAKE_RANK, "", NULL,
			    0);
			put(fd, b, n);
		}
		n = frame(b, sizeof b, honest_len("%d", 4), WIRE_T_FILTER_LOAD,
		    0, 0, FAKE_RANK, "%d", &v, 4);
		put(fd, b, n);
		return 0;
	}
	case M_REFUSAL_FROM_BE: {
		/* Only a CP refuses streams, and only for itself: a back-end
		 * that could would cut its siblings out of the stream.  The
		 * payload is PROTO_STREAM_REFUSED: node 1, the sum stream,
		 * code -1, "x". */
		uint8_t pl[20] = {0};
		uint32_t w[4] = {1, grove_stream_id(c->sum), (uint32_t)-1, 1};
		for (int i = 0; i < 4; i++)
			for (int k = 0; k < 4; k++)
				pl[4 * i + k] = (uint8_t)(w[i] >> (8 * k));
		pl[16] = 'x';
		n = frame(b, sizeof b, honest_len("%ud %ud %d %s", 18),
		    WIRE_T_STREAM_REFUSED, 0, 0, FAKE_RANK, "%ud %ud %d %s", pl,
		    18);
		put(fd, b, n);
		return 1;
	}
	default:
		break;
	}
	IT_FAIL("unknown case %d", (int)m);
}

/* ---- hostile clients in a child process ------------------------------ */

/* A client runs in a child process while this one keeps the network
 * progressing: the FE has no thread of its own, so a client of the FE's
 * port needs it to call into Grove meanwhile. */
typedef enum client_kind {
	C_WRONG_SECRET,
	C_GARBAGE,
	C_BIG_PREAUTH,
	C_DATA_PREAUTH,
	C_SILENT,
	C_AUTH_LEAVE,
	C_MALFORMED,
} client_kind;

typedef struct client_res {
	int hs_rc;      /* handshake result, when there was one */
	int must_close; /* the case requires the node to close */
	int closed;     /* the node closed the connection */
	char err[200];
} client_res;

typedef struct client {
	pid_t pid;
	int res_fd;  /* child -> parent: client_res */
	int hold_fd; /* parent -> child: closed when the client may leave */
	client_res res;
} client;

static void
client_body(const ctx *c, client_kind k, mcase m, client_res *r)
{
	uint8_t b[64];
	size_t n;
	int32_t v = 5;
	int fd = dial(c);

	switch (k) {
	case C_WRONG_SECRET: {
		uint8_t bad[AUTH_SECRET_LEN];
		auth_secret_new(bad);
		r->hs_rc = auth_child_handshake(fd, fd, bad, c->fake_node,
		    FAKE_RANK, 10000, r->err, sizeof r->err);
		r->must_close = 1;
		break;
	}
	case C_GARBAGE: {
		static const char junk[] = "GET / HTTP/1.0\r\nHost: x\r\n\r\n"
		    "\x01\x02\x03\x04\xff\xfe\xfd\xfc garbage garbage";
		put(fd, junk, sizeof junk);
		r->must_close = 1;
		break;
	}
	case C_BIG_PREAUTH:
		n = frame(b, sizeof b, 1u << 20, WIRE_T_AUTH_HELLO, 0, 0, 0,
		    NULL, NULL, 0);
		put(fd, b, n);
		r->must_close = 1;
		break;
	case C_DATA_PREAUTH:
		n = frame(b, sizeof b, honest_len("%d", 4), WIRE_T_DATA,
		    grove_stream_id(c->all_dw), WORKER_ECHO, FAKE_RANK, "%d",
		    &v, 4);
		put(fd, b, n);
		r->must_close = 1;
		break;
	case C_SILENT:
		break;
	case C_AUTH_LEAVE:
	case C_MALFORMED:
		r->hs_rc = auth_child_handshake(fd, fd, c->secret,
		    c->fake_node, FAKE_RANK, 10000, r->err, sizeof r->err);
		if (r->hs_rc != 0 || k == C_AUTH_LEAVE)
			break;
		r->must_close = send_case(c, fd, m);
		break;
	}
	if (k != C_SILENT && k != C_AUTH_LEAVE && r->hs_rc <= 0)
		r->closed = closed_within(fd, r->must_close ? 15000 : 300);
	/* fd stays open until the child exits: the parent checks the
	 * network while the connection is still there. */
	r->err[sizeof r->err - 1] = '\0';
}

static void
client_start(ctx *c, client *cl, client_kind k, mcase m)
{
	int res[2], hold[2];
	CHECK(pipe(res) == 0 && pipe(hold) == 0);
	memset(cl, 0, sizeof *cl);
	cl->pid = fork();
	CHECK(cl->pid >= 0);
	if (cl->pid == 0) {
		client_res r;
		char x;
		close(res[0]);
		close(hold[1]);
		memset(&r, 0, sizeof r);
		client_body(c, k, m, &r);
		if (write(res[1], &r, sizeof r) != (ssize_t)sizeof r)
			_exit(1);
		while (read(hold[0], &x, 1) > 0)
			;
		_exit(0);
	}
	close(res[1]);
	close(hold[0]);
	cl->res_fd = res[0];
	cl->hold_fd = hold[1];

	/* Drive the network until the client reports. */
	int fd = grove_net_fd(c->net);
	size_t got = 0;
	uint64_t end = it_now_ms() + 60000;
	while (got < sizeof cl->res) {
		if (it_now_ms() >= end)
			IT_FAIL("hostile client did not finish within 60 s");
		struct pollfd pf[2] = {{.fd = cl->res_fd, .events = POLLIN},
		    {.fd = fd, .events = POLLIN}};
		int r = poll(pf, fd >= 0 ? 2 : 1, 50);
		CHECK(r >= 0 || errno == EINTR);
		CHECK(grove_net_progress(c->net) >= 0);
		if (r > 0 && pf[0].revents) {
			ssize_t n = read(cl->res_fd, (char *)&cl->res + got,
			    sizeof cl->res - got);
			if (n <= 0)
				IT_FAIL("hostile client died without a result");
			got += (size_t)n;
		}
	}
}

/* Let the client close its connection and exit. */
static void
client_end(client *cl)
{
	int st;
	close(cl->hold_fd);
	close(cl->res_fd);
	CHECK(waitpid(cl->pid, &st, 0) == cl->pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static void
handshake_abuse(ctx *c)
{
	client cl;

	client_start(c, &cl, C_WRONG_SECRET, 0);
	it_step("wrong secret: %s (%s)", grove_err_name(cl.res.hs_rc),
	    cl.res.err);
	if (cl.res.hs_rc != GROVE_EAUTH && cl.res.hs_rc != GROVE_ECLOSED)
		IT_FAIL("handshake with a wrong secret returned %s, expected "
		    "GROVE_EAUTH or GROVE_ECLOSED",
		    grove_err_name(cl.res.hs_rc));
	if (!cl.res.closed)
		IT_FAIL("connection with a wrong secret left open");
	net_check(c, "a wrong secret");
	client_end(&cl);

	static const struct {
		client_kind k;
		const char *what;
	} pre[] = {
		{C_GARBAGE, "garbage before the handshake"},
		{C_BIG_PREAUTH, "a 1 MiB frame before the handshake"},
		{C_DATA_PREAUTH, "data before the handshake"},
	};
	for (size_t i = 0; i < sizeof pre / sizeof pre[0]; i++) {
		client_start(c, &cl, pre[i].k, 0);
		it_step("%s: connection %s", pre[i].what,
		    cl.res.closed ? "closed" : "left open");
		if (!cl.res.closed)
			IT_FAIL("%s: connection left open", pre[i].what);
		net_check(c, pre[i].what);
		client_end(&cl);
	}

	/* A silent connection does not stall anyone meanwhile. */
	client_start(c, &cl, C_SILENT, 0);
	net_check(c, "a silent connection");
	client_end(&cl);

	/* A correct client that leaves again. */
	client_start(c, &cl, C_AUTH_LEAVE, 0);
	if (cl.res.hs_rc != 0)
		IT_FAIL("handshake with the right secret: %s (%s)",
		    grove_err_name(cl.res.hs_rc), cl.res.err);
	net_check(c, "an authenticated client");
	client_end(&cl);
	net_check(c, "an authenticated client left");
}

static void
malformed(const char *topo, mcase m)
{
	ctx c;
	client cl;
	net_up(&c, topo);
	client_start(&c, &cl, C_MALFORMED, m);
	if (cl.res.hs_rc != 0)
		IT_FAIL("handshake with the right secret: %s (%s)",
		    grove_err_name(cl.res.hs_rc), cl.res.err);
	it_step("%s: %s: connection %s", topo, mcase_name[m],
	    cl.res.closed ? "closed" : "kept (frame dropped)");
	if (cl.res.must_close && !cl.res.closed)
		IT_FAIL("%s: node kept the connection open", mcase_name[m]);
	net_check(&c, mcase_name[m]);

	/* The dont_wait stream over every rank, the fake one included,
	 * still works: the real ranks answer one by one. */
	CHECK_OK_NET(c.net, grove_stream_send(c.all_dw, WORKER_RANK, ""));
	int seen = 0;
	for (int k = 0; k < NREAL; k++) {
		int32_t r = it_recv_int(c.net, c.all_dw, WORKER_RANK);
		CHECK(r >= 0 && r < NREAL);
		CHECK(!(seen & (1 << r)));
		seen |= 1 << r;
	}
	client_end(&cl);
	net_check(&c, "closing the client");
	/* What the FE was told (for the log: lost rank, filter errors). */
	grove_event ev;
	while (grove_net_next_event(c.net, &ev, 0) == 0)
		if (ev.type != GROVE_EV_BE_ATTACHED)
			it_step("  event %d ranks [%u, %u) node %u: %s",
			    (int)ev.type, ev.rank_lo, ev.rank_hi, ev.node,
			    ev.text);
	net_down(&c);
}

int
main(void)
{
	it_init("it_auth", 200);
	static const char *const topos[] = {"kary:2", "flat"};

	for (size_t t = 0; t < 2; t++) {
		ctx c;
		it_step("--- %s: handshake abuse", topos[t]);
		net_up(&c, topos[t]);
		net_check(&c, "start");
		handshake_abuse(&c);
		net_down(&c);
	}
	for (mcase m = 0; m < M_COUNT_; m++)
		malformed("kary:2", m);
	malformed("flat", M_FMT_MISMATCH);
	malformed("flat", M_BAD_TYPE);
	malformed("flat", M_SHORT_LEN);
	return it_done();
}

/* The TCP transport's connections: connecting lazily, accepting, and the
 * handshake (tcp_chan.h).
 *
 *   connector -> acceptor   HELLO  magic, version, from, to, job id, nonce
 *   acceptor -> connector   CHAL   verdict, its nonce, MAC('A', ...)
 *   connector -> acceptor   PROOF  MAC('C', ...), then records
 * MAC(role) = HMAC-SHA256(job key, role | from | to | job id | connector's
 * nonce | acceptor's nonce); all zero without a key.  The acceptor sends
 * records only after a good PROOF; the connector after a good CHAL.
 *
 * The tie: ranks a < b that connect to each other at once keep a's
 * connection.  b, finding a's HELLO while its own connection to a is not
 * up, drops its own and takes a's; a, finding b's HELLO while its own is
 * pending, answers TIE_LOST, and b then waits for a's connection (which
 * is under way).  Records queued meanwhile wait in the send queue, which
 * belongs to the peer, not to a socket: nothing is lost or reordered.
 * A connection that is turned away or fails its proof before it is up
 * is closed quietly on the accepting side (it may be a stray client), and
 * ends the rank on the connecting side (its peer is unreachable). */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "mpi/tcp_int.h"
#include "mpi/tcp_wire.h"

void
tcp_sock_opts(int fd)
{
	int one = 1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	/* A host that vanishes without a close (power, cable) is noticed
	 * by keepalive within about 20 s of silence, and unacknowledged
	 * data gives up after 30 s. */
	setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one);
	int idle = 10, intvl = 3, cnt = 3;
	unsigned user_to = 30000;
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle);
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof intvl);
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof cnt);
	setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &user_to, sizeof user_to);
}

static void
mac(unsigned char out[32], char role, int from, int to,
    const unsigned char nc[16], const unsigned char na[16])
{
	if (!mpi_tcp.keyed) {
		memset(out, 0, 32);
		return;
	}
	unsigned char msg[1 + 8 + 40 + 32];
	msg[0] = (unsigned char)role;
	memcpy(msg + 1, &from, 4);
	memcpy(msg + 5, &to, 4);
	memset(msg + 9, 0, 40);
	memcpy(msg + 9, mpi_tcp.jobid, strnlen(mpi_tcp.jobid, 39));
	memcpy(msg + 49, nc, 16);
	memcpy(msg + 65, na, 16);
	crypto_auth_hmacsha256(out, msg, sizeof msg, mpi_tcp.key);
}

/* Handshake messages are small and go first on a fresh socket, so the
 * kernel takes them whole; anything else is a broken connection. */
static bool
send_all(int fd, const void *m, size_t n)
{
	ssize_t w;
	do
		w = send(fd, m, n, MSG_NOSIGNAL | MSG_DONTWAIT);
	while (w < 0 && errno == EINTR);
	return w == (ssize_t)n;
}

void
tcp_connect_start(int w)
{
	struct tcp_peer *p = &mpi_tcp.peers[w];
	if (!p->have_sa)
		tcp_fatal(w, "no address known for it (no card)");
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		tcp_fatal(w, "cannot make a socket: %s", strerror(errno));
	tcp_sock_opts(fd);
	p->fd = fd;
	p->st = TP_CONNECTING;
	if (connect(fd, (struct sockaddr *)&p->sa, sizeof p->sa) == 0)
		tcp_connect_done(w);
	else if (errno != EINPROGRESS)
		tcp_fatal(w, "cannot connect: %s", strerror(errno));
}

void
tcp_connect_done(int w)
{
	struct tcp_peer *p = &mpi_tcp.peers[w];
	int e = 0;
	socklen_t el = sizeof e;
	if (getsockopt(p->fd, SOL_SOCKET, SO_ERROR, &e, &el) != 0)
		e = errno;
	if (e != 0)
		tcp_fatal(w, "cannot connect: %s", strerror(e));
	struct tcp_hello h = {.magic = TCP_MAGIC, .version = TCP_VERSION,
	                      .from = mpi_tcp.me, .to = w};
	memcpy(h.jobid, mpi_tcp.jobid, sizeof h.jobid);
	randombytes_buf(p->nonce_mine, sizeof p->nonce_mine);
	memcpy(h.nonce, p->nonce_mine, sizeof h.nonce);
	if (!send_all(p->fd, &h, sizeof h))
		tcp_fatal(w, "cannot send the handshake: %s", strerror(errno));
	p->st = TP_HELLO_SENT;
}

int
tcp_accept_all(void)
{
	int n = 0;
	for (;;) {
		int fd = accept4(mpi_tcp.lfd, NULL, NULL,
		                 SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			return n; /* EAGAIN, or a client that went away */
		if (mpi_tcp.npend == mpi_tcp.cappend) {
			size_t cap = mpi_tcp.cappend ? mpi_tcp.cappend * 2 : 8;
			struct tcp_pending *np =
				realloc(mpi_tcp.pend, cap * sizeof *np);
			if (!np) {
				close(fd);
				return n;
			}
			mpi_tcp.pend = np;
			mpi_tcp.cappend = cap;
		}
		tcp_sock_opts(fd);
		mpi_tcp.pend[mpi_tcp.npend++] = (struct tcp_pending){.fd = fd};
		n++;
	}
}

static void
pending_remove(size_t i, bool close_fd)
{
	if (close_fd)
		close(mpi_tcp.pend[i].fd);
	mpi_tcp.pend[i] = mpi_tcp.pend[--mpi_tcp.npend];
}

void
tcp_pending_close_all(void)
{
	while (mpi_tcp.npend)
		pending_remove(0, true);
	free(mpi_tcp.pend);
	mpi_tcp.pend = NULL;
	mpi_tcp.cappend = 0;
}

/* Takes peer `from`'s connection fd (its HELLO h) as that peer's. */
static void
take_inbound(int fd, const struct tcp_hello *h)
{
	int from = h->from;
	struct tcp_peer *p = &mpi_tcp.peers[from];
	if (p->fd >= 0) {
		/* Our own attempt loses the tie (from < me). */
		close(p->fd);
		p->fd = -1;
	}
	p->rx.off = p->rx.len = 0;
	memcpy(p->nonce_theirs, h->nonce, sizeof p->nonce_theirs);
	randombytes_buf(p->nonce_mine, sizeof p->nonce_mine);
	struct tcp_chal c = {.magic = TCP_MAGIC, .verdict = TCP_OK};
	memcpy(c.nonce, p->nonce_mine, sizeof c.nonce);
	mac(c.mac, 'A', from, mpi_tcp.me, p->nonce_theirs, p->nonce_mine);
	if (!send_all(fd, &c, sizeof c)) {
		close(fd);
		p->st = TP_NONE;
		if (p->tx.len > p->tx.off)
			tcp_connect_start(from);
		return;
	}
	p->fd = fd;
	p->st = TP_INBOUND_HS;
}

bool
tcp_pending_read(size_t i)
{
	struct tcp_pending *q = &mpi_tcp.pend[i];
	while (q->got < sizeof(struct tcp_hello)) {
		ssize_t r = recv(q->fd, q->buf + q->got,
		                 sizeof(struct tcp_hello) - q->got, MSG_DONTWAIT);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return false;
		if (r <= 0) {
			/* Gone before its HELLO: a connection that lost a tie
			 * and was dropped, or a stray client. */
			pending_remove(i, true);
			return true;
		}
		q->got += (size_t)r;
	}
	struct tcp_hello h;
	memcpy(&h, q->buf, sizeof h);
	int fd = q->fd;
	pending_remove(i, false);
	if (mpi_tcp_hello_check(&h, mpi_tcp.me, mpi_tcp.n, mpi_tcp.jobid)) {
		if (getenv("GROVE_MPI_VERBOSE"))
			fprintf(stderr, "grove-mpi: rank %d: turned away a "
			        "connection that is not of this job's ranks\n",
			        mpi_tcp.me);
		close(fd);
		return true;
	}
	struct tcp_peer *p = &mpi_tcp.peers[h.from];
	switch (p->st) {
	case TP_NONE:
	case TP_WAIT_INBOUND:
		take_inbound(fd, &h);
		break;
	case TP_CONNECTING:
	case TP_HELLO_SENT:
		if (h.from < mpi_tcp.me) {
			take_inbound(fd, &h);
		} else {
			struct tcp_chal c = {.magic = TCP_MAGIC,
			                     .verdict = TCP_TIE_LOST};
			send_all(fd, &c, sizeof c);
			close(fd);
		}
		break;
	default:
		/* A second connection from a peer that has one: refused. */
		close(fd);
		break;
	}
	return true;
}

/* Removes n bytes from the front of b. */
static void
consume(struct tcp_buf *b, size_t n)
{
	b->off += n;
	if (b->off == b->len)
		b->off = b->len = 0;
}

int
tcp_hs_step(int w)
{
	struct tcp_peer *p = &mpi_tcp.peers[w];
	struct tcp_buf *b = &p->rx;
	if (p->st == TP_HELLO_SENT) {
		if (b->len - b->off < sizeof(struct tcp_chal))
			return 0;
		struct tcp_chal c;
		memcpy(&c, b->p + b->off, sizeof c);
		consume(b, sizeof c);
		if (c.magic != TCP_MAGIC)
			tcp_fatal(w, "its handshake is not Grove MPI's (another "
			          "program on its port, or another byte order)");
		if (c.verdict == TCP_TIE_LOST) {
			close(p->fd);
			p->fd = -1;
			p->rx.off = p->rx.len = 0;
			p->st = TP_WAIT_INBOUND;
			return 1;
		}
		unsigned char want[32];
		memcpy(p->nonce_theirs, c.nonce, sizeof p->nonce_theirs);
		mac(want, 'A', mpi_tcp.me, w, p->nonce_mine, p->nonce_theirs);
		if (c.verdict != TCP_OK || sodium_memcmp(want, c.mac, 32) != 0)
			tcp_fatal(w, "its handshake does not prove this job's key");
		struct tcp_proof pr = {.magic = TCP_MAGIC};
		mac(pr.mac, 'C', mpi_tcp.me, w, p->nonce_mine, p->nonce_theirs);
		if (!send_all(p->fd, &pr, sizeof pr))
			tcp_fatal(w, "cannot send the handshake: %s", strerror(errno));
		p->st = TP_UP;
		tcp_flush(w);
		return 1;
	}
	if (p->st == TP_INBOUND_HS) {
		if (b->len - b->off < sizeof(struct tcp_proof))
			return 0;
		struct tcp_proof pr;
		memcpy(&pr, b->p + b->off, sizeof pr);
		consume(b, sizeof pr);
		unsigned char want[32];
		mac(want, 'C', w, mpi_tcp.me, p->nonce_theirs, p->nonce_mine);
		if (pr.magic != TCP_MAGIC || sodium_memcmp(want, pr.mac, 32) != 0) {
			fprintf(stderr, "grove-mpi: rank %d: a connection claiming to "
			        "be rank %d did not prove this job's key; closed\n",
			        mpi_tcp.me, w);
			close(p->fd);
			p->fd = -1;
			p->rx.off = p->rx.len = 0;
			p->st = TP_NONE;
			if (p->tx.len > p->tx.off)
				tcp_connect_start(w);
			return 1;
		}
		p->st = TP_UP;
		tcp_flush(w);
		return 1;
	}
	return 0;
}

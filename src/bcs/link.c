#define _GNU_SOURCE /* accept4 */
/* Direct links between nodes: TCP, non-blocking, opened when a node first
 * sends to another, each frame "u32 blob length, u32 payload length,
 * blob, payload" (wire.h).
 *
 * A node's transfers to a peer go on the link it opened (the peer's
 * acknowledgements come back on it); the links it accepts carry other
 * nodes' transfers to it.  So no two nodes ever race to open one link.
 *
 * Handshake (link_auth.c): the connecting node sends LINK_HELLO (machine,
 * its id, the peer's, a nonce); the acceptor answers LINK_CHALLENGE (its
 * nonce and its proof); the connector checks it and sends LINK_PROOF.
 * Data queued before then waits in `held`; the acceptor takes nothing but
 * the handshake until the proof checks out, and closes the link on any
 * mistake (named in the log).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "bcs/bcs_impl.h"
#include "core/log.h"

/* The handshake's frames are small: a peer that has not proved the key
 * cannot make a node allocate more. */
#define LINK_HANDSHAKE_MAX 256

static bcs_link *
link_new(int fd, int outgoing, uint32_t peer)
{
	bcs_link *l = calloc(1, sizeof *l);
	if (!l)
		return NULL;
	l->fd = fd;
	l->outgoing = outgoing;
	l->peer = peer;
	bcs_random(l->nonce_mine, BCS_NONCE_LEN);
	return l;
}

static void
set_nodelay(int fd)
{
	int one = 1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

void
bcs_link_close(grove_bcs *b, bcs_link *l)
{
	if (l->state == BCS_LINK_DEAD)
		return;
	l->state = BCS_LINK_DEAD;
	if (l->fd >= 0) {
		bcs_node_epoll_del(b, l->fd);
		close(l->fd);
		l->fd = -1;
	}
	while (l->out_head) {
		bcs_outbuf *o = l->out_head;
		l->out_head = o->next;
		free(o);
	}
	while (l->held) {
		bcs_outbuf *o = l->held;
		l->held = o->next;
		free(o);
	}
	l->out_tail = NULL;
	free(l->rbuf);
	l->rbuf = NULL;
	if (l->outgoing) {
		if (l->peer < b->nodes && b->peers[l->peer].out == l)
			b->peers[l->peer].out = NULL;
	} else {
		for (bcs_link **pp = &b->accepted; *pp; pp = &(*pp)->next)
			if (*pp == l) {
				*pp = l->next;
				break;
			}
	}
	l->next = b->dead;
	b->dead = l;
}

/* Closes l for reason why; an outgoing link takes the transfers that
 * wait on it down with it. */
static void
link_fail(grove_bcs *b, bcs_link *l, const char *why)
{
	if (l->state == BCS_LINK_DEAD)
		return;
	char msg[300];
	snprintf(msg, sizeof msg, "node %u: the direct link %s node %u "
	    "failed: %s", b->self, l->outgoing ? "to" : "from", l->peer, why);
	log_warn("bcs: %s", msg);
	int outgoing = l->outgoing;
	uint32_t peer = l->peer;
	bcs_link_close(b, l);
	if (outgoing && peer < b->nodes)
		bcs_xfers_node_lost(b, peer, GROVE_ELOST, msg);
}

void
bcs_links_reap(grove_bcs *b)
{
	while (b->dead) {
		bcs_link *l = b->dead;
		b->dead = l->next;
		free(l);
	}
}

void
bcs_links_free(grove_bcs *b)
{
	for (uint32_t i = 0; b->peers && i < b->nodes; i++)
		if (b->peers[i].out)
			bcs_link_close(b, b->peers[i].out);
	while (b->accepted)
		bcs_link_close(b, b->accepted);
	bcs_links_reap(b);
}

/* Writes what the socket takes; asks for EPOLLOUT for the rest. */
static void
link_flush(grove_bcs *b, bcs_link *l)
{
	if (l->state == BCS_LINK_CONNECTING || l->state == BCS_LINK_DEAD)
		return;
	while (l->out_head) {
		struct iovec iov[16];
		int n = 0;
		for (bcs_outbuf *o = l->out_head; o && n < 16; o = o->next) {
			iov[n].iov_base = o->data + o->off;
			iov[n].iov_len = o->len - o->off;
			n++;
		}
		struct msghdr mh = {.msg_iov = iov, .msg_iovlen = (size_t)n};
		ssize_t w = sendmsg(l->fd, &mh, MSG_NOSIGNAL);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				break;
			link_fail(b, l, strerror(errno));
			return;
		}
		size_t left = (size_t)w;
		l->out_bytes -= left;
		while (left && l->out_head) {
			bcs_outbuf *o = l->out_head;
			size_t k = o->len - o->off;
			if (left < k) {
				o->off += left;
				left = 0;
				break;
			}
			left -= k;
			l->out_head = o->next;
			free(o);
		}
		if (!l->out_head)
			l->out_tail = NULL;
	}
	int want = l->out_head != NULL;
	if (want != l->want_write &&
	    bcs_node_epoll_mod(b, l->fd, l, want) == 0)
		l->want_write = want;
}

static int
frame(grove_bcs *b, const bcs_msg *m, const bcs_wire_tables *t,
    const void *payload, size_t plen, bcs_outbuf **out)
{
	size_t bl = bcs_wire_encode(m, t, NULL, 0);
	if (bl == 0 || bl > BCS_BLOB_MAX || plen > BCS_XFER_MAX) {
		bcs_set_error(b, "cannot encode a BCS %s message for a direct "
		    "link", bcs_wire_type_name(m->type));
		return GROVE_EINVAL;
	}
	bcs_outbuf *o = malloc(sizeof *o + BCS_FRAME_HDR + bl + plen);
	if (!o) {
		bcs_set_error(b, "out of memory for a %zu-byte frame",
		    BCS_FRAME_HDR + bl + plen);
		return GROVE_ENOMEM;
	}
	o->next = NULL;
	o->off = 0;
	o->len = BCS_FRAME_HDR + bl + plen;
	bcs_frame_hdr_put(o->data, (uint32_t)bl, (uint32_t)plen);
	bcs_wire_encode(m, t, o->data + BCS_FRAME_HDR, bl);
	if (plen)
		memcpy(o->data + BCS_FRAME_HDR + bl, payload, plen);
	*out = o;
	return 0;
}

static void
append(bcs_link *l, bcs_outbuf *o)
{
	if (l->out_tail)
		l->out_tail->next = o;
	else
		l->out_head = o;
	l->out_tail = o;
	l->out_bytes += o->len;
}

int
bcs_link_queue(grove_bcs *b, bcs_link *l, const bcs_msg *m,
    const bcs_wire_tables *t, const void *payload, size_t plen)
{
	bcs_outbuf *o = NULL;
	int rc = frame(b, m, t, payload, plen, &o);
	if (rc != 0)
		return rc;
	int handshake = m->type >= BCS_T_LINK_HELLO;
	if (!handshake && l->state != BCS_LINK_UP) {
		/* Behind the handshake: out once the proof is sent. */
		o->next = l->held;
		l->held = o;
		return 0;
	}
	append(l, o);
	link_flush(b, l);
	return 0;
}

/* The frames held for the handshake go out, in the order queued. */
static void
release_held(grove_bcs *b, bcs_link *l)
{
	bcs_outbuf *rev = NULL;
	while (l->held) {
		bcs_outbuf *o = l->held;
		l->held = o->next;
		o->next = rev;
		rev = o;
	}
	while (rev) {
		bcs_outbuf *o = rev;
		rev = o->next;
		o->next = NULL;
		append(l, o);
	}
	link_flush(b, l);
}

static int
link_open(grove_bcs *b, uint32_t node, bcs_link **out)
{
	bcs_peer *p = &b->peers[node];
	char why[300];
	struct addrinfo hints, *ai = NULL;
	memset(&hints, 0, sizeof hints);
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
	char port[8];
	snprintf(port, sizeof port, "%u", p->port);
	int g = getaddrinfo(p->addr, port, &hints, &ai);
	if (g != 0 || !ai) {
		bcs_set_error(b, "node %u: node %u's address '%s' does not "
		    "parse: %s", b->self, node, p->addr, gai_strerror(g));
		return GROVE_EPROTO;
	}
	int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK |
	    SOCK_CLOEXEC, 0);
	int state = BCS_LINK_HELLO;
	if (fd < 0 || (connect(fd, ai->ai_addr, ai->ai_addrlen) != 0 &&
	    errno != EINPROGRESS)) {
		snprintf(why, sizeof why, "%s", strerror(errno));
		freeaddrinfo(ai);
		if (fd >= 0)
			close(fd);
		bcs_set_error(b, "node %u: cannot connect to node %u at "
		    "%s:%u: %s", b->self, node, p->addr, p->port, why);
		return GROVE_ESYS;
	}
	if (errno == EINPROGRESS)
		state = BCS_LINK_CONNECTING;
	freeaddrinfo(ai);
	set_nodelay(fd);
	bcs_link *l = link_new(fd, 1, node);
	if (!l || bcs_node_epoll_add(b, fd, l, 1) != 0) {
		free(l);
		close(fd);
		bcs_set_error(b, "node %u: out of memory or descriptors for a "
		    "link to node %u", b->self, node);
		return GROVE_ENOMEM;
	}
	l->want_write = 1;
	l->state = state;
	p->out = l;
	bcs_msg m;
	memset(&m, 0, sizeof m);
	m.type = BCS_T_LINK_HELLO;
	m.u.lhello.machine = b->machine;
	m.u.lhello.from = b->self;
	m.u.lhello.to = node;
	memcpy(m.u.lhello.nonce, l->nonce_mine, BCS_NONCE_LEN);
	int rc = bcs_link_queue(b, l, &m, NULL, NULL, 0);
	if (rc != 0) {
		bcs_link_close(b, l);
		return rc;
	}
	*out = l;
	return 0;
}

int
bcs_link_send(grove_bcs *b, uint32_t node, const bcs_msg *m,
    const bcs_wire_tables *t, const void *payload, size_t plen)
{
	bcs_link *l = b->peers[node].out;
	if (!l) {
		int rc = link_open(b, node, &l);
		if (rc != 0)
			return rc;
	}
	return bcs_link_queue(b, l, m, t, payload, plen);
}

int
bcs_link_reply(grove_bcs *b, bcs_link *l, const bcs_msg *m)
{
	if (l->state == BCS_LINK_DEAD)
		return GROVE_ECLOSED;
	return bcs_link_queue(b, l, m, NULL, NULL, 0);
}

void
bcs_link_accept(grove_bcs *b)
{
	for (int i = 0; i < 64; i++) {
		int fd = accept4(b->lfd, NULL, NULL, SOCK_NONBLOCK |
		    SOCK_CLOEXEC);
		if (fd < 0)
			return;
		set_nodelay(fd);
		bcs_link *l = link_new(fd, 0, UINT32_MAX);
		if (!l || bcs_node_epoll_add(b, fd, l, 0) != 0) {
			free(l);
			close(fd);
			continue;
		}
		l->state = BCS_LINK_HELLO;
		l->next = b->accepted;
		b->accepted = l;
	}
}

/* ---- the handshake ------------------------------------------------------ */

static void
on_hello(grove_bcs *b, bcs_link *l, const bcs_msg *m)
{
	char why[200];
	uint32_t from = m->u.lhello.from;
	if (m->u.lhello.machine != b->machine)
		snprintf(why, sizeof why, "a hello for machine %016llx, this "
		    "is %016llx", (unsigned long long)m->u.lhello.machine,
		    (unsigned long long)b->machine);
	else if (m->u.lhello.to != b->self)
		snprintf(why, sizeof why, "a hello for node %u",
		    m->u.lhello.to);
	else if (from >= b->nodes || from == b->self)
		snprintf(why, sizeof why, "a hello from node %u, not another "
		    "node of %u", from, b->nodes);
	else if (b->peers[from].lost)
		snprintf(why, sizeof why, "a hello from node %u, which is "
		    "lost", from);
	else
		why[0] = '\0';
	if (why[0]) {
		link_fail(b, l, why);
		return;
	}
	l->peer = from;
	memcpy(l->nonce_peer, m->u.lhello.nonce, BCS_NONCE_LEN);
	bcs_msg c;
	memset(&c, 0, sizeof c);
	c.type = BCS_T_LINK_CHALLENGE;
	memcpy(c.u.lchal.nonce, l->nonce_mine, BCS_NONCE_LEN);
	bcs_link_mac(b, 1, from, b->self, l->nonce_peer, l->nonce_mine,
	    c.u.lchal.mac);
	l->state = BCS_LINK_PROOF;
	bcs_link_queue(b, l, &c, NULL, NULL, 0);
}

static void
on_challenge(grove_bcs *b, bcs_link *l, const bcs_msg *m)
{
	uint8_t want[BCS_MAC_LEN];
	memcpy(l->nonce_peer, m->u.lchal.nonce, BCS_NONCE_LEN);
	bcs_link_mac(b, 1, b->self, l->peer, l->nonce_mine, l->nonce_peer,
	    want);
	if (!bcs_link_mac_ok(want, m->u.lchal.mac)) {
		link_fail(b, l, "the peer's proof of the machine key is wrong");
		return;
	}
	bcs_msg pr;
	memset(&pr, 0, sizeof pr);
	pr.type = BCS_T_LINK_PROOF;
	bcs_link_mac(b, 0, b->self, l->peer, l->nonce_mine, l->nonce_peer,
	    pr.u.lproof.mac);
	bcs_link_queue(b, l, &pr, NULL, NULL, 0);
	l->state = BCS_LINK_UP;
	release_held(b, l);
}

static void
on_proof(grove_bcs *b, bcs_link *l, const bcs_msg *m)
{
	uint8_t want[BCS_MAC_LEN];
	bcs_link_mac(b, 0, l->peer, b->self, l->nonce_peer, l->nonce_mine,
	    want);
	if (!bcs_link_mac_ok(want, m->u.lproof.mac)) {
		link_fail(b, l, "the peer's proof of the machine key is wrong");
		return;
	}
	l->state = BCS_LINK_UP;
}

/* One whole frame arrived on l. */
static void
on_frame(grove_bcs *b, bcs_link *l, const uint8_t *blob, size_t bl,
    const uint8_t *pay, size_t pl)
{
	bcs_msg m;
	char why[300];
	if (bcs_wire_decode(blob, bl, pay, pl, &m, why, sizeof why) != 0) {
		link_fail(b, l, why);
		return;
	}
	int want = 0;
	switch (l->state) {
	case BCS_LINK_HELLO:
		want = l->outgoing ? BCS_T_LINK_CHALLENGE : BCS_T_LINK_HELLO;
		break;
	case BCS_LINK_PROOF:
		want = BCS_T_LINK_PROOF;
		break;
	case BCS_LINK_UP:
		want = l->outgoing ? BCS_T_XFER_ACK : BCS_T_XFER;
		break;
	default:
		return;
	}
	if (m.type != want) {
		snprintf(why, sizeof why, "a %s message where a %s belongs",
		    bcs_wire_type_name(m.type), bcs_wire_type_name(want));
		link_fail(b, l, why);
		return;
	}
	switch (m.type) {
	case BCS_T_LINK_HELLO:
		on_hello(b, l, &m);
		break;
	case BCS_T_LINK_CHALLENGE:
		on_challenge(b, l, &m);
		break;
	case BCS_T_LINK_PROOF:
		on_proof(b, l, &m);
		break;
	default:
		if (m.type == BCS_T_XFER && m.u.xfer.src != l->peer) {
			snprintf(why, sizeof why, "a transfer that claims to be "
			    "from node %u", m.u.xfer.src);
			link_fail(b, l, why);
			return;
		}
		if (m.type == BCS_T_XFER_ACK && m.u.ack.from != l->peer) {
			snprintf(why, sizeof why, "an acknowledgement that "
			    "claims to be from node %u", m.u.ack.from);
			link_fail(b, l, why);
			return;
		}
		bcs_dispatch(b, l->peer, &m, l);
	}
}

/* Reads what the socket has: frame headers, then blob and payload. */
static void
link_read(grove_bcs *b, bcs_link *l)
{
	for (int rounds = 0; rounds < 64 && l->state != BCS_LINK_DEAD;
	    rounds++) {
		ssize_t r;
		if (l->rhdr_got < BCS_FRAME_HDR) {
			r = recv(l->fd, l->rhdr + l->rhdr_got,
			    BCS_FRAME_HDR - l->rhdr_got, 0);
		} else {
			r = recv(l->fd, l->rbuf + l->rgot, l->rneed - l->rgot,
			    0);
		}
		if (r == 0) {
			link_fail(b, l, "closed by the peer");
			return;
		}
		if (r < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				link_fail(b, l, strerror(errno));
			return;
		}
		if (l->rhdr_got < BCS_FRAME_HDR) {
			l->rhdr_got += (size_t)r;
			if (l->rhdr_got < BCS_FRAME_HDR)
				continue;
			uint32_t bl, pl;
			bcs_frame_hdr_get(l->rhdr, &bl, &pl);
			size_t blob_max = l->state == BCS_LINK_UP ?
			    BCS_BLOB_MAX : LINK_HANDSHAKE_MAX;
			size_t pay_max = l->state == BCS_LINK_UP ?
			    BCS_XFER_MAX : 0;
			if (bl < 4 || bl > blob_max || pl > pay_max) {
				char why[160];
				snprintf(why, sizeof why, "a frame of %u + %u "
				    "bytes (at most %zu + %zu here)", bl, pl,
				    blob_max, pay_max);
				link_fail(b, l, why);
				return;
			}
			l->rblob = bl;
			l->rneed = (size_t)bl + pl;
			l->rgot = 0;
			l->rbuf = malloc(l->rneed);
			if (!l->rbuf) {
				link_fail(b, l, "out of memory for a frame");
				return;
			}
			continue;
		}
		l->rgot += (size_t)r;
		if (l->rgot < l->rneed)
			continue;
		uint8_t *buf = l->rbuf;
		size_t need = l->rneed;
		l->rbuf = NULL;
		l->rhdr_got = 0;
		on_frame(b, l, buf, l->rblob, buf + l->rblob, need - l->rblob);
		free(buf);
	}
}

void
bcs_link_io(grove_bcs *b, bcs_link *l, uint32_t events)
{
	if (l->state == BCS_LINK_DEAD)
		return;
	if (l->state == BCS_LINK_CONNECTING && (events & (EPOLLOUT |
	    EPOLLERR | EPOLLHUP))) {
		int err = 0;
		socklen_t el = sizeof err;
		getsockopt(l->fd, SOL_SOCKET, SO_ERROR, &err, &el);
		if (err) {
			link_fail(b, l, strerror(err));
			return;
		}
		l->state = BCS_LINK_HELLO;
	}
	if (events & EPOLLOUT)
		link_flush(b, l);
	if (l->state != BCS_LINK_DEAD && l->state != BCS_LINK_CONNECTING &&
	    (events & (EPOLLIN | EPOLLERR | EPOLLHUP)))
		link_read(b, l);
	if (l->state != BCS_LINK_DEAD && l->out_head)
		link_flush(b, l);
}

/* A fake child for tests of what a parent accepts (fake_child.h). */
#include "fake_child.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "codec/wire.h"
#include "net/auth.h"
#include "tbon/proto.h"

/* The bootstrap, read into f: 0 or the exit status. */
static int
fake_boot(fake_child *f, uint8_t secret[AUTH_SECRET_LEN])
{
	char err[512] = "";
	f->topo = NULL;
	signal(SIGPIPE, SIG_IGN);
	boot_init(&f->b);
	if (boot_read_fd(0, &f->b, err, sizeof err) != 0 ||
	    auth_secret_from_hex(f->b.secret_hex, secret) != 0) {
		fprintf(stderr, "fake peer: bootstrap: %s\n", err);
		return 2;
	}
	return 0;
}

int
fake_join_as(fake_child *f, uint32_t aux, char *why, size_t cap)
{
	char err[512];
	uint8_t secret[AUTH_SECRET_LEN], nc[AUTH_NONCE_LEN], pc[AUTH_PROOF_LEN];
	uint8_t expect[AUTH_PROOF_LEN];
	int rc = fake_boot(f, secret);
	if (rc != 0)
		return rc;
	if (uplink_open(f->b.parent_rfd, f->b.parent_wfd, f->b.parent_unix,
		f->b.parent_host, f->b.parent_port, f->b.timeout_ms, &f->up,
		err, sizeof err) != 0) {
		fprintf(stderr, "fake peer: node %u: %s\n", f->b.node, err);
		return 1;
	}
	fcntl(f->up.rfd, F_SETFL, fcntl(f->up.rfd, F_GETFL) & ~O_NONBLOCK);
	fcntl(f->up.wfd, F_SETFL, fcntl(f->up.wfd, F_GETFL) & ~O_NONBLOCK);
	grove_packet *ch = fake_next_frame(f->up.rfd), *hello = NULL, *ans;
	const uint8_t *np = NULL, *pp = NULL;
	const char *reason = NULL;
	uint64_t nlen = 0, plen = 0;
	if (!ch || wire_packet_hdr(ch)->type != WIRE_T_AUTH_CHALLENGE ||
	    grove_packet_unpack(ch, "%auc", &np, &nlen) != 0 ||
	    nlen != AUTH_NONCE_LEN) {
		fprintf(stderr, "fake peer: no challenge\n");
		grove_packet_unref(ch);
		return 1;
	}
	auth_nonce_new(nc);
	auth_proof_child(secret, np, nc, f->b.node, pc);
	uint32_t rank = f->b.topology ? AUTH_NO_RANK : f->b.rank;
	if (wire_pack(&hello, WIRE_T_AUTH_HELLO, 0, 0, 0, aux,
		"%auc %auc %ud %ud %ud", pc, (uint64_t)AUTH_PROOF_LEN, nc,
		(uint64_t)AUTH_NONCE_LEN, f->b.node, (uint32_t)getpid(),
		rank) != 0 || fake_send(f->up.wfd, hello) != 0) {
		grove_packet_unref(ch);
		return 1;
	}
	rc = 1;
	ans = fake_next_frame(f->up.rfd);
	if (!ans)
		fprintf(stderr, "fake peer: closed without an answer\n");
	else if (wire_packet_hdr(ans)->type != WIRE_T_AUTH_REJECT ||
	    grove_packet_unpack(ans, "%auc %s", &pp, &plen, &reason) != 0 ||
	    plen != AUTH_PROOF_LEN)
		fprintf(stderr, "fake peer: answer of type %u, not a "
		    "rejection\n", wire_packet_hdr(ans)->type);
	else if (auth_proof_parent(secret, nc, np, expect),
	    !auth_proof_equal(expect, pp))
		fprintf(stderr, "fake peer: the rejection's proof is wrong\n");
	else {
		snprintf(why, cap, "%s", reason);
		rc = 0;
	}
	grove_packet_unref(ans);
	grove_packet_unref(ch);
	return rc;
}

int
fake_join(fake_child *f)
{
	char err[512];
	uint8_t secret[AUTH_SECRET_LEN];
	int rc = fake_boot(f, secret);
	if (rc != 0)
		return rc;
	/* A CP gets the topology, a back-end does not. */
	f->is_cp = f->b.topology != NULL;
	f->below = 1;
	f->src = f->b.rank;
	if (f->is_cp) {
		if (grove_topo_parse_string(f->b.topology, &f->topo, err,
			sizeof err) != 0) {
			fprintf(stderr, "fake peer: topology: %s\n", err);
			return 2;
		}
		const grove_topo_node *me = grove_topo_node_at(f->topo,
		    f->b.node);
		f->below = me->be_hi - me->be_lo;
		f->src = PROTO_NODE_RANK(f->b.node);
	}
	if (uplink_open(f->b.parent_rfd, f->b.parent_wfd, f->b.parent_unix,
		f->b.parent_host, f->b.parent_port, f->b.timeout_ms, &f->up,
		err, sizeof err) != 0 ||
	    auth_child_handshake(f->up.rfd, f->up.wfd, secret, f->b.node,
		f->is_cp ? AUTH_NO_RANK : f->b.rank, AUTH_TIMEOUT_MS, err,
		sizeof err) != 0) {
		fprintf(stderr, "fake peer: node %u: %s\n", f->b.node, err);
		return 1;
	}
	/* Plain blocking reads and writes (a pipe may come non-blocking). */
	fcntl(f->up.rfd, F_SETFL, fcntl(f->up.rfd, F_GETFL) & ~O_NONBLOCK);
	fcntl(f->up.wfd, F_SETFL, fcntl(f->up.wfd, F_GETFL) & ~O_NONBLOCK);
	return 0;
}

void
fake_leave(fake_child *f)
{
	uplink_close(&f->up);
	grove_topo_destroy(f->topo);
	boot_fini(&f->b);
}

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

int
fake_send(int fd, grove_packet *p)
{
	if (!p)
		return -1;
	size_t len = 0;
	const uint8_t *b = wire_packet_bytes(p, &len);
	int rc = put_all(fd, b, len);
	grove_packet_unref(p);
	return rc;
}

int
fake_send_ready(int fd, uint32_t src, uint32_t bes, uint32_t ep_node,
    size_t n)
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
			rc = fake_send(fd, p);
	}
	free(ids);
	free(ports);
	free(hosts);
	return rc;
}

grove_packet *
fake_next_frame(int fd)
{
	/* One fake child per process, one frame at a time. */
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

int
fake_serve(fake_child *f, int (*on_frame)(fake_child *f, grove_packet *p,
    void *arg), void *arg)
{
	int rc = 0;
	grove_packet *p;
	while (rc == 0 && (p = fake_next_frame(f->up.rfd)) != NULL) {
		int type = wire_packet_hdr(p)->type;
		if (type == WIRE_T_SHUTDOWN) {
			grove_packet_unref(p);
			break;
		}
		if (type == WIRE_T_HEARTBEAT) {
			grove_packet *q = NULL;
			if (f->is_cp && wire_pack(&q, WIRE_T_HEARTBEAT, 0, 0,
			    f->src, 0, "") == 0)
				rc = fake_send(f->up.wfd, q);
		} else {
			rc = on_frame(f, p, arg);
		}
		grove_packet_unref(p);
	}
	return rc;
}

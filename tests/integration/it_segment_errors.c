/* A back-end facing a parent that sends broken segments: every kind of
 * inconsistency ends the link with a protocol error that names the parent
 * and says what was wrong, and nothing crashes.  Valid segments from the
 * same parent are put together into the packet that was cut.
 *
 * The parent is played by a thread of this test: it accepts the back-end's
 * connection, does the parent's side of the handshake, sends its frames
 * and waits for the back-end to hang up.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "codec/wire.h"
#include "grove/backend.h"
#include "helper_common.h"
#include "net/auth.h"
#include "tbon/proto.h"

#define STREAM 7
#define TAG 42
#define MAX_FRAMES 8

typedef struct fake_parent {
	int lfd;
	uint16_t port;
	uint8_t secret[AUTH_SECRET_LEN];
	grove_packet *frames[MAX_FRAMES]; /* sent after the handshake */
	size_t n;
	int ok; /* the handshake worked */
} fake_parent;

static int
write_all(int fd, const uint8_t *b, size_t n)
{
	while (n) {
		ssize_t w = write(fd, b, n);
		if (w <= 0)
			return -1;
		b += w;
		n -= (size_t)w;
	}
	return 0;
}

static int
send_packet(int fd, const grove_packet *p)
{
	size_t len;
	const uint8_t *b = wire_packet_bytes(p, &len);
	return write_all(fd, b, len);
}

/* Reads one frame; NULL at EOF or on garbage. */
static grove_packet *
read_packet(int fd)
{
	uint8_t hdr[WIRE_HDR_SIZE], *buf;
	size_t got = 0;
	while (got < sizeof hdr) {
		ssize_t r = read(fd, hdr + got, sizeof hdr - got);
		if (r <= 0)
			return NULL;
		got += (size_t)r;
	}
	wire_hdr h;
	size_t need = 0;
	if (wire_peek(hdr, sizeof hdr, &h, &need) < 0)
		return NULL;
	size_t total = wire_pad8(h.len);
	if (!(buf = malloc(total)))
		return NULL;
	memcpy(buf, hdr, sizeof hdr);
	while (got < total) {
		ssize_t r = read(fd, buf + got, total - got);
		if (r <= 0) {
			free(buf);
			return NULL;
		}
		got += (size_t)r;
	}
	grove_packet *p = NULL;
	wire_packet_from_bytes(buf, total, &p);
	free(buf);
	return p;
}

static void *
parent_main(void *arg)
{
	fake_parent *fp = arg;
	int fd = accept(fp->lfd, NULL, NULL);
	if (fd < 0)
		return NULL;
	uint8_t np[AUTH_NONCE_LEN], proof[AUTH_PROOF_LEN];
	auth_nonce_new(np);
	grove_packet *ch = NULL, *ok = NULL, *hello = NULL;
	const uint8_t *pc = NULL, *nc = NULL;
	uint64_t lp = 0, ln = 0;
	uint32_t node = 0, pid = 0, rank = 0;
	if (wire_pack(&ch, WIRE_T_AUTH_CHALLENGE, 0, 0, PROTO_NODE_RANK(0),
	    GROVE_PROTOCOL, "%auc", np, (uint64_t)AUTH_NONCE_LEN) != 0 || send_packet(fd, ch) != 0)
		goto out;
	if (!(hello = read_packet(fd)) || grove_packet_unpack(hello,
	    "%auc %auc %ud %ud %ud", &pc, &lp, &nc, &ln, &node, &pid,
	    &rank) != 0 ||
	    ln != AUTH_NONCE_LEN)
		goto out;
	auth_proof_parent(fp->secret, nc, np, proof);
	if (wire_pack(&ok, WIRE_T_AUTH_OK, 0, 0, PROTO_NODE_RANK(0), 0, "%auc",
	    proof, (uint64_t)AUTH_PROOF_LEN) != 0 || send_packet(fd, ok) != 0)
		goto out;
	fp->ok = 1;
	for (size_t i = 0; i < fp->n; i++)
		if (send_packet(fd, fp->frames[i]) != 0)
			break;
	/* Until the back-end hangs up (its protocol error, or its end). */
	grove_packet *p;
	while ((p = read_packet(fd)))
		grove_packet_unref(p);
out:
	grove_packet_unref(ch);
	grove_packet_unref(ok);
	grove_packet_unref(hello);
	close(fd);
	return NULL;
}

static grove_packet *
segment(uint32_t stream, int32_t tag, uint32_t id, uint64_t off,
    uint64_t total, const uint8_t *b, uint64_t n)
{
	grove_packet *p = NULL;
	CHECK_OK(wire_pack(&p, WIRE_T_SEGMENT, stream, tag, PROTO_NODE_RANK(0),
	    0, PROTO_SEGMENT, id, off, total, b, n));
	return p;
}

/* The DATA frame the front-end would have sent whole. */
static grove_packet *
whole(uint32_t stream, size_t n)
{
	uint8_t *b = malloc(n);
	CHECK(b != NULL);
	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)(i * 31 + 7);
	grove_packet *p = NULL;
	CHECK_OK(wire_pack(&p, WIRE_T_DATA, stream, TAG, PROTO_NODE_RANK(0), 0,
	    "%auc %d", b, (uint64_t)n, 5));
	free(b);
	return p;
}

/* Starts a fake parent that will send frames[0..n) (references taken),
 * attaches a back-end to it, and returns the back-end. */
static grove_be *
attach(fake_parent *fp, pthread_t *th, grove_packet **frames, size_t n)
{
	memset(fp, 0, sizeof *fp);
	CHECK_OK(auth_secret_new(fp->secret));
	for (size_t i = 0; i < n; i++)
		fp->frames[i] = frames[i];
	fp->n = n;
	fp->lfd = socket(AF_INET, SOCK_STREAM, 0);
	CHECK(fp->lfd >= 0);
	struct sockaddr_in a = {.sin_family = AF_INET};
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	socklen_t al = sizeof a;
	CHECK(bind(fp->lfd, (struct sockaddr *)&a, sizeof a) == 0);
	CHECK(listen(fp->lfd, 1) == 0);
	CHECK(getsockname(fp->lfd, (struct sockaddr *)&a, &al) == 0);
	fp->port = ntohs(a.sin_port);
	CHECK(pthread_create(th, NULL, parent_main, fp) == 0);
	char hex[65];
	auth_secret_to_hex(fp->secret, hex);
	grove_be *be = NULL;
	CHECK_OK(grove_be_attach_to("127.0.0.1", fp->port, 0, 1, 0, 1, hex, &be));
	return be;
}

static void
finish(fake_parent *fp, pthread_t th, grove_be *be)
{
	grove_be_destroy(be);
	pthread_join(th, NULL);
	close(fp->lfd);
	CHECK(fp->ok);
	for (size_t i = 0; i < fp->n; i++)
		grove_packet_unref(fp->frames[i]);
}

/* The back-end must end the link with a protocol error saying `why`. */
static void
expect_error(const char *name, grove_packet **frames, size_t n,
    const char *why)
{
	it_step("%s", name);
	fake_parent fp;
	pthread_t th;
	grove_be *be = attach(&fp, &th, frames, n);
	grove_packet *p = NULL;
	uint32_t stream;
	int32_t tag;
	CHECK_RC(grove_be_recv(be, &stream, &tag, &p, IT_RECV_MS), GROVE_ECLOSED);
	CHECK(p == NULL);
	CHECK_STR_CONTAINS(grove_be_last_error(be),
	    "protocol error from the parent (node 0)");
	CHECK_STR_CONTAINS(grove_be_last_error(be), why);
	finish(&fp, th, be);
}

int
main(void)
{
	it_init("it_segment_errors", 60);

	/* A 3000-byte message in segments of 1024, then garbage. */
	grove_packet *w = whole(STREAM, 3000);
	size_t total;
	const uint8_t *b = wire_packet_bytes(w, &total);

	it_step("valid segments are put together");
	{
		grove_packet *f[] = {
			segment(STREAM, TAG, 1, 0, total, b, 1024),
			segment(STREAM, TAG, 1, 1024, total, b + 1024, 1024),
			segment(STREAM, TAG, 1, 2048, total, b + 2048, total - 2048),
		};
		fake_parent fp;
		pthread_t th;
		grove_be *be = attach(&fp, &th, f, 3);
		grove_packet *p = NULL;
		uint32_t stream = 0;
		int32_t tag = 0;
		CHECK_OK(grove_be_recv(be, &stream, &tag, &p, IT_RECV_MS));
		CHECK_UINT_EQ(stream, STREAM);
		CHECK_INT_EQ(tag, TAG);
		size_t len;
		const uint8_t *pb = wire_packet_bytes(p, &len);
		CHECK_UINT_EQ(len, total);
		CHECK(memcmp(pb, b, total) == 0);
		const uint8_t *arr;
		uint64_t n;
		int32_t five;
		CHECK_OK(grove_packet_unpack(p, "%auc %d", &arr, &n, &five));
		CHECK_UINT_EQ(n, 3000);
		CHECK_INT_EQ(five, 5);
		grove_packet_unref(p);
		finish(&fp, th, be);
	}
	{
		grove_packet *f[] = {
			segment(STREAM, TAG, 1, 0, total, b, 1024),
			segment(STREAM, TAG, 1, 2048, total, b + 2048, total - 2048),
		};
		expect_error("a lost segment", f, 2, "expected 1024");
	}
	{
		grove_packet *f[] = {segment(STREAM, TAG, 1, 0, 12, b, 8)};
		expect_error("an impossible total", f, 1, "impossible length");
	}
	{
		grove_packet *f[] = {
			segment(STREAM, TAG, 1, 0, total, b, 1024),
			segment(STREAM, TAG + 1, 1, 1024, total, b + 1024, 1024),
		};
		expect_error("a segment that changes its tag", f, 2, "changes");
	}
	{
		/* The bytes of a frame of stream 8 under segments of stream 7. */
		grove_packet *other = whole(STREAM + 1, 3000);
		const uint8_t *ob = wire_packet_bytes(other, NULL);
		grove_packet *f[] = {
			segment(STREAM, TAG, 1, 0, total, ob, 1024),
			segment(STREAM, TAG, 1, 1024, total, ob + 1024, total - 1024),
		};
		grove_packet_unref(other);
		expect_error("segments that hold another stream's frame", f, 2,
		    "did not announce");
	}
	{
		grove_packet *bad = NULL;
		CHECK_OK(wire_pack(&bad, WIRE_T_SEGMENT, STREAM, TAG, 0, 0, "%s",
		    "not a segment"));
		grove_packet *f[] = {bad};
		expect_error("a segment that does not decode", f, 1, "malformed");
	}
	grove_packet_unref(w);
	return it_done();
}

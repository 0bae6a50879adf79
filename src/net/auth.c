#include "net/auth.h"

#include <errno.h>
#include <poll.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "codec/wire.h"
#include "grove/error.h"
#include "net/protover.h"
#include "net/sockio.h"

static int
sodium_ready(void)
{
	/* sodium_init is idempotent and thread-safe; < 0 means no entropy. */
	return sodium_init() < 0 ? GROVE_ESYS : 0;
}

int
auth_secret_new(uint8_t secret[AUTH_SECRET_LEN])
{
	if (sodium_ready() != 0)
		return GROVE_ESYS;
	randombytes_buf(secret, AUTH_SECRET_LEN);
	return 0;
}

void
auth_nonce_new(uint8_t nonce[AUTH_NONCE_LEN])
{
	if (sodium_ready() == 0)
		randombytes_buf(nonce, AUTH_NONCE_LEN);
}

void
auth_secret_to_hex(const uint8_t secret[AUTH_SECRET_LEN], char hex[65])
{
	sodium_bin2hex(hex, 65, secret, AUTH_SECRET_LEN);
}

int
auth_secret_from_hex(const char *hex, uint8_t secret[AUTH_SECRET_LEN])
{
	size_t len = 0;
	const char *end = NULL;
	if (!hex || strlen(hex) != 2 * AUTH_SECRET_LEN)
		return GROVE_EINVAL;
	if (sodium_hex2bin(secret, AUTH_SECRET_LEN, hex, strlen(hex), NULL, &len,
		&end) != 0 || len != AUTH_SECRET_LEN || *end != 0)
		return GROVE_EINVAL;
	return 0;
}

static void
proof(const uint8_t secret[AUTH_SECRET_LEN], const char *label,
    const uint8_t *a, const uint8_t *b, const uint32_t *node,
    uint8_t out[AUTH_PROOF_LEN])
{
	crypto_auth_hmacsha256_state st;
	crypto_auth_hmacsha256_init(&st, secret, AUTH_SECRET_LEN);
	crypto_auth_hmacsha256_update(&st, (const uint8_t *)label, strlen(label));
	crypto_auth_hmacsha256_update(&st, a, AUTH_NONCE_LEN);
	crypto_auth_hmacsha256_update(&st, b, AUTH_NONCE_LEN);
	if (node) {
		uint8_t le[4] = {(uint8_t)*node, (uint8_t)(*node >> 8),
		    (uint8_t)(*node >> 16), (uint8_t)(*node >> 24)};
		crypto_auth_hmacsha256_update(&st, le, 4);
	}
	crypto_auth_hmacsha256_final(&st, out);
}

void
auth_proof_child(const uint8_t secret[AUTH_SECRET_LEN],
    const uint8_t nonce_p[AUTH_NONCE_LEN], const uint8_t nonce_c[AUTH_NONCE_LEN],
    uint32_t node, uint8_t out[AUTH_PROOF_LEN])
{
	proof(secret, "grove-child", nonce_p, nonce_c, &node, out);
}

void
auth_proof_parent(const uint8_t secret[AUTH_SECRET_LEN],
    const uint8_t nonce_c[AUTH_NONCE_LEN], const uint8_t nonce_p[AUTH_NONCE_LEN],
    uint8_t out[AUTH_PROOF_LEN])
{
	proof(secret, "grove-parent", nonce_c, nonce_p, NULL, out);
}

void
auth_network_id(const uint8_t secret[AUTH_SECRET_LEN], char out[17])
{
	static const uint8_t label[] = "grove-network-id";
	uint8_t h[16];
	crypto_generichash(h, sizeof h, label, sizeof label - 1, secret,
	    AUTH_SECRET_LEN);
	sodium_bin2hex(out, 17, h, 8);
}

void
auth_wipe(void *p, size_t n)
{
	sodium_memzero(p, n);
}

int
auth_proof_equal(const uint8_t a[AUTH_PROOF_LEN], const uint8_t b[AUTH_PROOF_LEN])
{
	return sodium_memcmp(a, b, AUTH_PROOF_LEN) == 0;
}

int
auth_handshake_timeout_ms(void)
{
	const char *s = getenv("GROVE_HANDSHAKE_TIMEOUT_MS");
	char *end = NULL;
	long v = s ? strtol(s, &end, 10) : 0;
	if (!s)
		return AUTH_TIMEOUT_MS;
	if (end == s || *end != 0 || v <= 0 || v > 24L * 3600 * 1000) {
		fprintf(stderr, "grove: GROVE_HANDSHAKE_TIMEOUT_MS='%s' is not a "
		    "number of ms from 1 to 86400000; using %d\n", s,
		    AUTH_TIMEOUT_MS);
		return AUTH_TIMEOUT_MS;
	}
	return (int)v;
}

/* What is left of the handshake's time, ms (0: none). */
static int
ms_left(uint64_t deadline)
{
	uint64_t now = sockio_now_ms();
	return now >= deadline ? 0 : (int)(deadline - now);
}

static int
timed_out(int timeout_ms, char *err, size_t errlen)
{
	snprintf(err, errlen, "handshake with the parent timed out (not "
	    "completed within %d ms)", timeout_ms);
	return GROVE_ETIMEDOUT;
}

/* Read one frame of at most AUTH_MAX_FRAME bytes of one of the expected
 * types (want2: 0 for none), by the deadline of the whole handshake: a
 * parent that sends a byte now and then must not keep the child waiting
 * past it. */
static int
read_auth_frame(int fd, uint16_t want, uint16_t want2, uint64_t deadline,
    int timeout_ms, grove_packet **out, char *err, size_t errlen)
{
	uint8_t buf[AUTH_MAX_FRAME];
	size_t have = 0;
	for (;;) {
		wire_hdr hdr;
		size_t need = WIRE_HDR_SIZE;
		long n = wire_peek(buf, have, &hdr, &need);
		if (n < 0 || need > sizeof buf || (n > 0 && (size_t)n > sizeof buf)) {
			snprintf(err, errlen, "malformed handshake frame from parent");
			return GROVE_EPROTO;
		}
		if (n > 0) {
			if (hdr.type != want && (!want2 || hdr.type != want2)) {
				snprintf(err, errlen,
				    "unexpected message type %u during handshake "
				    "(expected %u)", hdr.type, want);
				return GROVE_EPROTO;
			}
			return wire_packet_from_bytes(buf, (size_t)n, out);
		}
		int left = ms_left(deadline);
		if (left == 0)
			return timed_out(timeout_ms, err, errlen);
		int rc = sockio_read_some(fd, buf + have, need - have, left);
		if (rc == 0) {
			snprintf(err, errlen, "parent closed the connection during "
			    "the handshake (wrong secret, or the parent could not "
			    "take the connection)");
			return GROVE_ECLOSED;
		}
		if (rc == GROVE_ETIMEDOUT)
			return timed_out(timeout_ms, err, errlen);
		if (rc < 0) {
			snprintf(err, errlen, "handshake: read failed");
			return rc;
		}
		have += (size_t)rc;
	}
}

int
auth_child_handshake(int rfd, int wfd, const uint8_t secret[AUTH_SECRET_LEN],
    uint32_t node, uint32_t rank, int timeout_ms, char *err, size_t errlen)
{
	grove_packet *ch = NULL, *hello = NULL, *ok = NULL;
	const uint8_t *np = NULL, *pp = NULL;
	const char *reason = NULL;
	uint64_t nlen = 0, plen = 0;
	uint8_t nc[AUTH_NONCE_LEN], pc[AUTH_PROOF_LEN], expect[AUTH_PROOF_LEN];
	/* One deadline for the whole exchange, not one per read. */
	uint64_t deadline = sockio_now_ms() + (uint64_t)(timeout_ms > 0 ?
	    timeout_ms : 0);
	int rc = read_auth_frame(rfd, WIRE_T_AUTH_CHALLENGE, 0, deadline,
	    timeout_ms, &ch, err, errlen);
	if (rc != 0)
		goto out;
	/* Before the payload, whose layout may be another in the parent's
	 * protocol. */
	uint32_t theirs = protover_of_aux(wire_packet_hdr(ch)->aux);
	if (theirs != GROVE_PROTOCOL) {
		protover_mismatch(err, errlen, "the parent", theirs);
		rc = GROVE_EPROTO;
		goto out;
	}
	if (grove_packet_unpack(ch, "%auc", &np, &nlen) != 0 ||
	    nlen != AUTH_NONCE_LEN) {
		snprintf(err, errlen, "malformed challenge from parent");
		rc = GROVE_EPROTO;
		goto out;
	}
	auth_nonce_new(nc);
	auth_proof_child(secret, np, nc, node, pc);
	rc = wire_pack(&hello, WIRE_T_AUTH_HELLO, 0, 0, 0, GROVE_PROTOCOL,
	    "%auc %auc %ud %ud %ud", pc, (uint64_t)AUTH_PROOF_LEN, nc,
	    (uint64_t)AUTH_NONCE_LEN, node, (uint32_t)getpid(), rank);
	if (rc != 0)
		goto out;
	size_t hlen;
	const uint8_t *hb = wire_packet_bytes(hello, &hlen);
	int left = ms_left(deadline);
	if (left == 0) {
		rc = timed_out(timeout_ms, err, errlen);
		goto out;
	}
	if ((rc = sockio_write_all(wfd, hb, hlen, left)) != 0) {
		if (rc == GROVE_ETIMEDOUT)
			timed_out(timeout_ms, err, errlen);
		else
			snprintf(err, errlen, "handshake: could not send hello");
		goto out;
	}
	rc = read_auth_frame(rfd, WIRE_T_AUTH_OK, WIRE_T_AUTH_REJECT, deadline,
	    timeout_ms, &ok, err, errlen);
	if (rc != 0)
		goto out;
	int rejected = wire_packet_hdr(ok)->type == WIRE_T_AUTH_REJECT;
	if ((rejected ? grove_packet_unpack(ok, "%auc %s", &pp, &plen, &reason)
		      : grove_packet_unpack(ok, "%auc", &pp, &plen)) != 0 ||
	    plen != AUTH_PROOF_LEN) {
		snprintf(err, errlen, "malformed handshake answer from parent");
		rc = GROVE_EPROTO;
		goto out;
	}
	auth_proof_parent(secret, nc, np, expect);
	if (!auth_proof_equal(expect, pp)) {
		snprintf(err, errlen, "parent failed to prove the network secret");
		rc = GROVE_EAUTH;
	} else if (rejected) {
		/* The parent proved the secret: its reason can be trusted. */
		snprintf(err, errlen, "the parent refused the connection: %s",
		    reason ? reason : "no reason given");
		rc = GROVE_ECLOSED;
	}
out:
	grove_packet_unref(ch);
	grove_packet_unref(hello);
	grove_packet_unref(ok);
	return rc;
}

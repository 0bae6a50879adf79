/* Connection authentication (internal).
 *
 * Every network has a 32-byte random secret made by the FE.  It reaches
 * children through their bootstrap on stdin (or the 0600 connection file in
 * attach mode), never through a command line.  On every new connection:
 *
 *   parent -> child  AUTH_CHALLENGE "%auc"             nonce_p (32 bytes)
 *   child -> parent  AUTH_HELLO     "%auc %auc %ud %ud %ud" proof_c,
 *                                   nonce_c, node id, pid, BE rank
 *                                   (AUTH_NO_RANK from a CP)
 *   parent -> child  AUTH_OK        "%auc"             proof_p
 *                or  AUTH_REJECT    "%auc %s"          proof_p, reason
 *
 *   proof_c = HMAC-SHA256(secret, "grove-child" | nonce_p | nonce_c | node)
 *   proof_p = HMAC-SHA256(secret, "grove-parent" | nonce_c | nonce_p)
 *
 * so each side proves knowledge of the secret without revealing it, and a
 * replayed HELLO fails against a fresh nonce.  Before AUTH_OK the parent
 * accepts nothing but one small AUTH_HELLO; anything else closes the
 * connection with a logged reason.
 *
 * The header's aux field of AUTH_CHALLENGE and AUTH_HELLO carries the
 * sender's GROVE_PROTOCOL (0 in a Grove from before the number: protocol
 * 1).  Each side reads it before the payload, whose layout another version
 * may have changed, and stops at a mismatch naming both versions.  In the
 * header, not the payload: a Grove of protocol 1 still unpacks this
 * challenge and answers with a hello whose proof the parent can check,
 * so it is told the reason in a proven AUTH_REJECT instead of failing on
 * a challenge it cannot unpack.  The version is not in the proofs: it is
 * checked before them, and changing it in transit can only make the
 * handshake fail, which anyone on the path can do anyway; proofs as they
 * were are what lets a parent check a protocol 1 child's hello.
 */
#ifndef GROVE_AUTH_H
#define GROVE_AUTH_H

#include <stddef.h>
#include <stdint.h>

#define AUTH_SECRET_LEN 32u
#define AUTH_NONCE_LEN 32u
#define AUTH_PROOF_LEN 32u
#define AUTH_MAX_FRAME 512u   /* largest frame accepted before AUTH_OK */
/* The rank a CP claims in its hello.  A BE claims its own, which the
 * parent checks against the topology: a connection file edited or mixed
 * up must not put a BE in another rank's place. */
#define AUTH_NO_RANK UINT32_MAX
#define AUTH_TIMEOUT_MS 10000 /* a peer must finish the handshake by then */

/* How long a child gives the whole handshake: GROVE_HANDSHAKE_TIMEOUT_MS
 * (ms, positive) or AUTH_TIMEOUT_MS. */
int auth_handshake_timeout_ms(void);

/* Fill secret with random bytes (libsodium). */
int auth_secret_new(uint8_t secret[AUTH_SECRET_LEN]);
void auth_nonce_new(uint8_t nonce[AUTH_NONCE_LEN]);

/* Hex (64 chars + NUL) <-> bytes.  auth_secret_from_hex returns
 * GROVE_EINVAL on anything but 64 hex digits. */
void auth_secret_to_hex(const uint8_t secret[AUTH_SECRET_LEN], char hex[65]);
int auth_secret_from_hex(const char *hex, uint8_t secret[AUTH_SECRET_LEN]);

void auth_proof_child(const uint8_t secret[AUTH_SECRET_LEN],
    const uint8_t nonce_p[AUTH_NONCE_LEN], const uint8_t nonce_c[AUTH_NONCE_LEN],
    uint32_t node, uint8_t out[AUTH_PROOF_LEN]);
void auth_proof_parent(const uint8_t secret[AUTH_SECRET_LEN],
    const uint8_t nonce_c[AUTH_NONCE_LEN], const uint8_t nonce_p[AUTH_NONCE_LEN],
    uint8_t out[AUTH_PROOF_LEN]);
/* The network id (16 hex digits) is derived from the secret, so a back-end
 * that attaches with only the connection file names its event space like
 * every other process of the network; the hash does not reveal the
 * secret. */
void auth_network_id(const uint8_t secret[AUTH_SECRET_LEN], char out[17]);

/* Constant-time comparison: 1 if equal. */
int auth_proof_equal(const uint8_t a[AUTH_PROOF_LEN],
    const uint8_t b[AUTH_PROOF_LEN]);

/* The child side, blocking, on a connected socket (rfd == wfd) or a
 * pair of non-blocking pipes: read the challenge from rfd, send HELLO on
 * wfd, check AUTH_OK.  timeout_ms bounds the whole exchange (a parent
 * that trickles bytes cannot stretch it).  Returns 0, GROVE_EAUTH
 * (parent's proof wrong), GROVE_EPROTO (also for a parent of another
 * protocol version, both named in err), GROVE_ECLOSED (closed, or turned
 * away with AUTH_REJECT: err then gives the parent's reason) or
 * GROVE_ETIMEDOUT; err says why. */
int auth_child_handshake(int rfd, int wfd, const uint8_t secret[AUTH_SECRET_LEN],
    uint32_t node, uint32_t rank, int timeout_ms, char *err, size_t errlen);

/* Overwrites n bytes at p in a way the compiler cannot drop: for copies
 * of the secret that are no longer needed. */
void auth_wipe(void *p, size_t n);

#endif

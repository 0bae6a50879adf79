/* The direct links' handshake proofs.  Every node of a machine got the
 * machine's random key from the manager through the tree (whose links
 * proved the network secret); a link's two ends each prove they hold it
 * with an HMAC over both nonces and both node ids, so neither a stranger
 * nor a replayed handshake gets a link, and the key never crosses one. */
#include <sodium.h>
#include <string.h>

#include "bcs/bcs_impl.h"

static void
put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

void
bcs_link_mac(const grove_bcs *b, int acceptor, uint32_t from, uint32_t to,
    const uint8_t nonce_from[BCS_NONCE_LEN],
    const uint8_t nonce_to[BCS_NONCE_LEN], uint8_t mac[BCS_MAC_LEN])
{
	/* The two proofs differ by their label: one cannot stand for the
	 * other. */
	const char *label = acceptor ? "grove-bcs-link accepting" :
	    "grove-bcs-link connecting";
	uint8_t ids[16];
	for (int i = 0; i < 8; i++)
		ids[i] = (uint8_t)(b->machine >> (8 * i));
	put32(ids + 8, from);
	put32(ids + 12, to);
	crypto_auth_hmacsha256_state st;
	crypto_auth_hmacsha256_init(&st, b->key, BCS_KEY_LEN);
	crypto_auth_hmacsha256_update(&st, (const uint8_t *)label,
	    strlen(label) + 1);
	crypto_auth_hmacsha256_update(&st, ids, sizeof ids);
	crypto_auth_hmacsha256_update(&st, nonce_from, BCS_NONCE_LEN);
	crypto_auth_hmacsha256_update(&st, nonce_to, BCS_NONCE_LEN);
	crypto_auth_hmacsha256_final(&st, mac);
}

int
bcs_link_mac_ok(const uint8_t a[BCS_MAC_LEN], const uint8_t b[BCS_MAC_LEN])
{
	return sodium_memcmp(a, b, BCS_MAC_LEN) == 0;
}

void
bcs_random(void *buf, size_t n)
{
	/* sodium_init may be repeated; the network's own start-up has
	 * called it already in every Grove process. */
	if (sodium_init() < 0)
		randombytes_stir(); /* never: init only fails without /dev/urandom */
	randombytes_buf(buf, n);
}

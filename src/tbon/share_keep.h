/* The shares a node has sent up on one stream and keeps until its
 * grandparent holds them (internal; docs/recovery.md).
 *
 * A share is what a node sends for one wave: its announcement (a
 * WAVE_SHARE, or none) and its DATA packets, kept by reference.  Shares
 * are numbered by the node's own count of waves on the stream and come
 * in increasing order.  When the node's parent dies, the new parent says
 * from which number on it wants them (RESUME) and the node sends them
 * again; an ack from the parent (WAVE_ACK) drops those the grandparent
 * holds.
 */
#ifndef GROVE_TBON_SHARE_KEEP_H
#define GROVE_TBON_SHARE_KEEP_H

#include <stddef.h>
#include <stdint.h>

#include "grove/packet.h"

typedef struct kept_share {
	uint64_t num;
	grove_packet *announce; /* NULL: none (a share of one packet) */
	uint32_t n;             /* DATA packets */
	grove_packet *one;      /* the packet when n == 1 */
	grove_packet **many;    /* the packets when n > 1 (malloc'd) */
	size_t bytes;
} kept_share;

/* Most shares and bytes kept (unless the keeper sets others): past
 * either, the oldest go, but never the newest one (a parent that never
 * acks must not grow a node's memory without bound; shares dropped so
 * are reported missing if they are ever asked for). */
#define SHARE_KEEP_MAX_SHARES (1u << 20)
#define SHARE_KEEP_MAX_BYTES ((size_t)256 << 20)

typedef struct share_keep {
	kept_share *ring;
	uint32_t head, n, cap;  /* cap: 0 or a power of two */
	size_t bytes;           /* on the wire, packets and announcements */
	uint64_t dropped;       /* shares dropped for the caps */
	/* The caps; 0: SHARE_KEEP_MAX_SHARES, SHARE_KEEP_MAX_BYTES. */
	uint32_t max_shares;
	size_t max_bytes;
} share_keep;

/* Keep share num (greater than every share kept: GROVE_EINVAL if not):
 * references to announce (may be NULL) and pkts[0..n).  0 or
 * GROVE_ENOMEM (nothing kept then). */
int share_keep_push(share_keep *k, uint64_t num, grove_packet *announce,
    grove_packet *const *pkts, uint32_t n);
/* Drop the shares numbered below `below`. */
void share_keep_trim(share_keep *k, uint64_t below);
/* Shares kept, and the i-th oldest (i < count). */
static inline uint32_t
share_keep_count(const share_keep *k)
{
	return k->n;
}
const kept_share *share_keep_at(const share_keep *k, uint32_t i);
/* The packets of a kept share, in order. */
static inline grove_packet *const *
kept_share_pkts(const kept_share *s)
{
	return s->n == 1 ? &s->one : s->many;
}
/* Number of the oldest share kept; UINT64_MAX when none is. */
uint64_t share_keep_first(const share_keep *k);
void share_keep_fini(share_keep *k);

#endif

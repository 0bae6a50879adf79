/* The shares a node has sent up on one stream and keeps until its
 * grandparent holds them (internal; docs/recovery.md).
 *
 * A share is what a node sends for one wave: its announcement (a
 * WAVE_SHARE, or none) and its DATA packets.  Shares are numbered by the
 * node's own count of waves on the stream and come in increasing order.
 * When the node's parent dies, the new parent says from which number on
 * it wants them (RESUME) and the node sends them again; an ack from the
 * parent (WAVE_ACK) drops those the grandparent holds.
 *
 * A small share (SHARE_KEEP_COPY_MAX bytes on the wire, most of them) is
 * kept as a copy of its frames in one ring of bytes: keeping references
 * instead held every packet a back-end sent alive until the next ack, and
 * a back-end streaming waves paid a fifth of its throughput for freeing
 * them cold (measured on kary:4 with 64 back-ends).  A larger one is kept
 * by reference.
 */
#ifndef GROVE_TBON_SHARE_KEEP_H
#define GROVE_TBON_SHARE_KEEP_H

#include <stddef.h>
#include <stdint.h>

#include "grove/packet.h"

/* Shares up to this many bytes (frames and announcement) are copied. */
#define SHARE_KEEP_COPY_MAX 512u

typedef struct kept_share {
	uint64_t num;
	uint32_t n;             /* DATA packets */
	int has_announce;
	size_t bytes;           /* on the wire, announcement included */
	/* Copied: its frames, announcement first, at off in the ring of
	 * bytes; else references (many: the announcement, if any, then the
	 * packets). */
	int copied;
	size_t off;
	grove_packet **many;
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
	/* The copies of small shares, in order: a ring of bytes whose live
	 * part starts at the oldest copied share's off and ends at tail
	 * (wrapping once, at wrap). */
	uint8_t *arena;
	size_t arena_cap, tail, wrap;
} share_keep;

/* Keep share num (greater than every share kept: GROVE_EINVAL if not):
 * announce (may be NULL) and pkts[0..n).  0 or GROVE_ENOMEM (nothing
 * kept then). */
int share_keep_push(share_keep *k, uint64_t num, grove_packet *announce,
    grove_packet *const *pkts, uint32_t n);
/* Drop the shares numbered below `below`. */
void share_keep_trim(share_keep *k, uint64_t below);
static inline uint32_t
share_keep_count(const share_keep *k)
{
	return k->n;
}
/* The i-th oldest share (i < count), or NULL. */
const kept_share *share_keep_at(const share_keep *k, uint32_t i);
/* Hands share i to emit, its announcement first, each as a packet
 * (emit takes its own reference if it keeps one).  0, GROVE_ENOMEM, or
 * the first error emit returns. */
int share_keep_emit(const share_keep *k, uint32_t i,
    int (*emit)(void *arg, grove_packet *p), void *arg);
/* Number of the oldest share kept; UINT64_MAX when none is. */
uint64_t share_keep_first(const share_keep *k);
void share_keep_fini(share_keep *k);

#endif

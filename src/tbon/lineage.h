/* What a child knows of its ancestors, for re-parenting (internal;
 * docs/recovery.md): the LINEAGE message a parent sends each child after
 * its handshake, and the search for a new parent when the parent is
 * lost.
 */
#ifndef GROVE_TBON_LINEAGE_H
#define GROVE_TBON_LINEAGE_H

#include <stddef.h>
#include <stdint.h>

#include "grove/packet.h"
#include "net/auth.h"
#include "net/uplink.h"

/* Longest ancestor list a LINEAGE may carry: a tree that deep has
 * thousands of nodes on one path, far beyond any real one. */
#define LINEAGE_MAX_HOPS 4096u

typedef struct lineage_hop {
	uint32_t node;
	char host[256];    /* its host in the topology */
	char addr[256];    /* the name to reach it at from any host */
	uint16_t port;     /* its TCP port */
	char uname[96];    /* its abstract Unix socket ("": none) */
} lineage_hop;

typedef struct lineage {
	int heartbeat_ms;  /* the network's (> 0) */
	int reparent_ms;   /* < 0: no recovery */
	lineage_hop *hop;  /* from the FE down to the sender (the parent) */
	uint32_t n;
} lineage;

/* Decodes a LINEAGE (PROTO_LINEAGE) into *out (replacing what it held on
 * success only).  0, or GROVE_EPROTO with why saying what is wrong
 * (arrays of different lengths, a string too long for its field, a port
 * above 65535, a heartbeat that is not positive, more than
 * LINEAGE_MAX_HOPS hops), or GROVE_ENOMEM. */
int lineage_from_packet(const grove_packet *p, lineage *out, char *why,
    size_t len);
/* Packs l's hops, then self when not NULL (the sender's own record),
 * with l's settings, as a LINEAGE from source rank src.  0 or a
 * grove_err. */
int lineage_pack(const lineage *l, const lineage_hop *self, uint32_t src,
    grove_packet **out);
void lineage_fini(lineage *l);

/* The orphan's search (docs/recovery.md): tries the ancestors above the
 * lost parent (hops n-2 down to 0), each by its Unix socket when it is
 * on this host, else by TCP, and proves the secret as node (and rank:
 * AUTH_NO_RANK for a CP) within deadline_ms (sockio_now_ms time).
 *   0               adopted: *up is the authenticated link, *which the
 *                   hop index of the new parent;
 *   GROVE_EAGAIN    an ancestor lives but turned us away (it has not
 *                   seen the loss yet): try again a little later;
 *   GROVE_ELOST     none could be reached (the path above is gone);
 *   GROVE_ETIMEDOUT the deadline passed.
 * err says what happened at each ancestor tried. */
int lineage_reparent(const lineage *l, uint32_t node, uint32_t rank,
    const uint8_t secret[AUTH_SECRET_LEN], uint64_t deadline_ms, uplink *up,
    uint32_t *which, char *err, size_t errlen);

#endif

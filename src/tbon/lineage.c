/* A child's ancestors: the LINEAGE message and the search for a new
 * parent (lineage.h, docs/recovery.md). */
#include "tbon/lineage.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "codec/wire.h"
#include "grove/error.h"
#include "net/sockio.h"
#include "net/spawn.h"
#include "tbon/proto.h"

/* Copies s into a field of cap bytes; -1 when it does not fit. */
static int
field_copy(char *dst, size_t cap, const char *s)
{
	size_t n = strlen(s);
	if (n >= cap)
		return -1;
	memcpy(dst, s, n + 1);
	return 0;
}

int
lineage_from_packet(const grove_packet *p, lineage *out, char *why,
    size_t len)
{
	int32_t hb = 0, rp = 0;
	const uint32_t *ids = NULL, *ports = NULL;
	const char *const *hosts = NULL, *const *addrs = NULL,
	    *const *unames = NULL;
	uint64_t nid = 0, nh = 0, na = 0, np = 0, nu = 0;
	if (grove_packet_unpack(p, PROTO_LINEAGE, &hb, &rp, &ids, &nid, &hosts,
	    &nh, &addrs, &na, &ports, &np, &unames, &nu) != 0) {
		snprintf(why, len, "a LINEAGE that does not unpack as \"%s\"",
		    PROTO_LINEAGE);
		return GROVE_EPROTO;
	}
	if (nh != nid || na != nid || np != nid || nu != nid) {
		snprintf(why, len, "a LINEAGE whose arrays differ in length (%llu "
		    "ids, %llu hosts, %llu names, %llu ports, %llu sockets)",
		    (unsigned long long)nid, (unsigned long long)nh,
		    (unsigned long long)na, (unsigned long long)np,
		    (unsigned long long)nu);
		return GROVE_EPROTO;
	}
	if (nid > LINEAGE_MAX_HOPS) {
		snprintf(why, len, "a LINEAGE of %llu ancestors (at most %u)",
		    (unsigned long long)nid, LINEAGE_MAX_HOPS);
		return GROVE_EPROTO;
	}
	if (hb <= 0) {
		snprintf(why, len, "a LINEAGE with heartbeat %d ms (must be "
		    "positive)", hb);
		return GROVE_EPROTO;
	}
	lineage_hop *hop = calloc(nid ? nid : 1, sizeof *hop);
	if (!hop) {
		snprintf(why, len, "out of memory for %llu ancestors",
		    (unsigned long long)nid);
		return GROVE_ENOMEM;
	}
	for (uint64_t i = 0; i < nid; i++) {
		lineage_hop *h = &hop[i];
		h->node = ids[i];
		const char *bad = NULL;
		if (ports[i] > 65535)
			bad = "port";
		else if (field_copy(h->host, sizeof h->host, hosts[i]) != 0)
			bad = "host";
		else if (field_copy(h->addr, sizeof h->addr, addrs[i]) != 0)
			bad = "name";
		else if (field_copy(h->uname, sizeof h->uname, unames[i]) != 0)
			bad = "socket name";
		if (bad) {
			snprintf(why, len, "a LINEAGE whose ancestor %llu (node %u) "
			    "has a %s out of bounds", (unsigned long long)i, ids[i],
			    bad);
			free(hop);
			return GROVE_EPROTO;
		}
		h->port = (uint16_t)ports[i];
	}
	lineage_fini(out);
	out->heartbeat_ms = hb;
	out->reparent_ms = rp;
	out->hop = hop;
	out->n = (uint32_t)nid;
	return 0;
}

int
lineage_pack(const lineage *l, const lineage_hop *self, uint32_t src,
    grove_packet **out)
{
	uint32_t n = l->n + (self ? 1 : 0);
	size_t m = n ? n : 1;
	uint32_t *ids = malloc(m * sizeof *ids), *ports = malloc(m * sizeof *ports);
	const char **hosts = malloc(m * sizeof *hosts),
	    **addrs = malloc(m * sizeof *addrs),
	    **unames = malloc(m * sizeof *unames);
	int rc = GROVE_ENOMEM;
	if (ids && ports && hosts && addrs && unames) {
		for (uint32_t i = 0; i < n; i++) {
			const lineage_hop *h = i < l->n ? &l->hop[i] : self;
			ids[i] = h->node;
			ports[i] = h->port;
			hosts[i] = h->host;
			addrs[i] = h->addr;
			unames[i] = h->uname;
		}
		rc = wire_pack(out, WIRE_T_LINEAGE, 0, 0, src, 0, PROTO_LINEAGE,
		    (int32_t)l->heartbeat_ms, (int32_t)l->reparent_ms, ids,
		    (uint64_t)n, hosts, (uint64_t)n, addrs, (uint64_t)n, ports,
		    (uint64_t)n, unames, (uint64_t)n);
	}
	free(ids);
	free(ports);
	free(hosts);
	free(addrs);
	free(unames);
	return rc;
}

void
lineage_fini(lineage *l)
{
	free(l->hop);
	l->hop = NULL;
	l->n = 0;
}

/* Appends to err (NUL-terminated, errlen bytes) without overflowing. */
static void
note(char *err, size_t errlen, const char *fmt, const char *a, uint32_t node)
{
	size_t o = strlen(err);
	if (o + 1 < errlen)
		snprintf(err + o, errlen - o, fmt, node, a);
}

int
lineage_reparent(const lineage *l, uint32_t node, uint32_t rank,
    const uint8_t secret[AUTH_SECRET_LEN], uint64_t deadline_ms, uplink *up,
    uint32_t *which, char *err, size_t errlen)
{
	up->rfd = up->wfd = -1;
	if (errlen)
		err[0] = 0;
	int alive = 0;
	/* The last hop is the parent that was lost. */
	for (uint32_t k = l->n >= 1 ? l->n - 1 : 0; k-- > 0;) {
		const lineage_hop *h = &l->hop[k];
		uint64_t now = sockio_now_ms();
		if (now >= deadline_ms)
			return GROVE_ETIMEDOUT;
		/* A dead ancestor refuses at once; a stopped one or a dead
		 * host takes the time this allows. */
		int ms = deadline_ms - now > 1000 ? 1000 : (int)(deadline_ms - now);
		char why[300];
		int local = h->uname[0] && spawn_host_is_local(h->host);
		uplink u;
		int rc = uplink_open(-1, -1, local ? h->uname : NULL, h->addr,
		    h->port, ms, &u, why, sizeof why);
		if (rc != 0) {
			note(err, errlen, "node %u: %s; ", why, h->node);
			continue;
		}
		rc = auth_child_handshake(u.rfd, u.wfd, secret, node, rank, ms, why,
		    sizeof why);
		if (rc == 0) {
			*up = u;
			*which = k;
			return 0;
		}
		uplink_close(&u);
		note(err, errlen, "node %u: %s; ", why, h->node);
		/* It answered: it lives, and the nearest live ancestor is the
		 * one to wait for (those above it do not expect us). */
		alive = 1;
		break;
	}
	return alive ? GROVE_EAGAIN : GROVE_ELOST;
}

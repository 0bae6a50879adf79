/* Fuzz the decoders of re-parenting's messages (docs/recovery.md): the
 * input is a byte stream of frames as a child or a parent reads it.
 * LINEAGE goes through lineage_from_packet, whose result must respect
 * its bounds and survive lineage_pack and a second decode unchanged;
 * ADOPT, RESUME, REPARENTED and WAVE_ACK are unpacked with the formats
 * the nodes use.  Errors are fine; crashes, leaks and broken invariants
 * are not.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/wire.h"
#include "grove/error.h"
#include "tbon/lineage.h"
#include "tbon/proto.h"

#define fz_fail() fz_fail_at(__LINE__)
static void
fz_fail_at(int line)
{
	fprintf(stderr, "fuzz_reparent.c:%d: invariant broken\n", line);
	abort();
}

static void
fz_bounded(const char *s, size_t cap)
{
	if (strnlen(s, cap) >= cap)
		fz_fail();
}

static void
fz_lineage(const grove_packet *p)
{
	lineage l, again;
	memset(&l, 0, sizeof l);
	memset(&again, 0, sizeof again);
	char why[200] = "";
	int rc = lineage_from_packet(p, &l, why, sizeof why);
	if (rc != 0) {
		if ((rc != GROVE_EPROTO && rc != GROVE_ENOMEM) || !why[0] || l.hop)
			fz_fail();
		return;
	}
	if (l.n > LINEAGE_MAX_HOPS || l.heartbeat_ms <= 0 || (l.n && !l.hop))
		fz_fail();
	for (uint32_t i = 0; i < l.n; i++) {
		fz_bounded(l.hop[i].host, sizeof l.hop[i].host);
		fz_bounded(l.hop[i].addr, sizeof l.hop[i].addr);
		fz_bounded(l.hop[i].uname, sizeof l.hop[i].uname);
	}
	grove_packet *q = NULL;
	if (lineage_pack(&l, NULL, 7, &q) == 0) {
		if (lineage_from_packet(q, &again, why, sizeof why) != 0 ||
		    again.n != l.n || again.heartbeat_ms != l.heartbeat_ms ||
		    again.reparent_ms != l.reparent_ms)
			fz_fail();
		for (uint32_t i = 0; i < l.n; i++)
			if (memcmp(&again.hop[i], &l.hop[i], sizeof l.hop[i]))
				fz_fail();
		grove_packet_unref(q);
	}
	lineage_fini(&again);
	lineage_fini(&l);
}

static void
fz_other(const grove_packet *p, uint16_t type)
{
	const uint32_t *ids = NULL, *moved = NULL;
	const uint64_t *a = NULL, *b = NULL;
	uint64_t ni = 0, na = 0, nb = 0, held = 0, above = 0;
	uint32_t x = 0, lo = 0, hi = 0, parent = 0;
	const char *why = NULL;
	switch (type) {
	case WIRE_T_ADOPT:
		if (grove_packet_unpack(p, PROTO_ADOPT, &ids, &ni, &a, &na, &b,
		    &nb) == 0 && ni == na && ni == nb)
			for (uint64_t i = 0; i < ni; i++)
				x ^= ids[i] ^ (uint32_t)a[i] ^ (uint32_t)b[i];
		break;
	case WIRE_T_RESUME:
		if (grove_packet_unpack(p, PROTO_RESUME, &ids, &ni, &a, &na) == 0 &&
		    ni == na)
			for (uint64_t i = 0; i < ni; i++)
				x ^= ids[i] ^ (uint32_t)a[i];
		break;
	case WIRE_T_REPARENTED:
		if (grove_packet_unpack(p, PROTO_REPARENTED, &x, &lo, &hi,
		    &parent, &why, &moved, &ni) == 0) {
			if (!why)
				fz_fail();
			for (uint64_t i = 0; i < ni; i++)
				x ^= moved[i];
		}
		break;
	case WIRE_T_WAVE_ACK:
		(void)grove_packet_unpack(p, PROTO_WAVE_ACK, &held, &above);
		break;
	default:
		break;
	}
	(void)x;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	grove_buf *buf = buf_new(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf->data, data, size);
	size_t off = 0;
	while (off < size) {
		wire_hdr h;
		size_t need = 0;
		long n = wire_peek(buf->data + off, size - off, &h, &need);
		if (n <= 0)
			break;
		grove_packet *p;
		if (wire_packet_from_frame(buf, buf->data + off, (size_t)n,
		    &p) == 0) {
			if (h.type == WIRE_T_LINEAGE)
				fz_lineage(p);
			else
				fz_other(p, h.type);
			grove_packet_unref(p);
		}
		off += (size_t)n;
	}
	buf_unref(buf);
	return 0;
}

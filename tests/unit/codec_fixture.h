/* Shared by the codec unit tests (test_codec*.c): re-parsing a packet,
 * copying and corrupting frames, decoding everything.  Each test program
 * uses part of it. */
#ifndef GROVE_CODEC_FIXTURE_H
#define GROVE_CODEC_FIXTURE_H

#pragma GCC diagnostic ignored "-Wunused-function"
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "codec/wire.h"

static grove_packet *
reparse(const grove_packet *p)
{
	size_t len;
	const uint8_t *b = wire_packet_bytes(p, &len);
	grove_packet *q = NULL;
	assert_int_equal(wire_packet_from_bytes(b, len, &q), 0);
	assert_non_null(q);
	return q;
}

/* A copy of a packet's frame, for corrupting. */
static uint8_t *
frame_copy(const grove_packet *p, size_t *len)
{
	const uint8_t *b = wire_packet_bytes(p, len);
	uint8_t *c = malloc(*len);
	assert_non_null(c);
	memcpy(c, b, *len);
	return c;
}

static void
st32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void
st64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* Decode bytes and touch every item; returns the first error or 0. */
static int
decode_all(const uint8_t *b, size_t len)
{
	grove_packet *p;
	int rc = wire_packet_from_bytes(b, len, &p);
	if (rc < 0)
		return rc;
	int n = grove_packet_nitems(p);
	for (int i = 0; i < n && rc == 0; i++) {
		grove_item it;
		rc = grove_packet_item(p, i, &it);
		if (rc == 0 && it.type == GROVE_T_STRING && !it.is_array)
			(void)strlen(it.data);
	}
	grove_packet_unref(p);
	return rc;
}

static size_t
payload_off(const grove_packet *p)
{
	return WIRE_HDR_SIZE + wire_pad8(wire_packet_hdr(p)->fmt_len);
}

#endif

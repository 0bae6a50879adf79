/* Little-endian loads and stores of the wire format.
 *
 * Scalar fields go through these helpers, which work at any alignment and
 * on any host: single (unaligned) moves on little-endian machines, byte by
 * byte elsewhere.  (Compilers do not always merge the byte-wise form into
 * one move, e.g. when a frame header is written after a call.)  Bulk
 * numeric arrays are memcpy'd when CODEC_HOST_LE, and swapped element by
 * element otherwise.
 */
#ifndef CODEC_ENDIAN_H
#define CODEC_ENDIAN_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define CODEC_HOST_LE 1
#elif defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define CODEC_HOST_LE 0
#else
#error "unknown byte order"
#endif

/* On little-endian hosts the wire order is the host's: a memcpy is one
 * move.  Elsewhere, and as the definition, byte by byte. */
static inline uint16_t
codec_ld16(const uint8_t *p)
{
#if CODEC_HOST_LE
	uint16_t v;
	memcpy(&v, p, sizeof v);
	return v;
#else
	return (uint16_t)(p[0] | (unsigned)p[1] << 8);
#endif
}

static inline uint32_t
codec_ld32(const uint8_t *p)
{
#if CODEC_HOST_LE
	uint32_t v;
	memcpy(&v, p, sizeof v);
	return v;
#else
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	    (uint32_t)p[3] << 24;
#endif
}

static inline uint64_t
codec_ld64(const uint8_t *p)
{
	return (uint64_t)codec_ld32(p) | (uint64_t)codec_ld32(p + 4) << 32;
}

static inline void
codec_st16(uint8_t *p, uint16_t v)
{
#if CODEC_HOST_LE
	memcpy(p, &v, sizeof v);
#else
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
#endif
}

static inline void
codec_st32(uint8_t *p, uint32_t v)
{
#if CODEC_HOST_LE
	memcpy(p, &v, sizeof v);
#else
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
#endif
}

static inline void
codec_st64(uint8_t *p, uint64_t v)
{
	codec_st32(p, (uint32_t)v);
	codec_st32(p + 4, (uint32_t)(v >> 32));
}

/* Copy count elements of size (1, 2, 4 or 8) between wire order and host
 * order; the same operation in both directions.  Either side may be
 * misaligned. */
static inline void
codec_copy_elems(void *dst, const void *src, uint64_t count, size_t size)
{
#if CODEC_HOST_LE
	memcpy(dst, src, (size_t)count * size);
#else
	uint8_t *d = dst;
	const uint8_t *s = src;
	for (uint64_t i = 0; i < count; i++, d += size, s += size)
		for (size_t b = 0; b < size; b++)
			d[b] = s[size - 1 - b];
#endif
}

#endif

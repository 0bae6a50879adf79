/* Reference-counted byte buffers (internal).
 *
 * Receive buffers are shared by every packet decoded from them, and a packet
 * forwarded to several children shares its bytes with all their write
 * queues, so the owner is "whoever holds the last reference".
 */
#ifndef GROVE_BUF_H
#define GROVE_BUF_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

typedef struct grove_buf {
	/* Atomic because a tool may hand packets to another thread. */
	atomic_uint refs;
	size_t cap;
	/* 8-byte alignment of data[] is relied on by the decoder. */
	_Alignas(8) uint8_t data[];
} grove_buf;

grove_buf *buf_new(size_t cap); /* refs = 1; NULL on ENOMEM */
/* Resize a buffer nobody else holds (refs == 1), keeping its bytes; NULL
 * on ENOMEM (b is then unchanged) or when b is shared. */
grove_buf *buf_resize(grove_buf *b, size_t cap);

static inline grove_buf *
grove_buf_ref(grove_buf *b)
{
	atomic_fetch_add_explicit(&b->refs, 1, memory_order_relaxed);
	return b;
}

void buf_unref(grove_buf *b);

#endif

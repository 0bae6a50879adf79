/* The streams a back-end is a member of (internal): learnt from the
 * STREAM_NEW and STREAM_DEL messages its parent passes on, so that a send
 * on a stream that does not exist for it is refused at once, with a
 * reason, instead of being dropped by its parent (be.c). */
#ifndef GROVE_BE_STREAMS_H
#define GROVE_BE_STREAMS_H

#include <stddef.h>
#include <stdint.h>

#define BE_STREAMS_GONE 16 /* destroyed ids remembered, for the message */

typedef struct be_streams {
	uint32_t *ids;  /* sorted */
	size_t n, cap;
	uint32_t gone[BE_STREAMS_GONE]; /* the last ones destroyed (ring) */
	unsigned n_gone;
} be_streams;

/* 0 or GROVE_ENOMEM (then sends on it are not refused: see be.c). */
int be_streams_add(be_streams *b, uint32_t id);
void be_streams_del(be_streams *b, uint32_t id);
int be_streams_has(const be_streams *b, uint32_t id);
/* 1 when id was destroyed lately (the last BE_STREAMS_GONE). */
int be_streams_was_destroyed(const be_streams *b, uint32_t id);
void be_streams_fini(be_streams *b);

#endif

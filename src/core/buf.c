#include "core/buf.h"

#include <stdlib.h>

grove_buf *
buf_new(size_t cap)
{
	grove_buf *b = malloc(sizeof *b + cap);
	if (!b)
		return NULL;
	atomic_init(&b->refs, 1);
	b->cap = cap;
	return b;
}

grove_buf *
buf_resize(grove_buf *b, size_t cap)
{
	if (!b || atomic_load_explicit(&b->refs, memory_order_acquire) != 1)
		return NULL;
	grove_buf *nb = realloc(b, sizeof *b + cap);
	if (!nb)
		return NULL;
	nb->cap = cap;
	return nb;
}

void
buf_unref(grove_buf *b)
{
	if (b && atomic_fetch_sub_explicit(&b->refs, 1, memory_order_acq_rel) == 1)
		free(b);
}

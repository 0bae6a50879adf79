#include "core/buf.h"

#include <stdlib.h>

grove_buf *
grove_buf_new(size_t cap)
{
	grove_buf *b = malloc(sizeof *b + cap);
	if (!b)
		return NULL;
	atomic_init(&b->refs, 1);
	b->cap = cap;
	return b;
}

void
grove_buf_unref(grove_buf *b)
{
	if (b && atomic_fetch_sub_explicit(&b->refs, 1, memory_order_acq_rel) == 1)
		free(b);
}

/* The set of streams a back-end is a member of: a sorted array (a
 * back-end has few streams, and a send looks its stream up). */
#include <stdlib.h>
#include <string.h>

#include "grove/error.h"
#include "tbon/be_streams.h"

static size_t
lower(const be_streams *b, uint32_t id)
{
	size_t lo = 0, hi = b->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (b->ids[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int
be_streams_add(be_streams *b, uint32_t id)
{
	size_t i = lower(b, id);
	if (i < b->n && b->ids[i] == id)
		return 0;
	if (b->n == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 8;
		uint32_t *ids = realloc(b->ids, cap * sizeof *ids);
		if (!ids)
			return GROVE_ENOMEM;
		b->ids = ids;
		b->cap = cap;
	}
	memmove(b->ids + i + 1, b->ids + i, (b->n - i) * sizeof *b->ids);
	b->ids[i] = id;
	b->n++;
	return 0;
}

void
be_streams_del(be_streams *b, uint32_t id)
{
	size_t i = lower(b, id);
	if (i == b->n || b->ids[i] != id)
		return;
	memmove(b->ids + i, b->ids + i + 1, (b->n - i - 1) * sizeof *b->ids);
	b->n--;
	b->gone[b->n_gone++ % BE_STREAMS_GONE] = id;
}

int
be_streams_has(const be_streams *b, uint32_t id)
{
	size_t i = lower(b, id);
	return i < b->n && b->ids[i] == id;
}

int
be_streams_was_destroyed(const be_streams *b, uint32_t id)
{
	unsigned n = b->n_gone < BE_STREAMS_GONE ? b->n_gone : BE_STREAMS_GONE;
	for (unsigned i = 0; i < n; i++)
		if (b->gone[i] == id)
			return 1;
	return 0;
}

void
be_streams_fini(be_streams *b)
{
	free(b->ids);
	memset(b, 0, sizeof *b);
}

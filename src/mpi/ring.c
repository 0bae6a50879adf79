/* SPSC byte rings: see ring.h. */
#include "mpi/ring.h"

#include <string.h>

struct mpi_wire *
mpi_ring_reserve(struct mpi_ring_hdr *r, uint32_t cap, uint32_t rec_bytes,
                 uint64_t *head_cache)
{
	/* Records start on lines: the stamps the consumer polls and clears
	 * are the first words of lines (ring.h). */
	rec_bytes = (rec_bytes + 63) & ~63u;
	/* Only the producer writes tail: a relaxed load of its own store. */
	uint64_t tail = __atomic_load_n(&r->tail, __ATOMIC_RELAXED);
	uint64_t head = *head_cache;
	uint32_t off = (uint32_t)(tail & (cap - 1));
	uint32_t to_end = cap - off;
	uint32_t need = rec_bytes <= to_end ? rec_bytes : to_end + rec_bytes;
	if (rec_bytes > cap)
		return NULL;
	if (tail - head + need > cap) {
		head = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
		*head_cache = head;
	}
	if (tail - head + need > cap) {
		__atomic_store_n(&r->want_space, 1, __ATOMIC_RELAXED);
		/* The consumer may have drained everything between our load of
		 * head and the flag: look again after publishing the flag. */
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		head = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
		*head_cache = head;
		if (tail - head + need > cap)
			return NULL;
		__atomic_store_n(&r->want_space, 0, __ATOMIC_RELAXED);
	}
	char *data = mpi_ring_data(r);
	if (need != rec_bytes) {
		/* Pad to the end; the record goes at the start. */
		struct mpi_wire *pad = (struct mpi_wire *)(data + off);
		pad->rec_bytes = to_end;
		pad->type = MPI_W_PAD;
		__atomic_store_n(&pad->stamp, tail + 1, __ATOMIC_RELEASE);
		tail += to_end;
		__atomic_store_n(&r->tail, tail, __ATOMIC_RELAXED);
		off = 0;
	}
	struct mpi_wire *w = (struct mpi_wire *)(data + off);
	w->rec_bytes = rec_bytes;
	w->flags = 0;
	return w;
}

void
mpi_ring_commit(struct mpi_ring_hdr *r, uint32_t cap, struct mpi_wire *w)
{
	(void)cap;
	uint64_t tail = __atomic_load_n(&r->tail, __ATOMIC_RELAXED);
	/* tail is the producer's own position; only the stamp publishes. */
	__atomic_store_n(&r->tail, tail + w->rec_bytes, __ATOMIC_RELAXED);
	/* Publishes the record (a consumer that sees the stamp sees it) and
	 * orders the producer's next load after it (see ring.h). */
	__atomic_store_n(&w->stamp, tail + 1, __ATOMIC_SEQ_CST);
}

/* Zeroes the first word of each line of a consumed record (ring.h). */
static inline void
clear_stamps(struct mpi_wire *w)
{
	char *p = (char *)w;
	for (uint32_t off = 0; off < w->rec_bytes; off += 64)
		__atomic_store_n((uint64_t *)(p + off), 0, __ATOMIC_RELAXED);
}

struct mpi_wire *
mpi_ring_peek(struct mpi_ring_hdr *r, uint32_t cap)
{
	uint64_t head = __atomic_load_n(&r->head, __ATOMIC_RELAXED);
	for (;;) {
		struct mpi_wire *w =
			(struct mpi_wire *)(mpi_ring_data(r) + (head & (cap - 1)));
		if (__atomic_load_n(&w->stamp, __ATOMIC_ACQUIRE) != head + 1)
			return NULL;
		if (w->type != MPI_W_PAD)
			return w;
		head += w->rec_bytes;
		clear_stamps(w);
		/* Gives the space back after the stamps are cleared. */
		__atomic_store_n(&r->head, head, __ATOMIC_RELEASE);
	}
}

void
mpi_ring_release(struct mpi_ring_hdr *r, uint32_t cap, struct mpi_wire *w)
{
	(void)cap;
	uint64_t head = __atomic_load_n(&r->head, __ATOMIC_RELAXED);
	uint32_t n = w->rec_bytes;
	clear_stamps(w);
	__atomic_store_n(&r->head, head + n, __ATOMIC_RELEASE);
}

int
mpi_ring_space_wanted(struct mpi_ring_hdr *r)
{
	if (__builtin_expect(__atomic_load_n(&r->want_space, __ATOMIC_RELAXED), 0)) {
		__atomic_store_n(&r->want_space, 0, __ATOMIC_RELAXED);
		return 1;
	}
	return 0;
}

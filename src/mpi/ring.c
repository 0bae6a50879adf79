/* SPSC byte rings: see ring.h. */
#include "mpi/ring.h"

#include <string.h>

struct mpi_wire *
mpi_ring_reserve(struct mpi_ring_hdr *r, uint32_t cap, uint32_t rec_bytes)
{
	/* Only the producer writes tail: a relaxed load of its own store. */
	uint64_t tail = __atomic_load_n(&r->tail, __ATOMIC_RELAXED);
	uint64_t head = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
	uint32_t off = (uint32_t)(tail & (cap - 1));
	uint32_t to_end = cap - off;
	uint32_t need = rec_bytes <= to_end ? rec_bytes : to_end + rec_bytes;
	if (rec_bytes > cap || tail - head + need > cap) {
		__atomic_store_n(&r->want_space, 1, __ATOMIC_RELAXED);
		/* The consumer may have drained everything between our load of
		 * head and the flag: look again after publishing the flag. */
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		head = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
		if (rec_bytes > cap || tail - head + need > cap)
			return NULL;
		__atomic_store_n(&r->want_space, 0, __ATOMIC_RELAXED);
	}
	char *data = mpi_ring_data(r);
	if (need != rec_bytes) {
		/* Pad to the end; the record goes at the start. */
		struct mpi_wire *pad = (struct mpi_wire *)(data + off);
		pad->rec_bytes = to_end;
		pad->type = MPI_W_PAD;
		tail += to_end;
		__atomic_store_n(&r->tail, tail, __ATOMIC_RELEASE);
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
	/* Publishes the record: a consumer that sees the new tail sees it. */
	__atomic_store_n(&r->tail, tail + w->rec_bytes, __ATOMIC_RELEASE);
}

struct mpi_wire *
mpi_ring_peek(struct mpi_ring_hdr *r, uint32_t cap)
{
	uint64_t head = __atomic_load_n(&r->head, __ATOMIC_RELAXED);
	for (;;) {
		uint64_t tail = __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
		if (head == tail)
			return NULL;
		struct mpi_wire *w =
			(struct mpi_wire *)(mpi_ring_data(r) + (head & (cap - 1)));
		if (w->type != MPI_W_PAD)
			return w;
		head += w->rec_bytes;
		__atomic_store_n(&r->head, head, __ATOMIC_RELEASE);
	}
}

void
mpi_ring_release(struct mpi_ring_hdr *r, uint32_t cap, struct mpi_wire *w)
{
	(void)cap;
	uint64_t head = __atomic_load_n(&r->head, __ATOMIC_RELAXED);
	__atomic_store_n(&r->head, head + w->rec_bytes, __ATOMIC_RELEASE);
}

int
mpi_ring_space_wanted(struct mpi_ring_hdr *r)
{
	/* Pairs with the producer's fence in mpi_ring_reserve: either it
	 * sees our new head, or we see its flag. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (__builtin_expect(__atomic_load_n(&r->want_space, __ATOMIC_RELAXED), 0)) {
		__atomic_store_n(&r->want_space, 0, __ATOMIC_RELAXED);
		return 1;
	}
	return 0;
}

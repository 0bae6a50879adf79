/* The TCP transport's decoders (tcp_wire.h): pure checks of what a
 * socket delivers, kept apart so a fuzz target can feed them
 * (tests/fuzz/fuzz_mpi_tcp_wire.c). */
#include "mpi/tcp_wire.h"

#include <string.h>

long
mpi_tcp_record_len(const void *buf, size_t avail, size_t max)
{
	if (avail < MPI_WIRE_HDR)
		return 0;
	struct mpi_wire w;
	memcpy(&w, buf, MPI_WIRE_HDR);
	uint32_t rb = w.rec_bytes;
	if (rb < MPI_WIRE_HDR || (rb & 7) || rb > max)
		return -1;
	/* A payload beyond the record (EAGER, DATA) is a lie. */
	if ((w.type == MPI_W_EAGER || w.type == MPI_W_DATA) &&
	    w.bytes > rb - MPI_WIRE_HDR)
		return -1;
	return avail < rb ? 0 : (long)rb;
}

int
mpi_tcp_hello_check(const struct tcp_hello *h, int me, int n,
                    const char *jobid)
{
	if (h->magic != TCP_MAGIC || h->version != TCP_VERSION || h->to != me ||
	    h->from < 0 || h->from >= n || h->from == me)
		return -1;
	if (memchr(h->jobid, '\0', sizeof h->jobid) == NULL ||
	    strcmp(h->jobid, jobid) != 0)
		return -1;
	return 0;
}

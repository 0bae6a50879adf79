/* Fuzz the TCP transport's decoders (src/mpi/tcp_wire.c): what a Grove
 * MPI rank reads from a socket.  The input is taken as a byte stream of
 * records: each length the decoder accepts lies inside the input, is a
 * multiple of 8 and at least a header, and the stream is walked record
 * by record; the same bytes are also checked as a HELLO.  Never a crash.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/tcp_wire.h"

#define fz_fail() fz_fail_at(__LINE__)
static void
fz_fail_at(int line)
{
	fprintf(stderr, "fuzz_mpi_tcp_wire.c:%d: invariant broken\n", line);
	abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* The decoder reads records where the receive buffer has them:
	 * at 8-byte aligned offsets of a malloc'd buffer. */
	unsigned char *buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	size_t max = MPI_WIRE_HDR + (256u << 10);
	size_t off = 0;
	for (;;) {
		long rb = mpi_tcp_record_len(buf + off, size - off, max);
		if (rb <= 0)
			break;
		if ((size_t)rb > size - off || (size_t)rb < MPI_WIRE_HDR ||
		    (rb & 7) || (size_t)rb > max)
			fz_fail();
		off += (size_t)rb;
	}
	if (size >= sizeof(struct tcp_hello)) {
		struct tcp_hello h;
		memcpy(&h, buf, sizeof h);
		if (mpi_tcp_hello_check(&h, 1, 4, "job") == 0 &&
		    (h.from < 0 || h.from >= 4 || h.from == 1 || h.to != 1 ||
		     strcmp(h.jobid, "job") != 0))
			fz_fail();
	}
	free(buf);
	return 0;
}

/* Decoding what the TCP transport reads (tcp_chan.h): records and the
 * handshake's HELLO.  Pure functions: no socket, no state. */
#ifndef GROVE_MPI_TCP_WIRE_H
#define GROVE_MPI_TCP_WIRE_H

#include <stddef.h>

#include "mpi/tcp_int.h"

/* The length of the complete record at the front of buf (avail bytes
 * there): > 0, 0 when more bytes are needed, -1 when it cannot be a
 * record of Grove MPI (a length below the header, not a multiple of 8,
 * above max, or a payload longer than the record). */
long mpi_tcp_record_len(const void *buf, size_t avail, size_t max);
/* 0 when h is a HELLO to rank me of a job of n ranks with this id, else
 * -1. */
int mpi_tcp_hello_check(const struct tcp_hello *h, int me, int n,
                        const char *jobid);

#endif

/* A child's link to its parent (internal), opened before the child has an
 * event loop: the two pipes a parent on the same host handed over at
 * spawn ("parent-fds" in the bootstrap), else the parent's Unix socket,
 * else TCP.  A socket is one descriptor for both directions. */
#ifndef GROVE_UPLINK_H
#define GROVE_UPLINK_H

#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "net/conn.h"

typedef struct uplink {
	int rfd, wfd; /* equal for a socket; -1 when closed */
} uplink;

/* Opens the link the bootstrap fields describe: inherited pipes when
 * rfd_in >= 0, else unix_name when non-empty, else host:port.  Returns 0
 * or a negative grove_err; err says why. */
int uplink_open(int rfd_in, int wfd_in, const char *unix_name,
    const char *host, uint16_t port, int timeout_ms, uplink *u, char *err,
    size_t errlen);

/* Hands the descriptors to a conn on loop (see conn_open_fd and
 * conn_open_pipes); u is closed afterwards, also on failure. */
int uplink_conn(uv_loop_t *loop, uplink *u, const conn_ops *ops, void *owner,
    long tag, conn **out);

void uplink_close(uplink *u);

#endif

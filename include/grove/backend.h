/* Grove back-end API.
 *
 * A back-end started by Grove (spawn mode) calls grove_be_init(&argc, &argv,
 * &be): Grove's bootstrap arrives on standard input, never on the command
 * line.  A back-end started by anything else (attach mode) calls
 * grove_be_attach() with the connection file the front-end wrote, or with
 * the fields of one grove_attach_info record and the secret.
 *
 * Like the front-end, a back-end has no hidden thread: its calls drive its
 * connection.  grove_be_fd() gives a descriptor for a poll loop.
 */
#ifndef GROVE_BACKEND_H
#define GROVE_BACKEND_H

#include <stdint.h>

#include "grove/error.h"
#include "grove/packet.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct grove_be grove_be;

/* Spawned back-end.  Returns GROVE_ENOENT when the process was not started
 * by Grove (no bootstrap on stdin); then too *out is set, and
 * grove_be_last_error() says how to attach instead.  On any failure,
 * destroy *out when it is set. */
int grove_be_init(int *argc, char ***argv, grove_be **out);

/* Attaching back-end: take the record of `rank` from the connection file. */
int grove_be_attach(const char *connect_file, uint32_t rank, grove_be **out);
/* ... or from explicit fields: host, port, parent and node of the
 * grove_attach_info record of `rank`, backends from grove_net_backends(),
 * and secret_hex, the 64 hex digits (NUL-terminated) that
 * grove_net_attach_secret() gives the front-end, also the connection
 * file's "secret" value.  Grove copies what it needs; the caller may wipe
 * secret_hex as soon as this returns.  GROVE_EINVAL when secret_hex is not
 * 64 hex digits; a wrong secret is rejected by the parent (GROVE_EAUTH or
 * GROVE_ECLOSED).  On failure *out is set when possible so
 * grove_be_last_error() can be read; destroy it then. */
int grove_be_attach_to(const char *host, uint16_t port, uint32_t parent,
    uint32_t node, uint32_t rank, uint32_t backends, const char *secret_hex,
    grove_be **out);

/* Leave the network (the parent sees an orderly close) and free.  In a
 * process forked from the one that joined, it only frees this copy and
 * closes the child's copies of the descriptors: nothing is flushed or
 * sent and the parent sees no close; the joiner's back-end goes on as
 * before (its libuv loop's epoll set, shared with the child, is left
 * alone). */
void grove_be_destroy(grove_be *be);

uint32_t grove_be_rank(const grove_be *be);
uint32_t grove_be_backends(const grove_be *be); /* BEs in the network */
const char *grove_be_last_error(const grove_be *be);

/* This back-end's clock in ns (CLOCK_REALTIME): the clock that
 * grove_net_clock_skew() measures, including the validation offset of
 * GROVE_CLOCK_INJECT_NS, so samples a tool stamps with it carry exactly
 * the skew the front-end detects (docs/clock-skew.md). */
int64_t grove_be_clock_ns(const grove_be *be);

/* Receive the next packet from the front-end (any stream, or
 * point-to-point: *stream gets the stream id, 0 for point-to-point).
 * timeout_ms: 0 non-blocking, < 0 forever.  GROVE_ECLOSED when the network
 * shut down or the parent is gone. */
int grove_be_recv(grove_be *be, uint32_t *stream, int32_t *tag,
    grove_packet **p, int timeout_ms);

/* Send upstream on a stream (its filters apply), or to the front-end
 * directly (stream 0).  May block while the link is over its queue limit
 * (back-pressure). */
int grove_be_send(grove_be *be, uint32_t stream, int32_t tag,
    const char *fmt, ...);
int grove_be_send_packet(grove_be *be, uint32_t stream, grove_packet *p);
/* Wait until everything sent has been handed to the kernel: 0, or
 * GROVE_ETIMEDOUT (timeout_ms 0: write what the socket takes now),
 * GROVE_ECLOSED once the link to the parent is gone. */
int grove_be_flush(grove_be *be, int timeout_ms);

/* A file descriptor that is readable when grove_be_recv(..., 0) would find
 * a packet or the closed state.  It holds the link and any write waiting
 * for room whenever a Grove call returns, and a back-end has no timers:
 * no Grove call is needed until it is readable.  Owned by be. */
int grove_be_fd(grove_be *be);

#ifdef __cplusplus
}
#endif
#endif

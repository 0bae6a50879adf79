/* Blocking socket helpers with deadlines (internal), for the few places
 * that run before a process has an event loop: the child side of the
 * handshake and connecting to a parent. */
#ifndef GROVE_SOCKIO_H
#define GROVE_SOCKIO_H

#include <stddef.h>
#include <stdint.h>

/* Connect a TCP socket to host:port within timeout_ms; returns the fd or a
 * negative grove_err (err says why). */
int sockio_connect(const char *host, uint16_t port, int timeout_ms, char *err,
    size_t errlen);
/* Read up to len bytes; returns bytes read, 0 on EOF, or a negative
 * grove_err (GROVE_ETIMEDOUT, GROVE_ESYS). */
/* Connect to a listening Unix socket in the abstract namespace. */
int sockio_connect_unix(const char *name, int timeout_ms, char *err,
    size_t errlen);
/* Create a listening Unix socket in the abstract namespace; returns the fd
 * or a negative grove_err. */
int sockio_listen_unix(const char *name, char *err, size_t errlen);
int sockio_read_some(int fd, void *buf, size_t len, int timeout_ms);
int sockio_write_all(int fd, const void *buf, size_t len, int timeout_ms);
/* Keepalive and TCP_USER_TIMEOUT so a dead host is noticed (ms). */
void sockio_tune(int fd, int user_timeout_ms);
uint64_t sockio_now_ms(void);

#endif

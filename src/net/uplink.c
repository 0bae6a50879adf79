#include "net/uplink.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "grove/error.h"
#include "net/sockio.h"

/* The inherited pipes arrive blocking; the handshake reads them with a
 * deadline, which needs non-blocking reads. */
static int
set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);
	return fl >= 0 && fcntl(fd, F_SETFL, fl | O_NONBLOCK) == 0 ? 0 : -1;
}

int
uplink_open(int rfd_in, int wfd_in, const char *unix_name, const char *host,
    uint16_t port, int timeout_ms, uplink *u, char *err, size_t errlen)
{
	u->rfd = u->wfd = -1;
	if (rfd_in >= 0) {
		if (set_nonblock(rfd_in) != 0 || set_nonblock(wfd_in) != 0) {
			snprintf(err, errlen, "pipes to the parent (descriptors "
			    "%d, %d): %s", rfd_in, wfd_in, strerror(errno));
			return GROVE_ESYS;
		}
		/* Not for the programs this process may start. */
		fcntl(rfd_in, F_SETFD, FD_CLOEXEC);
		fcntl(wfd_in, F_SETFD, FD_CLOEXEC);
		u->rfd = rfd_in;
		u->wfd = wfd_in;
		return 0;
	}
	int fd = unix_name && *unix_name
	    ? sockio_connect_unix(unix_name, timeout_ms, err, errlen)
	    : sockio_connect(host, port, timeout_ms, err, errlen);
	if (fd < 0)
		return fd;
	u->rfd = u->wfd = fd;
	return 0;
}

int
uplink_conn(uv_loop_t *loop, uplink *u, const conn_ops *ops, void *owner,
    long tag, conn **out)
{
	int rc;
	if (u->rfd == u->wfd) {
		rc = conn_open_fd(loop, u->rfd, ops, owner, tag, out);
		if (rc != 0)
			close(u->rfd);
	} else {
		rc = conn_open_pipes(loop, u->rfd, u->wfd, ops, owner, tag, out);
	}
	u->rfd = u->wfd = -1;
	return rc;
}

void
uplink_close(uplink *u)
{
	if (u->rfd >= 0)
		close(u->rfd);
	if (u->wfd >= 0 && u->wfd != u->rfd)
		close(u->wfd);
	u->rfd = u->wfd = -1;
}

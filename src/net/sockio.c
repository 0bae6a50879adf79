#include "net/sockio.h"

#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "core/defaults.h"
#include "grove/error.h"

uint64_t
sockio_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static int
wait_fd(int fd, short events, uint64_t deadline)
{
	for (;;) {
		uint64_t now = sockio_now_ms();
		if (now >= deadline)
			return GROVE_ETIMEDOUT;
		struct pollfd p = {.fd = fd, .events = events};
		int n = poll(&p, 1, (int)(deadline - now));
		if (n > 0)
			return 0;
		if (n == 0)
			return GROVE_ETIMEDOUT;
		if (errno != EINTR)
			return GROVE_ESYS;
	}
}

void
sockio_tune(int fd, int user_timeout_ms)
{
	int one = 1, idle = 5, intvl = 2, cnt = 3;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one);
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle);
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof intvl);
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof cnt);
	unsigned ut = (unsigned)user_timeout_ms;
	setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &ut, sizeof ut);
}

int
sockio_connect(const char *host, uint16_t port, int timeout_ms, char *err,
    size_t errlen)
{
	uint64_t deadline = sockio_now_ms() + (uint64_t)timeout_ms;
	struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
	struct addrinfo *res = NULL;
	char ports[8];
	snprintf(ports, sizeof ports, "%u", port);
	int g = getaddrinfo(host, ports, &hints, &res);
	if (g != 0) {
		snprintf(err, errlen, "cannot resolve '%s': %s", host, gai_strerror(g));
		return GROVE_ESYS;
	}
	int last = 0;
	for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
		int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC |
		    SOCK_NONBLOCK, 0);
		if (fd < 0) {
			last = errno;
			continue;
		}
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0 ||
		    errno == EINPROGRESS) {
			int rc = wait_fd(fd, POLLOUT, deadline);
			int soerr = 0;
			socklen_t sl = sizeof soerr;
			if (rc == 0 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr,
				&sl) == 0 && soerr == 0) {
				freeaddrinfo(res);
				return fd;
			}
			last = rc == GROVE_ETIMEDOUT ? ETIMEDOUT : soerr;
		} else {
			last = errno;
		}
		close(fd);
	}
	freeaddrinfo(res);
	snprintf(err, errlen, "cannot connect to %s:%u: %s", host, port,
	    strerror(last));
	return last == ETIMEDOUT ? GROVE_ETIMEDOUT : GROVE_ESYS;
}

int
sockio_read_some(int fd, void *buf, size_t len, int timeout_ms)
{
	uint64_t deadline = sockio_now_ms() + (uint64_t)timeout_ms;
	for (;;) {
		ssize_t n = read(fd, buf, len);
		if (n >= 0)
			return (int)n;
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return errno == ECONNRESET ? 0 : GROVE_ESYS;
		int rc = wait_fd(fd, POLLIN, deadline);
		if (rc != 0)
			return rc;
	}
}

int
sockio_write_all(int fd, const void *buf, size_t len, int timeout_ms)
{
	uint64_t deadline = sockio_now_ms() + (uint64_t)timeout_ms;
	const uint8_t *p = buf;
	int is_pipe = 0;
	while (len > 0) {
		/* send() keeps a closed socket from raising SIGPIPE; a pipe
		 * (a link to a parent on the same host) takes write(), and
		 * Grove's processes ignore SIGPIPE. */
		ssize_t n = is_pipe ? write(fd, p, len) :
		    send(fd, p, len, MSG_NOSIGNAL);
		if (n < 0 && errno == ENOTSOCK && !is_pipe) {
			is_pipe = 1;
			continue;
		}
		if (n > 0) {
			p += n;
			len -= (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
			return GROVE_ECLOSED;
		int rc = wait_fd(fd, POLLOUT, deadline);
		if (rc != 0)
			return rc;
	}
	return 0;
}

/* Abstract names need no file and vanish with the last descriptor. */
static socklen_t
unix_addr(const char *name, struct sockaddr_un *sa)
{
	memset(sa, 0, sizeof *sa);
	sa->sun_family = AF_UNIX;
	size_t l = strlen(name);
	if (l > sizeof sa->sun_path - 2)
		l = sizeof sa->sun_path - 2;
	memcpy(sa->sun_path + 1, name, l);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + l);
}

int
sockio_connect_unix(const char *name, int timeout_ms, char *err, size_t errlen)
{
	struct sockaddr_un sa;
	socklen_t sl = unix_addr(name, &sa);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		snprintf(err, errlen, "socket: %s", strerror(errno));
		return GROVE_ESYS;
	}
	uint64_t deadline = sockio_now_ms() + (uint64_t)timeout_ms;
	for (;;) {
		if (connect(fd, (struct sockaddr *)&sa, sl) == 0)
			return fd;
		if (errno == EAGAIN && sockio_now_ms() < deadline) {
			/* backlog full: the parent is busy accepting */
			struct timespec ts = {0, 1000000};
			nanosleep(&ts, NULL);
			continue;
		}
		if (errno == EINPROGRESS && wait_fd(fd, POLLOUT, deadline) == 0)
			return fd;
		break;
	}
	snprintf(err, errlen, "cannot connect to local parent socket '%s': %s",
	    name, strerror(errno));
	close(fd);
	return GROVE_ESYS;
}

int
sockio_listen_unix(const char *name, char *err, size_t errlen)
{
	struct sockaddr_un sa;
	socklen_t sl = unix_addr(name, &sa);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sl) != 0 ||
	    listen(fd, GROVE_LISTEN_BACKLOG) != 0) {
		snprintf(err, errlen, "cannot listen on local socket '%s': %s", name,
		    strerror(errno));
		if (fd >= 0)
			close(fd);
		return GROVE_ESYS;
	}
	return fd;
}

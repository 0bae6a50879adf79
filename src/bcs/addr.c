/* A node's listening socket for direct links.  It listens on the address
 * it reaches its parent from: the address the kernel picks to route to
 * the parent's host (a connected UDP socket sends nothing), so nodes on
 * one host talk over loopback and nodes of a cluster over the network
 * their tree uses. */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bcs/bcs_impl.h"
#include "core/defaults.h"

static int
route_source(const char *host, struct sockaddr_storage *out, socklen_t *olen,
    char *why, size_t cap)
{
	struct addrinfo hints, *ai = NULL;
	memset(&hints, 0, sizeof hints);
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_DGRAM;
	int g = getaddrinfo(host, "9", &hints, &ai);
	if (g != 0 || !ai) {
		snprintf(why, cap, "cannot resolve its parent's host '%s': %s",
		    host, gai_strerror(g));
		return GROVE_ESYS;
	}
	int rc = GROVE_ESYS;
	for (struct addrinfo *a = ai; a && rc != 0; a = a->ai_next) {
		int fd = socket(a->ai_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			continue;
		*olen = sizeof *out;
		if (connect(fd, a->ai_addr, a->ai_addrlen) == 0 &&
		    getsockname(fd, (struct sockaddr *)out, olen) == 0)
			rc = 0;
		close(fd);
	}
	freeaddrinfo(ai);
	if (rc != 0)
		snprintf(why, cap, "no route to its parent's host '%s': %s",
		    host, strerror(errno));
	return rc;
}

int
bcs_listen(grove_bcs *b, const char *parent_host, char *addr, size_t addrcap,
    uint16_t *port)
{
	char why[300];
	struct sockaddr_storage ss;
	socklen_t sl = 0;
	int rc = route_source(parent_host, &ss, &sl, why, sizeof why);
	if (rc != 0) {
		bcs_set_error(b, "grove_bcs_node_open: node %u: %s", b->self,
		    why);
		return rc;
	}
	if (ss.ss_family == AF_INET)
		((struct sockaddr_in *)&ss)->sin_port = 0;
	else
		((struct sockaddr_in6 *)&ss)->sin6_port = 0;
	int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK |
	    SOCK_CLOEXEC, 0);
	const char *step = "socket";
	if (fd >= 0) {
		step = "bind";
		if (bind(fd, (struct sockaddr *)&ss, sl) == 0) {
			step = "listen";
			if (listen(fd, GROVE_LISTEN_BACKLOG) == 0) {
				step = "getsockname";
				sl = sizeof ss;
				if (getsockname(fd, (struct sockaddr *)&ss,
				    &sl) == 0)
					step = NULL;
			}
		}
	}
	const void *ip = ss.ss_family == AF_INET ?
	    (const void *)&((struct sockaddr_in *)&ss)->sin_addr :
	    (const void *)&((struct sockaddr_in6 *)&ss)->sin6_addr;
	if (!step && !inet_ntop(ss.ss_family, ip, addr, (socklen_t)addrcap))
		step = "inet_ntop";
	if (step) {
		bcs_set_error(b, "grove_bcs_node_open: node %u: cannot listen "
		    "for direct links near '%s' (%s: %s)", b->self, parent_host,
		    step, strerror(errno));
		if (fd >= 0)
			close(fd);
		return GROVE_ESYS;
	}
	*port = ntohs(ss.ss_family == AF_INET ?
	    ((struct sockaddr_in *)&ss)->sin_port :
	    ((struct sockaddr_in6 *)&ss)->sin6_port);
	b->lfd = fd;
	if (bcs_node_epoll_add(b, fd, bcs_listen_mark(), 0) != 0) {
		bcs_set_error(b, "grove_bcs_node_open: node %u: epoll_ctl: %s",
		    b->self, strerror(errno));
		return GROVE_ESYS;
	}
	return 0;
}

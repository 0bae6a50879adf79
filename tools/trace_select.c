/* Choosing a network's event spaces and collecting them live: shared by
 * grove trace and grove report (see trace_select.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "grove/error.h"
#include "net/sockio.h"
#include "trace/reader.h"
#include "trace_select.h"

/* 0 when `net` can name a network's event spaces: what
 * trace_segment_name accepts ([A-Za-z0-9_-], 1..TRACE_NET_LEN-1
 * characters; dots separate the fields of a segment name).  Checked
 * before use so that a long id is refused rather than cut to one that
 * may name another network. */
int
tool_check_net(const char *cmd, const char *net)
{
	char name[128];
	if (trace_segment_name(name, sizeof name, net, "fe", 0) == 0)
		return 0;
	fprintf(stderr, "%s: invalid --net '%s': a network id is "
	        "1 to %d characters of A-Z a-z 0-9 _ -\n", cmd, net,
	        TRACE_NET_LEN - 1);
	return 2;
}

/* Why /dev/shm could not be listed: a /dev/shm that is missing or that
 * this user may not read says so (trace_list leaves errno from opendir). */
void
tool_say_no_list(const char *cmd, int rc)
{
	fprintf(stderr, "%s: cannot list /dev/shm: %s\n", cmd,
	        rc == GROVE_ESYS ? strerror(errno) : grove_strerror(rc));
}

/* The network to work on: the one given (already checked), or the only
 * one present. */
int
tool_pick_net(const char *cmd, const char *given, char *out, size_t len)
{
	if (given) {
		if (strlen(given) >= len)
			return 1; /* check_net refused it already */
		snprintf(out, len, "%s", given);
		return 0;
	}
	char **names;
	size_t n;
	/* Quiet: other users' segments are named by the reading that
	 * follows, for the network chosen. */
	int rc = trace_list(NULL, NULL, &names, &n);
	if (rc) {
		tool_say_no_list(cmd, rc);
		return 1;
	}
	out[0] = 0;
	for (size_t i = 0; i < n; i++) {
		char net[TRACE_NET_LEN], role[TRACE_ROLE_LEN];
		uint32_t rank;
		trace_parse_name(names[i], net, sizeof net, role, sizeof role,
		                 &rank);
		if (!out[0])
			snprintf(out, len, "%s", net);
		else if (strcmp(out, net)) {
			fprintf(stderr, "%s: several networks have "
			        "event spaces (%s, %s, ...); choose one with "
			        "--net (see grove trace list)\n", cmd, out,
			        net);
			rc = 1;
			break;
		}
	}
	if (!rc && !out[0]) {
		fprintf(stderr, "%s: no event spaces in /dev/shm\n", cmd);
		rc = 1;
	}
	trace_list_free(names, n);
	return rc;
}

int
tool_collect_live(const char *cmd, const char *net, int timeout_ms)
{
	char name[TRACE_NET_LEN + 16], err[256], line[256];
	/* net passed tool_check_net, so the name always fits. */
	snprintf(name, sizeof name, "grove.%s.ctl", net);
	int fd = sockio_connect_unix(name, 2000, err, sizeof err);
	if (fd < 0) {
		fprintf(stderr, "%s: network %s has no running "
		        "front-end to collect from (%s)\n", cmd, net, err);
		return 1;
	}
	/* An abstract socket's name is anyone's to take and the network id
	 * is not secret: the answer is trusted only from a process of this
	 * user (or root), as the front-end trusts only such clients. */
	struct ucred cr;
	socklen_t crlen = sizeof cr;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &crlen) != 0) {
		fprintf(stderr, "%s: cannot tell who holds the control "
		        "socket of network %s: %s\n", cmd, net,
		        strerror(errno));
		close(fd);
		return 1;
	}
	if (cr.uid != geteuid() && cr.uid != 0) {
		fprintf(stderr, "%s: the control socket of network %s "
		        "(@%s) is someone else's: it is held by pid %ld of uid "
		        "%u, not by this user (uid %u); not asking it to "
		        "collect\n", cmd, net, name, (long)cr.pid,
		        (unsigned)cr.uid,
		        (unsigned)geteuid());
		close(fd);
		return 1;
	}
	int n = snprintf(line, sizeof line, "collect %d\n", timeout_ms);
	size_t got = 0;
	int rc = sockio_write_all(fd, line, (size_t)n, 2000);
	/* The front-end answers inside one of its Grove calls: allow for
	 * the collection's own timeout and a busy tool. */
	while (rc >= 0 && got < sizeof line - 1 && !memchr(line, '\n', got)) {
		ssize_t r = sockio_read_some(fd, line + got,
		                             sizeof line - 1 - got,
		                             timeout_ms + 5000);
		if (r <= 0) {
			rc = -1;
			break;
		}
		got += (size_t)r;
	}
	close(fd);
	line[got] = '\0';
	char *nl = strchr(line, '\n');
	if (nl)
		*nl = '\0';
	unsigned copied, answered, expected;
	if (rc < 0 || !nl) {
		fprintf(stderr, "%s: the front-end of network %s did "
		        "not answer within %d ms (it serves requests only "
		        "inside its Grove calls)\n", cmd, net,
		        timeout_ms + 5000);
		return 1;
	}
	if (sscanf(line, "ok %u %u %u", &copied, &answered, &expected) == 3) {
		fprintf(stderr, "%s: %u of %u processes answered, "
		        "%u event spaces copied from other hosts\n", cmd,
		        answered, expected, copied);
		return 0;
	}
	if (sscanf(line, "timeout %u %u %u", &copied, &answered,
	           &expected) == 3) {
		fprintf(stderr, "%s: only %u of %u processes answered "
		        "within %d ms (%u copied); going on with what is "
		        "here\n", cmd, answered, expected, timeout_ms, copied);
		return 0;
	}
	fprintf(stderr, "%s: front-end of network %s: %s\n", cmd, net,
	        line);
	return 1;
}


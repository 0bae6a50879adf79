/* The front-end's control socket (src/tbon/fe_ctl.c), driven as a tool
 * drives Grove: poll(grove_net_fd()) and grove_net_progress().  Idle
 * clients fill its slots, so the next one is told "busy"; after
 * FE_CTL_REQUEST_MS without a request each idle client is told why and
 * closed, and a real "collect" is answered again.  Bad request lines get
 * an error line.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "helper_common.h"
#include "net/sockio.h"
#include "tbon/fe_internal.h"

static char ctl_name[96];

static int
ctl_connect(void)
{
	char err[256];
	int fd = sockio_connect_unix(ctl_name, 2000, err, sizeof err);
	if (fd < 0)
		IT_FAIL("connect to %s: %s", ctl_name, err);
	return fd;
}

/* Runs the front-end for ms milliseconds. */
static void
drive(grove_net *net, int ms)
{
	uint64_t end = it_now_ms() + (uint64_t)ms;
	while (it_now_ms() < end) {
		struct pollfd p = {grove_net_fd(net), POLLIN, 0};
		poll(&p, 1, 20);
		int rc = grove_net_progress(net);
		if (rc < 0)
			IT_FAIL("grove_net_progress: %s", grove_strerror(rc));
	}
}

/* The line a client got, driving the front-end until it comes (or EOF),
 * at most ms; "" when nothing came. */
static void
answer(grove_net *net, int fd, int ms, char *line, size_t cap)
{
	size_t len = 0;
	line[0] = 0;
	uint64_t end = it_now_ms() + (uint64_t)ms;
	while (it_now_ms() < end && len + 1 < cap) {
		ssize_t n = recv(fd, line + len, cap - 1 - len, MSG_DONTWAIT);
		if (n > 0) {
			len += (size_t)n;
			line[len] = 0;
			if (strchr(line, '\n'))
				return;
			continue;
		}
		if (n == 0)
			return;
		drive(net, 20);
	}
}

static void
expect_answer(grove_net *net, int fd, const char *want_prefix)
{
	char line[256];
	answer(net, fd, 10000, line, sizeof line);
	if (strncmp(line, want_prefix, strlen(want_prefix)))
		IT_FAIL("control socket answered \"%s\", wanted \"%s...\"", line,
		    want_prefix);
}

int
main(void)
{
	it_init("it_fe_ctl", 0);
	grove_net *net = it_net_spawn("flat", 2);
	snprintf(ctl_name, sizeof ctl_name, "grove.%s.ctl", grove_net_id(net));

	it_step("bad request lines get an error line");
	int fd = ctl_connect();
	const char *junk = "hello\n";
	CHECK(send(fd, junk, strlen(junk), MSG_NOSIGNAL) > 0);
	expect_answer(net, fd, "error unknown request");
	close(fd);
	fd = ctl_connect();
	const char *zero = "collect 0\n";
	CHECK(send(fd, zero, strlen(zero), MSG_NOSIGNAL) > 0);
	expect_answer(net, fd, "error unknown request");
	close(fd);

	it_step("idle clients fill the slots: the next one is busy");
	int idle[FE_CTL_MAX_CLIENTS];
	for (int i = 0; i < FE_CTL_MAX_CLIENTS; i++)
		idle[i] = ctl_connect();
	drive(net, 200);
	fd = ctl_connect();
	expect_answer(net, fd, "error front-end busy");
	close(fd);

	it_step("after the request time, idle clients are told and closed");
	for (int i = 0; i < FE_CTL_MAX_CLIENTS; i++) {
		expect_answer(net, idle[i], "error no request within");
		close(idle[i]);
	}

	it_step("a collect request is answered again");
	fd = ctl_connect();
	const char *req = "collect 5000\n";
	CHECK(send(fd, req, strlen(req), MSG_NOSIGNAL) > 0);
	expect_answer(net, fd, "ok ");
	close(fd);

	it_net_destroy(net);
	return it_done();
}

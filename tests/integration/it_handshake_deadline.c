/* The handshake deadline does not depend on heartbeat_ms: with a
 * heartbeat of 60 s, a connection to the FE's or a CP's port that never
 * finishes its handshake (one that sends nothing, one that sends half a
 * frame header) is closed after the 10 s deadline, not at the next
 * heartbeat.  The bound checked, 25 s, only tells a deadline of about
 * 10 s from one of a heartbeat period (60 s): it is not a speed limit.
 */
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "helper_common.h"

#define HEARTBEAT_MS 60000
#define CLOSED_BY_MS 25000

typedef struct peer {
	const char *what;
	int fd;
	int closed;
} peer;

/* An attach-mode network: rank 0's parent is the node whose port is
 * tested (the FE in a flat tree, a CP in kary:2). */
static grove_net *
net_up(const char *topo, grove_attach_info *ai)
{
	grove_net_opts o;
	it_attach_opts(&o, topo, 4, NULL);
	o.heartbeat_ms = HEARTBEAT_MS;
	grove_net *net = it_net_create(&o);
	CHECK_OK_NET(net, grove_net_attach_info(net, 0, ai));
	it_step("%s: rank 0's parent is node %u at %s:%u", topo, ai->parent,
	    ai->host, ai->port);
	return net;
}

int
main(void)
{
	it_init("it_handshake_deadline", 120);
	grove_attach_info fe_ai, cp_ai;
	grove_net *flat = net_up("flat", &fe_ai);
	grove_net *kary = net_up("kary:2", &cp_ai);
	CHECK_INT_EQ(fe_ai.parent, 0);
	CHECK(cp_ai.parent != 0);
	peer p[4] = {
		{"idle connection to the FE", it_dial(fe_ai.host, fe_ai.port), 0},
		{"half a header to the FE", it_dial(fe_ai.host, fe_ai.port), 0},
		{"idle connection to a CP", it_dial(cp_ai.host, cp_ai.port), 0},
		{"half a header to a CP", it_dial(cp_ai.host, cp_ai.port), 0},
	};
	/* The start of a frame header, never completed. */
	static const unsigned char part[6] = {64, 0, 0, 0, 11, 0};
	CHECK(write(p[1].fd, part, sizeof part) == (ssize_t)sizeof part);
	CHECK(write(p[3].fd, part, sizeof part) == (ssize_t)sizeof part);
	uint64_t t0 = it_now_ms();
	int left = 4;
	while (left > 0) {
		uint64_t now = it_now_ms();
		if (now - t0 > CLOSED_BY_MS) {
			for (int i = 0; i < 4; i++)
				if (!p[i].closed)
					IT_FAIL("%s still open after %llu ms with "
					    "heartbeat_ms %d", p[i].what,
					    (unsigned long long)(now - t0),
					    HEARTBEAT_MS);
		}
		/* The FEs' loops run only inside Grove calls. */
		grove_event ev;
		grove_net_next_event(flat, &ev, 50);
		grove_net_next_event(kary, &ev, 50);
		for (int i = 0; i < 4; i++) {
			if (p[i].closed)
				continue;
			struct pollfd pf = {.fd = p[i].fd, .events = POLLIN};
			if (poll(&pf, 1, 0) != 1)
				continue;
			char buf[512];
			ssize_t r = read(p[i].fd, buf, sizeof buf);
			if (r > 0 || (r < 0 && errno == EINTR))
				continue; /* the challenge */
			p[i].closed = 1;
			left--;
			it_step("%s closed after %llu ms", p[i].what,
			    (unsigned long long)(it_now_ms() - t0));
			close(p[i].fd);
		}
	}
	grove_net_destroy(flat);
	grove_net_destroy(kary);
	it_check_no_procs(NULL, 0, 5000);
	return it_done();
}

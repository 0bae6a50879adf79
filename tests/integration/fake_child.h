/* A fake child for tests of what a parent accepts from its children: a
 * process Grove starts as a back-end or a CP (be_exe / commnode_exe set to
 * the test program) that reads its real bootstrap, proves the secret with
 * the real handshake, and then says whatever the test wants on the raw
 * link (it_ready_checks, it_child_msg_checks, it_filter_acks,
 * it_trace_answers), or claims another protocol version (it_protocol). */
#ifndef GROVE_IT_FAKE_CHILD_H
#define GROVE_IT_FAKE_CHILD_H

#include <stddef.h>
#include <stdint.h>

#include "grove/packet.h"
#include "grove/topology.h"
#include "net/boot.h"
#include "net/uplink.h"

/* Which case the fake children play, passed down in the environment. */
#define FAKE_ENV "GROVE_IT_FAKE_PEER"

typedef struct fake_child {
	boot b;            /* the bootstrap it was started with */
	grove_topo *topo;  /* the tree (a CP's bootstrap has it), or NULL */
	uplink up;         /* the link to its parent, blocking */
	int is_cp;
	uint32_t below;    /* back-ends below it (1 for a back-end) */
	uint32_t src;      /* the source rank it sends with: its rank, or
	                      PROTO_NODE_RANK(node) for a CP */
} fake_child;

/* Reads the bootstrap on stdin and joins the parent.  0, or the exit
 * status for the process (the reason said on stderr). */
int fake_join(fake_child *f);
void fake_leave(fake_child *f);
/* Like fake_join, but its hello claims protocol `aux` (the header field
 * of src/net/auth.h) with a valid proof, as a child of another Grove
 * version would.  0 when the parent turned it away with a proven
 * AUTH_REJECT, whose reason is then in why; else the exit status, with
 * what happened said on stderr. */
int fake_join_as(fake_child *f, uint32_t aux, char *why, size_t cap);

/* Writes p whole on fd and drops the caller's reference.  0 or -1. */
int fake_send(int fd, grove_packet *p);
/* A READY with bes back-ends and n endpoints, all naming node ep_node. */
int fake_send_ready(int fd, uint32_t src, uint32_t bes, uint32_t ep_node,
    size_t n);
/* The next frame from fd as a packet (unref it), or NULL at EOF. */
grove_packet *fake_next_frame(int fd);

/* Serves the link until SHUTDOWN or EOF, answering a CP parent's
 * heartbeats (it gives up on a silent child) and handing every other
 * frame to on_frame, which returns 0 to go on.  Returns what on_frame
 * returned last, or 0. */
int fake_serve(fake_child *f, int (*on_frame)(fake_child *f,
    grove_packet *p, void *arg), void *arg);

#endif

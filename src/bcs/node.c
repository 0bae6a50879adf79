/* BCS node engine: one epoll set holds the back-end's descriptor (the
 * tree: the manager's multicasts and point-to-point messages), the
 * listening socket and the direct links; grove_bcs_fd() is that set.
 * Nothing runs behind the caller's back: the calls drain it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

#include "bcs/bcs_impl.h"
#include "core/log.h"

/* epoll data of the listening socket (links carry their bcs_link, the
 * back-end NULL). */
static char listen_mark;

int
bcs_node_epoll_add(grove_bcs *b, int fd, void *ptr, int out)
{
	struct epoll_event ev = {.events = EPOLLIN | (out ? EPOLLOUT : 0),
	    .data.ptr = ptr};
	return epoll_ctl(b->ep, EPOLL_CTL_ADD, fd, &ev) == 0 ? 0 : GROVE_ESYS;
}

int
bcs_node_epoll_mod(grove_bcs *b, int fd, void *ptr, int out)
{
	struct epoll_event ev = {.events = EPOLLIN | (out ? EPOLLOUT : 0),
	    .data.ptr = ptr};
	return epoll_ctl(b->ep, EPOLL_CTL_MOD, fd, &ev) == 0 ? 0 : GROVE_ESYS;
}

void
bcs_node_epoll_del(grove_bcs *b, int fd)
{
	epoll_ctl(b->ep, EPOLL_CTL_DEL, fd, NULL);
}

void *
bcs_listen_mark(void)
{
	return &listen_mark;
}

void
bcs_manager_gone(grove_bcs *b, const char *why)
{
	if (b->manager_gone)
		return;
	b->manager_gone = 1;
	snprintf(b->manager_why, sizeof b->manager_why, "%s", why);
	/* What waits for the manager's answers will not get them. */
	bcs_xfers_node_lost(b, GROVE_BCS_MANAGER, GROVE_ECLOSED, why);
}

int
bcs_node_send_up(grove_bcs *b, uint32_t stream, const bcs_msg *m,
    const bcs_wire_tables *t, const void *payload, size_t plen)
{
	uint8_t stack[512], *heap = NULL, *blob = stack;
	size_t len = bcs_wire_encode(m, t, stack, sizeof stack);
	if (len == 0) {
		bcs_set_error(b, "cannot encode a BCS %s message",
		    bcs_wire_type_name(m->type));
		return GROVE_EINVAL;
	}
	if (len > sizeof stack) {
		if (!(heap = malloc(len))) {
			bcs_set_error(b, "out of memory for a BCS message");
			return GROVE_ENOMEM;
		}
		bcs_wire_encode(m, t, heap, len);
		blob = heap;
	}
	int rc = grove_be_send(b->be, stream, BCS_TAG(m->type), "%auc %auc",
	    blob, (uint64_t)len, payload ? payload : (const void *)blob,
	    (uint64_t)plen);
	free(heap);
	if (rc != 0) {
		bcs_set_error(b, "node %u: sending a BCS %s to the manager: %s",
		    b->self, bcs_wire_type_name(m->type),
		    grove_be_last_error(b->be));
		if (rc == GROVE_ECLOSED)
			bcs_manager_gone(b, "the link to the manager is closed");
	}
	return rc;
}

/* Everything the tree brought. */
static void
drain_be(grove_bcs *b)
{
	for (;;) {
		uint32_t stream = 0;
		int32_t tag = 0;
		grove_packet *p = NULL;
		int rc = grove_be_recv(b->be, &stream, &tag, &p, 0);
		if (rc == GROVE_EAGAIN || rc == GROVE_ETIMEDOUT)
			return;
		if (rc != 0) {
			char why[300];
			snprintf(why, sizeof why, "the manager is gone (%s)",
			    grove_be_last_error(b->be)[0] ?
			    grove_be_last_error(b->be) :
			    "the network shut down");
			bcs_manager_gone(b, why);
			return;
		}
		const uint8_t *blob = NULL, *pay = NULL;
		uint64_t bl = 0, pl = 0;
		bcs_msg m;
		char why[300];
		if ((stream != 0 && stream != b->sc_id) ||
		    tag < BCS_TAG(1) || tag >= BCS_TAG(BCS_T_MAX_) ||
		    grove_packet_unpack(p, "%auc %auc", &blob, &bl, &pay,
		    &pl) != 0) {
			/* Not BCS traffic: the back-end is the machine's
			 * while it is open (docs/bcs.md). */
			b->dropped++;
		} else if (bcs_wire_decode(blob, bl, pay, pl, &m, why,
		    sizeof why) != 0) {
			log_warn("bcs: node %u: from the manager: %s (dropped)",
			    b->self, why);
		} else if (tag != BCS_TAG(m.type)) {
			log_warn("bcs: node %u: tag %d does not match the "
			    "manager's %s message (dropped)", b->self, tag,
			    bcs_wire_type_name(m.type));
		} else {
			bcs_dispatch(b, GROVE_BCS_MANAGER, &m, NULL);
		}
		grove_packet_unref(p);
	}
}

static void
handle(grove_bcs *b, const struct epoll_event *ev, int n)
{
	int be_ready = 0;
	for (int i = 0; i < n; i++) {
		void *ptr = ev[i].data.ptr;
		if (!ptr)
			be_ready = 1;
		else if (ptr == &listen_mark)
			bcs_link_accept(b);
		else
			bcs_link_io(b, ptr, ev[i].events);
	}
	if (be_ready && !b->manager_gone)
		drain_be(b);
	bcs_links_reap(b);
}

#define NODE_EVENTS 64

int
bcs_node_poll(grove_bcs *b)
{
	struct epoll_event ev[NODE_EVENTS];
	int n = epoll_wait(b->ep, ev, NODE_EVENTS, 0);
	if (n > 0)
		handle(b, ev, n);
	return 0;
}

void
bcs_node_block(grove_bcs *b, int ms)
{
	struct epoll_event ev[NODE_EVENTS];
	int n = epoll_wait(b->ep, ev, NODE_EVENTS, ms);
	if (n > 0)
		handle(b, ev, n);
	else if (n < 0 && errno != EINTR)
		log_warn("bcs: node %u: epoll_wait: %s", b->self,
		    strerror(errno));
}

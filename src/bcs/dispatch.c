/* What the manager and the nodes do with each message, and with a lost
 * node. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bcs/bcs_impl.h"
#include "core/log.h"

void
bcs_node_lost(grove_bcs *b, uint32_t node, int left, const char *why)
{
	if (node >= b->nodes || b->peers[node].lost)
		return;
	bcs_peer *p = &b->peers[node];
	p->lost = 1;
	p->left = left;
	snprintf(p->why, sizeof p->why, "%s", why);
	b->nlost++;
	if (b->first_lost == UINT32_MAX)
		b->first_lost = node;
	char msg[320];
	snprintf(msg, sizeof msg, "node %u %s: %s", node,
	    left ? "has left the machine" : "is lost", why);
	log_info("bcs: %s", msg);
	bcs_xfers_node_lost(b, node, left ? GROVE_ECLOSED : GROVE_ELOST, msg);
	if (b->role == BCS_ROLE_NODE) {
		if (p->out)
			bcs_link_close(b, p->out);
		for (bcs_link *l = b->accepted; l;) {
			bcs_link *next = l->next;
			if (l->peer == node)
				bcs_link_close(b, l);
			l = next;
		}
		return;
	}
	bcs_caw_node_gone(b, node);
	if (b->open_done) {
		/* The nodes stop sending to it and fail what waits for it. */
		bcs_msg m;
		memset(&m, 0, sizeof m);
		m.type = BCS_T_LOST;
		m.u.lost.node = node;
		m.u.lost.why.p = p->why;
		m.u.lost.why.len = (uint32_t)strlen(p->why);
		char save[sizeof b->err];
		memcpy(save, b->err, sizeof save);
		bcs_mgr_multicast(b, &m, NULL, NULL, 0);
		memcpy(b->err, save, sizeof save);
	}
}

/* ---- the manager -------------------------------------------------------- */

void
bcs_mgr_reply_wave(grove_bcs *b, grove_packet *p, int rc)
{
	if (b->wave_n == 0) {
		log_warn("bcs: a reply wave nobody asked for (dropped)");
		return;
	}
	bcs_wave_wait w = b->waves[b->wave_head];
	b->wave_head = (b->wave_head + 1) % b->wave_cap;
	b->wave_n--;
	uint64_t id = 0;
	int32_t status = 0;
	int64_t a = INT64_MAX, nb = INT64_MAX;
	grove_missing miss[16];
	int nmiss = 0;
	char why[600] = "";
	if (rc == 0 && grove_packet_unpack(p, BCS_REPLY_FMT, &id, &status, &a,
	    &nb) != 0) {
		rc = GROVE_EPROTO;
		snprintf(why, sizeof why, "an answer of format \"%s\", not "
		    "\"%s\"", grove_packet_format(p), BCS_REPLY_FMT);
	} else if (rc == 0 && id != w.id) {
		rc = GROVE_EPROTO;
		snprintf(why, sizeof why, "the answer to %llu came where the "
		    "answer to %llu belongs", (unsigned long long)id,
		    (unsigned long long)w.id);
	} else if (rc != 0) {
		snprintf(why, sizeof why, "%s", grove_net_last_error(b->net));
	}
	if (rc == 0) {
		nmiss = grove_packet_missing(p, miss, 16);
		if (nmiss < 0)
			nmiss = 0;
		if (nmiss > 16)
			nmiss = 16;
		/* The tree says who is missing; the account may come before
		 * the manager's own loss scan. */
		for (int i = 0; i < nmiss; i++)
			if (miss[i].reason == GROVE_MISSING_LOST)
				for (uint32_t r = miss[i].rank_lo;
				    r < miss[i].rank_hi && r < b->nodes; r++)
					if (!b->peers[r].lost)
						bcs_node_lost(b, r, 0, "the "
						    "tree reports it lost");
	}
	if (w.is_caw)
		bcs_caw_wave(b, w.id, rc ? rc : status, a, nb, miss, nmiss,
		    why);
	else
		bcs_xfer_wave(b, w.id, rc ? rc : status, a, miss, nmiss, why);
}

static void
mgr_addr(grove_bcs *b, uint32_t from, const bcs_msg *m)
{
	if (b->open_done || m->u.addr.node != from)
		return;
	if (m->u.addr.status != 0) {
		b->open_rc = m->u.addr.status > 0 ? GROVE_EPROTO :
		    m->u.addr.status;
		bcs_set_error(b, "grove_bcs_manager_open: node %u cannot join: "
		    "%.*s", from, (int)m->u.addr.msg.len, m->u.addr.msg.p);
		return;
	}
	bcs_peer *p = &b->peers[from];
	if (p->have_addr)
		return;
	if (m->u.addr.addr.len == 0 || m->u.addr.addr.len >= sizeof p->addr ||
	    memchr(m->u.addr.addr.p, '\0', m->u.addr.addr.len)) {
		b->open_rc = GROVE_EPROTO;
		bcs_set_error(b, "grove_bcs_manager_open: node %u sent an "
		    "address of %u bytes", from, m->u.addr.addr.len);
		return;
	}
	memcpy(p->addr, m->u.addr.addr.p, m->u.addr.addr.len);
	p->addr[m->u.addr.addr.len] = '\0';
	p->port = m->u.addr.port;
	p->have_addr = 1;
	b->addrs_got++;
}

/* A transfer from a node to the manager, and its acknowledgement. */
static void
mgr_xfer(grove_bcs *b, uint32_t from, const bcs_msg *m)
{
	char why[300] = "";
	if (m->u.xfer.src != from) {
		log_warn("bcs: node %u sent a transfer in node %u's name",
		    from, m->u.xfer.src);
		return;
	}
	int status = bcs_xfer_apply(b, m, why, sizeof why);
	if (m->u.xfer.ack != BCS_ACK_SINGLE)
		return;
	bcs_msg a;
	memset(&a, 0, sizeof a);
	a.type = BCS_T_XFER_ACK;
	a.u.ack.id = m->u.xfer.id;
	a.u.ack.from = GROVE_BCS_MANAGER;
	a.u.ack.status = status;
	a.u.ack.msg.p = why;
	a.u.ack.msg.len = (uint32_t)strlen(why);
	bcs_mgr_send_to(b, from, &a, NULL, NULL, 0);
}

static void
mgr_dispatch(grove_bcs *b, uint32_t from, const bcs_msg *m)
{
	char why[300];
	switch (m->type) {
	case BCS_T_ADDR:
		mgr_addr(b, from, m);
		break;
	case BCS_T_XFER:
		mgr_xfer(b, from, m);
		break;
	case BCS_T_XFER_ACK:
		if (m->u.ack.from != from)
			break;
		snprintf(why, sizeof why, "%.*s", (int)m->u.ack.msg.len,
		    m->u.ack.msg.p);
		bcs_xfer_acked(b, m->u.ack.id, from, m->u.ack.status, why);
		break;
	case BCS_T_CAW_REQ:
		if (b->open_done)
			bcs_caw_request(b, from, m);
		break;
	case BCS_T_CAW_CANCEL:
		bcs_caw_cancel(b, from, m->u.cancel.id);
		break;
	case BCS_T_BYE:
		snprintf(why, sizeof why, "node %u closed its BCS handle",
		    from);
		bcs_node_lost(b, from, 1, why);
		break;
	default:
		log_warn("bcs: node %u sent the manager a %s message (dropped)",
		    from, bcs_wire_type_name(m->type));
	}
}

/* ---- a node ----------------------------------------------------------- */

static void
node_addrs(grove_bcs *b, const bcs_msg *m)
{
	if (b->open_done || m->u.addrs.nodes != b->nodes)
		return;
	size_t pos = 0;
	for (uint32_t i = 0; i < b->nodes; i++) {
		uint16_t port;
		bcs_str a;
		bcs_addrs_next(m, &pos, &port, &a);
		bcs_peer *p = &b->peers[i];
		if (a.len < sizeof p->addr) {
			memcpy(p->addr, a.p, a.len);
			p->addr[a.len] = '\0';
		}
		p->port = port;
	}
	b->open_done = 1;
}

/* A transfer from the manager (tree) or another node (link l). */
static void
node_xfer(grove_bcs *b, uint32_t from, const bcs_msg *m, bcs_link *l)
{
	char why[300] = "";
	int status = bcs_xfer_apply(b, m, why, sizeof why);
	if (status != 0)
		log_warn("bcs: node %u: a transfer from %u failed here: %s",
		    b->self, from, why);
	bcs_msg a;
	memset(&a, 0, sizeof a);
	a.type = BCS_T_XFER_ACK;
	a.u.ack.id = m->u.xfer.id;
	a.u.ack.from = b->self;
	a.u.ack.status = status;
	a.u.ack.msg.p = why;
	a.u.ack.msg.len = (uint32_t)strlen(why);
	if (m->u.xfer.ack == BCS_ACK_REDUCE && !l) {
		/* The reason goes first, on its own: the reduced answer
		 * only carries the error and the node. */
		if (status != 0)
			bcs_node_send_up(b, b->sd_id, &a, NULL, NULL, 0);
		int rc = grove_be_send(b->be, b->sc_id, BCS_TAG_REPLY,
		    BCS_REPLY_FMT, m->u.xfer.id, (int32_t)status,
		    (int64_t)(status ? (int64_t)b->self : INT64_MAX),
		    (int64_t)INT64_MAX);
		if (rc == GROVE_ECLOSED)
			bcs_manager_gone(b, "the link to the manager is closed");
		return;
	}
	if (m->u.xfer.ack != BCS_ACK_SINGLE)
		return;
	if (l)
		bcs_link_reply(b, l, &a);
	else
		bcs_node_send_up(b, b->sd_id, &a, NULL, NULL, 0);
}

static void
node_dispatch(grove_bcs *b, uint32_t from, const bcs_msg *m, bcs_link *l)
{
	char why[300];
	if (l) {
		/* link.c lets only XFER (accepted links) and XFER_ACK
		 * (its own) through. */
		if (m->type == BCS_T_XFER) {
			node_xfer(b, from, m, l);
		} else {
			snprintf(why, sizeof why, "%.*s", (int)m->u.ack.msg.len,
			    m->u.ack.msg.p);
			bcs_xfer_acked(b, m->u.ack.id, from, m->u.ack.status,
			    why);
		}
		return;
	}
	switch (m->type) {
	case BCS_T_HELLO:
		break; /* open took the first */
	case BCS_T_ADDRS:
		node_addrs(b, m);
		break;
	case BCS_T_XFER:
		node_xfer(b, GROVE_BCS_MANAGER, m, NULL);
		break;
	case BCS_T_XFER_ACK:
		snprintf(why, sizeof why, "%.*s", (int)m->u.ack.msg.len,
		    m->u.ack.msg.p);
		bcs_xfer_acked(b, m->u.ack.id, GROVE_BCS_MANAGER,
		    m->u.ack.status, why);
		break;
	case BCS_T_CAW_QUERY:
		bcs_caw_answer(b, m);
		break;
	case BCS_T_CAW_WRITE:
		bcs_caw_write(b, m);
		break;
	case BCS_T_CAW_RESULT:
		bcs_caw_result(b, m);
		break;
	case BCS_T_LOST:
		snprintf(why, sizeof why, "%.*s", (int)m->u.lost.why.len,
		    m->u.lost.why.p);
		if (m->u.lost.node < b->nodes && m->u.lost.node != b->self)
			bcs_node_lost(b, m->u.lost.node, 0, why);
		break;
	case BCS_T_BYE:
		bcs_manager_gone(b, "the manager closed the machine");
		break;
	default:
		log_warn("bcs: node %u: the manager sent a %s message "
		    "(dropped)", b->self, bcs_wire_type_name(m->type));
	}
}

void
bcs_dispatch(grove_bcs *b, uint32_t from, const bcs_msg *m, bcs_link *link)
{
	if (b->role == BCS_ROLE_MANAGER)
		mgr_dispatch(b, from, m);
	else
		node_dispatch(b, from, m, link);
}

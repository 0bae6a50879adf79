/* Xfer-And-Signal: a block of data into the global memory (or a
 * process) of a set of nodes, an event there when it is in place, and
 * one here once every destination has it.
 *
 *   manager -> every node   one multicast down the tree; with a local
 *                           event, one reduced reply comes back up
 *   manager -> some nodes   one point-to-point message each, and an
 *                           acknowledgement from each
 *   node -> nodes           the direct links (link.c)
 *   node -> manager         up the tree; the manager acknowledges
 *   to oneself              a copy (or process_vm_writev) in the call
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bcs/bcs_impl.h"
#include "core/log.h"

/* Index of a destination in a wait's table: nodes, then the manager. */
static uint32_t
slot(const grove_bcs *b, uint32_t node)
{
	return node == GROVE_BCS_MANAGER ? b->nodes : node;
}

static void
finish(grove_bcs *b, bcs_xfer_wait *x)
{
	for (bcs_xfer_wait **pp = &b->xfers; *pp; pp = &(*pp)->next)
		if (*pp == x) {
			*pp = x->next;
			break;
		}
	if (x->rc != 0)
		bcs_event_fail(b, x->local_event, x->rc, x->why);
	else
		bcs_event_signal(b, x->local_event);
	free(x->waiting);
	free(x);
}

static void
note_failure(bcs_xfer_wait *x, int rc, const char *why)
{
	if (x->rc != 0)
		return;
	x->rc = rc;
	snprintf(x->why, sizeof x->why, "%s", why);
}

static bcs_xfer_wait *
find(grove_bcs *b, uint64_t id)
{
	for (bcs_xfer_wait *x = b->xfers; x; x = x->next)
		if (x->id == id)
			return x;
	return NULL;
}

void
bcs_xfer_acked(grove_bcs *b, uint64_t id, uint32_t from, int status,
    const char *why)
{
	bcs_xfer_wait *x = find(b, id);
	if (x && x->reduced && status != 0) {
		/* A node that failed a transfer to every node says why
		 * ahead of its reduced answer. */
		char nm[32], msg[300];
		snprintf(msg, sizeof msg, "transfer to %s failed: %s",
		    bcs_node_name(from, nm, sizeof nm), why);
		note_failure(x, status, msg);
		return;
	}
	if (!x || x->reduced || !x->waiting[slot(b, from)]) {
		log_warn("bcs: an acknowledgement of transfer %llu from %u "
		    "that nobody waits for (dropped)", (unsigned long long)id,
		    from);
		return;
	}
	x->waiting[slot(b, from)] = 0;
	x->remaining--;
	if (status != 0) {
		char nm[32], msg[300];
		snprintf(msg, sizeof msg, "transfer to %s failed: %s",
		    bcs_node_name(from, nm, sizeof nm), why);
		note_failure(x, status, msg);
	}
	if (x->remaining == 0)
		finish(b, x);
}

void
bcs_xfer_wave(grove_bcs *b, uint64_t id, int status, int64_t node,
    const grove_missing *miss, int nmiss, const char *why)
{
	bcs_xfer_wait *x = find(b, id);
	if (!x || !x->reduced)
		return;
	char msg[300];
	/* As for Compare-And-Write: a lost node may be missing from the
	 * wave without an account. */
	for (uint32_t r = 0; nmiss == 0 && b->nlost && r < b->nodes; r++)
		if (b->peers[r].lost) {
			snprintf(msg, sizeof msg, "transfer to every node: node "
			    "%u is lost: %s", r, b->peers[r].why);
			note_failure(x, GROVE_ELOST, msg);
			break;
		}
	if (nmiss > 0) {
		uint32_t r = miss[0].rank_lo;
		snprintf(msg, sizeof msg, "transfer to every node: node %u is "
		    "lost: %s", r, r < b->nodes && b->peers[r].lost ?
		    b->peers[r].why : grove_missing_reason_name(
		    miss[0].reason));
		note_failure(x, GROVE_ELOST, msg);
	} else if (status < 0) {
		if (node >= 0 && node < (int64_t)b->nodes)
			snprintf(msg, sizeof msg, "transfer to every node: node "
			    "%lld failed it: %s", (long long)node,
			    grove_strerror(status));
		else
			snprintf(msg, sizeof msg, "transfer to every node: %s",
			    why && why[0] ? why : grove_strerror(status));
		note_failure(x, status, msg);
	}
	finish(b, x);
}

void
bcs_xfers_node_lost(grove_bcs *b, uint32_t node, int rc, const char *why)
{
	bcs_xfer_wait *x = b->xfers;
	while (x) {
		bcs_xfer_wait *next = x->next;
		uint32_t s = slot(b, node);
		if (!x->reduced && x->waiting[s]) {
			x->waiting[s] = 0;
			x->remaining--;
			note_failure(x, rc, why);
			if (x->remaining == 0)
				finish(b, x);
		}
		x = next;
	}
}

int
bcs_xfer_apply(grove_bcs *b, const bcs_msg *m, char *why, size_t cap)
{
	int32_t ev = m->u.xfer.remote_event;
	if (ev != GROVE_BCS_NO_EVENT && (ev < 0 || (uint32_t)ev >= b->nevents)) {
		snprintf(why, cap, "remote event %d: the machine has %u",
		    (int)ev, b->nevents);
		return GROVE_ERANGE;
	}
	int rc = bcs_mem_put(b, m->u.xfer.dst_pid, m->u.xfer.dst_addr,
	    m->u.xfer.data, (size_t)m->u.xfer.len, why, cap);
	if (rc == 0)
		bcs_event_signal(b, ev);
	return rc;
}

/* ---- the call -------------------------------------------------------- */

static int
check(grove_bcs *b, const grove_bcs_xfer *x)
{
	const char *w = "grove_bcs_xfer_and_signal";
	if (x->len > BCS_XFER_MAX) {
		bcs_set_error(b, "%s: %zu bytes, more than %llu", w, x->len,
		    (unsigned long long)BCS_XFER_MAX);
		return GROVE_ERANGE;
	}
	if (x->src_pid < 0 || x->dst_pid < 0) {
		bcs_set_error(b, "%s: source pid %d, destination pid %d: pids "
		    "are > 0, or 0 for this process / global memory", w,
		    (int)x->src_pid, (int)x->dst_pid);
		return GROVE_EINVAL;
	}
	if (x->len && x->src_pid == 0 && x->src_addr == 0) {
		bcs_set_error(b, "%s: a NULL source address", w);
		return GROVE_EINVAL;
	}
	if (x->dst_pid == 0 && (x->dst_addr > b->gmem_bytes ||
	    x->len > b->gmem_bytes - x->dst_addr)) {
		bcs_set_error(b, "%s: %zu bytes at offset %llu do not fit in "
		    "%zu bytes of global memory", w, x->len,
		    (unsigned long long)x->dst_addr, b->gmem_bytes);
		return GROVE_ERANGE;
	}
	int32_t evs[2] = {x->local_event, x->remote_event};
	for (int i = 0; i < 2; i++)
		if (evs[i] != GROVE_BCS_NO_EVENT && (evs[i] < 0 ||
		    (uint32_t)evs[i] >= b->nevents)) {
			bcs_set_error(b, "%s: %s event %d: the machine has %u",
			    w, i ? "remote" : "local", (int)evs[i], b->nevents);
			return GROVE_ERANGE;
		}
	return bcs_check_set(b, &x->to, w);
}

/* The destinations, once each: dst[slot] = 1.  Returns how many nodes
 * (not counting the manager) are in it. */
static uint32_t
destinations(grove_bcs *b, const grove_bcs_set *to, uint8_t *dst)
{
	uint32_t n = 0;
	uint32_t count = to->nodes ? to->count : b->nodes;
	for (uint32_t i = 0; i < count; i++) {
		uint32_t id = to->nodes ? to->nodes[i] : i;
		uint32_t s = slot(b, id);
		if (dst[s])
			continue;
		dst[s] = 1;
		if (id != GROVE_BCS_MANAGER)
			n++;
	}
	return n;
}

static void
xfer_msg(grove_bcs *b, const grove_bcs_xfer *x, uint64_t id, int ack,
    bcs_msg *m)
{
	memset(m, 0, sizeof *m);
	m->type = BCS_T_XFER;
	m->u.xfer.id = id;
	m->u.xfer.src = b->self;
	m->u.xfer.ack = (uint8_t)ack;
	m->u.xfer.dst_pid = x->dst_pid;
	m->u.xfer.dst_addr = x->dst_addr;
	m->u.xfer.remote_event = x->remote_event;
	m->u.xfer.len = x->len;
}

/* Sends to the other destinations; w (may be NULL) waits for them. */
static int
send_all(grove_bcs *b, const grove_bcs_xfer *x, const uint8_t *dst,
    uint32_t nnodes, const void *data, bcs_xfer_wait *w)
{
	uint64_t id = w ? w->id : b->next_id++;
	int ack = w ? BCS_ACK_SINGLE : BCS_ACK_NONE;
	bcs_msg m;
	char nm[32];
	int all_nodes = nnodes == b->nodes;
	if (b->role == BCS_ROLE_MANAGER && all_nodes) {
		/* One multicast; the tree reduces the answers. */
		xfer_msg(b, x, id, w ? BCS_ACK_REDUCE : BCS_ACK_NONE, &m);
		int rc = bcs_mgr_multicast(b, &m, NULL, data, x->len);
		if (rc == 0 && w) {
			rc = bcs_mgr_expect_wave(b, id, 0);
			w->reduced = 1;
			w->remaining = 1;
		}
		return rc;
	}
	xfer_msg(b, x, id, ack, &m);
	for (uint32_t s = 0; s <= b->nodes; s++) {
		uint32_t node = s == b->nodes ? GROVE_BCS_MANAGER : s;
		if (!dst[s] || node == b->self)
			continue;
		int rc;
		if (b->role == BCS_ROLE_MANAGER)
			rc = bcs_mgr_send_to(b, node, &m, NULL, data, x->len);
		else if (node == GROVE_BCS_MANAGER)
			rc = bcs_node_send_up(b, b->sd_id, &m, NULL, data,
			    x->len);
		else
			rc = bcs_link_send(b, node, &m, NULL, data, x->len);
		if (rc != 0 && !w)
			return rc;
		if (rc != 0) {
			char msg[300];
			snprintf(msg, sizeof msg, "transfer to %s: %s",
			    bcs_node_name(node, nm, sizeof nm), b->err);
			note_failure(w, rc == GROVE_ELOST ? GROVE_ELOST : rc,
			    msg);
			continue;
		}
		if (w) {
			w->waiting[s] = 1;
			w->remaining++;
		}
	}
	return 0;
}

int
grove_bcs_xfer_and_signal(grove_bcs *b, const grove_bcs_xfer *x)
{
	if (!b || !x || !b->open_done)
		return GROVE_EINVAL;
	int rc = check(b, x);
	if (rc == 0)
		rc = bcs_check_alive(b, &x->to);
	if (rc != 0)
		return rc;
	uint8_t *dst = calloc(b->nodes + 1u, 1);
	void *copy = NULL;
	if (!dst) {
		bcs_set_error(b, "out of memory");
		return GROVE_ENOMEM;
	}
	uint32_t nnodes = destinations(b, &x->to, dst);
	/* The source is read once, before the call returns. */
	const void *data = (const void *)(uintptr_t)x->src_addr;
	char why[300];
	if (x->src_pid > 0 && x->len) {
		copy = malloc(x->len);
		if (!copy) {
			free(dst);
			bcs_set_error(b, "out of memory for %zu bytes", x->len);
			return GROVE_ENOMEM;
		}
		rc = bcs_mem_get(b, x->src_pid, x->src_addr, copy, x->len, why,
		    sizeof why);
		if (rc != 0) {
			bcs_set_error(b, "grove_bcs_xfer_and_signal: reading "
			    "the source: %s", why);
			free(copy);
			free(dst);
			return rc;
		}
		data = copy;
	}
	/* This node itself first: a local failure is the call's error. */
	uint32_t me = slot(b, b->self);
	if (dst[me]) {
		bcs_msg m;
		xfer_msg(b, x, 0, BCS_ACK_NONE, &m);
		m.u.xfer.data = data;
		rc = bcs_xfer_apply(b, &m, why, sizeof why);
		if (rc != 0) {
			bcs_set_error(b, "grove_bcs_xfer_and_signal: to this "
			    "node itself: %s", why);
			free(copy);
			free(dst);
			return rc;
		}
	}
	bcs_xfer_wait *w = NULL;
	int others = 0;
	for (uint32_t s = 0; s <= b->nodes; s++)
		others += dst[s] && s != me;
	if (x->local_event != GROVE_BCS_NO_EVENT && others) {
		w = calloc(1, sizeof *w);
		if (w)
			w->waiting = calloc(b->nodes + 1u, 1);
		if (!w || !w->waiting) {
			free(w);
			free(copy);
			free(dst);
			bcs_set_error(b, "out of memory");
			return GROVE_ENOMEM;
		}
		w->id = b->next_id++;
		w->local_event = x->local_event;
		w->next = b->xfers;
		b->xfers = w;
	}
	if (others)
		rc = send_all(b, x, dst, b->role == BCS_ROLE_MANAGER ? nnodes :
		    UINT32_MAX, data, w);
	free(copy);
	free(dst);
	if (w && rc != 0) {
		/* The call fails: its event is not signalled at all. */
		for (bcs_xfer_wait **pp = &b->xfers; *pp; pp = &(*pp)->next)
			if (*pp == w) {
				*pp = w->next;
				break;
			}
		free(w->waiting);
		free(w);
		return rc;
	}
	if (w && w->remaining == 0) {
		/* Every send failed (or the failure is all there is to say):
		 * the event carries it. */
		finish(b, w);
	}
	if (!w && rc == 0 && x->local_event != GROVE_BCS_NO_EVENT)
		bcs_event_signal(b, x->local_event);
	return rc;
}

/* Re-parenting, the orphan's side for a CP (docs/recovery.md, "The
 * orphan: finding a new parent"): a CP whose parent is lost keeps its
 * subtree running, holds what it had for its parent, tries its ancestors
 * from the grandparent up until one takes it, and once taken in sends
 * ADOPT and waits for RESUME before its kept shares go again. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/wire.h"
#include "core/log.h"
#include "grove/error.h"
#include "net/sockio.h"
#include "tbon/node.h"
#include "tbon/proto.h"

/* When an ancestor lives but does not expect the orphan yet (it has not
 * seen the loss; both usually see it within a millisecond), the orphan
 * tries again after ORPHAN_RETRY_FIRST_MS, doubling up to
 * ORPHAN_RETRY_MAX_MS. */
#define ORPHAN_RETRY_FIRST_MS 2
#define ORPHAN_RETRY_MAX_MS 50
/* Control messages held for the new parent; more are dropped (a CP
 * whose children fail by the thousand while it has no parent). */
#define ORPHAN_HOLD_MAX 4096u

struct node_orphan {
	const node_orphan_ops *ops;
	uint32_t lost;           /* the parent that was lost */
	uint64_t since_ms;       /* when it was found lost */
	uint64_t deadline_ms;
	uint64_t retry_ms;       /* the next wait after a refusal */
	uv_timer_t timer;
	grove_packet **held;     /* control messages for the new parent */
	uint32_t n_held, cap_held;
	uint64_t dropped;
};

int
node_orphan_possible(const node *n)
{
	return n->reparent_ms >= 0 && n->launched && !n->shutting_down &&
	    n->lineage.n >= 2;
}

static void
orphan_free_cb(uv_handle_t *h)
{
	free(h->data);
}

static void
orphan_end(node *n)
{
	struct node_orphan *o = n->orphan;
	if (!o)
		return;
	n->orphan = NULL;
	for (uint32_t i = 0; i < o->n_held; i++)
		grove_packet_unref(o->held[i]);
	free(o->held);
	o->timer.data = o;
	uv_close((uv_handle_t *)&o->timer, orphan_free_cb);
}

void
node_orphan_hold(node *n, grove_packet *p)
{
	struct node_orphan *o = n->orphan;
	if (!o)
		return;
	if (o->n_held == o->cap_held) {
		uint32_t cap = o->cap_held ? o->cap_held * 2 : 16;
		grove_packet **h = cap <= ORPHAN_HOLD_MAX ?
		    realloc(o->held, cap * sizeof *h) : NULL;
		if (!h) {
			o->dropped++;
			return;
		}
		o->held = h;
		o->cap_held = cap;
	}
	o->held[o->n_held++] = grove_packet_ref(p);
}

/* Taken in by the ancestor at hop `which`: the link becomes the parent
 * link, and ADOPT says which streams this node has. */
static int
adopted(node *n, uplink *up, uint32_t which)
{
	struct node_orphan *o = n->orphan;
	const lineage_hop *h = &n->lineage.hop[which];
	conn *c = NULL;
	int rc = uplink_conn(&n->loop, up, o->ops->parent_ops, n->owner, -1,
	    &c);
	if (rc != 0)
		return rc;
	c->authed = 1;
	snprintf(c->peer, sizeof c->peer, "node %u", h->node);
	char sw[48], rw[48];
	snprintf(sw, sizeof sw, "link:%u->%u", n->id, h->node);
	snprintf(rw, sizeof rw, "link:%u->%u", h->node, n->id);
	conn_trace_register(c, sw, rw);
	if (conn_emulate_map(c, n->clusters, n->id, h->node) != 0)
		log_warn("node %u: cannot emulate the link to node %u", n->id,
		    h->node);
	n->parent = c;
	n->parent_id = h->node;
	/* Until the new parent's LINEAGE: the path above it is ours. */
	n->lineage.n = which + 1;
	n->resuming = 1;
	grove_packet *p = NULL;
	if ((rc = node_keep_adopt_packet(n, &p)) == 0) {
		node_send(n, c, p);
		grove_packet_unref(p);
		node_flush_all(n);
	}
	log_warn("node %u: re-parented to node %u %llu ms after node %u was "
	    "lost", n->id, h->node,
	    (unsigned long long)(sockio_now_ms() - o->since_ms), o->lost);
	if (o->ops->adopted)
		o->ops->adopted(n);
	return rc;
}

static void
on_try(uv_timer_t *t)
{
	node *n = t->data;
	struct node_orphan *o = n->orphan;
	if (!o || n->parent)
		return;
	uplink up;
	uint32_t which = 0;
	char err[1024];
	int rc = lineage_reparent(&n->lineage, n->id, AUTH_NO_RANK, n->secret,
	    o->deadline_ms, &up, &which, err, sizeof err);
	if (rc == 0 && (rc = adopted(n, &up, which)) == 0)
		return;
	if (rc == GROVE_EAGAIN && sockio_now_ms() + o->retry_ms <
	    o->deadline_ms) {
		uv_timer_start(&o->timer, on_try, o->retry_ms, 0);
		o->retry_ms = o->retry_ms * 2 < ORPHAN_RETRY_MAX_MS ?
		    o->retry_ms * 2 : ORPHAN_RETRY_MAX_MS;
		return;
	}
	char why[1200];
	snprintf(why, sizeof why, "no ancestor took node %u in after its "
	    "parent, node %u, was lost (%s): %s", n->id, o->lost,
	    rc == GROVE_ELOST ? "none could be reached" : rc == GROVE_EAGAIN ||
	    rc == GROVE_ETIMEDOUT ? "time is up" : grove_strerror(rc), err);
	log_error("%s", why);
	const node_orphan_ops *ops = o->ops;
	orphan_end(n);
	ops->give_up(n, why);
}

int
node_orphan_begin(node *n, const node_orphan_ops *ops, const char *why)
{
	struct node_orphan *o = calloc(1, sizeof *o);
	if (!o)
		return GROVE_ENOMEM;
	o->ops = ops;
	o->lost = n->parent_id;
	o->since_ms = sockio_now_ms();
	o->deadline_ms = o->since_ms + (uint64_t)n->reparent_ms +
	    (uint64_t)n->heartbeat_ms;
	o->retry_ms = ORPHAN_RETRY_FIRST_MS;
	uv_timer_init(&n->loop, &o->timer);
	o->timer.data = n;
	n->orphan = o;
	n->resuming = 0;
	log_warn("node %u: parent node %u lost (%s); looking for a new parent "
	    "for %d ms", n->id, o->lost, why, n->reparent_ms + n->heartbeat_ms);
	uv_timer_start(&o->timer, on_try, 0, 0);
	return 0;
}

void
node_orphan_resumed(node *n, grove_packet *p)
{
	struct node_orphan *o = n->orphan;
	if (!o || !n->resuming) {
		log_warn("node %u: a RESUME it did not ask for: dropped", n->id);
		return;
	}
	node_keep_resume(n, p, o->lost);
	for (uint32_t i = 0; i < o->n_held && n->parent; i++)
		node_send(n, n->parent, o->held[i]);
	if (o->dropped)
		log_warn("node %u: %llu control messages for the parent were "
		    "dropped while it had none", n->id,
		    (unsigned long long)o->dropped);
	orphan_end(n);
	node_flush_all(n);
}

void
node_orphan_fini(node *n)
{
	orphan_end(n);
}

/* The TBON node: connections, authentication of children, dispatch.
 * Streams and waves are in node_stream.c, launching in node_launch.c. */
#include "tbon/node.h"

#include <signal.h>
#include <sys/resource.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "codec/wire.h"
#include "core/log.h"
#include "grove/error.h"
#include "net/sockio.h"
#include "tbon/proto.h"
#include "tbon/skew.h"

static void child_on_packet(conn *c, grove_packet *p);
static void child_on_close(conn *c, int err, const char *why);
static void child_on_drain(conn *c);
static void pending_on_packet(conn *c, grove_packet *p);
static void pending_on_close(conn *c, int err, const char *why);

static const conn_ops child_ops = {child_on_packet, child_on_close,
    child_on_drain};
static const conn_ops pending_ops = {pending_on_packet, pending_on_close, NULL};

void
node_send(node *n, conn *c, grove_packet *p)
{
	if (!c || c->closing)
		return;
	if (conn_send(c, p) != 0)
		return;
	if (!c->dirty) {
		c->dirty = 1;
		c->next_dirty = NULL;
		if (!n->dirty)
			n->dirty_tail = &n->dirty;
		*n->dirty_tail = c;
		n->dirty_tail = &c->next_dirty;
	}
}

void
node_flush_all(node *n)
{
	/* One flush's end is the next one's start: only this list walk lies
	 * between them, so they share a clock read (a broadcast to k
	 * children reads the clock k + 1 times instead of 2k). */
	uint64_t t = 0;
	while (n->dirty) {
		conn *c = n->dirty;
		n->dirty = c->next_dirty;
		c->dirty = 0;
		c->next_dirty = NULL;
		c->t_flush_start = t;
		c->t_flush_end = 0;
		conn_flush(c);
		node_note_flushed(n, c);
		t = c->t_flush_end;
	}
}

static void
on_flush_check(uv_check_t *h)
{
	node *n = h->data;
	node_flush_all(n);
	node_check_pressure(n);
}

void
node_up_ctl(node *n, uint16_t type, int32_t tag, const char *fmt, ...)
{
	grove_packet *p = NULL;
	va_list ap;
	va_start(ap, fmt);
	int rc = wire_vpack(&p, type, 0, tag, n->rank, 0, fmt, ap);
	va_end(ap);
	if (rc == 0) {
		n->hooks->up(n, p);
		grove_packet_unref(p);
	}
}

/* ---- accepting and authenticating children ------------------------- */

static void
pending_remove(node *n, conn *c)
{
	for (size_t i = 0; i < n->n_pending; i++) {
		if (n->pending[i] != c)
			continue;
		n->n_pending--;
		n->pending[i] = n->pending[n->n_pending];
		memcpy(n->pending_nonce[i], n->pending_nonce[n->n_pending],
		    AUTH_NONCE_LEN);
		n->pending_since[i] = n->pending_since[n->n_pending];
		return;
	}
}

static long
pending_index(node *n, conn *c)
{
	for (size_t i = 0; i < n->n_pending; i++)
		if (n->pending[i] == c)
			return (long)i;
	return -1;
}

static void pending_add(node *n, conn *c);

/* Connections waiting to authenticate hold a descriptor each, and anyone
 * who can reach the port can open them: without a bound, a plain flood of
 * connects exhausts the descriptors (libuv then accepts and drops new
 * connections without a word) and locks the real children out until the
 * handshake deadline.  Every child of the node may be connecting at once
 * (a launch), so the bound is that many plus some slack for reconnects
 * and stray peers. */
#define PENDING_SLACK 64u

static size_t
pending_cap(const node *n)
{
	return PENDING_SLACK + n->n_children;
}

/* Make room for one more pending connection by closing the OLDEST one
 * that came through a listener.  Closing the newest instead would let a
 * flooder keep every slot with a few idle connections, renewed once per
 * handshake deadline; closing the oldest means a flooder must open new
 * connections faster than a real child finishes its handshake (one round
 * trip) to keep it out.  Pipes made for a spawned child are never
 * closed here: nobody else can reach them. */
static void
pending_make_room(node *n)
{
	if (n->n_pending < pending_cap(n))
		return;
	long oldest = -1;
	for (size_t i = 0; i < n->n_pending; i++) {
		if (n->pending[i]->split)
			continue;
		if (oldest < 0 || n->pending_since[i] < n->pending_since[oldest])
			oldest = (long)i;
	}
	if (oldest < 0)
		return;
	conn *c = n->pending[oldest];
	n->pending_evicted++;
	uint64_t now = sockio_now_ms();
	if (!n->pending_warn_ms || now - n->pending_warn_ms >= 1000) {
		/* At most once a second: a flood would otherwise flood the
		 * log too. */
		log_warn("node %u: more than %zu connections waiting to "
		    "authenticate; closed the oldest (%llu since the last "
		    "warning, this one from %s)", n->id, pending_cap(n),
		    (unsigned long long)n->pending_evicted, c->peer);
		n->pending_warn_ms = now;
		n->pending_evicted = 0;
	}
	/* pending_on_close removes it from the list. */
	conn_close(c, GROVE_ECLOSED, "too many connections waiting to "
	    "authenticate");
}

static void
on_connection(uv_stream_t *server, int status)
{
	node *n = server->data;
	conn *c = NULL;
	int rc = status < 0 ? status : conn_accept(server, &pending_ops, n, &c);
	if (rc == 0) {
		pending_make_room(n);
		pending_add(n, c);
		return;
	}
	/* Most likely out of descriptors: say so where it shows. */
	struct rlimit rl;
	char msg[256];
	getrlimit(RLIMIT_NOFILE, &rl);
	snprintf(msg, sizeof msg, "node %u cannot accept a child connection "
	    "(%s; open-file limit %lu: raise ulimit -n)", n->id,
	    status < 0 ? uv_strerror(status) : "accept failed",
	    (unsigned long)rl.rlim_cur);
	log_error("%s", msg);
	if (!node_children_ready(n))
		node_launch_fail(n, msg);
}

void
node_pending_restart_clock(node *n)
{
	uint64_t now = sockio_now_ms();
	for (size_t i = 0; i < n->n_pending; i++)
		n->pending_since[i] = now;
}

int
node_adopt_child_pipes(node *n, int rfd, int wfd)
{
	conn *c = NULL;
	int rc = conn_open_pipes(&n->loop, rfd, wfd, &pending_ops, n, -2, &c);
	if (rc == 0)
		pending_add(n, c);
	return rc;
}

/* A new link from a child: it must answer a challenge before anything
 * else counts (net/auth.h). */
static void
pending_add(node *n, conn *c)
{
	if (n->n_pending == n->cap_pending) {
		size_t cap = n->cap_pending ? n->cap_pending * 2 : 16;
		conn **np = realloc(n->pending, cap * sizeof *np);
		if (np)
			n->pending = np;
		uint8_t(*nn)[AUTH_NONCE_LEN] = realloc(n->pending_nonce,
		    cap * sizeof *nn);
		if (nn)
			n->pending_nonce = nn;
		uint64_t *ns = realloc(n->pending_since, cap * sizeof *ns);
		if (ns)
			n->pending_since = ns;
		if (!np || !nn || !ns) {
			conn_close(c, GROVE_ENOMEM, "out of memory");
			return;
		}
		n->cap_pending = cap;
	}
	size_t i = n->n_pending++;
	n->pending[i] = c;
	n->pending_since[i] = sockio_now_ms();
	auth_nonce_new(n->pending_nonce[i]);
	grove_packet *ch = NULL;
	if (wire_pack(&ch, WIRE_T_AUTH_CHALLENGE, 0, 0, n->rank, 0, "%auc",
		n->pending_nonce[i], (uint64_t)AUTH_NONCE_LEN) != 0) {
		conn_close(c, GROVE_ENOMEM, "out of memory");
		return;
	}
	node_send(n, c, ch);
	grove_packet_unref(ch);
}

static int
child_index_of_node(const node *n, uint32_t node_id)
{
	for (uint32_t i = 0; i < n->n_children; i++)
		if (n->children[i].node_id == node_id)
			return (int)i;
	return -1;
}

static void
reject(node *n, conn *c, const char *why)
{
	log_warn("node %u: rejecting connection from %s: %s", n->id, c->peer,
	    why);
	conn_close(c, GROVE_EAUTH, why);
}

/* Turn away a child that proved the secret, telling it why first (an
 * AUTH_REJECT with the parent's proof, so the child can trust the text):
 * its tool would otherwise see only a closed connection.  A peer that has
 * not proved the secret learns nothing. */
static void
reject_proven(node *n, conn *c, long pi, const uint8_t *nonce_c,
    const char *why)
{
	uint8_t pp[AUTH_PROOF_LEN];
	grove_packet *rej = NULL;
	auth_proof_parent(n->secret, nonce_c, n->pending_nonce[pi], pp);
	if (wire_pack(&rej, WIRE_T_AUTH_REJECT, 0, 0, n->rank, 0, "%auc %s", pp,
		(uint64_t)AUTH_PROOF_LEN, why) == 0) {
		/* Best effort: one small frame goes to the kernel at once. */
		conn_send(c, rej);
		conn_flush(c);
		grove_packet_unref(rej);
	}
	reject(n, c, why);
}

static void child_attached(node *n, uint32_t idx);

static void
pending_on_packet(conn *c, grove_packet *p)
{
	node *n = c->owner;
	long pi = pending_index(n, c);
	const wire_hdr *h = wire_packet_hdr(p);
	const uint8_t *proof = NULL, *nonce_c = NULL;
	uint64_t plen = 0, nlen = 0;
	uint32_t node_id = 0, pid = 0;
	/* Short enough for an AUTH_REJECT within AUTH_MAX_FRAME. */
	char why[256];
	if (pi < 0)
		return;
	if (h->type != WIRE_T_AUTH_HELLO) {
		snprintf(why, sizeof why, "message type %u before authentication",
		    h->type);
		reject(n, c, why);
		return;
	}
	if (grove_packet_unpack(p, "%auc %auc %ud %ud", &proof, &plen, &nonce_c,
		&nlen, &node_id, &pid) != 0 || plen != AUTH_PROOF_LEN ||
	    nlen != AUTH_NONCE_LEN) {
		reject(n, c, "malformed hello");
		return;
	}
	uint8_t expect[AUTH_PROOF_LEN];
	auth_proof_child(n->secret, n->pending_nonce[pi], nonce_c, node_id, expect);
	if (!auth_proof_equal(expect, proof)) {
		snprintf(why, sizeof why, "wrong network secret (claimed node %u, "
		    "pid %u)", node_id, pid);
		reject(n, c, why);
		return;
	}
	int idx = child_index_of_node(n, node_id);
	if (idx < 0) {
		snprintf(why, sizeof why, "node %u is not a child of node %u",
		    node_id, n->id);
		reject_proven(n, c, pi, nonce_c, why);
		return;
	}
	node_child *ch = &n->children[idx];
	if (ch->c || ch->state == CHILD_GONE) {
		char who[128];
		node_describe_child(n, ch, who, sizeof who);
		if (ch->c)
			snprintf(why, sizeof why, "%s is already connected", who);
		else
			snprintf(why, sizeof why, "%s was lost and cannot join "
			    "this network again", who);
		reject_proven(n, c, pi, nonce_c, why);
		return;
	}
	uint8_t pp[AUTH_PROOF_LEN];
	auth_proof_parent(n->secret, nonce_c, n->pending_nonce[pi], pp);
	grove_packet *ok = NULL;
	if (wire_pack(&ok, WIRE_T_AUTH_OK, 0, 0, n->rank, 0, "%auc", pp,
		(uint64_t)AUTH_PROOF_LEN) != 0) {
		conn_close(c, GROVE_ENOMEM, "out of memory");
		return;
	}
	uint64_t t0 = grove_trace_begin();
	pending_remove(n, c);
	c->ops = &child_ops;
	c->tag = idx;
	c->authed = 1;
	snprintf(c->peer, sizeof c->peer, "node %u", node_id);
	ch->c = c;
	/* AUTH_OK goes out before the link's collectors exist: the child
	 * reads it in its handshake, so neither side counts it. */
	conn_send(c, ok);
	conn_flush(c);
	grove_packet_unref(ok);
	/* A child that reset the link right after its hello makes this flush
	 * fail: the link is closed at once, and child_on_close has already
	 * marked the child lost and said so upstream.  Counting it as
	 * attached now would undo that (the FE would see "lost", then
	 * "attached", and count a rank that is gone). */
	if (c->closing || ch->c != c)
		return;
	node_note_flushed(n, c);
	char sw[48], rw[48];
	snprintf(sw, sizeof sw, "link:%u->%u", n->id, node_id);
	snprintf(rw, sizeof rw, "link:%u->%u", node_id, n->id);
	conn_trace_register(c, sw, rw);
	if (conn_emulate_map(c, n->clusters, n->id, node_id) != 0)
		log_warn("node %u: cannot emulate the link to node %u", n->id,
		    node_id);
	grove_trace_record(&n->tc_connect, GROVE_OP_CONNECT, (int32_t)node_id, t0,
	    grove_trace_begin());
	log_debug("child node %u (%s) authenticated", node_id,
	    ch->role == GROVE_ROLE_BE ? "be" : "cp");
	child_attached(n, (uint32_t)idx);
}

static void
pending_on_close(conn *c, int err, const char *why)
{
	node *n = c->owner;
	if (err)
		log_info("unauthenticated connection from %s closed: %s", c->peer,
		    why);
	pending_remove(n, c);
}

/* What node_fini gives every connection it closes, authenticated or not:
 * no owner callbacks (the owner may be a CP's or front-end's wrapper of
 * the node, being torn down), and no "unauthenticated connection" message
 * for links authenticated long ago.  node_fini has already emptied the
 * pending list. */
static void
fini_on_close(conn *c, int err, const char *why)
{
	(void)c;
	(void)err;
	(void)why;
}

static const conn_ops fini_ops = {pending_on_packet, fini_on_close, NULL};

/* ---- children -------------------------------------------------------- */

static void
child_mark_ready(node *n, node_child *ch, uint32_t bes)
{
	if (ch->state == CHILD_READY || ch->state == CHILD_GONE)
		return;
	ch->state = CHILD_READY;
	ch->ready_bes = bes;
	n->ready_bes += bes;
	n->n_ready++;
	if (n->hooks->child_ready)
		n->hooks->child_ready(n);
}

static void
child_attached(node *n, uint32_t idx)
{
	node_child *ch = &n->children[idx];
	ch->state = CHILD_UP;
	if (ch->role == GROVE_ROLE_BE) {
		child_mark_ready(n, ch, 1);
		if (n->attach)
			node_up_ctl(n, WIRE_T_BE_ATTACHED, 0, PROTO_BE_ATTACHED,
			    ch->be_lo);
	}
}

int
node_children_ready(const node *n)
{
	for (uint32_t i = 0; i < n->n_children; i++) {
		const node_child *ch = &n->children[i];
		if (n->attach && ch->role == GROVE_ROLE_BE)
			continue;
		if (ch->state != CHILD_READY)
			return 0;
	}
	return 1;
}

uint32_t
node_children_connected(const node *n)
{
	uint32_t k = 0;
	for (uint32_t i = 0; i < n->n_children; i++)
		if (n->children[i].c)
			k++;
	return k;
}

void node_streams_child_gone(node *n, uint32_t child);
void node_loads_child_gone(node *n, uint32_t child);

static void
child_lost(node *n, uint32_t idx, const char *why)
{
	node_child *ch = &n->children[idx];
	if (ch->state == CHILD_GONE)
		return;
	int was_ready = ch->state == CHILD_READY;
	ch->state = CHILD_GONE;
	if (!was_ready) {
		/* Only a child still starting up is not ready: the launch has
		 * failed, say so now rather than at the deadline. */
		n->n_ready++;
		char who[128], msg[400];
		node_describe_child(n, ch, who, sizeof who);
		snprintf(msg, sizeof msg, "%s lost during startup: %s", who, why);
		node_launch_fail(n, msg);
	}
	if (ch->c) {
		conn *c = ch->c;
		ch->c = NULL;
		conn_close(c, GROVE_ECLOSED, why);
	}
	if (n->shutting_down) {
		if (n->hooks->child_lost)
			n->hooks->child_lost(n, idx, why);
		return;
	}
	log_warn("child node %u (ranks %u..%u) lost: %s", ch->node_id, ch->be_lo,
	    ch->be_hi, why);
	node_streams_child_gone(n, idx);
	node_loads_child_gone(n, idx);
	node_skew_child_gone(n, idx);
	node_up_ctl(n, WIRE_T_NODE_LOST, 0, PROTO_NODE_LOST, ch->node_id,
	    ch->be_lo, ch->be_hi, why);
	if (n->hooks->child_lost)
		n->hooks->child_lost(n, idx, why);
}

static void
child_on_close(conn *c, int err, const char *why)
{
	node *n = c->owner;
	long idx = c->tag;
	if (idx < 0 || (uint32_t)idx >= n->n_children || n->children[idx].c != c)
		return;
	n->children[idx].c = NULL;
	char msg[200];
	snprintf(msg, sizeof msg, "%s", err == 0 ? "connection closed" : why);
	child_lost(n, (uint32_t)idx, msg);
}

/* Back-pressure: a link over its limit stops reads on the links that
 * feed it (children feed the parent link; the parent feeds child links),
 * and its drain callback starts them again. */
void
node_check_pressure(node *n)
{
	if (n->parent && !n->children_paused && conn_over_limit(n->parent)) {
		n->children_paused = 1;
		for (uint32_t i = 0; i < n->n_children; i++)
			if (n->children[i].c)
				conn_read_stop(n->children[i].c);
	}
	if (n->parent && !n->parent_paused && n->child_backlog) {
		int backlog = 0;
		for (uint32_t i = 0; i < n->n_children; i++) {
			conn *c = n->children[i].c;
			size_t q = c ? conn_queued(c) : 0;
			if (q > CONN_HWM) {
				n->parent_paused = 1;
				conn_read_stop(n->parent);
				backlog = 1;
				break;
			}
			backlog |= q != 0;
		}
		n->child_backlog = backlog;
	}
}

void
node_parent_drained(node *n)
{
	if (!n->children_paused)
		return;
	n->children_paused = 0;
	for (uint32_t i = 0; i < n->n_children; i++)
		if (n->children[i].c && !n->children[i].paused)
			conn_read_start(n->children[i].c);
}

static void
child_on_drain(conn *c)
{
	node *n = c->owner;
	if (!n->parent_paused || !n->parent)
		return;
	for (uint32_t i = 0; i < n->n_children; i++)
		if (n->children[i].c && conn_queued(n->children[i].c) > CONN_LWM)
			return;
	n->parent_paused = 0;
	conn_read_start(n->parent);
}

void node_stream_upstream(node *n, uint32_t child, grove_packet *p);
void node_load_ack(node *n, uint32_t child, grove_packet *p);

static void
child_ready_msg(node *n, uint32_t idx, grove_packet *p)
{
	uint32_t bes = 0;
	const uint32_t *ids = NULL, *ports = NULL;
	const char *const *hosts = NULL;
	uint64_t ni = 0, np = 0, nh = 0;
	if (grove_packet_unpack(p, PROTO_READY, &bes, &ids, &ni, &ports, &np,
		&hosts, &nh) != 0 || ni != np || ni != nh) {
		conn_close(n->children[idx].c, GROVE_EPROTO, "malformed READY");
		return;
	}
	for (uint64_t i = 0; i < ni; i++) {
		uint32_t *a = realloc(n->ep_node, (n->n_ep + 1) * sizeof *a);
		if (a)
			n->ep_node = a;
		uint32_t *b = realloc(n->ep_port, (n->n_ep + 1) * sizeof *b);
		if (b)
			n->ep_port = b;
		char **h = realloc(n->ep_host, (n->n_ep + 1) * sizeof *h);
		if (h)
			n->ep_host = h;
		if (!a || !b || !h)
			break;
		n->ep_node[n->n_ep] = ids[i];
		n->ep_port[n->n_ep] = ports[i];
		n->ep_host[n->n_ep] = strdup(hosts[i]);
		n->n_ep++;
	}
	child_mark_ready(n, &n->children[idx], bes);
}

static void
child_on_packet(conn *c, grove_packet *p)
{
	node *n = c->owner;
	uint32_t idx = (uint32_t)c->tag;
	const wire_hdr *h = wire_packet_hdr(p);
	switch (h->type) {
	case WIRE_T_DATA:
		node_stream_upstream(n, idx, p);
		break;
	case WIRE_T_P2P:
	case WIRE_T_LAUNCH_ERROR:
	case WIRE_T_NODE_LOST:
	case WIRE_T_BE_ATTACHED:
	case WIRE_T_FILTER_ERROR:
	case WIRE_T_TRACE_DATA:
		n->hooks->up(n, p);
		break;
	case WIRE_T_READY:
		child_ready_msg(n, idx, p);
		break;
	case WIRE_T_FILTER_ACK:
		node_load_ack(n, idx, p);
		break;
	case WIRE_T_HEARTBEAT:
		break;
	case WIRE_T_SKEW_REPLY:
	case WIRE_T_SKEW_RESULT:
		node_skew_from_child(n, idx, p);
		break;
	default: {
		char why[80];
		snprintf(why, sizeof why, "unexpected message type %u from child",
		    h->type);
		log_warn("node %u: %s", n->id, why);
		conn_close(c, GROVE_EPROTO, why);
	}
	}
}

/* ---- periodic work ------------------------------------------------------ */

static void
on_tick(uv_timer_t *t)
{
	node *n = t->data;
	uint64_t now = sockio_now_ms();
	/* Unauthenticated peers get AUTH_TIMEOUT_MS to finish. */
	for (size_t i = 0; i < n->n_pending;) {
		if (now - n->pending_since[i] > AUTH_TIMEOUT_MS) {
			conn *c = n->pending[i];
			reject(n, c, "handshake not completed in time");
			continue; /* pending_on_close removed entry i */
		}
		i++;
	}
	/* Heartbeats to CP children, and silence detection for them.  If
	 * this loop itself was not running (a front-end whose tool was busy),
	 * the children's last-heard times are stale: skip one round so the
	 * data waiting in their sockets is read first. */
	grove_packet *hb = NULL;
	uint64_t silent = 5u * (uint64_t)n->heartbeat_ms;
	int stale = n->last_tick_ms &&
	    now - n->last_tick_ms > 2u * (uint64_t)n->heartbeat_ms;
	n->last_tick_ms = now;
	for (uint32_t i = 0; i < n->n_children; i++) {
		node_child *ch = &n->children[i];
		if (!ch->c || ch->role != GROVE_ROLE_CP)
			continue;
		if (stale)
			ch->c->last_rx_ms = now;
		else if (now - ch->c->last_rx_ms > silent) {
			child_lost(n, i, "silent for too long (no heartbeat)");
			continue;
		}
		if (!hb && wire_pack(&hb, WIRE_T_HEARTBEAT, 0, 0, n->rank, 0, "") != 0)
			continue;
		node_send(n, ch->c, hb);
	}
	grove_packet_unref(hb);
}

/* ---- setup -------------------------------------------------------------- */

int
node_init(node *n, const node_hooks *hooks, void *owner, grove_topo *topo,
    uint32_t id, const uint8_t secret[AUTH_SECRET_LEN], const char *netid,
    const char *bind_addr, char *err, size_t errlen)
{
	memset(n, 0, sizeof *n);
	n->hooks = hooks;
	n->owner = owner;
	n->topo = topo;
	n->id = id;
	n->rank = PROTO_NODE_RANK(id);
	n->heartbeat_ms = 1000;
	n->timeout_ms = 30000;
	memcpy(n->secret, secret, AUTH_SECRET_LEN);
	snprintf(n->netid, sizeof n->netid, "%s", netid);
	snprintf(n->bind_addr, sizeof n->bind_addr, "%s", bind_addr);
	flt_out_init(&n->fout);
	if (uv_loop_init(&n->loop) != 0) {
		snprintf(err, errlen, "cannot create event loop");
		return GROVE_ESYS;
	}
	n->loop_ready = 1;
	n->filters = flt_registry_new();
	if (!n->filters) {
		snprintf(err, errlen, "out of memory");
		return GROVE_ENOMEM;
	}
	const grove_topo_node *me = grove_topo_node_at(topo, id);
	if (!me) {
		snprintf(err, errlen, "node %u is not in the topology", id);
		return GROVE_ETOPO;
	}
	n->place.node_id = id;
	n->place.depth = me->depth;
	n->place.n_children = me->n_children;
	n->place.be_lo = me->be_lo;
	n->place.be_hi = me->be_hi;
	n->place.n_backends = grove_topo_backends(topo);
	n->place.is_fe = id == 0;
	n->n_children = me->n_children;
	n->children = calloc(me->n_children ? me->n_children : 1,
	    sizeof *n->children);
	if (!n->children) {
		snprintf(err, errlen, "out of memory");
		return GROVE_ENOMEM;
	}
	const uint32_t *kids = grove_topo_children(topo, id);
	for (uint32_t i = 0; i < me->n_children; i++) {
		const grove_topo_node *k = grove_topo_node_at(topo, kids[i]);
		n->children[i].node_id = k->id;
		n->children[i].role = k->role;
		n->children[i].be_lo = k->be_lo;
		n->children[i].be_hi = k->be_hi;
		n->children[i].host = k->host;
	}
	uv_check_init(&n->loop, &n->flush_check);
	n->flush_check.data = n;
	uv_check_start(&n->flush_check, on_flush_check);
	uv_timer_init(&n->loop, &n->tick);
	n->tick.data = n;
	uv_timer_init(&n->loop, &n->sync_timer);
	n->sync_timer.data = n;
	grove_trace_collector_register(&n->tc_connect, "node.connect", "tbon",
	    "node", "after:auth");
	grove_trace_collector_register(&n->tc_stream_new, "node.stream_new",
	    "tbon", "node", "control");
	if (me->n_children == 0)
		return 0;
	/* One descriptor per child: a flat tree of a thousand back-ends
	 * would hit the usual soft limit of 1024, so raise it as far as the
	 * hard limit allows (only when needed). */
	struct rlimit rl;
	/* Two pipes per local child (one socket when there are not enough). */
	rlim_t want = 2 * (rlim_t)me->n_children + 256;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < want) {
		rl.rlim_cur = rl.rlim_max < want ? rl.rlim_max : want;
		if (setrlimit(RLIMIT_NOFILE, &rl) == 0)
			log_info("node %u: open-file limit raised to %lu for %u "
			    "children", id, (unsigned long)rl.rlim_cur,
			    me->n_children);
		getrlimit(RLIMIT_NOFILE, &rl);
		if (rl.rlim_cur < (rlim_t)me->n_children + 32) {
			snprintf(err, errlen, "node %u has %u children but the "
			    "open-file limit is %lu (hard limit %lu): raise ulimit -n "
			    "or use a deeper tree", id, me->n_children,
			    (unsigned long)rl.rlim_cur, (unsigned long)rl.rlim_max);
			return GROVE_ESYS;
		}
	}
	/* Listen for children on an ephemeral port of the chosen interface. */
	struct sockaddr_storage ss;
	if (uv_ip4_addr(bind_addr, 0, (struct sockaddr_in *)&ss) != 0 &&
	    uv_ip6_addr(bind_addr, 0, (struct sockaddr_in6 *)&ss) != 0) {
		snprintf(err, errlen, "bad bind address '%s'", bind_addr);
		return GROVE_EINVAL;
	}
	uv_tcp_init(&n->loop, &n->listener);
	n->listener.data = n;
	n->listening = 1;
	int rc = uv_tcp_bind(&n->listener, (struct sockaddr *)&ss, 0);
	if (rc == 0)
		rc = uv_listen((uv_stream_t *)&n->listener, 4096, on_connection);
	if (rc != 0) {
		snprintf(err, errlen, "cannot listen on %s: %s", bind_addr,
		    uv_strerror(rc));
		return GROVE_ESYS;
	}
	int sl = sizeof ss;
	uv_tcp_getsockname(&n->listener, (struct sockaddr *)&ss, &sl);
	n->port = ntohs(ss.ss_family == AF_INET
	    ? ((struct sockaddr_in *)&ss)->sin_port
	    : ((struct sockaddr_in6 *)&ss)->sin6_port);
	/* Children on this host connect through a Unix socket instead. */
	snprintf(n->uname, sizeof n->uname, "grove.%s.%u.%d", netid, id,
	    (int)getpid());
	int ufd = sockio_listen_unix(n->uname, err, errlen);
	if (ufd >= 0) {
		uv_pipe_init(&n->loop, &n->ulistener, 0);
		n->ulistener.data = n;
		n->ulistening = 1;
		if (uv_pipe_open(&n->ulistener, ufd) != 0 ||
		    uv_listen((uv_stream_t *)&n->ulistener, 4096, on_connection) != 0)
			n->uname[0] = 0; /* TCP still works */
	} else {
		n->uname[0] = 0;
	}
	return 0;
}

void
node_start_tick(node *n)
{
	uint64_t period = n->heartbeat_ms > 0 ? (uint64_t)n->heartbeat_ms : 1000;
	uv_timer_start(&n->tick, on_tick, period, period);
}

void node_streams_free(node *n);

static int
is_conn(uv_handle_t *h, void *n)
{
	return (h->type == UV_TCP || h->type == UV_NAMED_PIPE) && h->data &&
	    h->data != n;
}

/* Connections first: each closes the handles it owns (a link emulator's
 * timer), which the second pass must not close again. */
static void
walk_close_conns(uv_handle_t *h, void *arg)
{
	if (!uv_is_closing(h) && is_conn(h, arg)) {
		conn *c = h->data;
		if (!c->closing) {
			c->ops = &fini_ops;
			conn_close(c, GROVE_ECLOSED, "node shut down");
		}
	}
}

static void
walk_close(uv_handle_t *h, void *arg)
{
	if (!uv_is_closing(h) && !is_conn(h, arg))
		uv_close(h, NULL);
}

void
node_fini(node *n)
{
	if (!n->loop_ready)
		return;
	node_streams_free(n);
	while (n->loads)
		node_load_req_free(n, n->loads);
	for (uint32_t i = 0; i < n->n_children; i++)
		n->children[i].c = NULL;
	n->n_pending = 0;
	n->dirty = NULL;
	uv_walk(&n->loop, walk_close_conns, n);
	uv_walk(&n->loop, walk_close, n);
	uv_run(&n->loop, UV_RUN_DEFAULT);
	uv_loop_close(&n->loop);
	n->loop_ready = 0;
	node_skew_free(n);
	flt_out_fini(&n->fout);
	flt_registry_destroy(n->filters);
	grove_topo_destroy(n->topo);
	grove_cluster_map_destroy(n->clusters);
	free(n->children);
	free(n->pending);
	free(n->pending_nonce);
	free(n->pending_since);
	for (size_t i = 0; i < n->n_ep; i++)
		free(n->ep_host[i]);
	free(n->ep_node);
	free(n->ep_port);
	free(n->ep_host);
	if (n->be_argv) {
		for (char **a = n->be_argv; *a; a++)
			free(*a);
		free(n->be_argv);
	}
}

void
node_shutdown_children(node *n, grove_packet *msg)
{
	grove_packet *p = NULL;
	n->shutting_down = 1;
	if (msg)
		p = grove_packet_ref(msg);
	else if (wire_pack(&p, WIRE_T_SHUTDOWN, 0, 0, n->rank, 0, "") != 0)
		return;
	for (uint32_t i = 0; i < n->n_children; i++)
		if (n->children[i].c)
			node_send(n, n->children[i].c, p);
	grove_packet_unref(p);
	node_flush_all(n);
}

void
node_reap_children_wait(node *n, int grace_ms)
{
	uint64_t until = sockio_now_ms() + (uint64_t)grace_ms;
	for (;;) {
		int left = 0;
		node_reap_children(n, 0);
		for (uint32_t i = 0; i < n->n_children; i++)
			left |= n->children[i].pid > 0;
		if (!left || sockio_now_ms() >= until)
			break;
		usleep(2000);
	}
	node_reap_children(n, 1);
}

void
node_reap_children(node *n, int kill_them)
{
	for (uint32_t i = 0; i < n->n_children; i++) {
		node_child *ch = &n->children[i];
		if (ch->pid <= 0)
			continue;
		if (kill_them)
			kill(ch->pid, SIGKILL);
		if (waitpid(ch->pid, NULL, kill_them ? 0 : WNOHANG) == ch->pid ||
		    kill_them)
			ch->pid = 0;
	}
}

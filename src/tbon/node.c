#define _GNU_SOURCE /* cpu_set_t in net/spawn.h */
/* The TBON node: connections, children, dispatch, periodic work.
 * Authenticating children is in node_accept.c, their READY reports in
 * node_ready.c, streams in node_stream.c and their waves in
 * node_stream_up.c, launching in node_launch.c. */
#include "tbon/node.h"

#include <errno.h>
#include <signal.h>
#include <sys/resource.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "codec/wire.h"
#include "core/defaults.h"
#include "core/log.h"
#include "grove/error.h"
#include "net/sockio.h"
#include "net/spawn.h"
#include "tbon/node_scope.h"
#include "tbon/proto.h"
#include "tbon/skew.h"

static void child_on_packet(conn *c, grove_packet *p);
static void child_on_close(conn *c, int err, const char *why);
static void child_on_drain(conn *c);

/* The callbacks of an authenticated child's link (node_accept.c hands
 * the link over to them). */
const conn_ops node_child_ops = {child_on_packet, child_on_close,
    child_on_drain};

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

/* ---- children -------------------------------------------------------- */

void
node_child_mark_ready(node *n, node_child *ch, uint32_t bes)
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

void
node_child_attached(node *n, uint32_t idx)
{
	node_child *ch = &n->children[idx];
	node_send_lineage(n, idx);
	if (ch->adopt_of >= 0) {
		/* Back from a lost CP: up since long, its streams come with
		 * its ADOPT (node_adopt.c), and no one is told it attached. */
		ch->state = CHILD_READY;
		return;
	}
	ch->state = CHILD_UP;
	if (ch->role == GROVE_ROLE_BE) {
		node_child_mark_ready(n, ch, 1);
		if (n->attach)
			node_up_ctl(n, WIRE_T_BE_ATTACHED, 0, PROTO_BE_ATTACHED,
			    ch->be_lo);
		node_streams_child_attached(n, idx);
	}
}

int
node_children_ready(const node *n)
{
	for (uint32_t i = 0; i < n->n_children; i++) {
		const node_child *ch = &n->children[i];
		if ((n->attach && ch->role == GROVE_ROLE_BE) || ch->adopt_of >= 0)
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

uint64_t
node_link_bytes(const node *n)
{
	uint64_t b = n->parent ? conn_bytes_sent(n->parent) : 0;
	for (uint32_t i = 0; i < n->n_children; i++)
		if (n->children[i].c)
			b += n->children[i].c->rx_bytes;
	return b;
}

void node_streams_child_gone(node *n, uint32_t child);
void node_loads_child_gone(node *n, uint32_t child);

static void parent_maybe_resume(node *n);

static void
child_lost(node *n, uint32_t idx, const char *why)
{
	node_child *ch = &n->children[idx];
	if (ch->state == CHILD_GONE)
		return;
	int was_ready = ch->state == CHILD_READY;
	int expected = ch->adopt_of >= 0 && ch->adopt_pending;
	ch->state = CHILD_GONE;
	if (!was_ready && ch->adopt_of < 0)
		n->n_ready++;
	/* A child lost while this node's launch is not over (one still
	 * starting up, or one that was ready while its siblings were not)
	 * fails the launch, said now rather than at the deadline: the node
	 * waits for every child to be ready, so it would never be.  Attached
	 * back-ends are not waited for (node_children_ready); children that
	 * go because this node told them to are not a failed launch. */
	if (!n->shutting_down && ch->adopt_of < 0 && (!was_ready ||
	    (!n->launched && !(n->attach && ch->role == GROVE_ROLE_BE)))) {
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
	/* Its queue went with it and never drains: if it was what stopped
	 * reads from the parent, the other children would starve. */
	parent_maybe_resume(n);
	if (n->shutting_down) {
		if (n->hooks->child_lost)
			n->hooks->child_lost(n, idx, why);
		return;
	}
	log_warn("child node %u (ranks %u..%u) lost: %s", ch->node_id, ch->be_lo,
	    ch->be_hi, why);
	/* A process of ours that lost its link may live on under another
	 * parent, ours (docs/recovery.md): reaped when it exits, never
	 * killed.  The FE's children have no other parent to go to. */
	if (n->reparent_ms >= 0 && n->id != 0)
		ch->disowned = 1;
	/* Its children may come back here: its slots pass to them. */
	int adopting = !expected && node_adopt_begin(n, idx, why);
	if (!adopting)
		node_streams_child_gone(n, idx);
	node_loads_child_gone(n, idx);
	node_skew_child_gone(n, idx);
	if (n->scope_ops)
		n->scope_ops->child_gone(n, idx);
	/* A loss with its children expected is told once they came or were
	 * given up (REPARENTED), and so is an expected child given up. */
	if (!adopting && !expected) {
		node_up_ctl(n, WIRE_T_NODE_LOST, 0, PROTO_NODE_LOST, ch->node_id,
		    ch->be_lo, ch->be_hi, why);
		if (n->reparent_ms >= 0)
			node_adopt_note_gone(n, ch->node_id);
	}
	if (ch->adopt_of >= 0)
		node_adopt_child_gone(n, idx);
	if (n->hooks->child_lost)
		n->hooks->child_lost(n, idx, why);
}

void
node_child_lose(node *n, uint32_t idx, const char *why)
{
	child_lost(n, idx, why);
}

void
node_child_exited(node *n, uint32_t idx, const char *why)
{
	node_child *ch = &n->children[idx];
	if (!ch->c)
		return;
	/* What it sent before it died comes first: the loop may not have
	 * read it yet when its exit is seen. */
	conn_read_rest(ch->c);
	if (ch->c)
		child_lost(n, idx, why);
}

static void
child_on_close(conn *c, int err, const char *why)
{
	node *n = c->owner;
	long idx = c->tag;
	if (idx < 0 || (uint32_t)idx >= n->n_children || n->children[idx].c != c)
		return;
	n->children[idx].c = NULL;
	/* A process of ours that has exited by now says more than its
	 * link can: its status (a CP that exits 1 after a failure of its
	 * own, a crash's signal).  One still running (a CP closes its
	 * link before it waits for its children) is left to the reaping,
	 * which no longer reports it. */
	char msg[200], st[64];
	const char *what = err == 0 ? "connection closed" : why;
	if (node_child_exit_status(n, (uint32_t)idx, st, sizeof st))
		snprintf(msg, sizeof msg, "%s (%s)", what, st);
	else
		snprintf(msg, sizeof msg, "%s", what);
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

/* Reads from the parent, stopped because a child link was full, start
 * again once no child link holds more than the low mark. */
static void
parent_maybe_resume(node *n)
{
	if (!n->parent_paused || !n->parent)
		return;
	for (uint32_t i = 0; i < n->n_children; i++)
		if (n->children[i].c && conn_queued(n->children[i].c) > CONN_LWM)
			return;
	n->parent_paused = 0;
	conn_read_start(n->parent);
}

static void
child_on_drain(conn *c)
{
	parent_maybe_resume(c->owner);
}

void node_stream_upstream(node *n, uint32_t child, grove_packet *p);
void node_load_ack(node *n, uint32_t child, grove_packet *p);
void node_stream_refused(node *n, uint32_t child, grove_packet *p);
void node_stream_share(node *n, uint32_t child, grove_packet *p);

static void
child_on_packet(conn *c, grove_packet *p)
{
	node *n = c->owner;
	uint32_t idx = (uint32_t)c->tag;
	const wire_hdr *h = wire_packet_hdr(p);
	char why[200];
	if (node_child_msg_wrong(n, idx, p, why, sizeof why)) {
		log_warn("node %u: %s", n->id, why);
		conn_close(c, GROVE_EPROTO, why);
		return;
	}
	switch (h->type) {
	case WIRE_T_DATA:
		node_stream_upstream(n, idx, p);
		break;
	case WIRE_T_REPARENTED:
		node_adopt_note_moves(n, p);
		n->hooks->up(n, p);
		break;
	case WIRE_T_NODE_LOST: {
		uint32_t id = 0;
		if (n->reparent_ms >= 0 && grove_packet_unpack(p, PROTO_NODE_LOST,
		    &id, NULL, NULL, NULL) == 0)
			node_adopt_note_gone(n, id);
		n->hooks->up(n, p);
		break;
	}
	case WIRE_T_P2P:
	case WIRE_T_LAUNCH_ERROR:
	case WIRE_T_BE_ATTACHED:
	case WIRE_T_FILTER_ERROR:
	case WIRE_T_TRACE_DATA:
		n->hooks->up(n, p);
		break;
	case WIRE_T_READY:
		node_child_ready_msg(n, idx, p);
		break;
	case WIRE_T_FILTER_ACK:
		node_load_ack(n, idx, p);
		break;
	case WIRE_T_STREAM_REFUSED:
		node_stream_refused(n, idx, p);
		break;
	case WIRE_T_WAVE_SHARE:
		node_stream_share(n, idx, p);
		break;
	case WIRE_T_SCOPE_SHARE:
		if (n->scope_ops)
			n->scope_ops->share(n, idx, p);
		break;
	case WIRE_T_ADOPT:
		node_adopt_msg(n, idx, p);
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

/* A child of this host that this node started and now declares lost for
 * silence (stopped, or stuck) is killed: one that resumed later would
 * act for a subtree that has moved on (docs/recovery.md).  Reaped here,
 * for at most 100 ms (SIGKILL ends even a stopped process at once). */
static void
kill_silent(node *n, node_child *ch)
{
	if (n->reparent_ms < 0 || ch->pid <= 0 || !spawn_host_is_local(ch->host))
		return;
	kill(ch->pid, SIGKILL);
	for (int i = 0; i < 50; i++) {
		pid_t r = waitpid(ch->pid, NULL, WNOHANG);
		if (r == ch->pid || (r < 0 && errno != EINTR)) {
			ch->pid = 0;
			return;
		}
		usleep(2000);
	}
}

static void
on_tick(uv_timer_t *t)
{
	node *n = t->data;
	uint64_t now = sockio_now_ms();
	/* Heartbeats to CP children, and silence detection for them.  If
	 * this loop itself was not running (a front-end whose tool was busy),
	 * the children's last-heard times are stale: skip one round so the
	 * data waiting in their sockets is read first. */
	grove_packet *hb = NULL;
	uint64_t silent = 5u * (uint64_t)n->heartbeat_ms;
	int stale = n->last_tick_ms &&
	    now - n->last_tick_ms > 2u * (uint64_t)n->heartbeat_ms;
	n->last_tick_ms = now;
	/* The FE has no SIGCHLD handler (the signal is the tool's): a child
	 * that died while something else keeps its link open is found here. */
	node_reap_exited(n);
	/* Back-ends of a CP hear heartbeats too when they may re-parent:
	 * they check their parent's silence (docs/recovery.md). */
	int be_too = n->reparent_ms >= 0 && n->id != 0;
	for (uint32_t i = 0; i < n->n_children; i++) {
		node_child *ch = &n->children[i];
		if (!ch->c || (ch->role != GROVE_ROLE_CP && !be_too))
			continue;
		if (ch->role != GROVE_ROLE_CP)
			; /* back-ends send no heartbeats */
		else if (stale)
			ch->c->last_rx_ms = now;
		else if (conn_silent_ms(ch->c, now) > silent) {
			kill_silent(n, ch);
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

/* Nodes strictly below id: the most children it can have once it adopts
 * the children of lost CPs below it (docs/recovery.md). */
static uint32_t
descendants(const grove_topo *t, uint32_t id)
{
	const grove_topo_node *me = grove_topo_node_at(t, id);
	uint32_t k = me ? me->n_children : 0;
	const uint32_t *kids = grove_topo_children(t, id);
	for (uint32_t i = 0; i < (me ? me->n_children : 0); i++)
		k += descendants(t, kids[i]);
	return k;
}

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
	n->heartbeat_ms = GROVE_DEFAULT_HEARTBEAT_MS;
	n->timeout_ms = GROVE_DEFAULT_TIMEOUT_MS;
	n->reparent_ms = -1;
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
	node_parent_name_for(n, me->host, NULL, n->attach_host,
	    sizeof n->attach_host);
	n->place.node_id = id;
	n->place.depth = me->depth;
	n->place.n_children = me->n_children;
	n->place.be_lo = me->be_lo;
	n->place.be_hi = me->be_hi;
	n->place.n_backends = grove_topo_backends(topo);
	n->place.is_fe = id == 0;
	n->n_children = n->n_topo_children = me->n_children;
	n->parent_id = me->parent > 0 ? (uint32_t)me->parent : 0;
	n->cap_children = descendants(topo, id);
	n->children = calloc(n->cap_children ? n->cap_children : 1,
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
		n->children[i].adopt_of = -1;
	}
	uv_check_init(&n->loop, &n->flush_check);
	n->flush_check.data = n;
	uv_check_start(&n->flush_check, on_flush_check);
	uv_timer_init(&n->loop, &n->tick);
	n->tick.data = n;
	uv_timer_init(&n->loop, &n->auth_timer);
	n->auth_timer.data = n;
	uv_timer_init(&n->loop, &n->sync_timer);
	n->sync_timer.data = n;
	uv_timer_init(&n->loop, &n->adopt_timer);
	n->adopt_timer.data = n;
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
		rc = uv_listen((uv_stream_t *)&n->listener, GROVE_LISTEN_BACKLOG,
		    node_on_connection);
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
		    uv_listen((uv_stream_t *)&n->ulistener, GROVE_LISTEN_BACKLOG,
		    node_on_connection) != 0)
			n->uname[0] = 0; /* TCP still works */
	} else {
		n->uname[0] = 0;
	}
	return 0;
}

void
node_start_tick(node *n)
{
	uint64_t period = n->heartbeat_ms > 0 ? (uint64_t)n->heartbeat_ms :
	    GROVE_DEFAULT_HEARTBEAT_MS;
	/* As if a tick had just run: a front-end whose tool is busy before
	 * the first tick is due must find its children's times stale, not
	 * its children silent. */
	n->last_tick_ms = sockio_now_ms();
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
			c->ops = &node_fini_ops;
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
	node_orphan_fini(n);
	node_streams_free(n);
	while (n->loads)
		node_load_req_free(n, n->loads);
	if (n->scope_ops)
		n->scope_ops->fini(n);
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
	lineage_fini(&n->lineage);
	free(n->moved_parent);
	while (n->adoptions) {
		node_adoption *a = n->adoptions;
		n->adoptions = a->next;
		free(a);
	}
	free(n->gaps.g); /* the wave accounts' buffer (node_stream_up.c) */
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

/* Waits until the children this node started that are still its own
 * have exited, reaping them, or until `until` (ms); 1 when some are
 * left. */
static int
reap_until(node *n, uint64_t until)
{
	for (;;) {
		int left = 0;
		node_reap_children(n, 0);
		for (uint32_t i = 0; i < n->n_children; i++)
			left |= n->children[i].pid > 0 && !n->children[i].disowned;
		if (!left || sockio_now_ms() >= until)
			return left;
		usleep(2000);
	}
}

/* A CP child that ends gets a moment to end its own subtree (its
 * children no longer die with it when they may re-parent, so SIGKILL
 * would leave them behind). */
#define SIGTERM_GRACE_MS 200

void
node_reap_children_wait(node *n, int grace_ms)
{
	if (reap_until(n, sockio_now_ms() + (uint64_t)grace_ms) &&
	    n->reparent_ms >= 0) {
		int asked = 0;
		for (uint32_t i = 0; i < n->n_children; i++) {
			node_child *ch = &n->children[i];
			if (ch->pid > 0 && ch->role == GROVE_ROLE_CP &&
			    node_child_still_ours(n, i)) {
				kill(ch->pid, SIGTERM);
				asked = 1;
			}
		}
		if (asked)
			reap_until(n, sockio_now_ms() + SIGTERM_GRACE_MS);
	}
	node_reap_children(n, 1);
}

int
node_child_still_ours(node *n, uint32_t idx)
{
	node_child *ch = &n->children[idx];
	if (ch->disowned)
		return 0;
	/* One that never joined cannot have moved anywhere. */
	if (n->reparent_ms < 0 || n->id == 0 || ch->state == CHILD_PENDING)
		return 1;
	/* Its EOF may wait unread (reads stopped for back-pressure, or the
	 * loop is over): read what is there. */
	if (ch->c)
		conn_read_rest(ch->c);
	return ch->c != NULL;
}

void
node_reap_children(node *n, int kill_them)
{
	for (uint32_t i = 0; i < n->n_children; i++) {
		node_child *ch = &n->children[i];
		if (ch->pid <= 0)
			continue;
		pid_t r = waitpid(ch->pid, NULL, WNOHANG);
		/* ECHILD: gone, reaped by someone else (the tool ignores
		 * SIGCHLD, or its handler reaps every child).  Not killed: its
		 * pid may be another process's by now. */
		if (r == ch->pid || (r < 0 && errno == ECHILD)) {
			ch->pid = 0;
			continue;
		}
		if (kill_them && node_child_still_ours(n, i)) {
			kill(ch->pid, SIGKILL);
			/* A tool's signal handler must not leave it a zombie. */
			while (waitpid(ch->pid, NULL, 0) < 0 && errno == EINTR)
				;
			ch->pid = 0;
		}
	}
}

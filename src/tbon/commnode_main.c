/* grove-commnode: a communication process of a Grove network.
 *
 * Started by its parent (the front-end or another CP) with the bootstrap on
 * stdin; connects back and authenticates, starts its own children, reports
 * its subtree ready, then routes and filters until told to shut down or
 * until its parent is gone.  Single-threaded: one libuv loop does it all.
 */
#define _GNU_SOURCE /* SCHED_BATCH */
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "codec/wire.h"
#include "core/defaults.h"
#include "core/log.h"
#include "grove/error.h"
#include "grove/topology.h"
#include "grove/trace.h"
#include "net/auth.h"
#include "net/boot.h"
#include "net/conn.h"
#include "net/exit_wait.h"
#include "net/sockio.h"
#include "net/spawn.h"
#include "net/uplink.h"
#include "tbon/node.h"
#include "tbon/node_scope.h"
#include "tbon/proto.h"
#include "tbon/ship.h"
#include "trace/space.h"

typedef struct commnode {
	node n;
	boot b;
	int reported_ready;
	int reported_failure;
	int parent_is_cp;
	int exiting;
	struct exit_wait exit_wait; /* leaving: while bytes still move */
	uint64_t last_hb_ms;     /* last heartbeat sent to the parent */
	uv_signal_t sigchld;
	uv_signal_t sigterm;
	uv_timer_t ctl_tick;
	uv_timer_t launch_timer; /* fires at the launch deadline */
	int exit_code;
	int shipped;    /* our event space went to the FE */
	node_forked *forked; /* child CPs started as copies (node_launch.c) */
} commnode;

static void
cp_up(node *n, grove_packet *p)
{
	if (!n->parent) {
		/* Orphaned: stream data is kept by its stream for the resend
		 * (node_keep.c); control messages wait for the new parent. */
		uint16_t type = wire_packet_hdr(p)->type;
		if (type != WIRE_T_DATA && type != WIRE_T_WAVE_SHARE)
			node_orphan_hold(n, p);
		return;
	}
	node_send(n, n->parent, p);
}

static void cp_child_ready(node *n);
static void cp_child_lost(node *n, uint32_t child, const char *why);
static const node_hooks cp_hooks = {cp_up, cp_child_lost, cp_child_ready,
    NULL};

/* Leaving: done when the children are gone and what we owe the parent
 * (our own and our children's last messages) has been written, or after a
 * grace period. */
static int
exit_done(commnode *cn, uint64_t now)
{
	node *n = &cn->n;
	/* Idle: no byte came from the children or went to the parent. */
	if (n->parent && conn_emu_holding(n->parent))
		exit_wait_moving(&cn->exit_wait, now);
	uint64_t idle = exit_wait_idle(&cn->exit_wait, now, node_link_bytes(n));
	if (idle > EXIT_WAIT_IDLE_MS)
		return 1;
	if (node_children_connected(n) > 0 && idle <= EXIT_WAIT_CHILD_GRACE_MS)
		return 0;
	return !n->parent || conn_queued(n->parent) == 0;
}

/* Our event space goes to the FE as our last message of our own (our
 * children's spaces follow it through us).  After the SHUTDOWN went to
 * the children: their receives of it are in their spaces, so our sends
 * of it must be in ours. */
static void
ship_own_space(commnode *cn)
{
	grove_packet *ev = NULL;
	if (!cn->n.parent || ship_event_space(cn->n.rank, &ev) != 0)
		return;
	node_send(&cn->n, cn->n.parent, ev);
	grove_packet_unref(ev);
	node_flush_all(&cn->n);
	cn->shipped = 1;
}

/* ship: the parent's SHUTDOWN asks for our event space. */
static void
begin_exit(commnode *cn, int code, grove_packet *msg, int ship)
{
	if (cn->exiting)
		return;
	cn->exiting = 1;
	cn->exit_code = code;
	uint64_t now = sockio_now_ms();
	exit_wait_start(&cn->exit_wait, now, node_link_bytes(&cn->n));
	node_shutdown_children(&cn->n, msg);
	if (ship)
		ship_own_space(cn);
	if (exit_done(cn, now))
		uv_stop(&cn->n.loop);
}

static void
parent_on_packet(conn *c, grove_packet *p)
{
	commnode *cn = c->owner;
	if (wire_packet_hdr(p)->type == WIRE_T_SHUTDOWN) {
		log_debug("shutdown requested by parent");
		begin_exit(cn, 0, p, ship_wanted(p, cn->b.trace_keep ||
		    getenv("GROVE_TRACE_KEEP") != NULL));
		return;
	}
	node_from_parent(&cn->n, p);
	node_check_pressure(&cn->n);
}

static const node_orphan_ops orphan_ops;

static void
parent_on_close(conn *c, int err, const char *why)
{
	commnode *cn = c->owner;
	cn->n.parent = NULL;
	/* A parent lost while the network runs: its parent, or one above,
	 * takes this CP in (docs/recovery.md). */
	if (!cn->exiting && node_orphan_possible(&cn->n) &&
	    node_orphan_begin(&cn->n, &orphan_ops, err == 0 ?
	    "connection closed" : why) == 0)
		return;
	/* A failure of this process (out of memory for a frame from the
	 * parent, a timer it could not set) is an error here: the parent
	 * sees only a link that closed.  EOF or the peer's error is the
	 * parent leaving, which is how a network ends. */
	if (!cn->exiting && (err == GROVE_ENOMEM || err == GROVE_ESYS))
		log_error("node %u: the link to the parent failed here: %s; "
		    "shutting down", cn->n.id, why);
	else if (!cn->exiting)
		log_info("parent gone (%s); shutting down", why);
	begin_exit(cn, cn->exiting ? cn->exit_code : 1, NULL, 0);
}

static void
parent_on_drain(conn *c)
{
	commnode *cn = c->owner;
	node_parent_drained(&cn->n);
	if (cn->exiting && exit_done(cn, sockio_now_ms()))
		uv_stop(&cn->n.loop);
}

static const conn_ops parent_ops = {parent_on_packet, parent_on_close,
    parent_on_drain};

static void
orphan_adopted(node *n)
{
	commnode *cn = n->owner;
	cn->parent_is_cp = n->parent_id != 0;
	cn->last_hb_ms = 0;
}

static void
orphan_give_up(node *n, const char *why)
{
	(void)why;
	begin_exit(n->owner, 1, NULL, 0);
}

static const node_orphan_ops orphan_ops = {&parent_ops, orphan_adopted,
    orphan_give_up};

static void
report_ready(commnode *cn)
{
	node *n = &cn->n;
	/* From now on a lost child is a loss to report, not a failed launch. */
	n->launched = 1;
	node_outlive_parent(n);
	node_send_lineage_all(n);
	/* Attach endpoints: ours if we have BE children, plus those below. */
	size_t cap = n->n_ep + 1, k = 0;
	uint32_t *ids = calloc(cap, sizeof *ids), *ports = calloc(cap, sizeof *ports);
	const char **hosts = calloc(cap, sizeof *hosts);
	if (!ids || !ports || !hosts)
		goto out;
	int has_be = 0;
	for (uint32_t i = 0; i < n->n_children; i++)
		has_be |= n->children[i].role == GROVE_ROLE_BE;
	if (n->attach && has_be) {
		ids[k] = n->id;
		ports[k] = n->port;
		hosts[k] = n->attach_host;
		k++;
	}
	for (size_t i = 0; i < n->n_ep; i++, k++) {
		ids[k] = n->ep_node[i];
		ports[k] = n->ep_port[i];
		hosts[k] = n->ep_host[i];
	}
	node_up_ctl(n, WIRE_T_READY, 0, PROTO_READY, n->ready_bes, ids,
	    (uint64_t)k, ports, (uint64_t)k, hosts, (uint64_t)k);
out:
	free(ids);
	free(ports);
	free(hosts);
}

/* Reports the launch upward once: ready, or failed and why.  The report
 * leaves at once: called from a timer, it would otherwise wait in the
 * queue until the loop's next poll returns (up to a tick). */
static void
check_launch(commnode *cn)
{
	node *n = &cn->n;
	if (!cn->reported_ready && !cn->reported_failure) {
		if (node_check_launch(n)) {
			cn->reported_failure = 1;
			node_up_ctl(n, WIRE_T_LAUNCH_ERROR, 0, PROTO_LAUNCH_ERROR,
			    n->launch_error);
			node_flush_all(n);
		} else if (node_children_ready(n)) {
			cn->reported_ready = 1;
			report_ready(cn);
			node_flush_all(n);
		}
	} else {
		node_check_launch(n); /* reap children that exited */
	}
}

/* Right at the deadline rather than at the next tick: the parent's own
 * deadline follows ours by a margin (node_child_launch_timeout) that may
 * be shorter than a tick. */
static void
on_launch_deadline(uv_timer_t *t)
{
	commnode *cn = t->data;
	node *n = &cn->n;
	if (cn->exiting || cn->reported_ready || cn->reported_failure)
		return;
	/* libuv's clock lags ours by up to a loop iteration: early? again. */
	uint64_t now = sockio_now_ms();
	if (now <= n->launch_deadline_ms) {
		uv_timer_start(t, on_launch_deadline,
		    n->launch_deadline_ms - now + 1, 0);
		return;
	}
	check_launch(cn);
}

static void
on_ctl_tick(uv_timer_t *t)
{
	commnode *cn = t->data;
	node *n = &cn->n;
	uint64_t now = sockio_now_ms();
	if (cn->exiting) {
		node_flush_all(n);
		if (exit_done(cn, now))
			uv_stop(&n->loop);
		return;
	}
	check_launch(cn);
	if (n->parent) {
		if (cn->parent_is_cp && conn_silent_ms(n->parent, now) >
		    5u * (uint64_t)n->heartbeat_ms) {
			log_warn("parent silent for too long; shutting down");
			conn_close(n->parent, GROVE_ETIMEDOUT, "parent silent");
			return;
		}
		grove_packet *hb = NULL;
		if (now - cn->last_hb_ms >= (uint64_t)n->heartbeat_ms &&
		    wire_pack(&hb, WIRE_T_HEARTBEAT, 0, 0, n->rank, 0, "") == 0) {
			cn->last_hb_ms = now;
			node_send(n, n->parent, hb);
			grove_packet_unref(hb);
		}
	}
}

static void
cp_child_ready(node *n)
{
	commnode *cn = n->owner;
	if (!cn->reported_ready && !cn->reported_failure &&
	    node_children_ready(n)) {
		cn->reported_ready = 1;
		report_ready(cn);
	}
}

/* While leaving, the last child to go ends the loop at once. */
static void
cp_child_lost(node *n, uint32_t child, const char *why)
{
	commnode *cn = n->owner;
	if (cn->exiting) {
		node_flush_all(n);
		if (exit_done(cn, sockio_now_ms()))
			uv_stop(&n->loop);
	} else if (!cn->reported_ready && !cn->reported_failure &&
	    n->launch_failed) {
		cn->reported_failure = 1;
		node_up_ctl(n, WIRE_T_LAUNCH_ERROR, 0, PROTO_LAUNCH_ERROR,
		    n->launch_error);
	}
}

static void
on_sigchld(uv_signal_t *s, int signum)
{
	commnode *cn = s->data;
	if (!cn->reported_ready && !cn->reported_failure)
		on_ctl_tick(&cn->ctl_tick);
	else
		node_check_launch(&cn->n);
}

/* SIGTERM (the parent-death signal of the FE's children when the FE
 * dies, or anyone's request): this CP and its subtree end.  Its children
 * no longer die with it (they may re-parent, docs/recovery.md), so it
 * ends them itself: SIGTERM to the processes of this host it started or
 * adopted (a back-end busy in its own code reads no SHUTDOWN; a CP does
 * the same for its own), SHUTDOWN to all; whatever is left after the
 * grace is killed as usual.  Recovery is for crashes, kills and silence,
 * not for a CP told to stop. */
static void
on_sigterm(uv_signal_t *s, int signum)
{
	commnode *cn = s->data;
	node *n = &cn->n;
	(void)signum;
	log_info("node %u: SIGTERM: ending this CP's subtree", n->id);
	for (uint32_t i = 0; i < n->n_children; i++) {
		node_child *ch = &n->children[i];
		if (!node_child_still_ours(n, i))
			continue;
		if (ch->pid > 0)
			kill(ch->pid, SIGTERM);
		else if (ch->peer_pid > 0 && ch->c &&
		    spawn_host_is_local(ch->host))
			kill(ch->peer_pid, SIGTERM);
	}
	node_orphan_fini(n);
	begin_exit(cn, cn->exiting ? cn->exit_code : 1, NULL, 0);
}

/* A failure after the parent took this CP in but before its loop runs
 * (node_init, the cluster map): the reason goes up as a LAUNCH_ERROR,
 * as for the later launch failures, so that it reaches the front-end's
 * error.  Without it the parent sees only a closed link, and this
 * process's stderr may be on another host (through ssh) where nobody
 * reads it.  Best effort: the link is closed right after anyway. */
static void
tell_parent_failed(node *n, uplink *up, uint32_t id, const char *why)
{
	char who[128], msg[1200];
	node_describe_id(n, id, who, sizeof who);
	snprintf(msg, sizeof msg, "%s: %s", who, why);
	grove_packet *p = NULL;
	if (up->wfd < 0 || wire_pack(&p, WIRE_T_LAUNCH_ERROR, 0, 0,
	    PROTO_NODE_RANK(id), 0, PROTO_LAUNCH_ERROR, msg) != 0)
		return;
	size_t len = 0;
	const uint8_t *bytes = wire_packet_bytes(p, &len);
	if (bytes)
		(void)sockio_write_all(up->wfd, bytes, len, AUTH_TIMEOUT_MS);
	grove_packet_unref(p);
}

static int
run(commnode *cn)
{
	char err[1024];
	boot *b = &cn->b;
	int rc = boot_read_fd(0, b, err, sizeof err);
	int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (devnull >= 0) {
		dup2(devnull, 0);
		close(devnull);
	}
	if (rc != 0) {
		fprintf(stderr, "grove-commnode: %s\n", err);
		return b->protocol && b->protocol != GROVE_PROTOCOL ?
		    BOOT_EXIT_PROTOCOL : 2;
	}
	if (b->log_level > log_level_)
		log_level_ = b->log_level;
	log_set_identity("cp", b->node);
	/* Any process may move itself from SCHED_OTHER to SCHED_BATCH; a
	 * CP started under another policy keeps it.  A failure only costs
	 * the tuning, so it is logged, not fatal. */
	if (b->cp_sched_batch && sched_getscheduler(0) == SCHED_OTHER) {
		struct sched_param sp = {0};
		if (sched_setscheduler(0, SCHED_BATCH, &sp) == 0)
			spawn_children_sched_other();
		else
			log_warn("node %u: cannot switch to SCHED_BATCH: %s",
			    b->node, strerror(errno));
	}
	uint8_t secret[AUTH_SECRET_LEN];
	if (auth_secret_from_hex(b->secret_hex, secret) != 0) {
		fprintf(stderr, "grove-commnode: bad secret in bootstrap\n");
		return 2;
	}
	grove_topo *topo = NULL;
	if (!b->topology ||
	    grove_topo_parse_string(b->topology, &topo, err, sizeof err) != 0) {
		fprintf(stderr, "grove-commnode: node %u: bad topology: %s\n", b->node,
		    b->topology ? err : "missing");
		return 2;
	}
	/* Local CP children start now, as copies of this process; in each
	 * copy the call returns 1 and b describes that child, which starts
	 * its own CP children the same way. */
	while (node_fork_local_cps(topo, b, &cn->forked) == 1)
		log_set_identity("cp", b->node);
	const grove_topo_node *me = grove_topo_node_at(topo, b->node);
	if (!me || me->role != GROVE_ROLE_CP) {
		fprintf(stderr, "grove-commnode: node %u is not a CP\n", b->node);
		grove_topo_destroy(topo);
		return 2;
	}
	cn->parent_is_cp = me->parent > 0;
	uplink up;
	if (uplink_open(b->parent_rfd, b->parent_wfd, b->parent_unix,
	    b->parent_host, b->parent_port, b->timeout_ms, &up, err,
	    sizeof err) != 0) {
		fprintf(stderr, "grove-commnode: node %u: %s\n", b->node, err);
		grove_topo_destroy(topo);
		return 1;
	}
	if ((rc = auth_child_handshake(up.rfd, up.wfd, secret, b->node, AUTH_NO_RANK,
	    AUTH_TIMEOUT_MS, err, sizeof err)) != 0) {
		fprintf(stderr, "grove-commnode: node %u: %s\n", b->node, err);
		uplink_close(&up);
		grove_topo_destroy(topo);
		return 1;
	}
	trace_tsc_hint(b->tsc_invariant);
	grove_trace_init(b->netid, "cp", b->node);
	node *n = &cn->n;
	rc = node_init(n, &cp_hooks, cn, topo, b->node, secret, b->netid,
	    b->bind_addr, err, sizeof err);
	if (rc == 0)
		node_scope_enable(n);
	if (rc != 0) {
		fprintf(stderr, "grove-commnode: node %u: %s\n", b->node, err);
		tell_parent_failed(n, &up, b->node, err);
		uplink_close(&up);
		/* node_fini frees what node_init made, the topology with it;
		 * without a loop it made nothing that holds the topology. */
		if (n->loop_ready)
			node_fini(n);
		else
			grove_topo_destroy(topo);
		return 1;
	}
	if (b->clusters && (rc = grove_cluster_map_parse_string(b->clusters,
	    &n->clusters, err, sizeof err)) != 0) {
		fprintf(stderr, "grove-commnode: node %u: cluster map: %s\n",
		    b->node, err);
		char why[1100];
		snprintf(why, sizeof why, "cluster map: %s", err);
		tell_parent_failed(n, &up, b->node, why);
		uplink_close(&up);
		node_fini(n);
		return 2;
	}
	n->forked = cn->forked;
	n->attach = b->attach;
	n->local_link_socket = b->local_link_socket;
	n->heartbeat_ms = b->heartbeat_ms > 0 ? b->heartbeat_ms :
	    GROVE_DEFAULT_HEARTBEAT_MS;
	n->timeout_ms = b->timeout_ms;
	n->reparent_ms = b->reparent_ms;
	if ((rc = uplink_conn(&n->loop, &up, &parent_ops, cn, -1,
	    &n->parent)) != 0) {
		fprintf(stderr, "grove-commnode: node %u: cannot use parent link\n",
		    b->node);
		node_fini(n);
		return 1;
	}
	n->parent->authed = 1;
	snprintf(n->parent->peer, sizeof n->parent->peer, "node %d", me->parent);
	char sw[48], rw[48];
	snprintf(sw, sizeof sw, "link:%u->%d", n->id, me->parent);
	snprintf(rw, sizeof rw, "link:%d->%u", me->parent, n->id);
	conn_trace_register(n->parent, sw, rw);
	if (conn_emulate_map(n->parent, n->clusters, n->id,
	    (uint32_t)me->parent) != 0)
		log_warn("cannot emulate the link to the parent");
	uv_signal_init(&n->loop, &cn->sigchld);
	cn->sigchld.data = cn;
	uv_signal_start(&cn->sigchld, on_sigchld, SIGCHLD);
	uv_signal_init(&n->loop, &cn->sigterm);
	cn->sigterm.data = cn;
	uv_signal_start(&cn->sigterm, on_sigterm, SIGTERM);
	uv_timer_init(&n->loop, &cn->ctl_tick);
	cn->ctl_tick.data = cn;
	uint64_t period = (uint64_t)(n->heartbeat_ms < 200 ? n->heartbeat_ms : 200);
	uv_timer_start(&cn->ctl_tick, on_ctl_tick, 5, period);
	node_start_tick(n);
	if (node_launch_children(n, b, err, sizeof err) != 0) {
		cn->reported_failure = 1;
		node_up_ctl(n, WIRE_T_LAUNCH_ERROR, 0, PROTO_LAUNCH_ERROR, err);
	} else if (node_children_ready(n)) {
		cn->reported_ready = 1;
		report_ready(cn);
	} else {
		/* node_check_launch fails the launch once the deadline has
		 * passed: check 1 ms after it. */
		uint64_t now = sockio_now_ms();
		uv_update_time(&n->loop);
		uv_timer_init(&n->loop, &cn->launch_timer);
		cn->launch_timer.data = cn;
		uv_timer_start(&cn->launch_timer, on_launch_deadline,
		    n->launch_deadline_ms > now ?
		    n->launch_deadline_ms - now + 1 : 1, 0);
	}
	node_flush_all(n);
	uv_run(&n->loop, UV_RUN_DEFAULT);
	node_flush_all(n);
	/* Children that closed their links are on their way out. */
	node_reap_children_wait(n, node_children_connected(n) ? 0 :
	    EXIT_WAIT_CHILD_GRACE_MS);
	int keep = !cn->shipped &&
	    (b->trace_keep || getenv("GROVE_TRACE_KEEP") != NULL);
	node_fini(n);
	grove_trace_fini(keep);
	return cn->exit_code;
}

/* A CP receives every large frame (a whole multicast or a segment) into a
 * buffer of its own.  glibc serves such sizes with mmap and returns them
 * to the kernel when freed, so each frame faults its pages in again and
 * unmaps them afterwards: for 4 MB frames that was about 45% of the CPU
 * time of a broadcast through a tree of CPs on one host.  Served from the
 * heap and kept there, the pages of one frame are reused by the next. */
static void
keep_frame_memory(void)
{
#ifdef M_MMAP_THRESHOLD
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 64 << 20);
#endif
}

int
main(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	/* Whoever started us (a remote shell, a wrapper), a CP must die by
	 * its parent's death signal and see its children's exits; the CPs
	 * it copies (node_fork_local_cps) inherit this. */
	spawn_signals_reset();
	signal(SIGPIPE, SIG_IGN);
	keep_frame_memory();
	commnode *cn = calloc(1, sizeof *cn);
	if (!cn)
		return 1;
	boot_init(&cn->b);
	int rc = run(cn);
	boot_fini(&cn->b);
	free(cn->forked);
	free(cn);
	return rc;
}

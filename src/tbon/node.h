/* The routing and filtering engine shared by the front-end and the
 * communication processes (internal).
 *
 * A node owns a libuv loop, a listening socket for its children, one
 * connection per child, the streams that pass through it, and the filter
 * registry.  Upstream packets from children go through each stream's
 * synchronization and transformation filters; what comes out goes to the
 * parent connection (CP) or to the front-end's queues (FE, via hooks).
 * Downstream packets are forwarded, same bytes, to the children that lead
 * to the stream's members.
 */
#ifndef GROVE_NODE_H
#define GROVE_NODE_H

#include <stdint.h>
#include <sys/types.h>
#include <uv.h>

#include "filter/filter_impl.h"
#include "grove/cluster.h"
#include "grove/topology.h"
#include "grove/trace.h"
#include "net/auth.h"
#include "net/conn.h"
#include "tbon/lineage.h"
#include "tbon/share_keep.h"
#include "tbon/wave.h"

enum child_state {
	CHILD_PENDING = 0, /* started (or expected to attach), not connected */
	CHILD_UP,          /* connected and authenticated, subtree not ready */
	CHILD_READY,       /* subtree reported ready */
	CHILD_GONE,        /* lost or shut down */
};

typedef struct node_child {
	uint32_t node_id;
	grove_node_role role;
	uint32_t be_lo, be_hi;
	const char *host;
	conn *c;
	pid_t pid;             /* > 0 when this node started it */
	enum child_state state;
	uint32_t ready_bes;
	int paused;            /* reads stopped for back-pressure */
	/* Re-parenting (node_adopt.c, docs/recovery.md).  adopt_of: for a
	 * child expected back from a lost CP child, that child's index (-1:
	 * one of the topology's own children); adopt_pending while it has
	 * not come and not been given up, until adopt_until (ms). */
	int32_t adopt_of;
	int adopt_pending;
	int adopt_said;        /* sent its ADOPT */
	uint64_t adopt_until;
	/* A lost CP whose children were expected here: its range is theirs
	 * to answer for, and routes lead through them. */
	int replaced;
	/* Lost while re-parenting is on: it may live on under another
	 * parent, so it is reaped when it exits but never killed. */
	int disowned;
	/* An adopted child on this host: the pid its hello gave (it is no
	 * child process of ours), for SIGTERM when this node ends. */
	pid_t peer_pid;
} node_child;

typedef struct node_stream {
	uint32_t id;
	uint32_t nslots;
	uint32_t *slot_child;   /* slot -> child index */
	int32_t *child_slot;    /* child index -> slot, -1 if not a member */
	uint32_t *members;      /* BE ranks below this node, sorted */
	size_t n_members;
	const flt_def *up, *down;
	int down_is_null;
	sync_kind sync_kind;
	uint32_t timeout_ms;
	sync_state *sync;
	int told_empty;         /* stream_check_empty told the parent */
	/* Per slot, once its child is gone from the stream: the node that
	 * went (or refused the stream) and why (GROVE_ELOST: lost; else the
	 * refusal's code), for the gaps of the waves after. */
	uint32_t *gone_node;
	int32_t *gone_code;
	/* Data from a child on this stream that no wave may take (the child
	 * is not on it): reported up once per child per stream. */
	int warned_outsider;
	void *up_state, *down_state;
	grove_packet *params[3];
	grove_trace_collector tc_sync, tc_up, tc_wave;
	/* Who completed each wave: result = BE rank (last_be) or CP node id
	 * (last_cp); answers "which back-end was last into the reduction". */
	grove_trace_collector tc_last_be, tc_last_cp;
	/* Re-parenting (docs/recovery.md, node_keep.c): numbers count
	 * shares from the stream's creation, the same wave number at every
	 * node under wait_for_all. */
	uint64_t released;      /* waves released here: my next share's number */
	uint64_t skip_below;    /* my shares below it are not sent (RESUME) */
	uint64_t parent_held;   /* my shares my parent has taken in */
	share_keep keep;        /* my shares the grandparent may not hold */
	/* Downstream frames (DATA, SEGMENT) taken from the parent on a
	 * stream without a downstream filter, counted from its creation,
	 * and the last ones of them, for a child that comes back from a
	 * lost CP missing some. */
	uint64_t down_in;
	share_keep down_keep;
	uint32_t slot_cap;      /* room of the per-child and per-slot arrays */
	uint64_t *base;         /* per slot: number of the child's first share */
	uint64_t *acked;        /* per slot: `held` last acked to the child */
	uint64_t *ack_bytes;    /* per slot: bytes taken in since */
	unsigned char *replaced; /* per slot: a lost CP's, answered for by
	                            the slots of its children */
} node_stream;

typedef struct node node;

/* What differs between FE and CP at the root of the upstream path. */
typedef struct node_hooks {
	/* A packet leaves this node upstream.  CP: to the parent.  FE: data
	 * to the application, control handled by the FE. */
	void (*up)(node *n, grove_packet *p);
	/* Events worth telling the owner about while nothing else happens:
	 * the FE turns them into grove_events; a CP has none. */
	void (*child_lost)(node *n, uint32_t child, const char *why);
	/* A child's subtree became ready (launch progress). */
	void (*child_ready)(node *n);
	/* FE: a wave of s was released.  rc: its transformation's result
	 * (0, or it failed and o holds nothing); o: what it emitted upward
	 * (the hook takes what it keeps, reffing it); gaps: the members
	 * missing from it.  A CP has none: its shares go to the parent. */
	void (*wave)(node *n, node_stream *s, int32_t tag, int rc,
	    flt_out *o, const wave_gaps *gaps);
} node_hooks;

/* A lost CP child whose children are expected back (node_adopt.c). */
typedef struct node_adoption {
	uint32_t lost;          /* its child index */
	uint32_t first, n;      /* the expected children's indexes */
	uint32_t pending;       /* not come and not given up */
	char why[200];          /* why it was lost */
	struct node_adoption *next;
} node_adoption;

typedef struct node_load_req {
	uint32_t req;
	uint32_t waiting;     /* CP children still to answer */
	/* Per child index: 1 while that child was asked and has not
	 * answered.  Every child knows the network secret: one answer per
	 * CP child asked, no more, and a child lost after answering is not
	 * one still awaited. */
	uint8_t *pending;
	uint32_t ok;
	char **errors;
	size_t n_errors;
	int done;
	struct node_load_req *next;
} node_load_req;

struct node {
	uv_loop_t loop;
	int loop_ready;
	const node_hooks *hooks;
	void *owner;

	grove_topo *topo;
	uint32_t id;            /* my topology node id */
	uint32_t rank;          /* PROTO_NODE_RANK(id) */
	uint8_t secret[AUTH_SECRET_LEN];
	char netid[40];
	/* Child CPs this process started as copies of itself
	 * (node_fork_local_cps), by child index; NULL: none. */
	struct node_forked *forked;
	int attach;             /* BEs attach instead of being spawned */
	int local_link_socket;  /* local children: Unix socket, not pipes */
	int heartbeat_ms;
	int timeout_ms;
	char bind_addr[64];
	/* The name attaching back-ends reach this node at (node_parent_name_for
	 * for a child anywhere); set when the node starts listening. */
	char attach_host[256];
	char rsh[256];
	char commnode[1024];
	/* FE: the places of its own grove-commnode that were not executable
	 * when it is started from PATH instead ("path: reason; ..."), named
	 * should starting it fail; "" otherwise. */
	char commnode_refused[1024];
	char be_exe[1024];
	char **be_argv;         /* NULL-terminated, argv[0] = be_exe */

	uv_tcp_t listener;
	int listening;
	uint16_t port;
	uv_pipe_t ulistener;    /* for children on this host */
	int ulistening;
	char uname[96];         /* its abstract socket name */

	node_child *children;
	uint32_t n_children;
	/* Room in children for every node of this node's subtree: a node
	 * adopts only from below itself (node_adopt.c), so indexes and
	 * pointers into the array never move.  n_topo_children: the
	 * topology's own children, the first entries. */
	uint32_t cap_children;
	uint32_t n_topo_children;
	uint32_t n_ready;       /* children in CHILD_READY (or GONE) */
	uint32_t ready_bes;     /* BEs reported ready below */
	/* attach endpoints reported from below (node, port, host): at most
	 * one per CP below, each child's once (node_ready.c) */
	uint32_t *ep_node, *ep_port;
	char **ep_host;
	size_t n_ep, cap_ep;

	conn **pending;         /* accepted, not yet authenticated */
	uint8_t (*pending_nonce)[AUTH_NONCE_LEN];
	uint64_t *pending_since;
	size_t n_pending, cap_pending;
	/* Connections closed to keep the pending list at its cap since the
	 * last warning, and when that warning was logged. */
	uint64_t pending_evicted;
	uint64_t pending_warn_ms;

	node_stream **streams;  /* open addressing on id */
	size_t stream_cap, n_streams;
	size_t stream_tombs;    /* removed streams' slots (node_stream.c) */

	flt_registry *filters;
	flt_out fout;
	wave_gaps gaps;         /* the wave being released (node_stream_up.c) */
	/* Data on a stream this node does not have: the last report of it
	 * sent up, so that a child that keeps sending is reported once a
	 * second, not per packet. */
	uint32_t drop_stream, drop_child;
	uint64_t drop_ms;
	node_load_req *loads;

	/* Conns with queued packets, flushed in the order they were first
	 * queued to: a broadcast reaches the children in list order, the
	 * largest subtree first (the order the P-LogP model assumes). */
	conn *dirty;
	conn **dirty_tail;
	uv_check_t flush_check;
	uv_timer_t tick;        /* heartbeats to CP children, their silence */
	/* Handshake deadlines, while a link waits to authenticate
	 * (node_accept.c); not on the tick, whose period is heartbeat_ms. */
	uv_timer_t auth_timer;
	uv_timer_t sync_timer;  /* next sync-filter timeout */
	uint64_t sync_deadline;
	uint64_t launch_deadline_ms;
	uint64_t last_tick_ms;   /* when on_tick last ran */

	conn *parent;           /* CP: link to the parent; FE: NULL */
	int parent_paused;      /* a child link is over its limit */
	int children_paused;    /* the parent link is over its limit */
	uint32_t *sync_paused;  /* children whose reads a wait_for_all
	                           stream stopped (node_stream_up.c) */
	uint32_t n_sync_paused;
	/* A child link kept bytes after a flush.  Only then can a child link
	 * be over its limit, so node_check_pressure looks at them only while
	 * this is set (and clears it once none holds any). */
	int child_backlog;
	int launch_failed;
	char launch_error[1024];
	/* The launch is over: this CP reported its subtree ready, or the
	 * FE's create saw every child ready.  A child lost before that
	 * fails the launch; after it, the loss is reported (NODE_LOST). */
	int launched;
	int shutting_down;
	grove_trace_collector tc_connect, tc_stream_new;
	grove_filter_place place;
	struct node_skew *skew; /* clock-skew detection (skew.c); NULL until used */
	/* Link emulation of this node's own outgoing links (NULL: none). */
	grove_cluster_map *clusters;
	/* Re-parenting (docs/recovery.md).  reparent_ms < 0: none.  lineage:
	 * my ancestors as my parent said (LINEAGE), FE first; parent_id: my
	 * parent's node id now (the topology's until re-parented). */
	int reparent_ms;
	lineage lineage;
	uint32_t parent_id;
	int resuming;           /* ADOPT sent, RESUME not yet here */
	struct node_orphan *orphan; /* the parent is lost (node_orphan.c) */
	node_adoption *adoptions;
	uv_timer_t adopt_timer;
	/* Per topology node: the parent it has now, once a REPARENTED from
	 * or through this node moved some (NULL until then): a lost CP's
	 * children are those it has now, adopted ones included. */
	uint32_t *moved_parent;
	/* Event scopes this node reads or merges for (node_scope.c); NULL
	 * until a monitor pulls.  scope_ops: how they are reached, set by
	 * the front-end and grove-commnode (node_scope_enable); NULL, the
	 * node's scope messages are dropped.  Through a table, so that a
	 * program that links the node engine without serving scopes (a
	 * back-end pulls it in with the clock-skew code) carries neither
	 * the analysis nor libm (tests/cli/linkage.sh). */
	struct node_scopes *scopes;
	const struct node_scope_ops *scope_ops;
};

/* Set up a node (loop, listener, filter registry).  topo is taken over. */
int node_init(node *n, const node_hooks *hooks, void *owner, grove_topo *topo,
    uint32_t id, const uint8_t secret[AUTH_SECRET_LEN], const char *netid,
    const char *bind_addr, char *err, size_t errlen);
void node_fini(node *n);

/* Start the children this node is responsible for (spawn mode: all;
 * attach: CPs only).  boot_template carries the settings for children. */
struct boot;
int node_launch_children(node *n, const struct boot *tmpl, char *err,
    size_t errlen);
/* The launch window a node gives a child CP, from its own: a quarter less,
 * but at most 5 s less.  A CP times out the launch of its children before
 * its parent times out it, so the deepest CP that sees children missing
 * reports them by name (the parent would only see a subtree that is "not
 * ready").  The margin covers starting the child and the report's trip
 * up; it shrinks with the window, so a deep tree with a short timeout
 * still gives every level a positive window (>= 1 ms for parent_ms >= 1;
 * never more than parent_ms). */
int node_child_launch_timeout(int parent_ms);

/* The host name a child on child_host is told to reach this node (on
 * my_host, its host in the topology) at: the address the node is bound
 * to, or with a wildcard bind my_host, except that a loopback name
 * ("localhost", 127.x, ::1) given to a child on another host becomes this
 * machine's own name when that resolves.  child_host NULL: a child that
 * may be anywhere (an attaching back-end). */
void node_parent_name_for(const node *n, const char *my_host,
    const char *child_host, char *out, size_t len);

/* A child CP started as a copy of this process: its pid, and this
 * process's ends of the two pipes of its link (-1 once adopted). */
typedef struct node_forked {
	pid_t pid;              /* 0: not forked; start it the usual way */
	int rfd, wfd;
} node_forked;

/* Starts the CP children of node b->node that run on this host as copies
 * of this process (fork without exec), before this process has set up
 * anything else: exec'ing grove-commnode costs a child about 0.7 ms of
 * CPU on a 2-vCPU VM (the dynamic loader, glibc's start-up CPUIDs, the
 * binary's page faults), which a copy skips.  Only when the children
 * would run this very program (b->commnode is /proc/self/exe, not a
 * wrapper) and link over pipes.  Returns 0 in this process, with *out the
 * children it forked (by child index; the caller hands it to node_init's
 * node as n->forked and frees it), or NULL; 1 in a forked child, which has
 * become that child: b describes it (its node, its pipes, its shorter
 * launch window), every other descriptor above 2 is closed, and it should
 * go on as if it had read b from its standard input. */
int node_fork_local_cps(const grove_topo *topo, struct boot *b,
    node_forked **out);
/* A child started on this host gets its link as two pipes: this end
 * reads rfd and writes wfd (node takes both, also on failure) and,
 * like an accepted connection, waits for the child's proof of the
 * secret.  0 or a grove_err. */
int node_adopt_child_pipes(node *n, int rfd, int wfd);
/* The handshake deadline of every link waiting for its proof counts from
 * now: a node that has just started its children read none of them
 * meanwhile (for a large tree on a busy host, seconds). */
void node_pending_restart_clock(node *n);

/* Between node.c and node_accept.c. */
/* A listener's connection callback: the new link must authenticate. */
void node_on_connection(uv_stream_t *server, int status);
/* Closes a link that is not (yet) a child's, logging why. */
void node_reject(node *n, conn *c, const char *why);
/* A child's link authenticated and is its link now. */
void node_child_attached(node *n, uint32_t idx);
/* The callbacks of an authenticated child's link, and of any link that
 * node_fini closes. */
extern const conn_ops node_child_ops;
extern const conn_ops node_fini_ops;
/* Between node.c and node_ready.c. */
/* A child's READY message: checked against what its subtree can send
 * (else its link is closed as a protocol error), its endpoints kept, the
 * child marked ready. */
void node_child_ready_msg(node *n, uint32_t idx, grove_packet *p);
/* Whether child idx may not send p (node_child_msg.c): 1 with the reason
 * in why, naming the child and the message; the caller closes its link. */
int node_child_msg_wrong(const node *n, uint32_t idx, const grove_packet *p,
    char *why, size_t len);
/* The child's subtree is up with bes back-ends (repeats are ignored). */
void node_child_mark_ready(node *n, node_child *ch, uint32_t bes);
/* 1 when every child this node waits for has reported ready. */
int node_children_ready(const node *n);

/* Handle a packet arriving from the parent (CP) or injected by the FE
 * application (downstream data/control). */
void node_from_parent(node *n, grove_packet *p);
/* Queue a packet on a connection and remember to flush it. */
void node_send(node *n, conn *c, grove_packet *p);
void node_flush_all(node *n);
/* Send a packet to every live child of a stream, or to all live children
 * when s is NULL. */
void node_send_down(node *n, node_stream *s, grove_packet *p, int cp_only);
/* node_stream_up.c, for node_down.c: a filter of s failed (reported up
 * as a filter error); the sync timeout of s changed (a waiting wave goes
 * by the new window). */
void node_stream_filter_error(node *n, node_stream *s, int rc,
    const char *what);
void node_stream_timeout_changed(node *n, node_stream *s);
/* node_stream_up.c, for the membership changes of node_stream.c: the
 * parent is told once when no member of s is left below this node; the
 * waves that s's changed slots completed at time now (ns) go, then that
 * check; reads from a child paused by a deep sync queue go on. */
void node_stream_check_empty(node *n, node_stream *s);
void node_stream_slots_changed(node *n, node_stream *s, uint64_t now);
void node_streams_resume_child(node *n, uint32_t child);

/* The stream table, n->streams (node_stream.c): open addressing on the
 * id.  A removed stream leaves a tombstone (the node pointer) so the
 * probe chains through its slot stay intact.  Tombstones count against
 * the load like live streams: a table whose every slot is live or a
 * tombstone would leave a lookup of an absent id no empty slot to stop
 * at, so the table is rebuilt, without them, before that can happen. */
#define NODE_STREAM_TOMBSTONE(n) ((node_stream *)(n))

static inline size_t
node_stream_slot_of(uint32_t id, size_t cap)
{
	return (id * 2654435761u) & (cap - 1);
}

/* The stream with this id, or NULL.  Inline: every packet up or down
 * looks its stream up. */
static inline node_stream *
node_stream_find(node *n, uint32_t id)
{
	size_t cap = n->stream_cap;
	size_t i = cap ? node_stream_slot_of(id, cap) : 0;
	for (size_t probes = 0; probes < cap; probes++, i = (i + 1) & (cap - 1)) {
		node_stream *s = n->streams[i];
		if (!s)
			return NULL;
		if (s != NODE_STREAM_TOMBSTONE(n) && s->id == id)
			return s;
	}
	return NULL;
}

/* Visit the streams (pos from 0; NULL at the end).  Inline, as find. */
static inline node_stream *
node_stream_next(node *n, size_t *pos)
{
	for (; *pos < n->stream_cap; (*pos)++) {
		node_stream *s = n->streams[*pos];
		if (s && s != NODE_STREAM_TOMBSTONE(n)) {
			(*pos)++;
			return s;
		}
	}
	return NULL;
}
/* A back-end child attached: it is told of the streams it is a member of
 * that were created before (STREAM_NEW, its rank alone). */
void node_streams_child_attached(node *n, uint32_t child);
/* Create a stream from a STREAM_NEW description; forwards it to the
 * children that lead to members. */
int node_stream_create(node *n, uint32_t id, const uint32_t *members,
    size_t n_members, const char *up, const char *sync, const char *down,
    uint32_t timeout_ms, char *err, size_t errlen);
void node_stream_destroy(node *n, uint32_t id, int forward);

/* Load a filter here and forward the request to CP children; returns the
 * request (completed when done != 0). */
node_load_req *node_filter_load(node *n, uint32_t req, const char *name,
    const char *path, const char *symbol);
void node_load_req_free(node *n, node_load_req *r);
/* Undo load request req on this node (if it registered name here) and
 * tell the CPs below to do the same. */
void node_filter_unload(node *n, uint32_t req, const char *name);

/* Begin an orderly shutdown: SHUTDOWN to every child (msg: the packet to
 * forward, or NULL for a plain one). */
void node_shutdown_children(node *n, grove_packet *msg);
/* Children still connected. */
uint32_t node_children_connected(const node *n);
/* Bytes read from the children and written to the parent so far: what a
 * node that leaves watches to see its links still moving (exit_wait.h). */
uint64_t node_link_bytes(const node *n);
/* Whether child idx, a process this node started, is still this node's
 * to end: not when its link closed while re-parenting is on (below the
 * FE), since it may live on under another parent (docs/recovery.md). */
int node_child_still_ours(node *n, uint32_t idx);
/* Kill and reap processes this node started (after the grace period):
 * only those still ours (node_child_still_ours). */
void node_reap_children(node *n, int kill_them);
/* Reap children as they exit, for up to grace_ms; then kill the rest. */
void node_reap_children_wait(node *n, int grace_ms);

/* Back-pressure bookkeeping after queueing work (see node.c). */
void node_check_pressure(node *n);
/* To be called after flushing link c of n: notes a child link's backlog
 * for node_check_pressure. */
static inline void
node_note_flushed(node *n, conn *c)
{
	if (c != n->parent && conn_queued(c))
		n->child_backlog = 1;
}
void node_parent_drained(node *n);
/* Reaps the children this node started that have exited (waitpid on
 * their pids only).  One that had not connected fails the launch, naming
 * its exit status.  A local one that had connected is lost ("process
 * exited with status N", "killed by signal S") once what it sent is read:
 * its link may never reach EOF, since a process it forked without exec
 * keeps copies of its descriptors.  One reaped by someone else (ECHILD)
 * is left to its link. */
void node_reap_exited(node *n);
/* Child idx was started on this host and has exited (reaped now, with
 * waitpid on its pid only): 1 and out = "process exited with status N"
 * or "process killed by signal S"; else 0 (still running, remote, or
 * reaped already). */
int node_child_exit_status(node *n, uint32_t idx, char *out, size_t len);
/* Child idx is lost (why), as when its link closes. */
void node_child_lose(node *n, uint32_t idx, const char *why);
/* Child idx, connected, has exited: read what it sent, then lose it with
 * reason why. */
void node_child_exited(node *n, uint32_t idx, const char *why);
/* node_reap_exited, then whether the launch has failed (a child that
 * exited or was lost before it was ready, or the launch deadline passed
 * with children not ready): 1 when it has (n->launch_error says why).
 * After the launch (n->launched) only the reaping is done. */
int node_check_launch(node *n);
/* Record why the launch failed (the first reason wins). */
void node_launch_fail(node *n, const char *msg);
void node_start_tick(node *n);
void node_describe_child(const node *n, const node_child *ch, char *out,
    size_t len);
/* The same for any node of the topology, by id ("node 7" when the
 * topology has no such node). */
void node_describe_id(const node *n, uint32_t id, char *out, size_t len);

/* Wave accounts (node_wave.c), for the wave release of node_stream_up.c:
 * the gaps of the wave just popped from s into n->gaps (returns the
 * wave's tag as its first share says, or tag); the gaps when this node's
 * filter failed on it (rc); and the share announcement to the parent
 * (*out: the packet, or NULL when none is needed; *npackets drops to 0
 * when the share had to go up empty). */
int32_t node_wave_collect(node *n, node_stream *s, int32_t tag);
void node_wave_failed(node *n, node_stream *s, int rc);
void node_wave_share_packet(node *n, node_stream *s, int32_t tag,
    size_t *npackets, const wave_gaps *gaps, grove_packet **out);

/* ---- re-parenting (docs/recovery.md) ---- */

/* node_adopt.c, the adopting side.  A CP child was lost (why): when
 * recovery applies, expect its children back here and return 1 (the
 * caller then neither removes it from the streams nor reports it lost);
 * else 0. */
int node_adopt_begin(node *n, uint32_t idx, const char *why);
/* A child expected back was given up or lost (after child_lost). */
void node_adopt_child_gone(node *n, uint32_t idx);
/* ADOPT from child idx. */
void node_adopt_msg(node *n, uint32_t idx, grove_packet *p);
/* A REPARENTED made here or passed up through here (checked): its moves
 * are noted. */
void node_adopt_note_moves(node *n, const grove_packet *p);
/* Node id is lost (a NODE_LOST made here or passed up through here): it
 * is not expected back should its parent be lost. */
void node_adopt_note_gone(node *n, uint32_t id);
/* The child index a P2P packet for BE rank goes through: the topology's
 * route, through the children adopted from a lost CP; -1: none. */
int node_route(const node *n, uint32_t rank);
/* LINEAGE to child idx (its ancestors: mine, then me), or to every
 * connected child; nothing before the node's launch is over (its end
 * sends them all). */
void node_send_lineage(node *n, uint32_t idx);
void node_send_lineage_all(node *n);
/* A LINEAGE from the parent: kept, and passed on to the children. */
void node_lineage_from_parent(node *n, grove_packet *p);
/* A CP that may re-parent (node_orphan_possible) stops dying with its
 * parent process (PR_SET_PDEATHSIG, set at its start). */
void node_outlive_parent(node *n);

/* node_stream.c, for the adoption: per stream through lost CP child
 * `lost`, slots for the expected children [first, first + k) (padded to
 * wave R) and the lost child's slot given up, replaced. */
void node_streams_adopt(node *n, uint32_t lost, uint32_t first, uint32_t k);
/* STREAM_NEW for s to child idx, with its members. */
void node_stream_tell_child(node *n, node_stream *s, uint32_t idx);

/* node_keep.c: shares kept until the grandparent holds them, acks, and
 * the orphan's side of ADOPT/RESUME. */
/* A share this node releases on s (CP; a wave's announcement or NULL,
 * and its packets): kept when it may have to be sent again, sent when
 * there is a parent and it is not below s->skip_below. */
void node_keep_share_up(node *n, node_stream *s, grove_packet *announce,
    grove_packet *const *pkts, size_t k);
/* A share of slot's child came in whole on s (bytes: its size): ack it
 * when it is time. */
void node_keep_share_in(node *n, node_stream *s, uint32_t slot, size_t bytes);
/* A downstream frame p of s from the parent, about to go to the
 * children: counted, and kept for children that may come back. */
void node_keep_down(node *n, node_stream *s, grove_packet *p);
/* The frames of s child idx has not had, from its count of them on,
 * as far as they are kept. */
void node_keep_down_resend(node *n, node_stream *s, uint32_t idx,
    uint64_t from);
/* WAVE_ACK from the parent. */
void node_keep_parent_ack(node *n, grove_packet *p);
/* The ADOPT this node sends its new parent. */
int node_keep_adopt_packet(node *n, grove_packet **out);
/* RESUME from the new parent: streams not named go, kept shares are
 * sent again from the resume points. lost: the node that was lost. */
void node_keep_resume(node *n, grove_packet *p, uint32_t lost);

/* node_orphan.c: a CP whose parent is lost. */
typedef struct node_orphan_ops {
	/* For the link to the new parent (its owner: n->owner). */
	const conn_ops *parent_ops;
	/* Taken in: n->parent and n->parent_id are the new parent's. */
	void (*adopted)(node *n);
	/* No ancestor took it in (why): the orphan state is over. */
	void (*give_up)(node *n, const char *why);
} node_orphan_ops;
/* Whether a CP whose parent link just failed may look for a new one:
 * recovery on, launched, not leaving, an ancestor above the parent. */
int node_orphan_possible(const node *n);
/* The parent link failed (why; n->parent is NULL): look for a new one. */
int node_orphan_begin(node *n, const node_orphan_ops *ops, const char *why);
/* While orphaned: a control message for the parent, sent to the new one
 * after RESUME. */
void node_orphan_hold(node *n, grove_packet *p);
/* RESUME from the new parent (node_keep_resume, then the held messages). */
void node_orphan_resumed(node *n, grove_packet *p);
void node_orphan_fini(node *n);

/* Queue a control message upward through hooks->up. */
void node_up_ctl(node *n, uint16_t type, int32_t tag, const char *fmt, ...);

#endif

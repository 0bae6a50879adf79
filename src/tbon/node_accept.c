/* Accepting and authenticating a node's children (internal): every new
 * link, from the listeners or the pipes of a child this node started,
 * waits here until it answers the challenge (net/auth.h); then it becomes
 * a child's link (node_child_ops in node.c) or is turned away with a
 * reason. */
#include "tbon/node.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "codec/wire.h"
#include "core/log.h"
#include "grove/error.h"
#include "net/protover.h"
#include "net/sockio.h"
#include "tbon/proto.h"

static void pending_on_packet(conn *c, grove_packet *p);
static void pending_on_close(conn *c, int err, const char *why);

static const conn_ops pending_ops = {pending_on_packet, pending_on_close, NULL};


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

/* While links wait to authenticate, their deadlines are checked this
 * often, on a timer of their own: the heartbeat tick's period is the
 * tool's heartbeat_ms, and a 30 s heartbeat would give a peer 30 s.  So a
 * link that has not finished its handshake is closed between
 * AUTH_TIMEOUT_MS and AUTH_TIMEOUT_MS + AUTH_CHECK_MS after it came (or
 * after node_pending_restart_clock); an idle node does not wake for it. */
#define AUTH_CHECK_MS (AUTH_TIMEOUT_MS / 10)

static void
on_auth_check(uv_timer_t *t)
{
	node *n = t->data;
	uint64_t now = sockio_now_ms();
	for (size_t i = 0; i < n->n_pending;) {
		if (now - n->pending_since[i] > AUTH_TIMEOUT_MS) {
			node_reject(n, n->pending[i],
			    "handshake not completed in time");
			continue; /* pending_on_close removed entry i */
		}
		i++;
	}
	if (n->n_pending == 0)
		uv_timer_stop(t);
}

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

void
node_on_connection(uv_stream_t *server, int status)
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
	if (!uv_is_active((uv_handle_t *)&n->auth_timer))
		uv_timer_start(&n->auth_timer, on_auth_check, AUTH_CHECK_MS,
		    AUTH_CHECK_MS);
	auth_nonce_new(n->pending_nonce[i]);
	grove_packet *ch = NULL;
	if (wire_pack(&ch, WIRE_T_AUTH_CHALLENGE, 0, 0, n->rank, GROVE_PROTOCOL,
		"%auc",
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

void
node_reject(node *n, conn *c, const char *why)
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
	node_reject(n, c, why);
}

/* Turn away a child of another protocol version.  Its hello may have
 * another layout: only one that unpacks as ours (protocol 1 has the same)
 * and proves the secret is told why; any other peer learns nothing, and
 * the log says what it claimed. */
static void
reject_version(node *n, conn *c, long pi, grove_packet *p, uint32_t theirs)
{
	const uint8_t *proof = NULL, *nonce_c = NULL;
	uint64_t plen = 0, nlen = 0;
	uint32_t node_id = 0, pid = 0, rank = 0;
	uint8_t expect[AUTH_PROOF_LEN];
	char why[256];
	int proven = grove_packet_unpack(p, "%auc %auc %ud %ud %ud", &proof,
	    &plen, &nonce_c, &nlen, &node_id, &pid, &rank) == 0 &&
	    plen == AUTH_PROOF_LEN && nlen == AUTH_NONCE_LEN;
	if (proven) {
		auth_proof_child(n->secret, n->pending_nonce[pi], nonce_c, node_id,
		    expect);
		proven = auth_proof_equal(expect, proof);
	}
	if (!proven) {
		snprintf(why, sizeof why, "a hello of Grove protocol %u, this "
		    "node speaks %u (another Grove version, or a wrong secret: "
		    "its proof does not check)", theirs, GROVE_PROTOCOL);
		node_reject(n, c, why);
		return;
	}
	int idx = child_index_of_node(n, node_id);
	char who[128];
	if (idx >= 0)
		node_describe_child(n, &n->children[idx], who, sizeof who);
	else
		snprintf(who, sizeof who, "node %u (pid %u)", node_id, pid);
	snprintf(why, sizeof why, "%s speaks Grove protocol %u, its parent "
	    "(node %u) speaks %u: install the same Grove version on every "
	    "host", who, theirs, n->id, GROVE_PROTOCOL);
	/* A child this node started will never join: that is why the
	 * network cannot start, and the front-end's error should say so
	 * rather than that it exited.  An attach-mode back-end is the
	 * tool's to start again. */
	if (idx >= 0 && !n->launched && !(n->attach &&
	    n->children[idx].role == GROVE_ROLE_BE))
		node_launch_fail(n, why);
	reject_proven(n, c, pi, nonce_c, why);
}

static void
pending_on_packet(conn *c, grove_packet *p)
{
	node *n = c->owner;
	long pi = pending_index(n, c);
	const wire_hdr *h = wire_packet_hdr(p);
	const uint8_t *proof = NULL, *nonce_c = NULL;
	uint64_t plen = 0, nlen = 0;
	uint32_t node_id = 0, pid = 0, rank = 0;
	/* Short enough for an AUTH_REJECT within AUTH_MAX_FRAME. */
	char why[256];
	if (pi < 0)
		return;
	if (h->type != WIRE_T_AUTH_HELLO) {
		snprintf(why, sizeof why, "message type %u before authentication",
		    h->type);
		node_reject(n, c, why);
		return;
	}
	/* Before the payload, whose layout may be another in the child's
	 * protocol (src/net/auth.h). */
	uint32_t theirs = protover_of_aux(h->aux);
	if (theirs != GROVE_PROTOCOL) {
		reject_version(n, c, pi, p, theirs);
		return;
	}
	if (grove_packet_unpack(p, "%auc %auc %ud %ud %ud", &proof, &plen,
		&nonce_c, &nlen, &node_id, &pid, &rank) != 0 ||
	    plen != AUTH_PROOF_LEN ||
	    nlen != AUTH_NONCE_LEN) {
		node_reject(n, c, "malformed hello");
		return;
	}
	uint8_t expect[AUTH_PROOF_LEN];
	auth_proof_child(n->secret, n->pending_nonce[pi], nonce_c, node_id, expect);
	if (!auth_proof_equal(expect, proof)) {
		snprintf(why, sizeof why, "wrong network secret (claimed node %u, "
		    "pid %u)", node_id, pid);
		node_reject(n, c, why);
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
	/* Checked before the slot is looked at: a BE sent to another
	 * rank's place (an edited or mixed-up connection file) must not
	 * take that rank's slot, nor lose it for the real one. */
	uint32_t want = ch->role == GROVE_ROLE_BE ? ch->be_lo : AUTH_NO_RANK;
	if (rank != want) {
		if (ch->role == GROVE_ROLE_BE && rank != AUTH_NO_RANK)
			snprintf(why, sizeof why, "node %u is back-end rank %u, "
			    "not rank %u (a connection record for another "
			    "network or rank?)", node_id, want, rank);
		else if (ch->role == GROVE_ROLE_BE)
			snprintf(why, sizeof why, "node %u is back-end rank %u, "
			    "not a CP", node_id, want);
		else
			snprintf(why, sizeof why, "node %u is a CP, not back-end "
			    "rank %u", node_id, rank);
		reject_proven(n, c, pi, nonce_c, why);
		return;
	}
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
	c->ops = &node_child_ops;
	c->tag = idx;
	c->authed = 1;
	snprintf(c->peer, sizeof c->peer, "node %u", node_id);
	ch->c = c;
	/* No child process of ours: the pid it gave is all this node knows
	 * of it, for SIGTERM when this node ends (commnode_main.c). */
	if (ch->adopt_of >= 0)
		ch->peer_pid = (pid_t)pid;
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
	node_child_attached(n, (uint32_t)idx);
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

const conn_ops node_fini_ops = {pending_on_packet, fini_on_close, NULL};

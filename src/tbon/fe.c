#define _GNU_SOURCE
/* Front-end: creating and destroying a network. */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "codec/wire.h"
#include "core/defaults.h"
#include "core/envvar.h"
#include "core/install_dirs.h"
#include "core/log.h"
#include "grove/topology.h"
#include "grove/trace.h"
#include "net/remote_cmd.h"
#include "net/sockio.h"
#include "net/spawn.h"
#include "tbon/fe_internal.h"
#include "tbon/proto.h"
#include "tbon/ship.h"
#include "topo/fe_host.h"
#include "trace/leftover.h"
#include "trace/trace_impl.h"

void
fe_set_error(grove_net *net, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(net->err, sizeof net->err, fmt, ap);
	va_end(ap);
}

void
grove_net_opts_init(grove_net_opts *o)
{
	if (!o)
		return;
	memset(o, 0, sizeof *o);
	o->topology = "flat";
	o->timeout_ms = GROVE_DEFAULT_TIMEOUT_MS;
}

/* The transport of local links for the whole network: the option, else
 * $GROVE_LOCAL_LINK, else pipes.  CPs get it in their bootstrap. */
static int
local_link_socket(grove_local_link l)
{
	if (l != GROVE_LOCAL_LINK_DEFAULT)
		return l == GROVE_LOCAL_LINK_SOCKET;
	static const char *const words[] = {"pipe", "socket"};
	return env_word("GROVE_LOCAL_LINK", words, 2, 0) == 1;
}

/* CPs under SCHED_BATCH: the option, else $GROVE_CP_SCHED=batch. */
static int
cp_sched_batch(int opt)
{
	static const char *const words[] = {"other", "batch"};
	return opt || env_word("GROVE_CP_SCHED", words, 2, 0) == 1;
}

/* Subtree binding: the option, else $GROVE_CPU_BIND=subtree. */
static int
cpu_bind_subtree(grove_cpu_bind opt)
{
	if (opt != GROVE_CPU_BIND_DEFAULT)
		return opt == GROVE_CPU_BIND_SUBTREE;
	static const char *const words[] = {"none", "subtree"};
	return env_word("GROVE_CPU_BIND", words, 2, 0) == 1;
}

/* Re-parenting's wait: the option, else $GROVE_REPARENT_MS (an integer;
 * negative: off), else GROVE_DEFAULT_REPARENT_MS; -1 when off. */
static int
reparent_ms(int opt)
{
	if (opt != 0)
		return opt > 0 ? opt : -1;
	const char *s = getenv("GROVE_REPARENT_MS");
	if (!s || !*s)
		return GROVE_DEFAULT_REPARENT_MS;
	char *end = NULL;
	long v = strtol(s, &end, 10);
	if (end == s || *end || v > 24L * 3600 * 1000) {
		fprintf(stderr, "grove: GROVE_REPARENT_MS='%s' is not a number of "
		    "ms (negative: no re-parenting); using %d\n", s,
		    GROVE_DEFAULT_REPARENT_MS);
		return GROVE_DEFAULT_REPARENT_MS;
	}
	return v > 0 ? (int)v : v < 0 ? -1 : GROVE_DEFAULT_REPARENT_MS;
}

const char *
grove_net_last_error(const grove_net *net)
{
	return net ? net->err : "no network";
}

/* ---- events and queues --------------------------------------------- */

void
fe_update_waitfd(grove_net *net)
{
	waitfd_set(&net->wfd, net->queued > 0 || net->ev_untold > 0);
}

/* Append *item (elem bytes) to a ring (grows it); 0 or GROVE_ENOMEM, and
 * then nothing changed. */
static int
ring_push(void **ring, size_t elem, size_t *head, size_t *n, size_t *cap,
    const void *item)
{
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 16;
		char *e = malloc(c * elem);
		if (!e)
			return GROVE_ENOMEM;
		for (size_t i = 0; i < *n; i++)
			memcpy(e + i * elem,
			    (char *)*ring + (*head + i) % *cap * elem, elem);
		free(*ring);
		*ring = e;
		*cap = c;
		*head = 0;
	}
	memcpy((char *)*ring + (*head + *n) % *cap * elem, item, elem);
	(*n)++;
	return 0;
}

/* Queues ev for grove_net_next_event. */
static int
queue_event(grove_net *net, const grove_event *ev, int told)
{
	fe_queued_event q = {*ev, told};
	if (ring_push((void **)&net->events, sizeof q, &net->ev_head,
	    &net->ev_n, &net->ev_cap, &q) != 0)
		return GROVE_ENOMEM;
	if (!told)
		net->ev_untold++;
	return 0;
}

/* Every queued event makes the descriptor readable again: the callback
 * that was told of some is gone (or was never called for them). */
void
fe_untell_events(grove_net *net)
{
	for (size_t i = 0; i < net->ev_n; i++)
		net->events[(net->ev_head + i) % net->ev_cap].told = 0;
	net->ev_untold = net->ev_n;
	fe_update_waitfd(net);
}

void
fe_event(grove_net *net, const grove_event *ev)
{
	/* Not called here: this runs inside the loop (a filter's error is
	 * reported while its stream's waves are being released), where a
	 * callback that destroyed the stream would free it under us.  Only
	 * an event the callback will get counts as told: without memory for
	 * its turn, the descriptor announces it instead. */
	int told = net->cb && ring_push((void **)&net->cb_events, sizeof *ev,
	    &net->cb_head, &net->cb_n, &net->cb_cap, ev) == 0;
	queue_event(net, ev, told);
	fe_update_waitfd(net);
}

void
fe_deliver_events(grove_net *net)
{
	/* A Grove call made by the callback ends here too: the events it
	 * raised wait for the outer delivery, which keeps their order. */
	if (net->delivering || net->destroying)
		return;
	net->delivering = 1;
	while (net->cb_n) {
		grove_event ev = net->cb_events[net->cb_head];
		net->cb_head = (net->cb_head + 1) % net->cb_cap;
		net->cb_n--;
		/* Read each time: the callback may replace or remove itself. */
		if (net->cb)
			net->cb(net, &ev, net->cb_arg);
	}
	net->delivering = 0;
}

grove_stream *
fe_stream_by_id(grove_net *net, uint32_t id)
{
	for (grove_stream *s = net->streams; s; s = s->next)
		if (s->id == id)
			return s;
	return NULL;
}

void
fe_queue_packet(grove_net *net, grove_stream *s, grove_packet *p)
{
	if (pktq_push(&s->q, grove_packet_ref(p), net->seq++) == 0)
		net->queued++;
	else
		grove_packet_unref(p);
}

/* Every rank in [lo, hi) is lost, also one that never attached (its CP
 * went): none of them can send or attach any more. */
static void
mark_lost(grove_net *net, uint32_t lo, uint32_t hi)
{
	uint32_t nb = grove_topo_backends(net->topo);
	for (uint32_t r = lo; r < hi && r < nb; r++) {
		if (net->be_state[r] == FE_BE_LOST)
			continue;
		if (net->be_state[r] == FE_BE_UP)
			net->be_up--;
		net->be_state[r] = FE_BE_LOST;
		net->be_lost++;
	}
}

/* A node lost below while create waits: the start-up has failed, now,
 * as for a child of the FE itself (node.c's child_lost).  A CP that had
 * reported its subtree ready reports the loss of one of its children
 * this way, not as a launch error; before create returns, that loss is
 * still a failed start-up.  Attached back-ends are not waited for. */
static void
lost_at_launch(grove_net *net, uint32_t id, const char *why)
{
	node *n = &net->n;
	const grove_topo_node *k = grove_topo_node_at(net->topo, id);
	if (n->attach && k && k->role == GROVE_ROLE_BE)
		return;
	char who[128], msg[400];
	node_describe_id(n, id, who, sizeof who);
	snprintf(msg, sizeof msg, "%s lost during startup: %s", who, why);
	node_launch_fail(n, msg);
}

/* The root of the upstream path: packets leaving the FE's filters and
 * control messages from below. */
static void
fe_up(node *n, grove_packet *p)
{
	grove_net *net = n->owner;
	const wire_hdr *h = wire_packet_hdr(p);
	grove_event ev;
	memset(&ev, 0, sizeof ev);
	switch (h->type) {
	case WIRE_T_DATA: {
		/* A dont_wait stream's packets (waves come by fe_wave). */
		grove_stream *s = fe_stream_by_id(net, h->stream);
		if (!s)
			return;
		fe_queue_packet(net, s, p);
		break;
	}
	case WIRE_T_TRACE_DATA: {
		/* The source is one the child link may speak for
		 * (node_child_msg.c).
		 * Copies with tag 0 come with the shutdown only; an answer to
		 * a live request counts once per process that was asked, and
		 * a late one or a second one is not copied either. */
		int64_t id = ship_src_node(net->topo, h->src);
		if (id <= 0)
			return;
		if (h->tag == 0) {
			if (n->shutting_down)
				(void)ship_receive(net->netid, p, net->trace_offsets);
			else
				log_warn("event space from node %u before the "
				    "shutdown: dropped", (uint32_t)id);
			return;
		}
		if ((uint32_t)h->tag != net->trace_req || !net->trace_pending ||
		    !net->trace_pending[id])
			return;
		net->trace_pending[id] = 0;
		net->trace_answers++;
		if (ship_receive(net->netid, p, net->trace_offsets) > 0)
			net->trace_copied++;
		fe_ctl_trace_progress(net);
		break;
	}
	case WIRE_T_P2P:
		if (pktq_push(&net->p2p, grove_packet_ref(p), net->seq++) == 0)
			net->queued++;
		else
			grove_packet_unref(p);
		break;
	case WIRE_T_LAUNCH_ERROR: {
		const char *text = NULL;
		if (grove_packet_unpack(p, PROTO_LAUNCH_ERROR, &text) != 0)
			text = "malformed launch error";
		if (!n->launch_failed) {
			n->launch_failed = 1;
			snprintf(n->launch_error, sizeof n->launch_error, "%s", text);
		}
		break;
	}
	case WIRE_T_NODE_LOST: {
		const char *why = NULL;
		if (grove_packet_unpack(p, PROTO_NODE_LOST, &ev.node, &ev.rank_lo,
			&ev.rank_hi, &why) != 0)
			return;
		if (!n->launched)
			lost_at_launch(net, ev.node, why);
		ev.type = GROVE_EV_LOST;
		/* Named as start-up errors name it: its role and host say
		 * where to look without the topology at hand. */
		char who[160];
		node_describe_id(n, ev.node, who, sizeof who);
		snprintf(ev.text, sizeof ev.text, "%s lost: %s", who, why);
		mark_lost(net, ev.rank_lo, ev.rank_hi);
		if (ev.node < grove_topo_size(net->topo))
			net->node_lost[ev.node] = 1;
		fe_event(net, &ev);
		break;
	}
	case WIRE_T_REPARENTED:
		fe_reparented(net, p);
		break;
	case WIRE_T_BE_ATTACHED: {
		uint32_t r = 0;
		if (grove_packet_unpack(p, PROTO_BE_ATTACHED, &r) != 0 ||
		    r >= grove_topo_backends(net->topo))
			return;
		/* A lost rank stays lost: its parent refuses it again, and a
		 * late report must not count it as up. */
		if (net->be_state[r] == FE_BE_LOST)
			return;
		if (net->be_state[r] == FE_BE_PENDING) {
			net->be_state[r] = FE_BE_UP;
			net->be_up++;
		}
		ev.type = GROVE_EV_BE_ATTACHED;
		ev.rank_lo = r;
		ev.rank_hi = r + 1;
		snprintf(ev.text, sizeof ev.text, "be rank %u attached", r);
		fe_event(net, &ev);
		break;
	}
	case WIRE_T_FILTER_ERROR:
	case WIRE_T_STREAM_REFUSED: { /* same payload */
		int32_t code = 0;
		const char *text = NULL;
		if (grove_packet_unpack(p, PROTO_FILTER_ERROR, &ev.node, &ev.stream,
			&code, &text) != 0)
			return;
		ev.type = h->type == WIRE_T_FILTER_ERROR &&
		    h->tag == PROTO_DROPPED_TAG ? GROVE_EV_DROPPED :
		    GROVE_EV_FILTER_ERROR;
		snprintf(ev.text, sizeof ev.text, "%s", text);
		fe_event(net, &ev);
		break;
	}
	default:
		break;
	}
	fe_update_waitfd(net);
}

static const node_hooks fe_hooks = {fe_up, NULL, NULL, fe_wave};

static void
fe_pass(grove_net *net, int timeout_ms)
{
	node_flush_all(&net->n);
	net->wfd.in_pass++;
	loop_run_for(&net->n.loop, &net->wait_timer, timeout_ms);
	net->wfd.in_pass--;
	node_flush_all(&net->n);
}

void
fe_settle(grove_net *net)
{
	while (waitfd_stale(&net->wfd))
		fe_pass(net, 0);
	waitfd_arm_timer(&net->wfd);
	/* The pass is over: no libuv callback or filter is running. */
	fe_deliver_events(net);
}

void
fe_run(grove_net *net, int timeout_ms)
{
	fe_pass(net, timeout_ms);
	fe_settle(net);
}

int
fe_wait_writable(grove_net *net, int wait_ms)
{
	node *n = &net->n;
	uint64_t deadline = 0; /* read the clock only once a link is full */
	for (int turns = 0;; turns++) {
		const node_child *full = NULL;
		for (uint32_t i = 0; i < n->n_children && !full; i++)
			if (n->children[i].c && conn_over_limit(n->children[i].c))
				full = &n->children[i];
		if (!full)
			return 0; /* the caller queues, then settles */
		uint64_t now = sockio_now_ms();
		if (turns == 0)
			deadline = now + (uint64_t)(wait_ms > 0 ? wait_ms : 0);
		/* Give up only after one pass of the loop: the kernel may
		 * have taken more since the last one. */
		if (wait_ms >= 0 && now >= deadline && turns > 0) {
			char waited[32] = "at once";
			if (wait_ms > 0)
				snprintf(waited, sizeof waited, "after %d ms",
				    wait_ms);
			fe_set_error(net, "nothing sent (%s): the link to %s %u "
			    "holds %zu bytes, over its limit of %u (the child "
			    "reads slowly or not at all)", waited,
			    full->role == GROVE_ROLE_BE ? "back-end" : "CP",
			    full->role == GROVE_ROLE_BE ? full->be_lo :
			    full->node_id, conn_queued(full->c), CONN_HWM);
			return wait_ms == 0 ? GROVE_EAGAIN : GROVE_ETIMEDOUT;
		}
		uint64_t left = wait_ms < 0 ? 100 : now < deadline ? deadline - now : 0;
		fe_run(net, left < 100 ? (int)left : 100);
	}
}

/* ---- program paths -------------------------------------------------- */

/* grove-commnode: the option, $GROVE_COMMNODE, else the one that belongs
 * to this copy of Grove (core/install_dirs.h: the build tree's only when
 * Grove runs from the build tree, else relative to the library or
 * program, else the configured bin directory), else PATH.  refused gets
 * the candidates of this copy of Grove that were not executable when
 * PATH is used (else ""): starting it names them if it fails. */
static void
find_commnode(const grove_net_opts *o, char *out, size_t len, char *refused,
    size_t rlen)
{
	refused[0] = '\0';
	const char *env = getenv("GROVE_COMMNODE");
	if (o->commnode_exe) {
		snprintf(out, len, "%s", o->commnode_exe);
		return;
	}
	if (env && *env) {
		snprintf(out, len, "%s", env);
		return;
	}
	install_find_program("grove-commnode", out, len, refused, rlen);
}

/* The remote shell: the option, else $GROVE_RSH (empty means unset),
 * else ssh.  Checked here, although only remote children use it, so a
 * bad setting fails at once with its source named rather than half-way
 * through a launch (or in a CP). */
static int
choose_rsh(grove_net *net, const grove_net_opts *o, char *out, size_t len)
{
	const char *env = getenv("GROVE_RSH");
	const char *rsh = o->rsh ? o->rsh : env && *env ? env : "ssh";
	const char *from = o->rsh ? "grove_net_opts.rsh" : env && *env ?
	    "GROVE_RSH" : "default";
	char **words = NULL;
	int rc = remote_shell_words(rsh, &words);
	free(words);
	if (rc == GROVE_ENOMEM) {
		fe_set_error(net, "out of memory");
		return rc;
	}
	if (rc != 0) {
		fe_set_error(net, "remote shell (%s) is empty: give a program, "
		    "e.g. \"ssh\"", from);
		return GROVE_EINVAL;
	}
	/* The bootstrap carries it as one line to CPs, which start their
	 * own remote children with the same words. */
	if (strchr(rsh, '\n') || strlen(rsh) >= len) {
		fe_set_error(net, "remote shell (%s): a newline in it, or longer "
		    "than %zu bytes", from, len - 1);
		return GROVE_EINVAL;
	}
	snprintf(out, len, "%s", rsh);
	return 0;
}

static void
absolute_exe(const char *exe, char *out, size_t len)
{
	char real[PATH_MAX];
	if (strchr(exe, '/') && realpath(exe, real))
		snprintf(out, len, "%s", real);
	else
		snprintf(out, len, "%s", exe);
}

/* ---- create ------------------------------------------------------- */

static int
all_hosts_local(const grove_topo *t)
{
	for (uint32_t i = 0; i < grove_topo_size(t); i++)
		if (!spawn_host_is_local(grove_topo_node_at(t, i)->host))
			return 0;
	return 1;
}

static int
build_topology(grove_net *net, const grove_net_opts *o, grove_topo **out)
{
	char err[1024];
	int rc;
	grove_hostlist *hl = NULL;
	if (o->topology_file) {
		rc = grove_topo_parse_file(o->topology_file, out, err, sizeof err);
		/* The root is this process: a file placing it elsewhere is
		 * refused, not silently ignored (docs/topology.md). */
		if (rc == 0 && (rc = topo_check_fe_host(*out, spawn_host_is_local,
		    err, sizeof err)) != 0) {
			grove_topo_destroy(*out);
			*out = NULL;
		}
		if (rc != 0)
			fe_set_error(net, "topology file %s: %s", o->topology_file, err);
		return rc;
	}
	if (o->hosts_file &&
	    (rc = grove_hostlist_parse_file(o->hosts_file, &hl, err, sizeof err))) {
		fe_set_error(net, "host list %s: %s", o->hosts_file, err);
		return rc;
	}
	rc = grove_topo_generate(o->topology ? o->topology : "flat", o->backends,
	    hl, out, err, sizeof err);
	grove_hostlist_destroy(hl);
	if (rc != 0) {
		fe_set_error(net, "topology '%s': %s", o->topology, err);
		return rc;
	}
	/* The first slot of the first host is the FE's: a list of other
	 * hosts only (a cluster's compute nodes) would tell every child to
	 * connect to a host where no front-end listens. */
	const char *fe_host = grove_topo_node_at(*out, 0)->host;
	if (o->hosts_file && !spawn_host_is_local(fe_host)) {
		char here[256] = "";
		if (gethostname(here, sizeof here - 1) != 0 || !here[0])
			snprintf(here, sizeof here, "unknown");
		fe_set_error(net, "host list %s: its first host '%s' takes the "
		    "front-end, which is the process creating the network, on "
		    "this host ('%s'); Grove cannot start it on '%s': list this "
		    "host ('%s' or 'localhost') first", o->hosts_file, fe_host,
		    here, fe_host, here);
		grove_topo_destroy(*out);
		*out = NULL;
		return GROVE_ETOPO;
	}
	return 0;
}

static int
wait_ready(grove_net *net)
{
	node *n = &net->n;
	for (;;) {
		if (n->launch_failed || node_check_launch(n)) {
			fe_set_error(net, "network startup failed: %s", n->launch_error);
			return GROVE_ESPAWN;
		}
		if (node_children_ready(n)) {
			n->launched = 1;
			/* Each child learns its ancestors for re-parenting. */
			node_send_lineage_all(n);
			return 0;
		}
		fe_run(net, 20);
	}
}

int
grove_net_create(const grove_net_opts *o, grove_net **out)
{
	grove_net_opts defaults;
	if (!out)
		return GROVE_EINVAL;
	*out = NULL;
	if (!o) {
		grove_net_opts_init(&defaults);
		o = &defaults;
	}
	struct sigaction sa;
	/* A dead peer must be an error code, not a killed front-end: ignore
	 * SIGPIPE unless the application installed its own handler. */
	if (sigaction(SIGPIPE, NULL, &sa) == 0 && sa.sa_handler == SIG_DFL)
		signal(SIGPIPE, SIG_IGN);
	grove_net *net = calloc(1, sizeof *net);
	if (!net)
		return GROVE_ENOMEM;
	*out = net;
	net->creator = getpid();
	net->ctl.lfd = -1;
	net->wfd.ep = net->wfd.ev = net->wfd.tf = -1;
	net->next_stream = 1;
	net->next_req = 1;
	boot_init(&net->b);
	if (o->mode == GROVE_LAUNCH_SPAWN && !o->be_exe) {
		fe_set_error(net, "spawn mode needs a back-end program (be_exe)");
		return GROVE_EINVAL;
	}
	grove_topo *topo = NULL;
	int rc = build_topology(net, o, &topo);
	if (rc != 0)
		return rc;
	net->topo = topo;
	uint32_t nb = grove_topo_backends(topo);
	/* From here on grove_net_destroy frees the topology. */
	net->be_state = calloc(nb ? nb : 1, 1);
	net->trace_pending = calloc(grove_topo_size(topo), 1);
	net->node_lost = calloc(grove_topo_size(topo), 1);
	if (!net->be_state || !net->trace_pending || !net->node_lost ||
	    fe_parents_init(net) != 0)
		return GROVE_ENOMEM;
	uint8_t secret[AUTH_SECRET_LEN];
	if (auth_secret_new(secret) != 0) {
		fe_set_error(net, "no randomness for the network secret");
		return GROVE_ESYS;
	}
	auth_network_id(secret, net->netid);
	/* The control socket's name is taken before the network id shows
	 * anywhere (the node's socket in /proc/net/unix, the event space in
	 * /dev/shm): another local user who reads the id there cannot bind
	 * the name first and answer `grove trace dump --collect`.  Served
	 * once the network is up (fe_ctl_open); without it only that
	 * command is missing. */
	fe_ctl_bind(net);
	const char *bind = o->bind_addr ? o->bind_addr
	    : all_hosts_local(topo) ? "127.0.0.1" : "0.0.0.0";
	char err[1024];
	log_set_identity("fe", 0);
	/* Dead runs' event spaces go before this one's arrive (not the kept
	 * ones, nor any a running process may still use; docs/tracing.md). */
	trace_leftovers_clean_auto();
	/* Joins the process's event space if another network (or a
	 * back-end) in this process opened it first. */
	grove_trace_init(net->netid, "fe", 0);
	net->trace_joined = 1;
	grove_trace_collector_register(&net->tc_api_send, "api.send", "api", "fe",
	    "api");
	grove_trace_collector_register(&net->tc_api_recv, "api.recv", "api", "fe",
	    "api");
	rc = node_init(&net->n, &fe_hooks, net, topo, 0, secret, net->netid, bind,
	    err, sizeof err);
	if (rc != 0) {
		/* net->topo is freed by grove_net_destroy either way. */
		fe_set_error(net, "%s", err);
		return rc;
	}
	node *n = &net->n;
	node_scope_enable(n);
	n->attach = o->mode == GROVE_LAUNCH_ATTACH;
	n->local_link_socket = local_link_socket(o->local_link);
	n->heartbeat_ms = o->heartbeat_ms > 0 ? o->heartbeat_ms :
	    GROVE_DEFAULT_HEARTBEAT_MS;
	n->reparent_ms = reparent_ms(o->reparent_ms);
	n->timeout_ms = o->timeout_ms > 0 ? o->timeout_ms :
	    GROVE_DEFAULT_TIMEOUT_MS;
	net->send_wait_ms = o->send_timeout_ms == 0 ? -1 :
	                    o->send_timeout_ms < 0 ? 0 : o->send_timeout_ms;
	uv_timer_init(&n->loop, &net->wait_timer);
	if (waitfd_init(&net->wfd, &n->loop) != 0) {
		fe_set_error(net, "cannot create the notification descriptor");
		return GROVE_ESYS;
	}
	/* The children's bootstrap. */
	boot *b = &net->b;
	auth_secret_to_hex(secret, b->secret_hex);
	snprintf(b->netid, sizeof b->netid, "%s", net->netid);
	b->attach = n->attach;
	b->local_link_socket = n->local_link_socket;
	b->cp_sched_batch = cp_sched_batch(o->cp_sched_batch);
	b->cpu_bind_subtree = cpu_bind_subtree(o->cpu_bind);
	/* Children keep their event spaces at exit when the FE will collect
	 * them (it removes them afterwards).  Told in the bootstrap, not the
	 * environment: the tool's own environment is not Grove's to change. */
	b->trace_keep =
	    (getenv("GROVE_TRACE_DUMP") && *getenv("GROVE_TRACE_DUMP")) ||
	    (getenv("GROVE_TRACE_STATS") && *getenv("GROVE_TRACE_STATS"));
	b->timeout_ms = n->timeout_ms;
	b->heartbeat_ms = n->heartbeat_ms;
	b->reparent_ms = n->reparent_ms;
	b->backends = nb;
	b->log_level = log_level_;
	snprintf(b->bind_addr, sizeof b->bind_addr, "%s", bind);
	if ((rc = choose_rsh(net, o, b->rsh, sizeof b->rsh)) != 0)
		return rc;
	find_commnode(o, b->commnode, sizeof b->commnode, n->commnode_refused,
	    sizeof n->commnode_refused);
	if (o->be_exe)
		absolute_exe(o->be_exe, b->be_exe, sizeof b->be_exe);
	if (o->be_argv && o->be_argv[0]) {
		for (int i = 1; o->be_argv[i]; i++) {
			if (b->be_argc >= BOOT_MAX_ARGS || strchr(o->be_argv[i], '\n')) {
				fe_set_error(net, "back-end argument %d: too many arguments "
				    "or a newline in one", i);
				return GROVE_EINVAL;
			}
			b->be_argv[b->be_argc++] = strdup(o->be_argv[i]);
		}
	}
	if ((rc = grove_topo_to_string(topo, GROVE_TOPO_MRNET, &b->topology)) != 0) {
		fe_set_error(net, "cannot serialise the topology");
		return rc;
	}
	if ((rc = fe_load_clusters(net, o)) != 0)
		return rc;
	node_start_tick(n);
	if ((rc = node_launch_children(n, b, err, sizeof err)) != 0) {
		fe_set_error(net, "network startup failed: %s", err);
		return rc;
	}
	if ((rc = wait_ready(net)) != 0)
		return rc;
	net->all.net = net;
	net->all.owned_by_net = 1;
	net->all.n = nb;
	net->all.ranks = malloc((nb ? nb : 1) * sizeof *net->all.ranks);
	if (!net->all.ranks)
		return GROVE_ENOMEM;
	for (uint32_t r = 0; r < nb; r++)
		net->all.ranks[r] = r;
	if (!n->attach) {
		memset(net->be_state, FE_BE_UP, nb);
		net->be_up = nb;
	} else if (o->connect_file) {
		snprintf(net->connect_file, sizeof net->connect_file, "%s",
		    o->connect_file);
		if ((rc = fe_write_connect_file(net)) != 0)
			return rc;
	}
	/* Bound at the start; clients that came since wait in its backlog. */
	fe_ctl_open(net);
	return 0;
}

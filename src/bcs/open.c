/* BCS: options, opening a machine (manager and nodes), closing it, and
 * the small calls on a handle. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include "bcs/bcs_impl.h"
#include "core/defaults.h"
#include "core/log.h"
#include "grove/topology.h"

#define BCS_DEFAULT_GMEM (64u * 1024u)
#define BCS_DEFAULT_NVARS 64u
#define BCS_DEFAULT_NEVENTS 64u
/* Bounds on what one node gives to its machine: a typo must not ask for
 * terabytes, and the counts travel in 32-bit fields. */
#define BCS_GMEM_MAX (1ull << 34)
#define BCS_NVARS_MAX (1u << 24)
#define BCS_NEVENTS_MAX (1u << 24)

void
grove_bcs_opts_init(grove_bcs_opts *o)
{
	if (!o)
		return;
	memset(o, 0, sizeof *o);
	o->gmem_bytes = BCS_DEFAULT_GMEM;
	o->nvars = BCS_DEFAULT_NVARS;
	o->nevents = BCS_DEFAULT_NEVENTS;
	o->timeout_ms = GROVE_DEFAULT_TIMEOUT_MS;
}

void
bcs_set_error(grove_bcs *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(b->err, sizeof b->err, fmt, ap);
	va_end(ap);
}

const char *
bcs_node_name(uint32_t node, char *buf, size_t cap)
{
	if (node == GROVE_BCS_MANAGER)
		snprintf(buf, cap, "the manager");
	else
		snprintf(buf, cap, "node %u", node);
	return buf;
}

uint64_t
bcs_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

int
bcs_left(uint64_t deadline, int timeout_ms)
{
	if (timeout_ms < 0)
		return -1;
	uint64_t now = bcs_now_ms();
	return deadline > now ? (int)(deadline - now) : 0;
}

/* Options as the calls use them: zeros mean the defaults. */
static int
opts_resolve(const grove_bcs_opts *in, grove_bcs_opts *o, char *err,
    size_t errlen)
{
	grove_bcs_opts_init(o);
	if (in) {
		if (in->gmem_bytes)
			o->gmem_bytes = in->gmem_bytes;
		if (in->nvars)
			o->nvars = in->nvars;
		if (in->nevents)
			o->nevents = in->nevents;
		if (in->timeout_ms)
			o->timeout_ms = in->timeout_ms;
	}
	if ((uint64_t)o->gmem_bytes > BCS_GMEM_MAX || o->nvars > BCS_NVARS_MAX ||
	    o->nevents > BCS_NEVENTS_MAX) {
		snprintf(err, errlen, "grove_bcs_opts out of range: gmem_bytes "
		    "%zu (at most 2^34), nvars %u, nevents %u (at most 2^24)",
		    o->gmem_bytes, o->nvars, o->nevents);
		return GROVE_ERANGE;
	}
	return 0;
}

int
bcs_alloc_memory(grove_bcs *b, uint64_t gmem, uint32_t nvars,
    uint32_t nevents)
{
	b->gmem_bytes = (size_t)gmem;
	b->nvars = nvars;
	b->nevents = nevents;
	b->gmem = calloc(1, b->gmem_bytes ? b->gmem_bytes : 1);
	b->vars = calloc(nvars ? nvars : 1, sizeof *b->vars);
	b->events = calloc(nevents ? nevents : 1, sizeof *b->events);
	b->peers = calloc(b->nodes ? b->nodes : 1, sizeof *b->peers);
	if (!b->gmem || !b->vars || !b->events || !b->peers) {
		bcs_set_error(b, "out of memory for %llu bytes of global "
		    "memory, %u variables, %u events",
		    (unsigned long long)gmem, nvars, nevents);
		return GROVE_ENOMEM;
	}
	return 0;
}

static grove_bcs *
bcs_new(int role)
{
	grove_bcs *b = calloc(1, sizeof *b);
	if (!b)
		return NULL;
	b->role = role;
	b->ep = b->lfd = b->be_fd = -1;
	b->first_lost = UINT32_MAX;
	b->next_id = 1;
	return b;
}

/* ---- the manager ------------------------------------------------------- */

/* Where each node's parent listens (the address the node reaches its
 * parent from is then the one it listens on for other nodes): a table
 * of distinct hosts and each node's index in it. */
static int
host_table(grove_bcs *b, char ***hosts_out, uint32_t *nhosts_out,
    uint32_t **host_of_out)
{
	const grove_topo *t = grove_net_topology(b->net);
	char **hosts = calloc(b->nodes, sizeof *hosts);
	uint32_t *host_of = calloc(b->nodes, sizeof *host_of);
	uint32_t nh = 0;
	if (!hosts || !host_of) {
		free(hosts);
		free(host_of);
		return GROVE_ENOMEM;
	}
	for (uint32_t r = 0; r < b->nodes; r++) {
		grove_attach_info ai;
		const char *h = NULL;
		if (grove_net_attach_info(b->net, r, &ai) == 0 && ai.host &&
		    ai.host[0])
			h = ai.host;
		if (!h && t) {
			int64_t id = grove_topo_be_node(t, r);
			const grove_topo_node *tn = id >= 0 ?
			    grove_topo_node_at(t, (uint32_t)id) : NULL;
			h = tn && tn->host ? tn->host : NULL;
		}
		if (!h)
			h = "127.0.0.1";
		uint32_t k = 0;
		while (k < nh && strcmp(hosts[k], h))
			k++;
		if (k == nh) {
			hosts[nh] = strdup(h);
			if (!hosts[nh]) {
				for (uint32_t i = 0; i < nh; i++)
					free(hosts[i]);
				free(hosts);
				free(host_of);
				return GROVE_ENOMEM;
			}
			nh++;
		}
		host_of[r] = k;
	}
	*hosts_out = hosts;
	*nhosts_out = nh;
	*host_of_out = host_of;
	return 0;
}

static int
mgr_streams(grove_bcs *b)
{
	grove_stream_opts so;
	grove_stream_opts_init(&so);
	/* Answers to a multicast meet in the tree: one packet reaches the
	 * manager per question whatever the number of nodes. */
	so.up_filter = "min";
	so.sync_filter = "wait_for_all";
	int rc = grove_stream_create(b->net, grove_net_comm_all(b->net), &so,
	    &b->sc);
	if (rc != 0) {
		bcs_set_error(b, "cannot create the BCS reduction stream: %s",
		    grove_net_last_error(b->net));
		return rc;
	}
	/* Everything multicast goes on this one stream, whole, so every
	 * node sees the manager's messages in the order they were sent. */
	grove_stream_set_segment_size(b->sc, GROVE_SEGMENT_WHOLE);
	grove_stream_opts_init(&so);
	so.sync_filter = "dont_wait";
	rc = grove_stream_create(b->net, grove_net_comm_all(b->net), &so,
	    &b->sd);
	if (rc != 0) {
		bcs_set_error(b, "cannot create the BCS data stream: %s",
		    grove_net_last_error(b->net));
		return rc;
	}
	b->sc_id = grove_stream_id(b->sc);
	b->sd_id = grove_stream_id(b->sd);
	return 0;
}

static int
mgr_hello(grove_bcs *b)
{
	char **hosts = NULL;
	uint32_t nh = 0, *host_of = NULL;
	int rc = host_table(b, &hosts, &nh, &host_of);
	if (rc != 0) {
		bcs_set_error(b, "out of memory for the host table");
		return rc;
	}
	bcs_msg m;
	memset(&m, 0, sizeof m);
	m.type = BCS_T_HELLO;
	m.u.hello.machine = b->machine;
	memcpy(m.u.hello.key, b->key, BCS_KEY_LEN);
	m.u.hello.gmem_bytes = b->gmem_bytes;
	m.u.hello.nvars = b->nvars;
	m.u.hello.nevents = b->nevents;
	m.u.hello.nodes = b->nodes;
	m.u.hello.stream_c = b->sc_id;
	m.u.hello.stream_d = b->sd_id;
	m.u.hello.nhosts = nh;
	bcs_wire_tables t = {.hosts = (const char *const *)hosts,
	    .host_of = host_of};
	rc = bcs_mgr_multicast(b, &m, &t, NULL, 0);
	for (uint32_t i = 0; i < nh; i++)
		free(hosts[i]);
	free(hosts);
	free(host_of);
	return rc;
}

static int
mgr_addrs(grove_bcs *b)
{
	uint16_t *ports = calloc(b->nodes, sizeof *ports);
	const char **addrs = calloc(b->nodes, sizeof *addrs);
	if (!ports || !addrs) {
		free(ports);
		free(addrs);
		bcs_set_error(b, "out of memory for the address table");
		return GROVE_ENOMEM;
	}
	for (uint32_t r = 0; r < b->nodes; r++) {
		ports[r] = b->peers[r].port;
		addrs[r] = b->peers[r].addr;
	}
	bcs_msg m;
	memset(&m, 0, sizeof m);
	m.type = BCS_T_ADDRS;
	m.u.addrs.nodes = b->nodes;
	bcs_wire_tables t = {.ports = ports, .addrs = addrs};
	int rc = bcs_mgr_multicast(b, &m, &t, NULL, 0);
	free(ports);
	free(addrs);
	return rc;
}

/* Names the nodes whose address has not come (for a timeout). */
static void
mgr_missing_addrs(grove_bcs *b, int timeout_ms)
{
	char list[200] = "";
	size_t len = 0;
	uint32_t n = 0;
	for (uint32_t r = 0; r < b->nodes; r++) {
		if (b->peers[r].have_addr)
			continue;
		if (n++ < 16 && len < sizeof list)
			len += (size_t)snprintf(list + len, sizeof list - len,
			    "%s%u", len ? "," : "", r);
	}
	bcs_set_error(b, "grove_bcs_manager_open: %u of %u nodes did not "
	    "answer within %d ms (nodes %s%s): do they call "
	    "grove_bcs_node_open?", n, b->nodes, timeout_ms, list,
	    n > 16 ? ",..." : "");
}

int
grove_bcs_manager_open(grove_net *net, const grove_bcs_opts *opts,
    grove_bcs **out)
{
	if (!out)
		return GROVE_EINVAL;
	*out = NULL;
	if (!net)
		return GROVE_EINVAL;
	grove_bcs *b = bcs_new(BCS_ROLE_MANAGER);
	if (!b)
		return GROVE_ENOMEM;
	*out = b;
	b->net = net;
	b->self = GROVE_BCS_MANAGER;
	grove_bcs_opts o;
	int rc = opts_resolve(opts, &o, b->err, sizeof b->err);
	if (rc != 0)
		return rc;
	b->timeout_ms = o.timeout_ms;
	b->nodes = grove_net_backends(net);
	if (b->nodes == 0) {
		bcs_set_error(b, "grove_bcs_manager_open: the network has no "
		    "back-ends to be nodes");
		return GROVE_EINVAL;
	}
	if (b->nodes > BCS_NODES_MAX) {
		bcs_set_error(b, "grove_bcs_manager_open: %u back-ends, more "
		    "than a machine may have (2^24)", b->nodes);
		return GROVE_ERANGE;
	}
	uint64_t deadline = bcs_now_ms() + (uint64_t)(o.timeout_ms > 0 ?
	    o.timeout_ms : 0);
	/* Attach mode: every node must be in before the machine exists. */
	rc = grove_net_wait_backends(net, b->nodes, o.timeout_ms);
	if (rc != 0) {
		bcs_set_error(b, "grove_bcs_manager_open: waiting for the "
		    "back-ends: %s", grove_net_last_error(net));
		return rc;
	}
	if ((rc = bcs_alloc_memory(b, o.gmem_bytes, o.nvars, o.nevents)) != 0)
		return rc;
	bcs_random(&b->machine, sizeof b->machine);
	bcs_random(b->key, sizeof b->key);
	if ((rc = mgr_streams(b)) != 0)
		return rc;
	if ((rc = mgr_hello(b)) != 0)
		return rc;
	/* The nodes' addresses: an allgather through the manager. */
	while (b->addrs_got < b->nodes) {
		if ((rc = bcs_mgr_poll(b)) != 0)
			return rc;
		if (b->open_rc != 0)
			return b->open_rc;
		if (b->nlost) {
			char nm[32];
			bcs_set_error(b, "grove_bcs_manager_open: %s lost: %s",
			    bcs_node_name(b->first_lost, nm, sizeof nm),
			    b->peers[b->first_lost].why);
			return GROVE_ELOST;
		}
		if (b->addrs_got == b->nodes)
			break;
		int left = bcs_left(deadline, o.timeout_ms);
		if (left == 0) {
			mgr_missing_addrs(b, o.timeout_ms);
			return GROVE_ETIMEDOUT;
		}
		bcs_mgr_block(b, left);
	}
	if ((rc = mgr_addrs(b)) != 0)
		return rc;
	b->open_done = 1;
	log_info("bcs: machine %016llx open with %u nodes",
	    (unsigned long long)b->machine, b->nodes);
	return 0;
}

/* ---- a node ------------------------------------------------------------ */

/* Tells the manager this node cannot join, and why. */
static void
node_refuse(grove_bcs *b, uint32_t stream_d, int rc)
{
	bcs_msg m;
	memset(&m, 0, sizeof m);
	m.type = BCS_T_ADDR;
	m.u.addr.node = b->self;
	m.u.addr.status = rc;
	m.u.addr.msg.p = b->err;
	m.u.addr.msg.len = (uint32_t)strlen(b->err);
	m.u.addr.addr.p = "";
	bcs_node_send_up(b, stream_d, &m, NULL, NULL, 0);
	grove_be_flush(b->be, 1000);
}

/* Waits for the manager's HELLO (anything else is not for BCS yet and
 * is dropped); takes the machine's parameters from it. */
static int
node_hello(grove_bcs *b, const grove_bcs_opts *o, uint64_t deadline,
    char *parent_host, size_t hostcap)
{
	for (;;) {
		int left = bcs_left(deadline, o->timeout_ms);
		uint32_t stream = 0;
		int32_t tag = 0;
		grove_packet *p = NULL;
		int rc = grove_be_recv(b->be, &stream, &tag, &p,
		    left < 0 ? -1 : left);
		if (rc == GROVE_ETIMEDOUT || rc == GROVE_EAGAIN) {
			bcs_set_error(b, "grove_bcs_node_open: no word from the "
			    "manager within %d ms (does the front-end call "
			    "grove_bcs_manager_open?)", o->timeout_ms);
			return GROVE_ETIMEDOUT;
		}
		if (rc != 0) {
			bcs_set_error(b, "grove_bcs_node_open: %s",
			    grove_be_last_error(b->be));
			return rc;
		}
		const uint8_t *blob = NULL, *pay = NULL;
		uint64_t bl = 0, pl = 0;
		bcs_msg m;
		char why[300];
		if (tag != BCS_TAG(BCS_T_HELLO) || stream == 0 ||
		    grove_packet_unpack(p, "%auc %auc", &blob, &bl, &pay,
		    &pl) != 0) {
			b->dropped++;
			grove_packet_unref(p);
			continue;
		}
		rc = bcs_wire_decode(blob, bl, pay, pl, &m, why, sizeof why);
		if (rc == 0 && m.u.hello.nodes != b->nodes) {
			snprintf(why, sizeof why, "the manager counts %u nodes, "
			    "the back-end %u", m.u.hello.nodes, b->nodes);
			rc = GROVE_EPROTO;
		}
		if (rc == 0 && (m.u.hello.gmem_bytes != o->gmem_bytes ||
		    m.u.hello.nvars != o->nvars ||
		    m.u.hello.nevents != o->nevents)) {
			snprintf(why, sizeof why, "options differ from the "
			    "manager's: gmem_bytes %llu/%zu, nvars %u/%u, "
			    "nevents %u/%u (manager/node)",
			    (unsigned long long)m.u.hello.gmem_bytes,
			    o->gmem_bytes, m.u.hello.nvars, o->nvars,
			    m.u.hello.nevents, o->nevents);
			rc = GROVE_EINVAL;
		}
		if (rc != 0) {
			bcs_set_error(b, "grove_bcs_node_open: node %u: %s",
			    b->self, why);
			if (m.type == BCS_T_HELLO)
				node_refuse(b, m.u.hello.stream_d, rc);
			grove_packet_unref(p);
			return rc;
		}
		b->sc_id = stream;
		b->sd_id = m.u.hello.stream_d;
		b->machine = m.u.hello.machine;
		memcpy(b->key, m.u.hello.key, BCS_KEY_LEN);
		bcs_str h = bcs_hello_host(&m, bcs_hello_host_of(&m, b->self));
		snprintf(parent_host, hostcap, "%.*s", (int)h.len, h.p);
		grove_packet_unref(p);
		return 0;
	}
}

int
grove_bcs_node_open(grove_be *be, const grove_bcs_opts *opts,
    grove_bcs **out)
{
	if (!out)
		return GROVE_EINVAL;
	*out = NULL;
	if (!be)
		return GROVE_EINVAL;
	grove_bcs *b = bcs_new(BCS_ROLE_NODE);
	if (!b)
		return GROVE_ENOMEM;
	*out = b;
	b->be = be;
	b->self = grove_be_rank(be);
	b->nodes = grove_be_backends(be);
	grove_bcs_opts o;
	int rc = opts_resolve(opts, &o, b->err, sizeof b->err);
	if (rc != 0)
		return rc;
	b->timeout_ms = o.timeout_ms;
	if (b->nodes == 0 || b->self >= b->nodes) {
		bcs_set_error(b, "grove_bcs_node_open: back-end rank %u of %u "
		    "cannot be a node", b->self, b->nodes);
		return GROVE_EINVAL;
	}
	uint64_t deadline = bcs_now_ms() + (uint64_t)(o.timeout_ms > 0 ?
	    o.timeout_ms : 0);
	if ((rc = bcs_alloc_memory(b, o.gmem_bytes, o.nvars, o.nevents)) != 0)
		return rc;
	char parent_host[256];
	if ((rc = node_hello(b, &o, deadline, parent_host,
	    sizeof parent_host)) != 0)
		return rc;
	b->ep = epoll_create1(EPOLL_CLOEXEC);
	b->be_fd = grove_be_fd(be);
	if (b->ep < 0 || b->be_fd < 0 ||
	    bcs_node_epoll_add(b, b->be_fd, NULL, 0) != 0) {
		bcs_set_error(b, "grove_bcs_node_open: node %u: cannot set up "
		    "its poll set", b->self);
		node_refuse(b, b->sd_id, GROVE_ESYS);
		return GROVE_ESYS;
	}
	char addr[64];
	uint16_t port = 0;
	if ((rc = bcs_listen(b, parent_host, addr, sizeof addr, &port)) != 0) {
		node_refuse(b, b->sd_id, rc);
		return rc;
	}
	bcs_msg m;
	memset(&m, 0, sizeof m);
	m.type = BCS_T_ADDR;
	m.u.addr.node = b->self;
	m.u.addr.port = port;
	m.u.addr.addr.p = addr;
	m.u.addr.addr.len = (uint32_t)strlen(addr);
	m.u.addr.msg.p = "";
	if ((rc = bcs_node_send_up(b, b->sd_id, &m, NULL, NULL, 0)) != 0)
		return rc;
	/* Then every node's address, from the manager. */
	while (!b->open_done) {
		if ((rc = bcs_node_poll(b)) != 0)
			return rc;
		if (b->open_done)
			break;
		if (b->manager_gone) {
			bcs_set_error(b, "grove_bcs_node_open: node %u: %s",
			    b->self, b->manager_why);
			return GROVE_ECLOSED;
		}
		int left = bcs_left(deadline, o.timeout_ms);
		if (left == 0) {
			bcs_set_error(b, "grove_bcs_node_open: node %u: the "
			    "manager sent no address table within %d ms",
			    b->self, o.timeout_ms);
			return GROVE_ETIMEDOUT;
		}
		bcs_node_block(b, left);
	}
	log_info("bcs: node %u of machine %016llx listens on %s:%u", b->self,
	    (unsigned long long)b->machine, addr, port);
	return 0;
}

/* ---- close and small calls ---------------------------------------------- */

void
grove_bcs_close(grove_bcs *b)
{
	if (!b)
		return;
	bcs_msg m;
	memset(&m, 0, sizeof m);
	m.type = BCS_T_BYE;
	m.u.bye.node = b->self;
	if (b->role == BCS_ROLE_MANAGER) {
		if (b->sc && b->open_done)
			bcs_mgr_multicast(b, &m, NULL, NULL, 0);
		if (b->sc)
			grove_stream_destroy(b->sc);
		if (b->sd)
			grove_stream_destroy(b->sd);
		bcs_caw_free_all(b);
	} else {
		if (b->open_done && !b->manager_gone) {
			bcs_node_send_up(b, b->sd_id, &m, NULL, NULL, 0);
			grove_be_flush(b->be, 1000);
		}
		bcs_links_free(b);
		if (b->lfd >= 0)
			close(b->lfd);
		if (b->ep >= 0)
			close(b->ep);
	}
	while (b->xfers) {
		bcs_xfer_wait *x = b->xfers;
		b->xfers = x->next;
		free(x->waiting);
		free(x);
	}
	free(b->waves);
	free(b->gmem);
	free(b->vars);
	free(b->events);
	free(b->peers);
	free(b);
}

uint32_t
grove_bcs_self(const grove_bcs *b)
{
	return b ? b->self : GROVE_BCS_MANAGER;
}

uint32_t
grove_bcs_nodes(const grove_bcs *b)
{
	return b ? b->nodes : 0;
}

const char *
grove_bcs_last_error(const grove_bcs *b)
{
	return b ? b->err : "no BCS handle";
}

int
grove_bcs_fd(grove_bcs *b)
{
	if (!b)
		return -1;
	if (b->role == BCS_ROLE_MANAGER)
		return grove_net_fd(b->net);
	return b->ep;
}

int
grove_bcs_progress(grove_bcs *b)
{
	if (!b || !b->open_done)
		return GROVE_EINVAL;
	return bcs_poll(b);
}

void *
grove_bcs_gmem(grove_bcs *b, size_t *bytes)
{
	if (bytes)
		*bytes = b ? b->gmem_bytes : 0;
	return b ? b->gmem : NULL;
}

int
grove_bcs_var_get(grove_bcs *b, uint32_t var, int64_t *value)
{
	if (!b || !value)
		return GROVE_EINVAL;
	if (var >= b->nvars) {
		bcs_set_error(b, "variable %u: this machine has %u", var,
		    b->nvars);
		return GROVE_ERANGE;
	}
	*value = b->vars[var];
	return 0;
}

int
grove_bcs_var_set(grove_bcs *b, uint32_t var, int64_t value)
{
	if (!b)
		return GROVE_EINVAL;
	if (var >= b->nvars) {
		bcs_set_error(b, "variable %u: this machine has %u", var,
		    b->nvars);
		return GROVE_ERANGE;
	}
	b->vars[var] = value;
	return 0;
}

int
bcs_check_set(grove_bcs *b, const grove_bcs_set *s, const char *what)
{
	if (!s->nodes)
		return 0;
	if (s->count == 0) {
		bcs_set_error(b, "%s: an empty set of nodes", what);
		return GROVE_EINVAL;
	}
	for (uint32_t i = 0; i < s->count; i++)
		if (s->nodes[i] != GROVE_BCS_MANAGER &&
		    s->nodes[i] >= b->nodes) {
			bcs_set_error(b, "%s: node %u is not in this machine "
			    "(%u nodes)", what, s->nodes[i], b->nodes);
			return GROVE_ERANGE;
		}
	return 0;
}

int
bcs_check_alive(grove_bcs *b, const grove_bcs_set *s)
{
	if (b->role == BCS_ROLE_NODE && b->manager_gone) {
		bcs_set_error(b, "node %u: %s", b->self, b->manager_why);
		return GROVE_ECLOSED;
	}
	if (!b->nlost)
		return 0;
	/* The first node the machine lost is the news (the others may
	 * have left because of it). */
	uint32_t n = s->nodes ? s->count : b->nodes, found = UINT32_MAX;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t id = s->nodes ? s->nodes[i] : i;
		if (id == GROVE_BCS_MANAGER || !b->peers[id].lost)
			continue;
		if (found == UINT32_MAX || id == b->first_lost)
			found = id;
	}
	if (found != UINT32_MAX) {
		uint32_t id = found;
		char nm[32];
		bcs_set_error(b, "%s %s: %s", bcs_node_name(id, nm, sizeof nm),
		    b->peers[id].left ? "has left" : "is lost",
		    b->peers[id].why);
		return b->peers[id].left ? GROVE_ECLOSED : GROVE_ELOST;
	}
	return 0;
}

int
bcs_poll(grove_bcs *b)
{
	return b->role == BCS_ROLE_MANAGER ? bcs_mgr_poll(b) : bcs_node_poll(b);
}

void
bcs_block(grove_bcs *b, int ms)
{
	if (b->role == BCS_ROLE_MANAGER)
		bcs_mgr_block(b, ms);
	else
		bcs_node_block(b, ms);
}

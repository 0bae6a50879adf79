/* Front-end API: streams, communicators, sending, events (receiving is
 * in fe_recv.c, shutting down in fe_destroy.c). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "codec/wire.h"
#include "core/log.h"
#include "grove/trace.h"
#include "net/sockio.h"
#include "tbon/connfile.h"
#include "tbon/fe_internal.h"
#include "tbon/proto.h"
#include "tbon/segment.h"

int
fe_deadline_left(uint64_t deadline, int timeout_ms)
{
	if (timeout_ms < 0)
		return -1;
	uint64_t now = sockio_now_ms();
	return now >= deadline ? 0 : (int)(deadline - now);
}

/* A handle the calls that run the event loop can use: not NULL, and from
 * a create that got as far as starting the loop (a failed create still
 * hands out its network, for the error text and destroy). */
int
fe_net_usable(const grove_net *net)
{
	return net && net->n.loop_ready;
}

/* ---- information ---------------------------------------------------- */

uint32_t
grove_net_backends(const grove_net *net)
{
	return net && net->topo ? grove_topo_backends(net->topo) : 0;
}

uint32_t
grove_net_backends_up(const grove_net *net)
{
	return net ? net->be_up : 0;
}

const struct grove_topo *
grove_net_topology(const grove_net *net)
{
	return net ? net->topo : NULL;
}

const char *
grove_net_id(const grove_net *net)
{
	return net ? net->netid : "";
}

int
grove_net_attach_info(const grove_net *net, uint32_t rank,
    grove_attach_info *out)
{
	if (!net || !out)
		return GROVE_EINVAL;
	if (rank >= grove_topo_backends(net->topo))
		return GROVE_ERANGE;
	int64_t be = grove_topo_be_node(net->topo, rank);
	if (be < 0)
		return GROVE_ERANGE;
	const grove_topo_node *bn = grove_topo_node_at(net->topo, (uint32_t)be);
	uint32_t parent = (uint32_t)bn->parent;
	const node *n = &net->n;
	out->rank = rank;
	out->node = (uint32_t)be;
	out->parent = parent;
	if (parent == 0) {
		out->host = n->attach_host;
		out->port = n->port;
		return 0;
	}
	for (size_t i = 0; i < n->n_ep; i++) {
		if (n->ep_node[i] == parent) {
			out->host = n->ep_host[i];
			out->port = (uint16_t)n->ep_port[i];
			return 0;
		}
	}
	return GROVE_ENOENT;
}

int
grove_net_attach_secret(const grove_net *net, char *buf, size_t cap)
{
	if (!net || !buf)
		return GROVE_EINVAL;
	if (!net->n.attach)
		return GROVE_ENOTSUP;
	if (cap < GROVE_SECRET_HEX_LEN + 1)
		return GROVE_ERANGE;
	_Static_assert(sizeof net->b.secret_hex == GROVE_SECRET_HEX_LEN + 1,
	    "the bootstrap holds the secret as GROVE_SECRET_HEX_LEN digits");
	/* Set once the network has a secret; a create that failed earlier
	 * has none to give. */
	if (strlen(net->b.secret_hex) != GROVE_SECRET_HEX_LEN)
		return GROVE_ENOENT;
	memcpy(buf, net->b.secret_hex, GROVE_SECRET_HEX_LEN + 1);
	return 0;
}

int
fe_write_connect_file(grove_net *net)
{
	char tmp[1100];
	snprintf(tmp, sizeof tmp, "%s.tmp", net->connect_file);
	/* The file holds the secret: a new file of our own, never one
	 * that was there (a stale one from a crashed run is replaced; a
	 * link planted under the name is not followed), mode 0600 whatever
	 * the umask. */
	unlink(tmp);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	    0600);
	if (fd < 0 || fchmod(fd, 0600) != 0) {
		fe_set_error(net, "cannot write connection file %s: %s", tmp,
		    strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
		return GROVE_ESYS;
	}
	FILE *f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		unlink(tmp);
		return GROVE_ESYS;
	}
	uint32_t nb = grove_topo_backends(net->topo);
	/* Format (docs/api.md): the protocol line, "secret HEX",
	 * "backends N", then one "rank host port parent_node be_node" line
	 * per BE. */
	fprintf(f, "%s %u\nsecret %s\nbackends %u\n", CONNFILE_FIRST_LINE,
	    GROVE_PROTOCOL, net->b.secret_hex, nb);
	for (uint32_t r = 0; r < nb; r++) {
		grove_attach_info ai;
		if (grove_net_attach_info(net, r, &ai) != 0) {
			fclose(f);
			unlink(tmp);
			fe_set_error(net, "no endpoint known for BE rank %u", r);
			return GROVE_ENOENT;
		}
		fprintf(f, "%u %s %u %u %u\n", r, ai.host, ai.port, ai.parent, ai.node);
	}
	if (fclose(f) != 0 || rename(tmp, net->connect_file) != 0) {
		fe_set_error(net, "cannot write connection file %s: %s",
		    net->connect_file, strerror(errno));
		unlink(tmp);
		return GROVE_ESYS;
	}
	return 0;
}

uint32_t
fe_be_pending(const grove_net *net)
{
	return grove_topo_backends(net->topo) - net->be_up - net->be_lost;
}

int
grove_net_wait_backends(grove_net *net, uint32_t count, int timeout_ms)
{
	if (!fe_net_usable(net))
		return GROVE_EINVAL;
	uint32_t nb = grove_topo_backends(net->topo);
	if (count > nb) {
		fe_set_error(net, "cannot wait for %u back-ends: the network has "
		    "%u back-ends", count, nb);
		return GROVE_ERANGE;
	}
	uint64_t deadline = sockio_now_ms() + (uint64_t)(timeout_ms > 0 ? timeout_ms : 0);
	/* The first pass runs the loop even with no time to wait: a tool
	 * that polls with 0 gets the handshakes that are ready served. */
	for (int first = 1; net->be_up < count; first = 0) {
		/* Checked on every pass: ranks are lost while we wait. */
		if (net->be_up + fe_be_pending(net) < count) {
			fe_set_error(net, "cannot wait for %u back-ends: %u lost, %u "
			    "up, %u may still attach (of %u)", count, net->be_lost,
			    net->be_up, fe_be_pending(net), nb);
			return GROVE_ELOST;
		}
		int left = fe_deadline_left(deadline, timeout_ms);
		if (left == 0 && !first) {
			fe_set_error(net, "%u of %u back-ends connected after %d ms",
			    net->be_up, count, timeout_ms);
			return GROVE_ETIMEDOUT;
		}
		fe_run(net, left < 0 || left > 100 ? 100 : left);
	}
	return 0;
}

/* ---- events ------------------------------------------------------- */

void
grove_net_on_event(grove_net *net, grove_event_cb cb, void *arg)
{
	if (!net)
		return;
	net->cb = cb;
	net->cb_arg = arg;
	/* Without a callback, the descriptor is how the tool learns of
	 * events: also of those queued while one was set (some perhaps
	 * never handed to it). */
	if (!cb && net->ev_untold != net->ev_n)
		fe_untell_events(net);
}

int
grove_net_next_event(grove_net *net, grove_event *ev, int timeout_ms)
{
	if (!fe_net_usable(net) || !ev)
		return GROVE_EINVAL;
	uint64_t deadline = sockio_now_ms() + (uint64_t)(timeout_ms > 0 ? timeout_ms : 0);
	for (;;) {
		if (net->ev_n) {
			*ev = net->events[net->ev_head].ev;
			if (!net->events[net->ev_head].told)
				net->ev_untold--;
			net->ev_head = (net->ev_head + 1) % net->ev_cap;
			net->ev_n--;
			fe_update_waitfd(net);
			return 0;
		}
		int left = fe_deadline_left(deadline, timeout_ms);
		if (left == 0) {
			fe_run(net, 0);
			if (net->ev_n)
				continue;
			return timeout_ms == 0 ? GROVE_EAGAIN : GROVE_ETIMEDOUT;
		}
		fe_run(net, left);
	}
}

int
grove_net_fd(grove_net *net)
{
	if (!net)
		return -1;
	int fd = waitfd_get(&net->wfd, net->queued > 0 || net->ev_untold > 0);
	/* From here on the callbacks keep the eventfd in step. */
	if (net->n.loop_ready)
		fe_settle(net);
	return fd;
}

int
grove_net_progress(grove_net *net)
{
	if (!fe_net_usable(net))
		return GROVE_EINVAL;
	fe_run(net, 0);
	fe_update_waitfd(net);
	return 0;
}

/* ---- communicators ------------------------------------------------ */

grove_comm *
grove_net_comm_all(grove_net *net)
{
	return net ? &net->all : NULL;
}

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

int
grove_comm_create(grove_net *net, const uint32_t *ranks, size_t n,
    grove_comm **out)
{
	if (!net || !out || (n && !ranks))
		return GROVE_EINVAL;
	uint32_t nb = grove_topo_backends(net->topo);
	grove_comm *c = calloc(1, sizeof *c);
	if (!c || !(c->ranks = malloc((n ? n : 1) * sizeof *c->ranks))) {
		free(c);
		return GROVE_ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		if (ranks[i] >= nb) {
			fe_set_error(net, "rank %u out of range (network has %u "
			    "back-ends)", ranks[i], nb);
			free(c->ranks);
			free(c);
			return GROVE_ERANGE;
		}
		c->ranks[i] = ranks[i];
	}
	qsort(c->ranks, n, sizeof *c->ranks, cmp_u32);
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (!k || c->ranks[k - 1] != c->ranks[i])
			c->ranks[k++] = c->ranks[i];
	c->n = k;
	c->net = net;
	*out = c;
	return 0;
}

void
grove_comm_destroy(grove_comm *c)
{
	if (!c || c->owned_by_net)
		return;
	free(c->ranks);
	free(c);
}

size_t
grove_comm_size(const grove_comm *c)
{
	return c ? c->n : 0;
}

/* ---- streams ------------------------------------------------------ */

void
grove_stream_opts_init(grove_stream_opts *o)
{
	if (!o)
		return;
	memset(o, 0, sizeof *o);
	o->up_filter = "null";
	o->sync_filter = "wait_for_all";
	o->down_filter = "null";
}

int
grove_stream_create(grove_net *net, const grove_comm *comm,
    const grove_stream_opts *o, grove_stream **out)
{
	grove_stream_opts d;
	if (!fe_net_usable(net) || !comm || !out)
		return GROVE_EINVAL;
	if (comm->net != net) {
		fe_set_error(net, "the communicator belongs to another network");
		return GROVE_EINVAL;
	}
	/* Ranks are sorted: the last is the highest. */
	if (comm->n && comm->ranks[comm->n - 1] >= grove_topo_backends(net->topo)) {
		fe_set_error(net, "the communicator names rank %u; the network "
		    "has %u back-ends", comm->ranks[comm->n - 1],
		    grove_topo_backends(net->topo));
		return GROVE_ERANGE;
	}
	if (!o) {
		grove_stream_opts_init(&d);
		o = &d;
	}
	if ((unsigned)o->partial > GROVE_PARTIAL_DELIVER) {
		fe_set_error(net, "grove_stream_opts.partial is %d: not one of "
		    "GROVE_PARTIAL_DEFAULT, _FAIL, _DELIVER", (int)o->partial);
		return GROVE_EINVAL;
	}
	/* Refused here, before anything is sent: the CPs lack it. */
	int frc = fe_filter_usable(net, o->up_filter);
	if (frc == 0)
		frc = fe_filter_usable(net, o->down_filter);
	if (frc != 0)
		return frc;
	/* The stream's creation goes down the links like a send, and waits
	 * like one while a link is full (else a tool that creates streams
	 * without receiving would queue without bound). */
	int wrc = fe_wait_writable(net, net->send_wait_ms);
	if (wrc != 0)
		return wrc;
	grove_stream *s = calloc(1, sizeof *s);
	if (!s || !(s->members = malloc((comm->n ? comm->n : 1) *
	    sizeof *s->members))) {
		free(s);
		return GROVE_ENOMEM;
	}
	memcpy(s->members, comm->ranks, comm->n * sizeof *s->members);
	s->n_members = comm->n;
	s->partial = o->partial;
	s->net = net;
	s->id = fe_stream_id_next(net);
	char err[256];
	int rc = node_stream_create(&net->n, s->id, comm->ranks, comm->n,
	    o->up_filter ? o->up_filter : "null",
	    o->sync_filter ? o->sync_filter : "wait_for_all",
	    o->down_filter ? o->down_filter : "null", o->sync_timeout_ms, err,
	    sizeof err);
	if (rc != 0) {
		fe_set_error(net, "%s", err);
		free(s->members);
		free(s);
		return rc;
	}
	s->next = net->streams;
	net->streams = s;
	node_flush_all(&net->n);
	fe_settle(net);
	*out = s;
	return 0;
}

uint32_t
grove_stream_id(const grove_stream *s)
{
	return s ? s->id : 0;
}

size_t
grove_stream_queued(const grove_stream *s, size_t *bytes)
{
	if (bytes)
		*bytes = s ? s->q.bytes : 0;
	return s ? s->q.n : 0;
}

/* Whether s (with this id: a new stream may reuse a freed address) is
 * still one of net's streams. */
int
fe_stream_listed(const grove_net *net, const grove_stream *s, uint32_t id)
{
	for (const grove_stream *t = net->streams; t; t = t->next)
		if (t == s && t->id == id)
			return 1;
	return 0;
}

uint32_t
fe_stream_id_next(grove_net *net)
{
	/* After 2^32 creations the counter wraps: 0 means point-to-point and
	 * a live stream's id would be refused by the nodes, so both are
	 * passed over. */
	for (;;) {
		uint32_t id = net->next_stream++;
		const grove_stream *s = net->streams;
		while (s && s->id != id)
			s = s->next;
		if (id != 0 && !s)
			return id;
	}
}

int
fe_stream_usable(grove_net *net, const grove_stream *s, uint32_t id,
    uint64_t frees)
{
	if (net->stream_frees != frees && !fe_stream_listed(net, s, id)) {
		fe_set_error(net, "stream %u was destroyed", id);
		return GROVE_ECLOSED;
	}
	if (s->destroying) {
		fe_set_error(net, "stream %u is being destroyed", id);
		return GROVE_ECLOSED;
	}
	return 0;
}

int
grove_stream_destroy(grove_stream *s)
{
	if (!s)
		return GROVE_EINVAL;
	if (s->destroying)
		return 0; /* from a callback of the destroy itself */
	s->destroying = 1;
	grove_net *net = s->net;
	/* Waits like a send while a link is full; a destroy cannot fail, so
	 * once send_timeout_ms has passed it queues its message anyway (one
	 * small frame over the limit; the stream is gone either way). */
	if (fe_wait_writable(net, net->send_wait_ms) != 0)
		fe_set_error(net, "stream %u: its removal was queued on a link "
		    "over its limit (the wait for it ran out)", s->id);
	node_stream_destroy(&net->n, s->id, 1);
	node_flush_all(&net->n);
	fe_settle(net);
	for (grove_stream **pp = &net->streams; *pp; pp = &(*pp)->next) {
		if (*pp == s) {
			*pp = s->next;
			break;
		}
	}
	net->queued -= s->q.n;
	pktq_fini(&s->q);
	wave_note_unref(s->whole);
	free(s->members);
	free(s);
	net->stream_frees++;
	fe_update_waitfd(net);
	return 0;
}

void node_stream_set_params_local(node *n, grove_packet *ctl);

int
grove_stream_set_params(grove_stream *s, grove_filter_slot which,
    const char *fmt, ...)
{
	if (!s || which > GROVE_FILTER_DOWN || !fmt)
		return GROVE_EINVAL;
	/* Waits like a send while a link is full; gives up as a send does,
	 * before anything changed.  The wait runs event callbacks, which may
	 * destroy the stream. */
	grove_net *net = s->net;
	uint32_t id = s->id;
	int rc = fe_wait_writable(net, net->send_wait_ms);
	if (rc != 0)
		return rc;
	if (!fe_stream_listed(net, s, id) || s->destroying) {
		fe_set_error(net, "stream %u was destroyed while its parameters "
		    "waited for a full link", id);
		return GROVE_ECLOSED;
	}
	grove_packet *params = NULL, *ctl = NULL;
	va_list ap;
	va_start(ap, fmt);
	/* Stamped with the front-end's rank: every node rebuilds the packet
	 * from these bytes, and a source left 0 would name back-end 0 to a
	 * filter that reads it or passes the packet on. */
	rc = wire_vpack(&params, WIRE_T_DATA, s->id, 0, s->net->n.rank, 0, fmt,
	    ap);
	va_end(ap);
	if (rc != 0) {
		fe_set_error(s->net, "%s", grove_packet_last_error());
		return rc;
	}
	size_t len;
	const uint8_t *bytes = wire_packet_bytes(params, &len);
	rc = wire_pack(&ctl, WIRE_T_STREAM_PARAMS, s->id, 0, s->net->n.rank, 0,
	    PROTO_STREAM_PARAMS, s->id, (int32_t)which, bytes, (uint64_t)len);
	grove_packet_unref(params);
	if (rc != 0)
		return rc;
	node_stream_set_params_local(&s->net->n, ctl);
	grove_packet_unref(ctl);
	node_flush_all(&s->net->n);
	fe_settle(s->net);
	return 0;
}

/* ---- sending ------------------------------------------------------ */

/* A send call that ends before it got to inject anything (a bad argument
 * found after its start, a packing that failed) is recorded with its
 * error, as every call that began is. */
int
fe_send_failed(grove_net *net, int rc, uint64_t t0)
{
	grove_trace_end(&net->tc_api_send, GROVE_OP_API_SEND, rc, t0);
	return rc;
}

int
fe_inject(grove_net *net, const grove_stream *s, grove_packet *p, uint64_t t0)
{
	uint32_t id = s ? s->id : 0;
	uint64_t frees = net->stream_frees;
	int rc = s ? fe_stream_usable(net, s, id, frees) : 0;
	/* Wait first: a send that gives up has queued nothing.  The wait
	 * runs event callbacks, which may destroy the stream. */
	if (rc == 0)
		rc = fe_wait_writable(net, net->send_wait_ms);
	if (rc == 0 && s)
		rc = fe_stream_usable(net, s, id, frees);
	if (rc == 0) {
		node_from_parent(&net->n, p);
		node_flush_all(&net->n);
		fe_settle(net);
	}
	grove_trace_record(&net->tc_api_send, GROVE_OP_API_SEND,
	    rc == 0 ? (int32_t)grove_packet_size(p) : rc, t0,
	    grove_trace_begin());
	return rc;
}

int
grove_stream_send_packet(grove_stream *s, grove_packet *p)
{
	if (!s || !p)
		return GROVE_EINVAL;
	/* The call's time starts here: a copy of the packet is part of it. */
	uint64_t t0 = grove_trace_begin();
	grove_packet *q = NULL;
	/* A packet passed on keeps its origin; one the tool built itself
	 * gets the front-end's rank, as grove_stream_send gives it. */
	uint32_t src = wire_packet_src_unset(p) ? s->net->n.rank :
	               grove_packet_src(p);
	int rc = wire_repack(&q, p, WIRE_T_DATA, s->id, grove_packet_tag(p),
	    src);
	if (rc != 0)
		return fe_send_failed(s->net, rc, t0);
	rc = fe_stream_inject(s, q, t0);
	grove_packet_unref(q);
	return rc;
}

int
grove_stream_send(grove_stream *s, int32_t tag, const char *fmt, ...)
{
	if (!s || !fmt)
		return GROVE_EINVAL;
	/* The call's time starts here: packing is part of it. */
	uint64_t t0 = grove_trace_begin();
	grove_packet *p = NULL;
	va_list ap;
	va_start(ap, fmt);
	int rc = wire_vpack(&p, WIRE_T_DATA, s->id, tag, s->net->n.rank, 0, fmt, ap);
	va_end(ap);
	if (rc != 0) {
		/* The packing message says what and where (format, offset). */
		fe_set_error(s->net, "%s", grove_packet_last_error());
		return fe_send_failed(s->net, rc, t0);
	}
	rc = fe_stream_inject(s, p, t0);
	grove_packet_unref(p);
	return rc;
}

int
grove_net_send_to(grove_net *net, uint32_t be_rank, int32_t tag,
    const char *fmt, ...)
{
	if (!fe_net_usable(net) || !fmt)
		return GROVE_EINVAL;
	/* The call's time starts here: packing is part of it. */
	uint64_t t0 = grove_trace_begin();
	if (be_rank >= grove_topo_backends(net->topo)) {
		fe_set_error(net, "rank %u out of range", be_rank);
		return fe_send_failed(net, GROVE_ERANGE, t0);
	}
	if (net->be_state[be_rank] == FE_BE_PENDING) {
		/* Attach mode: it may still come; the tool may try again. */
		fe_set_error(net, "rank %u has not attached yet", be_rank);
		return fe_send_failed(net, GROVE_EAGAIN, t0);
	}
	if (net->be_state[be_rank] != FE_BE_UP) {
		fe_set_error(net, "rank %u is lost", be_rank);
		return fe_send_failed(net, GROVE_ELOST, t0);
	}
	grove_packet *p = NULL;
	va_list ap;
	va_start(ap, fmt);
	int rc = wire_vpack(&p, WIRE_T_P2P, 0, tag, net->n.rank, be_rank, fmt, ap);
	va_end(ap);
	if (rc != 0) {
		fe_set_error(net, "%s", grove_packet_last_error());
		return fe_send_failed(net, rc, t0);
	}
	rc = fe_inject(net, NULL, p, t0);
	grove_packet_unref(p);
	return rc;
}

int
grove_net_flush(grove_net *net, int timeout_ms)
{
	if (!fe_net_usable(net))
		return GROVE_EINVAL;
	uint64_t deadline = sockio_now_ms() + (uint64_t)(timeout_ms > 0 ? timeout_ms : 0);
	node *n = &net->n;
	/* The first pass runs the loop even with no time to wait: a write
	 * under way moves only there, and a tool may poll with 0. */
	for (int first = 1;; first = 0) {
		node_flush_all(n);
		size_t q = 0;
		for (uint32_t i = 0; i < n->n_children; i++)
			if (n->children[i].c)
				q += conn_queued(n->children[i].c);
		if (!q)
			return 0;
		int left = fe_deadline_left(deadline, timeout_ms);
		if (left == 0 && !first)
			return GROVE_ETIMEDOUT;
		fe_run(net, left < 0 || left > 50 ? 50 : left);
	}
}

/* ---- live collection of event spaces ------------------------------- */

int
fe_trace_request(grove_net *net)
{
	node *n = &net->n;
	char host[256] = "";
	gethostname(host, sizeof host - 1);
	const char *ship = getenv("GROVE_TRACE_SHIP");
	grove_packet *req = NULL;
	uint32_t id = net->next_req++;
	int rc = wire_pack(&req, WIRE_T_TRACE_REQ, 0, (int32_t)id, n->rank, 0,
	    PROTO_TRACE_REQ, host, (int32_t)(ship && !strcmp(ship, "all")));
	if (rc != 0)
		return rc;
	net->trace_req = id;
	net->trace_answers = net->trace_copied = 0;
	node_from_parent(n, req);
	grove_packet_unref(req);
	node_flush_all(n);
	/* Every live process below answers once: live back-ends, and CPs
	 * with a live back-end below them. */
	uint32_t expect = 0;
	memset(net->trace_pending, 0, grove_topo_size(net->topo));
	for (uint32_t i = 1; i < grove_topo_size(net->topo); i++) {
		const grove_topo_node *t = grove_topo_node_at(net->topo, i);
		for (uint32_t r = t->be_lo; r < t->be_hi; r++)
			if (net->be_state[r] == FE_BE_UP) {
				net->trace_pending[i] = 1;
				expect++;
				break;
			}
	}
	net->trace_expect = expect;
	return 0;
}

int
grove_net_trace_collect(grove_net *net, int timeout_ms)
{
	if (!net || !net->n.loop_ready)
		return GROVE_EINVAL;
	/* A collection the control socket started is replaced by this one;
	 * its clients get this one's answer. */
	net->ctl.collecting = 0;
	uint64_t deadline = sockio_now_ms() + (uint64_t)(timeout_ms > 0 ? timeout_ms : 0);
	/* Offsets first (a quarter of the time at most), so that the copies
	 * can be put on this process's clock. */
	int skew_ms = timeout_ms < 0 || timeout_ms / 4 > FE_TRACE_SKEW_MS ?
	    FE_TRACE_SKEW_MS : timeout_ms / 4;
	if (skew_ms > 0)
		fe_trace_offsets_measure(net, skew_ms);
	int rc = fe_trace_request(net);
	if (rc != 0)
		return rc;
	while (net->trace_answers < net->trace_expect) {
		int left = fe_deadline_left(deadline, timeout_ms);
		if (left == 0)
			break;
		fe_run(net, left < 0 || left > 50 ? 50 : left);
	}
	net->trace_req = 0;
	fe_settle(net);
	if (net->trace_answers < net->trace_expect) {
		fe_set_error(net, "event spaces: %u of %u processes answered within "
		    "%d ms (back-ends answer inside their next Grove call)",
		    net->trace_answers, net->trace_expect, timeout_ms);
		fe_ctl_trace_finished(net, GROVE_ETIMEDOUT);
		return GROVE_ETIMEDOUT;
	}
	fe_ctl_trace_finished(net, 0);
	return (int)net->trace_copied;
}

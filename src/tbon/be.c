/* Back-end API: one authenticated link to the parent, driven by the calls
 * made on it. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "codec/wire.h"
#include "core/defaults.h"
#include "core/log.h"
#include "core/textfile.h"
#include "grove/backend.h"
#include "grove/trace.h"
#include "net/auth.h"
#include "net/boot.h"
#include "net/conn.h"
#include "net/emu_setup.h"
#include "net/exit_wait.h"
#include "net/sockio.h"
#include "net/uplink.h"
#include "tbon/be_internal.h"
#include "tbon/be_streams.h"
#include "tbon/connfile.h"
#include "tbon/pktq.h"
#include "tbon/segment.h"
#include "tbon/ship.h"
#include "tbon/skew.h"
#include "tbon/waitfd.h"
#include "trace/space.h"

/* A leaving back-end gives up its link after this long without a byte
 * taken (exit_wait.h): it has no subtree to wait for. */
#define BE_EXIT_IDLE_MS 2000u

/* A traced API call begins: one clock read, its start, kept in the handle
 * (see api_t0). */
static uint64_t
be_api_begin(grove_be *be, uint16_t op)
{
	be->api_op = op;
	be->api_sent = 0;
	return be->api_t0 = grove_trace_begin();
}

/* The call ends at t1 (0: now).  Not recorded when tracing was off at its
 * start, nor when the SHUTDOWN handler recorded it already (be_api_cut):
 * tracing has closed then, but a space that could not be shipped may
 * still be recording, and the call must not count twice. */
static void
be_api_end(grove_be *be, int32_t result, uint64_t t1)
{
	uint64_t t0 = be->api_t0;
	be->api_t0 = 0;
	if (!t0)
		return;
	grove_trace_record(be->api_op == GROVE_OP_API_RECV ? &be->tc_api_recv :
	    &be->tc_api_send, be->api_op, result, t0, t1 ? t1 : grove_trace_now());
}

/* The event space is about to be finished and shipped from inside a
 * traced call (a SHUTDOWN handled by the loop the call runs): the call is
 * recorded now, up to the snapshot, with the result it is going to
 * return.  A receive returns the first packet queued, or GROVE_ECLOSED
 * (the handler closes the handle); a send returns the bytes it queued. */
static void
be_api_cut(grove_be *be)
{
	if (!be->api_t0)
		return;
	int32_t result = be->api_sent;
	if (be->api_op == GROVE_OP_API_RECV)
		result = be->q.n ?
		    (int32_t)grove_packet_size(be->q.pkts[be->q.head]) :
		    GROVE_ECLOSED;
	be_api_end(be, result, 0);
}

/* A piece of a large multicast: the packet joins the queue once whole,
 * in the place of its last segment.  A broken segment is a protocol error
 * of the parent. */
static void
be_on_segment(grove_be *be, conn *c, grove_packet *p)
{
	grove_packet *whole = NULL;
	char why[300];
	int rc = seg_reasm_push(&be->reasm, p, &whole, why, sizeof why);
	if (rc == 1) {
		if (pktq_push(&be->q, whole, be->seq++) != 0)
			grove_packet_unref(whole);
		waitfd_set(&be->wfd, 1);
	} else if (rc < 0) {
		char msg[400];
		snprintf(msg, sizeof msg, "protocol error from the parent (%s): %s",
		    c->peer, why);
		log_warn("be %u: %s", be->rank, msg);
		conn_close(c, rc, msg); /* be_on_close keeps msg as the error */
	}
}

static void
be_on_packet(conn *c, grove_packet *p)
{
	grove_be *be = c->owner;
	const wire_hdr *h = wire_packet_hdr(p);
	if (be_recover_on_packet(be, p))
		return;
	switch (h->type) {
	case WIRE_T_DATA:
	case WIRE_T_P2P:
		if (pktq_push(&be->q, grove_packet_ref(p), be->seq++) != 0)
			grove_packet_unref(p);
		waitfd_set(&be->wfd, 1);
		break;
	case WIRE_T_SEGMENT:
		be_on_segment(be, c, p);
		break;
	case WIRE_T_SHUTDOWN: {
		grove_packet *ev = NULL;
		if (ship_wanted(p, be->trace_keep ||
			getenv("GROVE_TRACE_KEEP") != NULL)) {
			be_api_cut(be);
			if (ship_event_space(be->rank, &ev) == 0) {
				conn_send(c, ev);
				conn_flush(c);
				grove_packet_unref(ev);
			}
		}
		be->closed = 1;
		waitfd_set(&be->wfd, 1);
		break;
	}
	case WIRE_T_TRACE_REQ: {
		grove_packet *ans = NULL;
		if (ship_answer(p, be->rank, &ans) == 0) {
			conn_send(c, ans);
			conn_flush(c);
			grove_packet_unref(ans);
		}
		break;
	}
	case WIRE_T_SKEW_PROBE:
		/* t2 is read before anything else is done with the probe. */
		skew_answer_probe(c, p, skew_clock_ns(be->clock_inject_ns),
		    be->clock_inject_ns, be->rank);
		break;
	case WIRE_T_STREAM_NEW:
		if (be_streams_add(&be->streams, h->stream) != 0)
			be->streams_unsure = 1;
		break;
	case WIRE_T_STREAM_DEL:
		be_streams_del(&be->streams, h->stream);
		break;
	case WIRE_T_STREAM_PARAMS:
	case WIRE_T_HEARTBEAT:
		break;
	default:
		log_warn("be %u: unexpected message type %u from parent dropped",
		    be->rank, h->type);
	}
}

static void
be_on_close(conn *c, int err, const char *why)
{
	grove_be *be = c->owner;
	be->parent = NULL;
	/* Not told to leave: an ancestor may take it in, in the next Grove
	 * call (be_recover.c); a polling tool is woken to make one. */
	if (!be->closed && be_recover_lost(be, err, why)) {
		waitfd_set(&be->wfd, 1);
		return;
	}
	be->closed = 1;
	waitfd_set(&be->wfd, 1);
	if (err)
		snprintf(be->err, sizeof be->err, "link to parent closed: %s", why);
}

const conn_ops be_ops = {be_on_packet, be_on_close, NULL};

/* Connects to the parent (inherited pipes, its Unix socket, or TCP; see
 * net/uplink.h), proves the secret and starts the loop. */
static int
be_connect(grove_be *be, int parent_rfd, int parent_wfd, const char *host,
    uint16_t port, const char *unix_name, uint32_t parent, const char *netid,
    const uint8_t secret[AUTH_SECRET_LEN], int timeout_ms)
{
	char err[512];
	struct sigaction sa;
	if (sigaction(SIGPIPE, NULL, &sa) == 0 && sa.sa_handler == SIG_DFL)
		signal(SIGPIPE, SIG_IGN);
	uplink u;
	int rc = uplink_open(parent_rfd, parent_wfd, unix_name, host, port,
	    timeout_ms, &u, err, sizeof err);
	if (rc != 0) {
		snprintf(be->err, sizeof be->err, "be %u: %s", be->rank, err);
		return rc;
	}
	rc = auth_child_handshake(u.rfd, u.wfd, secret, be->node, be->rank,
	    auth_handshake_timeout_ms(), err, sizeof err);
	if (rc != 0) {
		snprintf(be->err, sizeof be->err, "be %u: %s", be->rank, err);
		uplink_close(&u);
		return rc;
	}
	log_set_identity("be", be->rank);
	grove_trace_init(netid, "be", be->rank);
	be->joiner = getpid();
	be->clock_inject_ns = skew_inject_from_env(0, be->rank);
	if (uv_loop_init(&be->loop) != 0) {
		uplink_close(&u);
		return GROVE_ESYS;
	}
	be->loop_ready = 1;
	uv_timer_init(&be->loop, &be->wait_timer);
	uv_timer_init(&be->loop, &be->hb_timer);
	be->hb_timer.data = be;
	memcpy(be->secret, secret, AUTH_SECRET_LEN);
	be->parent_id = parent;
	be->lineage.reparent_ms = -1;
	if ((rc = uplink_conn(&be->loop, &u, &be_ops, be, -1, &be->parent)) != 0)
		return rc;
	be->parent->authed = 1;
	snprintf(be->parent->peer, sizeof be->parent->peer, "node %u", parent);
	char sw[48], rw[48];
	snprintf(sw, sizeof sw, "link:%u->%u", be->node, parent);
	snprintf(rw, sizeof rw, "link:%u->%u", parent, be->node);
	conn_trace_register(be->parent, sw, rw);
	if (waitfd_init(&be->wfd, &be->loop) != 0)
		return GROVE_ESYS;
	grove_trace_collector_register(&be->tc_api_send, "api.send", "api", "be",
	    "api");
	grove_trace_collector_register(&be->tc_api_recv, "api.recv", "api", "be",
	    "api");
	return 0;
}

static grove_be *
be_new(void)
{
	grove_be *be = calloc(1, sizeof *be);
	if (be)
		be->wfd.ep = be->wfd.ev = be->wfd.tf = -1;
	return be;
}

int
grove_be_init(int *argc, char ***argv, grove_be **out)
{
	(void)argc;
	(void)argv;
	if (!out)
		return GROVE_EINVAL;
	*out = NULL;
	const char *marker = getenv("GROVE_BOOTSTRAP");
	if (!marker || strcmp(marker, "stdin")) {
		/* A handle that only holds the message: the caller's error
		 * path reads and destroys it (as after any failed join). */
		grove_be *be = be_new();
		if (!be)
			return GROVE_ENOENT;
		snprintf(be->err, sizeof be->err, "this process was not started "
		    "by a Grove network (GROVE_BOOTSTRAP is %s%s%s): a back-end "
		    "started by hand or by a job launcher attaches instead, with "
		    "grove_be_attach(connection_file, rank, &be) (the front-end "
		    "writes the file: grove_net_opts.connect_file, attach mode) or "
		    "grove_be_attach_to() with the fields of "
		    "grove_net_attach_info(); see docs/api.md, \"Attach mode and the connection file\"",
		    marker ? "\"" : "not set", marker ? marker : "",
		    marker ? "\", not \"stdin\"" : "");
		*out = be;
		return GROVE_ENOENT;
	}
	unsetenv("GROVE_BOOTSTRAP");
	grove_be *be = be_new();
	if (!be)
		return GROVE_ENOMEM;
	boot b;
	boot_init(&b);
	int rc = boot_read_fd(0, &b, be->err, sizeof be->err);
	int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (devnull >= 0) {
		dup2(devnull, 0);
		close(devnull);
	}
	uint8_t secret[AUTH_SECRET_LEN];
	if (rc == 0 && auth_secret_from_hex(b.secret_hex, secret) != 0) {
		snprintf(be->err, sizeof be->err, "bad secret in bootstrap");
		rc = GROVE_EPROTO;
	}
	if (rc == 0) {
		be->rank = b.rank;
		be->node = b.node;
		be->backends = b.backends;
		if (b.log_level > log_level_)
			log_level_ = b.log_level;
		trace_tsc_hint(b.tsc_invariant);
		be->trace_keep |= b.trace_keep;
		rc = be_connect(be, b.parent_rfd, b.parent_wfd, b.parent_host,
		    b.parent_port, b.parent_unix, b.parent_node, b.netid, secret,
		    b.timeout_ms);
	}
	if (rc == 0)
		rc = emu_setup_conn(be->parent, b.clusters, 0, be->node,
		    b.parent_node, be->err, sizeof be->err);
	boot_fini(&b);
	*out = be;
	if (rc != 0)
		fprintf(stderr, "grove back-end: %s\n", be->err);
	return rc;
}

int
grove_be_attach_to(const char *host, uint16_t port, uint32_t parent,
    uint32_t node, uint32_t rank, uint32_t backends, const char *secret_hex, grove_be **out)
{
	if (!out || !host || !secret_hex)
		return GROVE_EINVAL;
	*out = NULL;
	grove_be *be = be_new();
	if (!be)
		return GROVE_ENOMEM;
	*out = be;
	uint8_t secret[AUTH_SECRET_LEN];
	if (auth_secret_from_hex(secret_hex, secret) != 0) {
		snprintf(be->err, sizeof be->err, "be %u: the secret is not %d "
		    "hex digits", rank, 2 * AUTH_SECRET_LEN);
		return GROVE_EINVAL;
	}
	be->rank = rank;
	be->node = node;
	be->backends = backends;
	char netid[17];
	auth_network_id(secret, netid);
	/* The connect's own limit (api.md); the handshake after it has
	 * GROVE_HANDSHAKE_TIMEOUT_MS. */
	int rc = be_connect(be, -1, -1, host, port, NULL, parent, netid, secret,
	    GROVE_DEFAULT_TIMEOUT_MS);
	if (rc == 0)
		rc = emu_setup_conn(be->parent, NULL, 1, node, parent, be->err,
		    sizeof be->err);
	return rc;
}

int
grove_be_attach(const char *connect_file, uint32_t rank, grove_be **out)
{
	if (!out || !connect_file)
		return GROVE_EINVAL;
	*out = NULL;
	char *text = NULL;
	size_t len = 0;
	char why[400];
	connfile_record rec;
	/* A connection file holds a line per back-end: a few MB for the
	 * largest networks; more is not a connection file. */
	int rc = core_read_file(connect_file, 256u << 20, &text, &len, why,
	    sizeof why);
	if (rc == GROVE_ERANGE)
		rc = GROVE_EPROTO;
	if (rc == 0) {
		rc = connfile_find(text, len, rank, &rec, why, sizeof why);
		auth_wipe(text, len);
		free(text);
	}
	if (rc != 0) {
		/* The handle carries the reason (grove_be_error). */
		grove_be *be = be_new();
		if (be)
			snprintf(be->err, sizeof be->err, "connection file %s: %s",
			    connect_file, why);
		*out = be;
		return rc;
	}
	rc = grove_be_attach_to(rec.host, rec.port, rec.parent, rec.node, rank,
	    rec.backends, rec.secret_hex, out);
	auth_wipe(rec.secret_hex, sizeof rec.secret_hex);
	return rc;
}

/* In a process forked from the one that joined, the link, the loop's
 * epoll instance and the descriptor of grove_be_fd() are shared with the
 * joiner: close this process's copies and nothing else (no flush, no
 * orderly close of the link, no release of the joiner's reference on the
 * event space, no write to the shared eventfd).  The loop is renewed
 * first: closing the link's handle in the shared loop would take the
 * joiner's link out of the joiner's epoll set, and the joiner would never
 * wake for its parent's traffic again. */
static void
be_forget(grove_be *be)
{
	/* The link's close callback signals the application's descriptor:
	 * the eventfd is the joiner's. */
	be->wfd.used = 0;
	if (uv_loop_fork(&be->loop) != 0) {
		/* Without a loop of its own the copy cannot be closed safely:
		 * its handles' memory and descriptors stay until the process
		 * exits. */
		be->loop_ready = 0;
		return;
	}
	if (be->parent)
		conn_close(be->parent, 0, "back-end copy of a forked child");
	uv_close((uv_handle_t *)&be->wait_timer, NULL);
	uv_close((uv_handle_t *)&be->hb_timer, NULL);
	uv_run(&be->loop, UV_RUN_DEFAULT);
	uv_loop_close(&be->loop);
}

void
grove_be_destroy(grove_be *be)
{
	if (!be)
		return;
	if (be->loop_ready && be->joiner != getpid()) {
		be_forget(be);
	} else if (be->loop_ready) {
		if (be->parent) {
			/* What is queued (an event space shipped home can be
			 * megabytes) goes while the link takes it; a link
			 * that takes nothing for BE_EXIT_IDLE_MS is given up. */
			conn_flush(be->parent);
			struct exit_wait w;
			exit_wait_start(&w, sockio_now_ms(),
			    conn_bytes_sent(be->parent));
			while (be->parent && conn_queued(be->parent)) {
				uint64_t now = sockio_now_ms();
				if (conn_emu_holding(be->parent))
					exit_wait_moving(&w, now);
				if (exit_wait_idle(&w, now,
				    conn_bytes_sent(be->parent)) > BE_EXIT_IDLE_MS)
					break;
				loop_run_for(&be->loop, &be->wait_timer, 50);
			}
			if (be->parent)
				conn_close(be->parent, 0, "back-end leaving");
		}
		be->closed = 1; /* no re-parenting from here on */
		uv_close((uv_handle_t *)&be->wait_timer, NULL);
		uv_close((uv_handle_t *)&be->hb_timer, NULL);
		uv_run(&be->loop, UV_RUN_DEFAULT);
		uv_loop_close(&be->loop);
		grove_trace_fini(be->trace_keep ||
		    getenv("GROVE_TRACE_KEEP") != NULL);
	}
	pktq_fini(&be->q);
	be_recover_fini(be);
	be_streams_fini(&be->streams);
	seg_reasm_fini(&be->reasm);
	waitfd_fini(&be->wfd);
	free(be);
}

uint32_t
grove_be_rank(const grove_be *be)
{
	return be ? be->rank : 0;
}

uint32_t
grove_be_backends(const grove_be *be)
{
	return be ? be->backends : 0;
}

int64_t
grove_be_clock_ns(const grove_be *be)
{
	return skew_clock_ns(be ? be->clock_inject_ns : 0);
}

const char *
grove_be_last_error(const grove_be *be)
{
	return be ? be->err : "no back-end";
}

/* Whatever the loop's callbacks queued goes out before the caller sees
 * the result (a send flushes its own packet). */
static void
be_flush_queued(grove_be *be)
{
	if (be->parent && be->parent->wq_n)
		conn_flush(be->parent);
}

static void
be_pass(grove_be *be, int timeout_ms)
{
	be_flush_queued(be);
	be->wfd.in_pass++;
	loop_run_for(&be->loop, &be->wait_timer, timeout_ms);
	be->wfd.in_pass--;
	/* The parent was lost in the pass: the call looks for another one
	 * before it goes on. */
	if (be->orphaned)
		be_recover_reparent(be);
	be_flush_queued(be);
}

/* Before control goes back to a tool that polls grove_be_fd(), the loop's
 * epoll set must hold every watcher started meanwhile (the link's reading
 * after init, a write waiting for room): else the tool's poll never wakes
 * for them.  Nothing to do, and no system call, unless the tool has the
 * descriptor and a watcher changed. */
static void
be_settle(grove_be *be)
{
	while (waitfd_stale(&be->wfd))
		be_pass(be, 0);
}

static void
be_run(grove_be *be, int timeout_ms)
{
	be_pass(be, timeout_ms);
	be_settle(be);
}

int
grove_be_fd(grove_be *be)
{
	if (!be)
		return -1;
	int fd = waitfd_get(&be->wfd, be->q.n > 0 || be->closed);
	/* From here on the callbacks keep the eventfd in step. */
	be_settle(be);
	return fd;
}

/* Milliseconds from now to deadline (0 once past) for a wait of
 * timeout_ms; -1 for no timeout.  Only a positive timeout has a deadline
 * to read the clock for. */
static int
ms_left(int timeout_ms, uint64_t deadline)
{
	if (timeout_ms <= 0)
		return timeout_ms < 0 ? -1 : 0;
	uint64_t now = sockio_now_ms();
	return deadline > now ? (int)(deadline - now) : 0;
}

int
grove_be_recv(grove_be *be, uint32_t *stream, int32_t *tag, grove_packet **p,
    int timeout_ms)
{
	if (!be || !p || !be->loop_ready)
		return GROVE_EINVAL;
	be_api_begin(be, GROVE_OP_API_RECV);
	uint64_t deadline = timeout_ms > 0 ?
	    sockio_now_ms() + (uint64_t)timeout_ms : 0;
	int rc;
	for (int first = 1;; first = 0) {
		grove_packet *pk = pktq_pop(&be->q);
		if (pk) {
			const wire_hdr *h = wire_packet_hdr(pk);
			if (stream)
				*stream = h->type == WIRE_T_P2P ? 0 : h->stream;
			if (tag)
				*tag = h->tag;
			*p = pk;
			rc = 0;
			break;
		}
		waitfd_set(&be->wfd, be->closed);
		if (be->closed) {
			rc = GROVE_ECLOSED;
			break;
		}
		int left = ms_left(timeout_ms, deadline);
		if (left == 0 && !first) {
			rc = timeout_ms == 0 ? GROVE_EAGAIN : GROVE_ETIMEDOUT;
			break;
		}
		be_run(be, left);
	}
	if (be->q.n == 0 && !be->closed)
		waitfd_set(&be->wfd, 0);
	/* The result is the bytes received (the statistics' message sizes),
	 * or the error. */
	be_api_end(be, rc == 0 ? (int32_t)grove_packet_size(*p) : rc, 0);
	return rc;
}

/* A packet grove_be_send packed smaller than this: its link write starts
 * where the call did (no clock read of its own), so the write's span
 * holds the packing too, which for so small a packet is short beside the
 * write's system call.  A larger packet took its packing time (several ms
 * for tens of MB), which is the call's but not the link's: its write reads
 * the clock for its own start, a read that costs far less than packing
 * that many bytes. */
#define BE_PACK_SHARED_START_MAX 4096u

/* 0 when this back-end may send on stream (0: point-to-point); else
 * GROVE_ENOENT with the error saying why.  Its parent drops data on a
 * stream it does not have, or from a child that is not a member, so the
 * send fails here, where the tool can see it.  Messages already read but
 * not yet handled are looked at first: a STREAM_NEW may be among them. */
static int
be_stream_known(grove_be *be, uint32_t stream)
{
	if (stream == 0 || be->streams_unsure ||
	    be_streams_has(&be->streams, stream))
		return 0;
	be_run(be, 0);
	if (be_streams_has(&be->streams, stream))
		return 0;
	snprintf(be->err, sizeof be->err, "be %u: no stream %u for this "
	    "back-end: %s (nothing sent)", be->rank, stream,
	    be_streams_was_destroyed(&be->streams, stream) ? "it was "
	    "destroyed" : "the front-end never created it with this rank "
	    "as a member (the id of grove_stream_id(), received from the "
	    "front-end, names a stream)");
	return GROVE_ENOENT;
}

/* The part of a send after the packet is built; the call began at t0
 * (be_api_begin), which the link write shares as its start when
 * share_start is set.  Every return goes through be_api_end. */
static int
be_send_built(grove_be *be, uint32_t stream, grove_packet *p, int share_start)
{
	uint64_t t0 = be->api_t0;
	grove_packet *q = NULL;
	int rc = be_stream_known(be, stream);
	if (rc != 0) {
		be_api_end(be, rc, 0);
		return rc;
	}
	rc = wire_repack(&q, p, stream ? WIRE_T_DATA : WIRE_T_P2P, stream,
	    grove_packet_tag(p), be->rank);
	if (rc != 0) {
		be_api_end(be, rc, 0);
		return rc;
	}
	/* Below a new parent's resume point: the wave has it already. */
	if (stream && !be_recover_sending(be, stream, q)) {
		int32_t size = (int32_t)grove_packet_size(q);
		grove_packet_unref(q);
		be_api_end(be, size, 0);
		return 0;
	}
	rc = conn_send(be->parent, q);
	int32_t sent = (int32_t)grove_packet_size(q);
	grove_packet_unref(q);
	uint64_t t1 = 0;
	if (rc == 0) {
		be->api_sent = sent;
		be->parent->t_flush_start = share_start ? t0 : 0;
		be->parent->t_flush_end = 0;
		conn_flush(be->parent);
		t1 = be->parent ? be->parent->t_flush_end : 0;
	}
	/* The write found the parent gone: a new one takes what was kept,
	 * this packet with it (be_recover.c). */
	if (rc == 0 && be->orphaned) {
		be_recover_reparent(be);
		t1 = 0;
	}
	/* Back-pressure: wait while the link holds more than its limit. */
	while (rc == 0 && be->parent && conn_over_limit(be->parent)) {
		be_run(be, 100);
		t1 = 0;
	}
	if (rc == 0 && !be->parent)
		rc = GROVE_ECLOSED;
	/* A write the socket did not take waits for it in the loop. */
	be_settle(be);
	be_api_end(be, rc == 0 ? sent : rc, t1);
	return rc;
}

int
grove_be_send_packet(grove_be *be, uint32_t stream, grove_packet *p)
{
	if (!be || !p)
		return GROVE_EINVAL;
	be_api_begin(be, GROVE_OP_API_SEND);
	if (be->orphaned)
		be_recover_reparent(be);
	if (!be->parent || be->closed) {
		be_api_end(be, GROVE_ECLOSED, 0);
		return GROVE_ECLOSED;
	}
	return be_send_built(be, stream, p, 1);
}

int
grove_be_send(grove_be *be, uint32_t stream, int32_t tag, const char *fmt, ...)
{
	if (!be || !fmt)
		return GROVE_EINVAL;
	/* The call's time starts here: packing is part of it. */
	be_api_begin(be, GROVE_OP_API_SEND);
	if (be->orphaned)
		be_recover_reparent(be);
	if (!be->parent || be->closed) {
		be_api_end(be, GROVE_ECLOSED, 0);
		return GROVE_ECLOSED;
	}
	grove_packet *p = NULL;
	va_list ap;
	va_start(ap, fmt);
	int rc = wire_vpack(&p, stream ? WIRE_T_DATA : WIRE_T_P2P, stream, tag,
	    be->rank, 0, fmt, ap);
	va_end(ap);
	if (rc != 0) {
		/* The packing message says what and where (format, offset). */
		snprintf(be->err, sizeof be->err, "be %u: %s", be->rank,
		         grove_packet_last_error());
		be_api_end(be, rc, 0);
		return rc;
	}
	rc = be_send_built(be, stream, p,
	    grove_packet_size(p) < BE_PACK_SHARED_START_MAX);
	grove_packet_unref(p);
	return rc;
}

int
grove_be_flush(grove_be *be, int timeout_ms)
{
	if (!be || !be->loop_ready)
		return GROVE_EINVAL;
	uint64_t deadline = sockio_now_ms() + (uint64_t)(timeout_ms > 0 ? timeout_ms : 0);
	/* The first pass runs the loop even with no time to wait: polling
	 * with 0 writes what the socket takes now. */
	for (int first = 1; be->parent && conn_queued(be->parent); first = 0) {
		int left = timeout_ms < 0 ? 50 : (int)(deadline > sockio_now_ms() ?
		    deadline - sockio_now_ms() : 0);
		if (left == 0 && !first)
			return GROVE_ETIMEDOUT;
		be_run(be, left > 50 ? 50 : left);
	}
	return be->parent ? 0 : GROVE_ECLOSED;
}

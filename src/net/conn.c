#include "net/conn.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "codec/wire.h"
#include "core/log.h"
#include "grove/error.h"
#include "net/auth.h"
#include "net/emu.h"
#include "net/sockio.h"
#include "net/watch_note.h"
#include "trace/space.h"

#define MAX_IOV 512

typedef struct write_req {
	uv_write_t req;
	conn *c;
	size_t n;
	size_t bytes;
	grove_packet *pkts[];
} write_req;

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf);
static void conn_handle_closed(uv_handle_t *h);
static void on_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf);

static conn *
conn_alloc(const conn_ops *ops, void *owner, long tag)
{
	conn *c = calloc(1, sizeof *c);
	if (!c)
		return NULL;
	c->ops = ops;
	c->owner = owner;
	c->tag = tag;
	c->h.handle.data = c;
	c->ws = &c->h.stream;
	c->open_handles = 1;
	c->last_rx_ms = sockio_now_ms();
	snprintf(c->peer, sizeof c->peer, "peer");
	return c;
}

int
conn_open_fd(uv_loop_t *loop, int fd, const conn_ops *ops, void *owner,
    long tag, conn **out)
{
	conn *c = conn_alloc(ops, owner, tag);
	if (!c)
		return GROVE_ENOMEM;
	struct sockaddr_storage ss;
	socklen_t sl = sizeof ss;
	int is_sock = getsockname(fd, (struct sockaddr *)&ss, &sl) == 0;
	/* libuv's pipe handle serves Unix sockets and plain pipes alike (a
	 * pipe is one direction: reading or writing only). */
	int is_pipe = !is_sock || ss.ss_family == AF_UNIX;
	int rc = is_pipe ? uv_pipe_init(loop, &c->h.pipe, 0)
	    : uv_tcp_init(loop, &c->h.tcp);
	if (rc == 0)
		rc = is_pipe ? uv_pipe_open(&c->h.pipe, fd)
		    : uv_tcp_open(&c->h.tcp, fd);
	if (rc != 0) {
		free(c);
		return GROVE_ESYS;
	}
	c->h.handle.data = c;
	if (is_sock)
		sockio_tune(fd, 20000);
	conn_read_start(c);
	*out = c;
	return 0;
}

int
conn_open_pipes(uv_loop_t *loop, int rfd, int wfd, const conn_ops *ops,
    void *owner, long tag, conn **out)
{
	conn *c = conn_alloc(ops, owner, tag);
	if (!c) {
		close(rfd);
		close(wfd);
		return GROVE_ENOMEM;
	}
	/* uv_pipe_init cannot fail on Linux; uv_pipe_open can, and a handle
	 * that opened its descriptor closes it itself. */
	uv_pipe_init(loop, &c->h.pipe, 0);
	uv_pipe_init(loop, &c->wpipe, 0);
	c->h.handle.data = c;
	c->wpipe.data = c;
	c->ws = (uv_stream_t *)&c->wpipe;
	c->split = 1;
	c->open_handles = 2;
	int rr = uv_pipe_open(&c->h.pipe, rfd);
	if (rr != 0)
		close(rfd);
	int rw = uv_pipe_open(&c->wpipe, wfd);
	if (rw != 0)
		close(wfd);
	if (rr != 0 || rw != 0) {
		c->closing = 1;
		uv_close(&c->h.handle, conn_handle_closed);
		uv_close((uv_handle_t *)&c->wpipe, conn_handle_closed);
		return GROVE_ESYS;
	}
	snprintf(c->peer, sizeof c->peer, "local process");
	conn_read_start(c);
	*out = c;
	return 0;
}

int
conn_accept(uv_stream_t *server, const conn_ops *ops, void *owner, conn **out)
{
	conn *c = conn_alloc(ops, owner, -2);
	if (!c)
		return GROVE_ENOMEM;
	int is_unix = server->type == UV_NAMED_PIPE;
	if (is_unix)
		uv_pipe_init(server->loop, &c->h.pipe, 0);
	else
		uv_tcp_init(server->loop, &c->h.tcp);
	c->h.handle.data = c;
	/* uv_accept may restart the listener's watcher. */
	watch_note_changed(server->loop);
	if (uv_accept(server, &c->h.stream) != 0) {
		c->closing = 1;
		uv_close(&c->h.handle, (uv_close_cb)free);
		return GROVE_ESYS;
	}
	uv_os_fd_t fd;
	if (is_unix) {
		snprintf(c->peer, sizeof c->peer, "local process");
		conn_read_start(c);
		*out = c;
		return 0;
	}
	if (uv_fileno(&c->h.handle, &fd) == 0)
		sockio_tune(fd, 20000);
	struct sockaddr_storage ss;
	int sl = sizeof ss;
	if (uv_tcp_getpeername(&c->h.tcp, (struct sockaddr *)&ss, &sl) == 0) {
		char ip[48] = "?";
		int port = 0;
		if (ss.ss_family == AF_INET) {
			struct sockaddr_in *sin = (struct sockaddr_in *)&ss;
			uv_ip4_name(sin, ip, sizeof ip);
			port = ntohs(sin->sin_port);
		} else if (ss.ss_family == AF_INET6) {
			struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
			uv_ip6_name(s6, ip, sizeof ip);
			port = ntohs(s6->sin6_port);
		}
		snprintf(c->peer, sizeof c->peer, "%s:%d", ip, port);
	}
	conn_read_start(c);
	*out = c;
	return 0;
}

void
conn_read_start(conn *c)
{
	if (!c->reading && !c->closing) {
		c->reading = 1;
		/* The peer's silence counts from now: while reads were stopped
		 * its messages waited unread (conn_silent_ms). */
		c->last_rx_ms = uv_now(c->h.handle.loop);
		uv_read_start(&c->h.stream, on_alloc, on_read);
		watch_note_changed(c->h.handle.loop);
	}
}

void
conn_read_stop(conn *c)
{
	if (c->reading && !c->closing) {
		c->reading = 0;
		uv_read_stop(&c->h.stream);
		watch_note_changed(c->h.handle.loop);
	}
}

static void
on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
	conn *c = h->data;
	uint8_t *p;
	size_t len;
	if (rxbuf_space(&c->rx, &p, &len) != 0) {
		buf->base = NULL;
		buf->len = 0;
		return;
	}
	buf->base = (char *)p;
	buf->len = len;
}

/* The tracing machinery's own packets (event-space requests and
 * snapshots, clock-offset probes and their answers, event scopes' pulls
 * and shares) are recorded with
 * their own ops: statistics of the workload's messages leave them out,
 * and a front-end collecting shipped event spaces would otherwise count
 * receives whose sends were never recorded (each sender had finished its
 * space before it sent). */
_Static_assert(WIRE_T_TRACE_DATA == WIRE_T_TRACE_REQ + 1 &&
    WIRE_T_SKEW_REQ == WIRE_T_TRACE_REQ + 2 &&
    WIRE_T_SKEW_RESULT == WIRE_T_TRACE_REQ + 5 &&
    WIRE_T_SCOPE_END == WIRE_T_TRACE_REQ + 8,
    "the tracing machinery's message types are one range");

static inline uint16_t
packet_op(const grove_packet *p, uint16_t op, uint16_t trace_op)
{
	uint16_t t = wire_packet_hdr(p)->type;
	return t >= WIRE_T_TRACE_REQ && t <= WIRE_T_SCOPE_END ? trace_op : op;
}

/* t_read: when the bytes were read; every packet of the read shares it
 * (one clock read per batch instead of one per packet). */
static void
parse_frames(conn *c, uint64_t t_read)
{
	while (!c->closing) {
		grove_packet *pkt = NULL;
		size_t n = 0;
		int rc = rxbuf_next(&c->rx, c->authed ? WIRE_MAX_FRAME :
		    AUTH_MAX_FRAME, &pkt, &n);
		if (rc == 0)
			return;
		if (rc < 0) {
			conn_close(c, GROVE_EPROTO, c->authed ? "malformed frame" :
			    "malformed or oversized frame before authentication");
			return;
		}
		c->rx_frames++;
		if (c->tc_recv.id)
			grove_trace_record(&c->tc_recv, packet_op(pkt,
			    GROVE_OP_RECV, GROVE_OP_TRACE_RECV), (int32_t)n,
			    t_read, t_read);
		c->ops->on_packet(c, pkt);
		grove_packet_unref(pkt);
	}
}

/* n bytes were read into the space rxbuf_space gave: frame them. */
static void
took_bytes(conn *c, size_t n)
{
	trace_ring_settle();
	uint64_t t0 = grove_trace_begin();
	rxbuf_commit(&c->rx, n);
	c->rx_bytes += (uint64_t)n;
	/* The loop read the clock when the poll returned: ms enough for the
	 * silence checks, and no clock read of our own per read. */
	c->last_rx_ms = uv_now(c->h.handle.loop);
	parse_frames(c, t0);
	/* An instant at the read: a second clock read per batch would cost
	 * more than the span says. */
	grove_trace_record(&c->tc_read, GROVE_OP_READ, (int32_t)n, t0, t0);
}

static void
on_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf)
{
	conn *c = s->data;
	if (nread == 0)
		return;
	if (nread < 0) {
		if (nread == UV_ENOBUFS)
			conn_close(c, GROVE_ENOMEM, "out of memory for a receive buffer");
		else if (nread == UV_EOF)
			conn_close(c, 0, "connection closed by peer");
		else
			conn_close(c, GROVE_ECLOSED, uv_strerror((int)nread));
		return;
	}
	took_bytes(c, (size_t)nread);
}

void
conn_read_rest(conn *c)
{
	int fd = -1;
	if (c->closing || uv_fileno(&c->h.handle, &fd) != 0)
		return;
	while (!c->closing) {
		/* Only what is there now: the descriptor may be blocking for
		 * all this knows, and another process may still hold the
		 * peer's end open. */
		struct pollfd pfd = {fd, POLLIN, 0};
		if (poll(&pfd, 1, 0) != 1 || !(pfd.revents & POLLIN))
			return;
		uint8_t *p;
		size_t len;
		if (rxbuf_space(&c->rx, &p, &len) != 0) {
			conn_close(c, GROVE_ENOMEM, "out of memory for a receive buffer");
			return;
		}
		ssize_t r = read(fd, p, len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return; /* EOF or an error: the caller closes the link */
		took_bytes(c, (size_t)r);
	}
}

/* Append to the write queue, taking over the caller's reference. */
static int
wq_push(conn *c, grove_packet *p)
{
	if (c->wq_n == c->wq_cap) {
		size_t nc = c->wq_cap ? c->wq_cap * 2 : 64;
		grove_packet **nw = realloc(c->wq, nc * sizeof *nw);
		if (!nw)
			return GROVE_ENOMEM;
		c->wq = nw;
		c->wq_cap = nc;
	}
	c->wq[c->wq_n++] = p;
	c->wq_bytes += grove_packet_size(p);
	return 0;
}

static int emu_hold(conn *c, grove_packet *p);

int
conn_send(conn *c, grove_packet *p)
{
	if (c->closing)
		return GROVE_ECLOSED;
	if (c->emu)
		return emu_hold(c, p);
	int rc = wq_push(c, grove_packet_ref(p));
	if (rc != 0)
		grove_packet_unref(p);
	return rc;
}

/* ---- link emulation ------------------------------------------------- */

struct conn_emu {
	/* A timerfd watched by the loop: libuv's own timers count whole
	 * milliseconds, which would make every frame up to a millisecond
	 * late (5% of a 20 ms link); a timerfd wakes the loop within the
	 * kernel's timer slack of the due time (tens of microseconds). */
	uv_poll_t poll;
	int tfd;
	int armed;         /* tfd set for the head's due time */
	conn *c;
	emu_line line;
	emu_queue q;
};

static void emu_on_due(uv_poll_t *h, int status, int events);

/* Set the timerfd to the head's due time (same clock as uv_hrtime:
 * CLOCK_MONOTONIC); stop watching it when nothing is held. */
static int
emu_arm(struct conn_emu *e)
{
	uint64_t due = emu_queue_next_due(&e->q);
	if (due == UINT64_MAX) {
		if (e->armed) {
			uv_poll_stop(&e->poll);
			watch_note_changed(e->poll.loop);
		}
		e->armed = 0;
		return 0;
	}
	struct itimerspec its = {{0, 0}, {(time_t)(due / 1000000000u),
	    (long)(due % 1000000000u)}};
	/* 0 would disarm: a due time of 0 is long past anyway. */
	if (!due)
		its.it_value.tv_nsec = 1;
	if (timerfd_settime(e->tfd, TFD_TIMER_ABSTIME, &its, NULL) != 0 ||
	    (!e->armed && uv_poll_start(&e->poll, UV_READABLE, emu_on_due) != 0))
		return GROVE_ESYS;
	if (!e->armed)
		watch_note_changed(e->poll.loop);
	e->armed = 1;
	return 0;
}

static int
emu_hold(conn *c, grove_packet *p)
{
	struct conn_emu *e = c->emu;
	uint64_t due = emu_schedule(&e->line, uv_hrtime(), grove_packet_size(p));
	int was_empty = e->q.n == 0;
	int rc = emu_queue_push(&e->q, grove_packet_ref(p), due);
	if (rc != 0) {
		grove_packet_unref(p);
		return rc;
	}
	c->held_bytes = e->q.bytes;
	/* Due times never decrease: only a new head needs the timer.  (A
	 * failure here is a send error; the frame is dropped at close.) */
	return was_empty ? emu_arm(e) : 0;
}

static void
emu_on_due(uv_poll_t *h, int status, int events)
{
	struct conn_emu *e = h->data;
	conn *c = e->c;
	uint64_t expirations;
	/* Reading clears readiness; EAGAIN (nothing expired) is harmless. */
	ssize_t r = read(e->tfd, &expirations, sizeof expirations);
	(void)r;
	uint64_t now = uv_hrtime();
	grove_packet *p;
	while ((p = emu_queue_pop_due(&e->q, now))) {
		if (wq_push(c, p) != 0) {
			grove_packet_unref(p);
			c->held_bytes = e->q.bytes;
			conn_close(c, GROVE_ENOMEM, "out of memory");
			return;
		}
	}
	c->held_bytes = e->q.bytes;
	conn_flush(c);
	if (c->closing)
		return;
	if (emu_arm(e) != 0) {
		conn_close(c, GROVE_ESYS, "link emulator: cannot set its timer");
		return;
	}
	/* Producers stopped by held bytes resume here: a frame written at
	 * once never reaches on_write. */
	if (conn_queued(c) < CONN_LWM && c->ops->on_drain)
		c->ops->on_drain(c);
}

static void
emu_on_closed(uv_handle_t *h)
{
	struct conn_emu *e = h->data;
	close(e->tfd);
	free(e);
}

/* Each emulated link costs a descriptor beyond what a node reserved for
 * its children: when they run out, take more of the hard limit. */
static int
raise_nofile(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur >= rl.rlim_max)
		return 0;
	rlim_t want = rl.rlim_cur * 2;
	rl.rlim_cur = want > rl.rlim_max || want < rl.rlim_cur ? rl.rlim_max
	    : want;
	return setrlimit(RLIMIT_NOFILE, &rl) == 0;
}

int
conn_emulate(conn *c, const grove_link_params *p)
{
	if (c->emu)
		return GROVE_EINVAL;
	emu_line line;
	int rc = emu_line_init(&line, p);
	if (rc != 0 || emu_params_off(p))
		return rc;
	struct conn_emu *e = calloc(1, sizeof *e);
	if (!e)
		return GROVE_ENOMEM;
	e->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (e->tfd < 0 && errno == EMFILE && raise_nofile())
		e->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK |
		    TFD_CLOEXEC);
	if (e->tfd < 0 || uv_poll_init(c->h.handle.loop, &e->poll, e->tfd) != 0) {
		if (e->tfd >= 0)
			close(e->tfd);
		free(e);
		return GROVE_ESYS;
	}
	e->poll.data = e;
	e->c = c;
	e->line = line;
	c->emu = e;
	return 0;
}

uint64_t
conn_unsent_ns(const conn *c, uint64_t now)
{
	/* An emulated line has sent a frame at its departure end; the frame
	 * is then on the emulated wire (held for the latency) or already
	 * handed on to the kernel. */
	if (c->emu)
		return c->emu->line.busy_until > now ?
		    c->emu->line.busy_until - now : 0;
	return c->wq_bytes + c->inflight_bytes ? 1 : 0;
}

int
conn_emulate_map(conn *c, const grove_cluster_map *m, uint32_t from,
    uint32_t to)
{
	grove_link_params lp;
	if (!m || grove_cluster_map_link(m, from, to, &lp) == GROVE_LINK_NONE)
		return 0;
	return conn_emulate(c, &lp);
}

static void
on_write(uv_write_t *req, int status)
{
	write_req *wr = (write_req *)req;
	conn *c = wr->c;
	for (size_t i = 0; i < wr->n; i++)
		grove_packet_unref(wr->pkts[i]);
	c->inflight_bytes -= wr->bytes;
	c->in_write = 0;
	if (status >= 0)
		c->tx_bytes += wr->bytes;
	free(wr);
	if (c->closing)
		return;
	if (status < 0) {
		conn_close(c, GROVE_ECLOSED, uv_strerror(status));
		return;
	}
	if (c->wq_n)
		conn_flush(c);
	if (conn_queued(c) < CONN_LWM && c->ops->on_drain)
		c->ops->on_drain(c);
}

uint64_t
conn_bytes_sent(const conn *c)
{
	uint64_t b = c->tx_bytes;
	/* One write request at a time (in_write): libuv's queue holds what
	 * is left of it, and shrinks as the socket takes parts of it. */
	if (c->in_write && c->ws) {
		size_t left = uv_stream_get_write_queue_size(c->ws);
		if (left < c->inflight_bytes)
			b += c->inflight_bytes - left;
	}
	return b;
}

int
conn_flush(conn *c)
{
	/* The hint is for this call only, whatever it does. */
	uint64_t hint = c->t_flush_start;
	c->t_flush_start = 0;
	if (c->closing)
		return GROVE_ECLOSED;
	while (c->wq_n && !c->in_write) {
		size_t n = c->wq_n < MAX_IOV ? c->wq_n : MAX_IOV;
		uv_buf_t iov[MAX_IOV];
		size_t total = 0;
		for (size_t i = 0; i < n; i++) {
			size_t len;
			iov[i].base = (char *)wire_packet_bytes(c->wq[i], &len);
			iov[i].len = len;
			total += len;
		}
		trace_ring_settle();
		uint64_t t0 = hint ? hint : grove_trace_begin();
		hint = 0;
		int w = uv_try_write(c->ws, iov, (unsigned)n);
		if (w < 0 && w != UV_EAGAIN) {
			conn_close(c, GROVE_ECLOSED, uv_strerror(w));
			return GROVE_ECLOSED;
		}
		size_t done = w > 0 ? (size_t)w : 0;
		uint64_t t1 = grove_trace_begin();
		c->t_flush_end = t1;
		/* Handshake frames go out before the link has collectors. */
		if (c->tc_send.id) {
			grove_trace_record(&c->tc_writev, GROVE_OP_WRITEV,
			    (int32_t)done, t0, t1);
			for (size_t i = 0; i < n; i++)
				grove_trace_record(&c->tc_send,
				    packet_op(c->wq[i], GROVE_OP_SEND,
				    GROVE_OP_TRACE_SEND), (int32_t)iov[i].len,
				    t0, t1);
		}
		c->tx_frames += n;
		c->tx_bytes += done;
		/* Packets fully written are released; the rest goes to a
		 * uv_write that keeps them alive until it completes. */
		size_t k = 0;
		while (k < n && done >= iov[k].len) {
			done -= iov[k].len;
			k++;
		}
		for (size_t i = 0; i < k; i++)
			grove_packet_unref(c->wq[i]);
		if (k < n) {
			size_t rest = n - k;
			write_req *wr = malloc(sizeof *wr + rest * sizeof(grove_packet *));
			if (!wr) {
				conn_close(c, GROVE_ENOMEM, "out of memory");
				return GROVE_ENOMEM;
			}
			wr->c = c;
			wr->n = rest;
			wr->bytes = 0;
			iov[k].base += done;
			iov[k].len -= (unsigned)done;
			for (size_t i = 0; i < rest; i++) {
				wr->pkts[i] = c->wq[k + i];
				wr->bytes += iov[k + i].len;
			}
			/* What the socket did not take waits for it to become
			 * writable: a watcher change. */
			watch_note_changed(c->ws->loop);
			int rc = uv_write(&wr->req, c->ws, iov + k,
			    (unsigned)rest, on_write);
			if (rc != 0) {
				for (size_t i = 0; i < rest; i++)
					grove_packet_unref(wr->pkts[i]);
				free(wr);
				memmove(c->wq, c->wq + n, (c->wq_n - n) * sizeof *c->wq);
				c->wq_n -= n;
				conn_close(c, GROVE_ECLOSED, uv_strerror(rc));
				return GROVE_ECLOSED;
			}
			c->in_write = 1;
			c->inflight_bytes += wr->bytes;
		}
		c->wq_bytes -= total;
		if (c->wq_n > n)
			memmove(c->wq, c->wq + n, (c->wq_n - n) * sizeof *c->wq);
		c->wq_n -= n;
	}
	return 0;
}

/* The loop is done with one of c's handles; c goes with the last. */
static void
conn_handle_closed(uv_handle_t *h)
{
	conn *c = h->data;
	if (--c->open_handles > 0)
		return;
	rxbuf_fini(&c->rx);
	free(c->wq);
	free(c);
}

void
conn_close(conn *c, int err, const char *why)
{
	if (c->closing)
		return;
	c->closing = 1;
	for (size_t i = 0; i < c->wq_n; i++)
		grove_packet_unref(c->wq[i]);
	c->wq_n = 0;
	c->wq_bytes = 0;
	if (c->emu) {
		emu_queue_fini(&c->emu->q);
		c->held_bytes = 0;
		uv_close((uv_handle_t *)&c->emu->poll, emu_on_closed);
		c->emu = NULL;
	}
	/* Pending uv_writes complete with UV_ECANCELED and free themselves. */
	uv_close(&c->h.handle, conn_handle_closed);
	if (c->split)
		uv_close((uv_handle_t *)&c->wpipe, conn_handle_closed);
	c->ops->on_close(c, err, why);
}

void
conn_trace_register(conn *c, const char *send_where, const char *recv_where)
{
	grove_trace_collector_register(&c->tc_send, "link.send", "net",
	    send_where, "after:queue");
	grove_trace_collector_register(&c->tc_writev, "link.writev", "net",
	    send_where, "after:batch");
	grove_trace_collector_register(&c->tc_recv, "link.recv", "net",
	    recv_where, "after:read");
	grove_trace_collector_register(&c->tc_read, "link.read", "net",
	    recv_where, "before:dispatch");
}

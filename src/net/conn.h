/* A framed, batched, bounded connection on a libuv loop (internal).
 *
 * Receiving: bytes land in reference-counted chunks; every complete frame
 * becomes a packet that points into its chunk (no copy) and is handed to
 * on_packet.  Sending: conn_send() queues a packet reference; conn_flush()
 * hands everything queued to the kernel in one writev (uv_try_write, and
 * uv_write for what the socket did not take).  queued_bytes() counts what
 * is not yet in the kernel, so owners can push back on their producers
 * (conn_over_limit / on_drain).
 */
#ifndef GROVE_CONN_H
#define GROVE_CONN_H

#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "core/buf.h"
#include "grove/cluster.h"
#include "grove/packet.h"
#include "grove/trace.h"
#include "net/rxbuf.h"

typedef struct conn conn;

typedef struct conn_ops {
	/* A complete frame arrived (the conn lends p; ref it to keep it). */
	void (*on_packet)(conn *c, grove_packet *p);
	/* The connection is closing (EOF, error, protocol error, conn_close);
	 * err says why (0: orderly EOF).  Called once, synchronously from
	 * conn_close; the memory is freed later by the loop, so the owner must
	 * drop its pointer here and not use it afterwards. */
	void (*on_close)(conn *c, int err, const char *why);
	/* Queued bytes fell below the low-water mark. */
	void (*on_drain)(conn *c);
} conn_ops;

struct conn {
	/* TCP between hosts, a Unix socket between processes of one host
	 * (about half the kernel cost per message), or, between a parent and
	 * a child it started on its own host, two pipes: h reads one, wpipe
	 * writes the other (a pipe costs the kernel about a third of what a
	 * Unix socket does per message here). */
	union {
		uv_tcp_t tcp;
		uv_pipe_t pipe;
		uv_stream_t stream;
		uv_handle_t handle;
	} h;
	uv_pipe_t wpipe;    /* the write side of a pipe pair (split) */
	uv_stream_t *ws;    /* where writes go: &h.stream, or &wpipe */
	int split;          /* 1: h reads, wpipe writes */
	int open_handles;   /* handles not yet closed by the loop */
	const conn_ops *ops;
	void *owner;      /* the node / be that owns this conn */
	long tag;         /* owner's index (child slot, -1 parent) */
	int closing;
	int reading;
	int authed;       /* frames beyond AUTH_MAX_FRAME only once authed */
	char peer[64];    /* "node 12" / "127.0.0.1:4711" for messages */

	/* receive side */
	rxbuf rx;
	uint64_t last_rx_ms;

	/* send side */
	grove_packet **wq;
	size_t wq_n, wq_cap;
	size_t wq_bytes;      /* queued, not yet given to the kernel */
	size_t inflight_bytes; /* given to uv_write, not yet completed */
	int in_write;
	int dirty;            /* on the owner's flush list */
	conn *next_dirty;
	/* Link emulation (NULL: off, the only cost is one branch per send):
	 * frames wait here for their due time before they are queued. */
	struct conn_emu *emu;
	size_t held_bytes;    /* held by the emulator, counted as queued */

	/* Clock reads are the cost of a tuple: a caller that has just read
	 * the clock passes it as the start of the next flush (t_flush_start),
	 * and reads the flush's end back (t_flush_end) instead of reading the
	 * clock again. */
	uint64_t t_flush_start, t_flush_end;
	/* collectors: per-packet send/recv and per-batch writev/read */
	grove_trace_collector tc_send, tc_recv, tc_writev, tc_read;
	/* Bytes read, and bytes the socket took (written at once or later
	 * by the loop). */
	uint64_t rx_frames, tx_frames, rx_bytes, tx_bytes;
};

/* Limits: a link holds at most CONN_HWM bytes before its producers wait,
 * and resumes them below CONN_LWM. */
#define CONN_HWM (8u << 20)
#define CONN_LWM (2u << 20)

/* Wrap an accepted/connected socket fd, or one end of a pipe (a link
 * in one direction).  Starts reading. */
int conn_open_fd(uv_loop_t *loop, int fd, const conn_ops *ops, void *owner,
    long tag, conn **out);
int conn_accept(uv_stream_t *server, const conn_ops *ops, void *owner,
    conn **out);
/* A link over two pipes: bytes arrive on rfd and leave on wfd.  Takes
 * both descriptors, also when it fails.  Starts reading. */
int conn_open_pipes(uv_loop_t *loop, int rfd, int wfd, const conn_ops *ops,
    void *owner, long tag, conn **out);

void conn_read_start(conn *c);
void conn_read_stop(conn *c);
/* How long the peer has been silent at now (ms, the loop's clock): 0 while
 * this side has stopped reading for back-pressure, since the peer's
 * heartbeats then wait unread behind its data; counted again from the
 * moment reading restarts. */
static inline uint64_t
conn_silent_ms(const conn *c, uint64_t now)
{
	return c->reading && now > c->last_rx_ms ? now - c->last_rx_ms : 0;
}

/* Queue a packet (takes a new reference).  Returns GROVE_ECLOSED when the
 * conn is closing. */
int conn_send(conn *c, grove_packet *p);
/* Write everything queued now (one writev).  */
int conn_flush(conn *c);
/* Bytes sent and not yet in the kernel.  Inline: the owners' pressure
 * checks ask it of every link on every loop iteration. */
static inline size_t
conn_queued(const conn *c)
{
	return c->wq_bytes + c->inflight_bytes + c->held_bytes;
}

/* Bytes the socket has taken so far, including those of a write still
 * in progress: what a leaving process watches to see a large write
 * (an event space shipped home) still moving (net/exit_wait.h). */
uint64_t conn_bytes_sent(const conn *c);

/* 1 while the link emulator holds frames of c for their due time: they
 * leave then without the peer's help (a leaving process counts the link
 * as moving). */
static inline int
conn_emu_holding(const conn *c)
{
	return c->held_bytes > 0;
}

/* Emulate a slower link on this conn's sending side (see net/emu.h):
 * every frame sent from now on waits for latency + size/bandwidth behind
 * the frames before it.  Parameters that change nothing leave the conn
 * as it is.  GROVE_EINVAL for bad parameters or a second call. */
int conn_emulate(conn *c, const grove_link_params *p);
/* The same for the link from node `from` (this process) to node `to`
 * as a cluster map says (m may be NULL: nothing to do). */
int conn_emulate_map(conn *c, const grove_cluster_map *m, uint32_t from,
    uint32_t to);
/* 0 when everything sent on c has left this process: handed to the
 * kernel, or on an emulated link, sent by the emulated line (its latency
 * may still be running).  Else how long until then, ns (at least 1; a
 * guess for a link that waits for the kernel).  now: uv_hrtime(). */
uint64_t conn_unsent_ns(const conn *c, uint64_t now);
static inline int
conn_over_limit(const conn *c)
{
	return conn_queued(c) > CONN_HWM;
}

/* Reads and hands to on_packet what the peer has already sent, whether
 * or not reads are stopped, without waiting for more: for a peer known to
 * have died whose link may never reach EOF (a process it forked holds its
 * end).  May close c (a bad frame).  The caller closes it after. */
void conn_read_rest(conn *c);

/* Close: queued data is dropped; on_close(c, err, why) runs later from the
 * loop.  Safe to call more than once. */
void conn_close(conn *c, int err, const char *why);

/* Give each link collector a name "where" (e.g. "link:0->3"). */
void conn_trace_register(conn *c, const char *send_where,
    const char *recv_where);

#endif

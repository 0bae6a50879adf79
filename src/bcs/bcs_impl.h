/* BCS core primitives: the state of a grove_bcs, shared by the files of src/bcs/.
 *
 *   open.c      options, opening the manager and the nodes (HELLO, the
 *               address exchange), close, getters, errors
 *   addr.c      a node's listening socket and its address
 *   link.c      direct links between nodes: connect, accept, frames
 *   link_auth.c the link handshake (proofs keyed by the machine's key)
 *   mgr.c       the manager's engine: its streams, losses, waiting
 *   node.c      a node's engine: its back-end, links, waiting
 *   dispatch.c  what either role does with each message
 *   mem.c       global memory, variables, process_vm_readv/writev
 *   events.c    events and Test-Event
 *   xfer.c      Xfer-And-Signal
 *   caw.c       Compare-And-Write
 *   wire.c      the messages' encoding
 */
#ifndef GROVE_BCS_IMPL_H
#define GROVE_BCS_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bcs/wire.h"
#include "grove/bcs.h"

enum bcs_role { BCS_ROLE_MANAGER = 1, BCS_ROLE_NODE = 2 };

/* An event: signals not yet consumed, and failed signals with the error
 * and message of the last one. */
typedef struct bcs_event {
	uint64_t signals;
	uint32_t failures;
	int fail_rc;
	char fail_why[256];
} bcs_event;

/* A direct link between two nodes (link.c).  Each node opens its own
 * links to the nodes it sends to; the acknowledgements of its transfers
 * come back on them.  A link it accepts carries another node's
 * transfers to it. */
enum bcs_link_state {
	BCS_LINK_CONNECTING = 1, /* connect in progress (out) */
	BCS_LINK_HELLO,          /* out: hello sent, waiting for challenge;
	                            in: waiting for hello */
	BCS_LINK_PROOF,          /* in: challenge sent, waiting for proof */
	BCS_LINK_UP,
	BCS_LINK_DEAD,
};

typedef struct bcs_outbuf {
	struct bcs_outbuf *next;
	size_t len, off;
	uint8_t data[]; /* frame header, blob, payload */
} bcs_outbuf;

typedef struct bcs_link {
	int fd;
	int state;
	int outgoing;        /* opened by this node */
	uint32_t peer;       /* the other node (in: once its hello said) */
	uint8_t nonce_mine[BCS_NONCE_LEN], nonce_peer[BCS_NONCE_LEN];
	bcs_outbuf *out_head, *out_tail;
	bcs_outbuf *held;    /* queued before the handshake ended (newest
	                        first) */
	size_t out_bytes;
	int want_write;      /* registered for EPOLLOUT */
	/* Reading: the frame header, then blob + payload in rbuf. */
	uint8_t rhdr[BCS_FRAME_HDR];
	size_t rhdr_got;
	uint8_t *rbuf;
	size_t rneed, rgot;
	uint32_t rblob;
	struct bcs_link *next; /* accepted links of a node */
} bcs_link;

/* What this handle knows of a node. */
typedef struct bcs_peer {
	char addr[64];
	uint16_t port;
	int have_addr;       /* manager, open: its ADDR arrived */
	int lost;            /* lost (or left): final */
	int left;            /* closed its handle (BYE), not lost */
	char why[256];       /* why lost or left */
	bcs_link *out;       /* node role: my link to it */
} bcs_peer;

/* An Xfer-And-Signal waiting for acknowledgements. */
typedef struct bcs_xfer_wait {
	struct bcs_xfer_wait *next;
	uint64_t id;
	int32_t local_event;
	uint32_t remaining;    /* acknowledgements still due */
	uint8_t *waiting;      /* per node (nodes bytes): 1 = ack due;
	                          NULL for a reduced (to-all) one */
	int reduced;           /* answered by one reduction wave */
	int rc;                /* first failure */
	char why[256];
} bcs_xfer_wait;

/* A Compare-And-Write the manager runs or has queued. */
typedef struct bcs_caw_op {
	struct bcs_caw_op *next;
	uint32_t origin;       /* GROVE_BCS_MANAGER or the requesting node */
	uint64_t rid;          /* the origin's request id */
	uint64_t qid;          /* the query's id once started */
	grove_bcs_cw cw;       /* cw.on.nodes points at set_ids */
	uint32_t *set_ids;
	int all;               /* on every node */
	int started, done, abandoned;
	int rc;                /* result: 1, 0 or an error */
	int64_t vmin, vmax;    /* the variable's range over the set */
	char why[256];
} bcs_caw_op;

/* A reply wave the manager expects on its reduction stream, in the
 * order of the multicasts that asked for it. */
typedef struct bcs_wave_wait {
	uint64_t id;
	int is_caw;
} bcs_wave_wait;

struct grove_bcs {
	int role;
	grove_net *net;          /* manager */
	grove_be *be;            /* node */
	grove_stream *sc, *sd;   /* manager: reduction (down + min up) and
	                            data (dont_wait up) streams */
	uint32_t sc_id, sd_id;
	uint32_t self, nodes;
	uint64_t machine;
	uint8_t key[BCS_KEY_LEN];
	int open_done;
	int timeout_ms;          /* open's; also the default for internals */

	/* memory */
	uint8_t *gmem;
	size_t gmem_bytes;
	int64_t *vars;
	uint32_t nvars;
	bcs_event *events;
	uint32_t nevents;
	/* Called after each signal of an event, inside the dispatch of the
	 * message that raised it (internal; the strobe receiver runs its
	 * microphase from here, so that a Compare-And-Write query that
	 * follows a strobe on the manager's ordered stream is answered
	 * after the microphase, without a message of its own to say it is
	 * done).  It must not call the grove_bcs_* functions. */
	void (*on_signal)(grove_bcs *b, int32_t ev, void *arg);
	void *on_signal_arg;

	bcs_peer *peers;         /* [nodes] */
	uint32_t nlost;          /* nodes lost or left */
	uint32_t first_lost;     /* the first of them (UINT32_MAX: none) */
	int manager_gone;        /* node: the manager closed or is gone */
	char manager_why[256];

	uint64_t next_id;
	bcs_xfer_wait *xfers;

	/* manager */
	bcs_caw_op *caw_head, *caw_tail; /* queue; head may be in flight */
	bcs_wave_wait *waves;    /* ring of expected reply waves */
	size_t wave_head, wave_n, wave_cap;
	uint32_t seen_lost;      /* net's lost count at the last scan */
	uint32_t addrs_got;      /* open: ADDR messages taken */
	int open_rc;             /* open: a node's refusal */

	/* node */
	int ep;                  /* epoll: be fd, listen fd, links */
	int be_fd;
	int lfd;
	bcs_link *accepted;
	bcs_link *dead;          /* closed links, freed after the epoll
	                            batch that may still name them */
	uint64_t caw_rid_done;   /* the request whose result arrived */
	int caw_result;
	char caw_why[256];
	uint64_t caw_waiting;    /* request id the node waits for (0 none) */

	uint64_t dropped;        /* foreign packets dropped */
	char err[512];
};

/* ---- open.c ---------------------------------------------------------- */
void bcs_set_error(grove_bcs *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* "node 3" or "the manager". */
const char *bcs_node_name(uint32_t node, char *buf, size_t cap);
int bcs_alloc_memory(grove_bcs *b, uint64_t gmem, uint32_t nvars,
    uint32_t nevents);

/* ---- engines: one progress pass, waiting ------------------------------ */
/* Handle what has arrived, without blocking (either role). */
int bcs_poll(grove_bcs *b);
/* Block until something may have arrived, at most ms (< 0: no limit). */
void bcs_block(grove_bcs *b, int ms);
/* Milliseconds on the monotonic clock; left of a deadline (-1 none). */
uint64_t bcs_now_ms(void);
int bcs_left(uint64_t deadline, int timeout_ms);

/* mgr.c */
int bcs_mgr_poll(grove_bcs *b);
void bcs_mgr_block(grove_bcs *b, int ms);
/* Multicast a message on the reduction stream (c) or send it to one
 * node point to point. */
int bcs_mgr_multicast(grove_bcs *b, const bcs_msg *m,
    const bcs_wire_tables *t, const void *payload, size_t plen);
int bcs_mgr_send_to(grove_bcs *b, uint32_t node, const bcs_msg *m,
    const bcs_wire_tables *t, const void *payload, size_t plen);
/* Note that the next reply wave answers message id (caw or xfer). */
int bcs_mgr_expect_wave(grove_bcs *b, uint64_t id, int is_caw);
/* Mark a node lost (both roles): fails what waits for it. */
void bcs_node_lost(grove_bcs *b, uint32_t node, int left, const char *why);

/* node.c */
int bcs_node_poll(grove_bcs *b);
void bcs_node_block(grove_bcs *b, int ms);
int bcs_node_send_up(grove_bcs *b, uint32_t stream, const bcs_msg *m,
    const bcs_wire_tables *t, const void *payload, size_t plen);
int bcs_node_epoll_add(grove_bcs *b, int fd, void *ptr, int out);
int bcs_node_epoll_mod(grove_bcs *b, int fd, void *ptr, int out);
void bcs_node_epoll_del(grove_bcs *b, int fd);
/* epoll data of the listening socket. */
void *bcs_listen_mark(void);
/* The manager is gone (its BYE, or the back-end's link closed). */
void bcs_manager_gone(grove_bcs *b, const char *why);

/* dispatch.c: a decoded message from `from` (a node, or the manager);
 * link: the direct link it came on (NULL: the tree). */
void bcs_dispatch(grove_bcs *b, uint32_t from, const bcs_msg *m,
    bcs_link *link);
/* A reply wave on the manager's reduction stream. */
void bcs_mgr_reply_wave(grove_bcs *b, grove_packet *p, int rc);

/* addr.c */
int bcs_listen(grove_bcs *b, const char *parent_host, char *addr,
    size_t addrcap, uint16_t *port);

/* link.c */
int bcs_link_send(grove_bcs *b, uint32_t node, const bcs_msg *m,
    const bcs_wire_tables *t, const void *payload, size_t plen);
int bcs_link_reply(grove_bcs *b, bcs_link *l, const bcs_msg *m);
void bcs_link_accept(grove_bcs *b);
void bcs_link_io(grove_bcs *b, bcs_link *l, uint32_t events);
void bcs_link_close(grove_bcs *b, bcs_link *l);
void bcs_links_free(grove_bcs *b);
/* Free the links closed since the last call. */
void bcs_links_reap(grove_bcs *b);
/* Queue a frame on l (and try to write it). */
int bcs_link_queue(grove_bcs *b, bcs_link *l, const bcs_msg *m,
    const bcs_wire_tables *t, const void *payload, size_t plen);

/* link_auth.c */
void bcs_link_mac(const grove_bcs *b, int acceptor, uint32_t from,
    uint32_t to, const uint8_t nonce_from[BCS_NONCE_LEN],
    const uint8_t nonce_to[BCS_NONCE_LEN], uint8_t mac[BCS_MAC_LEN]);
int bcs_link_mac_ok(const uint8_t a[BCS_MAC_LEN],
    const uint8_t b[BCS_MAC_LEN]);
void bcs_random(void *buf, size_t n);

/* mem.c */
/* Put len bytes at dst_addr of this node's global memory (dst_pid 0) or
 * of process dst_pid: 0, or an error with why. */
int bcs_mem_put(grove_bcs *b, int32_t dst_pid, uint64_t dst_addr,
    const void *data, size_t len, char *why, size_t whycap);
/* Read the source of a transfer into buf. */
int bcs_mem_get(grove_bcs *b, int32_t src_pid, uint64_t src_addr, void *buf,
    size_t len, char *why, size_t whycap);

/* events.c */
void bcs_event_signal(grove_bcs *b, int32_t ev);
void bcs_event_fail(grove_bcs *b, int32_t ev, int rc, const char *why);

/* xfer.c */
/* An arriving transfer: applied here, answered as its ack mode says.
 * Returns the status (0 or an error) with why. */
int bcs_xfer_apply(grove_bcs *b, const bcs_msg *m, char *why, size_t cap);
void bcs_xfer_acked(grove_bcs *b, uint64_t id, uint32_t from, int status,
    const char *why);
/* A reply wave for transfer id: status 0 or an error (rc of a failed
 * wave, or the worst node's), node the lowest that failed; miss: the
 * members missing from the wave. */
void bcs_xfer_wave(grove_bcs *b, uint64_t id, int status, int64_t node,
    const grove_missing *miss, int nmiss, const char *why);
/* Fail every transfer still waiting for node. */
void bcs_xfers_node_lost(grove_bcs *b, uint32_t node, int rc,
    const char *why);

/* caw.c */
void bcs_caw_answer(grove_bcs *b, const bcs_msg *m);
void bcs_caw_write(grove_bcs *b, const bcs_msg *m);
void bcs_caw_request(grove_bcs *b, uint32_t from, const bcs_msg *m);
void bcs_caw_cancel(grove_bcs *b, uint32_t from, uint64_t rid);
void bcs_caw_result(grove_bcs *b, const bcs_msg *m);
void bcs_caw_wave(grove_bcs *b, uint64_t qid, int status, int64_t a,
    int64_t nb, const grove_missing *miss, int nmiss, const char *why);
/* Start the next queued Compare-And-Write when none is in flight. */
void bcs_caw_pump(grove_bcs *b);
void bcs_caw_free_all(grove_bcs *b);
/* Drop the queued requests of a node that is gone. */
void bcs_caw_node_gone(grove_bcs *b, uint32_t node);
/* Compare-And-Write with the variable's range over the set (the strobe
 * reads "done" and "more work" from one of them): vmin/vmax may be
 * NULL.  As grove_bcs_compare_and_write otherwise. */
int bcs_compare_and_write_range(grove_bcs *b, const grove_bcs_cw *cw,
    int timeout_ms, int64_t *vmin, int64_t *vmax);

/* Validation shared by the calls: a set's ids (every one < nodes, or
 * GROVE_BCS_MANAGER): 0 or GROVE_EINVAL / GROVE_ERANGE with the error. */
int bcs_check_set(grove_bcs *b, const grove_bcs_set *s, const char *what);
/* GROVE_ELOST / GROVE_ECLOSED (error set) when a member of s is gone. */
int bcs_check_alive(grove_bcs *b, const grove_bcs_set *s);

#endif

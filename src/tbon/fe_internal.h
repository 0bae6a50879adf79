/* Front-end internals shared by fe_*.c. */
#ifndef GROVE_FE_INTERNAL_H
#define GROVE_FE_INTERNAL_H

#include <sys/types.h>

#include "grove/network.h"
#include "net/boot.h"
#include "tbon/node.h"
#include "tbon/node_scope.h"
#include "tbon/pktq.h"
#include "tbon/waitfd.h"

struct grove_comm {
	grove_net *net;
	uint32_t *ranks; /* sorted, unique */
	size_t n;
	int owned_by_net;
};

struct grove_stream {
	grove_net *net;
	uint32_t id;
	pktq q;
	uint32_t *members;     /* its communicator's ranks, sorted */
	size_t n_members;
	size_t seg_setting;    /* grove_stream_set_segment_size (0: auto) */
	grove_partial partial; /* what a wave lacking members does */
	/* The note every packet of a whole wave carries (shared). */
	struct wave_note *whole;
	/* grove_stream_destroy is under way: it runs the loop (event
	 * callbacks) before it frees the stream, and a callback's destroy of
	 * the same stream leaves the freeing to it. */
	int destroying;
	struct grove_stream *next;
};

/* The control socket (fe_ctl.c). */
#define FE_CTL_MAX_CLIENTS 8
/* A client has this long to send its request line once it is accepted;
 * then it is closed, so idle connections cannot keep the slots from
 * `grove trace dump --collect` for long. */
#define FE_CTL_REQUEST_MS 2000
typedef enum fe_ctl_state {
	FE_CTL_FREE = 0,
	FE_CTL_READING,   /* reading the request line */
	FE_CTL_WAITING,   /* a collection will answer it */
	FE_CTL_CLOSING,
	FE_CTL_SCOPE,     /* an event scope's monitor, between pulls */
	FE_CTL_PULLING,   /* its pull is under way (fe_scope.c) */
} fe_ctl_state;

typedef struct fe_ctl_client {
	struct grove_net *net;
	int fd;
	fe_ctl_state state;
	uv_poll_t poll;
	char buf[128];
	size_t len;
	uint64_t accepted_ms; /* sockio_now_ms() at accept */
	/* An event scope's monitor (fe_scope.c): its scope (0: none), what
	 * it selects, the pull under way and when the front-end stops
	 * waiting for it, and the answer still being written. */
	uint32_t scope, pull;
	struct node_scope_params sp;
	uint64_t pull_deadline_ms;
	uint8_t *out;
	size_t out_len, out_off;
} fe_ctl_client;

typedef struct fe_ctl {
	int open;
	int lfd;
	uv_poll_t lpoll;
	uv_timer_t timer;  /* deadline of a collection it started */
	uv_timer_t sweep;  /* closes clients silent for FE_CTL_REQUEST_MS */
	int collecting;    /* it started the collection under way */
	uv_timer_t scope_timer; /* deadlines of scope pulls (fe_scope.c) */
	uint32_t scope_next, pull_next; /* ids given so far */
	fe_ctl_client cl[FE_CTL_MAX_CLIENTS];
} fe_ctl;

struct fe_loading {
	const char *name;
	struct fe_loading *next;
};

/* What the FE knows of a BE rank.  A lost rank never comes back (its
 * parent refuses a second attach), so LOST is final. */
enum fe_be_state {
	FE_BE_PENDING = 0, /* attach mode: has not attached yet */
	FE_BE_UP = 1,
	FE_BE_LOST = 2,
};

/* An event queued for grove_net_next_event; told: it went to a callback. */
typedef struct fe_queued_event {
	grove_event ev;
	int told;
} fe_queued_event;

struct grove_net {
	node n;
	boot b;                /* settings handed to children */
	grove_topo *topo;      /* owned by n */
	char netid[40];
	char err[2048];
	uint32_t next_stream;
	uint32_t next_req;
	uint32_t next_seg_msg;  /* id of the next segmented multicast */
	struct seg_model *seg_model; /* grove_net_set_logp; NULL: none */
	grove_stream *streams;
	/* Streams freed by grove_stream_destroy so far: a call that held a
	 * stream across a wait (whose event callbacks may destroy it) looks
	 * for it in the list only when this moved. */
	uint64_t stream_frees;
	grove_comm all;
	pktq p2p;              /* point-to-point packets from BEs */
	uint64_t seq;          /* arrival numbers across all queues */
	size_t queued;         /* packets in all queues */
	/* Queued for grove_net_next_event.  Only events that did not go to a
	 * callback make grove_net_fd readable: a tool told by its callback
	 * must not find the descriptor ready for the copies.  ev_untold
	 * counts them. */
	fe_queued_event *events;
	size_t ev_head, ev_n, ev_cap;
	size_t ev_untold;
	grove_event_cb cb;
	void *cb_arg;
	/* Events the callback has yet to see, in order.  They are queued
	 * where they arise (inside libuv callbacks and filter runs, which
	 * still use the stream) and handed to the callback by
	 * fe_deliver_events once the loop pass is over. */
	grove_event *cb_events;
	size_t cb_head, cb_n, cb_cap;
	int delivering;        /* inside the callback: no nested delivery */
	int destroying;        /* grove_net_destroy under way: no callbacks */
	int send_wait_ms;      /* fe_wait_writable's wait_ms for a send
	                          (grove_net_opts.send_timeout_ms) */
	pid_t creator;         /* the process that created the network: a
	                          forked copy must not shut it down */
	int trace_joined;      /* holds a reference on the event space */
	/* Per BE rank, one of FE_BE_*; be_up and be_lost count the ranks
	 * up and lost.  The others (attach mode) may still attach: a wait
	 * that needs more than be_up plus those can never end. */
	uint8_t *be_state;
	uint32_t be_up, be_lost;
	/* Per topology node: 1 when a NODE_LOST named it while the network
	 * ran.  The exit-time collection names a lost process that left no
	 * event space as lost, not as one whose tracing was off. */
	uint8_t *node_lost;
	/* Per topology node: the node it hangs from now (its topology
	 * parent until a REPARENTED moved it; fe_reparent.c). */
	uint32_t *node_parent;
	waitfd wfd;
	uv_timer_t wait_timer;
	char connect_file[1024];
	uint32_t trace_req;      /* live collection in progress (request id) */
	uint32_t trace_answers, trace_copied;
	uint32_t trace_expect;   /* processes that will answer it */
	uint8_t *trace_pending;  /* per topology node: asked by the request
	                            and yet to answer (one answer each) */
	fe_ctl ctl;
	grove_trace_collector tc_api_send, tc_api_recv;
	struct trace_fe_offsets *trace_offsets; /* last clock offsets, for
	                                           shipped event spaces */
	/* Names whose last grove_net_load_filter failed (and was undone):
	 * a stream naming one gets a message that says so (fe_filters.c). */
	char **failed_filters;
	size_t n_failed_filters;
	/* Loads under way (grove_net_load_filter waits in the loop, and an
	 * event callback may create streams meanwhile): their names are not
	 * usable yet, since a failed load frees what it registered.  A list
	 * of entries on the loading calls' stacks. */
	struct fe_loading *loading;
};

/* 0 when a stream may name this filter as far as loads go; else
 * GROVE_EFILTER with the error set: its last load failed and was undone
 * (fe_filters.c). */
int fe_filter_usable(grove_net *net, const char *name);
void fe_filters_free(grove_net *net);

/* Queue an event for grove_net_next_event and the callback. */
void fe_event(grove_net *net, const grove_event *ev);
/* Hand queued events to the callback, in order.  Only where nothing up
 * the stack is inside the loop or holds a node stream: fe_settle does it
 * when the pass is over. */
void fe_deliver_events(grove_net *net);
void fe_update_waitfd(grove_net *net);
/* BE ranks that have neither attached nor been lost: in attach mode they
 * may still come (in spawn mode every rank is up from the start). */
uint32_t fe_be_pending(const grove_net *net);
/* A network the API may work on: created as far as starting its loop. */
int fe_net_usable(const grove_net *net);
/* Milliseconds left until deadline for a wait of timeout_ms (-1: none). */
int fe_deadline_left(uint64_t deadline, int timeout_ms);
/* Whether s (with this id: a new stream may reuse a freed address) is
 * still one of net's streams (callbacks run in waits may destroy it). */
int fe_stream_listed(const grove_net *net, const grove_stream *s,
    uint32_t id);
/* 0 while s (with this id) is listed and not being destroyed; else
 * GROVE_ECLOSED with the error text saying so.  For calls whose waits
 * run event callbacks, which may destroy the stream: frees is
 * net->stream_frees when the call last knew s was alive. */
int fe_stream_usable(grove_net *net, const grove_stream *s, uint32_t id,
    uint64_t frees);
/* The id for a new stream: the next of the counter that is neither 0
 * (point-to-point) nor a live stream's. */
uint32_t fe_stream_id_next(grove_net *net);
/* Run the network's loop for at most timeout_ms (and settle). */
void fe_run(grove_net *net, int timeout_ms);
/* Before a public call returns to a tool that polls grove_net_fd(): run
 * the loop without blocking until libuv's epoll set holds every watcher
 * started meanwhile (a new link, a write waiting for room), so that the
 * tool's poll wakes for them.  Free unless the tool has the descriptor
 * and a watcher changed.  fe_run does it; a public call that sends
 * calls it itself once the packet is queued. */
void fe_settle(grove_net *net);
/* Makes every queued event count for grove_net_fd again (the callback
 * was removed). */
void fe_untell_events(grove_net *net);
/* Back-pressure for senders, before they queue: waits until no child link
 * holds more than its limit, for at most wait_ms (< 0: as long as it
 * takes; 0: not at all).  0, or GROVE_EAGAIN (wait_ms 0) / GROVE_ETIMEDOUT with the
 * network's error naming the link that is full. */
int fe_wait_writable(grove_net *net, int wait_ms);
/* Send a packet down from the FE as it is (fe_api.c): on stream s, or
 * point-to-point with s NULL.  GROVE_ECLOSED when s is being destroyed or
 * the wait for room destroyed it (nothing queued).  t0 is the start of the
 * public send call (grove_trace_begin at its entry, before the packet was
 * packed): the call's api_send tuple spans [t0, return]. */
int fe_inject(grove_net *net, const grove_stream *s, grove_packet *p,
    uint64_t t0);
/* Send a DATA packet on a stream: whole, or in segments when it is large
 * (fe_segment.c); t0 as for fe_inject. */
int fe_stream_inject(grove_stream *s, grove_packet *p, uint64_t t0);
/* A send call begun at t0 gives up with rc before injecting: records its
 * api_send tuple with the error, and returns rc. */
int fe_send_failed(grove_net *net, int rc, uint64_t t0);
int fe_write_connect_file(grove_net *net);
/* Sends a live event-space request down the tree (sets trace_req,
 * trace_expect and trace_pending, and clears the answer counts). */
int fe_trace_request(grove_net *net);
/* Clock offsets for shipped event spaces (fe_trace_align.c): keep the
 * result of a grove_net_clock_skew; measure them (within budget_ms) when
 * event spaces will come from other hosts.  Returns the BEs measured (0
 * when not needed) or a grove_err. */
#define FE_TRACE_SKEW_MS 2000 /* at most this long, before collecting */
void fe_trace_offsets_store(grove_net *net, const grove_skew *sk, uint32_t n);
int fe_trace_offsets_measure(grove_net *net, int budget_ms);
/* At the exit-time collection: one line on stderr, whatever GROVE_LOG is,
 * naming the processes of the topology that left no event space in
 * /dev/shm ("be 0-3") and counting the threads that found no ring;
 * nothing when the trace is whole (fe_trace_missing.c).  own: the
 * front-end's event space, by the name it has (NULL: none). */
void fe_trace_missing_report(grove_net *net, const char *own);
/* Control socket: bind its name (as soon as the network id exists,
 * before the id is visible anywhere; says on failure why), unbind (a
 * bound socket never opened: a failed create), open (serve it, after the
 * network is up), close (before the loop goes), and the collection
 * hooks.  ctl.lfd is -1 when no socket is bound. */
int fe_ctl_bind(grove_net *net);
void fe_ctl_unbind(grove_net *net);
int fe_ctl_open(grove_net *net);
void fe_ctl_close(grove_net *net);
void fe_ctl_trace_progress(grove_net *net);
void fe_ctl_trace_finished(grove_net *net, int rc);
/* Between fe_ctl.c and fe_scope.c: a client's request line that may be
 * an event scope's ("scope ...", "pull ...", "detach"): 1 when it was
 * (answered or under way), 0 when not; the client closed or detached
 * (its scope ends at every node); its answer can be written further. */
int fe_scope_request(fe_ctl_client *c, const char *line);
void fe_scope_client_closed(fe_ctl_client *c);
void fe_scope_write(fe_ctl_client *c);
/* fe_ctl.c: closes a client after a last line (as every answer but a
 * scope's does). */
void fe_ctl_reply(fe_ctl_client *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void fe_ctl_client_close(fe_ctl_client *c);
/* The link emulator's cluster map (fe_clusters.c): into the node and the
 * children's bootstrap; 0 when there is none. */
int fe_load_clusters(grove_net *net, const grove_net_opts *o);
void fe_set_error(grove_net *net, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Re-parenting (fe_reparent.c): the parents table from the topology,
 * and a REPARENTED from below (GROVE_EV_REPARENTED). */
int fe_parents_init(grove_net *net);
void fe_reparented(grove_net *net, grove_packet *p);
/* The FE's end of a wave (fe_wave.c, node_hooks.wave): its packets are
 * queued for the tool with the wave's account, or the wave fails as the
 * stream's grove_partial says, as a marker in their place. */
void fe_wave(node *n, node_stream *ns, int32_t tag, int rc, flt_out *o,
    const wave_gaps *gaps);
/* A packet taken from a stream's queue that is a failed wave's marker:
 * sets the network's error to its message and returns its error (the
 * caller drops it); 0 for an ordinary packet. */
int fe_wave_failed(grove_net *net, const grove_packet *p);
/* Queue p (a reference the queue takes) on s for the tool. */
void fe_queue_packet(grove_net *net, grove_stream *s, grove_packet *p);
grove_stream *fe_stream_by_id(grove_net *net, uint32_t id);

#endif

/* Grove front-end API: create a tree network, talk to its back-ends.
 *
 * Threading: a grove_net is driven by the calls made on it (there is no
 * hidden thread); call it from one thread at a time.  Every blocking call
 * makes progress for the whole network, and grove_net_fd() lets a tool put
 * the network in its own poll loop.  Communication processes run their own
 * event loops, so a slow front-end never stalls the tree beyond the bounded
 * queues of its links.
 */
#ifndef GROVE_NETWORK_H
#define GROVE_NETWORK_H

#include <stddef.h>
#include <stdint.h>

#include "grove/cluster.h"
#include "grove/error.h"
#include "grove/packet.h"
#include "grove/wave.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct grove_net grove_net;
typedef struct grove_comm grove_comm;
typedef struct grove_stream grove_stream;

typedef enum grove_launch_mode {
	GROVE_LAUNCH_SPAWN = 0,  /* Grove starts CPs and BEs */
	GROVE_LAUNCH_ATTACH = 1, /* Grove starts CPs; BEs connect on their own */
} grove_launch_mode;

/* The link between a node and a child it starts on its own host. */
typedef enum grove_local_link {
	/* Pipes, unless $GROVE_LOCAL_LINK is "socket". */
	GROVE_LOCAL_LINK_DEFAULT = 0,
	/* Two pipes: a small message costs the kernel about a third of what
	 * it costs on a Unix socket (round trips of small messages). */
	GROVE_LOCAL_LINK_PIPE,
	/* The node's Unix socket: moves large messages 2-4 times faster than
	 * a pipe's 64 KiB buffer does (bulk transfers of 64 KiB and more). */
	GROVE_LOCAL_LINK_SOCKET,
} grove_local_link;

/* Where the processes a network starts on a host may run. */
typedef enum grove_cpu_bind {
	/* $GROVE_CPU_BIND=subtree turns binding on, else as NONE. */
	GROVE_CPU_BIND_DEFAULT = 0,
	/* On every CPU their parent may use (the operating system places
	 * them). */
	GROVE_CPU_BIND_NONE,
	/* Every node divides the CPUs it may use among the children it
	 * starts on its own host, in topology order (contiguous runs, or
	 * one CPU per child when there are more children than CPUs), and
	 * each child divides its share among its own children: a subtree
	 * keeps to its CPUs, so a CP and its children wake each other on
	 * the same core.  The tool's own process is never moved; children
	 * on other hosts start unbound and divide their host's CPUs. */
	GROVE_CPU_BIND_SUBTREE,
} grove_cpu_bind;

typedef struct grove_net_opts {
	/* Topology: a spec ("kary:8") with `backends`, or a file. */
	const char *topology;       /* default "flat" */
	const char *topology_file;  /* MRNet-format file; overrides topology */
	uint32_t backends;          /* BE count for generated topologies */
	const char *hosts_file;     /* host list; NULL: everything local */
	grove_launch_mode mode;
	/* Spawn mode: the back-end program and its arguments, NULL-terminated.
	 * be_argv[0] is not passed: the BE's argv[0] is be_exe. */
	const char *be_exe;
	char *const *be_argv;
	const char *commnode_exe;   /* default: beside the grove library, or
	                               $GROVE_COMMNODE, or PATH */
	const char *rsh;            /* remote shell; default $GROVE_RSH or "ssh".
	                               Split on blanks into words (no quoting),
	                               so "ssh -o BatchMode=yes" works */
	const char *bind_addr;      /* listen address; default 127.0.0.1 when
	                               every host is local, else 0.0.0.0 */
	int timeout_ms;             /* create timeout; default 30000 */
	/* Attach mode: where to write the connection file (mode 0600: it
	 * holds the network secret).  NULL: none (use grove_net_attach_info). */
	const char *connect_file;
	/* Heartbeat interval for CP links, ms (0: default 1000; a peer silent
	 * for 5 intervals is declared lost); also how often the FE looks for
	 * children of its own that exited. */
	int heartbeat_ms;
	/* Link emulation (docs/emulation.md): a cluster map, programmatic
	 * (copied; wins) or a file; NULL for both: the file named by
	 * $GROVE_CLUSTER_MAP, else no emulation. */
	const struct grove_cluster_map *clusters;
	const char *cluster_map_file;
	/* Links to children on their parent's host, for the whole network
	 * (attached back-ends always use the Unix socket). */
	grove_local_link local_link;
	/* 1: the CPs run under SCHED_BATCH, so a CP woken by a child's
	 * message does not preempt the process running on that core: it
	 * collects more of a wave per wake-up.  Faster round trips when the
	 * tree's own processes share the cores; up to a scheduler time slice
	 * (a few ms) later forwarding when they share them with busy
	 * applications.  0: $GROVE_CP_SCHED=batch turns it on, else off. */
	int cp_sched_batch;
	/* Placement of the CPs and BEs this network starts (see
	 * grove_cpu_bind).  GROVE_CPU_BIND_SUBTREE makes round trips faster
	 * when a tree's processes outnumber the cores they share (kary:8
	 * with 64 BEs on 2 cores: about 14%); it costs a busy subtree the
	 * other cores, so back-ends that compute, or a tree that shares the
	 * host with an application, are better left unbound (the default). */
	grove_cpu_bind cpu_bind;
	/* How long a send waits while a link of the FE to one of its
	 * children holds more than its limit (a child that does not read:
	 * stopped, or not calling Grove; any such link holds up every send).
	 * 0: as long as it takes (default); > 0: at most that many ms, then
	 * GROVE_ETIMEDOUT; < 0: not at all, GROVE_EAGAIN.  A send that fails
	 * so has queued nothing: retry it later.  A message cut into
	 * segments gives up only before its first one; when the time runs
	 * out later, its rest is queued without waiting (the link then holds
	 * up to one message over its limit). */
	int send_timeout_ms;
	/* Re-parenting (docs/recovery.md): when a CP is lost (crash, kill,
	 * silence), its children reconnect to its parent and the network
	 * goes on (GROVE_EV_REPARENTED).  How long, in ms, that parent waits
	 * for them after it saw the loss, and they (plus one heartbeat
	 * interval) try to reach it; those that do not come are lost.  0:
	 * $GROVE_REPARENT_MS, else 2000; < 0: off (a lost CP's subtree is
	 * lost with it). */
	int reparent_ms;
} grove_net_opts;

void grove_net_opts_init(grove_net_opts *o);

/* Create a network.  Spawn mode returns when every BE has reported (or
 * fails within timeout_ms with a message naming the host/process and why,
 * leaving no process behind).  Attach mode returns when every CP is up; use
 * grove_net_wait_backends() for the BEs.  On failure *out is still set when
 * possible so grove_net_last_error() can be read; destroy it then. */
int grove_net_create(const grove_net_opts *o, grove_net **out);
/* Shut the network down (CPs and BEs exit) and free it. */
void grove_net_destroy(grove_net *net);

const char *grove_net_last_error(const grove_net *net);
uint32_t grove_net_backends(const grove_net *net);     /* in the topology */
uint32_t grove_net_backends_up(const grove_net *net);  /* connected now */
const struct grove_topo *grove_net_topology(const grove_net *net);
/* The network's id (names trace segments, connection files...). */
const char *grove_net_id(const grove_net *net);

/* Attach mode: what BE rank r needs to connect (all strings owned by net),
 * besides the secret (grove_net_attach_secret below).  The same records
 * are in the connection file, one per line: "rank host port parent_node
 * be_node", after the first line "# grove connection file, protocol N"
 * (this Grove's protocol version) and the "secret HEX" and "backends N"
 * lines (docs/api.md, attach mode). */
typedef struct grove_attach_info {
	uint32_t rank;
	const char *host;   /* where the parent listens */
	uint16_t port;
	uint32_t parent;    /* the parent's topology node id */
	uint32_t node;      /* the BE's own topology node id */
} grove_attach_info;
int grove_net_attach_info(const grove_net *net, uint32_t rank,
    grove_attach_info *out);
/* Attach mode: the network secret, which a BE passes to
 * grove_be_attach_to() with its grove_attach_info record, so a tool can
 * hand BEs everything they need without a connection file.
 *
 * The secret is a credential: whoever holds it can join the network as any
 * BE and read and send its traffic.  Keep it off command lines (every user
 * sees those in ps) and out of logs; give it to a BE through a pipe, the
 * environment of a process the tool starts itself, or a file of mode 0600,
 * and wipe the copies when they are no longer needed.
 *
 * Copies GROVE_SECRET_HEX_LEN lowercase hex digits and a NUL into buf, the
 * caller's buffer (Grove keeps no reference to it).  GROVE_ERANGE when cap
 * < GROVE_SECRET_HEX_LEN + 1 (buf untouched), GROVE_EINVAL for a NULL
 * argument, GROVE_ENOTSUP for a network in spawn mode (Grove hands its BEs
 * the secret itself and nothing else is meant to join it). */
#define GROVE_SECRET_HEX_LEN 64
int grove_net_attach_secret(const grove_net *net, char *buf, size_t cap);
/* Wait until `count` BEs are connected (timeout_ms < 0: forever; 0:
 * serve the handshakes that are ready, then GROVE_ETIMEDOUT if fewer are
 * up).
 * GROVE_ERANGE when the network has fewer than `count` BEs; GROVE_ELOST
 * (the last error says how many are lost) once fewer than `count` are up
 * or may still attach: lost ranks never come back. */
int grove_net_wait_backends(grove_net *net, uint32_t count, int timeout_ms);

/* Events: BE attached, ranks lost, filter errors, dropped data. */
typedef enum grove_event_type {
	GROVE_EV_BE_ATTACHED = 1, /* rank */
	GROVE_EV_LOST = 2,        /* ranks [rank_lo, rank_hi) lost; node id */
	GROVE_EV_FILTER_ERROR = 3, /* node id, stream, text */
	/* A node dropped data a back-end sent on a stream that does not
	 * exist there or that the back-end is not a member of (node id,
	 * stream, text naming the sender); at most once a second per sender
	 * and stream.  A back-end that knows the stream is wrong refuses
	 * the send itself (grove_be_send: GROVE_ENOENT). */
	GROVE_EV_DROPPED = 4,
	/* A CP was lost and its children now hang from another node
	 * (docs/recovery.md): node is the lost CP, [rank_lo, rank_hi) its
	 * ranks (still up, unless GROVE_EV_LOST events name some), parent
	 * the new parent of its children, text names them.  A child that
	 * did not come back gets a GROVE_EV_LOST of its own. */
	GROVE_EV_REPARENTED = 5,
} grove_event_type;
typedef struct grove_event {
	grove_event_type type;
	uint32_t rank_lo, rank_hi;
	uint32_t node;
	uint32_t stream;
	char text[256];
	uint32_t parent;   /* GROVE_EV_REPARENTED: the new parent */
} grove_event;
typedef void (*grove_event_cb)(grove_net *net, const grove_event *ev,
    void *arg);
/* Call cb for every event, from inside Grove calls: when the loop pass
 * that received it ends, in the order events arrived, never nested.  cb
 * may call any Grove function on net except grove_net_destroy; events that
 * such calls raise are delivered after cb returns. */
void grove_net_on_event(grove_net *net, grove_event_cb cb, void *arg);
/* Pop the next queued event (events are also queued when a callback is
 * set).  timeout_ms: 0 non-blocking, < 0 forever. */
int grove_net_next_event(grove_net *net, grove_event *ev, int timeout_ms);
/* The node a node of the topology hangs from now: its parent in the
 * topology until a GROVE_EV_REPARENTED moved it.  GROVE_ERANGE for an id
 * outside the topology, GROVE_EINVAL for the front-end (node 0) or a
 * NULL argument. */
int grove_net_node_parent(const grove_net *net, uint32_t node,
    uint32_t *parent);

/* A file descriptor that is readable when grove_net_progress(), a receive
 * or grove_net_next_event() would find something to do (events already
 * handed to a callback excepted: they make it readable again only once
 * the callback is removed).  It holds every
 * link and pending write, and a timer set to Grove's next timer
 * (heartbeats, a time-based sync filter's window), whenever a Grove call
 * returns: polling it alone drives the network.  Owned by the network: do
 * not close it. */
int grove_net_fd(grove_net *net);
/* Do whatever work is pending without blocking. */
int grove_net_progress(grove_net *net);

/* Communicators: sets of BE ranks. */
grove_comm *grove_net_comm_all(grove_net *net); /* owned by net */
int grove_comm_create(grove_net *net, const uint32_t *ranks, size_t n,
    grove_comm **out);
void grove_comm_destroy(grove_comm *c);
size_t grove_comm_size(const grove_comm *c);

/* What a stream does with a wave that lacks some members' shares
 * (docs/api.md, "Partial waves").  Every packet of a wave says who is in
 * it (grove_packet_contributors, include/grove/wave.h); a wave that
 * fails is a receive that returns the error, in the wave's place, with
 * the last error naming the missing ranks and why. */
typedef enum grove_partial {
	/* Fail the wave (GROVE_EFILTER) when a filter failed on part of it:
	 * its result would be wrong, and nothing else would say so.
	 * Deliver it, marked, when members are missing because they were
	 * lost (GROVE_EV_LOST said so; later waves go on with the others)
	 * or because the timeout sync filter stopped waiting for them. */
	GROVE_PARTIAL_DEFAULT = 0,
	/* Fail every wave that lacks a member: GROVE_EFILTER when a filter
	 * failed, else GROVE_ELOST. */
	GROVE_PARTIAL_FAIL = 1,
	/* Deliver every wave that produced something, marked. */
	GROVE_PARTIAL_DELIVER = 2,
} grove_partial;

/* Streams. */
typedef struct grove_stream_opts {
	const char *up_filter;   /* transformation, default "null" */
	const char *sync_filter; /* default "wait_for_all" */
	const char *down_filter; /* default "null" */
	uint32_t sync_timeout_ms; /* for "timeout" */
	grove_partial partial;   /* default GROVE_PARTIAL_DEFAULT */
} grove_stream_opts;
void grove_stream_opts_init(grove_stream_opts *o);

int grove_stream_create(grove_net *net, const grove_comm *comm,
    const grove_stream_opts *o, grove_stream **out);
/* Destroy a stream here and on every CP on its path. */
int grove_stream_destroy(grove_stream *s);
uint32_t grove_stream_id(const grove_stream *s);
/* Packets the FE received for this stream that no receive call has taken
 * yet, and their bytes on the wire (bytes may be NULL).  They are held in
 * the tool's memory: a tool that does not receive from a stream while it
 * calls Grove lets them grow (see "Back-pressure" in docs/api.md). */
size_t grove_stream_queued(const grove_stream *s, size_t *bytes);

/* Which filter a parameter packet is for. */
typedef enum grove_filter_slot {
	GROVE_FILTER_UP = 0,
	GROVE_FILTER_SYNC = 1,
	GROVE_FILTER_DOWN = 2,
} grove_filter_slot;
/* Set a filter's parameters on every node of the stream (e.g. "timeout":
 * "%ud" ms).  Filters see them as call->params. */
int grove_stream_set_params(grove_stream *s, grove_filter_slot which,
    const char *fmt, ...);

/* Send to every member of the stream. */
int grove_stream_send(grove_stream *s, int32_t tag, const char *fmt, ...);
int grove_stream_send_packet(grove_stream *s, grove_packet *p);
/* Segmented multicast: a packet sent on a stream whose frame is larger
 * than the stream's segment size travels as segments that every CP
 * forwards as they arrive (a pipeline through the tree); back-ends receive
 * the packet whole, exactly as sent.  bytes: GROVE_SEGMENT_AUTO (the
 * default: Grove picks the size for each message), GROVE_SEGMENT_WHOLE
 * (never segment), or a size >= GROVE_SEGMENT_MIN.  Streams with a
 * downstream filter always send whole packets (an explicit size is
 * GROVE_EINVAL there).  See docs/segmented.md. */
#define GROVE_SEGMENT_AUTO ((size_t)0)
#define GROVE_SEGMENT_WHOLE SIZE_MAX
#define GROVE_SEGMENT_MIN 256u
int grove_stream_set_segment_size(grove_stream *s, size_t bytes);
/* Describe the network's links to the P-LogP model (include/grove/logp.h;
 * p is copied, NULL forgets it): automatic segment sizes then come from
 * the model's search for each message size, for the tree this network
 * has (its clusters from the cluster map, its fan-outs).  Without it
 * automatic sizing uses 64 KiB segments above 64 KiB.  GROVE_ENOENT (the
 * parameters lack a link class the network has) with the last error
 * saying which. */
struct grove_logp_params;
int grove_net_set_logp(grove_net *net, const struct grove_logp_params *p);

/* Wait until everything queued has been handed to the kernel. */
int grove_net_flush(grove_net *net, int timeout_ms);

/* Blocking-send semantics: wait until everything sent so far has left the
 * front-end, i.e. is in the kernel, or on an emulated link (a cluster map)
 * has been sent by the emulated line, whose latency may still be running.
 * A send followed by this call behaves like a blocking MPI_Send of a
 * large message.  timeout_ms < 0: forever. */
int grove_net_wait_sent(grove_net *net, int timeout_ms);

/* Receive from one stream.  timeout_ms: 0 non-blocking (GROVE_EAGAIN),
 * < 0 forever, else GROVE_ETIMEDOUT after that long.  *p gets a reference
 * the caller must unref.  tag may be NULL.  GROVE_ECLOSED once nothing is
 * queued or due (a timeout wave the FE holds) and every member of the
 * stream is lost (in attach mode a rank that has not attached yet is
 * waited for); grove_net_recv likewise once every BE is lost. */
int grove_stream_recv(grove_stream *s, int32_t *tag, grove_packet **p,
    int timeout_ms);
/* Receive from any stream (or point-to-point from a BE: *s = NULL). */
int grove_net_recv(grove_net *net, grove_stream **s, int32_t *tag,
    grove_packet **p, int timeout_ms);

/* Point-to-point: FE -> one BE, bypassing filters.  GROVE_ERANGE for a
 * rank outside the network, GROVE_ELOST for a lost one, GROVE_EAGAIN for
 * one that has not attached yet (attach mode). */
int grove_net_send_to(grove_net *net, uint32_t be_rank, int32_t tag,
    const char *fmt, ...);

/* Event spaces of the whole network, now: every process on another host
 * sends a snapshot of its event space through the tree, and the FE
 * recreates each one on this host, where `grove trace dump --net ID` and
 * `grove trace stats` read it with the local ones (GROVE_TRACE_SHIP=all:
 * every process sends).  Back-ends answer inside their next Grove call.
 * With other hosts (or GROVE_TRACE_SHIP=all), it measures the clock skew
 * first and writes each copy's offset into it (docs/tracing.md).
 * Returns the number of event spaces copied, or GROVE_ETIMEDOUT when not
 * every live process answered within timeout_ms. */
int grove_net_trace_collect(grove_net *net, int timeout_ms);

/* ---- clock skew (docs/clock-skew.md) ----------------------------------
 * The offset of every back-end's clock to the front-end's, measured
 * through the tree: each parent probes its children (`rounds` four-
 * timestamp exchanges per link, all links at once, minimum-delay sample
 * kept), then offsets add up the tree.  The true offset lies within
 * offset_ns +- error_ns (the sum of half the best round-trip delays on
 * the path), unless a clock was stepped while it ran. */
typedef struct grove_skew {
	uint32_t rank;      /* BE rank (out[r].rank == r) */
	int64_t offset_ns;  /* BE clock - FE clock (CLOCK_REALTIME) */
	uint64_t error_ns;  /* bound; GROVE_SKEW_UNKNOWN: not measured */
} grove_skew;
#define GROVE_SKEW_UNKNOWN UINT64_MAX
/* out: grove_net_backends(net) entries.  rounds 0: 16 (at most 4096).
 * timeout_ms <= 0: the network's create timeout.  Lost or silent BEs do
 * not hold it up past timeout_ms: their entries get error_ns =
 * GROVE_SKEW_UNKNOWN and offset_ns = 0.  Back-ends answer inside their
 * Grove calls (a blocked grove_be_recv will do).  Returns the number of
 * BEs measured (all of them unless some were lost or silent; the last
 * error says how many were not), or a grove_err. */
int grove_net_clock_skew(grove_net *net, unsigned rounds, grove_skew *out,
    int timeout_ms);
/* This process's clock in ns (CLOCK_REALTIME), the front-end's reference
 * in grove_net_clock_skew.  Back-ends use grove_be_clock_ns(). */
int64_t grove_clock_now_ns(void);

/* Load a custom filter on the FE and every CP, under `name`.  Returns when
 * every CP has answered; on failure the last error names each CP (node id,
 * host) that could not load it and why, and the load is undone on every
 * node: unless the name had a definition before (which is kept), streams
 * cannot use it (GROVE_EFILTER) until a later load of it succeeds. */
int grove_net_load_filter(grove_net *net, const char *name, const char *path,
    const char *symbol);

#ifdef __cplusplus
}
#endif
#endif

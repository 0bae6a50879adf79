/* Grove BCS core primitives: Xfer-And-Signal, Test-Event and
 * Compare-And-Write (bcs-mpi.txt, section 2), over a Grove network.
 *
 * A BCS machine is a Grove network: its front-end is the machine manager
 * and its back-ends are the nodes (in Grove MPI's BCS mode, one node
 * manager per host).  Every node has the same global memory (a byte
 * region of gmem_bytes: "the same virtual address on all nodes" is the
 * same offset here), nvars 64-bit global variables and nevents local
 * events; the manager has them too.
 *
 *   Xfer-And-Signal   puts a block of data into the global memory of a
 *                     set of nodes, or into a process on each of them
 *                     (process_vm_writev), and signals an event there and
 *                     / or here when it is in place.  Non-blocking.
 *   Test-Event        polls a local event, or waits for it (bounded).
 *   Compare-And-Write compares a global variable on a set of nodes with
 *                     a value; when the comparison holds on all of them,
 *                     optionally writes a (possibly other) variable on
 *                     all of them.  Blocking, collective over the tree: a
 *                     multicast down, a reduction up.
 *
 * Transport: the manager reaches the nodes through the tree (multicast
 * and reduction, so a machine-wide operation costs O(log nodes) steps);
 * nodes reach each other over direct TCP links opened at start-up
 * (addresses exchanged through the tree), and reach the manager through
 * the tree.  Within one host, a node moves data between local processes
 * with process_vm_readv/writev.
 *
 * Like the rest of Grove there is no hidden thread: a grove_bcs makes
 * progress inside its calls (Test-Event and Compare-And-Write progress
 * while they wait) or in grove_bcs_progress(), for a poll loop on
 * grove_bcs_fd().  A node must keep calling one of them: Compare-And-
 * Write queries from the manager are answered from there.
 *
 * Failure: no call waits forever.  When a node is lost (its process dies
 * or its link goes silent for the network's heartbeat time) every
 * operation that involves it ends with GROVE_ELOST, and last_error names
 * the node.  Xfer-And-Signal is all-or-nothing per destination: a
 * destination either gets the whole block and its event, or (lost) none.
 */
#ifndef GROVE_BCS_H
#define GROVE_BCS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "grove/backend.h"
#include "grove/error.h"
#include "grove/network.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct grove_bcs grove_bcs;

/* The machine manager's node id (the front-end). */
#define GROVE_BCS_MANAGER UINT32_MAX
/* No event. */
#define GROVE_BCS_NO_EVENT (-1)

typedef struct grove_bcs_opts {
	size_t gmem_bytes;   /* global memory per node; default 64 KiB */
	uint32_t nvars;      /* global variables per node; default 64 */
	uint32_t nevents;    /* events per node; default 64 */
	int timeout_ms;      /* open: how long to wait for every node;
	                        default GROVE_DEFAULT_TIMEOUT_MS' value */
} grove_bcs_opts;

void grove_bcs_opts_init(grove_bcs_opts *o);

/* The manager: over net, whose back-ends are the nodes (any mode; attach
 * mode back-ends must have joined).  Collective with every node's
 * grove_bcs_node_open (same opts): returns when all nodes are in and
 * their direct links are known.  The network stays the caller's; the
 * grove_bcs uses one stream of it.  On failure *out is set when
 * possible, for grove_bcs_last_error; close it then. */
int grove_bcs_manager_open(grove_net *net, const grove_bcs_opts *o,
                           grove_bcs **out);
/* A node: over its back-end handle (the back-end stays the caller's). */
int grove_bcs_node_open(grove_be *be, const grove_bcs_opts *o,
                        grove_bcs **out);
void grove_bcs_close(grove_bcs *b);

uint32_t grove_bcs_self(const grove_bcs *b);  /* node id or MANAGER */
uint32_t grove_bcs_nodes(const grove_bcs *b); /* nodes (not counting the
                                                 manager) */
const char *grove_bcs_last_error(const grove_bcs *b);

/* A descriptor that is readable when grove_bcs_progress has work, and
 * the progress call itself (never blocks): 0 or an error. */
int grove_bcs_fd(grove_bcs *b);
int grove_bcs_progress(grove_bcs *b);

/* This node's own global memory and variables (local access). */
void *grove_bcs_gmem(grove_bcs *b, size_t *bytes);
int grove_bcs_var_get(grove_bcs *b, uint32_t var, int64_t *value);
int grove_bcs_var_set(grove_bcs *b, uint32_t var, int64_t value);

/* A set of nodes: `count` ids in `nodes`, or every node when nodes is
 * NULL.  GROVE_BCS_MANAGER may be a member. */
typedef struct grove_bcs_set {
	const uint32_t *nodes;
	uint32_t count;
} grove_bcs_set;

/* Xfer-And-Signal.
 *   src_pid 0: src_addr is an address in the calling process;
 *           > 0: a process on this node (process_vm_readv).
 *   dst_pid 0: dst_addr is an offset in each destination's global
 *           memory; > 0: an address in that process on each destination
 *           node (process_vm_writev).
 * The data is copied (or read) before the call returns, so the source
 * may change right after.  remote_event is signalled on each destination
 * after its data is in place; local_event here once every destination
 * has it (or with an error, see grove_bcs_test_event). */
typedef struct grove_bcs_xfer {
	grove_bcs_set to;
	int32_t src_pid;
	uint64_t src_addr;
	int32_t dst_pid;
	uint64_t dst_addr;
	size_t len;
	int32_t local_event;   /* or GROVE_BCS_NO_EVENT */
	int32_t remote_event;  /* or GROVE_BCS_NO_EVENT */
} grove_bcs_xfer;

int grove_bcs_xfer_and_signal(grove_bcs *b, const grove_bcs_xfer *x);

/* Test-Event: 1 when the event has been signalled (one signal is
 * consumed: events count), 0 when not within timeout_ms (0: just poll;
 * < 0: as long as it takes, bounded by node loss), GROVE_ELOST when the
 * signal it stands for failed (a destination of the Xfer-And-Signal was
 * lost; last_error names it), other errors as usual. */
int grove_bcs_test_event(grove_bcs *b, int32_t event, int timeout_ms);
/* Signals one of this node's own events (for a local producer). */
int grove_bcs_signal(grove_bcs *b, int32_t event);

typedef enum grove_bcs_cmp {
	GROVE_BCS_GE = 0, /* variable >= value */
	GROVE_BCS_LT,     /* variable <  value */
	GROVE_BCS_EQ,     /* variable == value */
	GROVE_BCS_NE,     /* variable != value */
} grove_bcs_cmp;

/* Compare-And-Write: on = the nodes; var cmp value checked on each;
 * when it holds on all and write is set, write_var = write_value on all
 * of them, then write_event (or GROVE_BCS_NO_EVENT) is signalled on each.
 * Concurrent Compare-And-Writes are serialized by the manager, so all
 * nodes see the same order of writes.  Returns 1 (held on all), 0 (false
 * on at least one; nothing written), or an error: GROVE_ELOST (a node of
 * the set is gone; nothing written), GROVE_ETIMEDOUT. */
typedef struct grove_bcs_cw {
	grove_bcs_set on;
	uint32_t var;
	grove_bcs_cmp cmp;
	int64_t value;
	bool write;
	uint32_t write_var;
	int64_t write_value;
	int32_t write_event;
} grove_bcs_cw;

int grove_bcs_compare_and_write(grove_bcs *b, const grove_bcs_cw *cw,
                                int timeout_ms);

#ifdef __cplusplus
}
#endif
#endif

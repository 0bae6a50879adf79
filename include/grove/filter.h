/* Grove filters: the C ABI for transformation filters.
 *
 * A transformation filter runs on every node (FE and CPs) a stream's
 * upstream packets pass through, once per wave that the stream's
 * synchronization filter releases: it gets the wave's packets (each
 * child's share of the wave, in child order: a back-end's packet, or what
 * a CP's filter emitted for its own wave) and emits zero or more packets
 * upstream and,
 * optionally, packets back downstream to the same children ("reverse").
 * The same ABI serves downstream filters, which run on the FE and CPs on
 * each packet going down, one input at a time.
 *
 * Built-in transformation filters (by name): "null", "sum", "min", "max",
 * "avg", "concat", "timealign", "equiv", "report" (formats and decoders in
 * grove/aggregate.h).  Built-in
 * synchronization filters: "wait_for_all", "timeout" (parameter: "%ud"
 * milliseconds), "dont_wait".
 *
 * A custom filter lives in a shared library:
 *
 *     #include <grove/filter.h>
 *     int my_filter(grove_filter_call *call) { ... return 0; }
 *     // optional: called when the stream is destroyed
 *     void my_filter_state_free(void *state) { free(state); }
 *
 * and is loaded by the FE with grove_net_load_filter(net, "name", path,
 * "my_filter"), which dlopens path on the FE and on every CP before it
 * returns.  Streams then name it like a built-in.
 *
 * A filter must not block.  It owns nothing in `call` except the packets it
 * creates and passes to grove_filter_emit*(), which take ownership.  A
 * non-zero return drops the wave and reports a filter error to the FE
 * (naming the node, the stream and the returned code).
 */
#ifndef GROVE_FILTER_H
#define GROVE_FILTER_H

#include <stddef.h>
#include <stdint.h>

#include "grove/packet.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GROVE_FILTER_ABI 1

/* Where the node running the filter sits in the topology. */
typedef struct grove_filter_place {
	uint32_t node_id;     /* topology node id (FE = 0) */
	uint32_t depth;       /* FE = 0 */
	uint32_t n_children;  /* children of this node in the topology */
	uint32_t be_lo, be_hi; /* BE ranks below this node: [be_lo, be_hi) */
	uint32_t n_backends;  /* BEs in the whole network */
	int is_fe;            /* 1 on the front-end (the last reduction) */
} grove_filter_place;

typedef struct grove_filter_call grove_filter_call;

struct grove_filter_call {
	int abi;                          /* GROVE_FILTER_ABI */
	uint32_t stream_id;
	grove_packet *const *in;          /* the wave (borrowed) */
	size_t n_in;
	const uint32_t *in_child;         /* child index of each input */
	const grove_packet *params;       /* per-stream parameters, or NULL */
	void **state;                     /* per stream and node; starts NULL */
	const grove_filter_place *place;
	void *impl_;                      /* private to Grove */
};

typedef int (*grove_filter_fn)(grove_filter_call *call);
typedef void (*grove_filter_state_free_fn)(void *state);

/* Emit a packet upstream (or, for downstream filters, onward).  Takes
 * ownership of p.  Its stream id and tag are set from the wave. */
int grove_filter_emit(grove_filter_call *call, grove_packet *p);
/* Emit a packet back down to all children of the wave. */
int grove_filter_emit_reverse(grove_filter_call *call, grove_packet *p);
/* Build a packet with the wave's stream and tag and this node's rank. */
int grove_filter_pack(grove_filter_call *call, grove_packet **out,
    const char *fmt, ...);

#ifdef __cplusplus
}
#endif
#endif

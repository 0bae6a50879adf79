/* Built-in transformation filters and the helpers they share (internal to
 * src/filter).  Built-ins go through the same grove_filter_call ABI as
 * custom filters, so a wave runs the same way whoever wrote the filter.
 */
#ifndef GROVE_FILTER_BUILTIN_H
#define GROVE_FILTER_BUILTIN_H

#include "grove/filter.h"
#include "grove/packet.h"

int flt_builtin_null(grove_filter_call *call);
int flt_builtin_sum(grove_filter_call *call);
int flt_builtin_min(grove_filter_call *call);
int flt_builtin_max(grove_filter_call *call);
int flt_builtin_avg(grove_filter_call *call);
int flt_builtin_concat(grove_filter_call *call);
int flt_builtin_timealign(grove_filter_call *call);
void flt_timealign_state_free(void *state);
int flt_builtin_equiv(grove_filter_call *call);
int flt_builtin_report(grove_filter_call *call);

/* Items to stack-allocate before falling back to the heap: most streams
 * carry a handful of items, and waves are the hot path. */
#define FLT_SMALL_ITEMS 16

/* Check that every input of the wave has the same canonical format.
 * Returns the number of items per packet, or GROVE_EFORMAT (or the codec's
 * error for a corrupt packet). */
int flt_wave_nitems(const grove_filter_call *call);

/* Build a data packet from items with the wave's stream, tag and this
 * node's rank, and emit it upstream. */
int flt_emit_items(grove_filter_call *call, const grove_item *items,
    int nitems);

/* Whether p comes from a node (a CP below), not a back-end: back-ends'
 * ranks are [0, n_backends), nodes' are above.  Only a node's packet is
 * taken as a filter's merged result; a back-end sending that format would
 * otherwise speak for ranks it is not (an "equiv" class over [0, 1000),
 * a "timealign" interval with any count and ranks). */
static inline int
flt_src_is_node(const grove_filter_call *call, const grove_packet *p)
{
	return call->place && grove_packet_src(p) >= call->place->n_backends;
}

static inline int
flt_type_numeric(grove_type t)
{
	return t >= GROVE_T_INT8 && t <= GROVE_T_DOUBLE;
}

#endif

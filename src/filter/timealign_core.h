/* Time-aligned aggregation (internal): the pure logic behind the
 * "timealign" filter, with no packets and no I/O, so it is unit-tested on
 * its own.
 *
 * Samples carry AMOUNTS accumulated over [start, end) (a counter delta, a
 * gauge integrated over time).  Time is cut into the absolute grid of
 * intervals [k*W, (k+1)*W).  A raw sample from one back-end rank is split
 * over the intervals it overlaps, in proportion to the overlap; the last
 * piece is the value minus the other pieces, so the pieces add up to the
 * value.  Already aggregated intervals (from a node below) are merged as
 * they are.  An interval is closed, reduced and handed out when every
 * child that is not lagging has delivered data up to its end (see
 * ta_close for the lag policy), in increasing order; intervals nobody
 * contributed to are skipped.
 */
#ifndef GROVE_FILTER_TIMEALIGN_CORE_H
#define GROVE_FILTER_TIMEALIGN_CORE_H

#include <stddef.h>
#include <stdint.h>

/* Defaults of the filter parameters "%uld %ud". */
#define TA_DEFAULT_WIDTH_NS 1000000000ull
#define TA_DEFAULT_MAX_LAG 4u

/* Intervals one raw sample may span: a sample over a longer time is a
 * sender bug (or a hostile packet), not a reason to open, and then emit,
 * thousands of intervals for one packet.  (Over an hour at the default
 * width of 1 s.) */
#define TA_MAX_SPAN 4096u

/* Intervals an input may lie beyond the lead (the median child's
 * position, see ta_close; before the first ta_close the lowest interval
 * seen; and never less than ta_closed_below) before it is dropped as too
 * far ahead (ta_early_inputs), unless most children jumped there.  Also
 * how far the children may stand below the intervals already closed
 * before the node starts over where they are.  Over an hour at the
 * default width. */
#define TA_MAX_AHEAD 4096u

/* Values per sample (M); bounds the memory one interval can take. */
#define TA_MAX_VALUES 65536u

/* Intervals spanned times values, for one raw sample: the work and memory
 * one packet may cause (a long sample of few values, or a short one of
 * many, but not both). */
#define TA_MAX_CELLS (1u << 18)

/* Children a node may have (bounds the child table). */
#define TA_MAX_CHILDREN (1u << 20)

/* One aggregated interval: input from a node below, or output.  All five
 * arrays have m elements. */
typedef struct ta_agg {
	uint64_t start, end;  /* end = start + W, start a multiple of W */
	uint32_t count;       /* distinct back-end ranks that contributed */
	uint32_t m;
	const double *sum;
	const double *min;
	const uint32_t *min_rank;
	const double *max;
	const uint32_t *max_rank;
} ta_agg;

typedef struct ta_state ta_state;

/* width_ns > 0, max_lag > 0; n_children: children expected at this node
 * (more are added when they show up).  NULL on bad arguments or no
 * memory. */
ta_state *ta_new(uint64_t width_ns, uint32_t max_lag, uint32_t n_children);
void ta_free(ta_state *s);

uint64_t ta_width(const ta_state *s);
uint32_t ta_max_lag(const ta_state *s);
void ta_set_max_lag(ta_state *s, uint32_t max_lag); /* 0 is ignored */

/* Fix M (values per input) in advance: inputs with another M are refused
 * from then on.  Without it, M is that of the first input, and becomes
 * fixed once a second input with that M was taken or an interval was
 * emitted; until then an input with another M replaces the lone first
 * one (which is dropped and counted in ta_discarded_inputs), so one
 * malformed input sent first cannot have every good one refused.
 * GROVE_EFORMAT for m == 0 or above TA_MAX_VALUES, GROVE_EINVAL when M
 * is already fixed to another value. */
int ta_fix_m(ta_state *s, uint32_t m);
/* M, 0 before the first input. */
uint32_t ta_values(const ta_state *s);
/* Lone first inputs dropped because the next one had another M. */
uint64_t ta_discarded_inputs(const ta_state *s);

/* A raw sample from back-end `rank` via `child`: values v[0..m) accumulated
 * over [start, end).  GROVE_EINVAL when end <= start, a value is not
 * finite (NaN, infinite) or child is out of range, GROVE_EFORMAT when m
 * differs from the stream's fixed M (see ta_fix_m; or is 0 or above
 * TA_MAX_VALUES), GROVE_ERANGE when the sample spans
 * more than TA_MAX_SPAN intervals or TA_MAX_CELLS intervals times values.  Nothing is changed on error.  Pieces
 * falling into intervals already closed are dropped and counted
 * (ta_late_pieces). */
int ta_add_sample(ta_state *s, uint32_t child, uint32_t rank, uint64_t start,
    uint64_t end, const double *v, uint32_t m);

/* An aggregated interval via `child`.  GROVE_EINVAL when the interval is
 * not one interval of this grid or a sum, min or max is not finite;
 * GROVE_EFORMAT for a wrong m.  A closed interval is dropped and counted
 * as late. */
int ta_add_interval(ta_state *s, uint32_t child, const ta_agg *a);

/* Called by ta_close for each interval it closes, in increasing order; the
 * arrays are valid during the call only.  A non-zero return stops
 * ta_close and is returned (the interval is consumed anyway). */
typedef int (*ta_emit_fn)(void *arg, const ta_agg *out);

/* Close every interval that is complete.  Let pos(c) be the number of
 * whole grid intervals child c has covered (its highest end / W, or the
 * end of a sample a whole tolerance below that: its clock stepped back; a
 * child never heard from sits at the first interval this node saw), and
 * tol(c) = max_lag for a child that sends raw samples, 2 * max_lag for
 * one that sends aggregated intervals or was never heard from (a node
 * below may itself be waiting up to max_lag intervals for a lagging child
 * of its own, and must not be given up on first).  A child is quiet when
 * nothing came from it for tol(c) times the children heard from inputs
 * (about tol(c) intervals).  lead is the upper median of pos over the
 * children heard from that are not quiet (with two, the higher; one fast
 * clock must not make everyone else lag).  Child c is lagging when
 * pos(c) + tol(c) <= lead.  Every interval below the lowest pos of the
 * children that are not lagging, and holding data, is closed.  When that
 * limit lies more than TA_MAX_AHEAD intervals below ta_closed_below (a
 * far clock's data was closed before anything stood against it, or all
 * clocks jumped back), the node starts over there: the one case where an
 * interval is emitted below one emitted before.
 * Returns 0, an emit error, or GROVE_ENOMEM. */
int ta_close(ta_state *s, ta_emit_fn emit, void *arg);

/* Intervals below this index are closed (data for them is late): the one
 * after the last interval closed. */
uint64_t ta_closed_below(const ta_state *s);
/* Pieces of samples (and aggregated intervals) dropped because their
 * interval was already closed. */
uint64_t ta_late_pieces(const ta_state *s);
/* Inputs dropped because they lay more than TA_MAX_AHEAD intervals beyond
 * the lead: a clock far ahead of the others'.  Such an input does not
 * move its child's position, unless most children still sending have
 * jumped that far (then ta_close takes them where they jumped). */
uint64_t ta_early_inputs(const ta_state *s);
/* Intervals currently open (holding data). */
size_t ta_open_intervals(const ta_state *s);

#endif

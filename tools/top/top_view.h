/* What `grove top` shows: one time-aligned, tree-reduced interval of node
 * metrics, as a terminal table or as JSON. */
#ifndef GROVE_TOOLS_TOP_VIEW_H
#define GROVE_TOOLS_TOP_VIEW_H

#include <stdint.h>
#include <stdio.h>

#include "grove/packet.h"

/* The "timealign" filter's output, decoded (pointers into the packet). */
typedef struct top_sample {
	uint64_t start_ns, end_ns;
	uint32_t count;            /* ranks that contributed */
	uint64_t n;                /* metrics */
	const double *sum, *min, *max;
	const uint32_t *min_rank, *max_rank;
} top_sample;

#define TOP_SAMPLE_FMT "%uld %uld %ud %alf %alf %aud %alf %aud"

/* 0, or a grove_err when p is not a well-formed timealign output (arrays
 * of different lengths, an empty interval). */
int top_sample_decode(const grove_packet *p, top_sample *s);

/* Per metric i: the aggregated amounts as levels or rates (amount divided
 * by the interval in seconds).  avg is over contributing ranks. */
typedef struct top_row {
	double min, avg, max;
	uint32_t min_rank, max_rank;
} top_row;

void top_sample_row(const top_sample *s, uint64_t i, top_row *r);

/* Which aggregated intervals are shown.  Never the first one, in any
 * mode: the agents started somewhere inside it, so it is only partly
 * covered, and its minima (and average) would be fractions of the real
 * values.  With --once (once != 0) only a complete one: not one that some
 * of the `up` live agents have no data in yet (agents start at slightly
 * different times, so with many of them the next interval or two may
 * miss a few); after max_wait intervals the one at hand is shown all the
 * same, as TOP_SHOW_INCOMPLETE (an agent may be stuck for good).  seen
 * counts the intervals received before this one. */
typedef enum top_pick {
	TOP_SKIP,
	TOP_SHOW,
	TOP_SHOW_INCOMPLETE,
} top_pick;

top_pick top_pick_interval(uint64_t seen, int once, uint32_t count,
    uint32_t up, uint32_t max_wait);

/* The table for a terminal: a header line (title), the contributors out
 * of the `live` back-ends (and how many of those are missing, when some
 * are; and how many were `lost`, when some were), then one line per
 * metric with min/avg/max, a bar showing where min..max and the average
 * sit on the metric's scale, and the ranks holding the min and max.
 * scale_max[i] is the bar's full scale (it grows with what was seen). */
void top_render_table(FILE *f, const char *title, const top_sample *s,
    double *scale_max, uint32_t live, uint32_t lost);

/* One JSON object (no newline): interval, backends (live), contributors,
 * missing (live back-ends without data in the interval), lost (back-ends
 * the tree reported lost), every metric (a value that is not finite as
 * null), then classes_json (members inserted as they are: "hosts":[..],
 * "classes":[..]) and "skew" when given. */
void top_render_json(FILE *f, const top_sample *s, uint32_t backends,
    uint32_t lost, const char *classes_json, const char *skew_json);

/* A bar of `width` cells for [lo, hi] with a mark at mid, on [0, full]. */
void top_bar(char *out, int width, double lo, double mid, double hi,
    double full);

#endif

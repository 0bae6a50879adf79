/* What `grove monitor` prints at each interval: a text view for a person
 * (redrawn in place on a terminal) or one JSON object per line. */
#ifndef GROVE_TOOLS_MONITOR_VIEW_H
#define GROVE_TOOLS_MONITOR_VIEW_H

#include <stdint.h>
#include <stdio.h>

#include "scope/scope.h"

struct cosched;
struct scope_pace;

enum monitor_kind { MONITOR_BALANCE, MONITOR_STATS };

struct monitor_view {
	enum monitor_kind kind;
	int json;
	int redraw;          /* clear the terminal before each view */
	double sigma;        /* hotspots: standard deviations from peers */
	uint64_t min_count;  /* samples a path needs to be compared */
	unsigned rows;       /* text view of stats: paths shown */
	const struct cosched *cosched; /* --cosched: its counts in --json */
	const struct scope_pace *pace; /* the pulls' period, in --json */
};

/* Prints interval i (from 1) of scope s, whose analysis is s->a.  0,
 * GROVE_ENOMEM or GROVE_ESYS (a write failed). */
int monitor_view_print(FILE *f, const struct monitor_view *v,
                       const struct scope *s, unsigned i);

#endif

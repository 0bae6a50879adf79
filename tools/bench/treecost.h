/* What a network costs while a benchmark phase runs (for grove bench):
 * CPU time of this process and all its descendants, and the tuples their
 * event spaces recorded. */
#ifndef GROVE_TOOLS_TREECOST_H
#define GROVE_TOOLS_TREECOST_H

#include <stddef.h>
#include <stdint.h>

/* CPU seconds of this process and every descendant alive now (from
 * /proc/PID/schedstat, nanoseconds; clock ticks where it is missing). */
double treecost_cpu_s(void);
/* Tuples recorded so far by every event space of network netid on this
 * host (0 when tracing is off). */
uint64_t treecost_tuples(const char *netid);

/* Where every ring of network netid's event spaces stood (its head), to
 * count what was written since. */
typedef struct treecost_mark {
	char name[128];
	uint32_t ring;
	uint64_t head;
} treecost_mark;

/* *out (malloc'ed) gets one mark per ring of every event space of netid;
 * 0, or -1 when out of memory. */
int treecost_marks(const char *netid, treecost_mark **out, size_t *n);

/* The clock reads the tuples written since marks m[0..n) kept: per ring,
 * the distinct timestamps among those tuples (among the newest ring-size
 * - 1 of them when more were written, scaled up to all).  A clock read
 * no tuple kept is not seen. */
double treecost_stamps_since(const char *netid, const treecost_mark *m,
                             size_t n);

#endif

/* What a network costs while a benchmark phase runs (for grove bench):
 * CPU time of this process and all its descendants, and the tuples their
 * event spaces recorded. */
#ifndef GROVE_TOOLS_TREECOST_H
#define GROVE_TOOLS_TREECOST_H

#include <stdint.h>

/* User + system CPU seconds of this process and every descendant alive
 * now (from /proc; the kernel's tick accounting). */
double treecost_cpu_s(void);
/* Tuples recorded so far by every event space of network netid on this
 * host (0 when tracing is off). */
uint64_t treecost_tuples(const char *netid);

#endif

/* The CPU work of a message hop in a crowd: a message goes round a ring
 * of K processes per core, none pinned, so every hop wakes a different
 * process whose caches the others have used since, on whichever core the
 * scheduler puts it, as the hops of a broadcast tree do when many
 * processes share few cores.  The method is in docs/logp-measure.md. */
#ifndef GROVE_TOOLS_LOGP_CROWD_H
#define GROVE_TOOLS_LOGP_CROWD_H

#include <stddef.h>
#include <stdint.h>

#include "logp_measure.h"

/* The ring sizes `grove logp measure` uses: a log2 grid. */
#define LOGP_CROWD_N 4
extern const uint32_t logp_crowd_K[LOGP_CROWD_N];

/* The largest ring measured, in processes. */
#define LOGP_CROWD_MAX 4096

/* The CPU time (seconds) that one hop of m bytes costs sender and
 * receiver together in a ring of per_core >= 2 processes per core on
 * `cores` cores, free to run on any: the CPU time of all processes over
 * the hops they made, each process's first hop (page faults, first
 * wake-up) not counted.  0, or a negative grove_err with err saying
 * why. */
int logp_crowd_hop(uint32_t per_core, uint32_t cores, size_t m,
    int use_sockets, double *w_s, char *err, size_t errlen);

/* Measures the crowds of LOGP_CROWD_N sizes at the sizes of t chosen by
 * logp_crowd_size into t->crowd_K and t->crowd_w (< 0 where not
 * measured), over the transport t->host_socket names.  0, or a negative
 * grove_err with err saying why. */
int logp_crowd_table(logp_table *t, int verbose, char *err, size_t errlen);

/* Whether `grove logp measure` measures the crowds at size m of the
 * n sizes: every other size (log2 even) keeps the measurement to
 * seconds; all of them when none is a power of four. */
int logp_crowd_size(const size_t *sizes, size_t n, size_t i);

#endif

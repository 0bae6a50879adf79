/* Putting the event spaces of several hosts on one timeline (internal;
 * docs/tracing.md, "Hosts on one timeline").
 *
 * Every event space records how its CLOCK_MONOTONIC relates to its
 * CLOCK_REALTIME (trace_header rt_init/rt_fini), and the front-end writes
 * into its copy of a shipped segment how that realtime clock relates to
 * its own (fe_offset_ns, measured by grove_net_clock_skew).  A process's
 * monotonic time t then is, on the front-end's monotonic clock,
 *
 *   t_fe = t + (realtime - mono)_p - fe_offset_p - (realtime - mono)_fe
 *
 * to within the sum of the three bounds.  Readers move each process's
 * calibration by that shift, so every exporter sees aligned times.
 */
#ifndef GROVE_TRACE_ALIGN_H
#define GROVE_TRACE_ALIGN_H

#include <stdint.h>
#include <stdio.h>

#include "grove/network.h"
#include "trace/reader.h"

enum trace_timeline {
	/* One host in the set: LOCAL; several: FRONTEND, where processes on
	 * the front-end's host keep their (shared) monotonic clock. */
	TRACE_TIMELINE_AUTO = 0,
	/* Every process on its own CLOCK_MONOTONIC (right on one host). */
	TRACE_TIMELINE_LOCAL,
	/* The front-end's monotonic clock, through each process's realtime
	 * clock and measured offset, even for processes on the front-end's
	 * host (forced: how tests simulate hosts on one machine). */
	TRACE_TIMELINE_FRONTEND,
	/* Through each process's realtime clock taken as is, without the
	 * measured offsets: for hosts whose clocks are synchronised better
	 * than Grove measures (PTP), and to see the uncorrected picture. */
	TRACE_TIMELINE_REALTIME,
};

/* How one process was put on the set's timeline. */
enum trace_proc_align {
	TRACE_PROC_OWN = 0,   /* its own monotonic clock (local timeline) */
	TRACE_PROC_REFERENCE, /* the front-end: the timeline itself */
	TRACE_PROC_SAME_HOST, /* on the front-end's host: same monotonic clock */
	TRACE_PROC_SKEW,      /* realtime corrected by the measured offset */
	TRACE_PROC_REALTIME,  /* realtime taken as is (offset not known or
	                         not wanted) */
	TRACE_PROC_UNALIGNED, /* nothing known: its own monotonic clock */
};

/* "auto", "local", "frontend", "realtime"; GROVE_EINVAL otherwise. */
int trace_timeline_parse(const char *s, enum trace_timeline *out);
const char *trace_timeline_name(int timeline);
const char *trace_proc_align_name(int align);

/* GROVE_TRACE_TIMELINE, AUTO when unset; a bad value is reported on
 * stderr and taken as AUTO. */
enum trace_timeline trace_timeline_env(void);

/* The realtime relation a reader should use: the one at fini (closest
 * to when offsets are measured, at collection) of a finished header,
 * else the one at init.
 * GROVE_ENOENT when the header has neither (older segments). */
int trace_rt_of(const struct trace_header *h, struct trace_rt *out);

/* The shift that moves a process's monotonic ns onto the front-end's:
 * p->rt_minus_mono - offset - fe->rt_minus_mono, and its bound (the sum
 * of the three, saturating).  GROVE_ERANGE when it overflows (values
 * from a corrupt segment). */
int trace_align_shift(const struct trace_rt *p, int64_t offset_ns,
                      uint64_t offset_err_ns, const struct trace_rt *fe,
                      int64_t *shift_ns, uint64_t *err_ns);

/* The offset to the front-end of a process that shares a host (hence a
 * true realtime clock) with a measured back-end: the back-end's offset
 * with its validation offset taken out and the process's own put in.
 * GROVE_ERANGE on overflow. */
int trace_host_offset(int64_t be_offset_ns, int64_t be_inject_ns,
                      int64_t inject_ns, int64_t *out);

/* Moves every process of the set onto one timeline (see enum
 * trace_timeline), records how in each trace_proc (align, shift, bound)
 * and in set->timeline / set->unaligned, and reports on warn (when not
 * NULL) every process whose offset is unknown. */
void trace_set_align(struct trace_set *set, enum trace_timeline mode,
                     FILE *warn);

/* ---- the front-end's side: offsets into shipped copies ---- */

/* What the front-end knows of the clocks of its network: the offsets of
 * the last grove_net_clock_skew, per back-end, and per host (learned from
 * the back-end copies received), for the CPs. */
struct trace_fe_offsets;

struct trace_fe_offsets *trace_fe_offsets_new(void);
void trace_fe_offsets_free(struct trace_fe_offsets *o);

/* A new measurement (sk[r] for BE rank r, n entries).  Forgets what was
 * learned from earlier copies.  GROVE_ENOMEM. */
int trace_fe_offsets_set(struct trace_fe_offsets *o, const grove_skew *sk,
                         uint32_t n);

/* After the front-end recreated /dev/shm/<name> from a shipped snapshot:
 * marks the copy as shipped and writes into its header the process's
 * offset to the front-end: a back-end's from the measurement, a CP's from
 * a back-end copy with the same hostname (now, or when one arrives);
 * otherwise the offset stays unknown.  o may be NULL (nothing measured). */
int trace_fe_offsets_apply(struct trace_fe_offsets *o, const char *name);

#endif

/* Computation and communication per process: the timeline view (virtual
 * event space paper, "Views"; internal, src/monitor).
 *
 * A process's communication is its time inside calls to the library:
 * TBON API calls (layer api, ops api_send / api_recv) and MPI calls
 * (mpi_call).  Its computation is the gaps between consecutive calls of a
 * thread (a ring).  A process that makes no such calls (a CP: all of it
 * is Grove) is shown by what its loop did: filter runs (layer filter)
 * and the link batches it wrote and read (link.writev / link.read);
 * the gaps between those are its idle time.
 *
 * Per process the accumulator keeps totals (time in calls, in gaps,
 * counts) over everything fed, and the spans themselves up to a bound
 * (the newest ones are kept: a live view scrolls), for drawing.  Spans
 * must be fed in ring order (as they are recorded), ring by ring or
 * interleaved. */
#ifndef GROVE_MONITOR_TIMELINE_H
#define GROVE_MONITOR_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

#include "monitor/pathmap.h"

enum mon_span_kind {
	MON_SPAN_CALL = 0,  /* an API or MPI call: communication */
	MON_SPAN_FILTER,    /* a filter run of a CP or front-end */
	MON_SPAN_LINK,      /* a link batch written or read */
	MON_SPAN_KINDS
};

struct mon_span {
	uint64_t t0, t1;
	uint32_t ring;
	uint8_t kind;               /* enum mon_span_kind */
	char name[MON_NAME_LEN];    /* the collector ("MPI_Allreduce") */
};

struct mon_proc_timeline {
	char label[MON_LABEL_LEN];
	uint64_t first, last;        /* earliest start, latest end seen */
	uint64_t busy_ns[MON_SPAN_KINDS]; /* time in spans of each kind */
	uint64_t count[MON_SPAN_KINDS];
	/* Computation: the gaps between consecutive calls of a ring (for a
	 * process without calls, between its filter and link spans). */
	uint64_t gap_ns;
	uint64_t gaps;
	size_t n;                    /* spans kept, in time order */
	const struct mon_span *span;
	uint64_t dropped;            /* older spans not kept */
};

struct mon_timeline;

/* keep: spans kept per process (0: 4096). */
struct mon_timeline *mon_timeline_new(size_t keep);
void mon_timeline_free(struct mon_timeline *tl);

int mon_timeline_feed(struct mon_timeline *tl, const struct mon_pathmap *pm,
                      uint32_t proc, uint32_t ring, const struct mon_tuple *t);

/* mon_timeline_feed in steps, for a feeder that keeps each process's
 * accumulator instead of finding it by label per tuple (the analysis's
 * routes): the span kind of tuple t of collector c (NULL: unregistered),
 * or -1 when it is no span; the accumulator of the process labelled
 * label, created when new (NULL: out of memory), whose address stays
 * valid until tl is freed; and the span itself. */
struct mon_tl_proc;
int mon_timeline_kind(const struct mon_collector *c, const struct mon_tuple *t);
struct mon_tl_proc *mon_timeline_proc(struct mon_timeline *tl,
                                      const char *label);
void mon_timeline_span(struct mon_timeline *tl, struct mon_tl_proc *p,
                       const struct mon_collector *c, uint32_t ring,
                       const struct mon_tuple *t, int kind);
/* a := a and b (processes of b not in a are added; spans of a process
 * in both are put together in time order, up to the bound).
 * GROVE_ENOMEM. */
int mon_timeline_merge(struct mon_timeline *a, const struct mon_timeline *b);

/* The processes, sorted (mon_label_cmp); the array and its spans stay
 * valid until the next feed, merge or free.  *out is malloc'ed (free
 * it).  GROVE_ENOMEM. */
int mon_timeline_procs(struct mon_timeline *tl,
                       struct mon_proc_timeline **out, size_t *n);

#endif

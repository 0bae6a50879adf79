/* Collective instances of Grove MPI: the calls of all ranks that make
 * one collective operation, joined from the ranks' tuples (internal,
 * src/monitor).
 *
 * Every collective call of a rank is an mpi_call tuple of a collective
 * function followed, in the same ring, by a GROVE_OP_MPI_COMM instant on
 * its communicator's collector ("comm", where "comm:CTX:FIRST", position
 * "size:N"; docs/tracing.md, "MPI calls").  The instant's seq is the
 * rank's count of collectives on that communicator, which is the same on
 * every rank for the same operation (every rank calls a communicator's
 * collectives in the same order), and its result is the rank's rank in
 * the communicator.  So (communicator, seq) names one instance, and an
 * instance is complete when all N ranks' calls are in.
 *
 * An instance some of whose calls were lost (a ring overwritten before
 * it was read) never completes; it stays open and is counted as
 * incomplete.  Open instances of two accumulators (the ranks of two
 * hosts) merge: an instance completes when the merged calls cover it. */
#ifndef GROVE_MONITOR_INSTANCES_H
#define GROVE_MONITOR_INSTANCES_H

#include <stddef.h>
#include <stdint.h>

#include "monitor/pathmap.h"

/* Communicators larger than this are not followed (their instances are
 * counted as skipped): an open instance holds an entry per member. */
#define MON_INST_MAX_SIZE 4096u

struct mon_member {
	uint64_t arrive;    /* the call's start */
	uint64_t depart;    /* the call's end */
	char label[MON_LABEL_LEN]; /* the process ("mpi 3") */
	char fn[MON_NAME_LEN];     /* the function ("MPI_Allreduce") */
	uint8_t seen;
};

/* One complete instance, as handed to the completion callback (valid
 * during the call only). */
struct mon_instance {
	const char *scope;  /* "comm:CTX:FIRST" */
	uint32_t seq;
	uint32_t size;
	const struct mon_member *m; /* size entries, by rank in the scope */
};

typedef void (*mon_instance_fn)(void *ctx, const struct mon_instance *in);

struct mon_instances;

/* done is called for every instance that completes (by a feed or a
 * merge).  max_open bounds the open instances kept (0: 65536); calls of
 * further new instances are counted as dropped.  NULL: out of memory. */
struct mon_instances *mon_instances_new(mon_instance_fn done, void *ctx,
                                        size_t max_open);
void mon_instances_free(struct mon_instances *in);

/* One tuple of process proc, ring `ring`, in ring order.  GROVE_ENOMEM;
 * tuples that do not belong here are ignored. */
int mon_instances_feed(struct mon_instances *in, const struct mon_pathmap *pm,
                       uint32_t proc, uint32_t ring, const struct mon_tuple *t);

/* What a feeder may keep per (process, collector) for mon_instances_feed_at
 * (the analysis's routes), for one struct mon_instances: the hash of the
 * communicator's name, which begins the key of each of its instances,
 * and the communicator's window, where its open instances are found by
 * seq without the map.  Zeroed when made, and again whenever the
 * collector's registration may have changed. */
struct mon_inst_window;
struct mon_inst_hint {
	uint64_t scope_hash;
	int known;
	struct mon_inst_window *win;  /* NULL: none (too many) */
};
/* mon_instances_feed with the hint of t's collector (NULL: none). */
int mon_instances_feed_at(struct mon_instances *in,
                          const struct mon_pathmap *pm, uint32_t proc,
                          uint32_t ring, const struct mon_tuple *t,
                          struct mon_inst_hint *hint);

/* a := a and b (b is left as it was).  Instances b completes are handed
 * to a's callback.  GROVE_ENOMEM. */
int mon_instances_merge(struct mon_instances *a, const struct mon_instances *b);

struct mon_instances_counts {
	uint64_t complete;    /* instances completed */
	uint64_t open;        /* still waiting for calls (incomplete) */
	uint64_t dropped;     /* calls not kept: max_open reached */
	uint64_t duplicates;  /* a rank's call given twice */
	uint64_t skipped;     /* calls of communicators above
	                         MON_INST_MAX_SIZE, or of a rank outside it */
	uint64_t unpaired;    /* comm instants without their call */
};
void mon_instances_counts(const struct mon_instances *in,
                          struct mon_instances_counts *out);
/* Adds counts made elsewhere (an event scope's share from another
 * reader: it carries the counts, not the open instances themselves). */
void mon_instances_add_counts(struct mon_instances *in,
                              const struct mon_instances_counts *c);

#endif

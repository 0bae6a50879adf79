/* The analysis module's pathmap: which processes there are and what each
 * of their collectors is (internal, src/monitor).
 *
 * The analysis (src/monitor) turns tuples into load balance, statistics,
 * views and clock accuracy.  It is pure: no file, no socket, no clock.
 * Whoever reads event spaces (grove report from /dev/shm, a per-host
 * reader of an event scope) tells it the processes and their registered
 * collectors, then feeds their tuples, with times already on the common
 * timeline (trace/align.h).  The pathmap interprets a collector once,
 * when it is registered (its kind, and the numbers in its place:
 * "link:5->1", "stream:3", "comm:7:0" with "size:4"), so that feeding a
 * tuple costs no string work.
 *
 * Processes are named by role and rank ("be 3", "cp 1", "mpi 2"): that
 * name, not the index a pathmap gives, is what the accumulators keep, so
 * that accumulators filled on different hosts merge. */
#ifndef GROVE_MONITOR_PATHMAP_H
#define GROVE_MONITOR_PATHMAP_H

#include <stddef.h>
#include <stdint.h>

#include "grove/trace.h"

#define MON_ROLE_LEN 16
#define MON_HOST_LEN 64
#define MON_LABEL_LEN 32   /* "role rank" */
#define MON_NAME_LEN 48    /* as the registry keeps them (trace/space.h) */
#define MON_LAYER_LEN 16
#define MON_WHERE_LEN 96
#define MON_POS_LEN 88
/* Collector ids a process may have: the registry's limit. */
#define MON_MAX_COLLECTORS 2048u

/* What a collector is, as far as the analysis cares. */
enum mon_kind {
	MON_K_OTHER = 0,
	MON_K_LINK,      /* layer net, where "link:A->B": link.send, link.recv,
	                    link.writev, link.read */
	MON_K_FILTER,    /* layer filter (sync and transformation filters) */
	MON_K_WAVE,      /* "wave": a wave released at a node */
	MON_K_LAST_BE,   /* "wave.last_be": result = rank of the back-end
	                    whose packet completed the wave */
	MON_K_LAST_CP,   /* "wave.last_cp": result = node id of the CP child
	                    that completed it */
	MON_K_API,       /* layer api: a call into the TBON API */
	MON_K_MPI,       /* layer mpi, an MPI function (MPI_*) */
	MON_K_MPI_COMM,  /* layer mpi, "comm": a communicator's collective
	                    instances (GROVE_OP_MPI_COMM, docs/tracing.md) */
};

struct mon_collector {
	char name[MON_NAME_LEN];
	char layer[MON_LAYER_LEN];
	char where[MON_WHERE_LEN];
	char position[MON_POS_LEN];
	uint8_t kind;        /* enum mon_kind; MON_K_OTHER when unregistered */
	uint8_t collective;  /* MON_K_MPI: a collective function */
	/* MON_K_LINK: the sender's and the receiver's node ids;
	 * MON_K_WAVE / LAST_*, MON_K_FILTER on "stream:N": a = N;
	 * MON_K_MPI_COMM: a = the communicator's size. */
	int64_t a, b;
};

/* One tuple as the analysis takes it: the reader's tuple with its times
 * turned into ns on the common timeline (trace_proc_ns after
 * trace_set_align, or a scope's equivalent). */
struct mon_tuple {
	uint64_t t_start, t_end;
	uint32_t collector;  /* id in its process's registry */
	uint32_t seq;        /* the collector's own counter */
	int32_t result;
	uint16_t op;         /* enum grove_trace_op */
	uint16_t flags;      /* GROVE_TRACE_F_* */
};

struct mon_proc {
	char label[MON_LABEL_LEN];  /* "be 3": the name accumulators keep */
	char role[MON_ROLE_LEN];
	uint32_t rank;
	char host[MON_HOST_LEN];
	/* The process's TBON node id, known once it registered a link
	 * collector (its end of "link:A->B"); -1 until then.  A CP's rank
	 * is its node id; a back-end's is not. */
	int64_t node;
	uint32_t n_coll;             /* room in coll (highest id seen) */
	struct mon_collector *coll;  /* index id - 1 */
	uint64_t lost;               /* tuples lost before they were read */
	uint64_t tuples;             /* tuples fed */
};

struct mon_pathmap {
	uint32_t n, cap;
	struct mon_proc *p;
	/* Counts the changes of processes and collectors (an index given,
	 * a collector registered or replaced): what was resolved from the
	 * pathmap (the analysis's routes, analysis.h) is stale once it
	 * moved on. */
	uint64_t gen;
};

void mon_pathmap_init(struct mon_pathmap *pm);
void mon_pathmap_free(struct mon_pathmap *pm);

/* The index of process (role, rank), added when new (host then set, or
 * kept when host is NULL or empty).  GROVE_EINVAL for an empty or overlong
 * role, GROVE_ENOMEM. */
int mon_pathmap_proc(struct mon_pathmap *pm, const char *role, uint32_t rank,
                     const char *host, uint32_t *idx);

/* Registers collector id (1..MON_MAX_COLLECTORS) of process proc, as its
 * registry entry says (strings may be NULL: empty; longer ones are cut
 * to the registry's sizes).  Registering an id again replaces it.
 * GROVE_EINVAL for a bad process or id, GROVE_ENOMEM. */
int mon_pathmap_collector(struct mon_pathmap *pm, uint32_t proc, uint32_t id,
                          const char *name, const char *layer,
                          const char *where, const char *position);

/* The collector id of process proc, or NULL (unknown id, id 0). */
static inline const struct mon_collector *
mon_pathmap_get(const struct mon_pathmap *pm, uint32_t proc, uint32_t id)
{
	if (proc >= pm->n || id == 0 || id > pm->p[proc].n_coll)
		return NULL;
	const struct mon_collector *c = &pm->p[proc].coll[id - 1];
	return c->name[0] || c->layer[0] || c->where[0] ? c : NULL;
}

/* The index of the process labelled `label` ("cp 4"), or -1. */
int64_t mon_pathmap_find(const struct mon_pathmap *pm, const char *label);
/* The index of the process with TBON node id `node`, or -1. */
int64_t mon_pathmap_find_node(const struct mon_pathmap *pm, int64_t node);

/* Orders process labels for people: by role (fe, cp, be, mpi, then
 * others by name), then by rank as a number ("be 2" before "be 10");
 * strings that are no labels by bytes.  strcmp-style result. */
int mon_label_cmp(const char *a, const char *b);

/* 1 when an MPI function of this name is a collective (every rank of a
 * communicator calls it, in the same order). */
int mon_mpi_collective(const char *name);

#endif

/* An event scope on this host: the event spaces of one network's or
 * `grove run` job's processes here, read lazily by a reader that is never
 * a monitored process (the monitor itself, or a CP or front-end of the
 * network answering a scope's pull: tbon/node_scope.c), tuples selected
 * where they are read and fed into an analysis of src/monitor, or kept
 * raw for a share (monitor/share.h; docs/monitoring.md, "Event
 * scopes").
 *
 * Nothing is read until scope_poll is called; each poll reads what the
 * writers added since the last one (trace_seg_poll), picks up processes
 * that started meanwhile, and counts exactly the tuples their rings
 * overwrote before they could be read: those overwritten before the
 * scope first read the ring (before the monitor attached) apart from
 * those lost while it was attached (the monitor fell behind). */
#ifndef GROVE_TOOLS_MONITOR_SCOPE_H
#define GROVE_TOOLS_MONITOR_SCOPE_H

#include <stddef.h>
#include <stdint.h>

#include "monitor/analysis.h"
#include "monitor/share.h"

/* What a scope passes on; NULL or -1 fields select anything.  A tuple
 * is selected when its collector's layer and name are these and its op
 * is this one. */
struct scope_select {
	const char *layer;
	const char *name;
	int op;             /* enum grove_trace_op, or -1 */
	/* Only what the load balance needs: last-arrival tuples of TBON
	 * waves (wave.last_be, wave.last_cp), and MPI collective calls with
	 * their communicator instants. */
	int last_only;
};

/* Whether the process (role, rank) of the network is this reader's to
 * read: 1 (with *node its TBON node id, or -1 when unknown) or 0.  A
 * scope without one reads every process of the network here. */
typedef int (*scope_admit_fn)(void *ctx, const char *role, uint32_t rank,
                              int64_t *node);

struct scope_proc;

struct scope {
	char net[64];
	struct scope_select sel;
	struct mon_analysis *a;     /* fed; not owned */
	struct scope_proc *p;
	size_t n, cap;
	uint64_t polls;
	uint64_t read;              /* tuples read from the rings */
	uint64_t selected;          /* of them fed to the analysis */
	uint64_t lost_before;       /* overwritten before the first read */
	uint64_t lost;              /* overwritten while attached */
	uint64_t gone;              /* processes whose space went away */
	uint64_t sent;              /* tuples put in raw blocks */
	/* Of the last poll: the largest share of a ring's slots written
	 * since the poll before (lost tuples included; above 1 when the
	 * ring wrapped), over the rings of processes read before: what
	 * paces the pulls (scope/pace.h).  0 when nothing was written. */
	double peak_fill;
	scope_admit_fn admit;       /* NULL: every process here */
	void *admit_ctx;
	/* Not NULL: selected tuples are not fed into the analysis but put
	 * here as raw blocks (monitor/share.h) with the lost counts; the
	 * analysis then only keeps the processes and their collectors. */
	struct mon_share_buf *raw;
	/* A view of a scope read elsewhere (through the tree): the
	 * processes read and the TBON nodes not read, as the front-end's
	 * share said; unread_nodes < 0: from the links of the spaces read
	 * here (monitor_view). */
	size_t procs_remote;
	int64_t unread_nodes;
	uint32_t readers, readers_all; /* that answered, of the placement */
	const char *how;               /* "tree" or "raw" for such a view,
	                                  "hosts" or "hosts-raw" for a job
	                                  read by a reader per host */
	const char *unread_hosts;      /* "hosts": the hosts not read,
	                                  comma-separated ("" none) */
	uint64_t share_bytes;          /* the shares it received, all pulls */
};

/* A scope over network (or job) net, feeding a.  sel may be NULL (its
 * strings must outlive the scope).  Reads nothing yet.  0 or
 * GROVE_EINVAL (net too long). */
int scope_init(struct scope *s, const char *net,
               const struct scope_select *sel, struct mon_analysis *a);

/* One pull: new processes, new collectors, new tuples into the analysis.
 * 0; GROVE_ENOMEM (the analysis is then incomplete); a listing failure of
 * /dev/shm (its grove_err).  A process whose space cannot be read any
 * more (removed and truncated) is counted in gone and left. */
int scope_poll(struct scope *s);

/* The scope's counts, for a share. */
void scope_counts(const struct scope *s, struct mon_share_counts *c);

/* Processes being read (or, for a view of a scope read elsewhere, read
 * there). */
size_t scope_procs(const struct scope *s);

/* Processes whose writer is still running, as of the last poll
 * (unfinished and alive: trace_writer_alive). */
size_t scope_running(const struct scope *s);

/* Process i's (i < scope_procs) pid and role (*role: "mpi", "be", "cp"
 * ...) as its space gives them; 0 when its space could not be read any
 * more. */
int scope_proc_pid(const struct scope *s, size_t i, const char **role);

void scope_free(struct scope *s);

/* The op named name (as trace_op_name writes it), or -1. */
int scope_op_parse(const char *name);

#endif

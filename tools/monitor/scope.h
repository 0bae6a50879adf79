/* An event scope on this host: the event spaces of one network's or
 * `grove run` job's processes here, read lazily by the monitor (never by
 * a monitored process), tuples selected where they are read and fed into
 * an analysis of src/monitor (docs/monitoring.md, "Live monitoring").
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

/* What a scope passes on; NULL or -1 fields select anything.  A tuple
 * is selected when its collector's layer and name are these and its op
 * is this one. */
struct scope_select {
	const char *layer;
	const char *name;
	int op;             /* enum grove_trace_op, or -1 */
};

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
};

/* A scope over network (or job) net, feeding a.  sel may be NULL.  Reads
 * nothing yet.  0 or GROVE_EINVAL (net too long). */
int scope_init(struct scope *s, const char *net,
               const struct scope_select *sel, struct mon_analysis *a);

/* One pull: new processes, new collectors, new tuples into the analysis.
 * 0; GROVE_ENOMEM (the analysis is then incomplete); a listing failure of
 * /dev/shm (its grove_err).  A process whose space cannot be read any
 * more (removed and truncated) is counted in gone and left. */
int scope_poll(struct scope *s);

/* Processes being read. */
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

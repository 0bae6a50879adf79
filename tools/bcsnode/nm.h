/* grove-bcs-node: the node manager of a host in BCS mode (grove run
 * --bcs).  This header is the node manager's data plane as its main loop
 * (nm_main.c) sees it: it runs the microphases of a time slice over the
 * descriptors the host's ranks post (src/mpi/bcs_desc.h).
 *
 *   nm_state.c   opening the job segment, the ranks, completions, wakes
 *   nm_dem.c     descriptor exchange: drains the ranks' descriptor rings
 *   nm_match.c   message scheduling: matching, probes, cancels
 *   nm_xfer.c    point-to-point: moving matched messages (CMA, chunks)
 *   nm_coll.c    collectives: barrier and broadcast, reductions
 *   nm_record.c  --record: the schedule of wildcard matches and tests
 *   nm_stall.c   finding a job that can never progress again
 *   nm_main.c    options, the slice loop (strobe receiver)
 */
#ifndef GROVE_BCSNODE_NM_H
#define GROVE_BCSNODE_NM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum nm_phase {
	NM_DEM = 0, /* descriptor exchange */
	NM_MSM,     /* message scheduling */
	NM_P2P,     /* point-to-point transfers */
	NM_BBM,     /* broadcast and barrier */
	NM_RED,     /* reductions */
	NM_PHASES
};

/* What one slice did on this node (EMDS, paper Table 5.2). */
struct nm_counts {
	uint32_t np2pdem;  /* point-to-point descriptors drained in DEM */
	uint32_t ncolldem; /* collective descriptors drained in DEM */
	uint32_t np2pmsm;  /* transfers scheduled in MSM (new or going on) */
	uint32_t ncollmsm; /* collectives scheduled in MSM */
	uint32_t bpts;     /* ranks blocked in this slice */
};

struct nm_opts {
	uint64_t slice_ns;      /* for the record file's header */
	uint64_t budget_bytes;  /* bytes moved per slice at most (chunks) */
	const char *record;     /* --record FILE or NULL */
	const char *replay;     /* the record being replayed, or NULL (named
	                           in stall reports) */
	uint64_t stall_slices;  /* slices with every rank waiting and nothing
	                           to do before the job is called stuck */
};

struct nm;

/* Maps the job segment (descriptor job_fd, inherited from grove run) and
 * announces this node manager in it: 0, or -1 with a message in err. */
int nm_open(struct nm **out, int job_fd, const struct nm_opts *o, char *err,
            size_t errlen);
void nm_close(struct nm *nm);

/* Runs microphase ph of slice.  After NM_DEM and NM_MSM, *more says
 * whether the slice has anything left to do (after DEM: new descriptors
 * or a transfer going on; after MSM: transfers, collectives); when it has
 * not, the rest of the slice's microphases may be skipped.  c collects
 * the slice's counts (zero it at the slice's start).  0, or -1 with a
 * message in err when the job cannot go on (a rank's memory cannot be
 * reached, the job is stuck). */
int nm_phase(struct nm *nm, uint64_t slice, enum nm_phase ph, bool *more,
             struct nm_counts *c, char *err, size_t errlen);

/* true once every rank has finalized or aborted (the node manager's
 * work is over). */
bool nm_done(const struct nm *nm);

#endif

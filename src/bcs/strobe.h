/* The strobe (internal): global time slices and their microphases on a
 * BCS machine (bcs-mpi.txt section 4.2).
 *
 * The sender (the machine manager, in grove run) starts slice i at
 * t0 + i * slice_ns with a strobe, an Xfer-And-Signal of {slice, DEM}
 * into every node's global memory with the strobe event, followed at once
 * on the same ordered stream by a Compare-And-Write on the nodes' done
 * variable.  Each node (its node manager) runs the microphase inside the
 * dispatch of the strobe and sets its done variable to (seq << 1 | more
 * work), so the query that follows is answered after the microphase: one
 * multicast and one reduction prove the microphase over everywhere and
 * tell whether any node has work left (the maximum of the done values).
 * A query that does not hold (a node behind) counts as an unsuccessful
 * synchronization retry (USR*) and is asked again.  Then the microstrobe
 * of the next microphase goes out, as the strobe did.  When no node has
 * work after DEM (nothing was posted, nothing is being moved) or after
 * MSM (nothing was scheduled), the slice ends there (its GTTS is shorter
 * than the slice).
 *
 * The strobe uses the last global variable and the last two events and
 * 16 bytes at the end of global memory: the callers keep off them.
 */
#ifndef GROVE_BCS_STROBE_H
#define GROVE_BCS_STROBE_H

#include <stdbool.h>
#include <stdint.h>

#include "bcs/emds.h"
#include "grove/bcs.h"

enum bcs_microphase {
	BCS_DEM = 0, /* descriptor exchange */
	BCS_MSM,     /* message scheduling */
	BCS_P2P,     /* point-to-point */
	BCS_BBM,     /* broadcast and barrier */
	BCS_RED,     /* reduce */
	BCS_MICROPHASES
};

/* What a node's phase callback counts for its EMDS row (Table 5.2). */
typedef struct bcs_strobe_counts {
	uint32_t np2pdem, np2pmsm, ncolldem, ncollmsm, bpts;
} bcs_strobe_counts;

typedef struct bcs_strobe_cfg {
	uint64_t slice_ns;    /* 250 us .. 10 s */
	uint64_t slices;      /* stop after this many (0: when stop says) */
	/* Called before each slice: true ends the run (the job is over). */
	bool (*stop)(void *arg, uint64_t slice);
	void *arg;
	int phase_timeout_ms; /* a microphase may take this long (0: 10 s) */
	bcs_emds *emds;       /* global statistics, or NULL */
} bcs_strobe_cfg;

typedef struct bcs_strobe_result {
	uint64_t slices;      /* slices started */
	uint64_t short_slices;/* ended after MSM: no node had work */
	uint64_t retries;     /* unsuccessful synchronization retries */
	uint64_t min_gtts_ns; /* the shortest slice's GTTS */
} bcs_strobe_result;

/* Runs slices until cfg->slices or cfg->stop, then tells the nodes to
 * stop (their receivers return 0).  0, or an error: GROVE_ELOST when a
 * node was lost (grove_bcs_last_error names it), GROVE_ETIMEDOUT when a
 * microphase did not end within phase_timeout_ms (named too). */
int bcs_strobe_sender_run(grove_bcs *mgr, const bcs_strobe_cfg *cfg,
    bcs_strobe_result *res);

/* A node's microphase: 0 or an error (which ends the receiver).  *more:
 * after DEM and after MSM, whether this node has work for the rest of
 * the slice. */
typedef int (*bcs_phase_fn)(void *arg, uint64_t slice, int microphase,
    bool *more, bcs_strobe_counts *c);

/* Waits for each strobe and microstrobe, runs phase(), reports done;
 * returns 0 when the sender stops, or an error: the manager is gone
 * (GROVE_ECLOSED), a node was lost (GROVE_ELOST), phase's own. */
int bcs_strobe_receiver_run(grove_bcs *node, bcs_phase_fn phase, void *arg,
    bcs_emds *emds);

#endif

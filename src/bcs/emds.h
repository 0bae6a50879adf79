/* EMDS: the per-slice statistics of the strobe (bcs-mpi.txt section
 * 5.2, Tables 5.1 and 5.2), kept for a window of slices [from, to] in
 * memory bounded by the window, written at the end as CSV and as JSON
 * lines (internal). */
#ifndef GROVE_BCS_EMDS_H
#define GROVE_BCS_EMDS_H

#include <stdint.h>
#include <stdio.h>

/* The most slices a window may hold (the paper's NICs held 10000). */
#define BCS_EMDS_MAX_SLICES 100000u

/* Global metrics (the strobe sender), Table 5.1; times in ns. */
enum bcs_emds_global {
	BCS_GETTS = 0, /* elapsed since the previous slice's strobe */
	BCS_GTDEM,     /* strobe -> every node finished DEM */
	BCS_GTMSM,     /* DEM done -> every node finished MSM */
	BCS_GTTS,      /* strobe -> the slice's last microphase done */
	BCS_USRTS,     /* unsuccessful synchronization retries, the slice */
	BCS_USRDEM,    /* ... in DEM */
	BCS_USRMSM,    /* ... in MSM */
	BCS_EMDS_GLOBAL_N
};
/* Local metrics (each strobe receiver), Table 5.2; times in ns. */
enum bcs_emds_local {
	BCS_LETTS = 0, /* elapsed since the previous slice's strobe here */
	BCS_LTDEM,     /* this node's DEM */
	BCS_LMSM,      /* this node's MSM */
	BCS_LTTS,      /* strobe -> this node's last microphase done */
	BCS_NP2PDEM,   /* counters the phase callback fills */
	BCS_NP2PMSM,
	BCS_NCOLLDEM,
	BCS_NCOLLMSM,
	BCS_BPTS,
	BCS_EMDS_LOCAL_N
};
#define BCS_EMDS_COLS 9 /* the wider of the two */

typedef struct bcs_emds {
	int local;         /* rows of local metrics (with the node id) */
	uint32_t node;
	uint64_t from, to; /* the window, inclusive */
	uint64_t *vals;    /* (to - from + 1) x BCS_EMDS_COLS */
	uint8_t *have;     /* per slice: recorded */
} bcs_emds;

/* A window of slices [from, to]: at most BCS_EMDS_MAX_SLICES
 * (GROVE_ERANGE), from <= to (GROVE_EINVAL); GROVE_ENOMEM.  err says
 * why. */
int bcs_emds_init(bcs_emds *e, int local, uint32_t node, uint64_t from,
    uint64_t to, char *err, size_t errlen);
void bcs_emds_fini(bcs_emds *e);
/* Keeps the row of slice (when inside the window): vals has
 * BCS_EMDS_GLOBAL_N or BCS_EMDS_LOCAL_N values. */
void bcs_emds_record(bcs_emds *e, uint64_t slice, const uint64_t *vals);
/* A global row also keeps its slice's strobe time (CLOCK_MONOTONIC ns),
 * not written to the files: grove run turns the rows into event-space
 * tuples with it.  Set it after bcs_emds_record. */
void bcs_emds_set_start(bcs_emds *e, uint64_t slice, uint64_t mono_ns);
/* Slice's row: 1 with its values (BCS_EMDS_GLOBAL_N or _LOCAL_N of
 * them) and, for a global row, its strobe time; 0 when none was
 * recorded. */
int bcs_emds_row(const bcs_emds *e, uint64_t slice, uint64_t *vals,
    uint64_t *start_ns);
/* Rows recorded. */
uint64_t bcs_emds_rows(const bcs_emds *e);
/* A header line, then one row per recorded slice (local rows carry the
 * node); 0 or GROVE_ESYS. */
int bcs_emds_write_csv(const bcs_emds *e, FILE *f);
/* One JSON object per line and slice. */
int bcs_emds_write_json(const bcs_emds *e, FILE *f);

#endif

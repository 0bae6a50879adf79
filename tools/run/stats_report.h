/* grove run --stats: the job's per-call statistics (the MMDS summary of
 * bcs-mpi.txt, Table 5.3) from the ranks' slots of the job segment.
 *
 * Read after every rank exited.  Per MPI primitive that any rank called:
 * min / max / total / count / average time over all ranks, the number
 * of ranks that called it and the bytes it moved; then the "Comp
 * Granularity" row (computation between MPI calls), the "Comm Overhead"
 * row (time in MPI calls) and the share of the run time spent in MPI
 * calls, and the check that computation + communication adds up to the
 * run time (MPI_Init's end to MPI_Finalize's start, per rank).  A rank
 * whose figures are not valid (it ended before MPI_Finalize, or its
 * statistics were off) is named with the reason, never left out. */
#ifndef GROVE_RUN_STATS_REPORT_H
#define GROVE_RUN_STATS_REPORT_H

#include <stdio.h>

struct mpi_job;

/* Writes the table to out and, with json_path (not NULL; "-" is standard
 * output), the same figures as JSON into that file (times in ns).
 * Returns 0, or -1 after a message on standard error naming what could
 * not be written and why. */
int run_stats_report(const struct mpi_job *job, FILE *out,
    const char *json_path);

#endif

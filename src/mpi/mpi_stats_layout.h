/* Per-rank call statistics as stored in the job segment, where the
 * launcher reads them after the ranks exit (grove run --stats).  Indexed
 * by enum mpi_fn (mpi_fn_list.h, generated from grove_mpi_functions.h). */
#ifndef GROVE_MPI_STATS_LAYOUT_H
#define GROVE_MPI_STATS_LAYOUT_H

#include <stdint.h>

enum mpi_stats_fn_id {
#define GROVE_MPI_FN_(name) MPI_STATS_FN_##name,
#include "mpi_fn_list.h"
#undef GROVE_MPI_FN_
	MPI_STATS_FN_COUNT_
};

struct mpi_stat_fn {
	uint64_t count;
	uint64_t total_ns;
	uint64_t min_ns;      /* UINT64_MAX when count == 0 */
	uint64_t max_ns;
	uint64_t bytes;
};

struct mpi_rank_stats {
	uint32_t valid;       /* 1 once MPI_Finalize wrote the final figures */
	uint32_t enabled;     /* statistics were collected */
	uint64_t t_init_ns;   /* CLOCK_MONOTONIC at the end of MPI_Init */
	uint64_t t_final_ns;  /* ... at the start of MPI_Finalize */
	uint64_t comm_ns;     /* time inside MPI calls (outermost) */
	uint64_t calls;       /* MPI calls (outermost) */
	struct mpi_stat_fn fn[MPI_STATS_FN_COUNT_];
};

#endif

/* grove run inside a Slurm allocation (salloc, sbatch): the
 * allocation's hosts and task count (docs/hosts.md). */
#ifndef GROVE_RUN_SLURM_H
#define GROVE_RUN_SLURM_H

#include <stddef.h>

/* The allocation's hosts, expanded from SLURM_JOB_NODELIST: 1 not in an
 * allocation (SLURM_JOB_ID unset), 0 with *hosts (free with
 * hostlist_free), -1 with err. */
int run_slurm_hosts(char ***hosts, size_t *n, char *err, size_t errlen);

/* The number of ranks when -n is not given: 1 not in an allocation, 0
 * with *n the allocation's task count (SLURM_NTASKS) when its one host
 * is this one, -1 with err (several hosts, another host, no task count;
 * err says what to do). */
int run_slurm_ranks(unsigned *n, unsigned max, char *err, size_t errlen);

#endif

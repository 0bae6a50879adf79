/* grove run inside a Slurm allocation (salloc, sbatch): the
 * allocation's hosts and task count (docs/hosts.md). */
#ifndef GROVE_RUN_SLURM_H
#define GROVE_RUN_SLURM_H

#include <stdbool.h>
#include <stddef.h>

/* The allocation's hosts, expanded from SLURM_JOB_NODELIST: 1 not in an
 * allocation (SLURM_JOB_ID unset), 0 with *hosts (free with
 * hostlist_free), -1 with err. */
int run_slurm_hosts(char ***hosts, size_t *n, char *err, size_t errlen);

/* What an allocation gives grove run when its command line does not say
 * (have_n: -n was given; the caller checks --hosts first).  1: not in an
 * allocation, or -n given on an allocation of another single host: use
 * the command line.  0: *n is the allocation's task count unless have_n,
 * and *hosts_out (malloc'd, "H1,H2,...") the allocation's hosts when
 * there are several, NULL when the allocation is this host.  -1 with
 * err (another host without -n, no task count; err says what to do). */
int run_slurm_apply(unsigned *n, bool have_n, char **hosts_out,
    unsigned max, char *err, size_t errlen);

#endif

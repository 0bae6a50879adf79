/* grove run inside a Slurm allocation: `salloc -n 4 grove run ./prog`
 * starts the allocation's 4 tasks as ranks on this host.  The ranks of
 * a grove run job share memory, so the allocation must be this one
 * host; on several hosts grove run says so instead of starting them all
 * here. */
#define _GNU_SOURCE
#include "run_slurm.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hostlist.h"

int
run_slurm_hosts(char ***hosts, size_t *n, char *err, size_t errlen)
{
	const char *job = getenv("SLURM_JOB_ID");
	if (!job || !*job)
		return 1;
	const char *list = getenv("SLURM_JOB_NODELIST");
	const char *var = "SLURM_JOB_NODELIST";
	if (!list || !*list) {
		list = getenv("SLURM_NODELIST");
		var = "SLURM_NODELIST";
	}
	if (!list || !*list) {
		snprintf(err, errlen, "in Slurm job %s but SLURM_JOB_NODELIST is "
		    "not set", job);
		return -1;
	}
	char why[200];
	if (hostlist_expand(list, hosts, n, why, sizeof why) != 0) {
		snprintf(err, errlen, "%s='%.100s': %s", var, list, why);
		return -1;
	}
	return 0;
}

/* Whether name is this host: its name, or the name's first label
 * (Slurm's node names are usually short). */
static int
is_this_host(const char *name, char *me, size_t melen)
{
	if (gethostname(me, melen - 1) != 0)
		snprintf(me, melen, "localhost");
	me[melen - 1] = '\0';
	if (!strcmp(name, me) || !strcmp(name, "localhost"))
		return 1;
	size_t a = strcspn(me, "."), b = strcspn(name, ".");
	return a == b && !strncmp(me, name, a);
}

int
run_slurm_ranks(unsigned *n, unsigned max, char *err, size_t errlen)
{
	char **hosts = NULL;
	size_t nh = 0;
	int rc = run_slurm_hosts(&hosts, &nh, err, errlen);
	if (rc != 0)
		return rc;
	const char *job = getenv("SLURM_JOB_ID");
	char me[256];
	rc = -1;
	if (nh != 1) {
		snprintf(err, errlen, "Slurm job %s has %zu hosts (%s, %s%s): grove "
		    "run starts the ranks of a job on this host only; give -n N "
		    "to run N here", job, nh, hosts[0], hosts[1],
		    nh > 2 ? ", ..." : "");
	} else if (!is_this_host(hosts[0], me, sizeof me)) {
		snprintf(err, errlen, "Slurm job %s runs on %s, this is %s: start "
		    "grove run there (srun -n 1 grove run ...), or give -n N to "
		    "run N here", job, hosts[0], me);
	} else {
		const char *t = getenv("SLURM_NTASKS");
		if (!t || !*t)
			t = getenv("SLURM_NPROCS");
		char *end;
		errno = 0;
		long v = t ? strtol(t, &end, 10) : 0;
		if (!t || !*t) {
			snprintf(err, errlen, "Slurm job %s has no task count "
			    "(SLURM_NTASKS): allocate with -n N, or give -n N", job);
		} else if (errno || *end || v < 1 || v > (long)max) {
			snprintf(err, errlen, "SLURM_NTASKS='%.40s' is not a number of "
			    "ranks in 1..%u", t, max);
		} else {
			*n = (unsigned)v;
			rc = 0;
		}
	}
	hostlist_free(hosts, nh);
	return rc;
}

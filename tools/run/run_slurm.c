/* grove run inside a Slurm allocation: `salloc -n 4 grove run ./prog`
 * starts the allocation's 4 tasks as ranks.  On an allocation of one
 * host (this one) they share memory, as with -n; on several hosts they
 * are placed on the allocation's hosts as --hosts would place them (in
 * blocks, over TCP), unless the command line names hosts itself. */
#define _GNU_SOURCE
#include "run_slurm.h"

#include <errno.h>
#include <stdbool.h>
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

/* The allocation's task count (SLURM_NTASKS, else SLURM_NPROCS): 0 or
 * -1 with err. */
static int
task_count(const char *job, unsigned *n, unsigned max, char *err,
    size_t errlen)
{
	const char *t = getenv("SLURM_NTASKS");
	if (!t || !*t)
		t = getenv("SLURM_NPROCS");
	if (!t || !*t) {
		snprintf(err, errlen, "Slurm job %s has no task count "
		    "(SLURM_NTASKS): allocate with -n N, or give -n N", job);
		return -1;
	}
	char *end;
	errno = 0;
	long v = strtol(t, &end, 10);
	if (errno || *end || v < 1 || v > (long)max) {
		snprintf(err, errlen, "SLURM_NTASKS='%.40s' is not a number of "
		    "ranks in 1..%u", t, max);
		return -1;
	}
	*n = (unsigned)v;
	return 0;
}

int
run_slurm_apply(unsigned *n, bool have_n, char **hosts_out, unsigned max,
    char *err, size_t errlen)
{
	*hosts_out = NULL;
	char **hosts = NULL;
	size_t nh = 0;
	int rc = run_slurm_hosts(&hosts, &nh, err, errlen);
	if (rc != 0)
		return rc;
	const char *job = getenv("SLURM_JOB_ID");
	char me[256];
	rc = -1;
	if (nh == 1 && !is_this_host(hosts[0], me, sizeof me)) {
		if (have_n)
			rc = 1; /* -n N here, as outside an allocation */
		else
			snprintf(err, errlen, "Slurm job %s runs on %s, this is %s: "
			    "start grove run there (srun -n 1 grove run ...), or "
			    "give -n N to run N here", job, hosts[0], me);
	} else if (!have_n && task_count(job, n, max, err, errlen) != 0) {
		/* err says why */
	} else if (nh == 1) {
		rc = 0;
	} else {
		/* Several hosts: "H1,H2,..." for --hosts. */
		size_t len = 1;
		for (size_t i = 0; i < nh; i++)
			len += strlen(hosts[i]) + 1;
		char *list = malloc(len);
		if (!list) {
			snprintf(err, errlen, "out of memory");
		} else {
			size_t o = 0;
			for (size_t i = 0; i < nh; i++)
				o += (size_t)sprintf(list + o, "%s%s", i ? "," : "",
				    hosts[i]);
			*hosts_out = list;
			rc = 0;
		}
	}
	hostlist_free(hosts, nh);
	return rc;
}

/* PMI-2, as Slurm's srun --mpi=pmi2 offers it: the library is loaded
 * at run time (dlopen of libpmi2.so.0, from Debian's libpmi2-0) so that
 * libgrove-mpi depends on it only when a job is started that way.  The
 * few functions used are declared here with the signatures of Slurm's
 * pmi2.h. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/boot.h"

#define PMI2_LIB "libpmi2.so.0"
#define PMI2_SUCCESS 0
#define PMI2_MAX_VALLEN 1024

/* Process-wide on purpose: one launcher per process, loaded once in
 * MPI_Init and used until MPI_Finalize. */
static struct {
	void *lib;
	int (*init)(int *spawned, int *size, int *rank, int *appnum);
	int (*finalize)(void);
	int (*abort)(int flag, const char msg[]);
	int (*job_getid)(char jobid[], int jobid_size);
	int (*put)(const char key[], const char value[]);
	int (*fence)(void);
	int (*get)(const char *jobid, int src_pmi_id, const char key[],
	    char value[], int maxvalue, int *vallen);
} pmi2;

static int
pmi2_put(const char *key, const char *value, char *err, size_t errlen)
{
	int rc = pmi2.put(key, value);
	if (rc != PMI2_SUCCESS) {
		snprintf(err, errlen, "PMI2_KVS_Put(%s) failed: error %d", key, rc);
		return -1;
	}
	return 0;
}

static int
pmi2_fence(char *err, size_t errlen)
{
	int rc = pmi2.fence();
	if (rc != PMI2_SUCCESS) {
		snprintf(err, errlen, "PMI2_KVS_Fence failed: error %d", rc);
		return -1;
	}
	return 0;
}

static int
pmi2_get(int src, const char *key, char *value, size_t len, char *err,
    size_t errlen)
{
	char buf[PMI2_MAX_VALLEN + 1];
	int got = 0;
	int rc = pmi2.get(NULL, src, key, buf, (int)sizeof buf - 1, &got);
	if (rc != PMI2_SUCCESS || got < 0) {
		snprintf(err, errlen, "PMI2_KVS_Get(rank %d, %s) failed: error %d",
		    src, key, rc);
		return -1;
	}
	buf[got < (int)sizeof buf ? got : (int)sizeof buf - 1] = '\0';
	if (strlen(buf) >= len) {
		snprintf(err, errlen, "rank %d's %s is too long (%zu bytes)", src,
		    key, strlen(buf));
		return -1;
	}
	memcpy(value, buf, strlen(buf) + 1);
	return 0;
}

static void
pmi2_abort(int code, const char *msg)
{
	(void)code;
	/* flag 1: the whole job, not this process alone. */
	pmi2.abort(1, msg);
}

static void
pmi2_fini(void)
{
	pmi2.finalize();
}

/* Looks a function up; stores it through fp (a function pointer's
 * address: ISO C has no cast between object and function pointers). */
static int
sym(void *fp, const char *name, char *err, size_t errlen)
{
	void *f = dlsym(pmi2.lib, name);
	if (!f) {
		snprintf(err, errlen, "%s has no %s: %s", PMI2_LIB, name, dlerror());
		return -1;
	}
	memcpy(fp, &f, sizeof f);
	return 0;
}

int
mpi_boot_pmi2_probe(struct mpi_boot_kvs *kvs, int *rank, int *size,
    char *jobid, size_t idlen, char *err, size_t errlen)
{
	/* srun --mpi=pmi2 sets PMI_FD (its socket to slurmstepd), PMI_RANK,
	 * PMI_SIZE and PMI_JOBID. */
	const char *fd = getenv("PMI_FD"), *r = getenv("PMI_RANK");
	if (!fd || !*fd || !r || !*r)
		return 0;
	/* GROVE_MPI_PMI2_LIB names another library (a site's own build). */
	const char *lib = getenv("GROVE_MPI_PMI2_LIB");
	if (!lib || !*lib)
		lib = PMI2_LIB;
	pmi2.lib = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!pmi2.lib) {
		snprintf(err, errlen, "started with PMI-2 (PMI_FD and PMI_RANK are "
		    "set, as srun --mpi=pmi2 does) but %s cannot be loaded: %s "
		    "(install Slurm's PMI-2 library, Debian's libpmi2-0)",
		    lib, dlerror());
		return -1;
	}
	if (sym(&pmi2.init, "PMI2_Init", err, errlen) ||
	    sym(&pmi2.finalize, "PMI2_Finalize", err, errlen) ||
	    sym(&pmi2.abort, "PMI2_Abort", err, errlen) ||
	    sym(&pmi2.job_getid, "PMI2_Job_GetId", err, errlen) ||
	    sym(&pmi2.put, "PMI2_KVS_Put", err, errlen) ||
	    sym(&pmi2.fence, "PMI2_KVS_Fence", err, errlen) ||
	    sym(&pmi2.get, "PMI2_KVS_Get", err, errlen))
		return -1;
	int spawned = 0, appnum = 0;
	int rc = pmi2.init(&spawned, size, rank, &appnum);
	if (rc != PMI2_SUCCESS) {
		snprintf(err, errlen, "PMI2_Init failed: error %d", rc);
		return -1;
	}
	if (*size < 1 || *rank < 0 || *rank >= *size) {
		snprintf(err, errlen, "PMI2_Init gave rank %d of %d", *rank, *size);
		return -1;
	}
	char id[256];
	rc = pmi2.job_getid(id, (int)sizeof id);
	if (rc != PMI2_SUCCESS) {
		snprintf(err, errlen, "PMI2_Job_GetId failed: error %d", rc);
		return -1;
	}
	id[sizeof id - 1] = '\0';
	snprintf(jobid, idlen, "pmi2-%s", id);
	*kvs = (struct mpi_boot_kvs){
		.name = "PMI-2",
		.one_host_hint = "run srun with -N 1",
		.put = pmi2_put,
		.fence = pmi2_fence,
		.get = pmi2_get,
		.abort = pmi2_abort,
		.fini = pmi2_fini,
	};
	return 1;
}

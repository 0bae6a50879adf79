/* PMIx, as Open MPI's mpirun (and srun --mpi=pmix) offers it.  Built
 * only when pmix.h is found (GROVE_HAVE_PMIX, from libpmix-dev): its
 * types and key names come from the header, the functions from
 * libpmix.so.2 loaded at run time, so that libgrove-mpi depends on it
 * only when a job is started that way. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/boot.h"

#ifndef GROVE_HAVE_PMIX

int
mpi_boot_pmix_probe(struct mpi_boot_kvs *kvs, int *rank, int *size,
    char *jobid, size_t idlen, char *err, size_t errlen)
{
	(void)kvs, (void)rank, (void)size, (void)jobid, (void)idlen;
	if (!getenv("PMIX_NAMESPACE") || !getenv("PMIX_RANK"))
		return 0;
	snprintf(err, errlen, "started by a PMIx launcher (PMIX_NAMESPACE is "
	    "set, as Open MPI's mpirun does) but this Grove MPI was built "
	    "without PMIx (pmix.h from libpmix-dev was not found)");
	return -1;
}

#else

#include <dlfcn.h>
#include <pmix.h>

#define PMIX_LIB "libpmix.so.2"

/* Process-wide on purpose: one launcher per process, loaded once in
 * MPI_Init and used until MPI_Finalize. */
static struct {
	void *lib;
	pmix_proc_t me;
	pmix_status_t (*init)(pmix_proc_t *proc, pmix_info_t info[],
	    size_t ninfo);
	pmix_status_t (*finalize)(const pmix_info_t info[], size_t ninfo);
	pmix_status_t (*abort)(int status, const char msg[],
	    pmix_proc_t procs[], size_t nprocs);
	pmix_status_t (*put)(pmix_scope_t scope, const pmix_key_t key,
	    pmix_value_t *val);
	pmix_status_t (*commit)(void);
	pmix_status_t (*fence)(const pmix_proc_t procs[], size_t nprocs,
	    const pmix_info_t info[], size_t ninfo);
	pmix_status_t (*get)(const pmix_proc_t *proc, const pmix_key_t key,
	    const pmix_info_t info[], size_t ninfo, pmix_value_t **val);
	const char *(*error_string)(pmix_status_t status);
} px;

static const char *
px_error(pmix_status_t rc)
{
	return px.error_string ? px.error_string(rc) : "error";
}

/* A value PMIx_Get returned: PMIx allocates it with malloc. */
static void
px_value_free(pmix_value_t *v)
{
	if (!v)
		return;
	if (v->type == PMIX_STRING)
		free(v->data.string);
	free(v);
}

static int
px_put(const char *key, const char *value, char *err, size_t errlen)
{
	pmix_value_t v;
	memset(&v, 0, sizeof v);
	v.type = PMIX_STRING;
	v.data.string = (char *)value;
	pmix_status_t rc = px.put(PMIX_GLOBAL, key, &v);
	if (rc != PMIX_SUCCESS) {
		snprintf(err, errlen, "PMIx_Put(%s): %s", key, px_error(rc));
		return -1;
	}
	return 0;
}

static int
px_fence(char *err, size_t errlen)
{
	pmix_status_t rc = px.commit();
	if (rc != PMIX_SUCCESS) {
		snprintf(err, errlen, "PMIx_Commit: %s", px_error(rc));
		return -1;
	}
	/* Collect the data: every rank reads every card after fence 1. */
	pmix_info_t info;
	memset(&info, 0, sizeof info);
	snprintf(info.key, sizeof info.key, "%s", PMIX_COLLECT_DATA);
	info.value.type = PMIX_BOOL;
	info.value.data.flag = true;
	rc = px.fence(NULL, 0, &info, 1);
	if (rc != PMIX_SUCCESS) {
		snprintf(err, errlen, "PMIx_Fence: %s", px_error(rc));
		return -1;
	}
	return 0;
}

static int
px_get(int src, const char *key, char *value, size_t len, char *err,
    size_t errlen)
{
	pmix_proc_t p;
	memset(&p, 0, sizeof p);
	memcpy(p.nspace, px.me.nspace, sizeof p.nspace);
	p.rank = (pmix_rank_t)src;
	pmix_value_t *v = NULL;
	pmix_status_t rc = px.get(&p, key, NULL, 0, &v);
	if (rc != PMIX_SUCCESS || !v || v->type != PMIX_STRING ||
	    !v->data.string) {
		snprintf(err, errlen, "PMIx_Get(rank %d, %s): %s", src, key,
		    rc != PMIX_SUCCESS ? px_error(rc) : "not a string");
		px_value_free(v);
		return -1;
	}
	size_t n = strlen(v->data.string);
	if (n >= len) {
		snprintf(err, errlen, "rank %d's %s is too long (%zu bytes)", src,
		    key, n);
		px_value_free(v);
		return -1;
	}
	memcpy(value, v->data.string, n + 1);
	px_value_free(v);
	return 0;
}

static void
px_abort(int code, const char *msg)
{
	px.abort(code ? code : 1, msg, NULL, 0);
}

static void
px_fini(void)
{
	px.finalize(NULL, 0);
}

static int
sym(void *fp, const char *name, char *err, size_t errlen)
{
	void *f = dlsym(px.lib, name);
	if (!f) {
		snprintf(err, errlen, "%s has no %s: %s", PMIX_LIB, name, dlerror());
		return -1;
	}
	memcpy(fp, &f, sizeof f);
	return 0;
}

/* The job's size: PMIX_JOB_SIZE of the namespace. */
static int
job_size(int *size, char *err, size_t errlen)
{
	pmix_proc_t wild;
	memset(&wild, 0, sizeof wild);
	memcpy(wild.nspace, px.me.nspace, sizeof wild.nspace);
	wild.rank = PMIX_RANK_WILDCARD;
	pmix_value_t *v = NULL;
	pmix_status_t rc = px.get(&wild, PMIX_JOB_SIZE, NULL, 0, &v);
	if (rc != PMIX_SUCCESS || !v) {
		snprintf(err, errlen, "PMIx_Get(PMIX_JOB_SIZE): %s", px_error(rc));
		px_value_free(v);
		return -1;
	}
	long n = -1;
	switch (v->type) {
	case PMIX_UINT32: n = (long)v->data.uint32; break;
	case PMIX_INT: n = (long)v->data.integer; break;
	case PMIX_UINT: n = (long)v->data.uint; break;
	case PMIX_SIZE: n = (long)v->data.size; break;
	default: break;
	}
	px_value_free(v);
	if (n < 1 || n > 1 << 24) {
		snprintf(err, errlen, "PMIX_JOB_SIZE is not a job size (%ld)", n);
		return -1;
	}
	*size = (int)n;
	return 0;
}

int
mpi_boot_pmix_probe(struct mpi_boot_kvs *kvs, int *rank, int *size,
    char *jobid, size_t idlen, char *err, size_t errlen)
{
	if (!getenv("PMIX_NAMESPACE") || !getenv("PMIX_RANK"))
		return 0;
	px.lib = dlopen(PMIX_LIB, RTLD_NOW | RTLD_GLOBAL);
	if (!px.lib) {
		snprintf(err, errlen, "started by a PMIx launcher (PMIX_NAMESPACE "
		    "is set, as Open MPI's mpirun does) but %s cannot be loaded: "
		    "%s (install Debian's libpmix2)", PMIX_LIB, dlerror());
		return -1;
	}
	if (sym(&px.init, "PMIx_Init", err, errlen) ||
	    sym(&px.finalize, "PMIx_Finalize", err, errlen) ||
	    sym(&px.abort, "PMIx_Abort", err, errlen) ||
	    sym(&px.put, "PMIx_Put", err, errlen) ||
	    sym(&px.commit, "PMIx_Commit", err, errlen) ||
	    sym(&px.fence, "PMIx_Fence", err, errlen) ||
	    sym(&px.get, "PMIx_Get", err, errlen))
		return -1;
	sym(&px.error_string, "PMIx_Error_string", err, errlen);
	err[0] = '\0';
	pmix_status_t rc = px.init(&px.me, NULL, 0);
	if (rc != PMIX_SUCCESS) {
		snprintf(err, errlen, "PMIx_Init: %s", px_error(rc));
		return -1;
	}
	if (job_size(size, err, errlen))
		return -1;
	*rank = (int)px.me.rank;
	if (*rank < 0 || *rank >= *size) {
		snprintf(err, errlen, "PMIx gave rank %d of %d", *rank, *size);
		return -1;
	}
	snprintf(jobid, idlen, "pmix-%s", px.me.nspace);
	*kvs = (struct mpi_boot_kvs){
		.name = "PMIx",
		.one_host_hint = "run the ranks on one host (mpirun --host "
		    "<host>:<n>)",
		.put = px_put,
		.fence = px_fence,
		.get = px_get,
		.abort = px_abort,
		.fini = px_fini,
	};
	return 1;
}

#endif

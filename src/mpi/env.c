/* Grove MPI: queries of the environment (time, names, versions, thread
 * level) and memory allocation.  Wtime, Wtick, Get_version,
 * Get_library_version, Initialized and Finalized work before MPI_Init and
 * after MPI_Finalize, as the standard allows. */
#include "mpi/mpi_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef GROVE_MPI_VERSION_STRING
#define GROVE_MPI_VERSION_STRING "0.1.0"
#endif

double
PMPI_Wtime(void)
{
	/* Not counted in the statistics: programs call it around the code
	 * they time, and a clock read costs less than counting it. */
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9 - mpi_proc.wtime0;
}

double
PMPI_Wtick(void)
{
	struct timespec ts;
	if (clock_getres(CLOCK_MONOTONIC, &ts) != 0 ||
	    (ts.tv_sec == 0 && ts.tv_nsec == 0))
		return 1e-9;
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int
PMPI_Get_version(int *version, int *subversion)
{
	if (!version || !subversion)
		return MPI_ERR_ARG;
	*version = MPI_VERSION;
	*subversion = MPI_SUBVERSION;
	return MPI_SUCCESS;
}

int
PMPI_Get_library_version(char *version, int *resultlen)
{
	if (!version || !resultlen)
		return MPI_ERR_ARG;
	int n = snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING,
	                 "Grove MPI %s, MPI %d.%d (direct mode)",
	                 GROVE_MPI_VERSION_STRING, MPI_VERSION, MPI_SUBVERSION);
	*resultlen = n < MPI_MAX_LIBRARY_VERSION_STRING
	                     ? n
	                     : MPI_MAX_LIBRARY_VERSION_STRING - 1;
	return MPI_SUCCESS;
}

int
PMPI_Initialized(int *flag)
{
	if (!flag)
		return MPI_ERR_ARG;
	/* Stays true after MPI_Finalize, as the standard says. */
	*flag = mpi_proc.state >= 1;
	return MPI_SUCCESS;
}

int
PMPI_Finalized(int *flag)
{
	if (!flag)
		return MPI_ERR_ARG;
	*flag = mpi_proc.state == 2;
	return MPI_SUCCESS;
}

int
PMPI_Get_processor_name(char *name, int *resultlen)
{
	int rc = mpi_check_initialized(MPI_FN_Get_processor_name);
	if (rc)
		return rc;
	MPI_ENTER(Get_processor_name);
	if (!name || !resultlen) {
		rc = mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, MPI_FN_Get_processor_name,
		             "%s is NULL", name ? "resultlen" : "name");
	} else {
		if (mpi_proc.processor_name[0]) {
			snprintf(name, MPI_MAX_PROCESSOR_NAME, "%s",
			         mpi_proc.processor_name);
		} else if (gethostname(name, MPI_MAX_PROCESSOR_NAME) != 0) {
			snprintf(name, MPI_MAX_PROCESSOR_NAME, "localhost");
		}
		name[MPI_MAX_PROCESSOR_NAME - 1] = '\0';
		*resultlen = (int)strlen(name);
	}
	MPI_EXIT(Get_processor_name, -1, 0, 0);
	return rc;
}

int
PMPI_Query_thread(int *provided)
{
	int rc = mpi_check_initialized(MPI_FN_Query_thread);
	if (rc)
		return rc;
	MPI_ENTER(Query_thread);
	if (!provided)
		rc = mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, MPI_FN_Query_thread,
		             "provided is NULL");
	else
		*provided = mpi_proc.thread_level;
	MPI_EXIT(Query_thread, -1, 0, 0);
	return rc;
}

int
PMPI_Is_thread_main(int *flag)
{
	int rc = mpi_check_initialized(MPI_FN_Is_thread_main);
	if (rc)
		return rc;
	MPI_ENTER(Is_thread_main);
	if (!flag)
		rc = mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, MPI_FN_Is_thread_main,
		             "flag is NULL");
	else
		/* The process's first thread (tid == pid), which is the one
		 * that calls MPI_Init in the programs Grove supports. */
		*flag = (pid_t)syscall(SYS_gettid) == getpid();
	MPI_EXIT(Is_thread_main, -1, 0, 0);
	return rc;
}

int
PMPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr)
{
	int rc = mpi_check_initialized(MPI_FN_Alloc_mem);
	if (rc)
		return rc;
	MPI_ENTER(Alloc_mem);
	if (size < 0 || !baseptr) {
		rc = mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, MPI_FN_Alloc_mem,
		             "size %ld or baseptr is invalid", (long)size);
	} else {
		/* No memory is special to Grove's transports: plain malloc
		 * (one byte for size 0, so that the pointer is freeable). */
		void *p = malloc(size ? (size_t)size : 1);
		if (!p)
			rc = mpi_err(MPI_COMM_NULL, MPI_ERR_NO_MEM, MPI_FN_Alloc_mem,
			             "%ld bytes", (long)size);
		else
			*(void **)baseptr = p;
	}
	MPI_EXIT(Alloc_mem, -1, 0, 0);
	return rc;
}

int
PMPI_Free_mem(void *base)
{
	int rc = mpi_check_initialized(MPI_FN_Free_mem);
	if (rc)
		return rc;
	MPI_ENTER(Free_mem);
	free(base);
	MPI_EXIT(Free_mem, -1, 0, 0);
	return rc;
}

int
PMPI_Pcontrol(const int level, ...)
{
	/* Profiling control is for tools that wrap MPI_Pcontrol; Grove's
	 * own statistics ignore it. */
	return MPI_SUCCESS;
}

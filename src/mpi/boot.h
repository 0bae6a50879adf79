/* Start-up under another launcher than grove run: Slurm's srun
 * (--mpi=pmi2, PMI-2) and Open MPI's mpirun (PMIx).  The launcher gives
 * each process its rank, the job's size and id and a key-value space
 * with fences; boot.c exchanges the ranks' cards through it and sets up
 * the host's job segment (boot_shm.c) the way grove run's tree wire-up
 * does (wireup.c), so that MPI_Init continues the same way after it.
 *
 * The order, with the fences every rank of the job passes together:
 *   mpi_boot_launcher     put card, fence 1, get every card, check they
 *                         are on one host; the lowest rank of the host
 *                         creates the named segment, fence 2, the others
 *                         map it
 *   (MPI_Init writes this rank's control block into the segment)
 *   mpi_boot_ready        fence 3: every rank has mapped the segment and
 *                         written its control block; the creator
 *                         removes the segment's name, so nothing of it
 *                         outlives the job
 */
#ifndef GROVE_MPI_BOOT_H
#define GROVE_MPI_BOOT_H

#include <stdbool.h>
#include <stddef.h>

struct mpi_job;

/* A launcher's key-value space (boot_pmi2.c, boot_pmix.c). */
struct mpi_boot_kvs {
	const char *name; /* "PMI-2", "PMIx" */
	/* How to ask this launcher for one host, for the error message. */
	const char *one_host_hint;
	/* Publishes key=value for the other ranks (visible after a fence). */
	int (*put)(const char *key, const char *value, char *err, size_t errlen);
	/* Every rank of the job passes it together; collects the puts. */
	int (*fence)(char *err, size_t errlen);
	/* Rank src's value of key. */
	int (*get)(int src, const char *key, char *value, size_t len, char *err,
	    size_t errlen);
	/* Asks the launcher to end the whole job. */
	void (*abort)(int code, const char *msg);
	/* Leaves the launcher (MPI_Finalize). */
	void (*fini)(void);
};

/* Each launcher's probe: 0 not started by it (its variables are absent),
 * 1 started by it (rank, size and the job id, at most idlen bytes, are
 * set; kvs filled), -1 started by it but it cannot be used (err says
 * why: library missing, built without it, its init failed). */
int mpi_boot_pmi2_probe(struct mpi_boot_kvs *kvs, int *rank, int *size,
    char *jobid, size_t idlen, char *err, size_t errlen);
int mpi_boot_pmix_probe(struct mpi_boot_kvs *kvs, int *rank, int *size,
    char *jobid, size_t idlen, char *err, size_t errlen);

/* Called by MPI_Init when no grove run started this process: 0 no
 * launcher of boot.c's either (a singleton, or refused in err when srun
 * started several tasks without PMI), 1 started by one (job attached,
 * rank and size set), -1 error (in err). */
int mpi_boot_launcher(struct mpi_job *job, int *rank, int *size, char *err,
    size_t errlen);
/* Whether mpi_boot_launcher returned 1 (MPI_Init then calls
 * mpi_boot_ready instead of the tree's wire-up). */
bool mpi_boot_active(void);
/* Fence 3 (see above): 0 or -1 with err. */
int mpi_boot_ready(char *err, size_t errlen);
/* MPI_Finalize: leaves the launcher. */
void mpi_boot_fini(void);
/* MPI_Abort and fatal errors: removes the segment's name if this rank
 * made it and has not yet, and asks the launcher to end the job (it
 * does not return when the launcher kills this process). */
void mpi_boot_abort(int code);

/* boot_shm.c: the named job segment.  The name is "/grove-mpi.<job id>.
 * <creator's pid>" (job id made safe for a file name), mode 0600. */
int mpi_boot_shm_name(char *out, size_t len, const char *jobid, long pid);
/* Creates and formats the segment (fails if the name exists): 0, or -1
 * with err. */
int mpi_boot_shm_create(struct mpi_job *job, const char *name,
    unsigned nranks, const char *jobid, char *err, size_t errlen);
/* Opens and maps a segment another rank made: 0, or -1 with err. */
int mpi_boot_shm_open(struct mpi_job *job, const char *name, char *err,
    size_t errlen);
/* Removes the name (the mappings stay): 0, or -errno. */
int mpi_boot_shm_unlink(const char *name);

#endif

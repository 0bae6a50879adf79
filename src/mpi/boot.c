/* Start-up under srun (PMI-2) and mpirun (PMIx): the launcher-neutral
 * part, see boot.h for the order of fences.
 *
 * The cards are those of the tree's wire-up (card.h), with no TCP
 * listener: ranks of one job on several hosts are refused, the only
 * transport here is shared memory.  Their flags go unread: the
 * transport learns CMA itself from the control blocks. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mpi/boot.h"
#include "mpi/card.h"
#include "mpi/job.h"

#define CARD_KEY "grove-card"

/* Process-wide on purpose, like mpi_proc: one MPI_Init per process. */
static struct {
	bool active;
	struct mpi_boot_kvs kvs;
	int rank, size;
	bool creator;          /* this rank made the named segment */
	bool named;            /* and its name still exists */
	char shm[128];
	double t0_ms;          /* when mpi_boot_launcher began */
} boot;

static double
now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* Fence 1: every rank's card.  Sets *leader to the lowest rank on this
 * host and *leader_pid to its pid; refuses ranks on other hosts. */
static int
exchange_cards(int *leader, long *leader_pid, char *err, size_t errlen)
{
	struct mpi_card mine;
	mpi_card_mine(&mine, NULL);
	char card[MPI_CARD_MAX], key[64];
	mpi_card_format(&mine, card, sizeof card);
	snprintf(key, sizeof key, "%s-%d", CARD_KEY, boot.rank);
	if (boot.kvs.put(key, card, err, errlen) || boot.kvs.fence(err, errlen))
		return -1;
	*leader = -1;
	for (int r = 0; r < boot.size; r++) {
		struct mpi_card c;
		snprintf(key, sizeof key, "%s-%d", CARD_KEY, r);
		if (r == boot.rank)
			c = mine;
		else if (boot.kvs.get(r, key, card, sizeof card, err, errlen))
			return -1;
		else if (mpi_card_parse(card, &c)) {
			snprintf(err, errlen, "rank %d's card is not one: '%.80s'", r,
			    card);
			return -1;
		}
		if (!mpi_card_same_kernel(&c, &mine)) {
			snprintf(err, errlen, "rank %d runs on %s and rank %d on %s%s: "
			    "Grove MPI runs the ranks of a job on one host only "
			    "(ranks share memory); %s",
			    boot.rank, mine.host, r, c.host,
			    strcmp(c.host, mine.host) ? "" : " (another kernel)",
			    boot.kvs.one_host_hint);
			return -1;
		}
		if (*leader < 0) {
			*leader = r;
			*leader_pid = c.pid;
		}
	}
	return 0;
}

/* srun started several tasks but gave them no PMI: each would be a
 * singleton computing alone, which is never what was meant. */
static int
srun_without_pmi(int *rank, char *err, size_t errlen)
{
	const char *n = getenv("SLURM_STEP_NUM_TASKS");
	if (!n || atoi(n) <= 1)
		return 0;
	const char *id = getenv("SLURM_PROCID");
	*rank = id ? atoi(id) : 0; /* for the message */
	snprintf(err, errlen, "started by srun as one of %s tasks without "
	    "PMI-2: run srun --mpi=pmi2 (or set MpiDefault=pmi2 in "
	    "slurm.conf)", n);
	return -1;
}

int
mpi_boot_launcher(struct mpi_job *job, int *rank, int *size, char *err,
    size_t errlen)
{
	char jobid[40];
	boot.t0_ms = now_ms();
	int rc = mpi_boot_pmix_probe(&boot.kvs, &boot.rank, &boot.size, jobid,
	    sizeof jobid, err, errlen);
	if (rc == 0)
		rc = mpi_boot_pmi2_probe(&boot.kvs, &boot.rank, &boot.size, jobid,
		    sizeof jobid, err, errlen);
	if (rc == 0)
		return srun_without_pmi(rank, err, errlen);
	if (rc < 0)
		return -1;
	boot.active = true;
	*rank = boot.rank;
	*size = boot.size;
	int leader;
	long leader_pid = 0;
	if (exchange_cards(&leader, &leader_pid, err, errlen))
		return -1;
	if (mpi_boot_shm_name(boot.shm, sizeof boot.shm, jobid, leader_pid)) {
		snprintf(err, errlen, "job id '%.40s' makes no segment name", jobid);
		return -1;
	}
	if (leader == boot.rank) {
		if (mpi_boot_shm_create(job, boot.shm, (unsigned)boot.size, jobid,
		    err, errlen))
			return -1;
		boot.creator = boot.named = true;
	}
	/* Fence 2: the segment exists. */
	if (boot.kvs.fence(err, errlen))
		return -1;
	if (leader != boot.rank &&
	    mpi_boot_shm_open(job, boot.shm, err, errlen))
		return -1;
	if (job->hdr->nranks != (uint32_t)boot.size) {
		snprintf(err, errlen, "the job segment %s has %u ranks, the "
		    "launcher says %d", boot.shm, job->hdr->nranks, boot.size);
		return -1;
	}
	return 1;
}

bool
mpi_boot_active(void)
{
	return boot.active;
}

int
mpi_boot_ready(char *err, size_t errlen)
{
	/* Fence 3: every rank has mapped the segment and published its
	 * control block. */
	if (boot.kvs.fence(err, errlen))
		return -1;
	/* Every rank removes the name, not only its creator: a rank that
	 * leaves this fence first and then fails (MPI_Abort, a crash) gets
	 * the job killed, perhaps before the creator has run again, and the
	 * name would stay.  Each rank has removed it before it can fail;
	 * all but the first find it gone. */
	boot.named = false;
	int rc = mpi_boot_shm_unlink(boot.shm);
	if (rc != 0 && rc != -ENOENT) {
		snprintf(err, errlen, "cannot remove the job segment's name "
		    "%s: %s", boot.shm, strerror(-rc));
		return -1;
	}
	if (boot.rank == 0 && getenv("GROVE_MPI_VERBOSE"))
		fprintf(stderr, "grove-mpi: start-up of %d ranks through %s: "
		    "%.2f ms in rank 0 (3 fences)\n", boot.size, boot.kvs.name,
		    now_ms() - boot.t0_ms);
	return 0;
}

void
mpi_boot_fini(void)
{
	if (boot.active && boot.kvs.fini)
		boot.kvs.fini();
	boot.active = false;
}

void
mpi_boot_abort(int code)
{
	if (boot.named) {
		boot.named = false;
		mpi_boot_shm_unlink(boot.shm);
	}
	if (boot.active && boot.kvs.abort) {
		char msg[64];
		snprintf(msg, sizeof msg, "Grove MPI: rank %d aborted the job "
		    "(code %d)", boot.rank, code);
		boot.kvs.abort(code, msg);
	}
}

/* Start-up under srun (PMI-2) and mpirun (PMIx): the launcher-neutral
 * part, see boot.h for the order of fences.
 *
 * A card here is "pid boot-id host" (as in wireup.h, without flags: the
 * transport learns CMA itself from the control blocks).  Ranks of one
 * job on several hosts are refused: the only transport is shared
 * memory. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mpi/boot.h"
#include "mpi/job.h"

#define CARD_KEY "grove-card"
#define CARD_MAX 400

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

struct boot_card {
	long pid;
	char boot[40];
	char host[256];
};

/* The first 32 hex digits of the kernel's boot id, or "-". */
static void
boot_id(char *out, size_t len)
{
	snprintf(out, len, "-");
	int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	char b[64];
	ssize_t n = read(fd, b, sizeof b - 1);
	close(fd);
	size_t o = 0;
	for (ssize_t i = 0; i < n && o + 1 < len && o < 32; i++)
		if ((b[i] >= '0' && b[i] <= '9') || (b[i] >= 'a' && b[i] <= 'f'))
			out[o++] = b[i];
	if (o)
		out[o] = '\0';
}

static void
my_card(struct boot_card *c)
{
	c->pid = (long)getpid();
	boot_id(c->boot, sizeof c->boot);
	if (gethostname(c->host, sizeof c->host - 1) != 0 || !c->host[0])
		snprintf(c->host, sizeof c->host, "localhost");
	c->host[sizeof c->host - 1] = '\0';
	for (char *p = c->host; *p; p++)
		if (*p == ' ' || *p == '\t' || *p == '\n')
			*p = '_';
}

static int
parse_card(const char *s, struct boot_card *c)
{
	int used = 0;
	if (sscanf(s, "%ld %39s %n", &c->pid, c->boot, &used) < 2 ||
	    used <= 0 || !s[used] || c->pid <= 0)
		return -1;
	snprintf(c->host, sizeof c->host, "%s", s + used);
	return 0;
}

static bool
same_host(const struct boot_card *a, const struct boot_card *b)
{
	return !strcmp(a->host, b->host) &&
	    (!strcmp(a->boot, "-") || !strcmp(b->boot, "-") ||
	     !strcmp(a->boot, b->boot));
}

/* Fence 1: every rank's card.  Sets *leader to the lowest rank on this
 * host and *leader_pid to its pid; refuses ranks on other hosts. */
static int
exchange_cards(int *leader, long *leader_pid, char *err, size_t errlen)
{
	struct boot_card mine;
	my_card(&mine);
	char card[CARD_MAX], key[64];
	snprintf(card, sizeof card, "%ld %s %s", mine.pid, mine.boot, mine.host);
	snprintf(key, sizeof key, "%s-%d", CARD_KEY, boot.rank);
	if (boot.kvs.put(key, card, err, errlen) || boot.kvs.fence(err, errlen))
		return -1;
	*leader = -1;
	for (int r = 0; r < boot.size; r++) {
		struct boot_card c;
		snprintf(key, sizeof key, "%s-%d", CARD_KEY, r);
		if (r == boot.rank)
			c = mine;
		else if (boot.kvs.get(r, key, card, sizeof card, err, errlen))
			return -1;
		else if (parse_card(card, &c)) {
			snprintf(err, errlen, "rank %d's card is not one: '%.80s'", r,
			    card);
			return -1;
		}
		if (!same_host(&c, &mine)) {
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

/* The rank side of BCS mode (grove run --bcs), as the rest of the
 * library sees it.  The protocol with the node manager is bcs_desc.h;
 * docs/bcs.md ("The MPI library in BCS mode") tells the whole story.
 *
 *   bcs_rank.c    the mode, set-up and end, posting descriptors, draining
 *                 completions (the progress engine of BCS mode)
 *   bcs_p2p.c     point-to-point, cancel and probes as descriptors
 *   bcs_coll.c    the collectives the node manager runs
 *   bcs_test.c    the test family under record/replay
 *   bcs_replay.c  the record file and the replay checks (pure: no MPI
 *                 state, so the unit tests call it directly)
 *
 * Every hook in the direct-mode files is one test of mpi_bcs_mode (or
 * mpi_bcs_rr), a flag set once in MPI_Init: a branch the processor
 * predicts, so direct mode pays nothing measurable for BCS mode.
 */
#ifndef GROVE_MPI_BCS_RANK_H
#define GROVE_MPI_BCS_RANK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "mpi/bcs_desc.h"
#include "mpi/mpi_impl.h"

struct mpi_job;

/* Process-wide on purpose, like mpi_proc: the mode is the process's (one
 * MPI_Init), and the hot paths read these two bytes instead of calling
 * into this module.  Written only by mpi_bcs_init and mpi_bcs_fini. */
extern bool mpi_bcs_mode; /* BCS mode: the node manager moves the data */
extern bool mpi_bcs_rr;   /* GROVE_BCS_RECORD or GROVE_BCS_REPLAY is on */

/* How long MPI_Init waits for the node manager to map the job segment. */
#define MPI_BCS_NM_WAIT_S 30.0

/* ---- bcs_rank.c ------------------------------------------------------ */

/* Whether this rank runs in BCS mode: the job segment has a BCS area
 * (the header decides; GROVE_MPI_BCS=1 without one is an error).
 * 0 (direct mode), 1 (BCS mode), or -1 with a message in err. */
int mpi_bcs_detect(const struct mpi_job *job, char *err, size_t errlen);
/* Sets up BCS mode for world rank `rank` of job: waits (at most wait_s
 * seconds) until the node manager announced itself (hdr->bcs_nm_pid),
 * reads GROVE_BCS_RECORD / GROVE_BCS_REPLAY (a replay's record is read
 * here), then sets mpi_bcs_mode.  0, or -1 with a message in err. */
int mpi_bcs_init(struct mpi_job *job, int rank, int size, double wait_s,
                 char *err, size_t errlen);
/* MPI_Finalize, after its barrier: takes the completions still due,
 * notes the end of a recorded run, checks that a replay used its whole
 * record (ends the job if not), tells the node manager (BCS_D_FINALIZE)
 * and waits until it has taken every descriptor.  Then frees the
 * module. */
void mpi_bcs_finalize(void);
/* Frees everything and leaves BCS mode (also for the unit tests). */
void mpi_bcs_fini(void);
/* The line grove run --verbose prints for rank 0. */
void mpi_bcs_say(FILE *f);

/* Posts one descriptor.  A full ring: sets its space-wanted flag and
 * sleeps until the node manager drained it (taking completions in the
 * meantime, but never advancing schedules, so posting order stays the
 * program's). */
void mpi_bcs_post(const struct bcs_desc *d);
/* Drains the completion ring, completing requests, then advances the
 * active schedules: BCS mode's mpi_progress. */
int mpi_bcs_progress(void);

static inline uint64_t
mpi_bcs_id(const void *p)
{
	return (uint64_t)(uintptr_t)p;
}

/* A probe the node manager answers (bcs_p2p.c).  Its id is a counter, not
 * an address, so a probe's id is never used twice: a taken message is
 * received by naming it (BCS_F_TAKEN, addr2). */
struct mpi_bcs_probe {
	struct mpi_bcs_probe *next;  /* the outstanding list (bcs_rank.c) */
	uint64_t id;
	/* What was asked (an MPI_Iprobe's later calls find it by these). */
	MPI_Comm comm;               /* held (a reference) while listed or a
	                                message */
	uint32_t ctx;
	int source, tag;
	bool take;
	/* The answer. */
	bool answered, found;
	int msg_source, msg_tag;
	uint64_t msg_bytes;
};
/* Allocates a probe, lists it as outstanding and gives it an id. */
struct mpi_bcs_probe *mpi_bcs_probe_new(MPI_Comm comm, int source, int tag,
                                        bool take);
/* The outstanding probe with these arguments (an MPI_Iprobe asked before
 * and not yet told), or NULL. */
struct mpi_bcs_probe *mpi_bcs_probe_find(uint32_t ctx, int source, int tag,
                                         bool take);
/* The listed probe of id, or NULL (a completion's probe). */
struct mpi_bcs_probe *mpi_bcs_probe_of(uint64_t id);
/* Takes a probe off the outstanding list (it is then the caller's). */
void mpi_bcs_probe_unlist(struct mpi_bcs_probe *p);
void mpi_bcs_probe_free(struct mpi_bcs_probe *p);

/* The replay state: the record read in MPI_Init, or NULL when not
 * replaying; its file name for messages. */
struct mpi_bcs_record;
const struct mpi_bcs_record *mpi_bcs_replay(void);
const char *mpi_bcs_replay_file(void);
/* The next test-family call number k (from 0), of a call of fn.  When
 * replaying, a call past the recorded run's end ends the job. */
uint32_t mpi_bcs_next_call(enum mpi_fn fn);
/* The next MPI_ANY_SOURCE receive number k (from 0), likewise. */
uint32_t mpi_bcs_next_wild(void);
/* GROVE_BCS_RECORD: tells the node manager what test-family call k
 * returned (BCS_D_NOTE). */
void mpi_bcs_note(enum mpi_fn fn, uint32_t k, uint32_t count, uint64_t mask,
                  int source, int tag);
/* Prints "grove-mpi: rank R: replay of FILE diverged at WHERE: WHAT" and
 * ends the job with a non-zero code. */
void mpi_bcs_diverged(const char *where, const char *what)
	__attribute__((noreturn));

/* ---- bcs_p2p.c -------------------------------------------------------- */

/* mpi_p2p_start_send / start_recv / cancel_recv in BCS mode. */
int mpi_bcs_start_send(MPI_Request req);
int mpi_bcs_start_recv(MPI_Request req);
bool mpi_bcs_cancel_recv(MPI_Request req);
/* MPI_Probe (msg NULL) and MPI_Mprobe (msg set): blocks until there is a
 * message (the node manager answers then). */
int mpi_bcs_probe(enum mpi_fn fn, int source, int tag, MPI_Comm comm,
                  MPI_Status *status, MPI_Message *msg);
/* MPI_Iprobe (msg NULL) and MPI_Improbe (msg set). */
int mpi_bcs_iprobe(enum mpi_fn fn, int source, int tag, MPI_Comm comm,
                   int *flag, MPI_Status *status, MPI_Message *msg);
/* MPI_Mrecv / MPI_Imrecv of a message an MPI_Mprobe took: fills r and
 * posts its receive (r's address is the completion's id). */
int mpi_bcs_recv_taken(MPI_Request r, void *buf, int count, MPI_Datatype dt,
                       MPI_Message msg, bool blocking);
/* A completion of kind RECV, SEND, CANCEL or PROBE (bcs_rank.c's drain). */
void mpi_bcs_p2p_done(const struct bcs_done *dn);

/* ---- bcs_coll.c ------------------------------------------------------- */

/* The collectives the node manager runs, like coll_shm.c's: 1 when done
 * (or started: req non-NULL is the non-blocking form's request) with the
 * error class in *rc (the caller reports it), 0 when the node manager
 * cannot do it (the caller runs its schedule; every member of comm
 * decides alike).  Barrier and broadcast: whenever comm's ids fit a
 * descriptor.  Reduce (root >= 0) and allreduce (root < 0): also a
 * predefined commutative op on a contiguous basic type.  sendbuf may be
 * MPI_IN_PLACE. */
int mpi_bcs_barrier(MPI_Comm comm, MPI_Request *req, int *rc);
int mpi_bcs_bcast(void *buf, int count, MPI_Datatype dt, int root,
                  MPI_Comm comm, MPI_Request *req, int *rc);
int mpi_bcs_reduce(const void *sendbuf, void *recvbuf, int count,
                   MPI_Datatype dt, MPI_Op op, int root, MPI_Comm comm,
                   MPI_Request *req, int *rc);
/* A collective's completion. */
void mpi_bcs_coll_done(const struct bcs_done *dn);

/* ---- bcs_test.c: the test family when mpi_bcs_rr ---------------------- */

/* MPI_Test, Testany, Testall, Testsome, and the waits whose result
 * depends on what completed first (Waitany, Waitsome). */
int mpi_bcs_test(MPI_Request *request, int *flag, MPI_Status *status);
int mpi_bcs_testany(int count, MPI_Request reqs[], int *index, int *flag,
                    MPI_Status *status);
int mpi_bcs_waitany(int count, MPI_Request reqs[], int *index,
                    MPI_Status *status);
int mpi_bcs_waitsome(int incount, MPI_Request reqs[], int *outcount,
                     int indices[], MPI_Status statuses[]);
int mpi_bcs_testall(int count, MPI_Request reqs[], int *flag,
                    MPI_Status statuses[]);
int mpi_bcs_testsome(int incount, MPI_Request reqs[], int *outcount,
                     int indices[], MPI_Status statuses[]);

/* ---- request.c helpers bcs_test.c shares -------------------------------- */

/* An inactive request (MPI_REQUEST_NULL, a persistent one not started). */
bool mpi_request_inactive(MPI_Request r);
/* Completes *slot for the user (status, release unless persistent):
 * its error class. */
int mpi_request_finish(MPI_Request *slot, MPI_Status *st);

#endif

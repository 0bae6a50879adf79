/* Record and replay in BCS mode: the record file as a rank reads it back
 * (GROVE_BCS_REPLAY=FILE) and the checks a replayed call makes.  Pure:
 * no MPI state, so the unit tests call it without MPI_Init.
 *
 * The file (written by the node manager under grove run --bcs --record):
 *   # grove-bcs-record 1
 *   # ranks N slice_ns S
 *   W <slice> <world rank> <k> <source>
 *       the rank's k-th receive posted with MPI_ANY_SOURCE (from 0, in
 *       posting order, collectives' own receives included) matched comm
 *       rank <source>
 *   T <slice> <world rank> <k> <fn> <count> <mask> <source> <tag>
 *       the rank's k-th test-family call (from 0) returned true: fn its
 *       enum mpi_fn, count how many requests it completed, mask their
 *       indices (bit i: index i, the first 64 only), source and tag a
 *       probe's message (-1 otherwise)
 *   T <slice> <world rank> <calls> <MPI_Finalize's fn> <wilds> 0 -1 -1
 *       the rank's end: it reached MPI_Finalize after <calls> test-family
 *       calls and <wilds> MPI_ANY_SOURCE receives (a replay that goes
 *       past either has diverged)
 * Other lines starting with '#', and empty lines, are comments.
 */
#ifndef GROVE_MPI_BCS_REPLAY_H
#define GROVE_MPI_BCS_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "mpi/mpi_impl.h"

struct mpi_bcs_wild {
	uint32_t k;
	int32_t source;     /* comm rank */
	uint64_t slice;
	unsigned line;      /* in the file, for messages */
};

struct mpi_bcs_tline {
	uint32_t k;
	int32_t fn;         /* enum mpi_fn */
	uint32_t count;
	uint64_t mask;
	int32_t source, tag;
	uint64_t slice;
	unsigned line;
};

/* One rank's part of a record, sorted by k. */
struct mpi_bcs_record {
	int nranks;
	uint64_t slice_ns;
	struct mpi_bcs_wild *wild;
	size_t nwild;
	struct mpi_bcs_tline *test;
	size_t ntest;
	/* The rank's end line, when the recorded run got there. */
	bool has_end;
	uint32_t end_calls, end_wilds;
	unsigned end_line;
};

/* Reads the lines of world rank `rank` from f (named `name` in
 * messages); every line is checked, whoever's it is.  0, or -1 with
 * "NAME:LINE: what is wrong" in err (out is then empty). */
int mpi_bcs_record_read(FILE *f, const char *name, int rank,
                        struct mpi_bcs_record *out, char *err,
                        size_t errlen);
/* The same from the file at path. */
int mpi_bcs_record_load(const char *path, int rank,
                        struct mpi_bcs_record *out, char *err,
                        size_t errlen);
void mpi_bcs_record_free(struct mpi_bcs_record *r);

/* The recorded line of wildcard receive k / test-family call k, or NULL
 * (a receive never matched, a call that returned false). */
const struct mpi_bcs_wild *mpi_bcs_record_wild(const struct mpi_bcs_record *r,
                                               uint32_t k);
const struct mpi_bcs_tline *
mpi_bcs_record_test(const struct mpi_bcs_record *r, uint32_t k);

/* The calls that count as test-family calls (k): MPI_Test, Testany,
 * Testall, Testsome, Iprobe, Improbe, and the blocking calls whose answer
 * depends on timing as much: MPI_Waitany, Waitsome, Probe, Mprobe. */
bool mpi_bcs_is_test_fn(int fn);

/* Checks that t (call k returned true) can be the outcome of the call
 * being replayed: fn over n requests of which active[i] are active.
 * 0, or -1 with what differs in why. */
int mpi_bcs_replay_check_reqs(const struct mpi_bcs_tline *t, enum mpi_fn fn,
                              int n, const bool *active, char *why,
                              size_t len);
/* The same for a probe of (source, tag) on a communicator of comm_size. */
int mpi_bcs_replay_check_probe(const struct mpi_bcs_tline *t,
                               enum mpi_fn fn, int source, int tag,
                               int comm_size, char *why, size_t len);
/* A wildcard receive's recorded source on a communicator of comm_size. */
int mpi_bcs_replay_check_wild(const struct mpi_bcs_wild *w, int comm_size,
                              char *why, size_t len);
/* At MPI_Finalize, after `calls` test-family calls and `wilds` wildcard
 * receives: 0, or -1 when the record has lines the run never reached or
 * its end line counts otherwise (where and why say which). */
int mpi_bcs_replay_check_end(const struct mpi_bcs_record *r, uint32_t calls,
                             uint32_t wilds, char *where, size_t wlen,
                             char *why, size_t len);

#endif

/* Reading event spaces from any process (internal).
 *
 * A reader copies tuples while the writer keeps going.  Per ring it keeps
 * a cursor (the next tuple index it wants) and counts exactly how many
 * tuples were overwritten before it got to them: after every read,
 * copied + lost == the ring's head at the read.
 *
 * Another process's segment is read with pread() only, never through a
 * mapping: any process that can write the file can also truncate it, and
 * a load from a mapping past the file's new end faults (SIGBUS), where a
 * pread() just comes back short (GROVE_EFORMAT).
 *
 * trace_set_collect() snapshots every segment of a network into memory:
 * that is what the exporters and the statistics work on.
 */
#ifndef GROVE_TRACE_READER_H
#define GROVE_TRACE_READER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "trace/space.h"

/* The largest ring a reader accepts: the writer's own limit
 * (GROVE_TRACE_SIZE, space.c).  A header claiming more is damaged, and
 * would have each ring copied into a buffer of that size. */
#define TRACE_READER_MAX_SLOTS (1u << 24)

/* ---- one ring ---- */

struct trace_ring_cursor {
	uint64_t next;   /* index of the next tuple wanted */
	uint64_t lost;   /* tuples overwritten before they were read */
	uint64_t copied; /* tuples delivered */
	/* A damaged head (not an honest count of the tuples written): the
	 * never-written slots found below it, which are not delivered, and
	 * from then on lost is no longer counted, being unknown. */
	uint64_t unwritten;
	int damaged;
};

/* Copies the ring's tuples from cur->next up to its current head into out
 * (room for `slots` tuples), oldest first, and advances the cursor.
 * Returns the number of tuples stored in out.  Never blocks the writer:
 * it reads head, copies, reads head again, and discards (as lost) the
 * copied tuples the writer may have overwritten meanwhile. */
/* quiescent: the writer has finished (called fini), so no tuple can be
 * in the middle of being stored and the whole ring is readable; a live
 * ring, or one whose writer died without fini (it may have been killed
 * half-way through a store into the oldest slot), yields at most
 * slots - 1 of its newest tuples.
 * An honest ring has no never-written (all-zero) slot below its head; if
 * a copy finds one, the head is damaged and the ring never wrapped: its
 * written slots are delivered in slot order, the others skipped, and the
 * cursor is marked damaged (see struct trace_ring_cursor).
 * r is a ring in this process's memory (the writer's own segment, or a
 * copy in a buffer); rings of other processes are read with
 * trace_seg_ring_read. */
size_t trace_ring_read(const struct grove_trace_ring_ *r, uint64_t slots,
                       int quiescent, struct trace_ring_cursor *cur,
                       grove_trace_tuple *out);

/* ---- one segment ---- */

struct trace_seg {
	char name[128];             /* shm name, "grove.<net>.<role>.<rank>" */
	uint64_t size;              /* of the file when opened */
	/* A copy of the header taken and validated at open: its layout
	 * fields are the ones the reader trusts from then on.  Its live
	 * fields (counters, finished, calibration) are as they were then:
	 * trace_seg_header reads them again. */
	struct trace_header hdr;
	int fd;                     /* open until trace_seg_close */
};

/* Opens /dev/shm/<name> read-only and validates its header.  On failure
 * writes a reason (with the byte offset of a bad field) into err.  A
 * file that is not this user's is refused with GROVE_EAUTH, whatever it
 * holds (event spaces are per user: trace/owner.h). */
int trace_seg_open(const char *name, struct trace_seg *s, char *err,
                   size_t errlen);
void trace_seg_close(struct trace_seg *s);

/* 0 while the file is still as large as when it was opened; otherwise
 * GROVE_EFORMAT (another process truncated it).  Only a report: every
 * read below copes with a file that shrinks at any moment, by returning
 * GROVE_EFORMAT (a short read) instead of faulting. */
int trace_seg_intact(const struct trace_seg *s);

/* A fresh copy of the header (pid, finished, counters, calibration),
 * its strings NUL-terminated.  GROVE_EFORMAT when the file shrank below
 * it. */
int trace_seg_header(const struct trace_seg *s, struct trace_header *out);

/* Collectors registered and rings claimed so far (acquire), at most the
 * maxima of the header validated at open; 0 when the file shrank below
 * the header. */
uint32_t trace_seg_n_collectors(const struct trace_seg *s);
uint32_t trace_seg_n_rings(const struct trace_seg *s);

/* Registry entries first .. first+n-1 (collector ids first+1 ..) into
 * out, strings NUL-terminated; a live reader takes the entries added
 * since its last poll, after reading the rings (see proc_read).  0,
 * GROVE_EINVAL (beyond the registry) or GROVE_EFORMAT (the file shrank). */
int trace_seg_collectors(const struct trace_seg *s, uint32_t first,
                         uint32_t n, struct trace_collector_entry *out);

/* The head of ring i now (acquire): 0, GROVE_EINVAL (no such ring) or
 * GROVE_EFORMAT (the file shrank). */
int trace_seg_ring_head(const struct trace_seg *s, uint32_t i,
                        uint64_t *head);

/* trace_ring_read of ring i: *n tuples into out (room for ring_slots).
 * 0, GROVE_EINVAL (no such ring) or GROVE_EFORMAT (the file shrank). */
int trace_seg_ring_read(const struct trace_seg *s, uint32_t i, int quiescent,
                        struct trace_ring_cursor *cur, grove_trace_tuple *out,
                        size_t *n);

/* 1 when the writer called fini: its rings are still and whole.  A
 * writer that died without it is not (see trace_ring_read); 0 also when
 * the file shrank below the header. */
int trace_seg_quiescent(const struct trace_seg *s);

/* 1 when pid can be the writer of a segment initialised at
 * CLOCK_MONOTONIC init_mono_ns (0: not known): it exists and, when both
 * times are known, did not start after that.  A process that started
 * later got the pid of the dead writer.  On this host only. */
int trace_writer_alive(int32_t pid, uint64_t init_mono_ns);

/* Incremental reading of a whole segment. */
struct trace_seg_cursor {
	struct trace_ring_cursor ring[TRACE_MAX_RINGS];
};

/* Calls fn for every ring with the tuples new since the last poll with
 * this cursor.  Returns 0 or the first non-zero fn value or a negative
 * grove_err (GROVE_EFORMAT: the file shrank). */
int trace_seg_poll(const struct trace_seg *s, struct trace_seg_cursor *cur,
                   int (*fn)(void *ctx, uint32_t ring,
                             const grove_trace_tuple *t, size_t n),
                   void *ctx);

/* ---- listing ---- */

/* Names of this user's segments in /dev/shm of one network (or of all
 * networks when network_id is NULL), sorted: fe, cp, be, others; by
 * rank.  Files of the name pattern that are another user's (or not
 * regular files) are left out, each named on warn with its owner unless
 * warn is NULL.  trace_set_collect says them on stderr. */
int trace_list(const char *network_id, FILE *warn, char ***names, size_t *n);
/* The same, and also the segment named `also` (NULL: none) when it is in
 * /dev/shm, this user's, and not one of the network's: a front-end's own
 * event space when the process opened it under another name
 * (docs/tracing.md). */
int trace_list_with(const char *network_id, const char *also, FILE *warn,
                    char ***names, size_t *n);
void trace_list_free(char **names, size_t n);

/* Splits "grove.<net>.<role>.<rank>"; 0 or GROVE_EINVAL. */
int trace_parse_name(const char *name, char *net, size_t netlen, char *role,
                     size_t rolelen, uint32_t *rank);

/* ---- snapshots ---- */

struct trace_ring_snap {
	uint32_t index, tid;
	uint64_t head;          /* tuples ever written when read */
	uint64_t lost;          /* overwritten before they were read */
	size_t n;
	grove_trace_tuple *t;   /* oldest first */
	/* The head is not plausible: never-written slots below it, or more
	 * tuples than the writer can have stored since init.  lost is then
	 * 0 (unknown) and t holds the written slots only. */
	int damaged;
	uint64_t unwritten;     /* never-written slots found below head */
};

struct trace_proc {
	char name[128];                 /* shm name */
	char label[TRACE_ROLE_LEN + 16]; /* "be 12" */
	struct trace_header hdr;        /* copy */
	int alive;                      /* unfinished, writer still running
	                                   (trace_writer_alive) */
	/* ticks -> CLOCK_MONOTONIC ns: mono = m0 + (ticks - t0) * rate */
	uint64_t t0, m0;
	double rate;
	uint32_t n_collectors;
	struct trace_collector_entry *coll; /* index id-1 */
	uint32_t n_rings;
	struct trace_ring_snap *rings;
	uint64_t lost;                  /* over all rings */
	uint64_t tuples;
	uint32_t damaged_rings;         /* rings with a damaged head */
	uint64_t start_ns, end_ns;      /* init .. fini (or read time) */
	/* Where m0, start_ns and end_ns were moved to put this process on
	 * the set's timeline (trace_set_align, trace/align.h). */
	int align;                      /* enum trace_proc_align */
	int64_t align_shift_ns;         /* added to its monotonic ns */
	uint64_t align_err_ns;          /* bound of that shift */
};

struct trace_set {
	size_t n;
	struct trace_proc *p;
	int timeline;                   /* enum trace_timeline actually used */
	size_t unaligned;               /* processes not on that timeline */
};

/* Snapshots one open segment (all tuples currently in its rings).  The
 * rings are read before the registry, so every collector id of a tuple
 * has its entry (the live writer may register more meanwhile).  On error
 * p is left empty (trace_proc_free is harmless): GROVE_EFORMAT when the
 * file shrank or its header changed layout since it was opened,
 * GROVE_ENOMEM, GROVE_ESYS. */
int trace_proc_read(const struct trace_seg *s, struct trace_proc *p);
void trace_proc_free(struct trace_proc *p);

/* Sets p's tick conversion (t0, m0, rate) and start_ns, end_ns from
 * p->hdr: init and fini, or init and now for a writer still running.  A
 * live reader calls it again at each poll with a fresh header, as the
 * rate sharpens with the interval. */
void trace_proc_calibrate(struct trace_proc *p);

/* Snapshots every segment of this user of a network (NULL: all); another
 * user's file of that name is left out and named on stderr.  A segment
 * that cannot be opened or read is skipped with a message on stderr naming
 * it, and a ring with a damaged head is named there too; the others are
 * collected all the same. */
int trace_set_collect(const char *network_id, struct trace_set *out);
/* The same, with the segment named `also` (trace_list_with). */
int trace_set_collect_with(const char *network_id, const char *also,
                           struct trace_set *out);
void trace_set_free(struct trace_set *set);

static inline uint64_t
trace_proc_ns(const struct trace_proc *p, uint64_t ticks)
{
	double d = (double)(int64_t)(ticks - p->t0) * p->rate;
	/* Calibration comes from the segment, which may be corrupt: keep the
	 * conversion defined whatever the values. */
	if (!(d > -9.2e18 && d < 9.2e18))
		d = 0;
	return p->m0 + (uint64_t)(int64_t)d;
}

/* The registry entry of a collector id, or NULL (0 or unknown). */
static inline const struct trace_collector_entry *
trace_proc_collector(const struct trace_proc *p, uint32_t id)
{
	return id >= 1 && id <= p->n_collectors ? &p->coll[id - 1] : NULL;
}

#endif

/* What an event scope's readers send up the tree: a share (internal,
 * src/monitor; docs/monitoring.md, "Event scopes through the tree").
 *
 * A share is bytes, built by a per-host reader and merged by every node
 * on the way to the front-end, in one of two kinds:
 *
 *   analysis  the reader's accumulators (processes with their tuple and
 *             lost counts, last-arrival counts, per-path Welford
 *             statistics, collective instance counts): the distributed
 *             analysis, where only intermediate results cross hosts.
 *             Nodes merge them (mon_analysis_merge); the front-end's
 *             share is the analysis of every host.
 *   raw       the selected tuples themselves, unreduced, per process
 *             and ring with the collectors they name (the paper's single
 *             event scope).  Nodes concatenate them; the monitor feeds
 *             them into its own analysis.
 *
 * Both start with the scope's counts (tuples read, selected, lost before
 * attaching and while attached, spaces gone, tuples sent raw, readers
 * and processes), summed on the way up, and the largest share of a
 * ring's slots any reader found newly written at its last pull (the
 * rate that paces the monitor's pulls: scope/pace.h), whose maximum is
 * taken on the way up.  In an analysis share the
 * accumulators are totals since the scope attached; a raw share holds
 * the tuples read by this pull only; counts are always totals.
 *
 * Layout (little-endian; a string is a u16 length and that many bytes,
 * no NUL, shorter than the field the analysis keeps it in):
 *
 *   "GMSH" u8 version (2) u8 kind (0 analysis, 1 raw) u16 peak_fill
 *   u64 read, selected, lost_before, lost, gone, sent; u32 readers, procs
 *   analysis: u64 tuples, lost; u32 n + n x (str role, u32 rank, str host,
 *             i64 node, u64 tuples, u64 lost); u32 n + n x (str scope,
 *             str parent, str child, u64 last); u32 n + n x (str proc,
 *             name, layer, where, op, role, u64 count, f64 mean, f64 m2,
 *             u64 min, u64 max); u64 complete, open, dropped, duplicates,
 *             skipped, unpaired
 *   raw:      blocks to the end, each: str role, u32 rank, str host,
 *             i64 node, u64 lost, u32 ring, u32 n + n x (u32 id, str
 *             name, layer, where, position), u32 n + n x (u64 t_start,
 *             u64 t_end, u32 collector, u32 seq, i32 result, u16 op,
 *             u16 flags)
 *
 * The decoder trusts nothing: every length and count is checked against
 * the bytes left and the fields' sizes, numbers against what they may
 * be, and an error says what was wrong at which byte
 * (tests/fuzz/fuzz_monitor_share.c). */
#ifndef GROVE_MONITOR_SHARE_H
#define GROVE_MONITOR_SHARE_H

#include <stddef.h>
#include <stdint.h>

#include "monitor/analysis.h"

enum mon_share_kind {
	MON_SHARE_ANALYSIS = 0,
	MON_SHARE_RAW = 1,
};

struct mon_share_counts {
	uint64_t read;         /* tuples read from the rings */
	uint64_t selected;     /* of them, kept by the selection */
	uint64_t lost_before;  /* overwritten before a reader first read */
	uint64_t lost;         /* overwritten while attached */
	uint64_t gone;         /* spaces that could not be read any more */
	uint64_t sent;         /* tuples sent raw (raw shares) */
	uint32_t readers;      /* readers whose shares are in it */
	uint32_t procs;        /* processes read */
	/* scope.peak_fill of the busiest reader's last pull, in 1/1024 of
	 * a ring (65535: 64 rings or more); the maximum when merged. */
	uint16_t peak_fill;
};

/* a share's bytes while they are built (raw blocks, or a whole share) */
struct mon_share_buf {
	uint8_t *p;
	size_t len, cap;
};

void mon_share_buf_free(struct mon_share_buf *b);

/* c += d */
void mon_share_counts_add(struct mon_share_counts *c,
                          const struct mon_share_counts *d);

/* An analysis share of a with counts c, into out (malloc'ed, *len
 * bytes).  GROVE_ENOMEM. */
int mon_share_encode(const struct mon_share_counts *c,
                     const struct mon_analysis *a, uint8_t **out,
                     size_t *len);

/* Appends a raw block: n tuples of process proc of pm, ring `ring`, and
 * `lost` tuples of it lost since the last block, with the collectors the
 * tuples name.  node: the process's TBON node id, or -1.  GROVE_ENOMEM,
 * GROVE_EINVAL for a bad process. */
int mon_share_raw_block(struct mon_share_buf *blocks,
                        const struct mon_pathmap *pm, uint32_t proc,
                        int64_t node, uint32_t ring, uint64_t lost,
                        const struct mon_tuple *t, size_t n);

/* A raw share of counts c and the blocks built, into out (malloc'ed).
 * GROVE_ENOMEM. */
int mon_share_raw_encode(const struct mon_share_counts *c,
                         const struct mon_share_buf *blocks, uint8_t **out,
                         size_t *len);

/* Decodes the share p[0, len), after checking all of it: its counts are
 * added to *c, its kind is put in *kind; an analysis share is merged
 * into a (when not NULL); a raw share's tuples are fed into a (when not
 * NULL) and its blocks appended to blocks (when not NULL).  0, or
 * GROVE_EFORMAT with what was wrong and where in err (nothing is added
 * then, except to a raw share's analysis: a is left consistent but may
 * hold a part), or GROVE_ENOMEM. */
int mon_share_decode(const uint8_t *p, size_t len,
                     struct mon_share_counts *c, int *kind,
                     struct mon_analysis *a, struct mon_share_buf *blocks,
                     char *err, size_t errlen);

#endif

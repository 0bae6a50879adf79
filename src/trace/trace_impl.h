/* Tracing: what the rest of Grove (front-end, grove tool, benchmarks)
 * calls beyond the public collector API (internal). */
#ifndef GROVE_TRACE_IMPL_H
#define GROVE_TRACE_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "trace/reader.h"

/* The two functions below say every failure on stderr, once, with the
 * path or the segment concerned; callers add no message of their own.
 *
 * Collects every event space of network_id on this host, and the segment
 * named `also` (NULL: none; the front-end's own event space when the
 * process opened it under another name), and exports them.
 * format: "perfetto" (alias "chrome", "json"), "otf2" or "text"; path:
 * a file ("-" for stdout) or, for otf2, the archive directory (its
 * anchor file is PATH/traces.otf2).  The segments are left in place. */
int trace_collect_and_export(const char *network_id, const char *also,
                             const char *format, const char *path);

/* Collects the event spaces of network_id (NULL: all) and the segment
 * `also` (NULL: none) and writes the statistics tables to path ("-" for
 * stdout), as text or JSON. */
int trace_stats_write(const char *network_id, const char *also,
                      const char *path_or_dash, int json);

/* Measures the real fast path in this process: ns per recorded event
 * (two timestamps + record) and per disabled record, and (when not NULL)
 * per record with a shared timestamp (no clock read) and per clock read
 * alone; each the minimum over repetitions of ~1M-event loops.  Creates
 * and removes a private event space when none is open; restores the
 * enabled state. */
int trace_bench_fastpath(double *ns_per_event, double *ns_disabled,
                         double *ns_store, double *ns_clock);

/* Runs a small synthetic traced tree (fe 0, cp 0, be 0..n_be-1, real
 * processes talking over pipes) whose event spaces stay in /dev/shm under
 * network_id.  For trying the exporters and for tests.  GROVE_ESYS when
 * a process could not make its event space (a full or read-only /dev/shm,
 * a file size limit, a name that is taken: each says which and why on
 * stderr), GROVE_ESPAWN when a process failed otherwise; either way no
 * event space of the sample is left.  When the sample could not start its
 * processes (pipe or fork failed: GROVE_ESYS), err says why; it is empty
 * when a process said it itself. */
int trace_write_sample(const char *network_id, int n_be, char *err,
    size_t errlen);

/* ---- shipping event spaces to the front-end's host ---- */

/* Stops recording and serialises this process's event space (header, used
 * registry entries, used part of each ring) for another host: a u64 file
 * size, then (u64 offset, u64 length, bytes) chunks.  *out is malloc'ed.
 * name gets the segment's name.  GROVE_ENOENT without an event space. */
int trace_space_finish_snapshot(char *name, size_t namelen, uint8_t **out,
                                size_t *len);
/* The same without stopping: recording goes on (finish = 0).  A ring
 * another thread is writing is copied as a reader copies it (head, copy,
 * head again): the copy holds only the tuples known intact, at most
 * ring_slots - 1, with the head they were copied under, and the older
 * ones count as lost (TRACE_RING_TAIL, space.h).  The calling thread's
 * own ring is exact. */
int trace_space_snapshot(char *name, size_t namelen, uint8_t **out,
                         size_t *len, int finish);

/* Recreates a shipped event space as /dev/shm/<name> on this host, so the
 * local readers see it.  The bytes come from the network: name must be a
 * segment name, "grove.<net>.<role>.<rank>" (else GROVE_EINVAL); the
 * chunks must lie within the stated size and the result must pass the
 * checks a reader makes of a segment (else GROVE_EPROTO, and nothing is
 * created).  An existing segment is never overwritten (GROVE_EINVAL). */
int trace_space_materialize(const char *name, const uint8_t *buf,
                            size_t len);
/* The same, replacing a previous copy of that name (live collection);
 * when the new bytes are refused the previous copy stays. */
int trace_space_materialize_replace(const char *name, const uint8_t *buf,
                                    size_t len);

/* ---- exporters and statistics over a snapshot ---- */

int trace_export_chrome(const struct trace_set *set, FILE *f);
int trace_export_text(const struct trace_set *set, FILE *f);
/* OTF2 lives in a plugin (grove-otf2.so beside libgrove, or
 * $GROVE_OTF2_PLUGIN) so that the processes of a tree do not load the OTF2
 * library at start; GROVE_ENOTSUP when the plugin is not there. */
int trace_export_otf2(const struct trace_set *set, const char *dir);
int trace_otf2_available(void);
/* What the plugin takes from the process that loads it, handed over with
 * the call rather than linked: libgrove.so exports only the public API,
 * and the same plugin then serves a tool linked with libgrove.so and a
 * program that carries Grove inside it (grove, tests).  The plugin links
 * no part of Grove. */
struct trace_msg;
struct trace_otf2_host {
	int (*match_messages)(const struct trace_set *set,
	                      struct trace_msg **out, size_t *n);
	const char *(*op_name)(uint16_t op, char *buf, size_t len);
	uint64_t (*set_origin_ns)(const struct trace_set *set);
};
/* The plugin's entry point (TRACE_OTF2_ENTRY), whose name carries the
 * version of this interface: a plugin of another version is not found
 * instead of being called with the wrong arguments. */
#define TRACE_OTF2_ENTRY "trace_export_otf2_impl_v2"
int trace_export_otf2_impl_v2(const struct trace_set *set, const char *dir,
                              const struct trace_otf2_host *host);

int trace_stats_text(const struct trace_set *set, FILE *f);
int trace_stats_json(const struct trace_set *set, FILE *f);

/* ---- send/receive matching (shared by the exporters) ---- */

struct trace_ref {
	uint32_t proc, ring;
	size_t idx;
};

struct trace_msg {
	struct trace_ref send, recv;
};

/* A packet sent / received on a link: the workload's (GROVE_OP_SEND /
 * RECV) or the tracing machinery's own (GROVE_OP_TRACE_SEND / RECV). */
static inline int
trace_op_sends(uint16_t op)
{
	return op == GROVE_OP_SEND || op == GROVE_OP_TRACE_SEND;
}

static inline int
trace_op_receives(uint16_t op)
{
	return op == GROVE_OP_RECV || op == GROVE_OP_TRACE_RECV;
}

/* A tuple of an MPI call: the call itself or the instant that carries
 * its tag, peer or communicator (see GROVE_OP_MPI_CALL). */
static inline int
trace_op_is_mpi(uint16_t op)
{
	return op == GROVE_OP_MPI_CALL || op == GROVE_OP_MPI_TAG ||
	       op == GROVE_OP_MPI_PEER || op == GROVE_OP_MPI_COMM;
}

/* Pairs each sent packet's tuple (trace_op_sends) with the received one's
 * (trace_op_receives) recorded by a collector with the same `where` (e.g.
 * "link:0->3") and the same seq.  *out is malloc'ed (free it); unmatched tuples are left out. */
int trace_match_messages(const struct trace_set *set, struct trace_msg **out,
                         size_t *n);

static inline const grove_trace_tuple *
trace_ref_tuple(const struct trace_set *set, struct trace_ref r)
{
	return &set->p[r.proc].rings[r.ring].t[r.idx];
}

/* s as a JSON string literal (with quotes): valid UTF-8 as it is,
 * quotes, backslashes and control characters escaped, bytes that are not
 * UTF-8 as U+FFFD. */
void trace_json_str(FILE *f, const char *s);
/* s as one field of a line of text, into out (len bytes): valid UTF-8 as
 * it is; backslash, tab, newline and CR as \\ \t \n \r; other control
 * bytes and bytes that are not UTF-8 as \xNN; cut short at a whole
 * character.  Returns out. */
const char *trace_text_field(const char *s, char *out, size_t len);

/* Bytes of the longest prefix of s, at most max, that does not end in
 * the middle of a well-formed UTF-8 character (a byte that is not UTF-8
 * counts as one character). */
size_t trace_utf8_fit(const char *s, size_t max);

/* The earliest init time over the set: the common time origin. */
uint64_t trace_set_origin_ns(const struct trace_set *set);

#endif

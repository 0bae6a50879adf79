/* Removing the event spaces of dead runs (internal).
 *
 * A process that dies without grove_trace_fini (kill -9, Ctrl-C, a crash)
 * leaves its segment in /dev/shm, and so does a front-end killed before it
 * removed its network's kept segments.  grove_net_create calls
 * trace_leftovers_clean_auto() before it starts a network: the leftovers
 * of this user on this host go, a network at a time, once nothing of
 * that network can still write or read them.  See docs/tracing.md,
 * "Leftovers".
 *
 * The rule (trace_net_removable) is pure so that it is unit-tested
 * without processes; trace_seg_life_of classifies one header, with the
 * liveness test of a pid passed in for the same reason. */
#ifndef GROVE_TRACE_LEFTOVER_H
#define GROVE_TRACE_LEFTOVER_H

#include <stddef.h>
#include <stdint.h>

/* Default of GROVE_TRACE_CLEAN_AGE: a segment changed this recently is
 * not touched, so that the cleaning never races a process that is making
 * or reading it (a writer between shm_open and its header, a reader of a
 * segment kept for it), and a crash stays readable for a minute even
 * when the next run starts at once. */
#define TRACE_CLEAN_AGE_DEFAULT_S 60u

/* Largest accepted GROVE_TRACE_CLEAN_AGE (one year), so that seconds
 * times 10^9 cannot overflow. */
#define TRACE_CLEAN_AGE_MAX_S (366ull * 24 * 3600)

enum trace_seg_life {
	TRACE_SEG_LIVE,    /* its writer runs (or may: see below) */
	TRACE_SEG_DEAD,    /* finished, or its writer is gone */
	TRACE_SEG_UNKNOWN, /* nothing says who writes it: left alone */
};

/* What one header says (got bytes of it were read, at most its size)
 * about the segment named `name` ("grove.<net>.<role>.<rank>"):
 *   * a header of this layout that names this segment: DEAD when it is
 *     finished or when alive(pid, init time) says its writer is gone,
 *     else LIVE; *kept is its kept mark, and *fini_mono_ns the
 *     CLOCK_MONOTONIC time of its fini when it finished on this host
 *     (else 0: a copy shipped from another host has another clock).
 *     The fini counts as a change: writes through the mapping do not
 *     always move the file's mtime, and a front-end reads the segments
 *     its children kept right after they finished;
 *   * no magic yet (a writer inside grove_trace_init) but the identity
 *     and pid written: LIVE or DEAD by alive(pid, 0), never kept;
 *   * anything else (another version, another layout, nothing written,
 *     an identity that is not this name's): UNKNOWN.
 * alive is trace_writer_alive outside the tests. */
enum trace_seg_life trace_seg_life_of(const void *hdr, size_t got,
    const char *name, int (*alive)(int32_t pid, uint64_t init_mono_ns),
    int *kept, uint64_t *fini_mono_ns);

/* What the cleaning knows about one network's segments. */
struct trace_net_facts {
	size_t segments;
	size_t live;          /* TRACE_SEG_LIVE */
	size_t unknown;       /* TRACE_SEG_UNKNOWN */
	size_t kept;          /* marked kept */
	int64_t newest_ns;    /* latest change of any segment (file mtime,
	                         fini), CLOCK_REALTIME ns */
	int ctl_bound;        /* its front-end's control socket is bound:
	                         the network runs (its front-end may record
	                         into a space of another name) */
};

/* 1 when every segment of the network may be removed: none is live,
 * unknown or kept, its front-end is not running, and the newest changed
 * at least min_age_ns before now_ns.  A network is removed whole or not
 * at all, so that a flight recorder is never left half. */
int trace_net_removable(const struct trace_net_facts *f, int64_t now_ns,
    uint64_t min_age_ns);

/* GROVE_TRACE_CLEAN (default on; 0, off, no, false: no automatic
 * cleaning) and GROVE_TRACE_CLEAN_AGE (seconds, default
 * TRACE_CLEAN_AGE_DEFAULT_S), from the environment.  A value that is
 * neither is said on stderr and the default used. */
struct trace_clean_policy {
	int on;
	uint64_t min_age_ns;
};
void trace_clean_policy_from_env(struct trace_clean_policy *p);

struct trace_clean_result {
	unsigned networks;    /* networks removed */
	unsigned segments;    /* segments removed */
	char names[256];      /* the first networks removed, "a, b" */
	unsigned named;       /* how many of them names holds */
	char error[160];      /* on failure: what could not be read, why */
};

/* Removes this user's leftover segments in /dev/shm under the policy
 * (nothing when it is off).  0, or GROVE_ESYS when /dev/shm or
 * /proc/net/unix cannot be read, with r->error saying which and why
 * (then nothing is removed: without the control sockets a running
 * front-end cannot be told apart).  Another
 * user's files are never looked at beyond their owner. */
int trace_leftovers_clean(const struct trace_clean_policy *p,
    struct trace_clean_result *r);

/* trace_leftovers_clean under the environment's policy, saying what it
 * removed at info level and why it could not at debug level.  Called by
 * grove_net_create; never fails the caller. */
void trace_leftovers_clean_auto(void);

#endif

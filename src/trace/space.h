/* The event space segment: layout shared by writers and readers (internal).
 *
 * One segment per process, /dev/shm/grove.<network>.<role>.<rank>:
 *
 *   [0, 4096)                 struct trace_header
 *   [registry_offset, ...)    max_collectors x struct trace_collector_entry
 *   [rings_offset, ...)       max_rings x ring (64-byte struct
 *                             grove_trace_ring_ header + slots[ring_slots])
 *
 * The file is sized for all rings at init but tmpfs allocates pages only
 * when they are written: a ring's pages are reserved (fallocate) when a
 * thread claims it, so running out of /dev/shm space turns into "no ring
 * for this thread" instead of a SIGBUS in the fast path.
 *
 * Native byte order: readers run on the host that wrote the segment.
 * Counters another process reads (n_rings, n_collectors, ring heads) are
 * written with store-release after the data they publish.
 */
#ifndef GROVE_TRACE_SPACE_H
#define GROVE_TRACE_SPACE_H

#include <stddef.h>
#include <stdint.h>

#include "grove/trace.h"

#define TRACE_MAGIC 0x3152545645564f52ull /* "ROVEVTR1" little-endian */
#define TRACE_VERSION 1u
#define TRACE_HEADER_SIZE 4096u
#define TRACE_MAX_RINGS 64u
#define TRACE_MAX_COLLECTORS 2048u
#define TRACE_DEFAULT_SLOTS 8192u
#define TRACE_RING_HEADER 64u

#define TRACE_NET_LEN 64
#define TRACE_ROLE_LEN 16
#define TRACE_HOST_LEN 64

enum trace_clock {
	TRACE_CLOCK_MONO = 0, /* ticks are CLOCK_MONOTONIC nanoseconds */
	TRACE_CLOCK_TSC = 1,  /* ticks are raw TSC cycles */
};

/* One simultaneous reading of both clocks. */
struct trace_calib {
	uint64_t ticks;   /* the event-space clock (TSC or monotonic ns) */
	uint64_t mono_ns; /* CLOCK_MONOTONIC */
};

/* How this process's CLOCK_REALTIME relates to its CLOCK_MONOTONIC:
 * realtime = monotonic + rt_minus_mono_ns, to within err_ns.  realtime
 * here includes the validation offset GROVE_CLOCK_INJECT_NS, so that it is
 * the clock grove_net_clock_skew measures. */
struct trace_rt {
	int64_t rt_minus_mono_ns;
	uint64_t err_ns;
};

enum trace_align_flag {
	TRACE_ALIGN_RT_INIT = 1u,   /* rt_init is valid */
	TRACE_ALIGN_RT_FINI = 2u,   /* rt_fini is valid */
	TRACE_ALIGN_FE_OFFSET = 4u, /* fe_offset_* are valid */
	TRACE_ALIGN_SHIPPED = 8u,   /* a copy the front-end made of a shipped
	                               segment (it wrote fe_offset_*) */
};

struct trace_header {
	uint64_t magic;
	uint32_t version;
	uint32_t header_size;
	char network_id[TRACE_NET_LEN];
	char role[TRACE_ROLE_LEN];
	char hostname[TRACE_HOST_LEN];
	uint32_t rank;
	int32_t pid;
	uint32_t clock;           /* enum trace_clock */
	uint32_t max_rings;
	uint32_t n_rings;         /* rings claimed so far (store-release) */
	uint32_t ring_slots;      /* tuples per ring, a power of two */
	uint64_t ring_stride;     /* bytes from one ring to the next */
	uint64_t rings_offset;
	uint64_t registry_offset;
	uint32_t max_collectors;
	uint32_t n_collectors;    /* registered so far (store-release) */
	uint32_t threads_without_ring; /* threads that recorded into a sink */
	uint32_t finished;        /* 1 after fini wrote calib_fini */
	struct trace_calib calib_init;
	struct trace_calib calib_fini;
	uint64_t size;            /* total segment bytes */
	/* ---- clock alignment across hosts (docs/tracing.md).  Appended:
	 * older segments have zeros here, which read as "unknown". ---- */
	uint32_t align_flags;     /* TRACE_ALIGN_* */
	uint32_t align_reserved;
	struct trace_rt rt_init;  /* CLOCK_REALTIME - CLOCK_MONOTONIC at init */
	struct trace_rt rt_fini;  /* the same at fini (or snapshot) */
	int64_t clock_inject_ns;  /* GROVE_CLOCK_INJECT_NS included in rt_* */
	/* Written by the front-end into its copy of a shipped segment: this
	 * process's realtime clock minus the front-end's (as measured by
	 * grove_net_clock_skew), and the bound of that measurement. */
	int64_t fe_offset_ns;
	uint64_t fe_offset_err_ns;
	/* ---- automatic cleaning (trace/leftover.h).  Appended: older
	 * segments have 0 here, which reads as "not kept". ---- */
	uint32_t kept;            /* 1: a user asked to keep this space after
	                             its process (never removed automatically) */
	uint32_t kept_reserved;
};

_Static_assert(sizeof(struct trace_header) <= TRACE_HEADER_SIZE,
               "header fits its page");

#define TRACE_NAME_LEN 48
#define TRACE_LAYER_LEN 16
#define TRACE_WHERE_LEN 96
#define TRACE_POS_LEN 88

struct trace_collector_entry {
	uint32_t id;
	uint32_t reserved;
	char name[TRACE_NAME_LEN];
	char layer[TRACE_LAYER_LEN];
	char where[TRACE_WHERE_LEN];
	char position[TRACE_POS_LEN];
};

_Static_assert(sizeof(struct trace_collector_entry) == 256,
               "registry entries are 256 bytes");
_Static_assert(sizeof(struct grove_trace_ring_) == TRACE_RING_HEADER,
               "ring header is one cache line");

/* The index of the oldest tuple a ring holds, below which its tuples
 * count as lost; 0 (all of the last ring_slots below head) in a live
 * segment.  Set in the copies trace_space_snapshot makes of rings that
 * were being written, where the oldest slots may have been overwritten
 * while copied: the copy keeps only the tuples known intact. */
#define TRACE_RING_TAIL(r) ((r)->reserved_[0])

/* Bytes of a segment with the given ring size. */
uint64_t trace_segment_size(uint32_t ring_slots);

/* 0 when a file of `size` bytes is within this process's file size
 * limit (RLIMIT_FSIZE); else -1 with errno EFBIG.  Checked before a
 * segment is sized: above the limit ftruncate raises SIGXFSZ, whose
 * default action kills the process. */
int trace_fsize_fits(uint64_t size);

/* "grove.<net>.<role>.<rank>" into buf (shm_open name without '/').
 * GROVE_EINVAL when a part is empty or too long, or holds a character
 * other than [A-Za-z0-9_-] (dots separate the fields of the name). */
int trace_segment_name(char *buf, size_t len, const char *network_id,
                       const char *role, uint32_t rank);

/* The ring with index i of a mapped segment. */
static inline struct grove_trace_ring_ *
trace_ring_at(void *base, const struct trace_header *h, uint32_t i)
{
	return (struct grove_trace_ring_ *)((char *)base + h->rings_offset +
	                                    (uint64_t)i * h->ring_stride);
}

/* Reads both clocks as close together as possible. */
void trace_calib_now(int tsc, struct trace_calib *out);

/* realtime - monotonic now, from the tightest of a few back-to-back
 * readings (monotonic, realtime, monotonic), plus inject_ns. */
void trace_rt_now(int64_t inject_ns, struct trace_rt *out);

/* Per thread on purpose, like the ring it describes: whether the calling
 * thread's ring has all its pages mapped.  Visible so that the check
 * below is inline; initial-exec as for grove_trace_tls_.  Written only by
 * space.c. */
extern __thread int trace_ring_mapped_
	__attribute__((tls_model("initial-exec")));

void trace_ring_settle_slow_(void);

/* Maps all pages of the calling thread's ring once it has used half of
 * those mapped when it was claimed; a few loads otherwise, and one once
 * they are mapped.  Called where a thread makes system calls anyway (the
 * connection layer's writes and reads, once per batch of frames), never
 * from the recording fast path. */
static inline void
trace_ring_settle(void)
{
	if (!trace_ring_mapped_)
		trace_ring_settle_slow_();
}

/* 1 when the CPU says its TSC is invariant (what the kernel lists as
 * constant_tsc and nonstop_tsc in /proc/cpuinfo).  Asks once per
 * process, unless trace_tsc_hint gave the answer. */
int trace_tsc_invariant(void);
/* The answer of a parent on the same host (0 or 1; anything else is
 * ignored), so that this process need not ask the CPU. */
void trace_tsc_hint(int invariant);
/* This process's answer so far: 0, 1, or -1 when nobody asked. */
int trace_tsc_known(void);

/* 1 when GROVE_TRACE switches tracing off in this process. */
int trace_off_by_env(void);

/* 1 while this process has an event space open (enabled or not). */
int trace_space_active(void);
/* The name of the event space this process has open ("grove.NET.ROLE.
 * RANK", the identity of the first user that opened it), or GROVE_ENOENT
 * when none is open. */
int trace_space_name(char *buf, size_t len);
/* Marks the event space this process has open as kept: once its process
 * is gone it stays in /dev/shm until `grove trace clean` (or the reader
 * that wanted it) removes it, and the automatic cleaning at network
 * creation (trace/leftover.h) leaves its whole network alone.  A process
 * started with GROVE_TRACE_KEEP or GROVE_MPI_TRACE_KEEP in its
 * environment gets this at grove_trace_init.  GROVE_ENOENT when no space
 * is open (tracing off, or not initialised). */
int trace_space_keep(void);

/* grove_trace_fini, telling whether this call closed the space: 1 when
 * it was the last user (name, if not NULL, gets the space's name, or ""
 * when tracing was off), 0 when other users still hold it open. */
int trace_space_release(int keep, char *name, size_t len);

/* Name of an operation code ("send", "api_send", "user+3"), into buf. */
const char *trace_op_name(uint16_t op, char *buf, size_t len);

#endif

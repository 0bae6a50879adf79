/* The writer side of the event space: init, fini, collector registry, ring
 * claim, and the globals the inline fast path reads. */
#define _GNU_SOURCE
#include "trace/space.h"
#include "trace/reader.h"
#include "trace/owner.h"
#include "trace/trace_impl.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core/clock_inject.h"
#include "core/envvar.h"
#include "core/log.h"
#include "grove/error.h"

/* See the comments on the declarations in grove/trace.h. */
uint32_t grove_trace_on_;
int grove_trace_clock_tsc_;
__thread struct grove_trace_tls_ grove_trace_tls_
	__attribute__((tls_model("initial-exec")));

/* Threads that find no free ring record here; nobody reads it. */
static __thread union {
	struct grove_trace_ring_ ring;
	unsigned char bytes[TRACE_RING_HEADER + sizeof(grove_trace_tuple)];
} sink;

/* The process's one event space.  Global because a process has exactly
 * one (it is named by the role and rank of the first user that opened
 * it) and the fast path must reach it without a handle.  Guarded by lock
 * except for the fields the fast path reads through grove_trace_on_ and
 * the thread's own ring.  Several users in one process (two networks, a
 * front-end and a back-end) share it: refs counts the inits not yet
 * matched by a fini, and only the last fini closes it, so no user's
 * threads are left recording into an unmapped segment. */
/* Registry entries reserved at a time (64 x 256 bytes = 16 KiB). */
#define TRACE_REG_CHUNK 64u

static struct {
	pthread_mutex_t lock;
	int fd;
	uint32_t reg_reserved; /* registry entries whose pages are reserved */
	void *base;
	struct trace_header *h;
	uint64_t size;
	char name[TRACE_NET_LEN + TRACE_ROLE_LEN + 32];
	uint32_t gen;        /* generation of the current event space */
	int env_off;         /* GROVE_TRACE=0 seen by init */
	uint32_t refs;       /* inits not yet matched by a fini */
	int atfork_done;
} sp = {.lock = PTHREAD_MUTEX_INITIALIZER, .fd = -1};

uint64_t
trace_segment_size(uint32_t ring_slots)
{
	uint64_t reg = (uint64_t)TRACE_MAX_COLLECTORS *
	               sizeof(struct trace_collector_entry);
	uint64_t stride = TRACE_RING_HEADER +
	                  (uint64_t)ring_slots * sizeof(grove_trace_tuple);
	return TRACE_HEADER_SIZE + reg + (uint64_t)TRACE_MAX_RINGS * stride;
}

static int
name_part_ok(const char *s, size_t max)
{
	size_t n = 0;
	if (!s || !*s)
		return 0;
	for (; s[n]; n++)
		if (!isalnum((unsigned char)s[n]) && s[n] != '_' && s[n] != '-')
			return 0;
	return n < max;
}

int
trace_segment_name(char *buf, size_t len, const char *network_id,
                   const char *role, uint32_t rank)
{
	if (!name_part_ok(network_id, TRACE_NET_LEN) ||
	    !name_part_ok(role, TRACE_ROLE_LEN))
		return GROVE_EINVAL;
	int n = snprintf(buf, len, "grove.%s.%s.%u", network_id, role, rank);
	return n > 0 && (size_t)n < len ? 0 : GROVE_ERANGE;
}

/* The validation offset grove_net_clock_skew sees on this process's clock
 * (back-ends by rank, CPs by node id; the front-end is the reference),
 * so that rt_* describe that clock.  A malformed value is reported by the
 * process's own skew code; here it just counts as none. */
static int64_t
env_clock_inject(const char *role, uint32_t rank)
{
	int is_be = !strcmp(role, "be"), is_cp = !strcmp(role, "cp");
	int64_t v = 0;
	char err[128];
	if (!is_be && !is_cp)
		return 0;
	if (clock_inject_parse(getenv("GROVE_CLOCK_INJECT_NS"), is_cp, rank, &v,
	                       err, sizeof err) != 0)
		return 0;
	return v;
}

/* 1 when this process was started to keep its event space
 * (trace_space_keep).  GROVE_TRACE_KEEP is the TBON's (an attach-mode
 * back-end's, or any process's); grove run --keep-trace gives its ranks
 * GROVE_MPI_TRACE_KEEP, read here too so that a job's spaces are kept from
 * the start: a rank or launcher killed before MPI_Finalize still leaves a
 * kept space.  Set to any value, as be.c and the MPI library read them. */
static int
env_keep(void)
{
	return getenv("GROVE_TRACE_KEEP") != NULL ||
	       getenv("GROVE_MPI_TRACE_KEEP") != NULL;
}

static const char *const op_names[] = {
	[GROVE_OP_SEND] = "send",
	[GROVE_OP_RECV] = "recv",
	[GROVE_OP_WRITEV] = "writev",
	[GROVE_OP_READ] = "read",
	[GROVE_OP_FILTER_SYNC] = "filter_sync",
	[GROVE_OP_FILTER_TRANSFORM] = "filter_transform",
	[GROVE_OP_WAVE] = "wave",
	[GROVE_OP_STREAM_NEW] = "stream_new",
	[GROVE_OP_CONNECT] = "connect",
	[GROVE_OP_API_SEND] = "api_send",
	[GROVE_OP_API_RECV] = "api_recv",
	[GROVE_OP_TRACE_SEND] = "trace_send",
	[GROVE_OP_TRACE_RECV] = "trace_recv",
	[GROVE_OP_MPI_CALL] = "mpi_call",
	[GROVE_OP_MPI_TAG] = "mpi_tag",
	[GROVE_OP_MPI_PEER] = "mpi_peer",
	[GROVE_OP_MPI_COMM] = "mpi_comm",
};

const char *
trace_op_name(uint16_t op, char *buf, size_t len)
{
	if (op < sizeof op_names / sizeof op_names[0] && op_names[op])
		return op_names[op];
	if (op >= GROVE_OP_USER)
		snprintf(buf, len, "user+%u", (unsigned)(op - GROVE_OP_USER));
	else
		snprintf(buf, len, "op%u", (unsigned)op);
	return buf;
}

/* Warnings about running out of room, each said once per process: a
 * full /dev/shm would otherwise say the same for every thread and every
 * collector.  Indexed by cause. */
enum trace_warn {
	WARN_SEGMENT,   /* the segment's first pages could not be reserved */
	WARN_RING_SPACE, /* a ring could not be reserved */
	WARN_RINGS_USED, /* all rings are taken */
	WARN_REG_SPACE, /* registry pages could not be reserved */
	WARN_REG_FULL,  /* all registry entries are taken */
	WARN_N_
};
static int warned[WARN_N_];

/* 1 the first time cause is seen in this process, 0 after. */
static int
warn_first(enum trace_warn cause)
{
	return !__atomic_exchange_n(&warned[cause], 1, __ATOMIC_RELAXED);
}

/* After fork the child shares the parent's mapping (MAP_SHARED): it must
 * not record into the parent's rings.  It starts with tracing off and its
 * own grove_trace_init (with its own role) creates its event space. */
static void
atfork_child(void)
{
	__atomic_store_n(&grove_trace_on_, 0, __ATOMIC_RELAXED);
	grove_trace_tls_.ring = NULL;
	grove_trace_tls_.gen = 0;
	if (sp.base)
		munmap(sp.base, sp.size);
	if (sp.fd >= 0)
		close(sp.fd);
	sp.base = NULL;
	sp.h = NULL;
	sp.fd = -1;
	/* The parent's users are not this process's. */
	sp.refs = 0;
	memset(warned, 0, sizeof warned);
	pthread_mutex_init(&sp.lock, NULL);
}

static uint32_t
env_ring_slots(void)
{
	const char *s = getenv("GROVE_TRACE_SIZE");
	char *end;
	if (!s || !*s)
		return TRACE_DEFAULT_SLOTS;
	errno = 0;
	unsigned long v = strtoul(s, &end, 10);
	if (errno || *end || v < 16 || v > (1ul << 24) || (v & (v - 1))) {
		fprintf(stderr, "grove: GROVE_TRACE_SIZE='%s' is not a power of "
		        "two in [16, 16777216]; using %u\n", s,
		        TRACE_DEFAULT_SLOTS);
		return TRACE_DEFAULT_SLOTS;
	}
	return (uint32_t)v;
}

static int
env_trace_off(void)
{
	static const char *const words[] = {"0", "off", "no", "false",
	                                    "1", "on", "yes", "true"};
	return env_word("GROVE_TRACE", words, 8, 4) < 4;
}

int
trace_off_by_env(void)
{
	return env_trace_off();
}

static int
env_clock_tsc(void)
{
	static const char *const words[] = {"mono", "tsc"};
	if (env_word("GROVE_TRACE_CLOCK", words, 2, 1) == 0)
		return 0;
#ifdef GROVE_TRACE_HAVE_TSC_
	return trace_tsc_invariant();
#else
	return 0;
#endif
}

/* The pid recorded in an existing segment when that process is still
 * writing it (trace_writer_alive: not one that got the pid later; and
 * not finished: a kept segment is no longer written, and `grove trace
 * list` and `clean` count it as gone too), or 0 if unreadable or gone. */
static pid_t
segment_owner(int fd)
{
	struct trace_header h;
	if (pread(fd, &h, sizeof h, 0) != (ssize_t)sizeof h ||
	    h.magic != TRACE_MAGIC || h.finished ||
	    !trace_writer_alive(h.pid, h.calib_init.mono_ns))
		return 0;
	return h.pid;
}

/* GROVE_EAUTH (after a message) when the existing segment `name`, open
 * as old (or not openable: old < 0, errno says why), is not this user's:
 * it is taken, never reused nor removed.  0 when it is this user's. */
static int
foreign_segment(const char *name, int old)
{
	struct stat st;
	char why[200];
	if (old >= 0) {
		/* The owner of the file opened, not of the name now. */
		if (fstat(old, &st) != 0)
			snprintf(why, sizeof why, "cannot be examined (%s)",
			         strerror(errno));
		else if (trace_owner_mine(&st))
			return 0;
		else
			trace_owner_why(&st, why, sizeof why);
	} else {
		/* This user's segments are 0600 files of its own: one it
		 * cannot open is someone else's.  The name is looked up for
		 * the message only. */
		int e = errno;
		char path[sizeof sp.name + 16];
		snprintf(path, sizeof path, "/dev/shm/%s", name);
		if (stat(path, &st) == 0 && st.st_uid != geteuid())
			trace_owner_why(&st, why, sizeof why);
		else
			snprintf(why, sizeof why, "cannot be opened (%s)",
			         strerror(e));
	}
	/* Said whatever GROVE_LOG is, like a segment in use: someone may
	 * be interfering with this user's tracing. */
	fprintf(stderr, "grove: trace segment /dev/shm/%s already exists and "
	        "%s; tracing off (event spaces are per user)\n", name, why);
	return GROVE_EAUTH;
}

int
trace_fsize_fits(uint64_t size)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_FSIZE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY ||
	    size <= (uint64_t)rl.rlim_cur)
		return 0;
	errno = EFBIG;
	return -1;
}

/* GROVE_ESYS with errno saying why when the segment cannot be made. */
static int
open_segment(const char *name, uint64_t size)
{
	/* A file larger than RLIMIT_FSIZE is not refused with an error but
	 * with SIGXFSZ, which kills the process (a library does not change
	 * signal dispositions): the limit is looked at first, and a segment
	 * above it fails like a full /dev/shm, before anything is made. */
	if (trace_fsize_fits(size) != 0)
		return GROVE_ESYS;
	for (int attempt = 0; attempt < 2; attempt++) {
		int fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
		if (fd >= 0) {
			if (ftruncate(fd, (off_t)size) != 0) {
				int e = errno;
				close(fd);
				shm_unlink(name);
				errno = e;
				return GROVE_ESYS;
			}
			return fd;
		}
		if (errno != EEXIST)
			return GROVE_ESYS;
		/* Left over by a process that died without fini (or kept on
		 * purpose and never collected): replace it unless its owner
		 * is still alive.  Only when it is this user's: the name is
		 * not secret, and another local user may have made the file
		 * first (root could remove it, and would then write into a
		 * name chosen by someone else). */
		/* O_NONBLOCK: the name may be another user's FIFO, whose
		 * open would wait for a writer (with sp.lock held). */
		int old = shm_open(name, O_RDONLY | O_NONBLOCK, 0);
		if (old < 0 && errno == ENOENT)
			continue; /* removed meanwhile */
		int rc = foreign_segment(name, old);
		pid_t pid = old >= 0 && !rc ? segment_owner(old) : 0;
		if (old >= 0)
			close(old);
		if (rc)
			return rc;
		if (pid > 0 && pid != getpid()) {
			fprintf(stderr, "grove: trace segment /dev/shm/%s is in "
			        "use by live pid %d; tracing off\n", name,
			        (int)pid);
			return GROVE_EINVAL;
		}
		shm_unlink(name);
	}
	return GROVE_ESYS;
}

int
grove_trace_init(const char *network_id, const char *role, uint32_t rank)
{
	char name[sizeof sp.name];
	int rc = trace_segment_name(name, sizeof name, network_id, role, rank);
	pthread_mutex_lock(&sp.lock);
	if (!sp.atfork_done) {
		pthread_atfork(NULL, NULL, atfork_child);
		sp.atfork_done = 1;
	}
	/* Every call is a user that will call fini once, whatever the
	 * outcome, so a failed init cannot drop another user's reference:
	 * a refused identity too is counted before it is refused. */
	sp.refs++;
	if (rc) {
		pthread_mutex_unlock(&sp.lock);
		return rc;
	}
	if (sp.base || (sp.refs > 1 && sp.env_off)) {
		/* A later user joins the space that is open, whatever its
		 * name: the process records into one space. */
		pthread_mutex_unlock(&sp.lock);
		return 0;
	}
	if (env_trace_off()) {
		sp.env_off = 1;
		pthread_mutex_unlock(&sp.lock);
		return 0;
	}
	sp.env_off = 0;
	uint32_t slots = env_ring_slots();
	uint64_t size = trace_segment_size(slots);
	int fd = open_segment(name, size);
	if (fd < 0) {
		int e = errno;
		pthread_mutex_unlock(&sp.lock);
		/* A segment that is taken was said by open_segment. */
		if (fd == GROVE_ESYS && e == EFBIG)
			log_warn("trace: cannot create /dev/shm/%s: its %llu "
			         "bytes exceed the file size limit (ulimit -f); "
			         "tracing off in this process", name,
			         (unsigned long long)size);
		else if (fd == GROVE_ESYS)
			log_warn("trace: cannot create /dev/shm/%s: %s; tracing "
			         "off in this process", name, strerror(e));
		errno = e;
		return fd;
	}
	/* Reserve the header and the first registry pages now, the rest of
	 * the registry as it fills and each ring when a thread claims it:
	 * reserving 512 KiB of registry up front cost every process of a
	 * large tree about 0.1 ms at start. */
	uint64_t fixed = TRACE_HEADER_SIZE + (uint64_t)TRACE_REG_CHUNK *
	                 sizeof(struct trace_collector_entry);
	sp.reg_reserved = TRACE_REG_CHUNK;
	void *base = MAP_FAILED;
	/* posix_fallocate returns its error; it does not set errno. */
	int err = posix_fallocate(fd, 0, (off_t)fixed);
	if (err == 0) {
		base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED,
		            fd, 0);
		if (base == MAP_FAILED)
			err = errno;
	}
	if (base == MAP_FAILED) {
		close(fd);
		shm_unlink(name);
		pthread_mutex_unlock(&sp.lock);
		if (warn_first(WARN_SEGMENT))
			log_warn("trace: cannot reserve the event space "
			         "/dev/shm/%s: %s; tracing off in this process",
			         name, strerror(err));
		errno = err;
		return GROVE_ESYS;
	}
	struct trace_header *h = base;
	int tsc = env_clock_tsc();
	h->version = TRACE_VERSION;
	h->header_size = TRACE_HEADER_SIZE;
	snprintf(h->network_id, sizeof h->network_id, "%s", network_id);
	snprintf(h->role, sizeof h->role, "%s", role);
	if (gethostname(h->hostname, sizeof h->hostname - 1) != 0)
		strcpy(h->hostname, "?");
	h->rank = rank;
	h->pid = (int32_t)getpid();
	h->clock = tsc ? TRACE_CLOCK_TSC : TRACE_CLOCK_MONO;
	h->max_rings = TRACE_MAX_RINGS;
	h->ring_slots = slots;
	h->ring_stride = TRACE_RING_HEADER +
	                 (uint64_t)slots * sizeof(grove_trace_tuple);
	h->registry_offset = TRACE_HEADER_SIZE;
	h->rings_offset = TRACE_HEADER_SIZE + (uint64_t)TRACE_MAX_COLLECTORS *
	                  sizeof(struct trace_collector_entry);
	h->max_collectors = TRACE_MAX_COLLECTORS;
	h->size = size;
	trace_calib_now(tsc, &h->calib_init);
	h->clock_inject_ns = env_clock_inject(role, rank);
	trace_rt_now(h->clock_inject_ns, &h->rt_init);
	h->align_flags = TRACE_ALIGN_RT_INIT;
	h->kept = env_keep();
	/* The magic goes last: a reader that sees it sees a whole header. */
	__atomic_store_n(&h->magic, TRACE_MAGIC, __ATOMIC_RELEASE);

	sp.fd = fd;
	sp.base = base;
	sp.h = h;
	sp.size = size;
	snprintf(sp.name, sizeof sp.name, "%s", name);
	if (++sp.gen == 0)
		sp.gen = 1;
	grove_trace_clock_tsc_ = tsc;
	__atomic_store_n(&grove_trace_on_, sp.gen, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&sp.lock);
	return 0;
}

int
trace_space_release(int keep, char *name, size_t len)
{
	if (name && len)
		name[0] = 0;
	pthread_mutex_lock(&sp.lock);
	/* Another user still records into it: leave it open and mapped. */
	if (sp.refs > 1) {
		sp.refs--;
		pthread_mutex_unlock(&sp.lock);
		return 0;
	}
	sp.refs = 0;
	sp.env_off = 0;
	if (name && len)
		snprintf(name, len, "%s", sp.name);
	__atomic_store_n(&grove_trace_on_, 0, __ATOMIC_RELEASE);
	grove_trace_tls_.ring = NULL;
	grove_trace_tls_.gen = 0;
	if (sp.base) {
		trace_calib_now(sp.h->clock == TRACE_CLOCK_TSC,
		                &sp.h->calib_fini);
		trace_rt_now(sp.h->clock_inject_ns, &sp.h->rt_fini);
		sp.h->align_flags |= TRACE_ALIGN_RT_FINI;
		__atomic_store_n(&sp.h->finished, 1, __ATOMIC_RELEASE);
		munmap(sp.base, sp.size);
		close(sp.fd);
		if (!keep)
			shm_unlink(sp.name);
	}
	sp.base = NULL;
	sp.h = NULL;
	sp.fd = -1;
	sp.name[0] = 0;
	pthread_mutex_unlock(&sp.lock);
	return 1;
}

void
grove_trace_fini(int keep)
{
	trace_space_release(keep, NULL, 0);
}

int
trace_space_keep(void)
{
	pthread_mutex_lock(&sp.lock);
	int rc = sp.base ? 0 : GROVE_ENOENT;
	/* A reader may look at any moment: one aligned store. */
	if (rc == 0)
		__atomic_store_n(&sp.h->kept, 1u, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&sp.lock);
	return rc;
}

int
trace_space_name(char *buf, size_t len)
{
	pthread_mutex_lock(&sp.lock);
	int rc = sp.base ? 0 : GROVE_ENOENT;
	if (rc == 0)
		snprintf(buf, len, "%s", sp.name);
	pthread_mutex_unlock(&sp.lock);
	return rc;
}

/* Appends one (offset, length, bytes) chunk of a snapshot. */
static int
snap_chunk(FILE *f, uint64_t off, const void *p, uint64_t len)
{
	return fwrite(&off, 8, 1, f) == 1 && fwrite(&len, 8, 1, f) == 1 &&
	       (len == 0 || fwrite(p, (size_t)len, 1, f) == 1) ? 0 : -1;
}

/* Appends the copy of ring i, which other threads may be writing: read
 * as a reader reads a live ring (head, copy, head again), so the copy
 * holds only tuples known intact.  Its head is the one the tuples were
 * copied under and TRACE_RING_TAIL names its oldest tuple: the reader of
 * the copy counts the tuples below it as lost, and the copy, marked
 * finished, is consistent on its own.  out has room for a ring. */
static int
snap_ring(FILE *f, const struct trace_header *h, uint32_t i, int finish,
          grove_trace_tuple *out)
{
	struct grove_trace_ring_ *r = trace_ring_at(sp.base, h, i);
	uint64_t off = (uint64_t)((char *)r - (char *)sp.base);
	uint64_t slots = h->ring_slots;
	/* Stopped recording, or this thread's own ring: nobody is in the
	 * middle of storing a tuple, so every slot below head is whole. */
	int still = finish || r == grove_trace_tls_.ring;
	struct trace_ring_cursor cur = {0};
	size_t n = trace_ring_read(r, slots, still, &cur, out);
	if (cur.damaged) {
		/* Not an honest head: ship the ring as it is and let the
		 * reader of the copy judge it, as it would the original. */
		uint64_t head = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
		uint64_t used = head < slots ? head : slots;
		return snap_chunk(f, off, r, TRACE_RING_HEADER +
		                  used * sizeof(grove_trace_tuple));
	}
	struct grove_trace_ring_ hdr;
	memcpy(&hdr, r, sizeof hdr);
	hdr.head = cur.next;
	TRACE_RING_TAIL(&hdr) = cur.next - n;
	int rc = snap_chunk(f, off, &hdr, sizeof hdr);
	/* Tuple k lives in slot k & mask: at most two runs of slots. */
	uint64_t first = (cur.next - n) & (slots - 1);
	size_t run = n < slots - first ? n : (size_t)(slots - first);
	if (rc == 0 && run)
		rc = snap_chunk(f, off + TRACE_RING_HEADER +
		                first * sizeof(grove_trace_tuple), out,
		                run * sizeof(grove_trace_tuple));
	if (rc == 0 && n > run)
		rc = snap_chunk(f, off + TRACE_RING_HEADER, out + run,
		                (n - run) * sizeof(grove_trace_tuple));
	return rc;
}

int
trace_space_finish_snapshot(char *name, size_t namelen, uint8_t **out,
                            size_t *len)
{
	return trace_space_snapshot(name, namelen, out, len, 1);
}

int
trace_space_snapshot(char *name, size_t namelen, uint8_t **out, size_t *len,
                     int finish)
{
	*out = NULL;
	*len = 0;
	pthread_mutex_lock(&sp.lock);
	if (!sp.base) {
		pthread_mutex_unlock(&sp.lock);
		return GROVE_ENOENT;
	}
	struct trace_header *h = sp.h;
	/* The copy's header says "finished now", so a reader converts its
	 * clock with a calibration taken at the snapshot.  Finishing also
	 * stops recording first, so the rings are still while copied. */
	union {
		struct trace_header h;
		unsigned char bytes[TRACE_HEADER_SIZE];
	} hdr;
	if (finish) {
		__atomic_store_n(&grove_trace_on_, 0, __ATOMIC_RELEASE);
		trace_calib_now(h->clock == TRACE_CLOCK_TSC, &h->calib_fini);
		trace_rt_now(h->clock_inject_ns, &h->rt_fini);
		h->align_flags |= TRACE_ALIGN_RT_FINI;
		__atomic_store_n(&h->finished, 1, __ATOMIC_RELEASE);
	}
	memcpy(hdr.bytes, sp.base, TRACE_HEADER_SIZE);
	if (!finish) {
		trace_calib_now(h->clock == TRACE_CLOCK_TSC, &hdr.h.calib_fini);
		trace_rt_now(h->clock_inject_ns, &hdr.h.rt_fini);
		hdr.h.align_flags |= TRACE_ALIGN_RT_FINI;
		hdr.h.finished = 1;
	}
	snprintf(name, namelen, "%s", sp.name);
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	int rc = f ? 0 : GROVE_ENOMEM;
	uint64_t size = h->size;
	if (rc == 0 && fwrite(&size, 8, 1, f) != 1)
		rc = GROVE_ENOMEM;
	if (rc == 0)
		rc = snap_chunk(f, 0, hdr.bytes, TRACE_HEADER_SIZE);
	if (rc == 0)
		rc = snap_chunk(f, h->registry_offset,
		                (char *)sp.base + h->registry_offset,
		                (uint64_t)h->n_collectors *
		                sizeof(struct trace_collector_entry));
	grove_trace_tuple *tuples = NULL;
	if (rc == 0 && h->n_rings &&
	    !(tuples = malloc(h->ring_slots * sizeof *tuples)))
		rc = GROVE_ENOMEM;
	for (uint32_t i = 0; rc == 0 && i < h->n_rings; i++)
		rc = snap_ring(f, h, i, finish, tuples);
	free(tuples);
	if (f && fclose(f) != 0)
		rc = GROVE_ENOMEM;
	pthread_mutex_unlock(&sp.lock);
	if (rc != 0) {
		free(buf);
		return rc < 0 ? rc : GROVE_ENOMEM;
	}
	*out = (uint8_t *)buf;
	*len = n;
	return 0;
}

int
grove_trace_enabled(void)
{
	return __atomic_load_n(&grove_trace_on_, __ATOMIC_RELAXED) != 0;
}

int
trace_space_active(void)
{
	pthread_mutex_lock(&sp.lock);
	int a = sp.base != NULL;
	pthread_mutex_unlock(&sp.lock);
	return a;
}

void
grove_trace_set_enabled(int on)
{
	pthread_mutex_lock(&sp.lock);
	uint32_t v = on && sp.base ? sp.gen : 0;
	__atomic_store_n(&grove_trace_on_, v, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&sp.lock);
}

static void
use_sink(void)
{
	sink.ring.mask = 0;
	grove_trace_tls_.ring = &sink.ring;
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif

/* Bytes of a ring mapped when it is claimed: 16 KiB, 512 tuples. */
#define TRACE_RING_FIRST_BYTES (16u << 10)
__thread int trace_ring_mapped_;

/* Maps [p, p + len) of the segment ahead of the writer.  madvise wants a
 * page-aligned start, and only ring 0 starts on a page (a ring is 64 +
 * slots * 32 bytes): the range is widened to whole pages.  The pages it
 * gains at either end are shared with the neighbouring rings, and
 * fallocate reserved them with this ring's bytes, so mapping them takes
 * no space that was not reserved. */
static void
ring_populate(void *p, size_t len)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t lo = (uintptr_t)p & ~(page - 1);
	uintptr_t hi = ((uintptr_t)p + len + page - 1) & ~(page - 1);
	uintptr_t end = (uintptr_t)sp.base + sp.size;
	if (hi > end)
		hi = end;
	if (hi > lo)
		madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE);
}

void
trace_ring_settle_slow_(void)
{
	struct grove_trace_ring_ *r = grove_trace_tls_.ring;
	/* A ring claimed before a fini may be unmapped: like the fast
	 * path, touch it only while its generation is the live one. */
	if (trace_ring_mapped_ || !r || r == &sink.ring || grove_trace_tls_.gen !=
	    __atomic_load_n(&grove_trace_on_, __ATOMIC_RELAXED))
		return;
	/* Half the first pages used: map the rest before the writer gets
	 * there, or it takes a page fault every 128 tuples until the ring
	 * has wrapped once, which costs a third as much again as the
	 * tuples themselves.  Older kernels refuse the advice; then the
	 * faults stay (the pages are reserved either way). */
	if (__atomic_load_n(&r->head, __ATOMIC_RELAXED) *
	    sizeof(grove_trace_tuple) < TRACE_RING_FIRST_BYTES / 2)
		return;
	trace_ring_mapped_ = 1;
	pthread_mutex_lock(&sp.lock);
	/* A fini since this thread claimed it unmapped the ring. */
	if (sp.base && grove_trace_tls_.gen == sp.gen)
		ring_populate((char *)r + TRACE_RING_FIRST_BYTES,
		    sp.h->ring_stride - TRACE_RING_FIRST_BYTES);
	pthread_mutex_unlock(&sp.lock);
}

void
grove_trace_claim_(void)
{
	pthread_mutex_lock(&sp.lock);
	grove_trace_tls_.gen = sp.gen;
	if (!sp.base) {
		/* Raced with fini: the caller stores one tuple, nowhere. */
		use_sink();
		pthread_mutex_unlock(&sp.lock);
		return;
	}
	struct trace_header *h = sp.h;
	uint32_t i = h->n_rings;
	off_t off = (off_t)(h->rings_offset + (uint64_t)i * h->ring_stride);
	int err = i >= h->max_rings ? 0 :
	          posix_fallocate(sp.fd, off, (off_t)h->ring_stride);
	if (i >= h->max_rings || err) {
		h->threads_without_ring++;
		use_sink();
		/* Copied under the lock: a fini may unmap h once it is out. */
		uint32_t max = h->max_rings;
		char seg[sizeof sp.name];
		snprintf(seg, sizeof seg, "%s", sp.name);
		pthread_mutex_unlock(&sp.lock);
		/* Said once: a thread pool would say it per thread. */
		if (err && warn_first(WARN_RING_SPACE))
			log_warn("trace: cannot reserve a ring in /dev/shm/%s: "
			         "%s; this thread's events are not recorded "
			         "(counted in threads_without_ring)", seg,
			         strerror(err));
		else if (!err && warn_first(WARN_RINGS_USED))
			log_warn("trace: all %u rings of /dev/shm/%s are "
			         "taken (rings of exited threads are not "
			         "reused); this thread's events are not "
			         "recorded (counted in threads_without_ring)",
			         max, seg);
		return;
	}
	struct grove_trace_ring_ *r = trace_ring_at(sp.base, h, i);
	/* The ring is reserved (no SIGBUS on a full /dev/shm), but only
	 * its first pages are mapped: most threads of a large tree record
	 * a few hundred tuples, and mapping 256 KiB cost each process about
	 * 75 us at start.  trace_ring_settle() maps the rest once the
	 * thread turns out to record more. */
	size_t first = h->ring_stride < TRACE_RING_FIRST_BYTES ?
	    h->ring_stride : TRACE_RING_FIRST_BYTES;
	ring_populate(r, first);
	trace_ring_mapped_ = first == h->ring_stride;
	r->mask = h->ring_slots - 1;
	r->tid = (uint32_t)syscall(SYS_gettid);
	r->index = i;
	__atomic_store_n(&r->head, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&h->n_rings, i + 1, __ATOMIC_RELEASE);
	grove_trace_tls_.ring = r;
	pthread_mutex_unlock(&sp.lock);
}

/* A registry string: cut to the field's room (len - 1 bytes, see
 * grove/trace.h) at a character boundary, so a long UTF-8 name loses
 * whole characters rather than ending in half of one. */
static void
copy_field(char *dst, size_t len, const char *src)
{
	size_t n = src ? trace_utf8_fit(src, len - 1) : 0;
	memcpy(dst, src ? src : "", n);
	dst[n] = 0;
}

int
grove_trace_collector_register(grove_trace_collector *c, const char *name,
                               const char *layer, const char *where,
                               const char *position)
{
	if (!c)
		return GROVE_EINVAL;
	c->id = 0;
	c->seq = 0;
	pthread_mutex_lock(&sp.lock);
	if (!sp.base) {
		pthread_mutex_unlock(&sp.lock);
		return 0;
	}
	struct trace_header *h = sp.h;
	uint32_t n = h->n_collectors;
	off_t off = (off_t)(h->registry_offset +
	                    (uint64_t)n * sizeof(struct trace_collector_entry));
	int err = 0;
	if (n < h->max_collectors && n >= sp.reg_reserved) {
		uint32_t more = h->max_collectors - n < TRACE_REG_CHUNK
		                ? h->max_collectors - n : TRACE_REG_CHUNK;
		err = posix_fallocate(sp.fd, off, (off_t)more *
		                      (off_t)sizeof(struct trace_collector_entry));
		if (err == 0)
			sp.reg_reserved = n + more;
	}
	if (n >= h->max_collectors || n >= sp.reg_reserved) {
		uint32_t max = h->max_collectors;
		char seg[sizeof sp.name];
		snprintf(seg, sizeof seg, "%s", sp.name);
		pthread_mutex_unlock(&sp.lock);
		if (err && warn_first(WARN_REG_SPACE))
			log_warn("trace: cannot reserve collector registry "
			         "entries in /dev/shm/%s: %s; '%s' at '%s' and "
			         "later collectors record as collector 0", seg,
			         strerror(err), name ? name : "",
			         where ? where : "");
		else if (!err && warn_first(WARN_REG_FULL))
			log_warn("trace: collector registry full (%u entries); "
			         "'%s' at '%s' and later collectors record as "
			         "collector 0", max, name ? name : "",
			         where ? where : "");
		return GROVE_ERANGE;
	}
	struct trace_collector_entry *e =
		(struct trace_collector_entry *)((char *)sp.base + off);
	e->id = n + 1;
	copy_field(e->name, sizeof e->name, name);
	copy_field(e->layer, sizeof e->layer, layer);
	copy_field(e->where, sizeof e->where, where);
	copy_field(e->position, sizeof e->position, position);
	__atomic_store_n(&h->n_collectors, n + 1, __ATOMIC_RELEASE);
	c->id = n + 1;
	pthread_mutex_unlock(&sp.lock);
	return 0;
}

int
grove_trace_user_register(grove_trace_collector *c, const char *name)
{
	return grove_trace_collector_register(c, name, "user", "", "");
}

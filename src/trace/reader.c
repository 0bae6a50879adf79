/* Reading event spaces: the lock-free ring copy, segment opening and
 * validation, and in-memory snapshots (listing /dev/shm: list.c). */
#define _GNU_SOURCE
#include "trace/reader.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "grove/error.h"
#include "trace/align.h"
#include "trace/owner.h"

/* Reads len bytes at off; a short read means the file shrank. */
static int
pread_all(int fd, void *buf, size_t len, uint64_t off)
{
	char *p = buf;
	while (len) {
		ssize_t k = pread(fd, p, len, (off_t)off);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return GROVE_ESYS;
		if (k == 0)
			return GROVE_EFORMAT;
		p += k;
		len -= (size_t)k;
		off += (uint64_t)k;
	}
	return 0;
}

/* Where a ring is read from: a mapping, or the segment's file.  A
 * reader of another process's segment never touches a mapping of it:
 * once another process truncates the file, any load from the lost pages
 * faults (SIGBUS), where pread() just comes back short.  The mapping is
 * for rings in this process's own memory (the writer's snapshot of its
 * own space, a shipped copy in a buffer). */
struct ring_src {
	const struct grove_trace_ring_ *r; /* NULL: read from fd */
	int fd;
	uint64_t off;  /* file offset of the ring */
};

static int
copy_slots(const struct ring_src *src, uint64_t first, size_t n,
           grove_trace_tuple *out)
{
	if (!n)
		return 0;
	if (src->r) {
		memcpy(out, &src->r->slots[first], n * sizeof *out);
		return 0;
	}
	return pread_all(src->fd, out, n * sizeof *out,
	                 src->off + TRACE_RING_HEADER + first * sizeof *out);
}

/* The ring's head, after the copies before it (acquire).  From the file,
 * nothing promises that the kernel copies the 8 bytes in one load; a
 * torn value can only look like a damaged head (one that goes back, or
 * has never-written slots below it) or move which tuples count as lost,
 * never make the read fault or overrun a buffer. */
static int
src_head(const struct ring_src *src, uint64_t *head)
{
	if (src->r) {
		*head = __atomic_load_n(&src->r->head, __ATOMIC_ACQUIRE);
		return 0;
	}
	int rc = pread_all(src->fd, head, sizeof *head,
	                   src->off + offsetof(struct grove_trace_ring_, head));
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return rc;
}

/* The 64-byte header (head, tid, tail) of a ring in a file, in one
 * read; its head is the first head of a read (acquire, as src_head). */
static int
file_ring_header(const struct ring_src *src, struct grove_trace_ring_ *hdr)
{
	int rc = pread_all(src->fd, hdr, sizeof *hdr, src->off);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return rc;
}

/* The writer fills every field of a tuple and sets the instant flag when
 * t_start == t_end, so all 32 bytes are zero only in a slot never
 * written (tmpfs pages start zeroed). */
static int
never_written(const grove_trace_tuple *t)
{
	static const grove_trace_tuple zero;
	return memcmp(t, &zero, sizeof zero) == 0;
}

static void
reverse(grove_trace_tuple *t, size_t n)
{
	for (size_t i = 0, j = n; i + 1 < j; i++, j--) {
		grove_trace_tuple x = t[i];
		t[i] = t[j - 1];
		t[j - 1] = x;
	}
}

/* The ring read proper (see trace_ring_read), from head h1 and tail
 * already read by the caller, who sized out for the copy. */
static int
ring_read(const struct ring_src *src, uint64_t slots, uint64_t h1,
          uint64_t tail, int quiescent, struct trace_ring_cursor *cur,
          grove_trace_tuple *out, size_t *got)
{
	uint64_t mask = slots - 1;
	*got = 0;
	if (h1 < cur->next) /* not a ring we read before: start over */
		*cur = (struct trace_ring_cursor){0};
	uint64_t start = cur->next;
	if (h1 - start > slots)
		start = h1 - slots;
	/* A shipped copy of a live ring holds nothing below its tail (a
	 * tail above the head is damage, and ignored). */
	if (tail > start && tail <= h1)
		start = tail;
	size_t n = (size_t)(h1 - start);
	/* Copy in at most two runs: [start, end of array), [0, rest). */
	size_t first = n ? (size_t)(slots - (start & mask)) : 0;
	if (first > n)
		first = n;
	int rc = copy_slots(src, start & mask, first, out);
	if (!rc)
		rc = copy_slots(src, 0, n - first, out + first);
	if (rc)
		return rc;
	/* The copies above must complete before head is read again. */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	uint64_t h2;
	if ((rc = src_head(src, &h2)))
		return rc;

	/* An honest ring has no never-written slot below its head: the
	 * writer publishes a slot before counting it.  One such slot means
	 * the head is damaged and the ring never wrapped, so what it holds
	 * is its non-zero slots, in slot order, and nothing was lost. */
	size_t unwritten = 0;
	for (size_t k = 0; k < n; k++)
		unwritten += never_written(&out[k]);
	if (unwritten) {
		if (n == slots && (start & mask)) {
			/* Rotate [start&mask..) [0..) into slot order. */
			reverse(out, first);
			reverse(out + first, n - first);
			reverse(out, n);
		}
		size_t kept = 0;
		for (size_t k = 0; k < n; k++)
			if (!never_written(&out[k]))
				out[kept++] = out[k];
		cur->damaged = 1;
		cur->unwritten += unwritten;
		cur->copied += kept;
		cur->next = h1;
		*got = kept;
		return 0;
	}

	/* The writer has published h2 tuples and may be storing tuple h2
	 * right now, into the slot of tuple h2 - slots: only tuples after
	 * that one are certainly intact. */
	uint64_t keep = quiescent ? slots : slots - 1;
	uint64_t safe = h2 > keep ? h2 - keep : 0;
	size_t skip = 0;
	if (safe > start)
		skip = safe - start > n ? n : (size_t)(safe - start);
	if (skip)
		memmove(out, out + skip, (n - skip) * sizeof *out);
	/* A head never goes back: if it did, the count is damaged and so is
	 * any loss computed from it. */
	if (h2 < h1)
		cur->damaged = 1;
	if (!cur->damaged)
		cur->lost += (start - cur->next) + skip;
	cur->copied += n - skip;
	cur->next = h1;
	*got = n - skip;
	return 0;
}

size_t
trace_ring_read(const struct grove_trace_ring_ *r, uint64_t slots,
                int quiescent, struct trace_ring_cursor *cur,
                grove_trace_tuple *out)
{
	struct ring_src src = {r, -1, 0};
	uint64_t h1 = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
	uint64_t tail = __atomic_load_n(&TRACE_RING_TAIL(r), __ATOMIC_RELAXED);
	size_t n = 0;
	(void)ring_read(&src, slots, h1, tail, quiescent, cur, out, &n);
	return n;
}

static int
fail(char *err, size_t len, int code, const char *fmt, const char *name,
     unsigned long off)
{
	if (err && len)
		snprintf(err, len, fmt, name, off);
	return code;
}

static int
header_ok(const struct trace_header *h, uint64_t fsize, const char *name,
          char *err, size_t len)
{
#define BAD(field, why)                                                        \
	return fail(err, len, GROVE_EFORMAT,                                   \
	            "%s: bad header at byte %lu (" #field ": " why ")", name,  \
	            (unsigned long)offsetof(struct trace_header, field))
	if (h->magic != TRACE_MAGIC)
		BAD(magic, "not a grove event space or not ready");
	if (h->version != TRACE_VERSION)
		BAD(version, "unsupported version");
	if (h->header_size != TRACE_HEADER_SIZE)
		BAD(header_size, "unexpected");
	if (h->size > fsize)
		BAD(size, "larger than the file");
	uint64_t s = h->ring_slots;
	if (s < 2 || (s & (s - 1)) || s > TRACE_READER_MAX_SLOTS)
		BAD(ring_slots, "not a power of two up to 2^24");
	if (h->ring_stride != TRACE_RING_HEADER + s * sizeof(grove_trace_tuple))
		BAD(ring_stride, "does not match ring_slots");
	if (h->max_rings > TRACE_MAX_RINGS)
		BAD(max_rings, "too many");
	/* Offsets first, so the sums below cannot wrap; aligned, because
	 * rings and entries are read in place. */
	if (h->registry_offset > h->size || h->rings_offset > h->size)
		BAD(rings_offset, "offset beyond the segment");
	if (h->registry_offset % 8 || h->rings_offset % TRACE_RING_HEADER)
		BAD(rings_offset, "misaligned");
	if (h->max_collectors > (1u << 20) ||
	    h->registry_offset < TRACE_HEADER_SIZE ||
	    h->registry_offset + (uint64_t)h->max_collectors *
	    sizeof(struct trace_collector_entry) > h->rings_offset)
		BAD(registry_offset, "registry out of bounds");
	if (h->rings_offset + (uint64_t)h->max_rings * h->ring_stride > h->size)
		BAD(rings_offset, "rings out of bounds");
	if (h->clock > TRACE_CLOCK_TSC)
		BAD(clock, "unknown clock");
	return 0;
#undef BAD
}

/* The fields that say where things are: fixed by the writer at init. */
static int
same_layout(const struct trace_header *a, const struct trace_header *b)
{
	return a->ring_slots == b->ring_slots &&
	       a->ring_stride == b->ring_stride &&
	       a->rings_offset == b->rings_offset &&
	       a->registry_offset == b->registry_offset &&
	       a->max_rings == b->max_rings &&
	       a->max_collectors == b->max_collectors && a->size == b->size;
}

int
trace_seg_open(const char *name, struct trace_seg *s, char *err,
               size_t errlen)
{
	memset(s, 0, sizeof *s);
	s->fd = -1;
	if (snprintf(s->name, sizeof s->name, "%s", name) >=
	    (int)sizeof s->name || strchr(name, '/'))
		return fail(err, errlen, GROVE_EINVAL, "%s: bad segment name%.0lu",
		            name, 0);
	/* O_NONBLOCK: a FIFO put under the name would block the open;
	 * the owner check below refuses anything but this user's file. */
	int fd = shm_open(name, O_RDONLY | O_NONBLOCK | O_CLOEXEC, 0);
	if (fd < 0)
		return fail(err, errlen, errno == ENOENT ? GROVE_ENOENT :
		            GROVE_ESYS, "/dev/shm/%s: cannot open%.0lu", name, 0);
	struct stat st;
	/* Only this user's segments are trusted (trace/owner.h); asked of
	 * the descriptor, so the name cannot be swapped after the check. */
	if (fstat(fd, &st) != 0) {
		close(fd);
		return fail(err, errlen, GROVE_ESYS, "/dev/shm/%s: cannot "
		            "examine%.0lu", name, 0);
	}
	if (!trace_owner_mine(&st)) {
		char why[200];
		trace_owner_why(&st, why, sizeof why);
		close(fd);
		if (err && errlen)
			snprintf(err, errlen, "/dev/shm/%s %s", name, why);
		return GROVE_EAUTH;
	}
	if ((uint64_t)st.st_size < TRACE_HEADER_SIZE ||
	    pread_all(fd, &s->hdr, sizeof s->hdr, 0) != 0) {
		close(fd);
		return fail(err, errlen, GROVE_EFORMAT,
		            "%s: too small for a header (%lu bytes)", name,
		            (unsigned long)st.st_size);
	}
	/* The header is validated in a private copy: the writer (or anyone
	 * who can write the file) may change the shared one afterwards, and
	 * the copy's layout is what every later read trusts. */
	int rc = header_ok(&s->hdr, (uint64_t)st.st_size, name, err, errlen);
	if (rc) {
		close(fd);
		return rc;
	}
	/* No mapping: every later read is a pread() (see struct ring_src). */
	s->size = (uint64_t)st.st_size;
	s->fd = fd;
	return 0;
}

void
trace_seg_close(struct trace_seg *s)
{
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
}

int
trace_seg_intact(const struct trace_seg *s)
{
	struct stat st;
	if (fstat(s->fd, &st) != 0)
		return GROVE_ESYS;
	return (uint64_t)st.st_size < s->size ? GROVE_EFORMAT : 0;
}

int
trace_seg_header(const struct trace_seg *s, struct trace_header *out)
{
	int rc = pread_all(s->fd, out, sizeof *out, 0);
	if (rc)
		return rc;
	/* The counters and flags are live; the strings are made safe. */
	out->network_id[TRACE_NET_LEN - 1] = 0;
	out->role[TRACE_ROLE_LEN - 1] = 0;
	out->hostname[TRACE_HOST_LEN - 1] = 0;
	return 0;
}

/* A 32-bit counter of the header, read now (acquire). */
static uint32_t
header_u32(const struct trace_seg *s, size_t off)
{
	uint32_t v = 0;
	if (pread_all(s->fd, &v, sizeof v, off))
		return 0;
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return v;
}

uint32_t
trace_seg_n_collectors(const struct trace_seg *s)
{
	uint32_t n = header_u32(s, offsetof(struct trace_header,
	                                    n_collectors));
	return n > s->hdr.max_collectors ? s->hdr.max_collectors : n;
}

uint32_t
trace_seg_n_rings(const struct trace_seg *s)
{
	uint32_t n = header_u32(s, offsetof(struct trace_header, n_rings));
	return n > s->hdr.max_rings ? s->hdr.max_rings : n;
}

int
trace_seg_collectors(const struct trace_seg *s, uint32_t first, uint32_t n,
                     struct trace_collector_entry *out)
{
	if (first > s->hdr.max_collectors || n > s->hdr.max_collectors - first)
		return GROVE_EINVAL;
	int rc = pread_all(s->fd, out, (size_t)n * sizeof *out,
	                   s->hdr.registry_offset +
	                   (uint64_t)first * sizeof *out);
	for (uint32_t i = 0; !rc && i < n; i++) {
		struct trace_collector_entry *e = &out[i];
		e->name[sizeof e->name - 1] = 0;
		e->layer[sizeof e->layer - 1] = 0;
		e->where[sizeof e->where - 1] = 0;
		e->position[sizeof e->position - 1] = 0;
	}
	return rc;
}

static struct ring_src
seg_ring_src(const struct trace_seg *s, uint32_t i)
{
	return (struct ring_src){NULL, s->fd,
	                         s->hdr.rings_offset +
	                         (uint64_t)i * s->hdr.ring_stride};
}

int
trace_seg_ring_head(const struct trace_seg *s, uint32_t i, uint64_t *head)
{
	*head = 0;
	if (i >= s->hdr.max_rings)
		return GROVE_EINVAL;
	struct ring_src src = seg_ring_src(s, i);
	return src_head(&src, head);
}

/* Tuples a read of a ring with this head and cursor copies at most. */
static size_t
ring_room(uint64_t head, uint64_t next, uint64_t slots)
{
	uint64_t n = head >= next ? head - next : head;
	return (size_t)(n < slots ? n : slots);
}

/* Start time of process pid in CLOCK_BOOTTIME ns (/proc/PID/stat field
 * 22), or 0 when unknown. */
static uint64_t
proc_start_boot_ns(pid_t pid)
{
	char path[64], buf[1024];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return 0;
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* The command name (field 2) may hold spaces and parentheses: count
	 * fields from the last ')'. */
	char *p = strrchr(buf, ')');
	if (!p)
		return 0;
	unsigned long long ticks = 0;
	if (sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u "
	           "%*u %*d %*d %*d %*d %*d %*d %llu", &ticks) != 1)
		return 0;
	long hz = sysconf(_SC_CLK_TCK);
	return hz > 0 ? (uint64_t)ticks * (1000000000ull / (uint64_t)hz) : 0;
}

int
trace_writer_alive(int32_t pid, uint64_t init_mono_ns)
{
	if (pid <= 0 || (kill(pid, 0) != 0 && errno == ESRCH))
		return 0;
	uint64_t start = proc_start_boot_ns(pid);
	struct timespec mono, boot;
	if (!init_mono_ns || !start || clock_gettime(CLOCK_MONOTONIC, &mono) ||
	    clock_gettime(CLOCK_BOOTTIME, &boot))
		return 1;
	/* Boot time runs ahead of monotonic time by the time suspended;
	 * measured now, the offset is at least what it was at init, which
	 * errs towards "alive".  One clock tick of slack for the
	 * truncated start time. */
	int64_t off = ((int64_t)boot.tv_sec - (int64_t)mono.tv_sec) *
	              1000000000 + (boot.tv_nsec - mono.tv_nsec);
	long hz = sysconf(_SC_CLK_TCK);
	uint64_t tick = hz > 0 ? 1000000000ull / (uint64_t)hz : 10000000ull;
	return start <= init_mono_ns + (uint64_t)(off > 0 ? off : 0) + tick;
}

int
trace_seg_quiescent(const struct trace_seg *s)
{
	return header_u32(s, offsetof(struct trace_header, finished)) != 0;
}

/* One ring of an open segment into buf (grown as needed): the read of
 * trace_seg_poll and trace_seg_ring_read. */
static int
seg_ring_read(const struct trace_seg *s, uint32_t i, int quiescent,
              struct trace_ring_cursor *cur, grove_trace_tuple **buf,
              size_t *cap, size_t *n)
{
	struct ring_src src = seg_ring_src(s, i);
	struct grove_trace_ring_ rh;
	*n = 0;
	int rc = file_ring_header(&src, &rh);
	if (rc)
		return rc;
	size_t room = ring_room(rh.head, cur->next, s->hdr.ring_slots);
	if (!room)
		room = 1; /* callers always get a buffer */
	if (room > *cap) {
		grove_trace_tuple *nb = realloc(*buf, room * sizeof *nb);
		if (!nb)
			return GROVE_ENOMEM;
		*buf = nb;
		*cap = room;
	}
	return ring_read(&src, s->hdr.ring_slots, rh.head,
	                 TRACE_RING_TAIL(&rh), quiescent, cur, *buf, n);
}

int
trace_seg_ring_read(const struct trace_seg *s, uint32_t i, int quiescent,
                    struct trace_ring_cursor *cur, grove_trace_tuple *out,
                    size_t *n)
{
	*n = 0;
	if (i >= s->hdr.max_rings)
		return GROVE_EINVAL;
	/* A read never needs more than ring_slots, out's room: never
	 * grown. */
	size_t cap = s->hdr.ring_slots;
	return seg_ring_read(s, i, quiescent, cur, &out, &cap, n);
}

int
trace_seg_poll(const struct trace_seg *s, struct trace_seg_cursor *cur,
               int (*fn)(void *ctx, uint32_t ring,
                         const grove_trace_tuple *t, size_t n),
               void *ctx)
{
	int rc = trace_seg_intact(s);
	if (rc)
		return rc;
	uint32_t nr = trace_seg_n_rings(s);
	int quiescent = trace_seg_quiescent(s);
	grove_trace_tuple *buf = NULL;
	size_t cap = 0;
	for (uint32_t i = 0; i < nr && !rc; i++) {
		size_t n = 0;
		rc = seg_ring_read(s, i, quiescent, &cur->ring[i], &buf, &cap,
		                   &n);
		if (!rc)
			rc = fn(ctx, i, buf, n);
	}
	free(buf);
	return rc;
}

/* ---- snapshots ---- */

/* Conversion from ticks to monotonic ns.  With the TSC, two calibration
 * pairs give the rate: init and fini, or init and now for a live writer
 * on this host (the TSC is shared by all processes of a machine).  All
 * processes on one machine share CLOCK_MONOTONIC, so their ns line up;
 * processes of other hosts are moved onto the front-end's clock
 * afterwards, by trace_set_align (trace/align.h). */
void
trace_proc_calibrate(struct trace_proc *p)
{
	const struct trace_header *h = &p->hdr;
	struct trace_calib a = h->calib_init, b = h->calib_fini;
	if (!h->finished)
		trace_calib_now(h->clock == TRACE_CLOCK_TSC, &b);
	p->t0 = a.ticks;
	p->m0 = a.mono_ns;
	p->rate = 1.0;
	if (h->clock == TRACE_CLOCK_TSC && b.ticks > a.ticks &&
	    b.mono_ns > a.mono_ns)
		p->rate = (double)(b.mono_ns - a.mono_ns) /
		          (double)(b.ticks - a.ticks);
	else if (h->clock == TRACE_CLOCK_TSC)
		p->rate = 1.0 / 2.0; /* no interval yet; rough 2 GHz guess */
	p->start_ns = a.mono_ns;
	p->end_ns = b.mono_ns > a.mono_ns ? b.mono_ns : a.mono_ns;
}

/* The most tuples one ring can hold a head for: a writer stores at most
 * one tuple per ns or so (a 32-byte store and a head update); four per ns
 * leaves room for any machine.  UINT64_MAX when the calibration gives no
 * interval to judge by.  Taken after the heads were read, so a live
 * writer's newest tuples are within it. */
static uint64_t
plausible_head(const struct trace_proc *p, uint64_t slots)
{
	const struct trace_header *h = &p->hdr;
	uint64_t start = h->calib_init.mono_ns, end;
	if (h->finished) {
		end = h->calib_fini.mono_ns;
	} else {
		struct trace_calib now;
		trace_calib_now(0, &now);
		end = now.mono_ns;
	}
	if (end <= start)
		return UINT64_MAX;
	uint64_t ns = end - start;
	if (ns > (UINT64_MAX - slots) / 4)
		return UINT64_MAX;
	return slots + 4 * ns;
}

static int
proc_read(const struct trace_seg *s, struct trace_proc *p)
{
	int rc = trace_seg_intact(s);
	if (!rc)
		rc = pread_all(s->fd, &p->hdr, sizeof p->hdr, 0);
	if (rc)
		return rc;
	/* Fresh for the counters, calibration and clock alignment; the
	 * layout must still be the one validated at open. */
	if (header_ok(&p->hdr, s->size, s->name, NULL, 0) ||
	    !same_layout(&p->hdr, &s->hdr))
		return GROVE_EFORMAT;
	p->hdr.network_id[TRACE_NET_LEN - 1] = 0;
	p->hdr.role[TRACE_ROLE_LEN - 1] = 0;
	p->hdr.hostname[TRACE_HOST_LEN - 1] = 0;
	snprintf(p->label, sizeof p->label, "%s %u", p->hdr.role,
	         p->hdr.rank);
	p->alive = !p->hdr.finished &&
	           trace_writer_alive(p->hdr.pid, p->hdr.calib_init.mono_ns);
	trace_proc_calibrate(p);

	/* Rings before the registry: a tuple is stored after its collector
	 * was registered, so a registry count read (acquire) after a ring's
	 * head covers every collector of the tuples below that head. */
	p->n_rings = trace_seg_n_rings(s);
	p->rings = calloc(p->n_rings ? p->n_rings : 1, sizeof *p->rings);
	if (!p->rings)
		return GROVE_ENOMEM;
	uint64_t slots = s->hdr.ring_slots;
	for (uint32_t i = 0; i < p->n_rings; i++) {
		struct ring_src src = seg_ring_src(s, i);
		struct trace_ring_snap *rs = &p->rings[i];
		struct trace_ring_cursor cur = {0};
		struct grove_trace_ring_ rh;
		rs->index = i;
		if ((rc = file_ring_header(&src, &rh)))
			return rc;
		/* Only what the head says was written: a ring is mostly
		 * much shorter than its slots. */
		size_t room = ring_room(rh.head, 0, slots);
		rs->t = malloc((room ? room : 1) * sizeof *rs->t);
		if (!rs->t)
			return GROVE_ENOMEM;
		/* Only a writer that called fini is still: one that died
		 * without it (SIGKILL) may have been half-way through
		 * storing a tuple over the oldest slot. */
		rc = ring_read(&src, slots, rh.head, TRACE_RING_TAIL(&rh),
		               p->hdr.finished != 0, &cur, rs->t, &rs->n);
		if (rc)
			return rc;
		rs->tid = rh.tid;
		rs->head = cur.next;
		rs->lost = cur.lost;
		rs->unwritten = cur.unwritten;
		rs->damaged = cur.damaged;
	}
	uint64_t max_head = plausible_head(p, slots);
	for (uint32_t i = 0; i < p->n_rings; i++) {
		struct trace_ring_snap *rs = &p->rings[i];
		if (rs->head > max_head) {
			/* Its tuples are real, but how many were overwritten
			 * is unknown: head - slots would be an absurd loss. */
			rs->damaged = 1;
			rs->lost = 0;
		}
		p->damaged_rings += rs->damaged != 0;
		p->lost += rs->lost;
		p->tuples += rs->n;
	}

	p->n_collectors = trace_seg_n_collectors(s);
	if (p->n_collectors) {
		p->coll = calloc(p->n_collectors, sizeof *p->coll);
		if (!p->coll)
			return GROVE_ENOMEM;
		rc = pread_all(s->fd, p->coll, p->n_collectors * sizeof *p->coll,
		               s->hdr.registry_offset);
		if (rc)
			return rc;
		for (uint32_t i = 0; i < p->n_collectors; i++) {
			struct trace_collector_entry *e = &p->coll[i];
			e->name[sizeof e->name - 1] = 0;
			e->layer[sizeof e->layer - 1] = 0;
			e->where[sizeof e->where - 1] = 0;
			e->position[sizeof e->position - 1] = 0;
		}
	}
	if (!p->hdr.finished && !p->alive) {
		/* Died without fini: its run ended with its last event, not
		 * when we read it. */
		p->end_ns = p->start_ns;
		for (uint32_t i = 0; i < p->n_rings; i++)
			for (size_t k = 0; k < p->rings[i].n; k++) {
				uint64_t e = trace_proc_ns(p,
				                           p->rings[i].t[k].t_end);
				if (e > p->end_ns)
					p->end_ns = e;
			}
	}
	return 0;
}

int
trace_proc_read(const struct trace_seg *s, struct trace_proc *p)
{
	memset(p, 0, sizeof *p);
	int rc = proc_read(s, p);
	if (rc)
		trace_proc_free(p);
	else
		snprintf(p->name, sizeof p->name, "%s", s->name);
	return rc;
}

void
trace_proc_free(struct trace_proc *p)
{
	for (uint32_t i = 0; p->rings && i < p->n_rings; i++)
		free(p->rings[i].t);
	free(p->rings);
	free(p->coll);
	memset(p, 0, sizeof *p);
}

/* Says on stderr which rings of p have a damaged head. */
static void
warn_damaged(const struct trace_proc *p)
{
	for (uint32_t i = 0; i < p->n_rings; i++) {
		const struct trace_ring_snap *rs = &p->rings[i];
		if (!rs->damaged)
			continue;
		fprintf(stderr, "grove trace: %s: ring %u: head %llu is not "
		        "plausible (%llu never-written slots below it); kept "
		        "its %zu written tuples, its loss is unknown and not "
		        "counted\n", p->name, rs->index,
		        (unsigned long long)rs->head,
		        (unsigned long long)rs->unwritten, rs->n);
	}
}

int
trace_set_collect(const char *network_id, struct trace_set *out)
{
	return trace_set_collect_with(network_id, NULL, out);
}

int
trace_set_collect_with(const char *network_id, const char *also,
                       struct trace_set *out)
{
	char **names;
	size_t n;
	out->n = 0;
	out->p = NULL;
	int rc = trace_list_with(network_id, also, stderr, &names, &n);
	if (rc)
		return rc;
	out->p = calloc(n ? n : 1, sizeof *out->p);
	if (!out->p) {
		trace_list_free(names, n);
		return GROVE_ENOMEM;
	}
	/* One bad segment (damaged, truncated meanwhile, too large to copy)
	 * must not cost the others: it is named and left out. */
	for (size_t i = 0; i < n; i++) {
		struct trace_seg s;
		char err[256];
		if (trace_seg_open(names[i], &s, err, sizeof err)) {
			fprintf(stderr, "grove trace: skipping %s\n", err);
			continue;
		}
		int prc = trace_proc_read(&s, &out->p[out->n]);
		trace_seg_close(&s);
		if (prc) {
			fprintf(stderr, "grove trace: skipping %s: cannot read "
			        "it (%s)\n", names[i], prc == GROVE_EFORMAT ?
			        "changed or shrank while being read" :
			        grove_strerror(prc));
			continue;
		}
		warn_damaged(&out->p[out->n]);
		out->n++;
	}
	trace_list_free(names, n);
	trace_set_align(out, trace_timeline_env(), stderr);
	return 0;
}

void
trace_set_free(struct trace_set *set)
{
	for (size_t i = 0; i < set->n; i++)
		trace_proc_free(&set->p[i]);
	free(set->p);
	set->p = NULL;
	set->n = 0;
}

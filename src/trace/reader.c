/* Reading event spaces: the lock-free ring copy, segment mapping and
 * validation, listing /dev/shm, and in-memory snapshots. */
#define _GNU_SOURCE
#include "trace/reader.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "grove/error.h"
#include "trace/align.h"

size_t
trace_ring_read(const struct grove_trace_ring_ *r, uint64_t slots,
                int quiescent, struct trace_ring_cursor *cur,
                grove_trace_tuple *out)
{
	uint64_t mask = slots - 1;
	uint64_t h1 = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
	if (h1 < cur->next) /* not a ring we read before: start over */
		*cur = (struct trace_ring_cursor){0};
	uint64_t start = cur->next;
	if (h1 - start > slots)
		start = h1 - slots;
	size_t n = (size_t)(h1 - start);
	/* Copy in at most two runs: [start, end of array), [0, rest). */
	size_t first = n ? (size_t)(slots - (start & mask)) : 0;
	if (first > n)
		first = n;
	memcpy(out, &r->slots[start & mask], first * sizeof *out);
	memcpy(out + first, &r->slots[0], (n - first) * sizeof *out);
	/* The copies above must complete before head is read again. */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	uint64_t h2 = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
	/* The writer has published h2 tuples and may be storing tuple h2
	 * right now, into the slot of tuple h2 - slots: only tuples after
	 * that one are certainly intact. */
	uint64_t busy = quiescent ? 0 : 1;
	uint64_t safe = h2 + busy > slots ? h2 + busy - slots : 0;
	size_t skip = 0;
	if (safe > start)
		skip = safe - start > n ? n : (size_t)(safe - start);
	if (skip)
		memmove(out, out + skip, (n - skip) * sizeof *out);
	cur->lost += (start - cur->next) + skip;
	cur->copied += n - skip;
	cur->next = h1;
	return n - skip;
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
	if (s < 2 || (s & (s - 1)) || s > (1u << 30))
		BAD(ring_slots, "not a power of two");
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

int
trace_seg_open(const char *name, struct trace_seg *s, char *err,
               size_t errlen)
{
	memset(s, 0, sizeof *s);
	if (snprintf(s->name, sizeof s->name, "%s", name) >=
	    (int)sizeof s->name || strchr(name, '/'))
		return fail(err, errlen, GROVE_EINVAL, "%s: bad segment name%.0lu",
		            name, 0);
	int fd = shm_open(name, O_RDONLY, 0);
	if (fd < 0)
		return fail(err, errlen, errno == ENOENT ? GROVE_ENOENT :
		            GROVE_ESYS, "/dev/shm/%s: cannot open%.0lu", name, 0);
	struct stat st;
	if (fstat(fd, &st) != 0 || (uint64_t)st.st_size < TRACE_HEADER_SIZE) {
		close(fd);
		return fail(err, errlen, GROVE_EFORMAT,
		            "%s: too small for a header (%lu bytes)", name,
		            (unsigned long)st.st_size);
	}
	void *base = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd,
	                  0);
	close(fd);
	if (base == MAP_FAILED)
		return fail(err, errlen, GROVE_ESYS, "%s: mmap failed%.0lu",
		            name, 0);
	const struct trace_header *h = base;
	(void)__atomic_load_n(&h->magic, __ATOMIC_ACQUIRE);
	int rc = header_ok(h, (uint64_t)st.st_size, name, err, errlen);
	if (rc) {
		munmap(base, (size_t)st.st_size);
		return rc;
	}
	s->base = base;
	s->size = (uint64_t)st.st_size;
	s->h = h;
	return 0;
}

void
trace_seg_close(struct trace_seg *s)
{
	if (s->base)
		munmap(s->base, (size_t)s->size);
	s->base = NULL;
	s->h = NULL;
}

uint32_t
trace_seg_n_collectors(const struct trace_seg *s)
{
	uint32_t n = __atomic_load_n(&s->h->n_collectors, __ATOMIC_ACQUIRE);
	return n > s->h->max_collectors ? s->h->max_collectors : n;
}

uint32_t
trace_seg_n_rings(const struct trace_seg *s)
{
	uint32_t n = __atomic_load_n(&s->h->n_rings, __ATOMIC_ACQUIRE);
	return n > s->h->max_rings ? s->h->max_rings : n;
}

const struct grove_trace_ring_ *
trace_seg_ring(const struct trace_seg *s, uint32_t i)
{
	return trace_ring_at(s->base, s->h, i);
}

static int
pid_alive(int32_t pid)
{
	return pid > 0 && (kill(pid, 0) == 0 || errno == EPERM);
}

int
trace_seg_quiescent(const struct trace_seg *s)
{
	return __atomic_load_n(&s->h->finished, __ATOMIC_ACQUIRE) ||
	       !pid_alive(s->h->pid);
}

int
trace_seg_poll(const struct trace_seg *s, struct trace_seg_cursor *cur,
               int (*fn)(void *ctx, uint32_t ring,
                         const grove_trace_tuple *t, size_t n),
               void *ctx)
{
	uint32_t nr = trace_seg_n_rings(s);
	int quiescent = trace_seg_quiescent(s);
	grove_trace_tuple *buf = malloc((size_t)s->h->ring_slots *
	                                sizeof *buf);
	if (!buf)
		return GROVE_ENOMEM;
	int rc = 0;
	for (uint32_t i = 0; i < nr && !rc; i++) {
		size_t n = trace_ring_read(trace_seg_ring(s, i),
		                           s->h->ring_slots, quiescent,
		                           &cur->ring[i], buf);
		rc = fn(ctx, i, buf, n);
	}
	free(buf);
	return rc;
}

/* ---- listing ---- */

int
trace_parse_name(const char *name, char *net, size_t netlen, char *role,
                 size_t rolelen, uint32_t *rank)
{
	if (strncmp(name, "grove.", 6) != 0)
		return GROVE_EINVAL;
	const char *a = name + 6;
	const char *b = strchr(a, '.');
	const char *c = b ? strchr(b + 1, '.') : NULL;
	if (!b || !c || b == a || c == b + 1 || strchr(c + 1, '.'))
		return GROVE_EINVAL;
	char *end;
	errno = 0;
	unsigned long r = strtoul(c + 1, &end, 10);
	if (errno || *end || end == c + 1 || r > UINT32_MAX)
		return GROVE_EINVAL;
	if ((size_t)(b - a) >= netlen || (size_t)(c - b - 1) >= rolelen)
		return GROVE_EINVAL;
	memcpy(net, a, (size_t)(b - a));
	net[b - a] = 0;
	memcpy(role, b + 1, (size_t)(c - b - 1));
	role[c - b - 1] = 0;
	*rank = (uint32_t)r;
	return 0;
}

static int
role_order(const char *role)
{
	return !strcmp(role, "fe") ? 0 : !strcmp(role, "cp") ? 1 :
	       !strcmp(role, "be") ? 2 : 3;
}

static int
name_cmp(const void *x, const void *y)
{
	const char *a = *(char *const *)x, *b = *(char *const *)y;
	char na[TRACE_NET_LEN], nb[TRACE_NET_LEN];
	char ra[TRACE_ROLE_LEN], rb[TRACE_ROLE_LEN];
	uint32_t ka = 0, kb = 0;
	trace_parse_name(a, na, sizeof na, ra, sizeof ra, &ka);
	trace_parse_name(b, nb, sizeof nb, rb, sizeof rb, &kb);
	int c = strcmp(na, nb);
	if (c)
		return c;
	if (role_order(ra) != role_order(rb))
		return role_order(ra) - role_order(rb);
	if ((c = strcmp(ra, rb)))
		return c;
	return ka < kb ? -1 : ka > kb;
}

int
trace_list(const char *network_id, char ***names, size_t *n)
{
	*names = NULL;
	*n = 0;
	DIR *d = opendir("/dev/shm");
	if (!d)
		return GROVE_ESYS;
	size_t cap = 0, cnt = 0;
	char **v = NULL;
	struct dirent *e;
	int rc = 0;
	while ((e = readdir(d))) {
		char net[TRACE_NET_LEN], role[TRACE_ROLE_LEN];
		uint32_t rank;
		if (trace_parse_name(e->d_name, net, sizeof net, role,
		                     sizeof role, &rank))
			continue;
		if (network_id && strcmp(net, network_id))
			continue;
		if (cnt == cap) {
			cap = cap ? cap * 2 : 16;
			char **nv = realloc(v, cap * sizeof *v);
			if (!nv) {
				rc = GROVE_ENOMEM;
				break;
			}
			v = nv;
		}
		if (!(v[cnt] = strdup(e->d_name))) {
			rc = GROVE_ENOMEM;
			break;
		}
		cnt++;
	}
	closedir(d);
	if (rc) {
		trace_list_free(v, cnt);
		return rc;
	}
	if (cnt)
		qsort(v, cnt, sizeof *v, name_cmp);
	*names = v;
	*n = cnt;
	return 0;
}

void
trace_list_free(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* ---- snapshots ---- */

/* Conversion from ticks to monotonic ns.  With the TSC, two calibration
 * pairs give the rate: init and fini, or init and now for a live writer
 * on this host (the TSC is shared by all processes of a machine).  All
 * processes on one machine share CLOCK_MONOTONIC, so their ns line up;
 * processes of other hosts are moved onto the front-end's clock
 * afterwards, by trace_set_align (trace/align.h). */
static void
proc_calibrate(struct trace_proc *p)
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

int
trace_proc_read(const struct trace_seg *s, struct trace_proc *p)
{
	memset(p, 0, sizeof *p);
	snprintf(p->name, sizeof p->name, "%s", s->name);
	memcpy(&p->hdr, s->h, sizeof p->hdr);
	p->hdr.network_id[TRACE_NET_LEN - 1] = 0;
	p->hdr.role[TRACE_ROLE_LEN - 1] = 0;
	p->hdr.hostname[TRACE_HOST_LEN - 1] = 0;
	snprintf(p->label, sizeof p->label, "%s %u", p->hdr.role,
	         p->hdr.rank);
	p->alive = !p->hdr.finished && pid_alive(p->hdr.pid);
	proc_calibrate(p);

	p->n_collectors = trace_seg_n_collectors(s);
	if (p->n_collectors) {
		p->coll = calloc(p->n_collectors, sizeof *p->coll);
		if (!p->coll)
			return GROVE_ENOMEM;
		memcpy(p->coll, (const char *)s->base + s->h->registry_offset,
		       p->n_collectors * sizeof *p->coll);
		for (uint32_t i = 0; i < p->n_collectors; i++) {
			struct trace_collector_entry *e = &p->coll[i];
			e->name[sizeof e->name - 1] = 0;
			e->layer[sizeof e->layer - 1] = 0;
			e->where[sizeof e->where - 1] = 0;
			e->position[sizeof e->position - 1] = 0;
		}
	}
	p->n_rings = trace_seg_n_rings(s);
	p->rings = calloc(p->n_rings ? p->n_rings : 1, sizeof *p->rings);
	if (!p->rings)
		return GROVE_ENOMEM;
	uint64_t slots = s->h->ring_slots;
	for (uint32_t i = 0; i < p->n_rings; i++) {
		const struct grove_trace_ring_ *r = trace_seg_ring(s, i);
		struct trace_ring_snap *rs = &p->rings[i];
		struct trace_ring_cursor cur = {0};
		rs->t = malloc(slots * sizeof *rs->t);
		if (!rs->t)
			return GROVE_ENOMEM;
		rs->n = trace_ring_read(r, slots, !p->alive, &cur, rs->t);
		rs->index = i;
		rs->tid = r->tid;
		rs->head = cur.next;
		rs->lost = cur.lost;
		p->lost += cur.lost;
		p->tuples += rs->n;
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

void
trace_proc_free(struct trace_proc *p)
{
	for (uint32_t i = 0; p->rings && i < p->n_rings; i++)
		free(p->rings[i].t);
	free(p->rings);
	free(p->coll);
	memset(p, 0, sizeof *p);
}

int
trace_set_collect(const char *network_id, struct trace_set *out)
{
	char **names;
	size_t n;
	out->n = 0;
	out->p = NULL;
	int rc = trace_list(network_id, &names, &n);
	if (rc)
		return rc;
	out->p = calloc(n ? n : 1, sizeof *out->p);
	if (!out->p) {
		trace_list_free(names, n);
		return GROVE_ENOMEM;
	}
	for (size_t i = 0; i < n && !rc; i++) {
		struct trace_seg s;
		char err[256];
		if (trace_seg_open(names[i], &s, err, sizeof err)) {
			fprintf(stderr, "grove trace: skipping %s\n", err);
			continue;
		}
		rc = trace_proc_read(&s, &out->p[out->n]);
		trace_seg_close(&s);
		out->n++;
	}
	trace_list_free(names, n);
	if (rc)
		trace_set_free(out);
	else
		trace_set_align(out, trace_timeline_env(), stderr);
	return rc;
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

/* Hosts on one timeline: the arithmetic of the shift onto the front-end's
 * clock, the choice of timeline and of each process's placement (on
 * hand-made sets of headers), the realtime relation an event space
 * records (with a validation offset), and the offsets the front-end
 * writes into shipped copies. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "grove/error.h"
#include "grove/trace.h"
#include "trace/align.h"
#include "trace/trace_impl.h"

/* ---- arithmetic ---- */

static void
test_shift(void **state)
{
	(void)state;
	/* A back-end whose realtime clock is 1e18 + 5000 ns past its
	 * monotonic clock and 300 ns ahead of the FE's realtime clock; the
	 * FE's realtime is 2000 ns past ... its own monotonic + 1e18. */
	struct trace_rt p = {1000000000000005000, 7};
	struct trace_rt fe = {1000000000000002000, 11};
	int64_t shift;
	uint64_t err;
	assert_int_equal(trace_align_shift(&p, 300, 100, &fe, &shift, &err), 0);
	assert_int_equal(shift, 2700);
	assert_int_equal(err, 118);
	/* An event at BE monotonic 10'000 is FE realtime 1e18 + 14'700, FE
	 * monotonic 12'700. */
	assert_int_equal(10000 + shift, 12700);
	/* Negative offsets and shifts. */
	p.rt_minus_mono_ns = 1000;
	fe.rt_minus_mono_ns = 5000;
	assert_int_equal(trace_align_shift(&p, -250, 0, &fe, &shift, &err), 0);
	assert_int_equal(shift, -3750);
	/* Bounds saturate instead of wrapping. */
	p.err_ns = UINT64_MAX - 3;
	assert_int_equal(trace_align_shift(&p, 0, 10, &fe, &shift, &err), 0);
	assert_true(err == UINT64_MAX);
	/* Overflow (a corrupt header) is refused. */
	p.rt_minus_mono_ns = INT64_MAX;
	assert_int_equal(trace_align_shift(&p, -1, 0, &fe, &shift, &err),
	                 GROVE_ERANGE);
	p.rt_minus_mono_ns = INT64_MIN + 10;
	assert_int_equal(trace_align_shift(&p, 0, 0, &fe, &shift, &err),
	                 GROVE_ERANGE);
}

static void
test_host_offset(void **state)
{
	(void)state;
	int64_t off;
	/* BE measured +150 ms, of which 100 ms injected: the host is 50 ms
	 * ahead; a CP there with -30 ms injected is 20 ms ahead. */
	assert_int_equal(trace_host_offset(150000000, 100000000, -30000000,
	                                   &off), 0);
	assert_int_equal(off, 20000000);
	assert_int_equal(trace_host_offset(5, 0, 0, &off), 0);
	assert_int_equal(off, 5);
	assert_int_equal(trace_host_offset(INT64_MIN, 1, 0, &off),
	                 GROVE_ERANGE);
	assert_int_equal(trace_host_offset(INT64_MAX, 0, 1, &off),
	                 GROVE_ERANGE);
}

static void
test_names(void **state)
{
	(void)state;
	enum trace_timeline t;
	const char *names[] = {"auto", "local", "frontend", "realtime"};
	for (int i = 0; i < 4; i++) {
		assert_int_equal(trace_timeline_parse(names[i], &t), 0);
		assert_int_equal(t, i);
		assert_string_equal(trace_timeline_name(t), names[i]);
	}
	assert_int_equal(trace_timeline_parse("fe", &t), GROVE_EINVAL);
	assert_int_equal(trace_timeline_parse(NULL, &t), GROVE_EINVAL);
	assert_string_equal(trace_proc_align_name(TRACE_PROC_UNALIGNED),
	                    "unknown");
	assert_string_equal(trace_proc_align_name(99), "?");
	setenv("GROVE_TRACE_TIMELINE", "realtime", 1);
	assert_int_equal(trace_timeline_env(), TRACE_TIMELINE_REALTIME);
	setenv("GROVE_TRACE_TIMELINE", "bogus", 1);
	assert_int_equal(trace_timeline_env(), TRACE_TIMELINE_AUTO);
	unsetenv("GROVE_TRACE_TIMELINE");
	assert_int_equal(trace_timeline_env(), TRACE_TIMELINE_AUTO);
}

static void
test_rt_of(void **state)
{
	(void)state;
	struct trace_header h;
	struct trace_rt rt;
	memset(&h, 0, sizeof h);
	/* All zero: a segment older than the alignment. */
	assert_int_equal(trace_rt_of(&h, &rt), GROVE_ENOENT);
	h.rt_init = (struct trace_rt){100, 1};
	h.rt_fini = (struct trace_rt){200, 2};
	h.align_flags = TRACE_ALIGN_RT_INIT;
	assert_int_equal(trace_rt_of(&h, &rt), 0);
	assert_int_equal(rt.rt_minus_mono_ns, 100);
	/* The later reading wins, once the header says it is whole. */
	h.align_flags |= TRACE_ALIGN_RT_FINI;
	assert_int_equal(trace_rt_of(&h, &rt), 0);
	assert_int_equal(rt.rt_minus_mono_ns, 100);
	h.finished = 1;
	assert_int_equal(trace_rt_of(&h, &rt), 0);
	assert_int_equal(rt.rt_minus_mono_ns, 200);
	assert_int_equal(rt.err_ns, 2);
}

/* ---- placement on hand-made sets ---- */

#define T0 1000000000000000000LL /* a realtime - monotonic of ~31 years */

static void
proc(struct trace_proc *p, const char *role, uint32_t rank,
     const char *host, int64_t rt, int have_rt)
{
	memset(p, 0, sizeof *p);
	snprintf(p->hdr.role, sizeof p->hdr.role, "%s", role);
	snprintf(p->hdr.hostname, sizeof p->hdr.hostname, "%s", host);
	snprintf(p->label, sizeof p->label, "%s %u", role, rank);
	p->hdr.rank = rank;
	if (have_rt) {
		p->hdr.align_flags = TRACE_ALIGN_RT_INIT;
		p->hdr.rt_init = (struct trace_rt){rt, 10};
	}
	p->m0 = 5000;
	p->t0 = 5000;
	p->rate = 1.0;
	p->start_ns = 5000;
	p->end_ns = 9000;
}

static void
offset(struct trace_proc *p, int64_t off, uint64_t err)
{
	p->hdr.align_flags |= TRACE_ALIGN_FE_OFFSET | TRACE_ALIGN_SHIPPED;
	p->hdr.fe_offset_ns = off;
	p->hdr.fe_offset_err_ns = err;
}

static char *
align(struct trace_set *set, enum trace_timeline mode)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *w = open_memstream(&buf, &len);
	assert_non_null(w);
	trace_set_align(set, mode, w);
	fclose(w);
	return buf;
}

static void
test_single_host(void **state)
{
	(void)state;
	struct trace_proc p[3];
	struct trace_set set = {3, p, 0, 0};
	proc(&p[0], "fe", 0, "h0", T0, 1);
	proc(&p[1], "cp", 1, "h0", T0 + 777, 1);
	proc(&p[2], "be", 0, "h0", T0 + 5, 1);
	offset(&p[2], 123456, 50);
	/* One host: every process keeps its monotonic clock, silently. */
	char *w = align(&set, TRACE_TIMELINE_AUTO);
	assert_string_equal(w, "");
	free(w);
	assert_int_equal(set.timeline, TRACE_TIMELINE_LOCAL);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(p[i].align, TRACE_PROC_OWN);
		assert_int_equal(p[i].m0, 5000);
		assert_int_equal(trace_proc_ns(&p[i], 6000), 6000);
	}
	/* Forced: the shipped copy with an offset is corrected even on
	 * the front-end's host; the CP without one shares its clock. */
	w = align(&set, TRACE_TIMELINE_FRONTEND);
	assert_string_equal(w, "");
	free(w);
	assert_int_equal(set.timeline, TRACE_TIMELINE_FRONTEND);
	assert_int_equal(set.unaligned, 0);
	assert_int_equal(p[0].align, TRACE_PROC_REFERENCE);
	assert_int_equal(p[1].align, TRACE_PROC_SAME_HOST);
	assert_int_equal(p[1].align_shift_ns, 0);
	assert_int_equal(p[2].align, TRACE_PROC_SKEW);
	assert_int_equal(p[2].align_shift_ns, 5 - 123456);
	assert_int_equal(p[2].align_err_ns, 10 + 50 + 10);
	assert_int_equal(trace_proc_ns(&p[2], 200000), 200000 + 5 - 123456);
}

static void
test_hosts(void **state)
{
	(void)state;
	struct trace_proc p[6];
	struct trace_set set = {6, p, 0, 0};
	proc(&p[0], "fe", 0, "h0", T0, 1);
	proc(&p[1], "cp", 1, "h0", T0 + 99, 1);     /* FE's host, no copy */
	proc(&p[2], "be", 0, "h1", T0 + 40000, 1);  /* measured */
	offset(&p[2], 30000, 500);
	proc(&p[3], "be", 1, "h2", T0 - 7000, 1);   /* not measured */
	proc(&p[4], "be", 2, "h3", 0, 0);           /* older segment */
	proc(&p[5], "be", 3, "h0", T0 + 3, 1);      /* FE's host, shipped */
	offset(&p[5], 1000, 20);
	char *w = align(&set, TRACE_TIMELINE_AUTO);
	assert_int_equal(set.timeline, TRACE_TIMELINE_FRONTEND);
	assert_int_equal(p[0].align, TRACE_PROC_REFERENCE);
	/* The FE's host shares its monotonic clock: exact, offset or not. */
	assert_int_equal(p[1].align, TRACE_PROC_SAME_HOST);
	assert_int_equal(p[5].align, TRACE_PROC_SAME_HOST);
	assert_int_equal(p[5].m0, 5000);
	/* t_fe = mono + (rt - mono) - offset - (rt - mono)_fe */
	assert_int_equal(p[2].align, TRACE_PROC_SKEW);
	assert_int_equal(p[2].align_shift_ns, 40000 - 30000);
	assert_int_equal(p[2].align_err_ns, 520);
	assert_int_equal(p[2].m0, 15000);
	assert_int_equal(p[2].start_ns, 15000);
	assert_int_equal(p[2].end_ns, 19000);
	/* Unknown offset: its realtime clock as is, and a warning. */
	assert_int_equal(p[3].align, TRACE_PROC_REALTIME);
	assert_int_equal(p[3].align_shift_ns, -7000);
	assert_int_equal(trace_proc_ns(&p[3], 5000), (uint64_t)5000 - 7000);
	/* Nothing known: its own clock, and a warning. */
	assert_int_equal(p[4].align, TRACE_PROC_UNALIGNED);
	assert_int_equal(p[4].m0, 5000);
	assert_int_equal(set.unaligned, 2);
	assert_non_null(strstr(w, "1 process with no measured offset"));
	assert_non_null(strstr(w, "be 1"));
	assert_non_null(strstr(w, "1 process without a realtime relation"));
	assert_non_null(strstr(w, "be 2"));
	free(w);
}

static void
test_realtime_and_local(void **state)
{
	(void)state;
	struct trace_proc p[2];
	struct trace_set set = {2, p, 0, 0};
	proc(&p[0], "fe", 0, "h0", T0, 1);
	proc(&p[1], "be", 0, "h1", T0 + 40000, 1);
	offset(&p[1], 30000, 500);
	/* Realtime: the offset is ignored. */
	char *w = align(&set, TRACE_TIMELINE_REALTIME);
	assert_string_equal(w, "");
	free(w);
	assert_int_equal(set.timeline, TRACE_TIMELINE_REALTIME);
	assert_int_equal(p[1].align, TRACE_PROC_REALTIME);
	assert_int_equal(p[1].align_shift_ns, 40000);
	assert_int_equal(p[1].align_err_ns, 20);
	assert_int_equal(set.unaligned, 0);
	/* Local on two hosts: asked for, so nothing moves. */
	proc(&p[1], "be", 0, "h1", T0 + 40000, 1);
	w = align(&set, TRACE_TIMELINE_LOCAL);
	assert_string_equal(w, "");
	free(w);
	assert_int_equal(p[1].align, TRACE_PROC_OWN);
	assert_int_equal(p[1].m0, 5000);
}

static void
test_no_frontend(void **state)
{
	(void)state;
	struct trace_proc p[2];
	struct trace_set set = {2, p, 0, 0};
	proc(&p[0], "be", 0, "h0", T0 + 100, 1);
	offset(&p[0], 40, 1);
	proc(&p[1], "be", 1, "h1", T0 + 200, 1);
	offset(&p[1], 60, 1);
	/* The timeline is then the FE's realtime clock. */
	char *w = align(&set, TRACE_TIMELINE_AUTO);
	assert_non_null(strstr(w, "no front-end event space"));
	free(w);
	assert_int_equal(p[0].align, TRACE_PROC_SKEW);
	assert_int_equal(p[0].align_shift_ns, T0 + 60);
	assert_int_equal(p[1].align_shift_ns, T0 + 140);
	/* Corrupt relations: not placed, no overflow. */
	proc(&p[0], "fe", 0, "h0", INT64_MIN + 1, 1);
	proc(&p[1], "be", 1, "h1", INT64_MAX, 1);
	offset(&p[1], INT64_MIN, 1);
	w = align(&set, TRACE_TIMELINE_AUTO);
	free(w);
	assert_int_equal(p[1].align, TRACE_PROC_UNALIGNED);
	assert_int_equal(p[1].m0, 5000);
}

/* A step of the realtime clock between init and fini is reported. */
static void
test_step_warning(void **state)
{
	(void)state;
	struct trace_proc p[2];
	struct trace_set set = {2, p, 0, 0};
	proc(&p[0], "fe", 0, "h0", T0, 1);
	proc(&p[1], "be", 0, "h1", T0, 1);
	p[1].hdr.align_flags |= TRACE_ALIGN_RT_FINI;
	p[1].hdr.finished = 1;
	p[1].hdr.rt_fini = (struct trace_rt){T0 + 1000000, 10};
	char *w = align(&set, TRACE_TIMELINE_REALTIME);
	assert_non_null(strstr(w, "be 0: realtime clock moved by 1000000 ns"));
	free(w);
	assert_int_equal(p[1].align_shift_ns, 1000000);
}

/* ---- what an event space records ---- */

static char net[64];

static const struct trace_header *
open_own(const char *role, uint32_t rank, struct trace_seg *s)
{
	char name[128], err[256];
	snprintf(name, sizeof name, "grove.%s.%s.%u", net, role, rank);
	assert_int_equal(trace_seg_open(name, s, err, sizeof err), 0);
	return &s->hdr; /* read at open */
}

static void
unlink_own(const char *role, uint32_t rank)
{
	char name[128];
	snprintf(name, sizeof name, "grove.%s.%s.%u", net, role, rank);
	shm_unlink(name);
}

/* rt_init - (realtime - monotonic) must be the injected offset to within
 * the two readings' bounds: the true relation does not change while the
 * realtime clock is not stepped. */
static void
check_relation(const struct trace_rt *rec, int64_t inject)
{
	struct trace_rt now;
	trace_rt_now(0, &now);
	int64_t d = rec->rt_minus_mono_ns - now.rt_minus_mono_ns - inject;
	uint64_t ad = d < 0 ? -(uint64_t)d : (uint64_t)d;
	assert_true(rec->err_ns > 0 && rec->err_ns < 1000000000);
	if (ad > rec->err_ns + now.err_ns)
		fail_msg("relation off by %lld ns (bounds %llu + %llu)",
		         (long long)d, (unsigned long long)rec->err_ns,
		         (unsigned long long)now.err_ns);
}

static void
test_recorded_relation(void **state)
{
	(void)state;
	struct trace_seg s;
	snprintf(net, sizeof net, "t%lda", (long)getpid());
	setenv("GROVE_CLOCK_INJECT_NS", "1000000", 1);
	/* Back-end rank 2: 2 ms. */
	assert_int_equal(grove_trace_init(net, "be", 2), 0);
	const struct trace_header *h = open_own("be", 2, &s);
	assert_int_equal(h->align_flags, TRACE_ALIGN_RT_INIT);
	assert_int_equal(h->clock_inject_ns, 2000000);
	check_relation(&h->rt_init, 2000000);
	trace_seg_close(&s);
	grove_trace_fini(1);
	h = open_own("be", 2, &s);
	assert_int_equal(h->align_flags,
	                 TRACE_ALIGN_RT_INIT | TRACE_ALIGN_RT_FINI);
	check_relation(&h->rt_fini, 2000000);
	trace_seg_close(&s);
	unlink_own("be", 2);

	/* A CP by node id; the FE never shifts. */
	setenv("GROVE_CLOCK_INJECT_NS", "1:5,cp3:-7000", 1);
	assert_int_equal(grove_trace_init(net, "cp", 3), 0);
	h = open_own("cp", 3, &s);
	assert_int_equal(h->clock_inject_ns, -7000);
	check_relation(&h->rt_init, -7000);
	trace_seg_close(&s);
	grove_trace_fini(0);
	assert_int_equal(grove_trace_init(net, "fe", 0), 0);
	h = open_own("fe", 0, &s);
	assert_int_equal(h->clock_inject_ns, 0);
	check_relation(&h->rt_init, 0);
	trace_seg_close(&s);
	/* A live snapshot carries a fresh relation as its fini. */
	char name[128];
	uint8_t *snap;
	size_t len;
	assert_int_equal(trace_space_snapshot(name, sizeof name, &snap, &len,
	                                      0), 0);
	assert_true(len >= 24 + sizeof(struct trace_header));
	struct trace_header copy;
	memcpy(&copy, snap + 24, sizeof copy);
	free(snap);
	assert_int_equal(copy.align_flags,
	                 TRACE_ALIGN_RT_INIT | TRACE_ALIGN_RT_FINI);
	check_relation(&copy.rt_fini, 0);
	grove_trace_fini(0);
	/* A malformed value injects nothing. */
	setenv("GROVE_CLOCK_INJECT_NS", "x", 1);
	assert_int_equal(grove_trace_init(net, "be", 1), 0);
	h = open_own("be", 1, &s);
	assert_int_equal(h->clock_inject_ns, 0);
	trace_seg_close(&s);
	grove_trace_fini(0);
	unsetenv("GROVE_CLOCK_INJECT_NS");
}

/* ---- the front-end's copies ---- */

static void
make_copy(const char *role, uint32_t rank, const char *host, int64_t inject,
          int claims_offset)
{
	char name[128];
	struct trace_header h;
	memset(&h, 0, sizeof h);
	h.magic = TRACE_MAGIC;
	h.version = TRACE_VERSION;
	h.header_size = TRACE_HEADER_SIZE;
	snprintf(h.role, sizeof h.role, "%s", role);
	snprintf(h.hostname, sizeof h.hostname, "%s", host);
	h.rank = rank;
	h.clock_inject_ns = inject;
	h.align_flags = TRACE_ALIGN_RT_INIT;
	if (claims_offset) { /* what a sender cannot know */
		h.align_flags |= TRACE_ALIGN_FE_OFFSET;
		h.fe_offset_ns = 42;
	}
	snprintf(name, sizeof name, "grove.%s.%s.%u", net, role, rank);
	int fd = shm_open(name, O_RDWR | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, &h, sizeof h, 0), (ssize_t)sizeof h);
	close(fd);
}

static struct trace_header
read_copy(const char *role, uint32_t rank)
{
	char name[128];
	struct trace_header h;
	snprintf(name, sizeof name, "grove.%s.%s.%u", net, role, rank);
	int fd = shm_open(name, O_RDONLY, 0);
	assert_true(fd >= 0);
	assert_int_equal(pread(fd, &h, sizeof h, 0), (ssize_t)sizeof h);
	close(fd);
	return h;
}

static int
apply(struct trace_fe_offsets *o, const char *role, uint32_t rank)
{
	char name[128];
	snprintf(name, sizeof name, "grove.%s.%s.%u", net, role, rank);
	return trace_fe_offsets_apply(o, name);
}

static void
test_fe_offsets(void **state)
{
	(void)state;
	snprintf(net, sizeof net, "t%ldo", (long)getpid());
	struct trace_fe_offsets *o = trace_fe_offsets_new();
	assert_non_null(o);
	grove_skew sk[3] = {
		{0, 150000, 300},               /* be 0 on hA, 100 us injected */
		{1, 0, GROVE_SKEW_UNKNOWN},     /* be 1 on hB, not measured */
		{2, 149000, 90},                /* be 2 on hA, tighter */
	};
	assert_int_equal(trace_fe_offsets_set(o, sk, 3), 0);
	/* A CP whose host is not known yet waits for it. */
	make_copy("cp", 1, "hA", -30000, 1);
	assert_int_equal(apply(o, "cp", 1), 0);
	struct trace_header h = read_copy("cp", 1);
	assert_int_equal(h.align_flags, TRACE_ALIGN_RT_INIT |
	                 TRACE_ALIGN_SHIPPED);
	assert_int_equal(h.fe_offset_ns, 0);
	/* be 0 arrives: measured; the host is 50 us ahead; the CP gets
	 * 50 - 30 us with be 0's bound. */
	make_copy("be", 0, "hA", 100000, 0);
	assert_int_equal(apply(o, "be", 0), 0);
	h = read_copy("be", 0);
	assert_int_equal(h.align_flags, TRACE_ALIGN_RT_INIT |
	                 TRACE_ALIGN_SHIPPED | TRACE_ALIGN_FE_OFFSET);
	assert_int_equal(h.fe_offset_ns, 150000);
	assert_int_equal(h.fe_offset_err_ns, 300);
	h = read_copy("cp", 1);
	assert_true(h.align_flags & TRACE_ALIGN_FE_OFFSET);
	assert_int_equal(h.fe_offset_ns, 20000);
	assert_int_equal(h.fe_offset_err_ns, 300);
	/* be 2 (tighter) improves the host for CPs that come later. */
	make_copy("be", 2, "hA", 100000, 0);
	assert_int_equal(apply(o, "be", 2), 0);
	make_copy("cp", 4, "hA", 0, 0);
	assert_int_equal(apply(o, "cp", 4), 0);
	h = read_copy("cp", 4);
	assert_int_equal(h.fe_offset_ns, 49000);
	assert_int_equal(h.fe_offset_err_ns, 90);
	/* Not measured: unknown, even if the copy claimed an offset. */
	make_copy("be", 1, "hB", 0, 1);
	assert_int_equal(apply(o, "be", 1), 0);
	h = read_copy("be", 1);
	assert_false(h.align_flags & TRACE_ALIGN_FE_OFFSET);
	assert_int_equal(h.fe_offset_ns, 0);
	/* A CP on a host without back-ends stays unknown. */
	make_copy("cp", 5, "hC", 0, 0);
	assert_int_equal(apply(o, "cp", 5), 0);
	assert_false(read_copy("cp", 5).align_flags & TRACE_ALIGN_FE_OFFSET);
	/* ... also when back-ends of other hosts arrive after it. */
	make_copy("be", 2, "hA", 100000, 0);
	assert_int_equal(apply(o, "be", 2), 0);
	assert_false(read_copy("cp", 5).align_flags & TRACE_ALIGN_FE_OFFSET);
	assert_true(read_copy("be", 2).align_flags & TRACE_ALIGN_FE_OFFSET);
	/* A rank beyond the measurement, and no measurement at all. */
	make_copy("be", 9, "hA", 0, 1);
	assert_int_equal(apply(o, "be", 9), 0);
	assert_false(read_copy("be", 9).align_flags & TRACE_ALIGN_FE_OFFSET);
	make_copy("be", 0, "hA", 0, 1);
	assert_int_equal(apply(NULL, "be", 0), 0);
	h = read_copy("be", 0);
	assert_int_equal(h.align_flags, TRACE_ALIGN_RT_INIT |
	                 TRACE_ALIGN_SHIPPED);
	/* Not a segment. */
	assert_int_equal(apply(o, "be", 77), GROVE_ENOENT);
	char name[128];
	snprintf(name, sizeof name, "grove.%s.be.78", net);
	int fd = shm_open(name, O_RDWR | O_CREAT, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "junk", 4), 4);
	close(fd);
	assert_int_equal(apply(o, "be", 78), GROVE_EFORMAT);
	shm_unlink(name);
	/* A new measurement forgets the hosts learned. */
	assert_int_equal(trace_fe_offsets_set(o, sk, 3), 0);
	make_copy("cp", 1, "hA", 0, 0);
	assert_int_equal(apply(o, "cp", 1), 0);
	assert_false(read_copy("cp", 1).align_flags & TRACE_ALIGN_FE_OFFSET);
	trace_fe_offsets_free(o);
	const char *roles[] = {"cp", "cp", "cp", "be", "be", "be", "be"};
	const uint32_t ranks[] = {1, 4, 5, 0, 1, 2, 9};
	for (int i = 0; i < 7; i++) {
		snprintf(name, sizeof name, "grove.%s.%s.%u", net, roles[i],
		         ranks[i]);
		shm_unlink(name);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shift),
		cmocka_unit_test(test_host_offset),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_rt_of),
		cmocka_unit_test(test_single_host),
		cmocka_unit_test(test_hosts),
		cmocka_unit_test(test_realtime_and_local),
		cmocka_unit_test(test_no_frontend),
		cmocka_unit_test(test_step_warning),
		cmocka_unit_test(test_recorded_relation),
		cmocka_unit_test(test_fe_offsets),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

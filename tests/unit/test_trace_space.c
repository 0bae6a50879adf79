/* Event-space lifecycle and registry: init/fini/keep, identity checks,
 * GROVE_TRACE=0, collector entries as a reader sees them, per-thread ring
 * claims (and the sink when all rings are taken), fork safety. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/log.h"
#include "grove/error.h"
#include "grove/trace.h"
#include "trace/reader.h"
#include "trace/space.h"

static char net[64];

static void
new_net(void)
{
	static int n;
	snprintf(net, sizeof net, "t%lds%d", (long)getpid(), n++);
}

static int
seg_exists(const char *role, unsigned rank)
{
	char name[128];
	snprintf(name, sizeof name, "grove.%s.%s.%u", net, role, rank);
	int fd = shm_open(name, O_RDONLY, 0);
	if (fd >= 0)
		close(fd);
	return fd >= 0;
}

static void
open_seg(const char *role, unsigned rank, struct trace_seg *s)
{
	char name[128], err[256];
	snprintf(name, sizeof name, "grove.%s.%s.%u", net, role, rank);
	assert_int_equal(trace_seg_open(name, s, err, sizeof err), 0);
}

static void
test_names(void **state)
{
	(void)state;
	char buf[128], n[64], r[16];
	uint32_t rank;
	assert_int_equal(trace_segment_name(buf, sizeof buf, "n1", "cp", 3),
	                 0);
	assert_string_equal(buf, "grove.n1.cp.3");
	assert_int_equal(trace_parse_name(buf, n, sizeof n, r, sizeof r,
	                                  &rank), 0);
	assert_string_equal(n, "n1");
	assert_string_equal(r, "cp");
	assert_int_equal(rank, 3);
	assert_int_equal(trace_segment_name(buf, sizeof buf, "a.b", "cp", 3),
	                 GROVE_EINVAL);
	assert_int_equal(trace_segment_name(buf, sizeof buf, "a/b", "cp", 3),
	                 GROVE_EINVAL);
	assert_int_equal(trace_segment_name(buf, sizeof buf, "", "cp", 3),
	                 GROVE_EINVAL);
	assert_int_equal(trace_parse_name("grove.x.y", n, sizeof n, r,
	                                  sizeof r, &rank), GROVE_EINVAL);
	assert_int_equal(trace_parse_name("grove.x.y.1z", n, sizeof n, r,
	                                  sizeof r, &rank), GROVE_EINVAL);
	assert_int_equal(grove_trace_init("bad.id", "be", 0), GROVE_EINVAL);
	grove_trace_fini(0); /* refused, but matched like every init */
}

/* A refused init is a user like any other: its fini must not close the
 * space another user opened. */
static void
test_refused_init_counted(void **state)
{
	(void)state;
	grove_trace_collector c;
	new_net();
	assert_int_equal(grove_trace_init(net, "fe", 0), 0);
	assert_int_equal(grove_trace_init("bad.name", "be", 1), GROVE_EINVAL);
	assert_int_equal(grove_trace_init(net, "bad/role", 1), GROVE_EINVAL);
	grove_trace_fini(0); /* the refused ones */
	grove_trace_fini(0);
	assert_true(grove_trace_enabled());
	assert_true(seg_exists("fe", 0));
	assert_int_equal(grove_trace_user_register(&c, "still"), 0);
	assert_true(c.id != 0);
	grove_trace_fini(0); /* the first: closes and removes it */
	assert_false(grove_trace_enabled());
	assert_false(seg_exists("fe", 0));

	/* Refused before any space is open, then a space opened: the
	 * refused call's fini leaves it to its own user. */
	assert_int_equal(grove_trace_init("bad.name", "be", 1), GROVE_EINVAL);
	assert_int_equal(grove_trace_init(net, "cp", 4), 0);
	grove_trace_fini(0);
	assert_true(grove_trace_enabled());
	assert_true(seg_exists("cp", 4));
	grove_trace_fini(0);
	assert_false(grove_trace_enabled());
	assert_false(seg_exists("cp", 4));
}

static void
test_lifecycle(void **state)
{
	(void)state;
	new_net();
	assert_false(grove_trace_enabled());
	assert_int_equal(grove_trace_init(net, "cp", 2), 0);
	assert_true(grove_trace_enabled());
	assert_true(seg_exists("cp", 2));
	grove_trace_set_enabled(0);
	assert_false(grove_trace_enabled());
	grove_trace_set_enabled(1);
	assert_true(grove_trace_enabled());

	/* A span is recorded only when tracing is on at both its ends:
	 * begun off (t 0, no clock read) and ended on, or begun on and
	 * ended off, it is dropped; on at both ends, it is one tuple. */
	grove_trace_collector sc = {0, 0};
	assert_int_equal(grove_trace_user_register(&sc, "span"), 0);
	grove_trace_set_enabled(0);
	uint64_t t = grove_trace_begin();
	assert_int_equal(t, 0);
	grove_trace_set_enabled(1);
	grove_trace_end(&sc, GROVE_OP_USER, 1, t);
	assert_int_equal(sc.seq, 0);
	t = grove_trace_begin();
	assert_true(t != 0);
	grove_trace_set_enabled(0);
	grove_trace_end(&sc, GROVE_OP_USER, 2, t);
	assert_int_equal(sc.seq, 0);
	grove_trace_set_enabled(1);
	t = grove_trace_begin();
	grove_trace_end(&sc, GROVE_OP_USER, 3, t);
	assert_int_equal(sc.seq, 1);
	grove_trace_fini(0);
	assert_false(grove_trace_enabled());
	assert_false(seg_exists("cp", 2));

	/* keep: the segment stays, marked finished, until someone removes
	 * it. */
	assert_int_equal(grove_trace_init(net, "be", 7), 0);
	grove_trace_fini(1);
	assert_true(seg_exists("be", 7));
	struct trace_seg s;
	open_seg("be", 7, &s);
	assert_int_equal(s.hdr.finished, 1);
	assert_int_equal(s.hdr.rank, 7);
	assert_string_equal(s.hdr.role, "be");
	assert_int_equal(s.hdr.pid, getpid());
	assert_true(s.hdr.calib_fini.mono_ns >= s.hdr.calib_init.mono_ns);
	assert_true(trace_seg_quiescent(&s));
	trace_seg_close(&s);
	char name[128];
	snprintf(name, sizeof name, "grove.%s.be.7", net);
	assert_int_equal(shm_unlink(name), 0);
	/* Once off, records are dropped without a ring. */
	grove_trace_collector c = {5, 0};
	grove_trace_record(&c, GROVE_OP_SEND, 1, 1, 2);
	assert_int_equal(c.seq, 0);
}

static void
test_env_off(void **state)
{
	(void)state;
	new_net();
	setenv("GROVE_TRACE", "0", 1);
	assert_int_equal(grove_trace_init(net, "fe", 0), 0);
	unsetenv("GROVE_TRACE");
	assert_false(grove_trace_enabled());
	assert_false(seg_exists("fe", 0));
	grove_trace_collector c = {9, 9};
	assert_int_equal(grove_trace_collector_register(&c, "x", "net", "",
	                                                ""), 0);
	assert_int_equal(c.id, 0);
	grove_trace_set_enabled(1); /* no event space: stays off */
	assert_false(grove_trace_enabled());
	uint64_t t = grove_trace_begin();
	assert_int_equal(t, 0);
	grove_trace_end(&c, GROVE_OP_SEND, 1, t);
	assert_int_equal(c.seq, 0);
	grove_trace_fini(0);
}

static void
test_registry(void **state)
{
	(void)state;
	grove_trace_collector a, b, u;
	char longname[200];
	memset(longname, 'n', sizeof longname - 1);
	longname[sizeof longname - 1] = 0;
	new_net();
	assert_int_equal(grove_trace_init(net, "cp", 1), 0);
	assert_int_equal(grove_trace_collector_register(&a, "send", "net",
	                 "link:1->0", "after:write"), 0);
	assert_int_equal(grove_trace_collector_register(&b, longname, NULL,
	                 NULL, NULL), 0);
	assert_int_equal(grove_trace_user_register(&u, "phase"), 0);
	assert_int_equal(a.id, 1);
	assert_int_equal(b.id, 2);
	assert_int_equal(u.id, 3);
	assert_int_equal(grove_trace_collector_register(NULL, "x", "", "", ""),
	                 GROVE_EINVAL);
	grove_trace_instant(&a, GROVE_OP_SEND, 42);
	grove_trace_instant(&a, GROVE_OP_SEND, 43);
	assert_int_equal(a.seq, 2);

	struct trace_seg s;
	struct trace_proc p;
	open_seg("cp", 1, &s);
	assert_int_equal(trace_seg_n_collectors(&s), 3);
	assert_int_equal(trace_proc_read(&s, &p), 0);
	const struct trace_collector_entry *e = trace_proc_collector(&p, 1);
	assert_non_null(e);
	assert_string_equal(e->name, "send");
	assert_string_equal(e->layer, "net");
	assert_string_equal(e->where, "link:1->0");
	assert_string_equal(e->position, "after:write");
	e = trace_proc_collector(&p, 2);
	assert_int_equal(strlen(e->name), sizeof e->name - 1); /* truncated */
	assert_string_equal(e->layer, "");
	e = trace_proc_collector(&p, 3);
	assert_string_equal(e->layer, "user");
	assert_null(trace_proc_collector(&p, 0));
	assert_null(trace_proc_collector(&p, 4));
	assert_string_equal(p.label, "cp 1");
	assert_int_equal(p.n_rings, 1);
	assert_int_equal(p.rings[0].n, 2);
	assert_int_equal(p.rings[0].t[1].result, 43);
	assert_int_equal(p.rings[0].t[1].seq, 1);
	assert_int_equal(p.rings[0].t[1].flags, GROVE_TRACE_F_INSTANT);
	assert_true(p.alive);
	trace_proc_free(&p);
	trace_seg_close(&s);
	grove_trace_fini(0);
}

/* Registry strings longer than their field (grove/trace.h) are cut at a
 * character boundary: a long UTF-8 name never ends in half a character.
 * A byte that is not UTF-8 counts as a character of its own. */
static void
test_registry_cut_utf8(void **state)
{
	(void)state;
	grove_trace_collector c[3];
	char name[64], layer[32], where[128], pos[128], fit[64], raw[64];
	memset(name, 'a', 46);
	strcpy(name + 46, "\xe2\x82\xac");         /* 46 + 3 > 47 */
	memset(layer, 'l', 14);
	strcpy(layer + 14, "\xc3\xa9");             /* 14 + 2 > 15 */
	memset(where, 'w', 94);
	strcpy(where + 94, "\xf0\x9f\x98\x80");     /* 94 + 4 > 95 */
	memset(pos, 'p', 86);
	strcpy(pos + 86, "\xc3\xa9");               /* 86 + 2 > 87 */
	memset(fit, 'b', 44);
	strcpy(fit + 44, "\xe2\x82\xac");          /* 44 + 3 == 47 */
	memset(raw, 'c', 46);
	strcpy(raw + 46, "\xff\xfe");               /* not UTF-8 */
	new_net();
	assert_int_equal(grove_trace_init(net, "cp", 5), 0);
	assert_int_equal(grove_trace_collector_register(&c[0], name, layer,
	                 where, pos), 0);
	assert_int_equal(grove_trace_user_register(&c[1], fit), 0);
	assert_int_equal(grove_trace_user_register(&c[2], raw), 0);

	struct trace_seg s;
	struct trace_proc p;
	open_seg("cp", 5, &s);
	assert_int_equal(trace_proc_read(&s, &p), 0);
	const struct trace_collector_entry *e = trace_proc_collector(&p, 1);
	assert_non_null(e);
	assert_int_equal(strlen(e->name), 46);
	assert_int_equal(strncmp(e->name, name, 46), 0);
	assert_int_equal(strlen(e->layer), 14);
	assert_int_equal(strlen(e->where), 94);
	assert_int_equal(strlen(e->position), 86);
	e = trace_proc_collector(&p, 2);
	assert_string_equal(e->name, fit); /* exactly full: kept whole */
	e = trace_proc_collector(&p, 3);
	assert_int_equal(strlen(e->name), 47);
	assert_int_equal(memcmp(e->name, raw, 47), 0);
	trace_proc_free(&p);
	trace_seg_close(&s);
	grove_trace_fini(0);
}

/* ---- one ring per thread; the 65th thread records into a sink ---- */

static grove_trace_collector thr_c[TRACE_MAX_RINGS + 1];
static pthread_barrier_t barrier;

static void *
one_event(void *arg)
{
	grove_trace_collector *c = arg;
	grove_trace_instant(c, GROVE_OP_USER, 1);
	grove_trace_instant(c, GROVE_OP_USER, 2);
	pthread_barrier_wait(&barrier); /* all threads alive at once */
	return NULL;
}

static void
test_ring_per_thread(void **state)
{
	(void)state;
	enum { N = TRACE_MAX_RINGS + 1 };
	pthread_t th[N];
	new_net();
	setenv("GROVE_TRACE_SIZE", "16", 1);
	assert_int_equal(grove_trace_init(net, "be", 3), 0);
	unsetenv("GROVE_TRACE_SIZE");
	pthread_barrier_init(&barrier, NULL, N);
	for (int i = 0; i < N; i++) {
		grove_trace_user_register(&thr_c[i], "t");
		assert_int_equal(pthread_create(&th[i], NULL, one_event,
		                                &thr_c[i]), 0);
	}
	for (int i = 0; i < N; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&barrier);
	struct trace_seg s;
	struct trace_proc p;
	open_seg("be", 3, &s);
	assert_int_equal(trace_seg_n_rings(&s), TRACE_MAX_RINGS);
	assert_int_equal(s.hdr.threads_without_ring, 1);
	assert_int_equal(trace_proc_read(&s, &p), 0);
	uint64_t total = 0;
	for (uint32_t r = 0; r < p.n_rings; r++) {
		assert_int_equal(p.rings[r].n, 2);
		assert_int_equal(p.rings[r].t[0].collector,
		                 p.rings[r].t[1].collector);
		total += p.rings[r].n;
	}
	assert_int_equal(total, 2 * TRACE_MAX_RINGS);
	trace_proc_free(&p);
	trace_seg_close(&s);
	grove_trace_fini(0);
}

/* Several users in one process share its event space: a later init
 * joins it (whatever identity it gives), and only the last fini closes
 * and removes it, so a remaining user keeps recording. */
static void
test_shared_space(void **state)
{
	(void)state;
	grove_trace_collector c;
	char first[64], name[128];
	new_net();
	snprintf(first, sizeof first, "%s", net);
	assert_int_equal(grove_trace_init(first, "fe", 0), 0);
	new_net();
	assert_int_equal(grove_trace_init(net, "fe", 0), 0);
	/* Named after the first user; the second one made no space. */
	assert_false(seg_exists("fe", 0));
	assert_int_equal(trace_space_name(name, sizeof name), 0);
	snprintf(net, sizeof net, "%s", first);
	assert_true(seg_exists("fe", 0));
	char want[128];
	snprintf(want, sizeof want, "grove.%s.fe.0", first);
	assert_string_equal(name, want);

	/* One fini: still there, still recording. */
	assert_int_equal(trace_space_release(0, name, sizeof name), 0);
	assert_string_equal(name, "");
	assert_true(seg_exists("fe", 0));
	assert_true(grove_trace_enabled());
	assert_int_equal(grove_trace_user_register(&c, "after"), 0);
	assert_true(c.id != 0);
	grove_trace_instant(&c, GROVE_OP_USER, 1);
	assert_int_equal(c.seq, 1);
	struct trace_seg s;
	open_seg("fe", 0, &s);
	assert_int_equal(s.hdr.finished, 0);
	trace_seg_close(&s);

	/* The last fini closes and removes it. */
	assert_int_equal(trace_space_release(0, name, sizeof name), 1);
	assert_string_equal(name, want);
	assert_false(seg_exists("fe", 0));
	assert_false(grove_trace_enabled());
	assert_int_equal(trace_space_name(name, sizeof name), GROVE_ENOENT);
	/* A fini too many changes nothing. */
	grove_trace_fini(0);
	assert_false(grove_trace_enabled());
}

/* A forked child must not write into its parent's rings. */
static void
test_fork_child_off(void **state)
{
	(void)state;
	grove_trace_collector c;
	new_net();
	assert_int_equal(grove_trace_init(net, "fe", 0), 0);
	grove_trace_user_register(&c, "parent");
	grove_trace_instant(&c, GROVE_OP_USER, 1);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int bad = grove_trace_enabled();
		grove_trace_instant(&c, GROVE_OP_USER, 99);
		grove_trace_instant(&c, GROVE_OP_USER, 99);
		_exit(bad);
	}
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	struct trace_seg s;
	open_seg("fe", 0, &s);
	uint64_t head;
	assert_int_equal(trace_seg_ring_head(&s, 0, &head), 0);
	assert_int_equal(head, 1);
	trace_seg_close(&s);
	grove_trace_fini(0);
}

/* A segment its writer finished and kept (fini(1)) is not "in use" while
 * that writer lives on: another process with the same identity replaces
 * it, as `grove trace clean` would remove it. */
static void
test_kept_segment_replaced(void **state)
{
	(void)state;
	grove_trace_collector c;
	int up[2], down[2]; /* child -> parent: kept; parent -> child: done */
	assert_int_equal(pipe(up), 0);
	assert_int_equal(pipe(down), 0);
	new_net();
	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char b;
		close(up[0]);
		close(down[1]);
		int rc = grove_trace_init(net, "be", 0);
		grove_trace_fini(1);
		/* Tell the parent, then live until it is done. */
		b = (char)(rc == 0);
		if (write(up[1], &b, 1) != 1 || read(down[0], &b, 1) < 0)
			_exit(2);
		_exit(0);
	}
	close(up[1]);
	close(down[0]);
	char b = 0;
	assert_int_equal(read(up[0], &b, 1), 1);
	assert_int_equal(b, 1);
	int rc = grove_trace_init(net, "be", 0);
	/* Let the child go whatever happened (closing our end does). */
	close(down[1]);
	close(up[0]);
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	assert_int_equal(rc, 0);
	assert_true(grove_trace_enabled());
	grove_trace_user_register(&c, "new writer");
	grove_trace_instant(&c, GROVE_OP_USER, 1);
	struct trace_seg s;
	open_seg("be", 0, &s);
	assert_int_equal(s.hdr.pid, getpid());
	trace_seg_close(&s);
	grove_trace_fini(0);
}

/* KiB of the calling process's mapping that contains addr as resident
 * in its page tables (smaps "Rss"), or -1. */
static long
rss_kib_at(const void *addr)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512];
	int in = 0;
	long kib = -1;
	uintptr_t a = (uintptr_t)addr;
	assert_non_null(f);
	while (fgets(line, sizeof line, f)) {
		unsigned long lo, hi;
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 &&
		    strchr(line, '-') < strchr(line, ' ')) {
			in = a >= lo && a < hi;
			continue;
		}
		if (in && sscanf(line, "Rss: %ld kB", &kib) == 1)
			break;
	}
	fclose(f);
	return kib;
}

static pthread_barrier_t settle_barrier;

/* Records enough to want its ring settled, then (after the main thread's
 * fini unmapped the segment) asks for it: must not touch the old ring. */
static void *
settle_after_fini(void *arg)
{
	grove_trace_collector c = {2, 0};
	(void)arg;
	for (int i = 0; i < 400; i++)
		grove_trace_record(&c, GROVE_OP_SEND, i, 1, 2);
	pthread_barrier_wait(&settle_barrier);
	pthread_barrier_wait(&settle_barrier);
	trace_ring_settle();
	return NULL;
}

/* A claimed ring has only its first 16 KiB mapped; trace_ring_settle()
 * maps the rest once the thread has used half of those, and not before
 * (a thread of a large tree that records a few tuples never pays for
 * 256 KiB of page tables). */
static void
test_ring_mapped_on_demand(void **state)
{
	(void)state;
	new_net();
	setenv("GROVE_TRACE_SIZE", "8192", 1);
	assert_int_equal(grove_trace_init(net, "be", 3), 0);
	unsetenv("GROVE_TRACE_SIZE");
	grove_trace_collector c = {1, 0};
	for (int i = 0; i < 10; i++)
		grove_trace_record(&c, GROVE_OP_SEND, i, 1, 2);
	const void *ring = grove_trace_tls_.ring;
	long before = rss_kib_at(ring);
	assert_true(before > 0);
	trace_ring_settle();
	assert_int_equal(rss_kib_at(ring), before); /* 10 tuples: not yet */
	for (int i = 0; i < 300; i++)
		grove_trace_record(&c, GROVE_OP_SEND, i, 1, 2);
	long used = rss_kib_at(ring);
	trace_ring_settle();
	long after = rss_kib_at(ring);
	/* 8192 tuples of 32 bytes: 240 KiB beyond the first 16. */
	assert_true(after - used >= 236);
	assert_int_equal(c.seq, 310);
	grove_trace_fini(0);
	trace_ring_settle(); /* no ring any more: nothing to do */

	/* Another thread's ring, unmapped by a fini before it settles. */
	new_net();
	assert_int_equal(grove_trace_init(net, "be", 4), 0);
	pthread_t t;
	assert_int_equal(pthread_barrier_init(&settle_barrier, NULL, 2), 0);
	assert_int_equal(pthread_create(&t, NULL, settle_after_fini, NULL), 0);
	pthread_barrier_wait(&settle_barrier);
	grove_trace_fini(0);
	pthread_barrier_wait(&settle_barrier);
	assert_int_equal(pthread_join(t, NULL), 0);
	pthread_barrier_destroy(&settle_barrier);
}

static pthread_barrier_t populate_barrier;
static const void *populate_ring;

/* Claims the second ring with one tuple, lets the main thread look, then
 * records past half of its first pages and settles. */
static void *
claim_second_ring(void *arg)
{
	grove_trace_collector c = {1, 0};
	(void)arg;
	grove_trace_record(&c, GROVE_OP_SEND, 0, 1, 2);
	populate_ring = grove_trace_tls_.ring;
	pthread_barrier_wait(&populate_barrier);
	pthread_barrier_wait(&populate_barrier);
	for (int i = 0; i < 300; i++)
		grove_trace_record(&c, GROVE_OP_SEND, i, 1, 2);
	trace_ring_settle();
	pthread_barrier_wait(&populate_barrier);
	return NULL;
}

/* Rings after the first do not start on a page (64 + 8192 x 32 bytes
 * apart): their pre-mapping must still happen, at the claim (the first
 * 16 KiB) and when settled (the rest). */
static void
test_ring_premapped_not_first(void **state)
{
	(void)state;
	new_net();
	setenv("GROVE_TRACE_SIZE", "8192", 1);
	assert_int_equal(grove_trace_init(net, "be", 5), 0);
	unsetenv("GROVE_TRACE_SIZE");
	grove_trace_collector c = {1, 0};
	grove_trace_record(&c, GROVE_OP_SEND, 0, 1, 2);
	const void *ring0 = grove_trace_tls_.ring;
	long before = rss_kib_at(ring0);
	assert_true(before > 0);
	pthread_t t;
	assert_int_equal(pthread_barrier_init(&populate_barrier, NULL, 2), 0);
	assert_int_equal(pthread_create(&t, NULL, claim_second_ring, NULL), 0);
	pthread_barrier_wait(&populate_barrier);
	assert_true(populate_ring != ring0);
	assert_int_equal(((const struct grove_trace_ring_ *)populate_ring)->index,
	    1);
	/* One tuple touches one page; the claim maps 16 KiB. */
	long claimed = rss_kib_at(populate_ring);
	assert_true(claimed - before >= 16);
	pthread_barrier_wait(&populate_barrier);
	pthread_barrier_wait(&populate_barrier);
	/* 300 tuples touch about 10 KiB; settling maps the other 240. */
	long settled = rss_kib_at(populate_ring);
	assert_true(settled - claimed >= 236);
	assert_int_equal(pthread_join(t, NULL), 0);
	pthread_barrier_destroy(&populate_barrier);
	grove_trace_fini(0);
}

/* Occurrences of needle in the file f (read from its start). */
static int
count_lines_with(FILE *f, const char *needle)
{
	char line[1024];
	int n = 0;
	rewind(f);
	while (fgets(line, sizeof line, f))
		n += strstr(line, needle) != NULL;
	return n;
}

static void *
record_one(void *arg)
{
	grove_trace_collector c = {1, 0};
	(void)arg;
	grove_trace_record(&c, GROVE_OP_SEND, 0, 1, 2);
	return NULL;
}

/* In a child with its own, small /dev/shm (a user and mount namespace):
 * what a full /dev/shm says.  Exit status: 0 passed, 77 namespaces not
 * available, else the number of the failed check. */
static int
full_shm_child(void)
{
	char map[64];
	uid_t uid = getuid();
	gid_t gid = getgid();
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0)
		return 77;
	/* Files are created only by mapped users and groups. */
	const char *file[] = {"/proc/self/uid_map", "/proc/self/setgroups",
	                      "/proc/self/gid_map"};
	unsigned id[] = {(unsigned)uid, 0, (unsigned)gid};
	for (int i = 0; i < 3; i++) {
		int fd = open(file[i], O_WRONLY);
		int k = i == 1 ? snprintf(map, sizeof map, "deny") :
		        snprintf(map, sizeof map, "0 %u 1\n", id[i]);
		if (fd < 0 || write(fd, map, (size_t)k) != k)
			return 77;
		close(fd);
	}
	if (mount("none", "/dev/shm", "tmpfs", 0, "size=64k") != 0)
		return 77;
	FILE *log = tmpfile();
	if (!log || dup2(fileno(log), 2) < 0)
		return 1;
	setenv("GROVE_LOG", "warn", 1);
	log_init();
	/* 64 KiB: the first 20 KiB and ring 0 (33 KiB) fit, no second ring
	 * and no second chunk of registry entries. */
	setenv("GROVE_TRACE_SIZE", "1024", 1);
	if (grove_trace_init(net, "be", 0) != 0)
		return 2;
	grove_trace_collector c = {1, 0};
	grove_trace_record(&c, GROVE_OP_SEND, 0, 1, 2);
	for (int i = 0; i < 2; i++) {
		pthread_t t;
		if (pthread_create(&t, NULL, record_one, NULL) ||
		    pthread_join(t, NULL))
			return 3;
	}
	grove_trace_collector cs[66];
	int refused = 0;
	for (int i = 0; i < 66; i++)
		refused += grove_trace_user_register(&cs[i], "c") ==
		           GROVE_ERANGE;
	struct trace_seg s;
	char name[128], err[256];
	snprintf(name, sizeof name, "grove.%s.be.0", net);
	if (trace_seg_open(name, &s, err, sizeof err))
		return 4;
	uint32_t without = s.hdr.threads_without_ring;
	trace_seg_close(&s);
	grove_trace_fini(0);
	if (without != 2 || refused != 2)
		return 5;
	fflush(stderr);
	if (count_lines_with(log, "cannot reserve a ring in /dev/shm/") != 1 ||
	    count_lines_with(log, "No space left on device") != 2 ||
	    count_lines_with(log, "cannot reserve collector registry entries "
	                     "in /dev/shm/") != 1 ||
	    count_lines_with(log, "registry full") != 0)
		return 6;
	/* A /dev/shm too full for even the first pages. */
	int filler = open("/dev/shm/filler", O_CREAT | O_RDWR, 0600);
	if (filler < 0 || posix_fallocate(filler, 0, 56 << 10) != 0)
		return 7;
	new_net();
	if (grove_trace_init(net, "be", 0) != GROVE_ESYS)
		return 8;
	grove_trace_fini(0);
	fflush(stderr);
	if (count_lines_with(log, "cannot reserve the event space /dev/shm/")
	    != 1 || count_lines_with(log, "No space left on device") != 3)
		return 9;
	return 0;
}

/* A full /dev/shm says so, once per cause, with the system's reason: a
 * ring that cannot be reserved, registry entries that cannot be, and a
 * segment that cannot be; threads without a ring are counted. */
static void
test_full_shm_warns(void **state)
{
	(void)state;
	new_net();
	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		/* The child's log goes to a file it checks: on failure it
		 * is shown on the test's stderr. */
		int out = dup(2);
		int rc = full_shm_child();
		if (rc && rc != 77 && out >= 0) {
			char buf[4096];
			ssize_t k;
			fflush(stderr);
			lseek(2, 0, SEEK_SET);
			while ((k = read(2, buf, sizeof buf)) > 0)
				if (write(out, buf, (size_t)k) != k)
					break;
		}
		_exit(rc);
	}
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	if (WEXITSTATUS(st) == 77)
		skip();
	assert_int_equal(WEXITSTATUS(st), 0);
}

/* A parent's answer about the TSC replaces this process's CPUIDs; it
 * is asked once and kept. */
static void
test_tsc_hint(void **state)
{
	(void)state;
	int cpu = trace_tsc_invariant();
	assert_true(cpu == 0 || cpu == 1);
	assert_int_equal(trace_tsc_known(), cpu);
	trace_tsc_hint(!cpu);
	assert_int_equal(trace_tsc_invariant(), !cpu);
	assert_int_equal(trace_tsc_known(), !cpu);
	trace_tsc_hint(5);  /* not an answer: ignored */
	trace_tsc_hint(-1);
	assert_int_equal(trace_tsc_invariant(), !cpu);
	trace_tsc_hint(cpu);
	assert_int_equal(trace_tsc_invariant(), cpu);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_refused_init_counted),
		cmocka_unit_test(test_tsc_hint),
		cmocka_unit_test(test_lifecycle),
		cmocka_unit_test(test_env_off),
		cmocka_unit_test(test_registry),
		cmocka_unit_test(test_registry_cut_utf8),
		cmocka_unit_test(test_ring_per_thread),
		cmocka_unit_test(test_shared_space),
		cmocka_unit_test(test_fork_child_off),
		cmocka_unit_test(test_kept_segment_replaced),
		cmocka_unit_test(test_ring_mapped_on_demand),
		cmocka_unit_test(test_ring_premapped_not_first),
		cmocka_unit_test(test_full_shm_warns),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

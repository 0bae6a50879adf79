/* The segment reader against a live writer and against damaged files:
 * registry entries for every tuple of a live read, oversized and
 * truncated segments, and ring heads that are not honest counts.
 * Damaged segments are copies of real ones with a few bytes patched. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "grove/error.h"
#include "grove/trace.h"
#include "trace/reader.h"
#include "trace/space.h"

static char net[64];

static void
new_net(const char *tag)
{
	static int n;
	snprintf(net, sizeof net, "t%ldx%s%d", (long)getpid(), tag, n++);
}

static void
seg_name(char *buf, size_t len, unsigned rank)
{
	snprintf(buf, len, "grove.%s.be.%u", net, rank);
}

static void
remove_net(void)
{
	char **names;
	size_t n;
	if (trace_list(net, stderr, &names, &n))
		return;
	for (size_t i = 0; i < n; i++)
		shm_unlink(names[i]);
	trace_list_free(names, n);
}

/* A finished segment be.<rank> of `slots` slots holding `records`
 * tuples of one collector (seq 0, 1, ...). */
static void
make_segment(unsigned rank, const char *slots, unsigned records)
{
	grove_trace_collector c;
	setenv("GROVE_TRACE_SIZE", slots, 1);
	assert_int_equal(grove_trace_init(net, "be", rank), 0);
	unsetenv("GROVE_TRACE_SIZE");
	assert_int_equal(grove_trace_user_register(&c, "work"), 0);
	for (unsigned i = 0; i < records; i++)
		grove_trace_record(&c, GROVE_OP_USER, (int32_t)i, 1000 + i,
		                   2000 + i);
	grove_trace_fini(1);
}

static void
copy_segment(unsigned from, unsigned to)
{
	char a[128], b[128];
	seg_name(a, sizeof a, from);
	seg_name(b, sizeof b, to);
	int in = shm_open(a, O_RDONLY, 0);
	assert_true(in >= 0);
	int out = shm_open(b, O_RDWR | O_CREAT | O_EXCL, 0600);
	assert_true(out >= 0);
	struct stat st;
	assert_int_equal(fstat(in, &st), 0);
	assert_int_equal(ftruncate(out, st.st_size), 0);
	char buf[65536];
	for (off_t off = 0; off < st.st_size;) {
		ssize_t k = pread(in, buf, sizeof buf, off);
		assert_true(k > 0);
		/* Leave zero pages sparse, as the writer does. */
		static const char zero[sizeof buf];
		if (memcmp(buf, zero, (size_t)k))
			assert_int_equal(pwrite(out, buf, (size_t)k, off), k);
		off += k;
	}
	close(in);
	close(out);
}

static void
patch(unsigned rank, uint64_t off, const void *bytes, size_t len)
{
	char name[128];
	seg_name(name, sizeof name, rank);
	int fd = shm_open(name, O_RDWR, 0);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, bytes, len, (off_t)off), (ssize_t)len);
	close(fd);
}

static void
resize(unsigned rank, uint64_t size)
{
	char name[128];
	seg_name(name, sizeof name, rank);
	int fd = shm_open(name, O_RDWR, 0);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)size), 0);
	close(fd);
}

static struct trace_header
read_header(unsigned rank)
{
	char name[128];
	struct trace_header h;
	seg_name(name, sizeof name, rank);
	int fd = shm_open(name, O_RDONLY, 0);
	assert_true(fd >= 0);
	assert_int_equal(pread(fd, &h, sizeof h, 0), (ssize_t)sizeof h);
	close(fd);
	return h;
}

/* Gives a copy rings of another size: a damaged header that still
 * passes every consistency check (stride, bounds, file size). */
static void
set_ring_slots(unsigned rank, uint32_t slots)
{
	struct trace_header h = read_header(rank);
	uint32_t one = 1;
	uint64_t stride = TRACE_RING_HEADER +
	                  (uint64_t)slots * sizeof(grove_trace_tuple);
	uint64_t size = h.rings_offset + stride;
	patch(rank, offsetof(struct trace_header, ring_slots), &slots,
	      sizeof slots);
	patch(rank, offsetof(struct trace_header, ring_stride), &stride,
	      sizeof stride);
	patch(rank, offsetof(struct trace_header, max_rings), &one,
	      sizeof one);
	patch(rank, offsetof(struct trace_header, size), &size, sizeof size);
	resize(rank, size); /* sparse */
}

static void
set_head(unsigned rank, uint32_t ring, uint64_t head)
{
	struct trace_header h = read_header(rank);
	patch(rank, h.rings_offset + ring * h.ring_stride +
	      offsetof(struct grove_trace_ring_, head), &head, sizeof head);
}

static void
open_seg(unsigned rank, struct trace_seg *s)
{
	char name[128], err[256];
	seg_name(name, sizeof name, rank);
	int rc = trace_seg_open(name, s, err, sizeof err);
	if (rc)
		fprintf(stderr, "%s\n", err);
	assert_int_equal(rc, 0);
}

/* trace_set_collect with its messages caught; *msgs is malloc'ed. */
static int
collect_quietly(struct trace_set *set, char **msgs)
{
	char path[] = "/tmp/grove-reader-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	unlink(path);
	fflush(stderr);
	int saved = dup(2);
	dup2(fd, 2);
	int rc = trace_set_collect(net, set);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	off_t len = lseek(fd, 0, SEEK_END);
	*msgs = calloc(1, (size_t)len + 1);
	assert_non_null(*msgs);
	assert_int_equal(pread(fd, *msgs, (size_t)len, 0), len);
	close(fd);
	return rc;
}

static const struct trace_proc *
find_proc(const struct trace_set *set, unsigned rank)
{
	char name[128];
	seg_name(name, sizeof name, rank); /* copies keep their header's rank */
	for (size_t i = 0; i < set->n; i++)
		if (!strcmp(set->p[i].name, name))
			return &set->p[i];
	return NULL;
}

/* ---- a live read sees the entry of every collector it has tuples of */

enum { RACE_COLLECTORS = 2000, RACE_RECORDS = 3 };

static grove_trace_collector race_c[RACE_COLLECTORS];
static int race_done;
static unsigned long race_reads;

static void *
register_and_record(void *arg)
{
	(void)arg;
	char name[32];
	for (int i = 0; i < RACE_COLLECTORS; i++) {
		snprintf(name, sizeof name, "c%d", i);
		grove_trace_collector_register(&race_c[i], name, "user",
		                               "link:x", "");
		for (int k = 0; k < RACE_RECORDS; k++)
			grove_trace_record(&race_c[i], GROVE_OP_USER, k,
			                   grove_trace_now(),
			                   grove_trace_now());
		/* Let reads in between registrations, however the two
		 * threads are scheduled: one read per 4 collectors. */
		while (__atomic_load_n(&race_reads, __ATOMIC_ACQUIRE) <
		       (unsigned long)i / 4)
			sched_yield();
	}
	__atomic_store_n(&race_done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Every tuple of one read has a registry entry of that same read. */
static uint64_t
read_and_check(void)
{
	char name[128];
	struct trace_seg s;
	struct trace_proc p;
	seg_name(name, sizeof name, 0);
	open_seg(0, &s);
	assert_int_equal(trace_proc_read(&s, &p), 0);
	uint64_t tuples = 0;
	for (uint32_t r = 0; r < p.n_rings; r++)
		for (size_t k = 0; k < p.rings[r].n; k++) {
			uint32_t id = p.rings[r].t[k].collector;
			if (!trace_proc_collector(&p, id))
				fail_msg("tuple of collector %u, registry "
				         "read holds %u", id, p.n_collectors);
			tuples++;
		}
	trace_proc_free(&p);
	trace_seg_close(&s);
	return tuples;
}

static void
test_registry_read_after_rings(void **state)
{
	(void)state;
	new_net("r");
	/* Room for every tuple, so none is overwritten. */
	setenv("GROVE_TRACE_SIZE", "8192", 1);
	assert_int_equal(grove_trace_init(net, "be", 0), 0);
	unsetenv("GROVE_TRACE_SIZE");
	race_done = 0;
	race_reads = 0;
	pthread_t t;
	assert_int_equal(pthread_create(&t, NULL, register_and_record, NULL),
	                 0);
	while (!__atomic_load_n(&race_done, __ATOMIC_ACQUIRE)) {
		read_and_check();
		__atomic_fetch_add(&race_reads, 1, __ATOMIC_RELEASE);
	}
	pthread_join(t, NULL);
	assert_int_equal(read_and_check(),
	                 RACE_COLLECTORS * RACE_RECORDS);
	assert_true(race_reads >= RACE_COLLECTORS / 4);
	grove_trace_fini(0);
}

/* ---- oversized rings ---- */

static void
test_huge_ring_slots_skipped(void **state)
{
	(void)state;
	new_net("h");
	make_segment(0, "16", 10);
	copy_segment(0, 1);
	copy_segment(0, 2);
	copy_segment(0, 3);
	/* More slots than any writer makes: refused by name.  The file is
	 * sparse (32 GiB), as a damaged one would be. */
	set_ring_slots(2, 1u << 30);
	/* The writer's largest rings: read, and only the 10 tuples the
	 * head says were written are copied (not 512 MiB). */
	set_ring_slots(3, TRACE_READER_MAX_SLOTS);

	struct trace_set set;
	char *msgs;
	assert_int_equal(collect_quietly(&set, &msgs), 0);
	char bad[128];
	seg_name(bad, sizeof bad, 2);
	if (!strstr(msgs, bad) || !strstr(msgs, "ring_slots"))
		fail_msg("the bad segment is not named: %s", msgs);
	if (set.n != 3)
		fail_msg("%zu segments collected: %s", set.n, msgs);
	assert_null(find_proc(&set, 2));
	for (unsigned r = 0; r < 4; r++) {
		if (r == 2)
			continue;
		const struct trace_proc *p = find_proc(&set, r);
		assert_non_null(p);
		assert_int_equal(p->tuples, 10);
		assert_int_equal(p->lost, 0);
		assert_int_equal(p->damaged_rings, 0);
	}
	trace_set_free(&set);
	free(msgs);
}

/* ---- ring heads that are not honest counts ---- */

static void
check_seqs(const struct trace_ring_snap *rs, uint32_t first)
{
	for (size_t k = 0; k < rs->n; k++)
		assert_int_equal(rs->t[k].seq, first + k);
}

static void
test_damaged_heads(void **state)
{
	(void)state;
	new_net("d");
	make_segment(0, "16", 10); /* never wrapped: 6 slots unwritten */
	make_segment(1, "16", 40); /* wrapped: 24 tuples overwritten */
	copy_segment(0, 2);
	copy_segment(0, 3);
	copy_segment(1, 4);
	set_head(2, 0, 1ull << 40);
	set_head(3, 0, UINT64_MAX);
	/* High bits flipped: every slot written, but far more tuples than
	 * the writer can have stored since its init. */
	set_head(4, 0, (1ull << 40) + 40);

	struct trace_seg s;
	struct trace_proc p;
	/* Honest rings: exact loss, as before. */
	open_seg(1, &s);
	assert_int_equal(trace_proc_read(&s, &p), 0);
	assert_int_equal(p.rings[0].n, 16);
	assert_int_equal(p.lost, 24);
	assert_int_equal(p.damaged_rings, 0);
	check_seqs(&p.rings[0], 24);
	trace_proc_free(&p);
	trace_seg_close(&s);

	for (unsigned r = 2; r <= 3; r++) {
		open_seg(r, &s);
		assert_int_equal(trace_proc_read(&s, &p), 0);
		assert_int_equal(p.damaged_rings, 1);
		assert_true(p.rings[0].damaged);
		assert_int_equal(p.rings[0].unwritten, 6);
		assert_int_equal(p.rings[0].n, 10); /* written ones only */
		assert_int_equal(p.lost, 0);
		assert_int_equal(p.tuples, 10);
		check_seqs(&p.rings[0], 0); /* in slot order */
		trace_proc_free(&p);
		trace_seg_close(&s);
	}

	open_seg(4, &s);
	assert_int_equal(trace_proc_read(&s, &p), 0);
	assert_int_equal(p.damaged_rings, 1);
	assert_int_equal(p.rings[0].unwritten, 0);
	assert_int_equal(p.rings[0].n, 16);
	assert_int_equal(p.lost, 0);
	trace_proc_free(&p);
	trace_seg_close(&s);

	/* The ring-level read on its own: never-written slots skipped. */
	open_seg(2, &s);
	grove_trace_tuple buf[16];
	struct trace_ring_cursor cur = {0};
	size_t n;
	assert_int_equal(trace_seg_ring_read(&s, 0, 1, &cur, buf, &n), 0);
	assert_int_equal(n, 10);
	assert_true(cur.damaged);
	assert_int_equal(cur.lost, 0);
	trace_seg_close(&s);

	/* Collection keeps them and names each damaged ring. */
	struct trace_set set;
	char *msgs;
	assert_int_equal(collect_quietly(&set, &msgs), 0);
	assert_int_equal(set.n, 5);
	for (unsigned r = 2; r <= 4; r++) {
		char name[128];
		seg_name(name, sizeof name, r);
		if (!strstr(msgs, name))
			fail_msg("%s is not named: %s", name, msgs);
	}
	char honest[128];
	seg_name(honest, sizeof honest, 1);
	assert_null(strstr(msgs, honest));
	trace_set_free(&set);
	free(msgs);
}

/* ---- a segment truncated while it is open ---- */

static int
count_cb(void *ctx, uint32_t ring, const grove_trace_tuple *t, size_t n)
{
	(void)ring, (void)t;
	*(size_t *)ctx += n;
	return 0;
}

static void
test_truncated_while_open(void **state)
{
	(void)state;
	new_net("t");
	make_segment(0, "1024", 100);
	copy_segment(0, 1);
	struct trace_seg s;
	struct trace_proc p;
	open_seg(1, &s);
	assert_int_equal(trace_seg_intact(&s), 0);

	/* Another process cuts the file down under the mapping. */
	resize(1, TRACE_HEADER_SIZE);
	assert_int_equal(trace_seg_intact(&s), GROVE_EFORMAT);
	assert_int_equal(trace_proc_read(&s, &p), GROVE_EFORMAT);
	assert_int_equal(p.n_rings, 0);
	assert_null(p.rings);
	trace_proc_free(&p); /* harmless after a failed read */
	struct trace_seg_cursor *cur = calloc(1, sizeof *cur);
	assert_non_null(cur);
	size_t seen = 0;
	assert_int_equal(trace_seg_poll(&s, cur, count_cb, &seen),
	                 GROVE_EFORMAT);
	assert_int_equal(seen, 0);
	free(cur);
	trace_seg_close(&s);

	/* Down to nothing: refused at open, and collection goes on. */
	resize(1, 0);
	struct trace_set set;
	char *msgs;
	assert_int_equal(collect_quietly(&set, &msgs), 0);
	assert_int_equal(set.n, 1);
	assert_int_equal(set.p[0].tuples, 100);
	char name[128];
	seg_name(name, sizeof name, 1);
	if (!strstr(msgs, name))
		fail_msg("%s is not named: %s", name, msgs);
	trace_set_free(&set);
	free(msgs);
}

/* ---- a segment truncated again and again while it is read ---- */

/* The truncating process of test_truncated_concurrently while it runs. */
static pid_t truncator;

/* Another process cuts the segment to its header and restores it until
 * told to stop (a byte on `stop`), or for at most `max` rounds. */
static void
truncate_loop(const char *name, int started, int stop, long max)
{
	int fd = shm_open(name, O_RDWR, 0);
	struct stat st;
	char b = 1;
	if (fd < 0 || fstat(fd, &st) != 0 || write(started, &b, 1) != 1)
		_exit(1);
	for (long i = 0; i < max && read(stop, &b, 1) != 1; i++)
		if (ftruncate(fd, TRACE_HEADER_SIZE) != 0 ||
		    ftruncate(fd, st.st_size) != 0)
			_exit(1);
	_exit(ftruncate(fd, st.st_size) != 0);
}

static void
test_truncated_concurrently(void **state)
{
	(void)state;
	enum { ROUNDS = 400 };
	char name[128];
	new_net("k");
	make_segment(0, "1024", 100);
	seg_name(name, sizeof name, 0);
	int started[2], stop[2];
	assert_int_equal(pipe(started), 0);
	assert_int_equal(pipe(stop), 0);
	assert_int_equal(fcntl(stop[0], F_SETFL, O_NONBLOCK), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		truncate_loop(name, started[1], stop[0], 10000000L);
	truncator = pid; /* stopped by teardown if a check fails */
	char b;
	assert_int_equal(read(started[0], &b, 1), 1);

	/* Every read either sees the segment or says it shrank; none may
	 * fault.  A file cut and grown again reads as zeros past its
	 * header, so after the first cut the rings are empty: a read holds
	 * at most the 100 tuples written. */
	unsigned whole = 0, shrank = 0;
	struct trace_seg_cursor *cur = calloc(1, sizeof *cur);
	assert_non_null(cur);
	for (int round = 0; round < ROUNDS; round++) {
		struct trace_seg s;
		struct trace_proc p;
		char err[256];
		int rc = trace_seg_open(name, &s, err, sizeof err);
		if (rc) {
			assert_int_equal(rc, GROVE_EFORMAT);
			shrank++;
			continue;
		}
		rc = trace_proc_read(&s, &p);
		if (rc == 0) {
			assert_true(p.tuples <= 100);
			trace_proc_free(&p);
			whole++;
		} else {
			assert_int_equal(rc, GROVE_EFORMAT);
			shrank++;
		}
		memset(cur, 0, sizeof *cur);
		size_t seen = 0;
		rc = trace_seg_poll(&s, cur, count_cb, &seen);
		assert_true(rc == 0 || rc == GROVE_EFORMAT);
		assert_true(seen <= 100);
		(void)trace_seg_quiescent(&s);
		trace_seg_close(&s);
		if (round % 40 == 0) {
			/* Collection: the segment is there or is named. */
			struct trace_set set;
			char *msgs;
			assert_int_equal(collect_quietly(&set, &msgs), 0);
			if (set.n == 1)
				assert_true(set.p[0].tuples <= 100);
			else if (!strstr(msgs, name))
				fail_msg("%s left out unnamed: %s", name, msgs);
			trace_set_free(&set);
			free(msgs);
		}
	}
	free(cur);
	assert_int_equal(write(stop[1], &b, 1), 1);
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	truncator = 0;
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	close(started[0]);
	close(started[1]);
	close(stop[0]);
	close(stop[1]);
	assert_int_equal(whole + shrank, ROUNDS);
}

/* ---- a writer killed without fini ---- */

/* SIGKILL may land in the middle of a store: the oldest slot of a
 * wrapped ring may hold half of the next tuple.  The reader keeps the
 * newest slots - 1 and counts the oldest as lost, as for a live ring. */
static void
test_killed_writer_oldest_slot_lost(void **state)
{
	(void)state;
	new_net("x");
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		grove_trace_collector c;
		setenv("GROVE_TRACE_SIZE", "16", 1);
		if (grove_trace_init(net, "be", 2) ||
		    grove_trace_user_register(&c, "work"))
			_exit(1);
		for (unsigned i = 0; i < 40; i++)
			grove_trace_record(&c, GROVE_OP_USER, (int32_t)i,
			                   1000 + i, 2000 + i);
		raise(SIGKILL);
		_exit(1);
	}
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	/* Tuple 40 half-stored over tuple 24 (slot 8): its timestamps
	 * written, the rest not yet. */
	struct trace_header h = read_header(2);
	uint64_t ts[2] = {1040, 2040};
	patch(2, h.rings_offset + TRACE_RING_HEADER +
	      8 * sizeof(grove_trace_tuple), ts, sizeof ts);

	struct trace_seg s;
	struct trace_proc p;
	open_seg(2, &s);
	assert_false(trace_seg_quiescent(&s));
	assert_int_equal(trace_proc_read(&s, &p), 0);
	assert_false(p.alive);
	assert_false(p.hdr.finished);
	assert_int_equal(p.rings[0].n, 15);
	assert_int_equal(p.lost, 25);
	check_seqs(&p.rings[0], 25);
	for (size_t k = 0; k < p.rings[0].n; k++)
		assert_int_equal(p.rings[0].t[k].t_start,
		                 1000 + p.rings[0].t[k].seq);
	trace_proc_free(&p);
	struct trace_seg_cursor *cur = calloc(1, sizeof *cur);
	assert_non_null(cur);
	size_t seen = 0;
	assert_int_equal(trace_seg_poll(&s, cur, count_cb, &seen), 0);
	assert_int_equal(seen, 15);
	assert_int_equal(cur->ring[0].lost, 25);
	free(cur);
	trace_seg_close(&s);
}

/* ---- a writer's pid taken by a later process ---- */

static void
set_u32(unsigned rank, size_t off, uint32_t v)
{
	patch(rank, off, &v, sizeof v);
}

static void
test_reused_pid_is_dead(void **state)
{
	(void)state;
	new_net("p");
	make_segment(3, "16", 5); /* written by this process */
	set_u32(3, offsetof(struct trace_header, finished), 0);
	struct trace_seg s;
	struct trace_proc p;

	/* Unfinished, and its writer (this process, which started before
	 * the segment was made) runs. */
	open_seg(3, &s);
	assert_int_equal(trace_proc_read(&s, &p), 0);
	assert_true(p.alive);
	assert_true(trace_writer_alive(getpid(), p.hdr.calib_init.mono_ns));
	trace_proc_free(&p);
	trace_seg_close(&s);

	/* Made just after boot, by another process: this one started
	 * after the segment, so it only has the writer's pid. */
	uint64_t boot = 1;
	patch(3, offsetof(struct trace_header, calib_init) +
	      offsetof(struct trace_calib, mono_ns), &boot, sizeof boot);
	open_seg(3, &s);
	assert_int_equal(trace_proc_read(&s, &p), 0);
	assert_false(p.alive);
	assert_false(trace_writer_alive(getpid(), 1));
	/* The start of a segment not known: a running pid is its writer. */
	assert_true(trace_writer_alive(getpid(), 0));
	trace_proc_free(&p);
	trace_seg_close(&s);
	assert_false(trace_writer_alive(0, 0));
}

/* A segment of another network, removed by teardown. */
static char other_seg[128];

/* trace_list_with takes one more segment by name: the front-end's own
 * event space when the process opened it under another name.  It is
 * listed once, also when it is one of the network's, and a name that is
 * not in /dev/shm adds nothing. */
static void
test_list_with_one_more(void **state)
{
	(void)state;
	new_net("lw");
	make_segment(0, "16", 3);
	make_segment(1, "16", 3);
	char other[64];
	snprintf(other, sizeof other, "%so", net);
	snprintf(other_seg, sizeof other_seg, "grove.%s.tool.0", other);
	assert_int_equal(grove_trace_init(other, "tool", 0), 0);
	grove_trace_collector c;
	assert_int_equal(grove_trace_user_register(&c, "tool_work"), 0);
	grove_trace_record(&c, GROVE_OP_USER, 7, 1000, 2000);
	grove_trace_fini(1);

	char **names;
	size_t n;
	assert_int_equal(trace_list_with(net, other_seg, stderr, &names, &n),
	                 0);
	assert_int_equal(n, 3);
	int seen = 0;
	for (size_t i = 0; i < n; i++)
		seen += !strcmp(names[i], other_seg);
	assert_int_equal(seen, 1);
	trace_list_free(names, n);

	char own[128];
	seg_name(own, sizeof own, 1);
	assert_int_equal(trace_list_with(net, own, stderr, &names, &n), 0);
	assert_int_equal(n, 2);
	trace_list_free(names, n);
	assert_int_equal(trace_list_with(net, "grove.nosuchnet.fe.0", stderr,
	                                 &names, &n), 0);
	assert_int_equal(n, 2);
	trace_list_free(names, n);
	assert_int_equal(trace_list_with(net, NULL, stderr, &names, &n), 0);
	assert_int_equal(n, 2);
	trace_list_free(names, n);

	struct trace_set set;
	assert_int_equal(trace_set_collect_with(net, other_seg, &set), 0);
	assert_int_equal(set.n, 3);
	uint64_t tuples = 0;
	for (size_t i = 0; i < set.n; i++)
		tuples += set.p[i].tuples;
	assert_int_equal(tuples, 7);
	trace_set_free(&set);
}

/* Removes the test's segments even when it failed half-way. */
static int
teardown(void **state)
{
	(void)state;
	if (other_seg[0]) {
		shm_unlink(other_seg);
		other_seg[0] = 0;
	}
	if (truncator > 0) {
		kill(truncator, SIGKILL);
		waitpid(truncator, NULL, 0);
		truncator = 0;
	}
	remove_net();
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_registry_read_after_rings,
		                          teardown),
		cmocka_unit_test_teardown(test_huge_ring_slots_skipped,
		                          teardown),
		cmocka_unit_test_teardown(test_damaged_heads, teardown),
		cmocka_unit_test_teardown(test_truncated_while_open,
		                          teardown),
		cmocka_unit_test_teardown(test_truncated_concurrently,
		                          teardown),
		cmocka_unit_test_teardown(test_killed_writer_oldest_slot_lost,
		                          teardown),
		cmocka_unit_test_teardown(test_reused_pid_is_dead, teardown),
		cmocka_unit_test_teardown(test_list_with_one_more, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

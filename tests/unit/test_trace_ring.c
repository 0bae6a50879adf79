/* Event-space rings: wrap-around, incremental reads with exact loss
 * counts, and a reader racing a writer (thread and separate process).
 * Every tuple carries a pattern derived from its index, so a torn or
 * stale copy is detected; copied + lost must always equal the head. */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "grove/error.h"
#include "grove/trace.h"
#include "trace/reader.h"
#include "trace/trace_impl.h"

static char net[64];
static char segname[128];

static void
new_net(const char *tag)
{
	static int n;
	snprintf(net, sizeof net, "t%ldr%s%d", (long)getpid(), tag, n++);
	snprintf(segname, sizeof segname, "grove.%s.be.0", net);
}

/* The pattern of tuple i (the collector's i-th record). */
static uint64_t
pat_start(uint64_t i)
{
	return i * 7 + 1;
}

static uint64_t
pat_end(uint64_t i)
{
	return (i * 7 + 1) ^ 0x5a5a5a5a00000000ull;
}

static int32_t
pat_result(uint64_t i)
{
	return (int32_t)(uint32_t)(i * 2654435761u);
}

static void
record_n(grove_trace_collector *c, uint64_t n)
{
	for (uint64_t k = 0; k < n; k++) {
		uint64_t i = c->seq;
		grove_trace_record(c, GROVE_OP_USER + 1, pat_result(i),
		                   pat_start(i), pat_end(i));
	}
}

/* Checks tuples are intact and consecutive; returns the first index. */
static int
check_run(const grove_trace_tuple *t, size_t n, uint32_t coll)
{
	for (size_t k = 0; k < n; k++) {
		uint64_t i = t[k].seq;
		if (t[k].t_start != pat_start(i) || t[k].t_end != pat_end(i) ||
		    t[k].result != pat_result(i) || t[k].collector != coll ||
		    t[k].op != GROVE_OP_USER + 1)
			return -1;
		if (k && t[k].seq != t[k - 1].seq + 1)
			return -1;
	}
	return 0;
}

static void
open_own(struct trace_seg *s)
{
	char err[256];
	int rc = trace_seg_open(segname, s, err, sizeof err);
	if (rc)
		fprintf(stderr, "%s\n", err);
	assert_int_equal(rc, 0);
}

static void
test_wrap_and_cursor(void **state)
{
	(void)state;
	grove_trace_collector c;
	struct trace_seg s;
	grove_trace_tuple buf[16];
	struct trace_ring_cursor cur = {0};
	new_net("w");
	setenv("GROVE_TRACE_SIZE", "16", 1);
	assert_int_equal(grove_trace_init(net, "be", 0), 0);
	assert_true(grove_trace_enabled());
	assert_int_equal(grove_trace_user_register(&c, "pattern"), 0);
	assert_int_not_equal(c.id, 0);

	record_n(&c, 10); /* no wrap yet */
	open_own(&s);
	assert_int_equal(trace_seg_n_rings(&s), 1);
	assert_int_equal(s.hdr.ring_slots, 16);
	size_t n;
	assert_int_equal(trace_seg_ring_read(&s, 0, 0, &cur, buf, &n), 0);
	assert_int_equal(n, 10);
	assert_int_equal(cur.lost, 0);
	assert_int_equal(buf[0].seq, 0);
	assert_int_equal(check_run(buf, n, c.id), 0);

	record_n(&c, 30); /* head 40: the ring wrapped twice */
	assert_int_equal(trace_seg_ring_read(&s, 0, 0, &cur, buf, &n), 0);
	/* A live ring yields slots-1 newest tuples: 25..39. */
	assert_int_equal(n, 15);
	assert_int_equal(buf[0].seq, 25);
	assert_int_equal(check_run(buf, n, c.id), 0);
	assert_int_equal(cur.copied + cur.lost, 40);
	assert_int_equal(cur.lost, 15);

	record_n(&c, 3); /* small increment: nothing lost */
	assert_int_equal(trace_seg_ring_read(&s, 0, 0, &cur, buf, &n), 0);
	assert_int_equal(n, 3);
	assert_int_equal(buf[0].seq, 40);
	assert_int_equal(cur.copied + cur.lost, 43);

	assert_int_equal(trace_seg_ring_read(&s, 0, 0, &cur, buf, &n), 0); /* nothing new */
	assert_int_equal(n, 0);

	/* A quiescent (finished) writer: the whole ring is readable. */
	record_n(&c, 100);
	struct trace_ring_cursor q = cur;
	assert_int_equal(trace_seg_ring_read(&s, 0, 1, &q, buf, &n), 0);
	assert_int_equal(n, 16);
	assert_int_equal(buf[0].seq, 143 - 16);
	assert_int_equal(check_run(buf, n, c.id), 0);
	assert_int_equal(q.copied + q.lost, 143);
	trace_seg_close(&s);
	grove_trace_fini(0);
	unsetenv("GROVE_TRACE_SIZE");
	assert_int_equal(shm_unlink(segname), -1); /* fini removed it */
}

/* ---- writer thread vs reader ---- */

#define RACE_N 1000000u

struct race {
	grove_trace_collector c;
	volatile int done;
};

/* Records with an uneven pace so the reader is sometimes ahead, sometimes
 * lapped while it copies. */
static void
record_paced(grove_trace_collector *c, uint64_t n)
{
	for (uint64_t k = 0; k < n; k++) {
		uint64_t i = c->seq;
		grove_trace_record(c, GROVE_OP_USER + 1, pat_result(i),
		                   pat_start(i), pat_end(i));
		for (volatile unsigned d = (unsigned)(i % 97); d; d--)
			;
	}
}

static void *
writer(void *arg)
{
	struct race *w = arg;
	record_paced(&w->c, RACE_N);
	__atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

struct verify {
	uint64_t expect_next; /* seq the next delivered tuple may start at */
	uint64_t bad;
	uint64_t polls;
	uint32_t coll;
};

static int
verify_cb(void *ctx, uint32_t ring, const grove_trace_tuple *t, size_t n)
{
	struct verify *v = ctx;
	(void)ring;
	v->polls++;
	if (!n)
		return 0;
	if (check_run(t, n, v->coll) || t[0].seq < v->expect_next)
		v->bad++;
	v->expect_next = (uint64_t)t[n - 1].seq + 1;
	return 0;
}

static void
test_writer_thread_reader(void **state)
{
	(void)state;
	struct race w = {0};
	struct trace_seg s;
	struct trace_seg_cursor *cur = calloc(1, sizeof *cur);
	struct verify v = {0};
	pthread_t th;
	assert_non_null(cur);
	new_net("t");
	setenv("GROVE_TRACE_SIZE", "1024", 1);
	assert_int_equal(grove_trace_init(net, "be", 0), 0);
	assert_int_equal(grove_trace_user_register(&w.c, "race"), 0);
	v.coll = w.c.id;
	open_own(&s);
	assert_int_equal(pthread_create(&th, NULL, writer, &w), 0);
	while (!__atomic_load_n(&w.done, __ATOMIC_ACQUIRE))
		assert_int_equal(trace_seg_poll(&s, cur, verify_cb, &v), 0);
	pthread_join(th, NULL);
	assert_int_equal(trace_seg_poll(&s, cur, verify_cb, &v), 0);
	assert_int_equal(trace_seg_n_rings(&s), 1);
	struct trace_ring_cursor *rc = &cur->ring[0];
	assert_int_equal(v.bad, 0);
	assert_int_equal(rc->next, RACE_N);
	assert_int_equal(rc->copied + rc->lost, RACE_N);
	assert_true(rc->copied > 0);
	trace_seg_close(&s);
	free(cur);
	grove_trace_fini(0);
	unsetenv("GROVE_TRACE_SIZE");
}

/* ---- live snapshot (what a remote live collection ships) ---- */

/* The snapshot's (offset, length, bytes) chunks laid out as the segment
 * the receiver would recreate; NULL when they do not fit. */
static char *
snapshot_image(const uint8_t *buf, size_t len)
{
	uint64_t size;
	assert_true(len >= 8);
	memcpy(&size, buf, 8);
	char *img = calloc(1, size);
	assert_non_null(img);
	for (size_t p = 8; p < len;) {
		uint64_t off, l;
		assert_true(len - p >= 16);
		memcpy(&off, buf + p, 8);
		memcpy(&l, buf + p + 8, 8);
		assert_true(off <= size && l <= size - off && l <= len - p - 16);
		memcpy(img + off, buf + p + 16, l);
		p += 16 + l;
	}
	return img;
}

/* Two threads record while the space is snapshot without stopping: every
 * copied ring must hold intact consecutive tuples ending at its head, and
 * copied + lost must equal that head. */
static void
test_live_snapshot(void **state)
{
	(void)state;
	struct race w[2];
	memset(w, 0, sizeof w);
	pthread_t th[2];
	new_net("s");
	setenv("GROVE_TRACE_SIZE", "1024", 1);
	assert_int_equal(grove_trace_init(net, "be", 0), 0);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(grove_trace_user_register(&w[i].c, "race"), 0);
		assert_int_equal(pthread_create(&th[i], NULL, writer, &w[i]),
		                 0);
	}
	grove_trace_tuple *out = malloc(1024 * sizeof *out);
	assert_non_null(out);
	uint64_t bad = 0, rings = 0, wrapped = 0;
	while (!__atomic_load_n(&w[0].done, __ATOMIC_ACQUIRE) ||
	       !__atomic_load_n(&w[1].done, __ATOMIC_ACQUIRE)) {
		char name[128];
		uint8_t *buf;
		size_t len;
		assert_int_equal(trace_space_snapshot(name, sizeof name, &buf,
		                                      &len, 0), 0);
		char *img = snapshot_image(buf, len);
		struct trace_header *h = (struct trace_header *)img;
		assert_int_equal(h->finished, 1);
		for (uint32_t i = 0; i < h->n_rings; i++) {
			const struct grove_trace_ring_ *r =
				trace_ring_at(img, h, i);
			struct trace_ring_cursor cur = {0};
			size_t n = trace_ring_read(r, h->ring_slots, 1, &cur,
			                           out);
			rings++;
			wrapped += r->head > h->ring_slots;
			if (cur.damaged || cur.copied + cur.lost != r->head ||
			    cur.next != r->head)
				bad++;
			if (n && (check_run(out, n, out[0].collector) ||
			          out[n - 1].seq + 1 != r->head))
				bad++;
		}
		free(img);
		free(buf);
	}
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	free(out);
	assert_int_equal(bad, 0);
	assert_true(wrapped > 0);
	grove_trace_fini(0);
	unsetenv("GROVE_TRACE_SIZE");
}

/* ---- writer process vs reader process ---- */

static void
test_writer_process_reader(void **state)
{
	(void)state;
	int ready[2];
	struct trace_seg_cursor *cur = calloc(1, sizeof *cur);
	struct verify v = {0};
	assert_non_null(cur);
	new_net("p");
	assert_int_equal(pipe(ready), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		grove_trace_collector c;
		char b = 1;
		setenv("GROVE_TRACE_SIZE", "256", 1);
		if (grove_trace_init(net, "be", 0) ||
		    grove_trace_user_register(&c, "race"))
			_exit(1);
		record_n(&c, 1); /* claims the ring before the reader looks */
		if (write(ready[1], &b, 1) != 1)
			_exit(1);
		record_paced(&c, RACE_N - 1);
		grove_trace_fini(1); /* keep: the parent reads it after */
		_exit(0);
	}
	char b;
	assert_int_equal(read(ready[0], &b, 1), 1);
	close(ready[0]);
	close(ready[1]);
	struct trace_seg s;
	open_own(&s);
	v.coll = 1;
	while (!trace_seg_quiescent(&s))
		assert_int_equal(trace_seg_poll(&s, cur, verify_cb, &v), 0);
	assert_int_equal(trace_seg_poll(&s, cur, verify_cb, &v), 0);
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	assert_int_equal(v.bad, 0);
	assert_int_equal(cur->ring[0].next, RACE_N);
	assert_int_equal(cur->ring[0].copied + cur->ring[0].lost, RACE_N);
	/* The last full ring is intact after the writer finished. */
	assert_int_equal(v.expect_next, RACE_N);
	assert_true(trace_seg_quiescent(&s));
	trace_seg_close(&s);
	free(cur);
	assert_int_equal(shm_unlink(segname), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wrap_and_cursor),
		cmocka_unit_test(test_writer_thread_reader),
		cmocka_unit_test(test_writer_process_reader),
		cmocka_unit_test(test_live_snapshot),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Unit tests for the link emulator's arithmetic and delay queue
 * (src/net/emu.c): a serial line of latency L and bandwidth B. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "codec/wire.h"
#include "net/emu.h"

#define MS 1000000ull
#define US 1000ull

static emu_line
line(double latency_s, double bandwidth)
{
	grove_link_params p = {latency_s, bandwidth};
	emu_line l;
	assert_int_equal(emu_line_init(&l, &p), 0);
	return l;
}

/* (send time, bytes) -> due time, for a line of 20 ms and 2 MB/s: a byte
 * takes 500 ns. */
static void
test_schedule_sequence(void **state)
{
	(void)state;
	emu_line l = line(0.020, 2e6);
	static const struct {
		uint64_t now;
		size_t bytes;
		uint64_t due;
	} seq[] = {
		/* idle line: now + n/B + L */
		{0, 2000, 1 * MS + 20 * MS},
		/* sent while the first is on the line: queues behind it */
		{500 * US, 2000, 2 * MS + 20 * MS},
		{500 * US, 1, 2 * MS + 500 + 20 * MS},
		/* after the line went idle: starts at once again */
		{10 * MS, 4000, 12 * MS + 20 * MS},
		/* an empty message still waits for the latency */
		{50 * MS, 0, 70 * MS},
		/* a megabyte: half a second on the line */
		{100 * MS, 1000000, 600 * MS + 20 * MS},
		{100 * MS, 1000000, 1100 * MS + 20 * MS},
	};
	for (size_t i = 0; i < sizeof seq / sizeof seq[0]; i++)
		assert_int_equal(emu_schedule(&l, seq[i].now, seq[i].bytes),
		    seq[i].due);
}

/* A train of n messages sent at once arrives n/B apart: the bandwidth is
 * shared, not per message. */
static void
test_train_shares_bandwidth(void **state)
{
	(void)state;
	emu_line l = line(0.010, 1e6);
	uint64_t prev = 0;
	for (int i = 0; i < 100; i++) {
		uint64_t due = emu_schedule(&l, 5 * MS, 1000);
		assert_int_equal(due, 5 * MS + (uint64_t)(i + 1) * MS + 10 * MS);
		assert_true(due > prev);
		prev = due;
	}
}

static void
test_latency_only_and_bandwidth_only(void **state)
{
	(void)state;
	emu_line l = line(0.005, 0);
	assert_int_equal(emu_schedule(&l, 1 * MS, 1 << 20), 6 * MS);
	assert_int_equal(emu_schedule(&l, 1 * MS, 1 << 20), 6 * MS);
	emu_line b = line(0, 1e9);
	assert_int_equal(emu_schedule(&b, 0, 1000), 1000);
	assert_int_equal(emu_schedule(&b, 0, 1000), 2000);
	assert_int_equal(emu_schedule(&b, 10000, 1), 10001);
}

static void
test_params(void **state)
{
	(void)state;
	emu_line l;
	grove_link_params off = {0, 0}, neg = {-1, 0}, negb = {0, -5};
	grove_link_params inf = {1.0 / 0.0, 0}, nan = {0, 0.0 / 0.0};
	assert_true(emu_params_off(&off));
	assert_true(emu_params_off(NULL));
	assert_false(emu_params_off(&(grove_link_params){0.001, 0}));
	assert_false(emu_params_off(&(grove_link_params){0, 1e6}));
	assert_int_equal(emu_line_init(&l, &off), 0);
	assert_int_not_equal(emu_line_init(&l, &neg), 0);
	assert_int_not_equal(emu_line_init(&l, &negb), 0);
	assert_int_not_equal(emu_line_init(&l, &inf), 0);
	assert_int_not_equal(emu_line_init(&l, &nan), 0);
	assert_int_not_equal(emu_line_init(&l, NULL), 0);
}

static grove_packet *
pkt(int32_t v)
{
	grove_packet *p = NULL;
	assert_int_equal(wire_pack(&p, WIRE_T_DATA, 1, 7, 0, 0, "%d", v), 0);
	return p;
}

/* The queue releases in order and only what is due; it grows past its
 * first allocation and wraps around. */
static void
test_queue(void **state)
{
	(void)state;
	emu_queue q = {0};
	assert_int_equal(emu_queue_next_due(&q), UINT64_MAX);
	assert_null(emu_queue_pop_due(&q, UINT64_MAX - 1));
	size_t one = 0;
	int32_t next_in = 0, next_out = 0;
	for (int round = 0; round < 5; round++) {
		for (int i = 0; i < 50; i++, next_in++) {
			grove_packet *p = pkt(next_in);
			one = grove_packet_size(p);
			assert_int_equal(emu_queue_push(&q, p, (uint64_t)next_in
			    * 10), 0);
		}
		assert_int_equal(q.bytes, (size_t)(next_in - next_out) * one);
		/* Everything due by the middle of this round. */
		uint64_t now = (uint64_t)(next_in - 25) * 10;
		grove_packet *p;
		while ((p = emu_queue_pop_due(&q, now))) {
			int32_t v;
			assert_int_equal(grove_packet_unpack(p, "%d", &v), 0);
			assert_int_equal(v, next_out);
			next_out++;
			grove_packet_unref(p);
		}
		assert_int_equal(next_out, next_in - 25 + 1);
		assert_int_equal(emu_queue_next_due(&q), (uint64_t)next_out * 10);
	}
	emu_queue_fini(&q);
	assert_int_equal(q.bytes, 0);
	assert_int_equal(q.n, 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_schedule_sequence),
		cmocka_unit_test(test_train_shares_bandwidth),
		cmocka_unit_test(test_latency_only_and_bandwidth_only),
		cmocka_unit_test(test_params),
		cmocka_unit_test(test_queue),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* The event scope of grove monitor (src/scope/scope.c) against a live
 * writer in this process: nothing before a poll, each poll reads only
 * what is new, every tuple written is read or counted lost (before the
 * first read apart from while attached), the selection, collectors
 * registered between polls, and a process whose space appears later. */
#define _GNU_SOURCE
#include <setjmp.h>
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
#include "scope/scope.h"
#include "trace/reader.h"

#define SLOTS 64 /* GROVE_TRACE_SIZE of the writers here */

static char net[64];

static void
new_net(void)
{
	static int n;
	snprintf(net, sizeof net, "t%ldxscope%d", (long)getpid(), n++);
}

static int
teardown(void **state)
{
	(void)state;
	char **names;
	size_t n;
	if (trace_list(net, NULL, &names, &n) == 0) {
		for (size_t i = 0; i < n; i++)
			shm_unlink(names[i]);
		trace_list_free(names, n);
	}
	return 0;
}

static void
start_writer(unsigned rank)
{
	setenv("GROVE_TRACE_SIZE", "64", 1);
	assert_int_equal(grove_trace_init(net, "be", rank), 0);
	unsetenv("GROVE_TRACE_SIZE");
}

static void
record(grove_trace_collector *c, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		grove_trace_record(c, GROVE_OP_USER, (int32_t)i, 1000 + i,
		                   2000 + i);
}

/* Tuples ever written into the rings of the scope's process `name`. */
static uint64_t
written(const char *name)
{
	struct trace_seg seg;
	char err[256];
	assert_int_equal(trace_seg_open(name, &seg, err, sizeof err), 0);
	uint64_t sum = 0;
	for (uint32_t i = 0; i < trace_seg_n_rings(&seg); i++) {
		uint64_t h;
		assert_int_equal(trace_seg_ring_head(&seg, i, &h), 0);
		sum += h;
	}
	trace_seg_close(&seg);
	return sum;
}

static void
test_pulls_and_lost(void **state)
{
	(void)state;
	new_net();
	start_writer(0);
	char name[128];
	snprintf(name, sizeof name, "grove.%s.be.0", net);
	grove_trace_collector work;
	assert_int_equal(grove_trace_user_register(&work, "work"), 0);
	record(&work, 10);

	struct mon_analysis *a = mon_analysis_new(NULL);
	assert_non_null(a);
	struct scope s;
	assert_int_equal(scope_init(&s, net, NULL, a), 0);
	/* Nothing is read before the first pull. */
	assert_int_equal(s.read, 0);
	assert_int_equal(scope_procs(&s), 0);

	assert_int_equal(scope_poll(&s), 0);
	assert_int_equal(scope_procs(&s), 1);
	assert_int_equal(s.read, 10);
	assert_int_equal(s.lost + s.lost_before, 0);
	assert_int_equal(scope_running(&s), 1);
	/* A process read for the first time says nothing of rates. */
	assert_true(s.peak_fill == 0);

	/* Only what is new; the busiest ring's share of its slots written
	 * since the last pull paces the next one. */
	record(&work, 5);
	assert_int_equal(scope_poll(&s), 0);
	assert_int_equal(s.read, 15);
	assert_int_equal(s.lost, 0);
	assert_true(s.peak_fill == 5.0 / SLOTS);
	assert_int_equal(scope_poll(&s), 0);
	assert_true(s.peak_fill == 0);

	/* Five rings' worth between two pulls: the ring keeps its newest
	 * slots - 1 (live), the rest is lost while attached, exactly. */
	record(&work, 5 * SLOTS);
	assert_int_equal(scope_poll(&s), 0);
	assert_int_equal(s.read, 15 + SLOTS - 1);
	assert_int_equal(s.lost, 5 * SLOTS - (SLOTS - 1));
	/* Lost tuples count in the fill: the ring wrapped five times. */
	assert_true(s.peak_fill == 5.0);
	assert_int_equal(s.read + s.lost + s.lost_before, written(name));
	assert_int_equal(a->lost, s.lost + s.lost_before);
	assert_int_equal(a->tuples, s.selected);

	/* Nothing new: a pull reads nothing. */
	uint64_t before = s.read;
	assert_int_equal(scope_poll(&s), 0);
	assert_int_equal(s.read, before);

	scope_free(&s);
	mon_analysis_free(a);
	grove_trace_fini(0);
}

static void
test_lost_before_attach_and_selection(void **state)
{
	(void)state;
	new_net();
	start_writer(0);
	char name[128];
	snprintf(name, sizeof name, "grove.%s.be.0", net);
	grove_trace_collector work, other;
	assert_int_equal(grove_trace_user_register(&work, "work"), 0);
	record(&work, 3 * SLOTS); /* wrapped before the scope attaches */

	struct mon_analysis *a = mon_analysis_new(NULL);
	assert_non_null(a);
	struct scope s;
	struct scope_select sel = {NULL, "work", -1, 0};
	assert_int_equal(scope_init(&s, net, &sel, a), 0);
	assert_int_equal(scope_poll(&s), 0);
	assert_int_equal(s.read, SLOTS - 1);
	assert_int_equal(s.lost_before, 3 * SLOTS - (SLOTS - 1));
	assert_int_equal(s.lost, 0);
	assert_int_equal(s.selected, s.read);

	/* A collector registered between two pulls, not selected. */
	assert_int_equal(grove_trace_user_register(&other, "other"), 0);
	record(&other, 7);
	record(&work, 4);
	assert_int_equal(scope_poll(&s), 0);
	assert_int_equal(s.read, SLOTS - 1 + 11);
	assert_int_equal(s.selected, SLOTS - 1 + 4);
	assert_int_equal(s.read + s.lost + s.lost_before, written(name));

	/* Selection by op: none of these is a send. */
	struct scope s2;
	struct mon_analysis *a2 = mon_analysis_new(NULL);
	assert_non_null(a2);
	sel = (struct scope_select){NULL, NULL, scope_op_parse("send"), 0};
	assert_true(sel.op > 0);
	assert_int_equal(scope_init(&s2, net, &sel, a2), 0);
	assert_int_equal(scope_poll(&s2), 0);
	assert_true(s2.read > 0);
	assert_int_equal(s2.selected, 0);
	assert_int_equal(scope_op_parse("no-such-op"), -1);

	scope_free(&s2);
	mon_analysis_free(a2);
	scope_free(&s);
	mon_analysis_free(a);
	grove_trace_fini(0);
}

/* A finished space be.<rank> of n tuples, written by a child process (a
 * process has one event space: this one's stays closed). */
static void
child_writes(unsigned rank, unsigned n)
{
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		setenv("GROVE_TRACE_SIZE", "64", 1);
		grove_trace_collector c;
		if (grove_trace_init(net, "be", rank) != 0 ||
		    grove_trace_user_register(&c, "late") != 0)
			_exit(1);
		record(&c, n);
		grove_trace_fini(1);
		_exit(0);
	}
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/* A process whose space appears after the first pull is read from the
 * next; finished ones are not running, and read whole. */
static void
test_late_process(void **state)
{
	(void)state;
	new_net();
	child_writes(0, 5);
	struct mon_analysis *a = mon_analysis_new(NULL);
	assert_non_null(a);
	struct scope s;
	assert_int_equal(scope_init(&s, net, NULL, a), 0);
	assert_int_equal(scope_poll(&s), 0);
	assert_int_equal(scope_procs(&s), 1);
	assert_int_equal(s.read, 5);

	child_writes(1, 12);
	assert_int_equal(scope_poll(&s), 0);
	assert_int_equal(scope_procs(&s), 2);
	assert_int_equal(s.read, 17);
	assert_int_equal(s.lost + s.lost_before, 0);
	assert_int_equal(scope_running(&s), 0);

	scope_free(&s);
	mon_analysis_free(a);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_pulls_and_lost, teardown),
		cmocka_unit_test_teardown(test_lost_before_attach_and_selection,
		                          teardown),
		cmocka_unit_test_teardown(test_late_process, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

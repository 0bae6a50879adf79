/* Unit tests for node_child_launch_timeout (src/tbon/node_launch.c): every
 * level of CPs gets a positive launch window shorter than its parent's, so
 * the deepest CP that sees a child missing times out first.  And for
 * node_parent_name_for: the name a child is told to reach its parent at. */
#define _GNU_SOURCE /* node.h takes in uv.h, which needs the POSIX types */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <netdb.h>

#include <cmocka.h>

#include "tbon/node.h"

static void
test_default_levels(void **state)
{
	(void)state;
	/* 30 s: the margin is capped at 5 s, then a quarter. */
	assert_int_equal(node_child_launch_timeout(30000), 25000);
	assert_int_equal(node_child_launch_timeout(25000), 20000);
	assert_int_equal(node_child_launch_timeout(20000), 15000);
	assert_int_equal(node_child_launch_timeout(15000), 11250);
	assert_int_equal(node_child_launch_timeout(1500), 1125);
	assert_int_equal(node_child_launch_timeout(1125), 844);
}

static void
test_always_positive_and_shorter(void **state)
{
	(void)state;
	assert_int_equal(node_child_launch_timeout(0), 1);
	assert_int_equal(node_child_launch_timeout(-5), 1);
	assert_int_equal(node_child_launch_timeout(1), 1);
	for (int t = 2; t <= 100000; t++) {
		int c = node_child_launch_timeout(t);
		if (c < 1 || c > t)
			fail_msg("timeout %d: child gets %d", t, c);
		if (t >= 4 && c >= t)
			fail_msg("timeout %d: child gets no less (%d)", t, c);
	}
	/* A deep tree with a short timeout: every level keeps a window. */
	int t = 100;
	for (int level = 0; level < 64; level++) {
		t = node_child_launch_timeout(t);
		assert_true(t >= 1);
	}
	/* INT_MAX-sized timeouts do not overflow. */
	assert_int_equal(node_child_launch_timeout(2147483647),
	    2147483647 - 5000);
}

static void
test_parent_name(void **state)
{
	(void)state;
	static node n;
	char out[256];
	snprintf(n.bind_addr, sizeof n.bind_addr, "10.1.2.3");
	node_parent_name_for(&n, "localhost", "far-a.example.org", out,
	    sizeof out);
	assert_string_equal(out, "10.1.2.3");
	snprintf(n.bind_addr, sizeof n.bind_addr, "0.0.0.0");
	node_parent_name_for(&n, "node7", "far-a.example.org", out, sizeof out);
	assert_string_equal(out, "node7");
	/* A local child may use the loopback name. */
	node_parent_name_for(&n, "localhost", "localhost", out, sizeof out);
	assert_string_equal(out, "localhost");
	/* A child on another host gets this machine's name, if it resolves. */
	char self[256] = "";
	struct addrinfo *ai = NULL;
	if (gethostname(self, sizeof self - 1) != 0 ||
	    getaddrinfo(self, NULL, NULL, &ai) != 0)
		skip();
	freeaddrinfo(ai);
	node_parent_name_for(&n, "localhost", "far-a.example.org", out,
	    sizeof out);
	assert_string_equal(out, self);
	node_parent_name_for(&n, "127.0.0.1", "far-a.example.org", out,
	    sizeof out);
	assert_string_equal(out, self);
	/* Attaching back-ends may come from anywhere. */
	node_parent_name_for(&n, "localhost", NULL, out, sizeof out);
	assert_string_equal(out, self);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_default_levels),
	    cmocka_unit_test(test_always_positive_and_shorter),
	    cmocka_unit_test(test_parent_name),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

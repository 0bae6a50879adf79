/* Unit tests for the bootstrap text (src/net/boot.c): the byte-counted
 * topology and cluster map blocks survive a round trip (and a remote
 * shell setting with options), reach back-ends
 * (cluster map) or not (topology), and bad lengths are errors; the
 * first line's protocol version is checked before anything else. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "codec/wire.h"
#include "grove/error.h"
#include "net/boot.h"

static const char *map_text =
    "# Grove cluster map\nwan latency 10ms bandwidth 1MB/s\n"
    "cluster 0 nodes 0-1\ncluster 1 nodes 2\nend\n"; /* "end" inside */

static void
fill(boot *b)
{
	boot_init(b);
	snprintf(b->secret_hex, sizeof b->secret_hex, "%064d", 7);
	snprintf(b->netid, sizeof b->netid, "abc");
	snprintf(b->parent_host, sizeof b->parent_host, "127.0.0.1");
	b->parent_port = 4711;
	b->node = 2;
	/* A CP starts its remote children with the FE's words. */
	snprintf(b->rsh, sizeof b->rsh, "ssh -o BatchMode=yes\t-x");
	b->topology = strdup("localhost:0 => localhost:1 ;\n"
	    "localhost:1 => localhost:2 ;\n");
	b->clusters = strdup(map_text);
	assert_non_null(b->topology);
	assert_non_null(b->clusters);
}

static void
test_round_trip(void **state)
{
	(void)state;
	boot b, c;
	fill(&b);
	for (int with_topology = 0; with_topology < 2; with_topology++) {
		char *text = NULL, err[256];
		size_t len = 0;
		assert_int_equal(boot_write(&b, with_topology, &text, &len), 0);
		boot_init(&c);
		int rc = boot_parse(text, len, &c, err, sizeof err);
		if (rc != 0)
			fail_msg("%s", err);
		assert_non_null(c.clusters);
		assert_string_equal(c.clusters, map_text);
		if (with_topology)
			assert_string_equal(c.topology, b.topology);
		else
			assert_null(c.topology);
		assert_int_equal(c.node, 2);
		assert_string_equal(c.rsh, b.rsh);
		boot_fini(&c);
		free(text);
	}
	/* Without a map there is no block. */
	free(b.clusters);
	b.clusters = NULL;
	char *text = NULL, err[256];
	size_t len = 0;
	assert_int_equal(boot_write(&b, 1, &text, &len), 0);
	assert_null(strstr(text, "clusters"));
	boot_init(&c);
	assert_int_equal(boot_parse(text, len, &c, err, sizeof err), 0);
	assert_null(c.clusters);
	boot_fini(&c);
	free(text);
	boot_fini(&b);
}

static void
test_bad_block_length(void **state)
{
	(void)state;
	static const char *bad[] = {
		"secret ab\nparent h 1\nclusters 999\nx\nend\n",
		"secret ab\nparent h 1\nclusters x\nend\n",
		"secret ab\nparent h 1\nclusters \nend\n",
		"secret ab\nparent h 1\nclusters -1\nend\n",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		boot c;
		char err[256] = "", buf[256];
		int n = snprintf(buf, sizeof buf, "grove-bootstrap protocol %u\n%s",
		    GROVE_PROTOCOL, bad[i]);
		boot_init(&c);
		int rc = boot_parse(buf, (size_t)n, &c, err, sizeof err);
		if (rc == 0)
			fail_msg("accepted: %s", bad[i]);
		assert_int_equal(rc, GROVE_EPROTO);
		assert_non_null(strstr(err, "line 4: clusters block length"));
		boot_fini(&c);
	}
}

/* The link a local parent hands over, the network's choice of it, and
 * the parent's answer about the TSC. */
static void
test_local_link(void **state)
{
	(void)state;
	boot b, c;
	fill(&b);
	b.parent_rfd = 5;
	b.parent_wfd = 9;
	b.local_link_socket = 1;
	b.tsc_invariant = 1;
	b.cp_sched_batch = 1;
	b.cpu_bind_subtree = 1;
	b.trace_keep = 1;
	char *text = NULL, err[256];
	size_t len = 0;
	assert_int_equal(boot_write(&b, 0, &text, &len), 0);
	boot_init(&c);
	assert_int_equal(c.parent_rfd, -1);
	assert_int_equal(c.local_link_socket, 0);
	assert_int_equal(c.tsc_invariant, -1);
	assert_int_equal(c.trace_keep, 0);
	if (boot_parse(text, len, &c, err, sizeof err) != 0)
		fail_msg("%s", err);
	assert_int_equal(c.parent_rfd, 5);
	assert_int_equal(c.parent_wfd, 9);
	assert_int_equal(c.local_link_socket, 1);
	assert_int_equal(c.tsc_invariant, 1);
	assert_int_equal(c.cp_sched_batch, 1);
	assert_int_equal(c.cpu_bind_subtree, 1);
	assert_int_equal(c.trace_keep, 1);
	boot_fini(&c);
	free(text);
	boot_fini(&b);

	/* Standard streams, one descriptor for both ends, junk: refused
	 * with the line named. */
	static const char *bad[] = {
		"parent-fds 1 4", "parent-fds 4 2", "parent-fds 5 5",
		"parent-fds 5", "parent-fds 5 6 7", "parent-fds x 6",
		"local-link tcp", "local-link", "tsc-invariant 2",
		"tsc-invariant", "tsc-invariant 1x", "cp-sched fifo", "cpu-bind core",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char buf[256];
		int n = snprintf(buf, sizeof buf, "grove-bootstrap protocol %u\n"
		    "secret ab\nparent h 1\n%s\nend\n", GROVE_PROTOCOL, bad[i]);
		boot_init(&c);
		err[0] = 0;
		int rc = boot_parse(buf, (size_t)n, &c, err, sizeof err);
		if (rc == 0)
			fail_msg("accepted: %s", bad[i]);
		assert_int_equal(rc, GROVE_EPROTO);
		assert_non_null(strstr(err, "line 4"));
		boot_fini(&c);
	}
}

/* The first line names the parent's protocol.  Another one is refused
 * before any other line is read (they may mean something else in it),
 * naming both versions and this program; a text without the line is not
 * a bootstrap. */
static void
test_protocol(void **state)
{
	(void)state;
	boot b, c;
	fill(&b);
	char *text = NULL, err[512], want[64];
	size_t len = 0;
	assert_int_equal(boot_write(&b, 1, &text, &len), 0);
	snprintf(want, sizeof want, "grove-bootstrap protocol %u\n",
	    GROVE_PROTOCOL);
	assert_memory_equal(text, want, strlen(want));
	boot_init(&c);
	assert_int_equal(boot_parse(text, len, &c, err, sizeof err), 0);
	assert_int_equal(c.protocol, GROVE_PROTOCOL);
	boot_fini(&c);
	free(text);
	boot_fini(&b);

	/* A Grove from before the number (protocol 1), and a later one:
	 * the lines after would be refused too, but the version comes
	 * first. */
	static const struct {
		const char *text;
		uint32_t protocol;
	} other[] = {
		{"grove-bootstrap 1\nsecret ab\nparent h 1\nend\n", 1},
		{"grove-bootstrap protocol 1\nsecret ab\nparent h 1\nend\n", 1},
		{"grove-bootstrap protocol 77\nnew-key 1\n", 77},
	};
	for (size_t i = 0; i < sizeof other / sizeof other[0]; i++) {
		boot_init(&c);
		err[0] = 0;
		assert_int_equal(boot_parse(other[i].text, strlen(other[i].text),
		    &c, err, sizeof err), GROVE_EPROTO);
		assert_int_equal(c.protocol, other[i].protocol);
		char head[64], tail[128];
		snprintf(head, sizeof head, "the parent speaks Grove protocol "
		    "%u, this /", other[i].protocol);
		snprintf(tail, sizeof tail, "/test_boot speaks %u: install the "
		    "same Grove version on every host", GROVE_PROTOCOL);
		if (strncmp(err, head, strlen(head)) || strlen(err) < strlen(tail) ||
		    strcmp(err + strlen(err) - strlen(tail), tail))
			fail_msg("case %zu: '%s'", i, err);
		boot_fini(&c);
	}

	/* No protocol line at all, or not a number: not a bootstrap. */
	static const char *bad[] = {
		"secret ab\nparent h 1\nend\n",
		"grove-bootstrap\nsecret ab\nparent h 1\nend\n",
		"grove-bootstrap 2\nsecret ab\nparent h 1\nend\n",
		"grove-bootstrap protocol\nsecret ab\nparent h 1\nend\n",
		"grove-bootstrap protocol 0\nsecret ab\nparent h 1\nend\n",
		"grove-bootstrap protocol -2\nsecret ab\nparent h 1\nend\n",
		"grove-bootstrap protocol 2x\nsecret ab\nparent h 1\nend\n",
		"grove-bootstrap protocol 99999999999\nend\n",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		boot_init(&c);
		err[0] = 0;
		assert_int_equal(boot_parse(bad[i], strlen(bad[i]), &c, err,
		    sizeof err), GROVE_ENOENT);
		assert_int_equal(c.protocol, 0);
		assert_string_equal(err, "bootstrap line 1: not a Grove bootstrap "
		    "(was this program started by Grove?)");
		boot_fini(&c);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_bad_block_length),
		cmocka_unit_test(test_local_link),
		cmocka_unit_test(test_protocol),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

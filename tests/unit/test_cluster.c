/* Unit tests for cluster maps (src/topo/cluster.c): the text format, its
 * errors, the programmatic builder and the lookups. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "grove/cluster.h"
#include "topo/quantity.h"

static const char *good =
    "# Grove cluster map\n"
    "wan latency 10ms bandwidth 1MB/s\n"
    "lan latency 0 bandwidth 0        # not emulated\n"
    "cluster 0 nodes 0-16\n"
    "\n"
    "   cluster 1 nodes 17-33,40 41-42\n"
    "cluster 0 nodes 50\n";

static void
test_parse_good(void **state)
{
	(void)state;
	char err[256];
	grove_cluster_map *m = NULL;
	assert_int_equal(grove_cluster_map_parse_string(good, &m, err,
	    sizeof err), 0);
	assert_int_equal(grove_cluster_map_cluster_of(m, 0), 0);
	assert_int_equal(grove_cluster_map_cluster_of(m, 16), 0);
	assert_int_equal(grove_cluster_map_cluster_of(m, 17), 1);
	assert_int_equal(grove_cluster_map_cluster_of(m, 33), 1);
	assert_int_equal(grove_cluster_map_cluster_of(m, 34), -1);
	assert_int_equal(grove_cluster_map_cluster_of(m, 40), 1);
	assert_int_equal(grove_cluster_map_cluster_of(m, 42), 1);
	assert_int_equal(grove_cluster_map_cluster_of(m, 43), -1);
	assert_int_equal(grove_cluster_map_cluster_of(m, 50), 0);
	assert_int_equal(grove_cluster_map_max_node(m), 50);

	grove_link_params p;
	assert_int_equal(grove_cluster_map_link(m, 3, 20, &p), GROVE_LINK_WAN);
	assert_true(p.latency_s > 0.00999999 && p.latency_s < 0.01000001);
	assert_true(p.bandwidth_Bps == 1e6);
	assert_int_equal(grove_cluster_map_link(m, 20, 3, &p), GROVE_LINK_WAN);
	assert_int_equal(grove_cluster_map_link(m, 3, 50, &p), GROVE_LINK_LAN);
	assert_true(p.latency_s == 0 && p.bandwidth_Bps == 0);
	assert_int_equal(grove_cluster_map_link(m, 3, 34, &p), GROVE_LINK_NONE);
	assert_true(p.latency_s == 0 && p.bandwidth_Bps == 0);
	grove_cluster_map_destroy(m);
}

static void
test_units(void **state)
{
	(void)state;
	static const struct {
		const char *line;
		double lat, bw;
	} cases[] = {
		{"wan latency 1s bandwidth 1B/s", 1, 1},
		{"wan latency 2.5ms bandwidth 3KB/s", 0.0025, 3000},
		{"wan latency 7us bandwidth 1.5GB/s", 7e-6, 1.5e9},
		{"wan latency 40ns bandwidth 2KiB/s", 40e-9, 2048},
		{"wan bandwidth 1MiB/s latency 1ms", 0.001, 1048576},
		{"wan latency 0 bandwidth 1GiB/s", 0, 1073741824.0},
		{"wan latency 1e-3s bandwidth 8Mbit/s", 0.001, 1e6},
		{"wan latency 1ms bandwidth 8bit/s", 0.001, 1},
		{"wan latency 1ms bandwidth 8kbit/s", 0.001, 1000},
		{"wan latency 1ms bandwidth 8Gbit/s", 0.001, 1e9},
		{"wan latency 3ms", 0.003, 0},
		{"wan bandwidth 5MB/s", 0, 5e6},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char text[256], err[256];
		snprintf(text, sizeof text, "%s\ncluster 0 nodes 0\n"
		    "cluster 1 nodes 1\n", cases[i].line);
		grove_cluster_map *m = NULL;
		int rc = grove_cluster_map_parse_string(text, &m, err, sizeof err);
		if (rc != 0)
			fail_msg("'%s': %s", cases[i].line, err);
		grove_link_params p;
		assert_int_equal(grove_cluster_map_link(m, 0, 1, &p),
		    GROVE_LINK_WAN);
		if (p.latency_s < cases[i].lat * (1 - 1e-12) ||
		    p.latency_s > cases[i].lat * (1 + 1e-12) ||
		    p.bandwidth_Bps < cases[i].bw * (1 - 1e-12) ||
		    p.bandwidth_Bps > cases[i].bw * (1 + 1e-12))
			fail_msg("'%s': latency %g bandwidth %g", cases[i].line,
			    p.latency_s, p.bandwidth_Bps);
		grove_cluster_map_destroy(m);
	}
}

/* One quantity at a time, as a tool's option: the map's units, and
 * nothing around them ('#' and spaces end a word only in a map). */
static void
test_quantities(void **state)
{
	(void)state;
	static const struct {
		const char *s;
		double v;
	} lat[] = {
		{"10ms", 0.01}, {"1s", 1}, {"7us", 7e-6}, {"40ns", 40e-9},
		{"0", 0}, {"2.5ms", 0.0025}, {"1e-3s", 0.001},
	}, bw[] = {
		{"1MB/s", 1e6}, {"2KiB/s", 2048}, {"8Mbit/s", 1e6}, {"0", 0},
		{"1.5GB/s", 1.5e9},
	};
	static const char *const bad_lat[] = {
		"10ms #", "10ms#", "10ms bandwidth 5MB/s", " 10ms", "10ms ",
		"10 ms", "10", "-1ms", "infms", "nan", "0x10ms", "", "ms",
		"10ms\n", "1MB/s",
	};
	static const char *const bad_bw[] = {
		"1MB/s #", "1MB/s#", "1 MB/s", "1MB", "-1MB/s", "5", "10ms", "",
	};
	double v;

	for (size_t i = 0; i < sizeof lat / sizeof lat[0]; i++) {
		assert_int_equal(cluster_parse_duration(lat[i].s, &v), 0);
		assert_true(v >= lat[i].v * (1 - 1e-12) &&
		    v <= lat[i].v * (1 + 1e-12));
	}
	for (size_t i = 0; i < sizeof bw / sizeof bw[0]; i++) {
		assert_int_equal(cluster_parse_rate(bw[i].s, &v), 0);
		assert_true(v >= bw[i].v * (1 - 1e-12) &&
		    v <= bw[i].v * (1 + 1e-12));
	}
	for (size_t i = 0; i < sizeof bad_lat / sizeof bad_lat[0]; i++) {
		v = 42;
		if (cluster_parse_duration(bad_lat[i], &v) != GROVE_EINVAL)
			fail_msg("duration '%s' accepted", bad_lat[i]);
		assert_true(v == 42);
	}
	for (size_t i = 0; i < sizeof bad_bw / sizeof bad_bw[0]; i++) {
		v = 42;
		if (cluster_parse_rate(bad_bw[i], &v) != GROVE_EINVAL)
			fail_msg("rate '%s' accepted", bad_bw[i]);
		assert_true(v == 42);
	}
	assert_int_equal(cluster_parse_duration(NULL, &v), GROVE_EINVAL);
	assert_int_equal(cluster_parse_rate("1MB/s", NULL), GROVE_EINVAL);
}

/* Every bad input fails with a message naming its line. */
static void
test_parse_errors(void **state)
{
	(void)state;
	static const struct {
		const char *text;
		const char *msg;
	} cases[] = {
		{"wan latency 10 bandwidth 1MB/s\n", "line 1: bad latency '10'"},
		{"wan latency 10ms bandwidth 1\n", "line 1: bad bandwidth '1'"},
		{"wan latency -1ms\n", "line 1: bad latency"},
		{"wan latency 1ms bandwidth 1MB\n", "line 1: bad bandwidth"},
		{"wan latency inf\n", "line 1: bad latency"},
		{"wan latency nans\n", "line 1: bad latency"},
		{"wan latency 0x10ms\n", "line 1: bad latency"},
		{"wan latency 1e999s\n", "line 1: bad latency"},
		{"wan latency\n", "line 1: expected 'wan latency"},
		{"wan\n", "line 1: expected 'wan latency"},
		{"lan latency 1ms latency 2ms\n", "line 1: unexpected 'latency'"},
		{"lan speed 1ms\n", "line 1: unexpected 'speed'"},
		{"\n\nwan latency 1ms\nwan latency 2ms\n",
		    "line 4: 'wan' given twice (first at line 3)"},
		{"cluster 0 nodes 0-3\ncluster 1 nodes 3-5\n",
		    "line 2: node 3 is already in cluster 0 (line 1)"},
		{"cluster 0 nodes 5-9\ncluster 1 nodes 0-20\n",
		    "line 2: node 5 is already in cluster 0 (line 1)"},
		{"cluster 0 nodes 1,1\n",
		    "line 1: node 1 is already in cluster 0 (line 1)"},
		{"cluster 0 nodes 5-3\n", "line 1: node range 5-3 is empty"},
		{"cluster 0 nodes x\n", "line 1: bad node range at 'x'"},
		{"cluster 0 nodes 1-\n", "line 1: bad node range at '1-'"},
		{"cluster 0 nodes 1,,2\n", "line 1: bad node range at ',2'"},
		{"cluster 0 nodes -1\n", "line 1: bad node range at '-1'"},
		{"cluster 0 nodes 4294967296\n", "line 1: bad node range"},
		{"cluster x nodes 1\n", "line 1: bad cluster id 'x'"},
		{"cluster 0 node 1\n", "line 1: expected 'cluster ID nodes"},
		{"cluster 0 nodes\n", "line 1: expected 'cluster ID nodes"},
		{"clusters 0 nodes 1\n", "line 1: unknown statement 'clusters'"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char err[256] = "";
		grove_cluster_map *m = (grove_cluster_map *)&err; /* poison */
		int rc = grove_cluster_map_parse_string(cases[i].text, &m, err,
		    sizeof err);
		if (rc == 0)
			fail_msg("accepted: %s", cases[i].text);
		assert_null(m);
		if (strncmp(err, cases[i].msg, strlen(cases[i].msg)))
			fail_msg("'%s': message '%s', expected '%s...'",
			    cases[i].text, err, cases[i].msg);
	}
}

/* Built in code, printed, parsed back: the same map. */
static void
test_build_and_round_trip(void **state)
{
	(void)state;
	grove_cluster_map *m = NULL, *b = NULL;
	assert_int_equal(grove_cluster_map_new(&m), 0);
	grove_link_params wan = {0.0123456789, 1234567.891}, lan = {20e-6, 5e7};
	assert_int_equal(grove_cluster_map_set_link(m, GROVE_LINK_WAN, &wan), 0);
	assert_int_equal(grove_cluster_map_set_link(m, GROVE_LINK_LAN, &lan), 0);
	grove_link_params bad = {-1, 0};
	assert_int_equal(grove_cluster_map_set_link(m, GROVE_LINK_WAN, &bad),
	    GROVE_EINVAL);
	assert_int_equal(grove_cluster_map_set_link(m, GROVE_LINK_NONE, &lan),
	    GROVE_EINVAL);
	/* Added out of order. */
	assert_int_equal(grove_cluster_map_add_range(m, 2, 100, 199), 0);
	assert_int_equal(grove_cluster_map_add_range(m, 0, 0, 49), 0);
	assert_int_equal(grove_cluster_map_add_range(m, 1, 50, 99), 0);
	assert_int_equal(grove_cluster_map_add_range(m, 1, 99, 100),
	    GROVE_EINVAL);
	assert_int_equal(grove_cluster_map_add_range(m, 1, 10, 5), GROVE_EINVAL);
	assert_int_equal(grove_cluster_map_add_range(m, 3, UINT32_MAX,
	    UINT32_MAX), 0);
	char *text = NULL;
	assert_int_equal(grove_cluster_map_to_string(m, &text), 0);
	char err[256];
	int rc = grove_cluster_map_parse_string(text, &b, err, sizeof err);
	if (rc != 0)
		fail_msg("%s\n%s", err, text);
	for (uint32_t node = 0; node < 220; node++)
		assert_int_equal(grove_cluster_map_cluster_of(m, node),
		    grove_cluster_map_cluster_of(b, node));
	assert_int_equal(grove_cluster_map_cluster_of(b, UINT32_MAX), 3);
	grove_link_params p, q;
	assert_int_equal(grove_cluster_map_link(b, 10, 150, &p), GROVE_LINK_WAN);
	assert_true(p.latency_s == wan.latency_s);
	assert_true(p.bandwidth_Bps == wan.bandwidth_Bps);
	assert_int_equal(grove_cluster_map_link(b, 60, 70, &q), GROVE_LINK_LAN);
	assert_true(q.latency_s == lan.latency_s);
	assert_true(q.bandwidth_Bps == lan.bandwidth_Bps);
	free(text);
	grove_cluster_map_destroy(m);
	grove_cluster_map_destroy(b);
	assert_int_equal(grove_cluster_map_cluster_of(NULL, 1), -1);
	assert_int_equal(grove_cluster_map_max_node(NULL), -1);
}

/* -0 and subnormal values are stored as 0: printed as they were, they
 * would not parse back. */
static void
test_tiny_values_round_trip(void **state)
{
	(void)state;
	const grove_link_params cases[] = {
		{-0.0, 0}, {1e-310, 0}, {0, 4.9e-324}, {-0.0, -0.0},
		{2.2250738585072014e-308, 1e-320},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		grove_cluster_map *m = NULL, *b = NULL;
		assert_int_equal(grove_cluster_map_new(&m), 0);
		assert_int_equal(grove_cluster_map_set_link(m, GROVE_LINK_WAN,
		    &cases[i]), 0);
		assert_int_equal(grove_cluster_map_add_range(m, 0, 0, 3), 0);
		assert_int_equal(grove_cluster_map_add_range(m, 1, 4, 7), 0);
		char *text = NULL;
		assert_int_equal(grove_cluster_map_to_string(m, &text), 0);
		char err[256];
		int rc = grove_cluster_map_parse_string(text, &b, err,
		    sizeof err);
		if (rc != 0)
			fail_msg("case %zu: %s\n%s", i, err, text);
		grove_link_params p;
		assert_int_equal(grove_cluster_map_link(b, 0, 5, &p),
		    GROVE_LINK_WAN);
		/* The smallest normal double is kept as it is. */
		double lat = i == 4 ? cases[i].latency_s : 0;
		assert_true(p.latency_s == lat && !signbit(p.latency_s));
		assert_true(p.bandwidth_Bps == 0 && !signbit(p.bandwidth_Bps));
		free(text);
		grove_cluster_map_destroy(m);
		grove_cluster_map_destroy(b);
	}
}

static void
test_parse_file(void **state)
{
	(void)state;
	char path[] = "/tmp/grove-cluster-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	const char *text = "wan latency 1ms\ncluster 0 nodes 0\ncluster 0 "
	    "nodes 0\n";
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	char err[512], want[600];
	grove_cluster_map *m = NULL;
	assert_int_equal(grove_cluster_map_parse_file(path, &m, err, sizeof err),
	    GROVE_ETOPO);
	snprintf(want, sizeof want, "%s:3: node 0 is already in cluster 0 "
	    "(line 2)", path);
	assert_string_equal(err, want);
	unlink(path);
	assert_int_equal(grove_cluster_map_parse_file(path, &m, err, sizeof err),
	    GROVE_ENOENT);
	assert_non_null(strstr(err, path));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_good),
		cmocka_unit_test(test_units),
		cmocka_unit_test(test_quantities),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_build_and_round_trip),
		cmocka_unit_test(test_tiny_values_round_trip),
		cmocka_unit_test(test_parse_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

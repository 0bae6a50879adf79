/* Grove MPI cluster maps (src/mpi/cluster_map.c): the GROVE_MPI_CLUSTERS
 * and GROVE_MPI_WAN parsers with their error messages, clusters from
 * host names (the cards' are tested in test_mpi_card.c), and the layout
 * of hierarchical collectives (leaders, members, who leads). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "mpi/cluster_map.h"

static void
assert_map(const char *spec, int size, int nc, const int *want)
{
	int cl[64], n = -1;
	char why[200] = "";
	int rc = mpi_cluster_parse(spec, size, cl, &n, why, sizeof why);
	if (rc)
		fail_msg("'%s': %s", spec, why);
	assert_int_equal(n, nc);
	for (int r = 0; r < size; r++)
		assert_int_equal(cl[r], want[r]);
}

static void
assert_bad(const char *spec, int size, const char *says)
{
	int cl[64], n = -1;
	char why[200] = "";
	assert_int_equal(mpi_cluster_parse(spec, size, cl, &n, why, sizeof why),
	                 -1);
	if (!strstr(why, says))
		fail_msg("'%s': got '%s', want '%s'", spec, why, says);
}

static void
test_parse_ranges(void **state)
{
	(void)state;
	assert_map("0-3,4-7", 8, 2, (int[]){0, 0, 0, 0, 1, 1, 1, 1});
	assert_map("0+2+4+6,1-1+3+5-5+7", 8, 2, (int[]){0, 1, 0, 1, 0, 1, 0, 1});
	assert_map(" 0 - 2 , 3 , 4+6,5+7", 8, 4, (int[]){0, 0, 0, 1, 2, 3, 2, 3});
	assert_map("2,0-1", 3, 2, (int[]){1, 1, 0});
	assert_map("0", 1, 1, (int[]){0});
}

static void
test_parse_blocks(void **state)
{
	(void)state;
	assert_map("4x2", 8, 4, (int[]){0, 0, 1, 1, 2, 2, 3, 3});
	assert_map("1x3", 3, 1, (int[]){0, 0, 0});
	assert_map("3X1", 3, 3, (int[]){0, 1, 2});
	assert_bad("4x2", 6, "makes 4 clusters of 2 ranks = 8 ranks, but the "
	           "job has 6");
	assert_bad("4x", 8, "at the end: expected the ranks per cluster");
	assert_bad("4xy", 8, "at character 3 ('y'): expected the ranks per");
	assert_bad("4x2z", 8, "at character 4 ('z'): unexpected text");
	assert_bad("0x2", 0, "a job of 0 ranks");
	assert_bad("0x2", 4, "at least 1");
}

static void
test_parse_errors(void **state)
{
	(void)state;
	assert_bad("", 4, "empty");
	assert_bad("   ", 4, "empty");
	assert_bad("0-1,2", 4, "rank 3 is in no cluster");
	assert_bad("0-1,1-3", 4, "rank 1 is in cluster 0 and in cluster 1");
	assert_bad("0-4", 4, "cluster 0: rank 4 is not in the job (ranks 0-3)");
	assert_bad("0-1,3-2", 4, "cluster 1: range 3-2 goes down");
	assert_bad("0-1;2-3", 4, "at character 4 (';'): expected ','");
	assert_bad("0-1,,2-3", 4, "at character 5 (','): expected a rank");
	assert_bad("0-1,", 4, "at the end: expected a rank");
	assert_bad("a", 4, "at character 1 ('a'): expected a rank");
	assert_bad("0-,1", 2, "at character 3 (','): expected the last rank");
	assert_bad("99999999999", 4, "below 2^31");
	int cl[4], n;
	assert_int_equal(mpi_cluster_parse(NULL, 4, cl, &n, NULL, 0), -1);
}

static void
test_hosts(void **state)
{
	(void)state;
	const char *hosts[] = {"b", "a", "b", "c", "a"};
	int cl[5], n = 0;
	mpi_cluster_from_hosts(hosts, 5, cl, &n);
	assert_int_equal(n, 3);
	int want[] = {0, 1, 0, 2, 1};
	for (int r = 0; r < 5; r++)
		assert_int_equal(cl[r], want[r]);
}

static void
test_wan(void **state)
{
	(void)state;
	double lat = 0, bw = 0;
	char why[200];
	assert_int_equal(mpi_wan_parse("10ms,1MB/s", &lat, &bw, why, sizeof why),
	                 0);
	assert_true(lat == 10000 && bw == 1e6);
	assert_int_equal(mpi_wan_parse("250us, 2.5GB/s", &lat, &bw, why,
	                               sizeof why), 0);
	assert_true(lat == 250 && bw == 2.5e9);
	assert_int_equal(mpi_wan_parse("1s,100KB/s", &lat, &bw, why, sizeof why),
	                 0);
	assert_true(lat == 1e6 && bw == 1e5);
	assert_int_equal(mpi_wan_parse("10ms", &lat, &bw, why, sizeof why), -1);
	assert_non_null(strstr(why, "expected '<latency>,<bandwidth>'"));
	assert_int_equal(mpi_wan_parse("10,1MB/s", &lat, &bw, why, sizeof why),
	                 -1);
	assert_non_null(strstr(why, "latency '10': expected a unit"));
	assert_int_equal(mpi_wan_parse("-1ms,1MB/s", &lat, &bw, why, sizeof why),
	                 -1);
	assert_non_null(strstr(why, "expected a positive number"));
	assert_int_equal(mpi_wan_parse("1ms,1Mb/s", &lat, &bw, why, sizeof why),
	                 -1);
	assert_non_null(strstr(why, "bandwidth '1Mb/s' (at character 5)"));
	assert_int_equal(mpi_wan_parse("1ms,0MB/s", &lat, &bw, why, sizeof why),
	                 -1);
}

static void
test_layout(void **state)
{
	(void)state;
	/* Clusters {0,1,2} {3} {4,6} {5,7}. */
	int cl[] = {0, 0, 0, 1, 2, 3, 2, 3};
	int L[8], M[8];
	struct mpi_hier_layout h = {.leaders = L, .members = M};
	assert_int_equal(mpi_cluster_count(cl, 8), 4);

	/* Root 6: its cluster first, led by 6; then 0, 3, 5. */
	mpi_hier_layout(cl, 8, 6, 6, &h);
	assert_int_equal(h.nleaders, 4);
	assert_int_equal(L[0], 6);
	assert_int_equal(L[1], 0);
	assert_int_equal(L[2], 3);
	assert_int_equal(L[3], 5);
	assert_int_equal(h.leader_idx, 0);
	assert_int_equal(h.nmembers, 2);
	assert_int_equal(M[0], 6);
	assert_int_equal(M[1], 4);
	assert_int_equal(h.member_idx, 0);

	/* Rank 4 with root 6: a member, not a leader. */
	mpi_hier_layout(cl, 8, 4, 6, &h);
	assert_int_equal(h.leader_idx, -1);
	assert_int_equal(h.member_idx, 1);
	assert_int_equal(M[0], 6);

	/* Rank 2 with root 1: root leads cluster 0, then 3, 4, 5. */
	mpi_hier_layout(cl, 8, 2, 1, &h);
	assert_int_equal(L[0], 1);
	assert_int_equal(L[1], 3);
	assert_int_equal(L[2], 4);
	assert_int_equal(L[3], 5);
	assert_int_equal(h.nmembers, 3);
	assert_int_equal(M[0], 1);
	assert_int_equal(M[1], 0);
	assert_int_equal(M[2], 2);
	assert_int_equal(h.member_idx, 2);

	/* Rank 3, alone in its cluster, leads it. */
	mpi_hier_layout(cl, 8, 3, 0, &h);
	assert_int_equal(h.leader_idx, 1);
	assert_int_equal(h.nmembers, 1);
	assert_int_equal(h.member_idx, 0);

	/* One cluster: one leader, everyone a member. */
	int one[] = {5, 5, 5};
	mpi_hier_layout(one, 3, 0, 2, &h);
	assert_int_equal(h.nleaders, 1);
	assert_int_equal(L[0], 2);
	assert_int_equal(h.nmembers, 3);
	assert_int_equal(M[0], 2);
	assert_int_equal(M[1], 0);
	assert_int_equal(h.member_idx, 1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_ranges),
		cmocka_unit_test(test_parse_blocks),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_hosts),
		cmocka_unit_test(test_wan),
		cmocka_unit_test(test_layout),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

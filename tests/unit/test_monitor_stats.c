/* Path statistics and hotspots (src/monitor/pathstats.c, welford.c) on
 * hand-made tuples: count, mean, min, max and standard deviation against
 * a direct computation, the merge of two hosts' accumulators against one
 * that saw everything, the peer groups and the hotspot rule (threshold,
 * minimum count, a path without peers), the MPI instants left out, and
 * empty input. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "grove/error.h"
#include "monitor/welford.h"
#include "monitor_fixture.h"

static void
test_welford(void **state)
{
	(void)state;
	uint64_t x[] = {5, 7, 7, 9, 100, 3, 3, 12, 0, 40};
	size_t n = sizeof x / sizeof *x;
	struct mon_welford all = {0}, lo = {0}, hi = {0};
	double sum = 0;
	for (size_t i = 0; i < n; i++) {
		mon_welford_add(&all, x[i]);
		mon_welford_add(i < 4 ? &lo : &hi, x[i]);
		sum += (double)x[i];
	}
	double mean = sum / (double)n, ss = 0;
	for (size_t i = 0; i < n; i++)
		ss += ((double)x[i] - mean) * ((double)x[i] - mean);
	assert_int_equal(all.n, n);
	assert_true(fabs(all.mean - mean) < 1e-9);
	assert_true(fabs(mon_welford_sd(&all) - sqrt(ss / (double)(n - 1))) <
	            1e-9);
	assert_int_equal(all.min, 0);
	assert_int_equal(all.max, 100);
	mon_welford_merge(&lo, &hi);
	assert_int_equal(lo.n, n);
	assert_true(fabs(lo.mean - all.mean) < 1e-9);
	assert_true(fabs(lo.m2 - all.m2) < 1e-6);
	assert_int_equal(lo.min, 0);
	assert_int_equal(lo.max, 100);
	/* Merging into or from nothing. */
	struct mon_welford none = {0};
	mon_welford_merge(&lo, &none);
	assert_int_equal(lo.n, n);
	mon_welford_merge(&none, &all);
	assert_int_equal(none.n, n);
	struct mon_welford one = {0};
	mon_welford_add(&one, 42);
	assert_true(mon_welford_sd(&one) == 0);
}

/* cp 1 and cp 2 each read links from children: link:3->1, link:4->1,
 * link:5->2, link:6->2 (link.read spans).  The path of link:6->2 is ten
 * times slower. */
static void
cp_links(struct mon_pathmap *pm, uint32_t *cp)
{
	cp[0] = fx_proc(pm, "cp", 1, "h");
	cp[1] = fx_proc(pm, "cp", 2, "h");
	fx_coll(pm, cp[0], 1, "link.read", "net", "link:3->1", "");
	fx_coll(pm, cp[0], 2, "link.read", "net", "link:4->1", "");
	fx_coll(pm, cp[1], 1, "link.read", "net", "link:5->2", "");
	fx_coll(pm, cp[1], 2, "link.read", "net", "link:6->2", "");
	fx_coll(pm, cp[1], 3, "wait_for_all", "filter", "stream:1", "");
}

static void
feed_links(struct mon_pathstats *s, const struct mon_pathmap *pm,
           const uint32_t *cp, int who, uint32_t count)
{
	for (uint32_t i = 0; i < count; i++)
		for (int p = 0; p < 2; p++)
			for (uint32_t c = 1; c <= 2; c++) {
				if (who >= 0 && who != p)
					continue;
				/* 100 +- 10 ns, the slow path 1000 +- 10 */
				uint64_t d = 100 + (i % 3) * 10;
				if (p == 1 && c == 2)
					d *= 10;
				struct mon_tuple t = fx_tuple(c, GROVE_OP_READ,
				    i, 40, 1000 * i, 1000 * i + d);
				assert_int_equal(mon_pathstats_feed(s, pm, cp[p],
				                                    &t), 0);
			}
}

static const struct mon_path_stats *
path(const struct mon_path_stats *r, size_t n, const char *proc,
     const char *where)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(r[i].proc, proc) && !strcmp(r[i].where, where))
			return &r[i];
	return NULL;
}

static void
test_hotspots(void **state)
{
	(void)state;
	struct mon_pathmap pm;
	mon_pathmap_init(&pm);
	uint32_t cp[2];
	cp_links(&pm, cp);
	struct mon_pathstats *s = mon_pathstats_new();
	feed_links(s, &pm, cp, -1, 30);
	/* A filter span of its own group: no peers, never a hotspot. */
	struct mon_tuple t = fx_tuple(3, GROVE_OP_FILTER_SYNC, 0, 2, 0, 1e6);
	assert_int_equal(mon_pathstats_feed(s, &pm, cp[1], &t), 0);
	/* The instants of MPI calls are left out. */
	t = fx_tuple(3, GROVE_OP_MPI_TAG, 0, 2, 5, 5);
	assert_int_equal(mon_pathstats_feed(s, &pm, cp[1], &t), 0);

	struct mon_path_stats *r;
	size_t n;
	assert_int_equal(mon_pathstats_results(s, 0, 1, &r, &n), GROVE_EINVAL);
	assert_int_equal(mon_pathstats_results(s, 3, 10, &r, &n), 0);
	assert_int_equal(n, 5);
	const struct mon_path_stats *slow = path(r, n, "cp 2", "link:6->2");
	const struct mon_path_stats *fast = path(r, n, "cp 1", "link:3->1");
	assert_non_null(slow);
	assert_non_null(fast);
	assert_int_equal(slow->count, 30);
	assert_true(fabs(slow->mean_ns - 1100) < 1e-9);
	assert_int_equal(slow->min_ns, 1000);
	assert_int_equal(slow->max_ns, 1200);
	assert_true(fabs(fast->mean_ns - 110) < 1e-9);
	assert_true(fabs(fast->sd_ns - sqrt(30 * 200.0 / 3 / 29)) < 1e-9);
	assert_string_equal(fast->op, "read");
	assert_string_equal(fast->role, "cp");
	/* Peers: the other three link.read paths of CPs, whose means are
	 * all 110: the slow path is measured against its own standard
	 * error, sd / sqrt(30). */
	assert_int_equal(slow->peers, 3);
	assert_int_equal(slow->peer_count, 90);
	assert_true(fabs(slow->peers_mean_ns - 110) < 1e-9);
	assert_true(slow->peers_sd_ns == 0);
	assert_true(fabs(slow->z - 990 / (slow->sd_ns / sqrt(30))) < 1e-6);
	assert_int_equal(slow->hotspot, 1);
	/* A fast path's peers: 110, 110 and 1100; mean 440. */
	assert_true(fabs(fast->peers_mean_ns - 440) < 1e-9);
	assert_true(fabs(fast->peers_sd_ns - sqrt((2 * 330.0 * 330 +
	            660.0 * 660) / 2)) < 1e-6);
	assert_int_equal(fast->hotspot, 0);
	assert_true(fast->z < 0);
	assert_int_equal(fast->group, slow->group);
	const struct mon_path_stats *f = path(r, n, "cp 2", "stream:1");
	assert_int_equal(f->peers, 0);
	assert_int_equal(f->hotspot, 0);
	/* Sorted by process, then name. */
	assert_string_equal(r[0].proc, "cp 1");
	assert_string_equal(r[4].proc, "cp 2");
	free(r);
	/* A higher threshold, or a minimum count above the samples: none. */
	assert_int_equal(mon_pathstats_results(s, 1e9, 10, &r, &n), 0);
	assert_int_equal(path(r, n, "cp 2", "link:6->2")->hotspot, 0);
	free(r);
	assert_int_equal(mon_pathstats_results(s, 3, 31, &r, &n), 0);
	assert_int_equal(path(r, n, "cp 2", "link:6->2")->hotspot, 0);
	assert_true(path(r, n, "cp 2", "link:6->2")->z == 0);
	free(r);
	/* Faster than its peers: a path at a tenth of the others' mean is
	 * one too (-1). */
	struct mon_pathstats *q = mon_pathstats_new();
	for (uint32_t i = 0; i < 20; i++)
		for (uint32_t c = 1; c <= 2; c++)
			for (int pi = 0; pi < 2; pi++) {
				uint64_t d = pi == 0 && c == 1 ? 10 : 100 + i % 2;
				struct mon_tuple u = fx_tuple(c, GROVE_OP_READ, i,
				    8, 0, d);
				assert_int_equal(mon_pathstats_feed(q, &pm, cp[pi],
				                                    &u), 0);
			}
	assert_int_equal(mon_pathstats_results(q, 3, 10, &r, &n), 0);
	assert_int_equal(path(r, n, "cp 1", "link:3->1")->hotspot, -1);
	assert_int_equal(path(r, n, "cp 1", "link:4->1")->hotspot, 0);
	free(r);
	mon_pathstats_free(q);
	mon_pathstats_free(s);
	mon_pathmap_free(&pm);
}

/* Host a sees cp 1, host b cp 2: merged, the same statistics and
 * hotspots as one accumulator of everything. */
static void
test_merge(void **state)
{
	(void)state;
	struct mon_pathmap pm;
	mon_pathmap_init(&pm);
	uint32_t cp[2];
	cp_links(&pm, cp);
	struct mon_pathstats *a = mon_pathstats_new(), *b = mon_pathstats_new();
	struct mon_pathstats *all = mon_pathstats_new();
	feed_links(a, &pm, cp, 0, 20);
	feed_links(b, &pm, cp, 1, 20);
	feed_links(all, &pm, cp, -1, 20);
	/* A path both hosts saw part of. */
	feed_links(a, &pm, cp, 1, 7);
	feed_links(all, &pm, cp, 1, 7);
	assert_int_equal(mon_pathstats_merge(a, b), 0);
	struct mon_path_stats *ra, *rall;
	size_t na, nall;
	assert_int_equal(mon_pathstats_results(a, 3, 10, &ra, &na), 0);
	assert_int_equal(mon_pathstats_results(all, 3, 10, &rall, &nall), 0);
	assert_int_equal(na, nall);
	for (size_t i = 0; i < na; i++) {
		assert_string_equal(ra[i].where, rall[i].where);
		assert_int_equal(ra[i].count, rall[i].count);
		assert_true(fabs(ra[i].mean_ns - rall[i].mean_ns) < 1e-6);
		assert_true(fabs(ra[i].sd_ns - rall[i].sd_ns) < 1e-6);
		assert_int_equal(ra[i].min_ns, rall[i].min_ns);
		assert_int_equal(ra[i].max_ns, rall[i].max_ns);
		assert_int_equal(ra[i].hotspot, rall[i].hotspot);
	}
	assert_int_equal(path(ra, na, "cp 2", "link:6->2")->count, 27);
	free(ra);
	free(rall);
	mon_pathstats_free(a);
	mon_pathstats_free(b);
	mon_pathstats_free(all);
	mon_pathmap_free(&pm);
}

/* Message latencies are paths of the receiver, grouped by the sender's
 * role; empty input gives no paths. */
static void
test_messages_and_empty(void **state)
{
	(void)state;
	struct mon_pathstats *s = mon_pathstats_new();
	struct mon_path_stats *r;
	size_t n = 9;
	assert_int_equal(mon_pathstats_results(s, 3, 1, &r, &n), 0);
	assert_int_equal(n, 0);
	free(r);
	for (uint64_t i = 0; i < 4; i++) {
		assert_int_equal(mon_pathstats_message(s, "cp 1", "cp", "be",
		                 "link:3->1", 1000 + i), 0);
		assert_int_equal(mon_pathstats_message(s, "cp 1", "cp", "fe",
		                 "link:0->1", 50), 0);
	}
	assert_int_equal(mon_pathstats_results(s, 3, 1, &r, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(r[0].name, "link.message");
	assert_int_equal(r[0].count, 4);
	assert_int_equal(r[0].peers, 0); /* different sender roles */
	assert_true(!strcmp(r[0].op, "latency from be") ||
	            !strcmp(r[1].op, "latency from be"));
	free(r);
	mon_pathstats_free(s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_welford),
		cmocka_unit_test(test_hotspots),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_messages_and_empty),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

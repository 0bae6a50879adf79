/* An event scope's shares (src/monitor/share.c): two hosts' analyses,
 * each encoded as its reader sends it and decoded into one, equal
 * mon_analysis_merge of the two (last arrivals, paths with their
 * statistics, processes with tuples and lost counts, instance counts,
 * the scope's counts summed); raw blocks fed at the other end give the
 * analysis of the tuples themselves, also passed on as a CP passes them;
 * and bad bytes (cut anywhere, another magic, version or kind, counts
 * beyond the bytes, overlong strings, impossible statistics, trailing
 * bytes) are refused with the place and the reason, adding nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "grove/error.h"
#include "monitor/share.h"
#include "monitor_fixture.h"

/* A host's analysis: cp `cp` with back-ends be `be` and be `be + 1`,
 * `waves` waves on stream 1, one filter path, lost tuples. */
static struct mon_analysis *
host(uint32_t cp, uint32_t be, int waves, uint64_t lost)
{
	struct mon_analysis *a = mon_analysis_new(NULL);
	assert_non_null(a);
	uint32_t p = fx_proc(&a->pm, "cp", cp, "host");
	uint32_t b0 = fx_proc(&a->pm, "be", be, "host");
	fx_coll(&a->pm, p, 1, "wave.last_be", "tbon", "stream:1", "before:sync");
	fx_coll(&a->pm, p, 2, "sum", "filter", "stream:1", "transform");
	for (int i = 0; i < waves; i++) {
		struct mon_tuple t[2] = {
			fx_tuple(1, GROVE_OP_WAVE, (uint32_t)i + 1,
			         (int32_t)(be + (uint32_t)(i % 3 == 0)), 100, 100),
			fx_tuple(2, GROVE_OP_FILTER_TRANSFORM, (uint32_t)i + 1, 0,
			         1000 * (uint64_t)i, 1000 * (uint64_t)i + 50 +
			         (uint64_t)(i % 7)),
		};
		assert_int_equal(mon_analysis_feed(a, p, 0, t, 2), 0);
	}
	mon_analysis_lost(a, b0, lost);
	return a;
}

static void
same(const struct mon_analysis *x, const struct mon_analysis *y)
{
	struct mon_balance_edge *e, *f;
	size_t ne, nf;
	assert_int_equal(mon_balance_edges(x->balance, &e, &ne), 0);
	assert_int_equal(mon_balance_edges(y->balance, &f, &nf), 0);
	assert_int_equal(ne, nf);
	for (size_t i = 0; i < ne; i++) {
		assert_string_equal(e[i].parent, f[i].parent);
		assert_string_equal(e[i].child, f[i].child);
		assert_int_equal(e[i].last, f[i].last);
		assert_int_equal(e[i].waves, f[i].waves);
	}
	free(e);
	free(f);
	struct mon_path_stats *p, *q;
	size_t np, nq;
	assert_int_equal(mon_pathstats_results(x->stats, 3, 1, &p, &np), 0);
	assert_int_equal(mon_pathstats_results(y->stats, 3, 1, &q, &nq), 0);
	assert_int_equal(np, nq);
	for (size_t i = 0; i < np; i++) {
		assert_string_equal(p[i].proc, q[i].proc);
		assert_string_equal(p[i].name, q[i].name);
		assert_int_equal(p[i].count, q[i].count);
		assert_int_equal(p[i].min_ns, q[i].min_ns);
		assert_int_equal(p[i].max_ns, q[i].max_ns);
		assert_true(p[i].mean_ns == q[i].mean_ns);
		assert_true(p[i].sd_ns == q[i].sd_ns);
	}
	free(p);
	free(q);
	assert_int_equal(x->pm.n, y->pm.n);
	for (uint32_t i = 0; i < x->pm.n; i++) {
		int64_t j = mon_pathmap_find(&y->pm, x->pm.p[i].label);
		assert_true(j >= 0);
		assert_int_equal(x->pm.p[i].tuples, y->pm.p[j].tuples);
		assert_int_equal(x->pm.p[i].lost, y->pm.p[j].lost);
	}
	assert_int_equal(x->tuples, y->tuples);
	assert_int_equal(x->lost, y->lost);
}

static void
test_analysis_merge(void **state)
{
	(void)state;
	struct mon_analysis *h1 = host(1, 0, 40, 3), *h2 = host(4, 2, 25, 0);
	struct mon_share_counts c1 = {100, 80, 5, 3, 0, 0, 1, 2, 300};
	struct mon_share_counts c2 = {50, 50, 0, 0, 1, 0, 1, 2, 2048};
	uint8_t *s1, *s2;
	size_t l1, l2;
	assert_int_equal(mon_share_encode(&c1, h1, &s1, &l1), 0);
	assert_int_equal(mon_share_encode(&c2, h2, &s2, &l2), 0);

	/* What a parent does: both shares into one analysis. */
	struct mon_analysis *m = mon_analysis_new(NULL);
	struct mon_share_counts c = {0};
	int kind = -1;
	char err[300];
	assert_int_equal(mon_share_decode(s1, l1, &c, &kind, m, NULL, err,
	                                  sizeof err), 0);
	assert_int_equal(kind, MON_SHARE_ANALYSIS);
	assert_int_equal(mon_share_decode(s2, l2, &c, &kind, m, NULL, err,
	                                  sizeof err), 0);
	assert_int_equal(c.read, 150);
	assert_int_equal(c.selected, 130);
	assert_int_equal(c.lost_before, 5);
	assert_int_equal(c.lost, 3);
	assert_int_equal(c.gone, 1);
	assert_int_equal(c.readers, 2);
	assert_int_equal(c.procs, 4);
	/* The busiest reader's ring (two rings' worth) paces the pulls. */
	assert_int_equal(c.peak_fill, 2048);

	struct mon_analysis *direct = mon_analysis_new(NULL);
	assert_int_equal(mon_analysis_merge(direct, h1), 0);
	assert_int_equal(mon_analysis_merge(direct, h2), 0);
	same(m, direct);
	assert_int_equal(mon_balance_total(m->balance), 65);

	/* Passed on again (a CP's share of both): the same. */
	uint8_t *s3;
	size_t l3;
	assert_int_equal(mon_share_encode(&c, m, &s3, &l3), 0);
	struct mon_analysis *m2 = mon_analysis_new(NULL);
	struct mon_share_counts c3 = {0};
	assert_int_equal(mon_share_decode(s3, l3, &c3, &kind, m2, NULL, err,
	                                  sizeof err), 0);
	assert_memory_equal(&c3, &c, sizeof c);
	same(m2, direct);
	free(s1);
	free(s2);
	free(s3);
	mon_analysis_free(h1);
	mon_analysis_free(h2);
	mon_analysis_free(m);
	mon_analysis_free(m2);
	mon_analysis_free(direct);
}

static void
test_raw(void **state)
{
	(void)state;
	/* The reader's pathmap, and the tuples of two rings. */
	struct mon_analysis *r = mon_analysis_new(NULL);
	uint32_t p = fx_proc(&r->pm, "cp", 1, "host");
	fx_coll(&r->pm, p, 1, "wave.last_be", "tbon", "stream:1", "before:sync");
	struct mon_tuple t[6];
	for (int i = 0; i < 6; i++)
		t[i] = fx_tuple(1, GROVE_OP_WAVE, (uint32_t)i + 1, i % 2, 10, 10);
	struct mon_share_buf blocks = {0};
	assert_int_equal(mon_share_raw_block(&blocks, &r->pm, p, 1, 0, 7, t, 4),
	                 0);
	assert_int_equal(mon_share_raw_block(&blocks, &r->pm, p, 1, 1, 0, t + 4,
	                                     2), 0);
	assert_int_equal(mon_share_raw_block(&blocks, &r->pm, 9, 1, 0, 0, t, 1),
	                 GROVE_EINVAL);
	struct mon_share_counts c = {6, 6, 7, 0, 0, 6, 1, 1, 0};
	uint8_t *s;
	size_t len;
	assert_int_equal(mon_share_raw_encode(&c, &blocks, &s, &len), 0);

	/* A CP passes the blocks on (checked, not fed)... */
	struct mon_share_buf passed = {0};
	struct mon_share_counts cc = {0};
	int kind = -1;
	char err[300];
	assert_int_equal(mon_share_decode(s, len, &cc, &kind, NULL, &passed,
	                                  err, sizeof err), 0);
	assert_int_equal(kind, MON_SHARE_RAW);
	assert_int_equal(passed.len, blocks.len);
	uint8_t *s2;
	size_t l2;
	assert_int_equal(mon_share_raw_encode(&cc, &passed, &s2, &l2), 0);
	/* ... and the monitor feeds them. */
	struct mon_analysis *m = mon_analysis_new(NULL);
	struct mon_share_counts cm = {0};
	assert_int_equal(mon_share_decode(s2, l2, &cm, &kind, m, NULL, err,
	                                  sizeof err), 0);
	assert_int_equal(cm.sent, 6);
	assert_int_equal(m->tuples, 6);
	assert_int_equal(m->lost, 7);
	assert_int_equal(m->pm.n, 1);
	assert_int_equal(m->pm.p[0].node, 1);
	assert_int_equal(mon_balance_total(m->balance), 6);
	struct mon_balance_edge *e;
	size_t ne;
	assert_int_equal(mon_balance_edges(m->balance, &e, &ne), 0);
	assert_int_equal(ne, 2); /* be 0 and be 1, three each */
	assert_int_equal(e[0].last, 3);
	assert_int_equal(e[1].last, 3);
	free(e);
	free(s);
	free(s2);
	mon_share_buf_free(&blocks);
	mon_share_buf_free(&passed);
	mon_analysis_free(r);
	mon_analysis_free(m);
}

/* Decoding buf must fail naming `what`, adding nothing. */
static void
refused(const uint8_t *buf, size_t len, const char *what)
{
	struct mon_analysis *a = mon_analysis_new(NULL);
	struct mon_share_counts c = {0}, zero = {0};
	struct mon_share_buf blocks = {0};
	int kind = -1;
	char err[300] = "";
	assert_int_equal(mon_share_decode(buf, len, &c, &kind, a, &blocks, err,
	                                  sizeof err), GROVE_EFORMAT);
	if (!strstr(err, what))
		fail_msg("error \"%s\" does not say \"%s\"", err, what);
	assert_memory_equal(&c, &zero, sizeof c);
	assert_int_equal(a->pm.n, 0);
	assert_int_equal(blocks.len, 0);
	mon_analysis_free(a);
	mon_share_buf_free(&blocks);
}

static void
test_bad(void **state)
{
	(void)state;
	struct mon_analysis *h = host(1, 0, 5, 0);
	struct mon_share_counts c = {10, 10, 0, 0, 0, 0, 1, 2, 0};
	uint8_t *s;
	size_t len;
	assert_int_equal(mon_share_encode(&c, h, &s, &len), 0);
	uint8_t *b = malloc(len + 8);
	/* Cut anywhere: too short for the head, then a field cut short or
	 * a count the bytes left cannot hold, at its byte. */
	for (size_t cut = 0; cut < len; cut++)
		refused(s, cut, cut < 64 ? "head" : "at byte");
	memcpy(b, s, len);
	b[0] = 'X';
	refused(b, len, "does not start with \"GMSH\"");
	memcpy(b, s, len);
	b[4] = 9;
	refused(b, len, "version 9");
	memcpy(b, s, len);
	b[5] = 7;
	refused(b, len, "unknown kind 7");
	memcpy(b, s, len);
	memset(b + len, 0, 8);
	refused(b, len + 3, "3 bytes after the end");
	/* selected above read */
	memcpy(b, s, len);
	b[16] = 11;
	refused(b, len, "11 tuples selected of 10 read");
	/* A process count beyond the bytes: at 8 + 56 + 16. */
	memcpy(b, s, len);
	b[80] = 0xff;
	b[81] = 0xff;
	refused(b, len, "more than the");
	/* The first process's role longer than the analysis keeps. */
	memcpy(b, s, len);
	b[84] = 200;
	refused(b, len, "process role of 200 bytes");
	/* A path's minimum above its maximum: the last path's min is 48
	 * bytes (instances) + 16 (min, max) before the end. */
	memcpy(b, s, len);
	b[len - 48 - 16 + 7] = 0x7f;
	refused(b, len, "no statistics of samples");
	free(b);
	free(s);
	mon_analysis_free(h);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_analysis_merge),
		cmocka_unit_test(test_raw),
		cmocka_unit_test(test_bad),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

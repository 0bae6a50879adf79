/* Link messages joined through the pathmap (src/monitor/links.c) and the
 * clock accuracy check over them (clockcheck.c), on hand-made tuples:
 * either end first, the tracing machinery's own packets, duplicates and
 * ends whose other end is lost, a receive placed before its send (a
 * violation, by how much), the bound per host (over messages between
 * hosts) and per process, one host alone, merging two hosts' halves of
 * the same messages, and empty input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "grove/error.h"
#include "monitor_fixture.h"

/* fe 0 on host A, cp 1 on host B: link:0->1 down, link:1->0 up. */
static void
two_hosts(struct mon_pathmap *pm, uint32_t *fe, uint32_t *cp)
{
	*fe = fx_proc(pm, "fe", 0, "A");
	*cp = fx_proc(pm, "cp", 1, "B");
	fx_coll(pm, *fe, 1, "link.send", "net", "link:0->1", "after:queue");
	fx_coll(pm, *fe, 2, "link.recv", "net", "link:1->0", "after:read");
	fx_coll(pm, *cp, 1, "link.send", "net", "link:1->0", "after:queue");
	fx_coll(pm, *cp, 2, "link.recv", "net", "link:0->1", "after:read");
}

static void
feed(struct mon_analysis *a, uint32_t proc, struct mon_tuple t)
{
	assert_int_equal(mon_analysis_feed(a, proc, 0, &t, 1), 0);
}

static const struct mon_clock_bound *
bound(const struct mon_clock_bound *b, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(b[i].name, name))
			return &b[i];
	return NULL;
}

static void
test_join_and_bounds(void **state)
{
	(void)state;
	struct mon_analysis *a = mon_analysis_new(NULL);
	uint32_t fe, cp;
	two_hosts(&a->pm, &fe, &cp);
	/* Down: sends at 100k, received 30 ns later (receive first in
	 * the feed for the odd ones); message 3 is the tracing's own. */
	for (uint32_t s = 0; s < 4; s++) {
		uint64_t t = 100 * s;
		uint16_t so = s == 3 ? GROVE_OP_TRACE_SEND : GROVE_OP_SEND;
		uint16_t ro = s == 3 ? GROVE_OP_TRACE_RECV : GROVE_OP_RECV;
		struct mon_tuple snd = fx_tuple(1, so, s, 40, t, t + 5);
		struct mon_tuple rcv = fx_tuple(2, ro, s, 40, t + 30, t + 30);
		if (s % 2) {
			feed(a, cp, rcv);
			feed(a, fe, snd);
		} else {
			feed(a, fe, snd);
			feed(a, cp, rcv);
		}
	}
	/* Up: received 20 ns after the send, except seq 1, received 7 ns
	 * before it was sent (B's clock placed too early). */
	for (uint32_t s = 0; s < 3; s++) {
		uint64_t t = 1000 + 100 * s;
		feed(a, cp, fx_tuple(1, GROVE_OP_SEND, s, 40, t, t + 2));
		feed(a, fe, fx_tuple(2, GROVE_OP_RECV, s, 40,
		                     s == 1 ? t - 7 : t + 20,
		                     s == 1 ? t - 7 : t + 20));
	}
	/* Lost ends: a send whose receive never comes, a receive of a seq
	 * whose send was overwritten; and a send given twice. */
	feed(a, fe, fx_tuple(1, GROVE_OP_SEND, 10, 40, 5000, 5001));
	feed(a, cp, fx_tuple(1, GROVE_OP_SEND, 3, 40, 6000, 6001));
	feed(a, fe, fx_tuple(1, GROVE_OP_SEND, 10, 40, 5000, 5001));
	struct mon_links_counts lc;
	mon_links_counts(a->links, &lc);
	assert_int_equal(lc.matched, 7);
	assert_int_equal(lc.sends_waiting, 2);
	assert_int_equal(lc.recvs_waiting, 0);
	assert_int_equal(lc.duplicates, 1);

	uint64_t msgs, viol, worst;
	mon_clockcheck_totals(a->clock, &msgs, &viol, &worst);
	assert_int_equal(msgs, 7);
	assert_int_equal(viol, 1);
	assert_int_equal(worst, 7);
	struct mon_clock_bound *b;
	size_t n;
	assert_int_equal(mon_clockcheck_bounds(a->clock, 0, &b, &n), 0);
	assert_int_equal(n, 2);
	const struct mon_clock_bound *hb = bound(b, n, "B");
	assert_non_null(hb);
	assert_int_equal(hb->cross, 1);
	assert_int_equal(hb->messages, 7);
	assert_int_equal(hb->violations, 1);
	assert_int_equal(hb->worst_ns, 7);
	assert_int_equal(hb->min_in_ns, 30);
	assert_int_equal(hb->min_out_ns, -7);
	const struct mon_clock_bound *ha = bound(b, n, "A");
	assert_int_equal(ha->min_in_ns, -7);
	assert_int_equal(ha->min_out_ns, 30);
	free(b);
	assert_int_equal(mon_clockcheck_bounds(a->clock, 1, &b, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(b[0].name, "fe 0");
	assert_int_equal(b[1].min_in_ns, 30);
	free(b);

	/* Latency paths of the messages: the receiver's, by sender role. */
	struct mon_path_stats *r;
	size_t np;
	assert_int_equal(mon_pathstats_results(a->stats, 3, 1, &r, &np), 0);
	int found = 0;
	for (size_t i = 0; i < np; i++)
		if (!strcmp(r[i].name, "link.message") &&
		    !strcmp(r[i].proc, "cp 1")) {
			assert_string_equal(r[i].where, "link:0->1");
			assert_string_equal(r[i].op, "latency from fe");
			assert_int_equal(r[i].count, 4);
			assert_int_equal(r[i].min_ns, 30);
			found = 1;
		}
	assert_true(found);
	free(r);
	mon_analysis_free(a);
}

/* One host: every message is within it; the bound is the smallest
 * latency seen.  Empty: nothing. */
static void
test_one_host_and_empty(void **state)
{
	(void)state;
	struct mon_analysis *a = mon_analysis_new(NULL);
	struct mon_clock_bound *b;
	size_t n = 5;
	assert_int_equal(mon_clockcheck_bounds(a->clock, 0, &b, &n), 0);
	assert_int_equal(n, 0);
	free(b);
	uint32_t fe = fx_proc(&a->pm, "fe", 0, "vm");
	uint32_t be = fx_proc(&a->pm, "be", 0, "vm");
	fx_coll(&a->pm, fe, 1, "link.send", "net", "link:0->1", "");
	fx_coll(&a->pm, be, 1, "link.recv", "net", "link:0->1", "");
	for (uint32_t s = 0; s < 3; s++) {
		feed(a, fe, fx_tuple(1, GROVE_OP_SEND, s, 8, 10 * s, 10 * s));
		feed(a, be, fx_tuple(1, GROVE_OP_RECV, s, 8, 10 * s + 4 + s,
		                     10 * s + 4 + s));
	}
	assert_int_equal(mon_clockcheck_bounds(a->clock, 0, &b, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(b[0].name, "vm");
	assert_int_equal(b[0].cross, 0);
	assert_int_equal(b[0].messages, 3);
	assert_int_equal(b[0].violations, 0);
	assert_int_equal(b[0].min_in_ns, 4);
	free(b);
	mon_analysis_free(a);
}

/* Host A's analysis has the sends, host B's the receives: merged, they
 * meet, as if one analysis had both. */
static void
test_merge(void **state)
{
	(void)state;
	struct mon_analysis *a = mon_analysis_new(NULL);
	struct mon_analysis *b = mon_analysis_new(NULL);
	uint32_t fe, cp, fe2, cp2;
	two_hosts(&a->pm, &fe, &cp);
	two_hosts(&b->pm, &fe2, &cp2);
	for (uint32_t s = 0; s < 5; s++) {
		feed(a, fe, fx_tuple(1, GROVE_OP_SEND, s, 8, 100 * s, 100 * s));
		feed(b, cp2, fx_tuple(2, GROVE_OP_RECV, s, 8, 100 * s + 9,
		                      100 * s + 9));
	}
	struct mon_links_counts lc;
	mon_links_counts(a->links, &lc);
	assert_int_equal(lc.matched, 0);
	assert_int_equal(lc.sends_waiting, 5);
	assert_int_equal(mon_analysis_merge(a, b), 0);
	mon_links_counts(a->links, &lc);
	assert_int_equal(lc.matched, 5);
	assert_int_equal(lc.sends_waiting + lc.recvs_waiting, 0);
	struct mon_clock_bound *bd;
	size_t n;
	assert_int_equal(mon_clockcheck_bounds(a->clock, 0, &bd, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(bound(bd, n, "B")->min_in_ns, 9);
	assert_int_equal(bound(bd, n, "B")->min_out_ns, MON_CLOCK_NONE);
	free(bd);
	mon_analysis_free(a);
	mon_analysis_free(b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_join_and_bounds),
		cmocka_unit_test(test_one_host_and_empty),
		cmocka_unit_test(test_merge),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

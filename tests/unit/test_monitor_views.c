/* The views of the analysis module on hand-made tuples: per-process
 * timelines (src/monitor/timeline.c: calls and the gaps between them, a
 * CP's filter and link spans, the bound on kept spans, merge), arrival
 * and departure orders per collective instance (order.c, through the
 * whole analysis: positions, first and last, waits, kept instances,
 * merge), and the TBON tree rebuilt from link names (topo.c, with a
 * missing event space), each also on empty input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "grove/error.h"
#include "monitor/topo.h"
#include "monitor_fixture.h"

static const struct mon_proc_timeline *
tl_of(const struct mon_proc_timeline *t, size_t n, const char *label)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(t[i].label, label))
			return &t[i];
	return NULL;
}

static void
test_timeline(void **state)
{
	(void)state;
	struct mon_pathmap pm;
	mon_pathmap_init(&pm);
	uint32_t be = fx_proc(&pm, "be", 0, "h");
	uint32_t cp = fx_proc(&pm, "cp", 1, "h");
	fx_coll(&pm, be, 1, "api.send", "api", "be", "");
	fx_coll(&pm, be, 2, "api.recv", "api", "be", "");
	fx_coll(&pm, be, 3, "link.send", "net", "link:2->1", "");
	fx_coll(&pm, cp, 1, "wait_for_all", "filter", "stream:1", "");
	fx_coll(&pm, cp, 2, "link.writev", "net", "link:1->0", "");
	fx_coll(&pm, cp, 3, "link.recv", "net", "link:2->1", "");
	struct mon_timeline *tl = mon_timeline_new(3);
	assert_non_null(tl);
	/* be 0: calls [10,20) [50,55) [55,90) on ring 0, [30,40) on ring
	 * 1; a link send inside a call is no span of the timeline. */
	struct mon_tuple t[] = {
		fx_tuple(1, GROVE_OP_API_SEND, 0, 8, 10, 20),
		fx_tuple(3, GROVE_OP_SEND, 0, 8, 12, 15),
		fx_tuple(2, GROVE_OP_API_RECV, 0, 8, 50, 55),
		fx_tuple(1, GROVE_OP_API_SEND, 1, 8, 55, 90),
	};
	for (size_t i = 0; i < 4; i++)
		assert_int_equal(mon_timeline_feed(tl, &pm, be, 0, &t[i]), 0);
	struct mon_tuple r1 = fx_tuple(2, GROVE_OP_API_RECV, 1, 8, 30, 40);
	assert_int_equal(mon_timeline_feed(tl, &pm, be, 1, &r1), 0);
	/* cp 1: a filter run and a batch write; an instant receive is not
	 * a span. */
	struct mon_tuple c[] = {
		fx_tuple(1, GROVE_OP_FILTER_SYNC, 0, 2, 100, 110),
		fx_tuple(2, GROVE_OP_WRITEV, 0, 80, 130, 140),
		fx_tuple(3, GROVE_OP_RECV, 0, 40, 150, 150),
	};
	for (size_t i = 0; i < 3; i++)
		assert_int_equal(mon_timeline_feed(tl, &pm, cp, 0, &c[i]), 0);

	struct mon_proc_timeline *p;
	size_t n;
	assert_int_equal(mon_timeline_procs(tl, &p, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(p[0].label, "cp 1");
	const struct mon_proc_timeline *b = tl_of(p, n, "be 0");
	assert_int_equal(b->count[MON_SPAN_CALL], 4);
	assert_int_equal(b->busy_ns[MON_SPAN_CALL], 10 + 5 + 35 + 10);
	/* Gaps of ring 0: 20..50 (30); 55..55 is none. */
	assert_int_equal(b->gap_ns, 30);
	assert_int_equal(b->gaps, 1);
	assert_int_equal(b->first, 10);
	assert_int_equal(b->last, 90);
	/* Three kept: the newest, in time order. */
	assert_int_equal(b->n, 3);
	assert_int_equal(b->dropped, 1);
	assert_int_equal(b->span[0].t0, 30);
	assert_int_equal(b->span[1].t0, 50);
	assert_int_equal(b->span[2].t0, 55);
	assert_string_equal(b->span[2].name, "api.send");
	const struct mon_proc_timeline *q = tl_of(p, n, "cp 1");
	assert_int_equal(q->count[MON_SPAN_FILTER], 1);
	assert_int_equal(q->count[MON_SPAN_LINK], 1);
	assert_int_equal(q->count[MON_SPAN_CALL], 0);
	/* A process without calls: the gaps between its loop's spans. */
	assert_int_equal(q->gap_ns, 20);
	free(p);

	/* Merge: a second accumulator with another process and more of
	 * be 0; the newest three spans of both stay. */
	struct mon_timeline *tl2 = mon_timeline_new(3);
	struct mon_tuple late = fx_tuple(1, GROVE_OP_API_SEND, 2, 8, 200, 210);
	assert_int_equal(mon_timeline_feed(tl2, &pm, be, 0, &late), 0);
	uint32_t fe = fx_proc(&pm, "fe", 0, "h");
	fx_coll(&pm, fe, 1, "api.send", "api", "fe", "");
	assert_int_equal(mon_timeline_feed(tl2, &pm, fe, 0, &late), 0);
	assert_int_equal(mon_timeline_merge(tl, tl2), 0);
	assert_int_equal(mon_timeline_procs(tl, &p, &n), 0);
	assert_int_equal(n, 3);
	b = tl_of(p, n, "be 0");
	assert_int_equal(b->count[MON_SPAN_CALL], 5);
	assert_int_equal(b->n, 3);
	assert_int_equal(b->span[0].t0, 50);
	assert_int_equal(b->span[2].t0, 200);
	assert_int_equal(b->last, 210);
	assert_string_equal(p[0].label, "fe 0");
	free(p);
	mon_timeline_free(tl2);
	mon_timeline_free(tl);

	/* A buffer that grows (16, 32, 40) and then wraps: the newest 40
	 * of 100 spans stay, in time order. */
	tl = mon_timeline_new(40);
	for (uint64_t i = 0; i < 100; i++) {
		struct mon_tuple u = fx_tuple(1, GROVE_OP_API_SEND, (uint32_t)i,
		                              8, 10 * i, 10 * i + 5);
		assert_int_equal(mon_timeline_feed(tl, &pm, be, 0, &u), 0);
	}
	assert_int_equal(mon_timeline_procs(tl, &p, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(p[0].n, 40);
	assert_int_equal(p[0].dropped, 60);
	assert_int_equal(p[0].span[0].t0, 600);
	assert_int_equal(p[0].span[39].t0, 990);
	assert_int_equal(p[0].count[MON_SPAN_CALL], 100);
	assert_int_equal(p[0].gap_ns, 99 * 5);
	free(p);
	mon_timeline_free(tl);

	/* Empty. */
	tl = mon_timeline_new(0);
	assert_int_equal(mon_timeline_procs(tl, &p, &n), 0);
	assert_int_equal(n, 0);
	free(p);
	mon_timeline_free(tl);
	mon_pathmap_free(&pm);
}

/* Ranks 0..2 of comm:5:0 (size 3), calls of MPI_Bcast. */
static void
mpi3(struct mon_pathmap *pm, uint32_t *proc)
{
	for (int r = 0; r < 3; r++) {
		proc[r] = fx_proc(pm, "mpi", (uint32_t)r, "h");
		fx_coll(pm, proc[r], 1, "MPI_Bcast", "mpi", "rank:0", "");
		fx_coll(pm, proc[r], 2, "comm", "mpi", "comm:5:0", "size:3");
	}
}

static void
call(struct mon_analysis *a, uint32_t proc, int r, uint32_t seq, uint64_t t0,
     uint64_t t1)
{
	struct mon_tuple t[2] = {
		fx_tuple(1, GROVE_OP_MPI_CALL, seq, 4, t0, t1),
		fx_tuple(2, GROVE_OP_MPI_COMM, seq, r, t1, t1),
	};
	assert_int_equal(mon_analysis_feed(a, proc, 0, t, 2), 0);
}

static void
test_order(void **state)
{
	(void)state;
	struct mon_analysis_opts o = {.order_keep = 2};
	struct mon_analysis *a = mon_analysis_new(&o);
	uint32_t proc[3];
	mpi3(&a->pm, proc);
	/* Instance k: arrivals 2, 0, 1 (rank 1 last), departures 1, 2, 0;
	 * instance 2 has rank 0 and rank 2 arriving together. */
	for (uint32_t k = 0; k < 3; k++) {
		uint64_t b = 1000 * k;
		call(a, proc[0], 0, k, b + (k == 2 ? 10 : 20), b + 300);
		call(a, proc[1], 1, k, b + 50, b + 100);
		call(a, proc[2], 2, k, b + 10, b + 200);
	}
	struct mon_order_scope *s;
	size_t n;
	assert_int_equal(mon_order_scopes(a->order, &s, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(s[0].scope, "comm:5:0");
	assert_int_equal(s[0].size, 3);
	assert_int_equal(s[0].instances, 3);
	const struct mon_order_member *m = s[0].m;
	assert_string_equal(m[1].label, "mpi 1");
	/* rank 1 always last in, first out */
	assert_int_equal(m[1].last, 3);
	assert_int_equal(m[1].arrive_pos[2], 3);
	assert_int_equal(m[1].depart_pos[0], 3);
	/* rank 2 first twice; in instance 2 ranks 0 and 2 tie: the lower
	 * rank counts first */
	assert_int_equal(m[2].first, 2);
	assert_int_equal(m[0].first, 1);
	assert_int_equal(m[0].arrive_pos[0], 1);
	assert_int_equal(m[0].arrive_pos[1], 2);
	assert_int_equal(m[0].depart_pos[2], 3);
	/* waits: rank 2 waited 40 ns for rank 1 every time; rank 0 30 or
	 * 40; rank 0 left 200 ns after the first departure */
	assert_int_equal(m[2].arrive_wait.n, 3);
	assert_true(m[2].arrive_wait.mean == 40);
	assert_int_equal(m[0].arrive_wait.min, 30);
	assert_true(m[0].depart_wait.mean == 200);
	assert_true(m[1].depart_wait.mean == 0);
	/* Two instances kept, oldest first. */
	assert_int_equal(s[0].n_recent, 2);
	assert_int_equal(s[0].recent[0].seq, 1);
	assert_int_equal(s[0].recent[1].seq, 2);
	assert_int_equal(s[0].recent[1].arrive[1], 2050);
	assert_string_equal(s[0].recent[1].fn, "MPI_Bcast");
	free(s);

	/* Merge with a second analysis of instances 3 and 4. */
	struct mon_analysis *b = mon_analysis_new(&o);
	uint32_t pb[3];
	mpi3(&b->pm, pb);
	for (uint32_t k = 3; k < 5; k++)
		for (int r = 0; r < 3; r++)
			call(b, pb[r], r, k, 1000 * k + 10 * (3 - r),
			     1000 * k + 100);
	assert_int_equal(mon_analysis_merge(a, b), 0);
	assert_int_equal(mon_order_scopes(a->order, &s, &n), 0);
	assert_int_equal(s[0].instances, 5);
	assert_int_equal(s[0].m[0].last, 2);
	assert_int_equal(s[0].n_recent, 2);
	assert_int_equal(s[0].recent[0].seq, 3);
	assert_int_equal(s[0].recent[1].seq, 4);
	free(s);
	mon_analysis_free(b);
	mon_analysis_free(a);

	/* Empty. */
	a = mon_analysis_new(NULL);
	assert_int_equal(mon_order_scopes(a->order, &s, &n), 0);
	assert_int_equal(n, 0);
	free(s);
	mon_analysis_free(a);
}

static void
test_topo(void **state)
{
	(void)state;
	struct mon_pathmap pm;
	mon_pathmap_init(&pm);
	struct mon_topo_node *t;
	size_t n = 7;
	assert_int_equal(mon_topo_build(&pm, &t, &n), 0);
	assert_int_equal(n, 0);
	free(t);
	/* fe 0 - cp 1 - {be 0 (node 2), be 1 (node 3)}, fe 0 - cp 4 -
	 * {be 2 (node 5), node 6 without an event space} */
	uint32_t fe = fx_proc(&pm, "fe", 0, "h");
	uint32_t cp1 = fx_proc(&pm, "cp", 1, "h");
	uint32_t cp4 = fx_proc(&pm, "cp", 4, "h");
	fx_coll(&pm, fe, 1, "link.send", "net", "link:0->1", "");
	fx_coll(&pm, fe, 2, "link.send", "net", "link:0->4", "");
	fx_coll(&pm, cp1, 1, "link.send", "net", "link:1->0", "");
	fx_coll(&pm, cp1, 2, "link.recv", "net", "link:2->1", "");
	fx_coll(&pm, cp1, 3, "link.recv", "net", "link:3->1", "");
	fx_coll(&pm, cp4, 1, "link.recv", "net", "link:5->4", "");
	fx_coll(&pm, cp4, 2, "link.recv", "net", "link:6->4", "");
	const char *be_link[] = {"link:2->1", "link:3->1", "link:5->4"};
	for (uint32_t r = 0; r < 3; r++) {
		uint32_t b = fx_proc(&pm, "be", r, "h");
		fx_coll(&pm, b, 1, "link.send", "net", be_link[r], "");
	}
	/* A malformed place is no link. */
	fx_coll(&pm, fe, 3, "link.send", "net", "link:0->x", "");
	fx_coll(&pm, fe, 4, "link.send", "net", "link:->1", "");
	assert_int_equal(pm.p[fe].node, 0);
	assert_int_equal(mon_topo_build(&pm, &t, &n), 0);
	assert_int_equal(n, 7);
	assert_string_equal(t[0].label, "fe 0");
	assert_int_equal(t[0].parent, -1);
	assert_int_equal(t[0].children, 2);
	assert_string_equal(t[1].label, "cp 1");
	assert_string_equal(t[2].label, "cp 4");
	assert_int_equal(t[1].parent, 0);
	assert_string_equal(t[3].label, "be 0");
	assert_int_equal(t[3].parent, 1);
	assert_int_equal(t[3].depth, 2);
	assert_string_equal(t[5].label, "be 2");
	assert_int_equal(t[5].parent, 2);
	assert_string_equal(t[6].label, "node 6");
	assert_int_equal(t[6].proc, -1);
	free(t);
	mon_pathmap_free(&pm);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_timeline),
		cmocka_unit_test(test_order),
		cmocka_unit_test(test_topo),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

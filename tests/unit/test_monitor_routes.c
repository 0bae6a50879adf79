/* The analysis's routes (src/monitor/routes.c): the accumulator entries
 * it keeps per (process, collector) must never feed a stale entry.  The
 * results of mon_analysis_feed are compared with those of the
 * accumulators fed the slow way (mon_pathstats_feed, mon_timeline_feed)
 * across what could leave a route stale: a collector registered again
 * under another name, one collector's tuples with several ops, a
 * process and collectors added after feeding started, the accumulators'
 * maps growing (values must not move), and a merge into the analysis
 * between feeds.  Likewise the load balance and arrival orders of MPI
 * instances, which a communicator's route counts through its memo,
 * against instances fed to mon_balance_instance and mon_order_instance:
 * a communicator collector registered again as another communicator, a
 * rank claimed by another process, a size that changes, more open
 * instances than a communicator's window holds, a merge completing
 * some of them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "grove/error.h"
#include "monitor/map.h"
#include "monitor_fixture.h"

/* The slow way: the same accumulators as an analysis, fed one by one
 * through their own feeds, with a pathmap kept in step. */
struct slow {
	struct mon_pathmap pm;
	struct mon_pathstats *stats;
	struct mon_timeline *tl;
};

static void
slow_init(struct slow *s)
{
	mon_pathmap_init(&s->pm);
	s->stats = mon_pathstats_new();
	s->tl = mon_timeline_new(0);
	assert_non_null(s->stats);
	assert_non_null(s->tl);
}

static void
slow_free(struct slow *s)
{
	mon_pathstats_free(s->stats);
	mon_timeline_free(s->tl);
	mon_pathmap_free(&s->pm);
}

/* Feeds both (proc is the same index in both pathmaps). */
static void
feed_both(struct mon_analysis *a, struct slow *s, uint32_t proc,
          const struct mon_tuple *t, size_t n)
{
	assert_int_equal(mon_analysis_feed(a, proc, 0, t, n), 0);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(mon_pathstats_feed(s->stats, &s->pm, proc,
		                                    &t[i]), 0);
		assert_int_equal(mon_timeline_feed(s->tl, &s->pm, proc, 0,
		                                   &t[i]), 0);
	}
}

static void
coll_both(struct mon_analysis *a, struct slow *s, uint32_t proc, uint32_t id,
          const char *name, const char *layer, const char *where)
{
	fx_coll(&a->pm, proc, id, name, layer, where, "");
	fx_coll(&s->pm, proc, id, name, layer, where, "");
}

static uint32_t
proc_both(struct mon_analysis *a, struct slow *s, const char *role,
          uint32_t rank)
{
	uint32_t i = fx_proc(&a->pm, role, rank, "h");
	assert_int_equal(fx_proc(&s->pm, role, rank, "h"), i);
	return i;
}

/* The path statistics and timelines of both are the same. */
static void
assert_same(struct mon_analysis *a, struct slow *s)
{
	struct mon_path_stats *x, *y;
	size_t nx, ny;
	assert_int_equal(mon_pathstats_results(a->stats, 3, 1, &x, &nx), 0);
	assert_int_equal(mon_pathstats_results(s->stats, 3, 1, &y, &ny), 0);
	assert_int_equal(nx, ny);
	for (size_t i = 0; i < nx; i++) {
		assert_string_equal(x[i].proc, y[i].proc);
		assert_string_equal(x[i].name, y[i].name);
		assert_string_equal(x[i].where, y[i].where);
		assert_string_equal(x[i].op, y[i].op);
		assert_int_equal(x[i].count, y[i].count);
		assert_int_equal(x[i].min_ns, y[i].min_ns);
		assert_int_equal(x[i].max_ns, y[i].max_ns);
		assert_true(x[i].mean_ns == y[i].mean_ns);
	}
	free(x);
	free(y);
	struct mon_proc_timeline *p, *q;
	assert_int_equal(mon_timeline_procs(a->timeline, &p, &nx), 0);
	assert_int_equal(mon_timeline_procs(s->tl, &q, &ny), 0);
	assert_int_equal(nx, ny);
	for (size_t i = 0; i < nx; i++) {
		assert_string_equal(p[i].label, q[i].label);
		assert_memory_equal(p[i].busy_ns, q[i].busy_ns,
		                    sizeof p[i].busy_ns);
		assert_memory_equal(p[i].count, q[i].count, sizeof p[i].count);
		assert_int_equal(p[i].n, q[i].n);
		for (size_t j = 0; j < p[i].n; j++)
			assert_string_equal(p[i].span[j].name,
			                    q[i].span[j].name);
	}
	free(p);
	free(q);
}

/* The count of the path (proc, name, op) in a's statistics (0: none). */
static uint64_t
path_count(struct mon_analysis *a, const char *proc, const char *name,
           const char *op)
{
	struct mon_path_stats *r;
	size_t n;
	uint64_t c = 0;
	assert_int_equal(mon_pathstats_results(a->stats, 3, 1, &r, &n), 0);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(r[i].proc, proc) && !strcmp(r[i].name, name) &&
		    !strcmp(r[i].op, op))
			c = r[i].count;
	free(r);
	return c;
}

static void
test_reregistered_collector(void **state)
{
	(void)state;
	struct mon_analysis *a = mon_analysis_new(NULL);
	assert_non_null(a);
	struct slow s;
	slow_init(&s);
	uint32_t p = proc_both(a, &s, "mpi", 0);
	coll_both(a, &s, p, 1, "MPI_Send", "mpi", "rank:0->rank:1");
	struct mon_tuple t[3] = {
		fx_tuple(1, GROVE_OP_MPI_CALL, 0, 8, 100, 150),
		fx_tuple(1, GROVE_OP_MPI_TAG, 0, 7, 150, 150),
		fx_tuple(1, GROVE_OP_MPI_CALL, 1, 8, 200, 230),
	};
	feed_both(a, &s, p, t, 3);
	/* Id 1 now names another collector: its tuples go to its path. */
	coll_both(a, &s, p, 1, "MPI_Recv", "mpi", "rank:1->rank:0");
	feed_both(a, &s, p, t, 3);
	assert_int_equal(path_count(a, "mpi 0", "MPI_Send", "mpi_call"), 2);
	assert_int_equal(path_count(a, "mpi 0", "MPI_Recv", "mpi_call"), 2);
	assert_same(a, &s);
	slow_free(&s);
	mon_analysis_free(a);
}

static void
test_ops_of_one_collector(void **state)
{
	(void)state;
	struct mon_analysis *a = mon_analysis_new(NULL);
	assert_non_null(a);
	struct slow s;
	slow_init(&s);
	uint32_t p = proc_both(a, &s, "cp", 1);
	coll_both(a, &s, p, 3, "link.writev", "net", "link:1->0");
	/* Alternating ops of one collector, and an unregistered id (0) and
	 * one beyond the registrations, with ops of their own. */
	struct mon_tuple t[8];
	for (int i = 0; i < 8; i++) {
		uint16_t op = i % 2 ? GROVE_OP_WRITEV : GROVE_OP_SEND;
		t[i] = fx_tuple(i < 6 ? 3 : (i == 6 ? 0 : 4000), op,
		                (uint32_t)i, 0, 10 * (uint64_t)i,
		                10 * (uint64_t)i + (uint64_t)i);
	}
	feed_both(a, &s, p, t, 8);
	feed_both(a, &s, p, t, 8);
	assert_int_equal(path_count(a, "cp 1", "link.writev", "writev"), 6);
	assert_int_equal(path_count(a, "cp 1", "link.writev", "send"), 6);
	assert_same(a, &s);
	slow_free(&s);
	mon_analysis_free(a);
}

static void
test_added_while_feeding(void **state)
{
	(void)state;
	struct mon_analysis *a = mon_analysis_new(NULL);
	assert_non_null(a);
	struct slow s;
	slow_init(&s);
	struct mon_tuple t[2] = {
		fx_tuple(2, GROVE_OP_MPI_CALL, 0, 8, 100, 150),
		fx_tuple(40, GROVE_OP_MPI_CALL, 0, 8, 160, 190),
	};
	uint32_t p0 = proc_both(a, &s, "mpi", 0);
	coll_both(a, &s, p0, 2, "MPI_Barrier", "mpi", "rank:0");
	feed_both(a, &s, p0, t, 2);
	/* A new process (the routes' array grows) and a collector id past
	 * the room the first routes had. */
	uint32_t p1 = proc_both(a, &s, "mpi", 1);
	coll_both(a, &s, p1, 2, "MPI_Barrier", "mpi", "rank:1");
	coll_both(a, &s, p0, 40, "MPI_Bcast", "mpi", "rank:0");
	feed_both(a, &s, p0, t, 2);
	feed_both(a, &s, p1, t, 2);
	assert_int_equal(path_count(a, "mpi 0", "MPI_Barrier", "mpi_call"), 2);
	assert_int_equal(path_count(a, "mpi 0", "MPI_Bcast", "mpi_call"), 1);
	assert_int_equal(path_count(a, "mpi 1", "MPI_Barrier", "mpi_call"), 1);
	assert_same(a, &s);
	slow_free(&s);
	mon_analysis_free(a);
}

static void
test_map_values_stay(void **state)
{
	(void)state;
	struct mon_map *m = mon_map_new(sizeof(uint64_t));
	assert_non_null(m);
	uint64_t *first = mon_map_put(m, "first", 5, NULL);
	assert_non_null(first);
	*first = 42;
	char key[32];
	for (int i = 0; i < 5000; i++) {
		int len = snprintf(key, sizeof key, "key %d", i);
		uint64_t *v = mon_map_put(m, key, (size_t)len, NULL);
		assert_non_null(v);
		*v = (uint64_t)i;
		if (i % 3 == 0)
			mon_map_del(m, key, (size_t)len);
	}
	/* Grown many times over, tombstones dropped: the value is where it
	 * was. */
	assert_ptr_equal(mon_map_get(m, "first", 5), first);
	assert_int_equal(*first, 42);
	mon_map_free(m);
}

static void
test_merge_between_feeds(void **state)
{
	(void)state;
	struct mon_analysis *a = mon_analysis_new(NULL);
	struct mon_analysis *b = mon_analysis_new(NULL);
	assert_non_null(a);
	assert_non_null(b);
	struct slow s;
	slow_init(&s);
	uint32_t p = proc_both(a, &s, "mpi", 0);
	coll_both(a, &s, p, 1, "MPI_Send", "mpi", "rank:0->rank:1");
	struct mon_tuple t = fx_tuple(1, GROVE_OP_MPI_CALL, 0, 8, 100, 150);
	feed_both(a, &s, p, &t, 1);
	/* b: the same path and process, and many others, so that a's maps
	 * grow in the merge. */
	uint32_t q = fx_proc(&b->pm, "mpi", 0, "h");
	fx_coll(&b->pm, q, 1, "MPI_Send", "mpi", "rank:0->rank:1", "");
	assert_int_equal(mon_analysis_feed(b, q, 0, &t, 1), 0);
	for (uint32_t r = 1; r < 200; r++) {
		uint32_t k = fx_proc(&b->pm, "mpi", r, "h");
		fx_coll(&b->pm, k, 1, "MPI_Send", "mpi", "rank:0->rank:1", "");
		assert_int_equal(mon_analysis_feed(b, k, 0, &t, 1), 0);
	}
	assert_int_equal(mon_analysis_merge(a, b), 0);
	feed_both(a, &s, p, &t, 1);
	assert_int_equal(path_count(a, "mpi 0", "MPI_Send", "mpi_call"), 3);
	assert_int_equal(path_count(a, "mpi 199", "MPI_Send", "mpi_call"), 1);
	struct mon_proc_timeline *tl;
	size_t n;
	assert_int_equal(mon_timeline_procs(a->timeline, &tl, &n), 0);
	assert_int_equal(n, 200);
	assert_string_equal(tl[0].label, "mpi 0");
	assert_int_equal(tl[0].count[MON_SPAN_CALL], 3);
	free(tl);
	slow_free(&s);
	mon_analysis_free(b);
	mon_analysis_free(a);
}

/* The slow way of the instances' counts: their own accumulators. */
struct slow_inst {
	struct mon_balance *b;
	struct mon_order *o;
};

static void
slow_done(void *ctx, const struct mon_instance *in)
{
	struct slow_inst *s = ctx;
	assert_int_equal(mon_balance_instance(s->b, in), 0);
	assert_int_equal(mon_order_instance(s->o, in), 0);
}

static void
assert_same_balance(struct mon_analysis *a, struct slow_inst *s)
{
	struct mon_balance_edge *x, *y;
	size_t nx, ny;
	assert_int_equal(mon_balance_edges(a->balance, &x, &nx), 0);
	assert_int_equal(mon_balance_edges(s->b, &y, &ny), 0);
	assert_int_equal(nx, ny);
	for (size_t i = 0; i < nx; i++) {
		assert_string_equal(x[i].scope, y[i].scope);
		assert_string_equal(x[i].child, y[i].child);
		assert_int_equal(x[i].last, y[i].last);
		assert_int_equal(x[i].waves, y[i].waves);
	}
	free(x);
	free(y);
	assert_int_equal(mon_balance_total(a->balance), mon_balance_total(s->b));
	struct mon_order_scope *p, *q;
	assert_int_equal(mon_order_scopes(a->order, &p, &nx), 0);
	assert_int_equal(mon_order_scopes(s->o, &q, &ny), 0);
	assert_int_equal(nx, ny);
	for (size_t i = 0; i < nx; i++) {
		assert_string_equal(p[i].scope, q[i].scope);
		assert_int_equal(p[i].instances, q[i].instances);
		for (uint32_t j = 0; j < p[i].size; j++) {
			assert_string_equal(p[i].m[j].label, q[i].m[j].label);
			assert_int_equal(p[i].m[j].last, q[i].m[j].last);
			assert_true(p[i].m[j].arrive_wait.mean ==
			            q[i].m[j].arrive_wait.mean);
		}
	}
	free(p);
	free(q);
}

/* Feeds process proc's call and comm instant (comm collector id cid,
 * rank `rank`, seq) to both. */
static void
call_both(struct mon_analysis *a, struct mon_instances *si,
          struct mon_pathmap *spm, uint32_t proc, uint32_t cid,
          uint32_t seq, int32_t rank, uint64_t t0)
{
	struct mon_tuple t[2] = {
		fx_tuple(1, GROVE_OP_MPI_CALL, seq, 8, t0, t0 + 50),
		fx_tuple(cid, GROVE_OP_MPI_COMM, seq, rank, t0 + 50, t0 + 50),
	};
	assert_int_equal(mon_analysis_feed(a, proc, 0, t, 2), 0);
	for (int i = 0; i < 2; i++)
		assert_int_equal(mon_instances_feed(si, spm, proc, 0, &t[i]),
		                 0);
}

static void
test_instance_memo(void **state)
{
	(void)state;
	struct mon_analysis *a = mon_analysis_new(NULL);
	struct slow_inst s = {mon_balance_new(), mon_order_new(0)};
	struct mon_instances *si = mon_instances_new(slow_done, &s, 0);
	struct mon_pathmap spm;
	mon_pathmap_init(&spm);
	assert_non_null(a);
	assert_non_null(s.b);
	assert_non_null(s.o);
	assert_non_null(si);
	struct mon_pathmap *pms[2] = {&a->pm, &spm};
	for (int k = 0; k < 2; k++) {
		for (uint32_t r = 0; r < 3; r++) {
			assert_int_equal(fx_proc(pms[k], "mpi", r, "h"), r);
			fx_coll(pms[k], r, 1, "MPI_Allreduce", "mpi", "rank:0",
			        "");
			fx_coll(pms[k], r, 2, "comm", "mpi", "comm:1:0",
			        "size:2");
		}
	}
	uint64_t t = 1000;
	uint32_t seq = 0;
	/* Ranks 0 and 1 of comm:1:0 are mpi 0 and mpi 1, then mpi 0 and
	 * mpi 2 (a rank's label changes), each in turn last; mpi 0's
	 * tuples complete every instance, so its route's memo sees both
	 * labels for rank 1. */
	for (int i = 0; i < 6; i++, seq++, t += 1000) {
		uint32_t other = i < 3 ? 1 : 2;
		call_both(a, si, &spm, other, 2, seq, 1, t + (i % 2 ? 0 : 10));
		call_both(a, si, &spm, 0, 2, seq, 0, t + (i % 2 ? 10 : 0));
	}
	assert_same_balance(a, &s);
	/* Collector 2 now names another communicator, of another size,
	 * on every process. */
	for (int k = 0; k < 2; k++)
		for (uint32_t r = 0; r < 3; r++)
			fx_coll(pms[k], r, 2, "comm", "mpi", "comm:7:0",
			        "size:3");
	for (int i = 0; i < 4; i++, t += 1000)
		for (uint32_t r = 0; r < 3; r++)
			call_both(a, si, &spm, r, 2, (uint32_t)i, (int32_t)r,
			          t + 7 * ((r + (uint32_t)i) % 3));
	assert_same_balance(a, &s);
	/* A merge between feeds: b completes instances of both scopes. */
	struct mon_analysis *b = mon_analysis_new(NULL);
	assert_non_null(b);
	for (uint32_t r = 0; r < 3; r++) {
		assert_int_equal(fx_proc(&b->pm, "mpi", r, "h"), r);
		fx_coll(&b->pm, r, 1, "MPI_Allreduce", "mpi", "rank:0", "");
		fx_coll(&b->pm, r, 2, "comm", "mpi", "comm:7:0", "size:3");
	}
	for (int i = 4; i < 6; i++, t += 1000)
		for (uint32_t r = 0; r < 3; r++) {
			struct mon_tuple u[2] = {
				fx_tuple(1, GROVE_OP_MPI_CALL, 0, 8, t + r,
				         t + 50),
				fx_tuple(2, GROVE_OP_MPI_COMM, (uint32_t)i,
				         (int32_t)r, t + 50, t + 50),
			};
			assert_int_equal(mon_analysis_feed(b, r, 0, u, 2), 0);
			for (int j = 0; j < 2; j++)
				assert_int_equal(mon_instances_feed(si, &spm, r,
				                 0, &u[j]), 0);
		}
	assert_int_equal(mon_analysis_merge(a, b), 0);
	for (int i = 6; i < 8; i++, t += 1000)
		for (uint32_t r = 0; r < 3; r++)
			call_both(a, si, &spm, r, 2, (uint32_t)i, (int32_t)r,
			          t + 3 * r);
	assert_same_balance(a, &s);
	mon_analysis_free(b);
	mon_instances_free(si);
	mon_pathmap_free(&spm);
	mon_balance_free(s.b);
	mon_order_free(s.o);
	mon_analysis_free(a);
}

/* Open instances found through a communicator's window (instances.c)
 * and through the map alike: more open at once than the window has
 * slots (seqs that share a slot), completed in another order, some
 * completed by a merge and then given a late duplicate. */
static void
test_instance_window(void **state)
{
	(void)state;
	struct mon_analysis *a = mon_analysis_new(NULL);
	struct mon_analysis *b = mon_analysis_new(NULL);
	struct slow_inst s = {mon_balance_new(), mon_order_new(0)};
	struct mon_instances *si = mon_instances_new(slow_done, &s, 0);
	struct mon_pathmap spm;
	mon_pathmap_init(&spm);
	assert_non_null(a);
	assert_non_null(b);
	assert_non_null(si);
	struct mon_pathmap *pms[3] = {&a->pm, &spm, &b->pm};
	for (int k = 0; k < 3; k++)
		for (uint32_t r = 0; r < 3; r++) {
			assert_int_equal(fx_proc(pms[k], "mpi", r, "h"), r);
			fx_coll(pms[k], r, 1, "MPI_Allreduce", "mpi", "rank:0",
			        "");
			fx_coll(pms[k], r, 2, "comm", "mpi", "comm:1:0",
			        "size:3");
		}
	const uint32_t n = 3000;
	for (uint32_t q = 0; q < n; q++)
		for (uint32_t r = 0; r < 2; r++)
			call_both(a, si, &spm, r, 2, q, (int32_t)r,
			          10000 + 1000 * (uint64_t)q + 5 * r);
	/* Rank 2's calls: every fifth through b (completed by the merge),
	 * the rest backwards. */
	for (uint32_t q = 0; q < n; q += 5) {
		struct mon_tuple u[2] = {
			fx_tuple(1, GROVE_OP_MPI_CALL, q, 8,
			         10000 + 1000 * (uint64_t)q + 7, 10000 + 1000 *
			         (uint64_t)q + 60),
			fx_tuple(2, GROVE_OP_MPI_COMM, q, 2, 10000 + 1000 *
			         (uint64_t)q + 60, 10000 + 1000 * (uint64_t)q +
			         60),
		};
		assert_int_equal(mon_analysis_feed(b, 2, 0, u, 2), 0);
		for (int j = 0; j < 2; j++)
			assert_int_equal(mon_instances_feed(si, &spm, 2, 0,
			                                    &u[j]), 0);
	}
	assert_int_equal(mon_analysis_merge(a, b), 0);
	for (uint32_t q = n; q-- > 0;)
		call_both(a, si, &spm, 2, 2, q, 2,
		          10000 + 1000 * (uint64_t)q + (q % 3) * 4);
	assert_same_balance(a, &s);
	struct mon_instances_counts x, y;
	mon_instances_counts(a->inst, &x);
	mon_instances_counts(si, &y);
	assert_int_equal(x.complete, y.complete);
	assert_int_equal(x.open, y.open);
	assert_int_equal(x.duplicates, y.duplicates);
	assert_true(x.open > 0); /* the late duplicates opened anew */
	mon_analysis_free(b);
	mon_instances_free(si);
	mon_pathmap_free(&spm);
	mon_balance_free(s.b);
	mon_order_free(s.o);
	mon_analysis_free(a);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reregistered_collector),
		cmocka_unit_test(test_ops_of_one_collector),
		cmocka_unit_test(test_added_while_feeding),
		cmocka_unit_test(test_map_values_stay),
		cmocka_unit_test(test_merge_between_feeds),
		cmocka_unit_test(test_instance_memo),
		cmocka_unit_test(test_instance_window),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* The load-balance accumulator (src/monitor/balance.c) and the joining of
 * MPI collective calls into instances (instances.c), on hand-made tuples:
 * TBON waves counted per node and child, MPI instances completed by every
 * rank's call (the last arrival is the latest start), instances whose
 * calls were lost left open, merging two hosts' accumulators, and empty
 * input. */
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

static const struct mon_balance_edge *
edge(const struct mon_balance_edge *e, size_t n, const char *scope,
     const char *parent, const char *child)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(e[i].scope, scope) && !strcmp(e[i].parent, parent) &&
		    !strcmp(e[i].child, child))
			return &e[i];
	return NULL;
}

/* fe 0 above cp 1 (be 0, be 1) and cp 4 (be 2): each node's wave.last_*
 * tuples on stream 1. */
static void
tbon_pathmap(struct mon_pathmap *pm, uint32_t *fe, uint32_t *cp1,
             uint32_t *cp4)
{
	*fe = fx_proc(pm, "fe", 0, "h0");
	*cp1 = fx_proc(pm, "cp", 1, "h1");
	*cp4 = fx_proc(pm, "cp", 4, "h2");
	fx_coll(pm, *fe, 1, "wave.last_cp", "tbon", "stream:1", "before:sync");
	fx_coll(pm, *fe, 2, "wave", "tbon", "stream:1", "after:transform");
	fx_coll(pm, *cp1, 3, "wave.last_be", "tbon", "stream:1", "before:sync");
	fx_coll(pm, *cp4, 3, "wave.last_be", "tbon", "stream:1", "before:sync");
	fx_coll(pm, *cp4, 4, "wave.last_be", "tbon", "stream:2", "before:sync");
}

static void
test_tbon_waves(void **state)
{
	(void)state;
	struct mon_pathmap pm;
	mon_pathmap_init(&pm);
	uint32_t fe, cp1, cp4;
	tbon_pathmap(&pm, &fe, &cp1, &cp4);
	struct mon_balance *b = mon_balance_new();
	assert_non_null(b);
	/* fe: cp 4 last 3 times, cp 1 once; the wave spans are no last
	 * arrivals. */
	int32_t fe_last[] = {4, 4, 1, 4};
	for (uint32_t i = 0; i < 4; i++) {
		struct mon_tuple t = fx_tuple(1, GROVE_OP_WAVE, i, fe_last[i],
		                              100 * i, 100 * i);
		assert_int_equal(mon_balance_feed(b, &pm, fe, &t), 0);
		t = fx_tuple(2, GROVE_OP_WAVE, i, 2, 100 * i, 100 * i + 5);
		assert_int_equal(mon_balance_feed(b, &pm, fe, &t), 0);
	}
	/* cp 1: be 1 twice, be 0 once; cp 4: be 2 on two streams. */
	int32_t cp1_last[] = {1, 0, 1};
	for (uint32_t i = 0; i < 3; i++) {
		struct mon_tuple t = fx_tuple(3, GROVE_OP_WAVE, i, cp1_last[i],
		                              10, 10);
		assert_int_equal(mon_balance_feed(b, &pm, cp1, &t), 0);
	}
	struct mon_tuple t = fx_tuple(3, GROVE_OP_WAVE, 0, 2, 10, 10);
	assert_int_equal(mon_balance_feed(b, &pm, cp4, &t), 0);
	t = fx_tuple(4, GROVE_OP_WAVE, 0, 2, 10, 10);
	assert_int_equal(mon_balance_feed(b, &pm, cp4, &t), 0);
	/* A negative result and an unknown collector count nothing. */
	t = fx_tuple(3, GROVE_OP_WAVE, 1, -1, 10, 10);
	assert_int_equal(mon_balance_feed(b, &pm, cp4, &t), 0);
	t = fx_tuple(99, GROVE_OP_WAVE, 1, 1, 10, 10);
	assert_int_equal(mon_balance_feed(b, &pm, cp4, &t), 0);

	struct mon_balance_edge *e;
	size_t n;
	assert_int_equal(mon_balance_edges(b, &e, &n), 0);
	assert_int_equal(n, 6);
	assert_int_equal(mon_balance_total(b), 9);
	const struct mon_balance_edge *x = edge(e, n, "stream:1", "fe 0", "cp 4");
	assert_non_null(x);
	assert_int_equal(x->last, 3);
	assert_int_equal(x->waves, 4);
	assert_int_equal(edge(e, n, "stream:1", "fe 0", "cp 1")->last, 1);
	assert_int_equal(edge(e, n, "stream:1", "cp 1", "be 1")->last, 2);
	assert_int_equal(edge(e, n, "stream:1", "cp 1", "be 0")->waves, 3);
	assert_int_equal(edge(e, n, "stream:2", "cp 4", "be 2")->last, 1);
	/* Sorted: scope, then parent and child as people read them. */
	assert_string_equal(e[0].parent, "fe 0");
	assert_string_equal(e[0].child, "cp 1");
	assert_string_equal(e[2].parent, "cp 1");
	assert_string_equal(e[2].child, "be 0");
	free(e);
	mon_balance_free(b);
	mon_pathmap_free(&pm);
}

/* Two hosts count their nodes' waves apart; merged, the counts add up as
 * if one accumulator had seen every tuple. */
static void
test_tbon_merge(void **state)
{
	(void)state;
	struct mon_pathmap pa, pb;
	mon_pathmap_init(&pa);
	mon_pathmap_init(&pb);
	uint32_t fe, cp1, cp4, fe2, cp1b, cp4b;
	tbon_pathmap(&pa, &fe, &cp1, &cp4);
	tbon_pathmap(&pb, &fe2, &cp1b, &cp4b);
	struct mon_balance *a = mon_balance_new(), *b = mon_balance_new();
	struct mon_balance *all = mon_balance_new();
	assert_true(a && b && all);
	for (uint32_t i = 0; i < 10; i++) {
		struct mon_tuple t = fx_tuple(3, GROVE_OP_WAVE, i, (int32_t)(i % 2),
		                              i, i);
		assert_int_equal(mon_balance_feed(a, &pa, cp1, &t), 0);
		assert_int_equal(mon_balance_feed(all, &pa, cp1, &t), 0);
		t = fx_tuple(1, GROVE_OP_WAVE, i, i < 7 ? 1 : 4, i, i);
		assert_int_equal(mon_balance_feed(b, &pb, fe2, &t), 0);
		assert_int_equal(mon_balance_feed(all, &pb, fe2, &t), 0);
		/* cp 1 on host b too: the same edge as host a's */
		t = fx_tuple(3, GROVE_OP_WAVE, i, 1, i, i);
		assert_int_equal(mon_balance_feed(b, &pb, cp1b, &t), 0);
		assert_int_equal(mon_balance_feed(all, &pb, cp1b, &t), 0);
	}
	assert_int_equal(mon_balance_merge(a, b), 0);
	struct mon_balance_edge *ea, *eall;
	size_t na, nall;
	assert_int_equal(mon_balance_edges(a, &ea, &na), 0);
	assert_int_equal(mon_balance_edges(all, &eall, &nall), 0);
	assert_int_equal(na, nall);
	for (size_t i = 0; i < na; i++) {
		assert_string_equal(ea[i].scope, eall[i].scope);
		assert_string_equal(ea[i].parent, eall[i].parent);
		assert_string_equal(ea[i].child, eall[i].child);
		assert_int_equal(ea[i].last, eall[i].last);
		assert_int_equal(ea[i].waves, eall[i].waves);
	}
	assert_int_equal(edge(ea, na, "stream:1", "cp 1", "be 1")->last, 15);
	assert_int_equal(edge(ea, na, "stream:1", "cp 1", "be 1")->waves, 20);
	assert_int_equal(mon_balance_total(a), 30);
	/* Merging an empty accumulator changes nothing. */
	struct mon_balance *empty = mon_balance_new();
	assert_int_equal(mon_balance_merge(a, empty), 0);
	assert_int_equal(mon_balance_total(a), 30);
	free(ea);
	free(eall);
	mon_balance_free(a);
	mon_balance_free(b);
	mon_balance_free(all);
	mon_balance_free(empty);
	mon_pathmap_free(&pa);
	mon_pathmap_free(&pb);
}

static void
test_empty(void **state)
{
	(void)state;
	struct mon_balance *b = mon_balance_new();
	struct mon_balance_edge *e;
	size_t n = 99;
	assert_int_equal(mon_balance_edges(b, &e, &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(mon_balance_total(b), 0);
	free(e);
	mon_balance_free(b);
	struct mon_analysis *a = mon_analysis_new(NULL);
	assert_non_null(a);
	assert_int_equal(mon_analysis_feed(a, 0, 0, NULL, 0), GROVE_EINVAL);
	struct mon_instances_counts c;
	mon_instances_counts(a->inst, &c);
	assert_int_equal(c.complete + c.open + c.dropped, 0);
	mon_analysis_free(a);
}

/* MPI: ranks 0..3 of world (comm:0:0, size 4), each a process with its
 * Allreduce collector and the communicator's. */
struct mpi_fx {
	struct mon_pathmap *pm;
	uint32_t proc[4];
};

static void
mpi_procs(struct mon_pathmap *pm, struct mpi_fx *fx, int lo, int hi)
{
	fx->pm = pm;
	for (int r = lo; r < hi; r++) {
		fx->proc[r] = fx_proc(pm, "mpi", (uint32_t)r, "h");
		char where[32];
		snprintf(where, sizeof where, "rank:%d", r);
		fx_coll(pm, fx->proc[r], 1, "MPI_Allreduce", "mpi", where, "");
		fx_coll(pm, fx->proc[r], 2, "comm", "mpi", "comm:0:0", "size:4");
		fx_coll(pm, fx->proc[r], 3, "MPI_Send", "mpi", where, "peer:1");
	}
}

/* Rank r's call of instance seq: the call, then its comm instant. */
static void
mpi_call(struct mon_analysis *a, const struct mpi_fx *fx, int r,
         uint32_t seq, uint64_t t0, uint64_t t1)
{
	struct mon_tuple t[2] = {
		fx_tuple(1, GROVE_OP_MPI_CALL, seq, 8, t0, t1),
		fx_tuple(2, GROVE_OP_MPI_COMM, seq, r, t1, t1),
	};
	assert_int_equal(mon_analysis_feed(a, fx->proc[r], 0, t, 2), 0);
}

static void
test_mpi_instances(void **state)
{
	(void)state;
	struct mon_analysis *a = mon_analysis_new(NULL);
	struct mpi_fx fx;
	mpi_procs(&a->pm, &fx, 0, 4);
	/* Instance k: rank (k % 4) starts last (at 1000k + 50). */
	for (uint32_t k = 0; k < 8; k++)
		for (int r = 0; r < 4; r++)
			mpi_call(a, &fx, r, k, 1000 * k + (r == (int)(k % 4) ?
			         50 : 10 * r), 1000 * k + 100);
	struct mon_balance_edge *e;
	size_t n;
	assert_int_equal(mon_balance_edges(a->balance, &e, &n), 0);
	assert_int_equal(n, 4);
	for (size_t i = 0; i < n; i++) {
		assert_string_equal(e[i].scope, "comm:0:0");
		assert_string_equal(e[i].parent, "comm:0:0");
		assert_int_equal(e[i].last, 2);
		assert_int_equal(e[i].waves, 8);
	}
	assert_string_equal(e[3].child, "mpi 3");
	free(e);
	struct mon_instances_counts c;
	mon_instances_counts(a->inst, &c);
	assert_int_equal(c.complete, 8);
	assert_int_equal(c.open, 0);

	/* A comm instant after another tuple (its call lost or not a
	 * collective's) is not paired; equal starts go to the lowest rank. */
	struct mon_tuple lone[2] = {
		fx_tuple(3, GROVE_OP_MPI_CALL, 0, 8, 5, 6),
		fx_tuple(2, GROVE_OP_MPI_COMM, 8, 0, 6, 6),
	};
	assert_int_equal(mon_analysis_feed(a, fx.proc[0], 0, lone, 2), 0);
	mon_instances_counts(a->inst, &c);
	assert_int_equal(c.unpaired, 1);
	for (int r = 0; r < 4; r++)
		mpi_call(a, &fx, r, 9, 20000, 20100);
	assert_int_equal(mon_balance_edges(a->balance, &e, &n), 0);
	assert_int_equal(edge(e, n, "comm:0:0", "comm:0:0", "mpi 0")->last, 3);
	free(e);
	/* A rank out of the communicator's range is skipped. */
	struct mon_tuple bad[2] = {
		fx_tuple(1, GROVE_OP_MPI_CALL, 10, 8, 5, 6),
		fx_tuple(2, GROVE_OP_MPI_COMM, 10, 7, 6, 6),
	};
	assert_int_equal(mon_analysis_feed(a, fx.proc[1], 0, bad, 2), 0);
	mon_instances_counts(a->inst, &c);
	assert_int_equal(c.skipped, 1);
	mon_analysis_free(a);
}

/* Rank 2 lost its oldest tuples: instances 0 and 1 never complete; the
 * later ones do, since the comm instant's seq (not the position in the
 * ring) names the instance. */
static void
test_mpi_lost(void **state)
{
	(void)state;
	struct mon_analysis *a = mon_analysis_new(NULL);
	struct mpi_fx fx;
	mpi_procs(&a->pm, &fx, 0, 4);
	for (uint32_t k = 0; k < 5; k++)
		for (int r = 0; r < 4; r++)
			if (r != 2 || k >= 2)
				mpi_call(a, &fx, r, k, 100 * k + r, 100 * k + 90);
	mon_analysis_lost(a, fx.proc[2], 4);
	struct mon_instances_counts c;
	mon_instances_counts(a->inst, &c);
	assert_int_equal(c.complete, 3);
	assert_int_equal(c.open, 2);
	assert_int_equal(a->lost, 4);
	assert_int_equal(a->pm.p[fx.proc[2]].lost, 4);
	struct mon_balance_edge *e;
	size_t n;
	assert_int_equal(mon_balance_edges(a->balance, &e, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(e[0].child, "mpi 3");
	assert_int_equal(e[0].last, 3);
	free(e);
	/* A call given twice counts once. */
	mpi_call(a, &fx, 0, 0, 1, 2);
	mon_instances_counts(a->inst, &c);
	assert_int_equal(c.duplicates, 1);
	mon_analysis_free(a);
}

/* Ranks 0-1 on one host, 2-3 on another: neither host completes an
 * instance alone; merged, all do, and the last arrivals are counted once. */
static void
test_mpi_merge(void **state)
{
	(void)state;
	struct mon_analysis *a = mon_analysis_new(NULL);
	struct mon_analysis *b = mon_analysis_new(NULL);
	struct mpi_fx fa, fb;
	mpi_procs(&a->pm, &fa, 0, 2);
	mpi_procs(&b->pm, &fb, 2, 4);
	for (uint32_t k = 0; k < 6; k++)
		for (int r = 0; r < 4; r++)
			mpi_call(r < 2 ? a : b, r < 2 ? &fa : &fb, r, k,
			         100 * k + (r == 1 ? 60 : r), 100 * k + 90);
	struct mon_instances_counts c;
	mon_instances_counts(a->inst, &c);
	assert_int_equal(c.complete, 0);
	assert_int_equal(c.open, 6);
	assert_int_equal(mon_balance_total(a->balance), 0);
	assert_int_equal(mon_analysis_merge(a, b), 0);
	mon_instances_counts(a->inst, &c);
	assert_int_equal(c.complete, 6);
	assert_int_equal(c.open, 0);
	struct mon_balance_edge *e;
	size_t n;
	assert_int_equal(mon_balance_edges(a->balance, &e, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(e[0].child, "mpi 1");
	assert_int_equal(e[0].last, 6);
	free(e);
	assert_int_equal(a->pm.n, 4);
	mon_analysis_free(a);
	mon_analysis_free(b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tbon_waves),
		cmocka_unit_test(test_tbon_merge),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_mpi_instances),
		cmocka_unit_test(test_mpi_lost),
		cmocka_unit_test(test_mpi_merge),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Time-aligned aggregation: splitting samples over the interval grid
 * (hand-computed cases), out-of-order and overlapping samples, sum
 * conservation over random samples, minima and maxima with their ranks,
 * the lag policy with a dead child, clocks far ahead or stepping back,
 * and mixed raw and aggregated input (the "timealign" filter itself:
 * test_timealign_filter.c).
 */
#include "filter_fixture.h"
#include "filter/timealign_core.h"
#include "grove/aggregate.h"

/* ---- collecting what ta_close emits ----------------------------------- */

#define MAXM 4
#define MAXOUT 4096

typedef struct rec {
	uint64_t start, end;
	uint32_t count, m;
	double sum[MAXM], min[MAXM], max[MAXM];
	uint32_t minr[MAXM], maxr[MAXM];
} rec;

typedef struct sink {
	rec r[MAXOUT];
	size_t n;
} sink;

static int
collect(void *arg, const ta_agg *a)
{
	sink *k = arg;
	assert_true(k->n < MAXOUT);
	assert_true(a->m <= MAXM);
	rec *r = &k->r[k->n++];
	r->start = a->start;
	r->end = a->end;
	r->count = a->count;
	r->m = a->m;
	for (uint32_t j = 0; j < a->m; j++) {
		r->sum[j] = a->sum[j];
		r->min[j] = a->min[j];
		r->max[j] = a->max[j];
		r->minr[j] = a->min_rank[j];
		r->maxr[j] = a->max_rank[j];
	}
	return 0;
}

static void
add1(ta_state *s, uint32_t child, uint32_t rank, uint64_t a, uint64_t b,
    double v)
{
	assert_int_equal(ta_add_sample(s, child, rank, a, b, &v, 1), 0);
}

static void
close_into(ta_state *s, sink *k)
{
	assert_int_equal(ta_close(s, collect, k), 0);
}

/* ---- splitting -------------------------------------------------------- */

static void
test_split_hand_computed(void **st)
{
	(void)st;
	static sink k;
	k.n = 0;
	ta_state *s = ta_new(10, 4, 1);
	assert_non_null(s);
	/* [5, 25) worth 20: 5 in [0,10), 10 in [10,20), 5 in [20,30). */
	add1(s, 0, 3, 5, 25, 20);
	close_into(s, &k);
	/* The child covered up to 25: intervals 0 and 1 are complete. */
	assert_int_equal(k.n, 2);
	assert_int_equal(k.r[0].start, 0);
	assert_int_equal(k.r[0].end, 10);
	assert_true(k.r[0].sum[0] == 5.0);
	assert_int_equal(k.r[0].count, 1);
	assert_int_equal(k.r[0].minr[0], 3);
	assert_int_equal(k.r[1].start, 10);
	assert_true(k.r[1].sum[0] == 10.0);
	assert_int_equal(ta_open_intervals(s), 1);
	assert_int_equal(ta_closed_below(s), 2);
	/* [25, 30) worth 1 completes interval 2: 5 + 1. */
	add1(s, 0, 3, 25, 30, 1);
	close_into(s, &k);
	assert_int_equal(k.n, 3);
	assert_int_equal(k.r[2].start, 20);
	assert_true(k.r[2].sum[0] == 6.0);
	assert_int_equal(ta_open_intervals(s), 0);
	ta_free(s);
}

static void
test_split_thirds_no_loss(void **st)
{
	(void)st;
	static sink k;
	k.n = 0;
	ta_state *s = ta_new(10, 4, 1);
	/* 1.0 over three whole intervals: the last third is the remainder,
	 * so the three pieces add up to exactly 1. */
	add1(s, 0, 0, 0, 30, 1.0);
	close_into(s, &k);
	assert_int_equal(k.n, 3);
	assert_true(fabs(k.r[0].sum[0] - 1.0 / 3) < 1e-15);
	assert_true(k.r[0].sum[0] + k.r[1].sum[0] + k.r[2].sum[0] == 1.0);
	/* Several values per sample split the same way. */
	double v[3] = {3, 30, -6};
	assert_int_equal(ta_add_sample(s, 0, 0, 35, 45, v, 3), GROVE_EFORMAT);
	ta_free(s);

	s = ta_new(10, 4, 1);
	k.n = 0;
	assert_int_equal(ta_add_sample(s, 0, 0, 35, 45, v, 3), 0);
	assert_int_equal(ta_add_sample(s, 0, 0, 45, 50, v, 3), 0);
	close_into(s, &k);
	assert_int_equal(k.n, 2);
	assert_int_equal(k.r[0].start, 30);
	assert_true(k.r[0].sum[0] == 1.5 && k.r[0].sum[1] == 15 &&
	    k.r[0].sum[2] == -3);
	assert_true(k.r[1].sum[0] == 4.5 && k.r[1].sum[1] == 45 &&
	    k.r[1].sum[2] == -9);
	ta_free(s);
}

static void
test_sample_in_one_interval(void **st)
{
	(void)st;
	static sink k;
	k.n = 0;
	ta_state *s = ta_new(1000, 4, 1);
	add1(s, 0, 0, 1200, 1300, 7);
	close_into(s, &k);
	assert_int_equal(k.n, 0); /* interval 1 not covered to its end */
	add1(s, 0, 0, 1300, 2000, 1);
	close_into(s, &k);
	assert_int_equal(k.n, 1);
	assert_int_equal(k.r[0].start, 1000);
	assert_int_equal(k.r[0].end, 2000);
	assert_true(k.r[0].sum[0] == 8);
	ta_free(s);
}

/* ---- out of order, overlapping, late ------------------------------------ */

static void
test_out_of_order_two_children(void **st)
{
	(void)st;
	static sink k;
	k.n = 0;
	ta_state *s = ta_new(10, 4, 2);
	add1(s, 0, 0, 20, 30, 1);  /* child 0 starts late in time ... */
	close_into(s, &k);
	assert_int_equal(k.n, 0);  /* child 1 not heard from yet */
	add1(s, 0, 0, 0, 10, 2);   /* ... then delivers the past */
	close_into(s, &k);
	assert_int_equal(k.n, 0);
	add1(s, 1, 1, 0, 30, 3);
	close_into(s, &k);
	assert_int_equal(k.n, 3);
	assert_int_equal(k.r[0].start, 0);
	assert_true(k.r[0].sum[0] == 3);
	assert_int_equal(k.r[0].count, 2);
	assert_int_equal(k.r[1].start, 10);
	assert_true(k.r[1].sum[0] == 1);
	assert_int_equal(k.r[1].count, 1); /* child 0 had a gap there */
	assert_int_equal(k.r[2].start, 20);
	assert_true(k.r[2].sum[0] == 2);
	assert_int_equal(ta_late_pieces(s), 0);
	ta_free(s);
}

static void
test_overlapping_samples_add(void **st)
{
	(void)st;
	static sink k;
	k.n = 0;
	ta_state *s = ta_new(10, 4, 1);
	add1(s, 0, 5, 0, 10, 1);
	add1(s, 0, 5, 5, 15, 2);   /* overlaps [5,10): still split and added */
	add1(s, 0, 5, 15, 20, 0);
	close_into(s, &k);
	assert_int_equal(k.n, 2);
	assert_true(k.r[0].sum[0] == 2);
	assert_int_equal(k.r[0].count, 1); /* one rank, however many samples */
	assert_true(k.r[1].sum[0] == 1);
	ta_free(s);
}

static void
test_late_dropped_and_counted(void **st)
{
	(void)st;
	static sink k;
	k.n = 0;
	ta_state *s = ta_new(10, 4, 1);
	add1(s, 0, 0, 0, 30, 3);
	close_into(s, &k);
	assert_int_equal(k.n, 3);
	/* Entirely in closed intervals. */
	add1(s, 0, 0, 10, 20, 100);
	assert_int_equal(ta_late_pieces(s), 1);
	/* Straddling: the piece in [20,30) is late, [30,40) is kept. */
	add1(s, 0, 0, 25, 35, 8);
	assert_int_equal(ta_late_pieces(s), 2);
	add1(s, 0, 0, 35, 40, 1);
	close_into(s, &k);
	assert_int_equal(k.n, 4);
	assert_int_equal(k.r[3].start, 30);
	assert_true(k.r[3].sum[0] == 5);
	/* An aggregated interval that is late. */
	double one = 1;
	uint32_t r0 = 0;
	ta_agg a = {.start = 0, .end = 10, .count = 1, .m = 1, .sum = &one,
	    .min = &one, .min_rank = &r0, .max = &one, .max_rank = &r0};
	assert_int_equal(ta_add_interval(s, 0, &a), 0);
	assert_int_equal(ta_late_pieces(s), 3);
	ta_free(s);
}

/* ---- conservation --------------------------------------------------- */

static uint64_t rng_state = 88172645463325252ull;

static uint64_t
rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static void
test_sum_conserved_random(void **st)
{
	(void)st;
	static sink k;
	enum { NR = 12, NCH = NR, END = 100000 };
	for (int round = 0; round < 20; round++) {
		k.n = 0;
		uint64_t w = 100 + rng() % 5000;
		/* Children race ahead of each other by any amount here: a
		 * max_lag no child reaches keeps everyone waited for. */
		ta_state *s = ta_new(w, UINT32_MAX, NCH);
		assert_non_null(s);
		/* Each rank (a child of its own, as back-ends are) covers
		 * [0, END) with samples of random length, sent in
		 * rank-interleaved order. */
		uint64_t at[NR] = {0};
		double total[2] = {0, 0};
		int live = NR;
		while (live > 0) {
			uint32_t r = (uint32_t)(rng() % NR);
			if (at[r] >= END)
				continue;
			uint64_t len = 1 + rng() % (3 * w);
			uint64_t b = at[r] + len > END ? END : at[r] + len;
			double v[2] = {(double)(rng() % 1000000) / 7.0,
			    -(double)(rng() % 1000) / 3.0};
			assert_int_equal(ta_add_sample(s, r, r, at[r], b, v,
			    2), 0);
			total[0] += v[0];
			total[1] += v[1];
			at[r] = b;
			if (b == END)
				live--;
			close_into(s, &k);
		}
		/* Close what END does not complete: one more sample per
		 * child, of zero, up to the next grid point. */
		uint64_t g = (END / w + 1) * w;
		for (uint32_t c = 0; c < NCH; c++) {
			double z[2] = {0, 0};
			assert_int_equal(ta_add_sample(s, c, c, END, g, z, 2), 0);
		}
		close_into(s, &k);
		assert_int_equal(ta_open_intervals(s), 0);
		assert_int_equal(ta_late_pieces(s), 0);
		double got[2] = {0, 0};
		for (size_t i = 0; i < k.n; i++) {
			if (i > 0)
				assert_true(k.r[i].start > k.r[i - 1].start);
			assert_int_equal(k.r[i].start % w, 0);
			assert_int_equal(k.r[i].end - k.r[i].start, w);
			assert_true(k.r[i].count >= 1 && k.r[i].count <= NR);
			got[0] += k.r[i].sum[0];
			got[1] += k.r[i].sum[1];
		}
		for (int j = 0; j < 2; j++)
			if (fabs(got[j] - total[j]) > 1e-9 * fabs(total[j]))
				fail_msg("round %d value %d: %.17g != %.17g", round,
				    j, got[j], total[j]);
		ta_free(s);
	}
}

/* ---- min / max ---------------------------------------------------------- */

static void
test_min_max_ranks(void **st)
{
	(void)st;
	static sink k;
	k.n = 0;
	ta_state *s = ta_new(10, 4, 3);
	/* Rank 4's amount in [0,10) comes in two samples: 2 + 5 = 7. */
	add1(s, 0, 4, 0, 5, 2);
	add1(s, 0, 4, 5, 10, 5);
	add1(s, 1, 9, 0, 10, 6);
	add1(s, 2, 2, 0, 20, 2); /* 1 in [0,10) */
	close_into(s, &k);
	assert_int_equal(k.n, 1);
	assert_int_equal(k.r[0].count, 3);
	assert_true(k.r[0].sum[0] == 14);
	assert_true(k.r[0].min[0] == 1);
	assert_int_equal(k.r[0].minr[0], 2);
	assert_true(k.r[0].max[0] == 7);
	assert_int_equal(k.r[0].maxr[0], 4);
	/* Ties go to the lower rank. */
	add1(s, 0, 4, 10, 20, 1);
	add1(s, 1, 9, 10, 20, 1);
	close_into(s, &k);
	assert_int_equal(k.n, 2);
	assert_true(k.r[1].min[0] == 1 && k.r[1].max[0] == 1);
	assert_int_equal(k.r[1].minr[0], 2);
	assert_int_equal(k.r[1].maxr[0], 2);
	ta_free(s);
}

/* ---- lag policy ---------------------------------------------------------- */

/* Width 10, max_lag 2, three children that each sent interval [0,10),
 * closed into k. */
static ta_state *
three_started(sink *k)
{
	ta_state *s = ta_new(10, 2, 3);
	for (uint32_t c = 0; c < 3; c++)
		add1(s, c, c, 0, 10, 1);
	close_into(s, k);
	return s;
}

static void
test_dead_child_does_not_stall(void **st)
{
	(void)st;
	static sink k;
	k.n = 0;
	ta_state *s = three_started(&k);
	assert_int_equal(k.n, 1);
	assert_int_equal(k.r[0].count, 3);
	/* Child 2 dies.  One interval ahead: still waited for. */
	add1(s, 0, 0, 10, 20, 1);
	add1(s, 1, 1, 10, 20, 1);
	close_into(s, &k);
	assert_int_equal(k.n, 1);
	/* max_lag (2) intervals ahead: child 2 is absent, 1 and 2 close. */
	add1(s, 0, 0, 20, 30, 1);
	add1(s, 1, 1, 20, 30, 1);
	close_into(s, &k);
	assert_int_equal(k.n, 3);
	assert_int_equal(k.r[1].start, 10);
	assert_int_equal(k.r[1].count, 2);
	assert_int_equal(k.r[2].start, 20);
	/* From now on each interval closes as soon as the live ones cover
	 * it. */
	add1(s, 0, 0, 30, 40, 1);
	close_into(s, &k);
	assert_int_equal(k.n, 3);
	add1(s, 1, 1, 30, 40, 1);
	close_into(s, &k);
	assert_int_equal(k.n, 4);
	/* What the dead child sends for closed intervals is late ... */
	add1(s, 2, 2, 10, 20, 1);
	assert_int_equal(ta_late_pieces(s), 1);
	/* ... and once it catches up it is waited for again. */
	add1(s, 2, 2, 20, 50, 3);
	assert_int_equal(ta_late_pieces(s), 3);
	add1(s, 0, 0, 40, 50, 1);
	close_into(s, &k);
	assert_int_equal(k.n, 4); /* child 1 not at 50 yet */
	add1(s, 1, 1, 40, 50, 1);
	close_into(s, &k);
	assert_int_equal(k.n, 5);
	assert_int_equal(k.r[4].start, 40);
	assert_int_equal(k.r[4].count, 3);
	assert_true(k.r[4].sum[0] == 3);
	ta_free(s);
}

static void
test_silent_child_gets_longer_tolerance(void **st)
{
	(void)st;
	static sink k;
	k.n = 0;
	/* A child never heard from might be a node that is waiting for a
	 * child of its own: it is given 2 * max_lag. */
	ta_state *s = ta_new(10, 2, 2);
	add1(s, 0, 0, 0, 30, 3);
	close_into(s, &k);
	assert_int_equal(k.n, 0);
	add1(s, 0, 0, 30, 40, 1);
	close_into(s, &k);
	assert_int_equal(k.n, 4);
	ta_free(s);
}

/* One child whose clock runs max_lag intervals ahead must not make the
 * others lag: the lead is the median, so the fast child is waited for
 * when the others get there, and nothing is dropped. */
static void
test_fast_clock_does_not_hide_others(void **st)
{
	(void)st;
	static sink k;
	k.n = 0;
	ta_state *s = ta_new(10, 3, 3);
	for (uint64_t t = 100; t < 110; t++)
		for (uint32_t c = 0; c < 3; c++) {
			uint64_t a = t * 10 + (c == 2 ? 30 : 0);
			add1(s, c, c, a, a + 10, 1);
		}
	close_into(s, &k);
	assert_int_equal(ta_late_pieces(s), 0);
	assert_true(k.n >= 5);
	for (size_t i = 0; i < k.n; i++) {
		if (k.r[i].start < 1030)
			continue; /* before the fast child's first sample */
		assert_int_equal(k.r[i].count, 3);
		assert_true(k.r[i].sum[0] == 3);
	}
	/* Closing one wave at a time gives the same. */
	ta_free(s);
	k.n = 0;
	s = ta_new(10, 3, 4);
	for (uint64_t t = 100; t < 120; t++) {
		for (uint32_t c = 0; c < 4; c++) {
			uint64_t a = t * 10 + (c == 1 ? 100 : 0);
			add1(s, c, c, a, a + 10, 1);
		}
		close_into(s, &k);
	}
	assert_int_equal(ta_late_pieces(s), 0);
	size_t full = 0;
	for (size_t i = 0; i < k.n; i++)
		full += k.r[i].count == 4;
	assert_true(full >= 5);
	ta_free(s);
}

/* A clock far ahead of the majority's (more than TA_MAX_AHEAD intervals
 * beyond the lead): its input is dropped and counted, so its intervals do
 * not pile up open, one more for every interval that passes. */
static void
test_clock_far_ahead(void **st)
{
	(void)st;
	static sink k;
	ta_state *s = ta_new(10, 3, 3);
	uint64_t ahead = 2ull * TA_MAX_AHEAD * 10;
	for (uint64_t t = 100; t < 300; t++) {
		for (uint32_t c = 0; c < 3; c++) {
			uint64_t a = t * 10 + (c == 2 ? ahead : 0);
			add1(s, c, c, a, a + 10, 1);
		}
		k.n = 0;
		close_into(s, &k);
		for (size_t i = 0; i < k.n; i++)
			assert_int_equal(k.r[i].count, 2);
	}
	assert_true(ta_early_inputs(s) >= 190);
	assert_true(ta_open_intervals(s) < 10);
	assert_int_equal(ta_late_pieces(s), 0);
	ta_free(s);
}

/* Two of three children die: once they are quiet the survivor's data
 * closes again (the median is over the children still sending). */
static void
test_majority_dies(void **st)
{
	(void)st;
	static sink k;
	k.n = 0;
	ta_state *s = three_started(&k);
	assert_int_equal(k.n, 1);
	for (uint64_t t = 1; t < 40; t++) {
		add1(s, 0, 0, t * 10, t * 10 + 10, 1);
		close_into(s, &k);
	}
	/* Closed up to a bounded distance behind the survivor. */
	assert_true(k.n >= 30);
	assert_int_equal(k.r[k.n - 1].count, 1);
	ta_free(s);
}

/* A child whose clock steps back by more than the tolerance stands where
 * its clock now is (lagging), instead of counting as far ahead. */
static void
test_clock_steps_back(void **st)
{
	(void)st;
	static sink k;
	k.n = 0;
	ta_state *s = ta_new(10, 2, 3);
	for (uint64_t t = 100; t < 110; t++)
		for (uint32_t c = 0; c < 3; c++)
			add1(s, c, c, t * 10, t * 10 + 10, 1);
	close_into(s, &k);
	size_t before = k.n;
	/* Child 2 steps back 50 intervals; its samples are late from now
	 * on; the others go on without it. */
	for (uint64_t t = 110; t < 120; t++) {
		for (uint32_t c = 0; c < 2; c++)
			add1(s, c, c, t * 10, t * 10 + 10, 1);
		add1(s, 2, 2, (t - 50) * 10, (t - 50) * 10 + 10, 1);
		close_into(s, &k);
	}
	assert_true(k.n >= before + 8);
	assert_int_equal(k.r[k.n - 1].count, 2);
	assert_true(ta_late_pieces(s) >= 8);
	ta_free(s);
}

/* One child running far ahead of the other of two (the lead is the higher
 * of two, so nothing stood against it before): its input is dropped
 * without moving its position, nothing is closed out there, and once it
 * is back the stream goes on with nothing late. */
static void
test_far_ahead_two_children(void **st)
{
	(void)st;
	static sink k;
	k.n = 0;
	ta_state *s = ta_new(10, 3, 2);
	uint64_t far = 10ull * (TA_MAX_AHEAD + 100);
	for (uint64_t t = 100; t < 110; t++) {
		for (uint32_t c = 0; c < 2; c++)
			add1(s, c, c, t * 10, t * 10 + 10, 1);
		close_into(s, &k);
	}
	size_t before = k.n;
	add1(s, 1, 1, 1100 + far, 1110 + far, 1);
	close_into(s, &k);
	add1(s, 1, 1, 1110 + far, 1120 + far, 1);
	close_into(s, &k);
	assert_int_equal(ta_early_inputs(s), 2);
	assert_int_equal(k.n, before);
	for (uint64_t t = 110; t < 130; t++) {
		for (uint32_t c = 0; c < 2; c++)
			add1(s, c, c, t * 10, t * 10 + 10, 1);
		close_into(s, &k);
	}
	assert_int_equal(ta_late_pieces(s), 0);
	assert_true(k.n >= before + 18);
	for (size_t i = 0; i < k.n; i++)
		assert_true(k.r[i].start < 1300);
	assert_int_equal(k.r[k.n - 1].count, 2);
	ta_free(s);
}

/* One child whose first sample is a clock far ahead: nothing stood against
 * it, so it is taken and closed; the samples at the right time that
 * follow start the node over instead of being late for good. */
static void
test_far_first_sample(void **st)
{
	(void)st;
	static sink k;
	k.n = 0;
	ta_state *s = ta_new(10, 3, 1);
	uint64_t far = 10ull * 86400;
	add1(s, 0, 0, 1000 + far, 1010 + far, 1);
	close_into(s, &k);
	assert_int_equal(k.n, 1);
	for (uint64_t t = 100; t < 120; t++) {
		add1(s, 0, 0, t * 10, t * 10 + 10, 1);
		close_into(s, &k);
	}
	/* The first sample back shows the jump and is late; the rest is
	 * emitted, in order from there. */
	assert_int_equal(k.n, 1 + 19);
	for (size_t i = 1; i < k.n; i++)
		assert_int_equal(k.r[i].start, 1010 + 10 * (i - 1));
	assert_true(ta_late_pieces(s) <= 1);
	ta_free(s);
}

/* One stray sample far ahead from a node's only child is dropped and
 * costs nothing else: the interval the child is filling still closes
 * whole, and nothing is late. */
static void
test_one_stray_far_sample(void **st)
{
	(void)st;
	static sink k;
	k.n = 0;
	ta_state *s = ta_new(1000, 4, 1);
	for (uint64_t i = 0; i < 12; i++) {
		add1(s, 0, 0, i * 1000 + 500, i * 1000 + 1500, 1);
		close_into(s, &k);
		if (i == 5) {
			add1(s, 0, 0, 10000000000ull, 10000001000ull, 1);
			close_into(s, &k);
		}
	}
	assert_int_equal(ta_early_inputs(s), 1);
	assert_int_equal(ta_late_pieces(s), 0);
	double total = 0;
	for (size_t i = 0; i < k.n; i++) {
		assert_true(k.r[i].start < 100000);
		total += k.r[i].sum[0];
	}
	/* Eleven whole intervals [1000, 12000), half of [0, 1000); the last
	 * half is still open. */
	assert_true(total >= 11.0 && total <= 11.5);
	for (size_t i = 0; i < k.n; i++)
		if (k.r[i].start >= 1000 && k.r[i].start < 11000)
			assert_true(k.r[i].sum[0] == 1.0);
	ta_free(s);
}

/* Every clock jumps far ahead together (a step of the time source): that
 * is the node's time now, not one clock off; the stream follows. */
static void
test_all_jump_ahead(void **st)
{
	(void)st;
	static sink k;
	k.n = 0;
	ta_state *s = ta_new(10, 3, 3);
	uint64_t jump = 10ull * 2 * TA_MAX_AHEAD;
	for (uint64_t t = 100; t < 140; t++) {
		for (uint32_t c = 0; c < 3; c++) {
			uint64_t a = t * 10 + (t >= 120 ? jump : 0);
			add1(s, c, c, a, a + 10, 1);
		}
		close_into(s, &k);
	}
	/* Each child's first two inputs past the jump are dropped: one far
	 * input is taken as a stray sample, two in a row as a jump. */
	assert_true(ta_early_inputs(s) <= 6);
	assert_true(k.r[k.n - 1].start >= 1300 + jump);
	assert_int_equal(k.r[k.n - 1].count, 3);
	ta_free(s);
}

/* M (values per sample) without the parameter: a lone first input with
 * another M than the next is replaced; after two agreeing inputs M is
 * fixed. */
static void
test_first_m_replaced(void **st)
{
	(void)st;
	static sink k;
	k.n = 0;
	double v[3] = {1, 1, 1};
	ta_state *s = ta_new(10, 4, 2);
	assert_int_equal(ta_add_sample(s, 1, 1, 0, 10, v, 2), 0);
	assert_int_equal(ta_values(s), 2);
	assert_int_equal(ta_add_sample(s, 0, 0, 0, 10, v, 3), 0);
	assert_int_equal(ta_discarded_inputs(s), 1);
	assert_int_equal(ta_values(s), 3);
	assert_int_equal(ta_add_sample(s, 1, 1, 0, 10, v, 3), 0);
	/* Fixed now. */
	assert_int_equal(ta_add_sample(s, 1, 1, 10, 20, v, 2), GROVE_EFORMAT);
	assert_int_equal(ta_fix_m(s, 2), GROVE_EINVAL);
	assert_int_equal(ta_fix_m(s, 3), 0);
	assert_int_equal(ta_add_sample(s, 0, 0, 10, 20, v, 3), 0);
	assert_int_equal(ta_add_sample(s, 1, 1, 10, 20, v, 3), 0);
	close_into(s, &k);
	assert_int_equal(k.n, 2);
	assert_int_equal(k.r[0].count, 2);
	assert_int_equal(k.r[0].m, 3);
	assert_int_equal(ta_discarded_inputs(s), 1);
	ta_free(s);

	/* Given in advance, M is fixed from the start. */
	s = ta_new(10, 4, 2);
	assert_int_equal(ta_fix_m(s, 0), GROVE_EFORMAT);
	assert_int_equal(ta_fix_m(s, 3), 0);
	assert_int_equal(ta_add_sample(s, 1, 1, 0, 10, v, 2), GROVE_EFORMAT);
	assert_int_equal(ta_add_sample(s, 1, 1, 0, 10, v, 3), 0);
	ta_free(s);

	/* An interval emitted fixes M too (one child: its first sample
	 * closes). */
	s = ta_new(10, 4, 1);
	assert_int_equal(ta_add_sample(s, 0, 0, 0, 10, v, 2), 0);
	k.n = 0;
	close_into(s, &k);
	assert_int_equal(k.n, 1);
	assert_int_equal(ta_add_sample(s, 0, 0, 10, 20, v, 3), GROVE_EFORMAT);
	ta_free(s);
}

/* ---- mixed input ---------------------------------------------------------- */

static void
test_mixed_raw_and_aggregated(void **st)
{
	(void)st;
	static sink k;
	k.n = 0;
	ta_state *s = ta_new(10, 4, 2);
	/* Child 0 is a node below with ranks 10 and 11. */
	double sum[2] = {9, 90}, mn[2] = {4, 30}, mx[2] = {5, 60};
	uint32_t mnr[2] = {10, 11}, mxr[2] = {11, 10};
	ta_agg a = {.start = 10, .end = 20, .count = 2, .m = 2, .sum = sum,
	    .min = mn, .min_rank = mnr, .max = mx, .max_rank = mxr};
	assert_int_equal(ta_add_interval(s, 0, &a), 0);
	/* Child 1 is back-end rank 3, not aligned to the grid. */
	double v[2] = {6, 40};
	assert_int_equal(ta_add_sample(s, 1, 3, 5, 20, v, 2), 0);
	close_into(s, &k);
	assert_int_equal(k.n, 2);
	assert_int_equal(k.r[0].start, 0);
	assert_int_equal(k.r[0].count, 1);
	assert_true(k.r[0].sum[0] == 2);
	assert_int_equal(k.r[1].start, 10);
	assert_int_equal(k.r[1].count, 3);
	assert_true(k.r[1].sum[0] == 13 && k.r[1].sum[1] == 90 + 40 - 40.0 / 3);
	assert_true(k.r[1].min[0] == 4 && k.r[1].minr[0] == 3); /* tie: 3 < 10 */
	assert_true(k.r[1].max[0] == 5 && k.r[1].maxr[0] == 11);
	assert_true(fabs(k.r[1].min[1] - 80.0 / 3) < 1e-12);
	assert_int_equal(k.r[1].minr[1], 3);
	assert_true(k.r[1].max[1] == 60 && k.r[1].maxr[1] == 10);
	ta_free(s);
}

static void
test_core_bad_input(void **st)
{
	(void)st;
	assert_null(ta_new(0, 4, 1));
	assert_null(ta_new(10, 0, 1));
	ta_state *s = ta_new(10, 4, 1);
	double v = 1;
	assert_int_equal(ta_add_sample(s, 0, 0, 10, 10, &v, 1), GROVE_EINVAL);
	assert_int_equal(ta_add_sample(s, 0, 0, 10, 5, &v, 1), GROVE_EINVAL);
	assert_int_equal(ta_add_sample(s, 0, 0, 0, 10, &v, 0), GROVE_EFORMAT);
	assert_int_equal(ta_add_sample(s, 0, 0, 0, 10ull * TA_MAX_SPAN + 1, &v,
	    1), GROVE_ERANGE);
	assert_int_equal(ta_add_sample(s, TA_MAX_CHILDREN, 0, 0, 10, &v, 1),
	    GROVE_EINVAL);
	/* Many values over many intervals: refused before any work. */
	static double many[256];
	ta_state *s2 = ta_new(10, 4, 1);
	assert_int_equal(ta_add_sample(s2, 0, 0, 0, 10 * 1025, many, 256),
	    GROVE_ERANGE);
	assert_int_equal(ta_add_sample(s2, 0, 0, 0, 10 * 1024, many, 256), 0);
	assert_int_equal(ta_open_intervals(s2), 1024);
	ta_free(s2);
	/* Timestamps near the top of the range do not overflow. */
	assert_int_equal(ta_add_sample(s, 0, 0, UINT64_MAX - 15, UINT64_MAX,
	    &v, 1), 0);
	uint32_t r = 0;
	ta_agg a = {.start = 5, .end = 15, .count = 1, .m = 1, .sum = &v,
	    .min = &v, .min_rank = &r, .max = &v, .max_rank = &r};
	assert_int_equal(ta_add_interval(s, 0, &a), GROVE_EINVAL);
	a.start = 10;
	a.end = 30;
	assert_int_equal(ta_add_interval(s, 0, &a), GROVE_EINVAL);
	a.end = 20;
	a.m = 2;
	assert_int_equal(ta_fix_m(s, 1), 0);
	assert_int_equal(ta_add_interval(s, 0, &a), GROVE_EFORMAT);
	/* Amounts that are not numbers. */
	a.m = 1;
	size_t open = ta_open_intervals(s);
	double bad[3] = {NAN, INFINITY, -INFINITY};
	for (int i = 0; i < 3; i++) {
		assert_int_equal(ta_add_sample(s, 0, 0, 20, 30, &bad[i], 1),
		    GROVE_EINVAL);
		a.sum = &bad[i];
		assert_int_equal(ta_add_interval(s, 0, &a), GROVE_EINVAL);
		a.sum = &v;
		a.min = &bad[i];
		assert_int_equal(ta_add_interval(s, 0, &a), GROVE_EINVAL);
		a.min = &v;
		a.max = &bad[i];
		assert_int_equal(ta_add_interval(s, 0, &a), GROVE_EINVAL);
		a.max = &v;
	}
	assert_int_equal(ta_open_intervals(s), open);
	ta_free(s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split_hand_computed),
		cmocka_unit_test(test_split_thirds_no_loss),
		cmocka_unit_test(test_sample_in_one_interval),
		cmocka_unit_test(test_out_of_order_two_children),
		cmocka_unit_test(test_overlapping_samples_add),
		cmocka_unit_test(test_late_dropped_and_counted),
		cmocka_unit_test(test_sum_conserved_random),
		cmocka_unit_test(test_min_max_ranks),
		cmocka_unit_test(test_dead_child_does_not_stall),
		cmocka_unit_test(test_silent_child_gets_longer_tolerance),
		cmocka_unit_test(test_fast_clock_does_not_hide_others),
		cmocka_unit_test(test_majority_dies),
		cmocka_unit_test(test_clock_far_ahead),
		cmocka_unit_test(test_clock_steps_back),
		cmocka_unit_test(test_far_ahead_two_children),
		cmocka_unit_test(test_far_first_sample),
		cmocka_unit_test(test_all_jump_ahead),
		cmocka_unit_test(test_one_stray_far_sample),
		cmocka_unit_test(test_first_m_replaced),
		cmocka_unit_test(test_mixed_raw_and_aggregated),
		cmocka_unit_test(test_core_bad_input),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

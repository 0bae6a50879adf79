/* Time-aligned aggregation: splitting samples over the interval grid,
 * per-interval buckets, and closing intervals under the lag policy (see
 * timealign_core.h).
 *
 * Open intervals live in an array of buckets sorted by interval index: a
 * node holds a few open intervals at a time (about max_lag of them), so
 * binary search and memmove on insert are cheaper than anything cleverer.
 * Inside a bucket, raw amounts are kept per back-end rank (sorted, so a
 * flat tree with a thousand back-ends still finds a rank quickly), because
 * min and max are over a rank's whole amount in the interval, which is
 * only known once all its pieces are in.  Aggregated intervals from nodes
 * below already carry per-rank minima and maxima of disjoint rank sets, so
 * they are folded in at once.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "grove/error.h"
#include "filter/timealign_core.h"

typedef struct ta_bucket {
	uint64_t k;
	/* folded aggregated input */
	uint32_t acount;
	double *asum, *amin, *amax;     /* m each */
	uint32_t *aminr, *amaxr;        /* m each */
	/* raw amounts per rank, sorted by rank */
	uint32_t *rank;
	double *rv;                     /* nr * m */
	size_t nr, capr;
} ta_bucket;

typedef struct ta_child {
	uint64_t frontier;  /* highest end delivered, ns (see note_seen) */
	uint64_t last_seq;  /* ta_state.seq at its last input */
	uint64_t far_end;   /* end of its last input dropped as too far
	                     * ahead, 0 when its last input was not */
	uint32_t far_count; /* such inputs in a row */
	unsigned char seen;
	unsigned char agg;  /* sent aggregated intervals */
} ta_child;

struct ta_state {
	uint64_t w;
	uint32_t lag;
	uint32_t m;         /* 0 until the first sample */
	/* M is final once given (ta_fix_m), once a second input was taken
	 * with it, or once an interval was emitted; until then it is the M
	 * of one lone input, which an input with another M replaces (see
	 * adopt_m). */
	int m_final;
	uint32_t m_inputs;  /* inputs taken with m (counted up to 2) */
	uint64_t discarded; /* lone inputs replaced that way */
	uint64_t floor;     /* intervals below are closed */
	uint64_t first_k;   /* lowest interval seen, valid if any_seen */
	int any_seen;
	uint64_t late;
	uint64_t early;     /* inputs dropped as too far ahead */
	uint64_t lead_k;    /* the lead at the last ta_close (0: none yet) */
	uint64_t seq;       /* inputs taken, for telling quiet children */
	ta_child *ch;
	uint32_t nch;
	uint64_t *pos;      /* scratch for close_limit, cappos of them */
	uint32_t cappos;
	ta_bucket **b;
	size_t nb, capb;
	/* scratch for ta_close outputs, 5 * m */
	double *out;
	uint32_t *outr;
};

ta_state *
ta_new(uint64_t width_ns, uint32_t max_lag, uint32_t n_children)
{
	if (width_ns == 0 || max_lag == 0 || n_children > TA_MAX_CHILDREN)
		return NULL;
	ta_state *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	s->w = width_ns;
	s->lag = max_lag;
	s->nch = n_children;
	s->ch = calloc(n_children ? n_children : 1, sizeof *s->ch);
	if (!s->ch) {
		free(s);
		return NULL;
	}
	return s;
}

static void
bucket_free(ta_bucket *b)
{
	if (!b)
		return;
	free(b->asum);
	free(b->rank);
	free(b->rv);
	free(b);
}

void
ta_free(ta_state *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nb; i++)
		bucket_free(s->b[i]);
	free(s->b);
	free(s->ch);
	free(s->pos);
	free(s->out);
	free(s->outr);
	free(s);
}

uint64_t
ta_width(const ta_state *s)
{
	return s->w;
}

uint32_t
ta_max_lag(const ta_state *s)
{
	return s->lag;
}

void
ta_set_max_lag(ta_state *s, uint32_t max_lag)
{
	if (max_lag)
		s->lag = max_lag;
}

uint64_t
ta_closed_below(const ta_state *s)
{
	return s->floor;
}

uint64_t
ta_early_inputs(const ta_state *s)
{
	return s ? s->early : 0;
}

uint64_t
ta_discarded_inputs(const ta_state *s)
{
	return s ? s->discarded : 0;
}

uint32_t
ta_values(const ta_state *s)
{
	return s->m;
}

uint64_t
ta_late_pieces(const ta_state *s)
{
	return s->late;
}

size_t
ta_open_intervals(const ta_state *s)
{
	return s->nb;
}

static uint64_t
sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* ---- checks done before anything changes ---------------------------- */

/* Whether an input with m values may be taken; changes nothing. */
static int
check_m(const ta_state *s, uint32_t m)
{
	if (m == 0 || m > TA_MAX_VALUES)
		return GROVE_EFORMAT;
	if (s->m && s->m != m && s->m_final)
		return GROVE_EFORMAT;
	return 0;
}

/* Forget every input (the one lone input taken so far): back to the state
 * of ta_new, but for the counters and the lag. */
static void
forget_inputs(ta_state *s)
{
	for (size_t i = 0; i < s->nb; i++)
		bucket_free(s->b[i]);
	s->nb = 0;
	memset(s->ch, 0, (size_t)s->nch * sizeof *s->ch);
	s->floor = 0;
	s->first_k = 0;
	s->any_seen = 0;
	s->lead_k = 0;
	s->seq = 0;
}

/* Make m the stream's M (check_m said yes).  When M was set by one lone
 * input that nothing has been aggregated with yet, that input is dropped
 * and counted: which of the two is the malformed one cannot be told, and
 * keeping the first would let one bad packet, sent first, have every good
 * one refused for the rest of the stream.  GROVE_ENOMEM before anything
 * changes. */
static int
adopt_m(ta_state *s, uint32_t m)
{
	if (s->m == m)
		return 0;
	double *out = malloc(3 * (size_t)m * sizeof *out);
	uint32_t *outr = malloc(2 * (size_t)m * sizeof *outr);
	if (!out || !outr) {
		free(out);
		free(outr);
		return GROVE_ENOMEM;
	}
	if (s->m) {
		forget_inputs(s);
		s->discarded++;
	}
	free(s->out);
	free(s->outr);
	s->out = out;
	s->outr = outr;
	s->m = m;
	s->m_inputs = 0;
	return 0;
}

/* An input was taken with the stream's M: a second one makes M final. */
static void
m_taken(ta_state *s)
{
	if (++s->m_inputs >= 2)
		s->m_final = 1;
}

int
ta_fix_m(ta_state *s, uint32_t m)
{
	if (!s)
		return GROVE_EINVAL;
	if (m == 0 || m > TA_MAX_VALUES)
		return GROVE_EFORMAT;
	if (s->m_final)
		return s->m == m ? 0 : GROVE_EINVAL;
	int rc = adopt_m(s, m);
	if (rc < 0)
		return rc;
	s->m_final = 1;
	return 0;
}

static int
check_child(ta_state *s, uint32_t child)
{
	if (child >= TA_MAX_CHILDREN)
		return GROVE_EINVAL;
	if (child < s->nch)
		return 0;
	ta_child *n = realloc(s->ch, ((size_t)child + 1) * sizeof *n);
	if (!n)
		return GROVE_ENOMEM;
	memset(n + s->nch, 0, ((size_t)child + 1 - s->nch) * sizeof *n);
	s->ch = n;
	s->nch = child + 1;
	return 0;
}

/* ---- buckets -------------------------------------------------------- */

/* Index of the first bucket with index >= k. */
static size_t
bucket_lower(const ta_state *s, uint64_t k)
{
	size_t lo = 0, hi = s->nb;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->b[mid]->k < k)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static ta_bucket *
bucket_get(ta_state *s, uint64_t k)
{
	size_t i = bucket_lower(s, k);
	if (i < s->nb && s->b[i]->k == k)
		return s->b[i];
	if (s->nb == s->capb) {
		size_t ncap = s->capb ? s->capb * 2 : 8;
		ta_bucket **nb = realloc(s->b, ncap * sizeof *nb);
		if (!nb)
			return NULL;
		s->b = nb;
		s->capb = ncap;
	}
	ta_bucket *b = calloc(1, sizeof *b);
	if (!b)
		return NULL;
	/* One block for the five aggregated arrays: doubles first keeps
	 * the uint32 part aligned. */
	size_t m = s->m;
	b->asum = malloc(3 * m * sizeof(double) + 2 * m * sizeof(uint32_t));
	if (!b->asum) {
		free(b);
		return NULL;
	}
	b->amin = b->asum + m;
	b->amax = b->amin + m;
	b->aminr = (uint32_t *)(b->amax + m);
	b->amaxr = b->aminr + m;
	memset(b->asum, 0, m * sizeof(double));
	b->k = k;
	memmove(s->b + i + 1, s->b + i, (s->nb - i) * sizeof *s->b);
	s->b[i] = b;
	s->nb++;
	return b;
}

/* The amount row of rank in bucket b (zeroed when new), or NULL. */
static double *
bucket_rank_row(ta_bucket *b, uint32_t rank, uint32_t m)
{
	size_t lo = 0, hi = b->nr;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (b->rank[mid] < rank)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < b->nr && b->rank[lo] == rank)
		return b->rv + lo * m;
	if (b->nr == b->capr) {
		size_t ncap = b->capr ? b->capr * 2 : 4;
		uint32_t *nr = realloc(b->rank, ncap * sizeof *nr);
		if (!nr)
			return NULL;
		b->rank = nr;
		double *nv = realloc(b->rv, ncap * m * sizeof *nv);
		if (!nv)
			return NULL;
		b->rv = nv;
		b->capr = ncap;
	}
	memmove(b->rank + lo + 1, b->rank + lo, (b->nr - lo) * sizeof *b->rank);
	memmove(b->rv + (lo + 1) * m, b->rv + lo * m,
	    (b->nr - lo) * m * sizeof *b->rv);
	b->rank[lo] = rank;
	memset(b->rv + lo * m, 0, m * sizeof *b->rv);
	b->nr++;
	return b->rv + lo * m;
}

/* The intervals of lag after which child c counts as lagging (and, with
 * no input for about as long, as quiet): max_lag for a child sending raw
 * samples, 2 * max_lag for one sending aggregated intervals or never
 * heard from (see ta_close). */
static uint64_t
child_tol(const ta_state *s, const ta_child *c)
{
	return c->seen && !c->agg ? s->lag : 2 * (uint64_t)s->lag;
}

/* Input more than TA_MAX_AHEAD intervals beyond where the node stands (the
 * lead at the last ta_close, or the lowest interval seen before that, and
 * at least the floor) is dropped and counted: a clock far ahead of the
 * majority's.  Taken, its intervals would stay open until the others got
 * there, one more for every interval that passes (a clock a day ahead
 * would hold a day of intervals), and once closed they would leave
 * everyone else's data late.  The input does not move its child's
 * position either (the child would lead on data nobody took); it is only
 * remembered in far_end, for when a majority jumps together (see
 * adopt_far).  Nothing stands yet before the first input. */
static int
too_far_ahead(ta_state *s, uint32_t child, uint64_t k, uint64_t end)
{
	if (!s->any_seen)
		return 0;
	uint64_t ref = s->lead_k > s->first_k ? s->lead_k : s->first_k;
	if (s->floor > ref)
		ref = s->floor;
	if (k <= ref || k - ref <= TA_MAX_AHEAD)
		return 0;
	s->early++;
	ta_child *ch = &s->ch[child];
	if (end > ch->far_end)
		ch->far_end = end;
	if (ch->far_count < UINT32_MAX)
		ch->far_count++;
	return 1;
}

static void
note_seen(ta_state *s, uint32_t child, uint64_t k_lo, uint64_t end, int agg)
{
	ta_child *c = &s->ch[child];
	if (agg)
		c->agg = 1;
	/* The frontier is the highest end, so samples may come in any
	 * order; but an end a whole lag tolerance below it is no reordering:
	 * the child's clock stepped back, and it now stands there (else it
	 * would count as far ahead for good). */
	if (!c->seen || end > c->frontier ||
	    sat_add(end / s->w, child_tol(s, c)) <= c->frontier / s->w)
		c->frontier = end;
	c->seen = 1;
	c->far_end = 0;
	c->far_count = 0;
	c->last_seq = ++s->seq;
	if (!s->any_seen || k_lo < s->first_k)
		s->first_k = k_lo;
	s->any_seen = 1;
}

/* Amounts must be numbers: a NaN would make min and max depend on the
 * order of arrival (every comparison with it is false), and an infinity
 * split over intervals gives NaN pieces. */
static int
all_finite(const double *v, uint32_t m)
{
	for (uint32_t j = 0; j < m; j++)
		if (!isfinite(v[j]))
			return 0;
	return 1;
}

/* ---- input ---------------------------------------------------------- */

/* Ties go to the lower rank, so results do not depend on arrival order. */
static int
better_min(double v, uint32_t r, double cur, uint32_t cur_r)
{
	return v < cur || (v == cur && r < cur_r);
}

static int
better_max(double v, uint32_t r, double cur, uint32_t cur_r)
{
	return v > cur || (v == cur && r < cur_r);
}

int
ta_add_sample(ta_state *s, uint32_t child, uint32_t rank, uint64_t start,
    uint64_t end, const double *v, uint32_t m)
{
	if (!s || (!v && m))
		return GROVE_EINVAL;
	if (end <= start)
		return GROVE_EINVAL;
	uint64_t k0 = start / s->w, k1 = (end - 1) / s->w;
	if (k1 - k0 >= TA_MAX_SPAN || (k1 - k0 + 1) * m > TA_MAX_CELLS)
		return GROVE_ERANGE;
	int rc = check_m(s, m);
	if (rc == 0 && !all_finite(v, m))
		rc = GROVE_EINVAL;
	if (rc == 0)
		rc = check_child(s, child);
	if (rc == 0)
		rc = adopt_m(s, m);
	if (rc < 0)
		return rc;
	if (too_far_ahead(s, child, k0, end)) {
		m_taken(s);
		return 0;
	}

	/* Make every bucket and rank row first, so that running out of
	 * memory cannot leave a sample half added (at worst a row of zeros
	 * remains). */
	for (uint64_t k = k0 > s->floor ? k0 : s->floor; k <= k1; k++) {
		ta_bucket *b = bucket_get(s, k);
		if (!b || !bucket_rank_row(b, rank, m))
			return GROVE_ENOMEM;
	}

	double dur = (double)(end - start);
	for (uint32_t j = 0; j < m; j++) {
		double given = 0;
		for (uint64_t k = k0; k <= k1; k++) {
			double piece;
			if (k == k1) {
				piece = v[j] - given;
			} else {
				uint64_t lo = k * s->w > start ? k * s->w : start;
				uint64_t hi = (k + 1) * s->w;
				piece = v[j] * ((double)(hi - lo) / dur);
				given += piece;
			}
			if (k < s->floor)
				continue;
			ta_bucket *b = s->b[bucket_lower(s, k)];
			bucket_rank_row(b, rank, m)[j] += piece;
		}
	}
	uint64_t late = s->floor > k0 ? (s->floor > k1 ? k1 + 1 : s->floor) - k0
	    : 0;
	s->late += late;
	note_seen(s, child, k0, end, 0);
	m_taken(s);
	return 0;
}

int
ta_add_interval(ta_state *s, uint32_t child, const ta_agg *a)
{
	if (!s || !a)
		return GROVE_EINVAL;
	if (a->start % s->w != 0 || a->end < a->start ||
	    a->end - a->start != s->w)
		return GROVE_EINVAL;
	if (a->m && (!a->sum || !a->min || !a->min_rank || !a->max ||
	    !a->max_rank))
		return GROVE_EINVAL;
	int rc = check_m(s, a->m);
	if (rc == 0 && (!all_finite(a->sum, a->m) || !all_finite(a->min, a->m) ||
	    !all_finite(a->max, a->m)))
		rc = GROVE_EINVAL;
	if (rc == 0)
		rc = check_child(s, child);
	if (rc == 0)
		rc = adopt_m(s, a->m);
	if (rc < 0)
		return rc;
	uint64_t k = a->start / s->w;
	if (k < s->floor) {
		s->late++;
		note_seen(s, child, k, a->end, 1);
		m_taken(s);
		return 0;
	}
	if (too_far_ahead(s, child, k, a->end)) {
		m_taken(s);
		return 0;
	}
	ta_bucket *b = bucket_get(s, k);
	if (!b)
		return GROVE_ENOMEM;
	uint32_t m = s->m;
	for (uint32_t j = 0; j < m; j++) {
		b->asum[j] += a->sum[j];
		if (a->count == 0)
			continue; /* no rank behind min and max */
		if (b->acount == 0 ||
		    better_min(a->min[j], a->min_rank[j], b->amin[j], b->aminr[j])) {
			b->amin[j] = a->min[j];
			b->aminr[j] = a->min_rank[j];
		}
		if (b->acount == 0 ||
		    better_max(a->max[j], a->max_rank[j], b->amax[j], b->amaxr[j])) {
			b->amax[j] = a->max[j];
			b->amaxr[j] = a->max_rank[j];
		}
	}
	/* Saturate: a count is bounded by the ranks of a network, so only a
	 * hostile packet gets here. */
	b->acount = a->count > UINT32_MAX - b->acount ? UINT32_MAX :
	    b->acount + a->count;
	note_seen(s, child, k, a->end, 1);
	m_taken(s);
	return 0;
}

/* ---- closing -------------------------------------------------------- */

/* Reduce bucket b into the scratch arrays and describe it in out. */
static void
bucket_reduce(const ta_state *s, const ta_bucket *b, ta_agg *out)
{
	uint32_t m = s->m;
	double *sum = s->out, *mn = sum + m, *mx = mn + m;
	uint32_t *mnr = s->outr, *mxr = mnr + m;
	for (uint32_t j = 0; j < m; j++) {
		double t = b->asum[j];
		int have = b->acount > 0;
		if (have) {
			mn[j] = b->amin[j];
			mnr[j] = b->aminr[j];
			mx[j] = b->amax[j];
			mxr[j] = b->amaxr[j];
		} else {
			mn[j] = mx[j] = 0;
			mnr[j] = mxr[j] = 0;
		}
		for (size_t i = 0; i < b->nr; i++) {
			double x = b->rv[i * m + j];
			uint32_t r = b->rank[i];
			t += x;
			if (!have || better_min(x, r, mn[j], mnr[j])) {
				mn[j] = x;
				mnr[j] = r;
			}
			if (!have || better_max(x, r, mx[j], mxr[j])) {
				mx[j] = x;
				mxr[j] = r;
			}
			have = 1;
		}
		sum[j] = t;
	}
	uint64_t count = (uint64_t)b->acount + b->nr;
	out->start = b->k * s->w;
	out->end = out->start + s->w;
	out->count = count > UINT32_MAX ? UINT32_MAX : (uint32_t)count;
	out->m = m;
	out->sum = sum;
	out->min = mn;
	out->min_rank = mnr;
	out->max = mx;
	out->max_rank = mxr;
}

/* A child is quiet when nothing came from it while the others sent about
 * tol intervals of input (each live child sends about one input per
 * interval): it is dead or stalled, and its position says nothing about
 * where the others are. */
static int
child_quiet(const ta_state *s, const ta_child *c, uint64_t n_seen)
{
	uint64_t window = child_tol(s, c) * (n_seen ? n_seen : 1);
	return s->seq - c->last_seq > window;
}

/* The k-th smallest of v[0..n) (k < n), reordering v: Hoare's selection,
 * linear on average.  ta_close runs for every packet a node takes in, so
 * a sort of all children's positions there would cost a flat node of
 * 1024 children n log n per packet. */
static uint64_t
select_kth(uint64_t *v, size_t n, size_t k)
{
	size_t lo = 0, hi = n; /* the k-th is in v[lo..hi) */
	for (;;) {
		if (hi - lo == 1)
			return v[lo];
		uint64_t p = v[lo + (hi - lo) / 2];
		/* Three ways: [lo, lt) < p, [lt, gt) == p (not empty: p is
		 * there), [gt, hi) > p. */
		size_t lt = lo, i = lo, gt = hi;
		while (i < gt) {
			uint64_t x = v[i];
			if (x < p) {
				v[i++] = v[lt];
				v[lt++] = x;
			} else if (x > p) {
				v[i] = v[--gt];
				v[gt] = x;
			} else {
				i++;
			}
		}
		if (k < lt)
			hi = lt;
		else if (k >= gt)
			lo = gt;
		else
			return p;
	}
}

/* Children whose last inputs were dropped as too far ahead (too_far_ahead)
 * are taken there when they are a majority of the children still
 * sending: then it is the node's clock that jumped (every back-end's, say
 * after a step of the time source), not one clock that is off, and
 * refusing them would drop everything from then on.  Their dropped
 * inputs stay dropped; those who have not jumped yet now lag.  A child
 * counts as jumped after TA_ADOPT_AFTER such inputs in a row: one stray
 * sample (of a node's only child, say) is dropped and costs nothing
 * else, where taking it would close the intervals the child was still
 * filling. */
#define TA_ADOPT_AFTER 2

static int
jumped(const ta_child *ch)
{
	return ch->far_end && ch->far_count >= TA_ADOPT_AFTER;
}

static void
adopt_far(ta_state *s)
{
	uint64_t n_seen = 0, n_far = 0, n_live = 0;
	for (uint32_t c = 0; c < s->nch; c++)
		n_seen += s->ch[c].seen;
	for (uint32_t c = 0; c < s->nch; c++) {
		const ta_child *ch = &s->ch[c];
		if (jumped(ch))
			n_far++;
		else if (!ch->far_end && ch->seen &&
		    !child_quiet(s, ch, n_seen))
			n_live++;
	}
	if (n_far == 0 || n_far <= n_live)
		return;
	for (uint32_t c = 0; c < s->nch; c++) {
		ta_child *ch = &s->ch[c];
		if (!jumped(ch))
			continue;
		ch->frontier = ch->far_end;
		ch->far_end = 0;
		ch->far_count = 0;
		ch->seen = 1;
		ch->last_seq = s->seq;
	}
}

/* The position the others are measured against: the (upper) median of
 * the positions of the children heard from that are not quiet.  Not the
 * most advanced one: a single child whose clock runs ahead would make
 * every other child lag and have all their data dropped as late.  The
 * median follows the majority, so a minority running ahead is waited for
 * when the others get there, and a minority behind is left out as
 * lagging.  With two children it is the more advanced (which of the two
 * is wrong cannot be told, and waiting for the one behind could stall
 * the stream); with one, that child. */
static int
close_lead(ta_state *s, uint64_t *lead)
{
	adopt_far(s);
	uint64_t n_seen = 0;
	for (uint32_t c = 0; c < s->nch; c++)
		n_seen += s->ch[c].seen;
	if (s->cappos < s->nch) {
		uint64_t *np = realloc(s->pos, (size_t)s->nch * sizeof *np);
		if (!np)
			return GROVE_ENOMEM;
		s->pos = np;
		s->cappos = s->nch;
	}
	size_t n = 0;
	uint64_t max = 0;
	for (uint32_t c = 0; c < s->nch; c++) {
		const ta_child *ch = &s->ch[c];
		if (!ch->seen)
			continue;
		uint64_t pos = ch->frontier / s->w;
		if (pos > max)
			max = pos;
		if (!child_quiet(s, ch, n_seen))
			s->pos[n++] = pos;
	}
	if (n == 0) {
		/* Cannot happen (the last sender is never quiet); the old
		 * rule is a safe answer. */
		*lead = max;
		return 0;
	}
	*lead = select_kth(s->pos, n, n / 2);
	s->lead_k = *lead;
	return 0;
}

/* The interval index below which every interval may be closed now. */
static int
close_limit(ta_state *s, uint64_t *out)
{
	*out = 0;
	if (!s->any_seen)
		return 0;
	uint64_t lead;
	int rc = close_lead(s, &lead);
	if (rc < 0)
		return rc;
	uint64_t limit = UINT64_MAX;
	for (uint32_t c = 0; c < s->nch; c++) {
		const ta_child *ch = &s->ch[c];
		uint64_t pos = ch->seen ? ch->frontier / s->w : s->first_k;
		if (sat_add(pos, child_tol(s, ch)) <= lead)
			continue; /* lagging: absent for what closes now */
		if (pos < limit)
			limit = pos;
	}
	/* Every child lagging cannot happen (the leader never lags), but an
	 * empty child table can: then the leader's own position rules. */
	*out = limit == UINT64_MAX ? lead : limit;
	/* Intervals were closed far beyond where the children now stand:
	 * the input that got them there came from a clock far off that
	 * nothing stood against yet (the first input), or the clocks jumped
	 * back together.  Everything would be late for good; start over
	 * where the children are (the one time intervals go back). */
	if (sat_add(*out, TA_MAX_AHEAD) < s->floor)
		s->floor = *out;
	return 0;
}

int
ta_close(ta_state *s, ta_emit_fn emit, void *arg)
{
	if (!s || !emit)
		return GROVE_EINVAL;
	uint64_t limit;
	int rc = close_limit(s, &limit);
	if (rc < 0)
		return rc;
	size_t n = 0;
	while (n < s->nb && s->b[n]->k < limit) {
		ta_bucket *b = s->b[n++];
		if (rc == 0 && (b->acount > 0 || b->nr > 0)) {
			ta_agg out;
			bucket_reduce(s, b, &out);
			s->m_final = 1; /* M went out: it is the stream's */
			rc = emit(arg, &out);
		}
		/* Only what was handed out fixes the order: an interval
		 * below the limit that nobody has sent anything for yet may
		 * still get data (and close at the next call). */
		s->floor = b->k + 1;
		bucket_free(b);
	}
	memmove(s->b, s->b + n, (s->nb - n) * sizeof *s->b);
	s->nb -= n;
	return rc;
}

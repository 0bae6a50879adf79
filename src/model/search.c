/* The optimizer's search strategies (section 3.1 of the P-LogP paper):
 * which segment sizes and which tree degrees get evaluated.  What an
 * evaluation computes is the caller's (see bcast.c).
 *
 * Segment sizes.  A message of n elements is cut into k segments of
 * j = ceil(n/k) elements; only the last one is shorter when j does not
 * divide n (it carries the remainder), and k_eff = ceil(n/j) segments are
 * actually sent.  The model charges every segment, the last included, as
 * a full one: the upper bound, like the paper's formulas.
 *
 * The heuristic tries k = 1, 2, 4, ... (m = M/2^i), then climbs from the
 * best of those by comparing k-5, k-1, k+1 and k+5 and moving to the best
 * of the four while that improves.  The exhaustive search tries every
 * distinct cut of every k in [1, n] (about 2 sqrt(n) of them).
 */
#include <string.h>

#include "model/model_impl.h"

static uint64_t
ceil_div(uint64_t a, uint64_t b)
{
	return a / b + (a % b != 0);
}

void
logp_seg_for_j(uint64_t n, uint32_t elem, uint64_t j, struct logp_seg *out)
{
	if (n == 0) {
		out->j = 0;
		out->k = 1;
		out->m = 0;
		return;
	}
	out->j = j;
	out->k = ceil_div(n, j);
	out->m = j * elem;
}

void
logp_seg_for_k(uint64_t n, uint32_t elem, uint64_t k, struct logp_seg *out)
{
	logp_seg_for_j(n, elem, n ? ceil_div(n, k) : 0, out);
}

struct searcher {
	logp_tree_search_fn fn;
	void *arg;
	grove_logp_search how;
	size_t size;
	void *best, *scratch;
	struct logp_seg best_seg;
	double best_T;
	int have;
	uint64_t evaluated;
};

/* Evaluates one cut; keeps it when it is the best so far.  Returns its
 * completion time. */
static double
try_seg(struct searcher *s, const struct logp_seg *seg)
{
	double T = s->fn(s->arg, seg, s->how, s->scratch);

	s->evaluated++;
	if (!s->have || T < s->best_T) {
		s->have = 1;
		s->best_T = T;
		s->best_seg = *seg;
		memcpy(s->best, s->scratch, s->size);
	}
	return T;
}

static void
search_exhaustive(struct searcher *s, uint64_t n, uint32_t elem)
{
	struct logp_seg seg;

	/* Every k in [1, n] maps to j = ceil(n/k); the k sharing one j
	 * form a run, the next run starts at ceil(n/(j-1)). */
	for (uint64_t k = 1; k <= n;) {
		logp_seg_for_k(n, elem, k, &seg);
		try_seg(s, &seg);
		if (seg.j <= 1)
			break;
		k = ceil_div(n, seg.j - 1);
	}
}

static void
search_heuristic(struct searcher *s, uint64_t n, uint32_t elem)
{
	static const int64_t steps[] = {-5, -1, 1, 5};
	struct logp_seg seg, cur, cand_seg;
	double cur_T, cand_T;

	for (uint64_t k = 1; k <= n; k *= 2) {
		logp_seg_for_k(n, elem, k, &seg);
		try_seg(s, &seg);
		if (k > n / 2)
			break;
	}
	/* Hill climbing from the best power of two.  try_seg keeps the best
	 * of everything evaluated, so the climb only needs positions. */
	cur = s->best_seg;
	cur_T = s->best_T;
	for (;;) {
		int have_cand = 0;

		cand_T = 0;
		for (unsigned i = 0; i < sizeof steps / sizeof steps[0]; i++) {
			int64_t kk = (int64_t)cur.k + steps[i];
			double T;

			if (kk < 1 || (uint64_t)kk > n)
				continue;
			logp_seg_for_k(n, elem, (uint64_t)kk, &seg);
			if (seg.j == cur.j) {
				/* Small segments: several k share one size;
				 * one step up means the next smaller size. */
				if (steps[i] < 0 || cur.j <= 1)
					continue;
				logp_seg_for_j(n, elem, cur.j - 1, &seg);
			}
			T = try_seg(s, &seg);
			if (!have_cand || T < cand_T) {
				have_cand = 1;
				cand_T = T;
				cand_seg = seg;
			}
		}
		if (!have_cand || !(cand_T < cur_T))
			break;
		cur = cand_seg;
		cur_T = cand_T;
	}
}

double
logp_search_segments(uint64_t n, uint32_t elem, grove_logp_search how,
    logp_tree_search_fn fn, void *arg, size_t result_size, void *best,
    void *scratch, struct logp_seg *best_seg, uint64_t *evaluated)
{
	struct searcher s = {
		.fn = fn, .arg = arg, .how = how, .size = result_size,
		.best = best, .scratch = scratch,
	};
	struct logp_seg seg;

	if (n == 0) {
		logp_seg_for_k(0, elem, 1, &seg);
		try_seg(&s, &seg);
	} else if (how == GROVE_LOGP_EXHAUSTIVE) {
		search_exhaustive(&s, n, elem);
	} else {
		search_heuristic(&s, n, elem);
	}
	*best_seg = s.best_seg;
	if (evaluated)
		*evaluated += s.evaluated;
	return s.best_T;
}

uint32_t
logp_next_useful_degree(uint64_t P, uint32_t d, uint32_t last)
{
	uint32_t h = grove_logp_min_height(P, d), lo, hi;

	if (h <= 1 || d >= last)
		return 0;
	/* The smallest degree whose minimal height is below h: the height
	 * does not grow with the degree, so bisect. */
	lo = d + 1;
	hi = last;
	if (grove_logp_min_height(P, hi) >= h)
		return 0;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (grove_logp_min_height(P, mid) < h)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

uint32_t
logp_next_fewer_forwarders(uint64_t P, uint32_t d, uint32_t last)
{
	/* A breadth-first tree of degree d has f = ceil((P-1)/d) forwarding
	 * processes; f - 1 of them take ceil((P-1)/(f-1)) children. */
	uint64_t n = P > 0 ? P - 1 : 0, f, next;

	if (d == 0 || d >= last || n == 0)
		return 0;
	f = (n + d - 1) / d;
	if (f <= 1)
		return 0;
	next = (n + (f - 1) - 1) / (f - 1);
	return next <= last ? (uint32_t)next : 0;
}

uint32_t
logp_first_degree(const grove_logp_link *l, uint32_t last)
{
	double q;

	if (last <= 1)
		return last;
	/* With fewer than g/s children a node leaves bandwidth unused,
	 * which only makes the tree slower (section 3.1, rule 1). */
	if (!(l->s > 0))
		return last;
	q = l->g / l->s;
	if (!(q >= 1))
		return 1;
	if (q >= (double)last)
		return last;
	return (uint32_t)q;
}

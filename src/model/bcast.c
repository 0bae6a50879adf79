/* Broadcast plans: what each scheme's completion time is for a given
 * choice of segments and trees, and the search for the best choice.
 *
 *   optimized          T = (k-1) gamma + lambda_w + lambda_l, the
 *                      two-layer pipelined broadcast of section 3.2
 *   sequential         T = T_w + T_l, each layer segmented and optimized
 *                      on its own (section 3.2, first formula)
 *   original           whole message; the root sends it to the other
 *                      coordinators one after another with blocking
 *                      sends, each taking max(s_w, g_w)(M); every
 *                      coordinator then runs a binomial LAN tree
 *   whole-nonblocking  the same, but the root's sends do not block: each
 *                      takes s_w(M) = max(g_l, os_w)(M)
 *
 * With sys.cores > 0 every process runs on one host of that many cores,
 * and each scheme's phases are also bounded by the CPU work of the
 * message hops they run at the same time (host_* below).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model_impl.h"

/* The most tree configurations GROVE_LOGP_EXHAUSTIVE may evaluate
 * (docs/logp.md, "Limits"). */
#define LOGP_EXHAUSTIVE_LIMIT 1e9

static double
max2(double a, double b)
{
	return a > b ? a : b;
}

struct ctx {
	const grove_logp_params *p;
	grove_logp_system sys;
	uint64_t n; /* elements */
	uint32_t elem;
};

/* The links of both layers at segment size m (a layer with one process
 * needs none). */
static void
links_at(const struct ctx *c, double m, grove_logp_link *w,
    grove_logp_link *l)
{
	memset(w, 0, sizeof *w);
	memset(l, 0, sizeof *l);
	/* Classes were checked by check_system(): these cannot fail. */
	if (c->sys.clusters > 1)
		(void)grove_logp_link_wide(c->p, c->sys.local, c->sys.wide, m,
		    w);
	if (c->sys.per_cluster > 1)
		(void)grove_logp_link_single(c->p, c->sys.local, m, l);
}

/* A layer's tree of degree d: of height h, or of the minimal height for
 * d when h is 0 (the complete trees the optimizer builds). */
static void
layer_tree(grove_logp_layer *ly, const grove_logp_link *link, uint32_t P,
    uint32_t d, uint32_t h, const struct logp_seg *seg)
{
	memset(ly, 0, sizeof *ly);
	ly->P = P;
	ly->k = seg->k;
	ly->m = seg->m;
	if (P <= 1)
		return;
	ly->d = d;
	ly->h = h ? h : grove_logp_min_height(P, d);
	grove_logp_tree(link, ly->d, ly->h, &ly->gamma, &ly->lambda);
}

/* ---- the host CPU bound --------------------------------------------- */

/* Processes of a tree of P that forward: breadth-first d-ary trees fill
 * their first ceil((P-1)/d) processes; in a binomial tree (parent: clear
 * the low bit) process v has children iff it is even and v + 1 < P. */
static uint32_t
forwarders(uint32_t P, uint32_t d, int binomial)
{
	if (P <= 1)
		return 0;
	if (binomial || !d)
		return P / 2;
	return (P - 2) / d + 1;
}

/* The hand-offs (sys.handoff) of a two-layer tree: one per forwarding
 * process but the root, which has the message.  Coordinators forward in
 * their cluster's tree when it has more than one process, else in the
 * WAN tree. */
static uint32_t
handoffs(const struct ctx *c, uint32_t d_w, uint32_t d_l, int binomial)
{
	uint32_t C = c->sys.clusters, Pl = c->sys.per_cluster, n;

	if (!c->sys.handoff || !c->sys.cores)
		return 0;
	n = Pl > 1 ? C * forwarders(Pl, d_l, binomial) :
	    forwarders(C, d_w, 0);
	return n ? n - 1 : 0;
}

/* Hops of one cluster's LAN tree other than the root's (whose root hands
 * nothing off): P_l - 1, and one hand-off per forwarding process. */
static double
lan_tree_hops(const struct ctx *c, uint32_t d_l, int binomial)
{
	uint32_t Pl = c->sys.per_cluster;

	if (Pl <= 1)
		return 0;
	return (double)(Pl - 1) + (c->sys.handoff ?
	    (double)forwarders(Pl, d_l, binomial) : 0);
}

/* w(m) of the local class, the CPU work (sender and receiver together)
 * of one message hop, at the crowd size of this broadcast: all its C P
 * processes, and `extra` hand-off processes, on the host's cores take
 * turns, that many per core, and a hop wakes a process whose caches the
 * others have used since.  0 when the processes have hosts of their
 * own. */
static double
host_hop_work(const struct ctx *c, double m, uint32_t extra)
{
	double per_core, w;

	if (!c->sys.cores)
		return 0;
	per_core = ((double)c->sys.clusters * c->sys.per_cluster + extra) /
	    c->sys.cores;
	if (grove_logp_params_work_at(c->p, c->sys.local, m, per_core, &w))
		return 0;
	return w;
}

/* When each cluster starts its LAN tree: coordinators form a d-ary tree
 * (breadth-first numbering, as grove_logp_tree_kary) whose node i is
 * reached at the j-th send of its parent, j = (i-1) mod d, r after the
 * send starts; a coordinator serves its WAN children (s apart) before
 * its cluster.  The root's cluster starts after the root's WAN sends. */
static void
host_cluster_starts(uint32_t C, uint32_t d, double s, double r,
    double *start, double *arrival)
{
	arrival[0] = 0;
	for (uint32_t i = 1; i < C; i++)
		arrival[i] = arrival[(i - 1) / d] + (double)((i - 1) % d) * s + r;
	for (uint32_t i = 0; i < C; i++) {
		uint64_t first = (uint64_t)i * d + 1, kids = 0;

		if (first < C)
			kids = C - first < d ? C - first : d;
		start[i] = arrival[i] + (double)kids * s;
	}
}

/* The duration of the LAN phase of the cluster that starts last, at most
 * `lambda` on hardware of its own.  The clusters whose trees run at the
 * same time as that one (start less than its duration before it) share
 * the host's cores: each tree makes P_l - 1 message hops of work w, and
 * together they cannot take less than their work over the cores.  The
 * duration and the set grow together: iterate to the fixed point (the set
 * gains a cluster per step). */
static double
host_lan_phase(const double *start, uint32_t C, double lambda,
    double tree_work, uint32_t cores)
{
	double last = start[0], D = lambda;

	for (uint32_t i = 1; i < C; i++)
		last = max2(last, start[i]);
	for (uint32_t step = 0; step <= C; step++) {
		uint32_t n = 0;
		double need;

		for (uint32_t i = 0; i < C; i++)
			n += start[i] > last - D || start[i] == last;
		need = (double)n * tree_work / (double)cores;
		if (!(need > D))
			break;
		D = need;
	}
	return D;
}

/* Raises a layer's LAN phase to the host CPU bound for clusters starting
 * at the times host_cluster_starts gives; the layer's lambda as it is when
 * there is no bound (or no memory for the start times). */
static double
host_bounded_lan(const struct ctx *c, double w, double tree_hops,
    uint32_t d_w, double s, double r, double lambda)
{
	uint32_t C = c->sys.clusters, Pl = c->sys.per_cluster;
	double *t, D;

	if (!c->sys.cores || !(w > 0) || Pl <= 1)
		return lambda;
	t = malloc(2 * (size_t)C * sizeof *t);
	if (!t)
		return lambda;
	if (C > 1)
		host_cluster_starts(C, d_w ? d_w : 1, s, r, t, t + C);
	else
		t[0] = 0;
	D = host_lan_phase(t, C, lambda, tree_hops * w, c->sys.cores);
	free(t);
	return D;
}

/* The pipelined two-layer plan for one cut and one pair of degrees. */
static double
pipelined(const struct ctx *c, const grove_logp_link *w,
    const grove_logp_link *l, const struct logp_seg *seg, uint32_t d_w,
    uint32_t d_l, uint32_t h_w, uint32_t h_l, grove_logp_plan *plan)
{
	plan->scheme = GROVE_LOGP_OPTIMIZED;
	plan->k = seg->k;
	plan->m = seg->m;
	layer_tree(&plan->wan, w, c->sys.clusters, d_w, h_w, seg);
	layer_tree(&plan->lan, l, c->sys.per_cluster, d_l, h_l, seg);
	plan->gamma = grove_logp_pipelined_gamma(w, plan->wan.d, l,
	    plan->lan.d);
	if (c->sys.cores) {
		/* Every process receives every segment once, all on one
		 * host: the pipeline cannot run faster than that work over
		 * the cores.  The first segment's LAN trees share them too. */
		uint32_t extra = handoffs(c, plan->wan.d, plan->lan.d, 0);
		double hw = host_hop_work(c, (double)seg->m, extra);
		double all = (double)c->sys.clusters * c->sys.per_cluster -
		    1 + extra;

		plan->gamma = max2(plan->gamma, all * hw / c->sys.cores);
		plan->lan.lambda = host_bounded_lan(c, hw,
		    lan_tree_hops(c, plan->lan.d, 0), plan->wan.d, w->s,
		    w->r, plan->lan.lambda);
	}
	plan->lambda = plan->wan.lambda + plan->lan.lambda;
	plan->T = grove_logp_completion(seg->k, plan->gamma, plan->lambda);
	return plan->T;
}

/* The first degree a search evaluates for a layer of P > 1 processes. */
static uint32_t
first_degree(grove_logp_search how, const grove_logp_link *l, uint32_t P)
{
	return how == GROVE_LOGP_EXHAUSTIVE ? 1 : logp_first_degree(l, P - 1);
}

/* The degree it evaluates after d; 0 when there is none left. */
static uint32_t
next_degree(const struct ctx *c, grove_logp_search how, uint32_t P,
    uint32_t d, uint32_t last)
{
	uint32_t h, f;

	if (how == GROVE_LOGP_EXHAUSTIVE)
		return d < last ? d + 1 : 0;
	h = logp_next_useful_degree(P, d, last);
	if (!c->sys.handoff || !c->sys.cores)
		return h;
	/* Hand-offs are work at any height: a degree with fewer
	 * forwarders can win without lowering the tree. */
	f = logp_next_fewer_forwarders(P, d, last);
	return !h ? f : !f ? h : h < f ? h : f;
}

/* Best degrees of the pipelined broadcast for one cut. */
static double
pipelined_best(void *arg, const struct logp_seg *seg, grove_logp_search how,
    void *result)
{
	const struct ctx *c = arg;
	uint32_t C = c->sys.clusters, Pl = c->sys.per_cluster;
	uint32_t wlast = C - 1, llast = Pl - 1;
	grove_logp_link w, l;
	grove_logp_plan cand;
	double best = 0;
	int have = 0;
	uint32_t d_w;

	links_at(c, (double)seg->m, &w, &l);
	d_w = C <= 1 ? 0 : first_degree(how, &w, C);
	for (;;) {
		uint32_t d_l, dl_last = llast;

		if (Pl > 1 && C > 1 && how == GROVE_LOGP_PAPER) {
			/* Only LAN trees that fit in the time the WAN
			 * leaves over (gamma').  This misses when the
			 * pipeline is short (small k: latency matters more
			 * than gap) or the WAN is not much slower than the
			 * LAN, so the default heuristic does without: the
			 * degrees above it that lower the height are only
			 * O(log P) more evaluations. */
			double gp = grove_logp_gamma_prime(&w, d_w, &l);
			double q = l.s > 0 ? gp / l.s : (double)llast;

			/* !(q >= 1) also catches a NaN from overflowing
			 * parameters. */
			dl_last = !(q >= 1) ? 1 : q >= (double)llast ? llast :
			    (uint32_t)q;
		}
		/* Below a WAN the LAN degrees start at 1 (section 3.2);
		 * alone, the LAN is a single layer (section 3.1). */
		d_l = Pl <= 1 ? 0 : C > 1 ? 1 : first_degree(how, &l, Pl);
		for (;;) {
			double T = pipelined(c, &w, &l, seg, d_w, d_l, 0, 0,
			    &cand);

			if (!have || T < best) {
				have = 1;
				best = T;
				memcpy(result, &cand, sizeof cand);
			}
			if (Pl <= 1)
				break;
			d_l = next_degree(c, how, Pl, d_l, dl_last);
			if (!d_l)
				break;
		}
		if (C <= 1)
			break;
		d_w = next_degree(c, how, C, d_w, wlast);
		if (!d_w)
			break;
	}
	return best;
}

/* One layer of the sequential scheme, optimized alone. */
struct single {
	const struct ctx *c;
	int wide; /* the WAN layer (else the LAN layer) */
	uint32_t P;
};

static double
single_best(void *arg, const struct logp_seg *seg, grove_logp_search how,
    void *result)
{
	const struct single *sg = arg;
	grove_logp_link w, l;
	const grove_logp_link *link;
	grove_logp_layer cand, *best = result;
	uint32_t last = sg->P - 1, d;
	int have = 0;

	links_at(sg->c, (double)seg->m, &w, &l);
	link = sg->wide ? &w : &l;
	d = sg->P <= 1 ? 0 : first_degree(how, link, sg->P);
	for (;;) {
		layer_tree(&cand, link, sg->P, d, 0, seg);
		if (sg->P > 1 && sg->c->sys.cores) {
			/* The host CPU bound: the WAN layer's C - 1 hops, or
			 * all clusters' LAN trees at once, per segment and
			 * for the first one; hand-offs of this layer's
			 * forwarding processes but the root. */
			const struct ctx *c = sg->c;
			uint32_t extra = sg->wide ? (c->sys.per_cluster > 1 ?
			    0 : handoffs(c, d, 0, 0)) :
			    (c->sys.handoff ? c->sys.clusters *
			    forwarders(sg->P, d, 0) - 1 : 0);
			double hops = sg->wide ? (double)sg->P - 1 + extra :
			    (double)c->sys.clusters * (sg->P - 1) + extra;
			double bound = hops * host_hop_work(c,
			    (double)seg->m, extra) / c->sys.cores;

			cand.gamma = max2(cand.gamma, bound);
			cand.lambda = max2(cand.lambda, bound);
		}
		if (!have || grove_logp_completion(cand.k, cand.gamma,
		    cand.lambda) < grove_logp_completion(best->k, best->gamma,
		    best->lambda)) {
			have = 1;
			*best = cand;
		}
		if (sg->P <= 1)
			break;
		d = next_degree(sg->c, how, sg->P, d, last);
		if (!d)
			break;
	}
	return grove_logp_completion(best->k, best->gamma, best->lambda);
}

static void
plan_sequential(const struct ctx *c, grove_logp_search how,
    grove_logp_plan *plan)
{
	struct single sw = {c, 1, c->sys.clusters};
	struct single sl = {c, 0, c->sys.per_cluster};
	grove_logp_layer scratch;
	struct logp_seg seg;
	double Tw, Tl;

	Tw = logp_search_segments(c->n, c->elem, how, single_best, &sw,
	    sizeof scratch, &plan->wan, &scratch, &seg, &plan->evaluated);
	Tl = logp_search_segments(c->n, c->elem, how, single_best, &sl,
	    sizeof scratch, &plan->lan, &scratch, &seg, &plan->evaluated);
	plan->T = Tw + Tl;
	/* The top-level numbers are the first layer's that exists. */
	{
		const grove_logp_layer *first = c->sys.clusters > 1 ||
		    c->sys.per_cluster <= 1 ? &plan->wan : &plan->lan;

		plan->k = first->k;
		plan->m = first->m;
		plan->gamma = first->gamma;
		plan->lambda = first->lambda;
	}
}

/* The whole-message schemes: a flat WAN tree, then binomial LAN trees. */
static void
plan_whole(const struct ctx *c, int blocking, grove_logp_plan *plan)
{
	uint32_t C = c->sys.clusters, Pl = c->sys.per_cluster;
	double M = (double)(c->n * c->elem), root_busy = 0, wan_done = 0;
	struct logp_seg seg;
	grove_logp_link w, l, wsend;

	logp_seg_for_j(c->n, c->elem, c->n, &seg);
	links_at(c, M, &w, &l);
	plan->k = 1;
	plan->m = seg.m;
	memset(&plan->wan, 0, sizeof plan->wan);
	memset(&plan->lan, 0, sizeof plan->lan);
	plan->wan.P = C;
	plan->lan.P = Pl;
	plan->wan.k = plan->lan.k = 1;
	plan->wan.m = plan->lan.m = seg.m;
	if (C > 1) {
		wsend = w;
		/* A blocking send returns when the message has left over
		 * the WAN link. */
		if (blocking)
			wsend.s = max2(w.s, w.g);
		plan->wan.d = C - 1;
		plan->wan.h = 1;
		grove_logp_flat(&wsend, C, &plan->wan.gamma,
		    &plan->wan.lambda);
		root_busy = (double)(C - 1) * wsend.s;
		/* The root starts its own cluster's tree after its last
		 * WAN send; the last coordinator after its receive. */
		wan_done = max2(root_busy, plan->wan.lambda);
	}
	if (Pl > 1) {
		plan->lan.binomial = 1;
		/* A binomial tree of Pl processes: the root sends
		 * ceil(log2 Pl) times; rank v sits at depth popcount(v),
		 * so the height is the most bits set below Pl. */
		uint32_t top = Pl - 1, bits = 0;

		while ((UINT64_C(1) << plan->lan.d) < Pl)
			plan->lan.d++;
		while (top >> bits > 1)
			bits++; /* top has bits + 1 bits */
		plan->lan.h = (uint32_t)__builtin_popcount(top);
		if (plan->lan.h < bits)
			plan->lan.h = bits;
		grove_logp_tree(&l, plan->lan.d, plan->lan.h, &plan->lan.gamma,
		    NULL);
		plan->lan.lambda = grove_logp_binomial_lambda(&l, Pl);
		/* The clusters' trees share the host's cores (sys.cores):
		 * coordinators reached one WAN send apart start theirs at
		 * about the same time. */
		plan->lan.lambda = host_bounded_lan(c, host_hop_work(c, M,
		    handoffs(c, C - 1, 0, 1)), lan_tree_hops(c, 0, 1), C - 1,
		    C > 1 ? wsend.s : 0, C > 1 ? w.r : 0, plan->lan.lambda);
	}
	plan->lambda = wan_done + plan->lan.lambda;
	plan->gamma = max2(plan->wan.gamma, plan->lan.gamma);
	plan->T = plan->lambda;
}

static int
check_system(const grove_logp_params *p, const grove_logp_system *sys,
    uint64_t size, uint32_t elem, char *err, size_t errlen)
{
	if (!p || !sys) {
		errfmt(err, errlen, "invalid argument");
		return GROVE_EINVAL;
	}
	if (sys->clusters == 0 || sys->per_cluster == 0) {
		errfmt(err, errlen, "impossible cluster map: %u cluster%s of "
		    "%u process%s", sys->clusters,
		    sys->clusters == 1 ? "" : "s", sys->per_cluster,
		    sys->per_cluster == 1 ? "" : "es");
		return GROVE_EINVAL;
	}
	if (elem == 0 || size % elem) {
		errfmt(err, errlen, "message size %llu is not a multiple of "
		    "the element size %u", (unsigned long long)size, elem);
		return GROVE_EINVAL;
	}
	if ((unsigned)sys->local >= GROVE_LOGP_NCLASSES ||
	    (unsigned)sys->wide >= GROVE_LOGP_NCLASSES) {
		errfmt(err, errlen, "invalid link class");
		return GROVE_EINVAL;
	}
	/* The local class carries LAN trees and the first hop of every WAN
	 * send (s_w = max(g_l, os_w)). */
	if ((sys->per_cluster > 1 || sys->clusters > 1) &&
	    !grove_logp_params_has(p, sys->local)) {
		errfmt(err, errlen, "the parameters have no '%s' link class",
		    grove_logp_class_name(sys->local));
		return GROVE_ENOENT;
	}
	if (sys->clusters > 1 && !grove_logp_params_has(p, sys->wide)) {
		errfmt(err, errlen, "the parameters have no '%s' link class",
		    grove_logp_class_name(sys->wide));
		return GROVE_ENOENT;
	}
	return 0;
}

/* What both entry points check first; fills c for them. */
static int
ctx_init(struct ctx *c, const grove_logp_params *p,
    const grove_logp_system *sys, uint64_t size, uint32_t elem,
    const grove_logp_plan *out, char *err, size_t errlen)
{
	int rc;

	if (!out) {
		errfmt(err, errlen, "invalid argument");
		return GROVE_EINVAL;
	}
	rc = check_system(p, sys, size, elem, err, errlen);
	if (rc)
		return rc;
	c->p = p;
	c->sys = *sys;
	c->n = size / elem;
	c->elem = elem;
	return 0;
}

/* Refuses a plan whose times overflowed: parameters within the file
 * format's bounds cannot get there, but values set through the API or
 * an extreme cluster map can, and inf or NaN must never be printed as a
 * prediction. */
static int
check_finite(const grove_logp_plan *plan, char *err, size_t errlen)
{
	const double v[] = {
		plan->T, plan->gamma, plan->lambda, plan->wan.gamma,
		plan->wan.lambda, plan->lan.gamma, plan->lan.lambda,
	};

	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		if (!isfinite(v[i])) {
			errfmt(err, errlen, "the predicted times overflow "
			    "(T = %g us): the parameters are too large to "
			    "model", plan->T);
			return GROVE_ERANGE;
		}
	}
	return 0;
}

/* About how many tree configurations the exhaustive search evaluates:
 * at most 2 sqrt(n) distinct cuts, times every pair of degrees (the
 * optimized scheme) or the degrees of each layer (the sequential one). */
static double
exhaustive_cost(const struct ctx *c, grove_logp_scheme scheme)
{
	double cuts = c->n <= 1 ? 1 : 2 * sqrt((double)c->n);
	double dw = c->sys.clusters > 1 ? (double)c->sys.clusters - 1 : 1;
	double dl = c->sys.per_cluster > 1 ?
	    (double)c->sys.per_cluster - 1 : 1;

	if ((double)c->n < cuts)
		cuts = (double)c->n;
	if (cuts < 1)
		cuts = 1;
	return cuts * (scheme == GROVE_LOGP_SEQUENTIAL ? dw + dl : dw * dl);
}

int
grove_logp_bcast_plan(const grove_logp_params *p,
    const grove_logp_system *sys, grove_logp_scheme scheme, uint64_t size,
    uint32_t elem, grove_logp_search how, grove_logp_plan *out, char *err,
    size_t errlen)
{
	struct ctx c;
	grove_logp_plan scratch;
	struct logp_seg seg;
	uint64_t evaluated;
	int rc;

	rc = ctx_init(&c, p, sys, size, elem, out, err, errlen);
	if (rc)
		return rc;
	if (how != GROVE_LOGP_HEURISTIC && how != GROVE_LOGP_EXHAUSTIVE &&
	    how != GROVE_LOGP_PAPER) {
		errfmt(err, errlen, "invalid search");
		return GROVE_EINVAL;
	}
	if (how == GROVE_LOGP_EXHAUSTIVE && (scheme == GROVE_LOGP_OPTIMIZED ||
	    scheme == GROVE_LOGP_SEQUENTIAL)) {
		double cost = exhaustive_cost(&c, scheme);

		/* At some 10^7 evaluations a second the limit is minutes;
		 * beyond it the search would run for hours or years. */
		if (cost > LOGP_EXHAUSTIVE_LIMIT) {
			errfmt(err, errlen, "the exhaustive search would "
			    "evaluate about %.2g configurations (the limit is "
			    "%.0e); use the default heuristic search",
			    cost, LOGP_EXHAUSTIVE_LIMIT);
			return GROVE_ERANGE;
		}
	}
	memset(out, 0, sizeof *out);
	switch (scheme) {
	case GROVE_LOGP_OPTIMIZED:
		evaluated = 0;
		logp_search_segments(c.n, elem, how, pipelined_best, &c,
		    sizeof scratch, out, &scratch, &seg, &evaluated);
		out->evaluated = evaluated;
		break;
	case GROVE_LOGP_SEQUENTIAL:
		plan_sequential(&c, how, out);
		break;
	case GROVE_LOGP_ORIGINAL:
	case GROVE_LOGP_WHOLE_NONBLOCKING:
		plan_whole(&c, scheme == GROVE_LOGP_ORIGINAL, out);
		out->evaluated = 1;
		break;
	default:
		errfmt(err, errlen, "invalid scheme");
		return GROVE_EINVAL;
	}
	out->scheme = scheme;
	out->size = size;
	return check_finite(out, err, errlen);
}

int
grove_logp_bcast_eval(const grove_logp_params *p,
    const grove_logp_system *sys, uint64_t size, uint32_t elem, uint64_t k,
    uint32_t d_w, uint32_t d_l, grove_logp_plan *out, char *err,
    size_t errlen)
{
	return grove_logp_bcast_eval_depth(p, sys, size, elem, k, d_w, d_l,
	    0, 0, out, err, errlen);
}

/* A height for a layer of P processes and degree d: 0 (the minimal one)
 * or one a tree of that degree can have, from the minimal height to a
 * chain's P - 1. */
static int
height_ok(uint32_t P, uint32_t d, uint32_t h)
{
	return P <= 1 || h == 0 || (h >= grove_logp_min_height(P, d) &&
	    h <= P - 1);
}

int
grove_logp_bcast_eval_depth(const grove_logp_params *p,
    const grove_logp_system *sys, uint64_t size, uint32_t elem, uint64_t k,
    uint32_t d_w, uint32_t d_l, uint32_t h_w, uint32_t h_l,
    grove_logp_plan *out, char *err, size_t errlen)
{
	struct ctx c;
	struct logp_seg seg;
	grove_logp_link w, l;
	int rc;

	rc = ctx_init(&c, p, sys, size, elem, out, err, errlen);
	if (rc)
		return rc;
	if (k == 0 || (c.n && k > c.n)) {
		errfmt(err, errlen, "segment count %llu not in [1, %llu]",
		    (unsigned long long)k,
		    (unsigned long long)(c.n ? c.n : 1));
		return GROVE_EINVAL;
	}
	if ((sys->clusters > 1 && (d_w == 0 || d_w >= sys->clusters)) ||
	    (sys->per_cluster > 1 && (d_l == 0 ||
	    d_l >= sys->per_cluster))) {
		errfmt(err, errlen, "tree degree out of range (WAN [1, %u], "
		    "LAN [1, %u])", sys->clusters - 1, sys->per_cluster - 1);
		return GROVE_EINVAL;
	}
	if (!height_ok(sys->clusters, d_w, h_w) ||
	    !height_ok(sys->per_cluster, d_l, h_l)) {
		errfmt(err, errlen, "tree height out of range (WAN %u for "
		    "degree %u of %u, LAN %u for degree %u of %u)", h_w, d_w,
		    sys->clusters, h_l, d_l, sys->per_cluster);
		return GROVE_EINVAL;
	}
	logp_seg_for_k(c.n, elem, k, &seg);
	links_at(&c, (double)seg.m, &w, &l);
	memset(out, 0, sizeof *out);
	pipelined(&c, &w, &l, &seg, sys->clusters > 1 ? d_w : 0,
	    sys->per_cluster > 1 ? d_l : 0, sys->clusters > 1 ? h_w : 0,
	    sys->per_cluster > 1 ? h_l : 0, out);
	out->size = size;
	out->evaluated = 1;
	return check_finite(out, err, errlen);
}

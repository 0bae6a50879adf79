/* The P-LogP formulas: sender and receiver completion times (section 2.1
 * of the paper) and the latency and gap of broadcast trees (section 3). */
#include <math.h>

#include "model/model_impl.h"

static double
max2(double a, double b)
{
	return a > b ? a : b;
}

int
grove_logp_link_single(const grove_logp_params *p, grove_logp_class c,
    double m, grove_logp_link *out)
{
	grove_logp_point pt;
	int rc;

	if (!out)
		return GROVE_EINVAL;
	rc = grove_logp_params_at(p, c, m, &pt);
	if (rc)
		return rc;
	out->L = pt.L;
	out->os = pt.os;
	out->or_ = pt.or_;
	out->g = pt.g;
	/* The paper's s = g rests on g >= os (section 2: g covers the
	 * send overhead).  Measured gaps can be below os for small messages
	 * (several sends batched into one write), and a sender is busy for
	 * os whatever the network does: it cannot send again sooner. */
	out->s = max2(pt.g, pt.os);
	out->r = pt.L + pt.g;
	return 0;
}

int
grove_logp_link_wide(const grove_logp_params *p, grove_logp_class local,
    grove_logp_class wide, double m, grove_logp_link *out)
{
	grove_logp_point l, w;
	int rc;

	if (!out)
		return GROVE_EINVAL;
	rc = grove_logp_params_at(p, local, m, &l);
	if (!rc)
		rc = grove_logp_params_at(p, wide, m, &w);
	if (rc)
		return rc;
	out->L = w.L;
	out->os = w.os;
	out->or_ = w.or_;
	out->g = w.g;
	/* The sender hands the message to its gateway over the local
	 * network: it is busy for the WAN send overhead or the LAN gap,
	 * whichever is longer (s_w = max(g_l, os_w)).  The LAN gap is taken
	 * as the paper defines it, at least os_l (see link_single), for
	 * measured gaps below the overhead. */
	out->s = max2(max2(l.g, l.os), w.os);
	out->r = w.L + w.g;
	return 0;
}

uint32_t
grove_logp_min_height(uint64_t P, uint32_t d)
{
	uint64_t reach = 1, level = 1;
	uint32_t h = 0;

	if (P <= 1)
		return 0;
	if (d <= 1)
		return P - 1 > UINT32_MAX ? UINT32_MAX : (uint32_t)(P - 1);
	/* reach = sum_{i=0..h} d^i; stop before it can overflow, since it
	 * is already >= P by then (P < 2^64 / d). */
	while (reach < P) {
		if (level > UINT64_MAX / d)
			return h + 1;
		level *= d;
		reach = level > UINT64_MAX - reach ? UINT64_MAX : reach + level;
		h++;
	}
	return h;
}

double
grove_logp_completion(uint64_t k, double gamma, double lambda)
{
	if (k == 0)
		return lambda;
	return (double)(k - 1) * gamma + lambda;
}

void
grove_logp_flat(const grove_logp_link *l, uint32_t P, double *gamma,
    double *lambda)
{
	double g = 0, lam = 0;

	if (l && P >= 2) {
		g = max2(l->g, (double)(P - 1) * l->s);
		lam = (double)(P - 2) * l->s + l->r;
	}
	if (gamma)
		*gamma = g;
	if (lambda)
		*lambda = lam;
}

void
grove_logp_tree(const grove_logp_link *l, uint32_t d, uint32_t h,
    double *gamma, double *lambda)
{
	double g = 0, lam = 0;

	if (l && d >= 1 && h >= 1) {
		/* An inner node receives a segment, then sends it d times. */
		g = max2(l->g, l->or_ + (double)d * l->s);
		/* On each level the last child gets the segment after d - 1
		 * sends to its siblings and its own transfer. */
		lam = (double)h * ((double)(d - 1) * l->s + l->r);
	}
	if (gamma)
		*gamma = g;
	if (lambda)
		*lambda = lam;
}

double
grove_logp_binomial_lambda(const grove_logp_link *l, uint32_t P)
{
	/* full[q]: lambda of the binomial tree of 2^q processes, whose root
	 * sends to subtrees of 2^(q-1), ..., 1 processes in that order. */
	double full[33];
	double lam = 0, offset = 0;
	uint32_t q, top;

	if (!l || P <= 1)
		return 0;
	full[0] = 0;
	for (q = 1; q <= 32; q++) {
		full[q] = 0;
		for (uint32_t i = 0; i < q; i++)
			full[q] = max2(full[q], (double)i * l->s + l->r +
			    full[q - 1 - i]);
	}
	/* A tree of n processes, 2^top < n <= 2^(top+1): the root's first
	 * child heads the n - 2^top processes above 2^top (a binomial tree
	 * of its own), the later children head full trees of 2^(top-1),
	 * ..., 1.  Walk down the chain of first children. */
	for (uint64_t n = P; n > 1;) {
		top = 0;
		while ((UINT64_C(2) << top) < n)
			top++;
		for (uint32_t i = 1; i <= top; i++)
			lam = max2(lam, offset + (double)i * l->s + l->r +
			    full[top - i]);
		offset += l->r;
		n -= UINT64_C(1) << top;
		if (n <= 1)
			lam = max2(lam, offset);
	}
	return lam;
}

double
grove_logp_pipelined_gamma(const grove_logp_link *w, uint32_t d_w,
    const grove_logp_link *l, uint32_t d_l)
{
	double gamma = 0, lan = 0;

	if (d_l >= 1 && l) {
		lan = (double)d_l * l->s;
		/* The paper's formula leaves out the LAN tree's own gap: a
		 * LAN node receiving over the LAN and forwarding d_l times.
		 * It cannot bind when the WAN dominates, but keeps the model
		 * honest when it does not. */
		gamma = max2(l->g, l->or_ + lan);
	}
	if (d_w >= 1 && w)
		gamma = max2(gamma, max2(w->g, w->or_ + (double)d_w * w->s +
		    lan));
	return gamma;
}

double
grove_logp_gamma_prime(const grove_logp_link *w, uint32_t d_w,
    const grove_logp_link *l)
{
	if (!w || !l)
		return 0;
	return max2(w->g - w->or_ - (double)d_w * w->s, l->s);
}

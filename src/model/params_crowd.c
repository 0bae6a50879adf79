/* The CPU work of a message hop in a crowd: w measured with K processes
 * per core taking turns, and w at the crowd size of a configuration
 * (docs/logp.md, "The host CPU bound"). */
#include <math.h>
#include <string.h>

#include "core/fmath.h"
#include "model/model_impl.h"

static int
check_crowd(uint32_t K, const grove_logp_sample *s, size_t n, char *err,
    size_t errlen)
{
	if (K < 2 || K > GROVE_LOGP_MAX_CROWD_K) {
		errfmt(err, errlen, "crowd %u: K must be in [2, %u]", K,
		    GROVE_LOGP_MAX_CROWD_K);
		return GROVE_EINVAL;
	}
	if (n == 0 || n > GROVE_LOGP_MAX_SAMPLES) {
		errfmt(err, errlen, "crowd %u: %zu samples (need 1 to %d)",
		    K, n, GROVE_LOGP_MAX_SAMPLES);
		return GROVE_EINVAL;
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t sz = s[i].size;

		if (sz == 0 || (sz & (sz - 1)) ||
		    sz > (UINT64_C(1) << (GROVE_LOGP_MAX_SAMPLES - 1))) {
			errfmt(err, errlen, "crowd %u: size %llu is not a "
			    "power of two in [1, 2^%d]", K,
			    (unsigned long long)sz, GROVE_LOGP_MAX_SAMPLES - 1);
			return GROVE_EINVAL;
		}
		if (i > 0 && sz <= s[i - 1].size) {
			errfmt(err, errlen, "crowd %u: size %llu after %llu: "
			    "sizes must increase", K, (unsigned long long)sz,
			    (unsigned long long)s[i - 1].size);
			return GROVE_EINVAL;
		}
		if (!isfinite(s[i].w) || s[i].w < 0) {
			errfmt(err, errlen, "crowd %u: size %llu: w must be "
			    "a finite number >= 0", K, (unsigned long long)sz);
			return GROVE_EINVAL;
		}
	}
	return 0;
}

int
grove_logp_params_set_crowd(grove_logp_params *p, grove_logp_class c,
    uint32_t K, const grove_logp_sample *samples, size_t n, char *err,
    size_t errlen)
{
	struct logp_class_data *cd;
	size_t at;
	int rc;

	if (!p || (unsigned)c >= GROVE_LOGP_NCLASSES || !samples) {
		errfmt(err, errlen, "invalid argument");
		return GROVE_EINVAL;
	}
	cd = &p->cls[c];
	if (!cd->present) {
		errfmt(err, errlen, "crowd %u: no class '%s'", K,
		    grove_logp_class_name(c));
		return GROVE_ENOENT;
	}
	rc = check_crowd(K, samples, n, err, errlen);
	if (rc)
		return rc;
	for (at = 0; at < cd->ncrowds && cd->crowd[at].K < K; at++)
		;
	if (at == cd->ncrowds || cd->crowd[at].K != K) {
		if (cd->ncrowds == GROVE_LOGP_MAX_CROWDS) {
			errfmt(err, errlen, "crowd %u: more than %d crowds "
			    "in class '%s'", K, GROVE_LOGP_MAX_CROWDS,
			    grove_logp_class_name(c));
			return GROVE_EINVAL;
		}
		memmove(&cd->crowd[at + 1], &cd->crowd[at],
		    (cd->ncrowds - at) * sizeof cd->crowd[0]);
		cd->ncrowds++;
	}
	memset(&cd->crowd[at], 0, sizeof cd->crowd[at]);
	cd->crowd[at].K = K;
	cd->crowd[at].n = n;
	for (size_t i = 0; i < n; i++) {
		cd->crowd[at].s[i].size = samples[i].size;
		cd->crowd[at].s[i].w = samples[i].w;
	}
	return 0;
}

size_t
grove_logp_params_crowds(const grove_logp_params *p, grove_logp_class c,
    uint32_t *K)
{
	if (!grove_logp_params_has(p, c))
		return 0;
	if (K)
		for (size_t i = 0; i < p->cls[c].ncrowds; i++)
			K[i] = p->cls[c].crowd[i].K;
	return p->cls[c].ncrowds;
}

size_t
grove_logp_params_crowd_samples(const grove_logp_params *p,
    grove_logp_class c, uint32_t K, const grove_logp_sample **samples)
{
	if (samples)
		*samples = NULL;
	if (!grove_logp_params_has(p, c))
		return 0;
	for (size_t i = 0; i < p->cls[c].ncrowds; i++) {
		if (p->cls[c].crowd[i].K == K) {
			if (samples)
				*samples = p->cls[c].crowd[i].s;
			return p->cls[c].crowd[i].n;
		}
	}
	return 0;
}

int
grove_logp_params_work_at(const grove_logp_params *p, grove_logp_class c,
    double m, double per_core, double *out)
{
	const struct logp_class_data *cd;
	const struct logp_crowd *lo, *hi;
	double x, x0, x1, y0, y1;
	size_t i;

	if (!p || !out || (unsigned)c >= GROVE_LOGP_NCLASSES || !(m >= 0) ||
	    isnan(per_core))
		return GROVE_EINVAL;
	cd = &p->cls[c];
	if (!cd->present)
		return GROVE_ENOENT;
	if (cd->ncrowds == 0) {
		*out = logp_work_curve(cd->s, cd->n, m);
		return 0;
	}
	lo = &cd->crowd[0];
	hi = &cd->crowd[cd->ncrowds - 1];
	if (!(per_core > (double)lo->K)) {
		*out = logp_work_curve(lo->s, lo->n, m);
		return 0;
	}
	if (per_core >= (double)hi->K) {
		*out = logp_work_curve(hi->s, hi->n, m);
		return 0;
	}
	for (i = 1; (double)cd->crowd[i].K < per_core; i++)
		;
	lo = &cd->crowd[i - 1];
	hi = &cd->crowd[i];
	/* The cost of a wake-up grows with how many processes ran on the
	 * core since (their share of the caches), which the grid spaces
	 * by factors: interpolate in log2 K. */
	x = fm_log2(per_core);
	x0 = fm_log2((double)lo->K);
	x1 = fm_log2((double)hi->K);
	y0 = logp_work_curve(lo->s, lo->n, m);
	y1 = logp_work_curve(hi->s, hi->n, m);
	*out = y0 + (y1 - y0) * (x - x0) / (x1 - x0);
	return 0;
}

/* P-LogP parameter sets: one sampled curve per link class and the
 * interpolation between (and beyond) the samples. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model_impl.h"

static const char *const class_names[GROVE_LOGP_NCLASSES] = {
	"host", "lan", "wan",
};

const char *
grove_logp_class_name(grove_logp_class c)
{
	if ((unsigned)c >= GROVE_LOGP_NCLASSES)
		return NULL;
	return class_names[c];
}

int
grove_logp_class_parse(const char *name, grove_logp_class *out)
{
	if (!name || !out)
		return GROVE_EINVAL;
	for (unsigned i = 0; i < GROVE_LOGP_NCLASSES; i++) {
		if (!strcmp(name, class_names[i])) {
			*out = (grove_logp_class)i;
			return 0;
		}
	}
	return GROVE_EINVAL;
}

int
grove_logp_params_create(grove_logp_params **out)
{
	if (!out)
		return GROVE_EINVAL;
	*out = calloc(1, sizeof **out);
	return *out ? 0 : GROVE_ENOMEM;
}

void
grove_logp_params_destroy(grove_logp_params *p)
{
	if (!p)
		return;
	free(p->note);
	free(p);
}

static int
is_time(double v)
{
	return isfinite(v) && v >= 0;
}

int
logp_check_samples(double L, const grove_logp_sample *s, size_t n, char *err,
    size_t errlen)
{
	if (!is_time(L)) {
		errfmt(err, errlen, "latency L must be a finite number >= 0");
		return GROVE_EINVAL;
	}
	if (n == 0) {
		errfmt(err, errlen, "no samples");
		return GROVE_EINVAL;
	}
	if (n > GROVE_LOGP_MAX_SAMPLES) {
		errfmt(err, errlen, "more than %d samples",
		    GROVE_LOGP_MAX_SAMPLES);
		return GROVE_EINVAL;
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t sz = s[i].size;

		if (sz == 0 || (sz & (sz - 1)) ||
		    sz > (UINT64_C(1) << (GROVE_LOGP_MAX_SAMPLES - 1))) {
			errfmt(err, errlen, "size %llu is not a power of two "
			    "in [1, 2^%d]", (unsigned long long)sz,
			    GROVE_LOGP_MAX_SAMPLES - 1);
			return GROVE_EINVAL;
		}
		if (i > 0 && sz <= s[i - 1].size) {
			errfmt(err, errlen, "size %llu does not follow %llu: "
			    "sizes must increase", (unsigned long long)sz,
			    (unsigned long long)s[i - 1].size);
			return GROVE_EINVAL;
		}
		if (!is_time(s[i].os) || !is_time(s[i].or_) ||
		    !is_time(s[i].g) || !is_time(s[i].w)) {
			errfmt(err, errlen, "size %llu: os, or, g and w must "
			    "be finite numbers >= 0", (unsigned long long)sz);
			return GROVE_EINVAL;
		}
	}
	return 0;
}

int
grove_logp_params_set_class(grove_logp_params *p, grove_logp_class c,
    double L, const grove_logp_sample *samples, size_t n, char *err,
    size_t errlen)
{
	int rc;

	if (!p || (unsigned)c >= GROVE_LOGP_NCLASSES || (n && !samples)) {
		errfmt(err, errlen, "invalid argument");
		return GROVE_EINVAL;
	}
	rc = logp_check_samples(L, samples, n, err, errlen);
	if (rc)
		return rc;
	p->cls[c].present = 1;
	p->cls[c].L = L;
	p->cls[c].n = n;
	memcpy(p->cls[c].s, samples, n * sizeof *samples);
	/* Crowds were measured with the old samples' processes. */
	p->cls[c].ncrowds = 0;
	return 0;
}

void
grove_logp_params_clear_class(grove_logp_params *p, grove_logp_class c)
{
	if (p && (unsigned)c < GROVE_LOGP_NCLASSES)
		memset(&p->cls[c], 0, sizeof p->cls[c]);
}

int
grove_logp_params_has(const grove_logp_params *p, grove_logp_class c)
{
	return p && (unsigned)c < GROVE_LOGP_NCLASSES && p->cls[c].present;
}

size_t
grove_logp_params_samples(const grove_logp_params *p, grove_logp_class c,
    const grove_logp_sample **samples, double *L)
{
	if (!grove_logp_params_has(p, c)) {
		if (samples)
			*samples = NULL;
		if (L)
			*L = 0;
		return 0;
	}
	if (samples)
		*samples = p->cls[c].s;
	if (L)
		*L = p->cls[c].L;
	return p->cls[c].n;
}

int
grove_logp_params_set_note(grove_logp_params *p, const char *note)
{
	char *copy = NULL;

	if (!p)
		return GROVE_EINVAL;
	if (note) {
		copy = strdup(note);
		if (!copy)
			return GROVE_ENOMEM;
	}
	free(p->note);
	p->note = copy;
	return 0;
}

enum curve { CURVE_OS, CURVE_OR, CURVE_G, CURVE_W };

static double
sample_value(const grove_logp_sample *s, enum curve which)
{
	switch (which) {
	case CURVE_OS:
		return s->os;
	case CURVE_OR:
		return s->or_;
	case CURVE_W:
		return s->w;
	default:
		return s->g;
	}
}

/* The value of one curve at m. */
static double
curve_at(const grove_logp_sample *s, size_t n, enum curve which, double m)
{
	double x0, x1, y0, y1, v;
	size_t lo, hi;

	if (m <= (double)s[0].size)
		return sample_value(&s[0], which);
	if (m >= (double)s[n - 1].size) {
		/* Beyond the grid the per-byte cost of the last interval
		 * goes on (bandwidth stays what it was at the largest
		 * measured size); with one sample, cost per byte is the
		 * sample's.  A falling last interval (noise, a protocol
		 * switch) must not make bigger messages cheaper. */
		if (n == 1) {
			x0 = 0;
			y0 = 0;
		} else {
			x0 = (double)s[n - 2].size;
			y0 = sample_value(&s[n - 2], which);
		}
		x1 = (double)s[n - 1].size;
		y1 = sample_value(&s[n - 1], which);
		v = y1 + (y1 - y0) / (x1 - x0) * (m - x1);
		return v > y1 ? v : y1;
	}
	/* Binary search for s[lo].size <= m < s[hi].size. */
	lo = 0;
	hi = n - 1;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if ((double)s[mid].size <= m)
			lo = mid;
		else
			hi = mid;
	}
	x0 = (double)s[lo].size;
	x1 = (double)s[hi].size;
	y0 = sample_value(&s[lo], which);
	y1 = sample_value(&s[hi], which);
	return y0 + (y1 - y0) * (m - x0) / (x1 - x0);
}

double
logp_work_curve(const grove_logp_sample *s, size_t n, double m)
{
	return curve_at(s, n, CURVE_W, m);
}

int
grove_logp_params_at(const grove_logp_params *p, grove_logp_class c,
    double m, grove_logp_point *out)
{
	const struct logp_class_data *cd;

	if (!p || !out || (unsigned)c >= GROVE_LOGP_NCLASSES || !(m >= 0))
		return GROVE_EINVAL;
	cd = &p->cls[c];
	if (!cd->present)
		return GROVE_ENOENT;
	out->L = cd->L;
	out->os = curve_at(cd->s, cd->n, CURVE_OS, m);
	out->or_ = curve_at(cd->s, cd->n, CURVE_OR, m);
	out->g = curve_at(cd->s, cd->n, CURVE_G, m);
	out->w = curve_at(cd->s, cd->n, CURVE_W, m);
	return 0;
}

int
grove_logp_params_set_cores(grove_logp_params *p, uint32_t cores)
{
	if (!p || cores > GROVE_LOGP_MAX_CORES)
		return GROVE_EINVAL;
	p->cores = cores;
	return 0;
}

uint32_t
grove_logp_params_cores(const grove_logp_params *p)
{
	return p ? p->cores : 0;
}

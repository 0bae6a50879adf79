/* Topology generators: flat, kary:K, knomial:K and levels:AxBxC.
 *
 * Each generator emits nodes in pre-order (a node, then its children's
 * subtrees left to right) as a parent array; topo_create() derives the
 * rest.  Recursion depth is the tree depth, which is at most
 * TOPO_MAX_LEVELS for levels: and log2(backends) + 1 for the others.
 */
#include <stdlib.h>
#include <string.h>

#include "topo/spec.h"
#include "topo/topo_impl.h"

struct gen {
	int32_t *parent;
	uint32_t n, cap;
};

static int
gen_push(struct gen *g, int32_t parent, int32_t *id)
{
	if (g->n == g->cap) {
		uint32_t cap = g->cap ? g->cap * 2 : 64;
		int32_t *p;

		if (g->cap >= TOPO_MAX_NODES)
			return GROVE_ERANGE;
		p = realloc(g->parent, cap * sizeof *p);
		if (!p)
			return GROVE_ENOMEM;
		g->parent = p;
		g->cap = cap;
	}
	g->parent[g->n] = parent;
	*id = (int32_t)g->n++;
	return 0;
}

/* A balanced subtree holding m BEs with every BE exactly h levels below
 * its root.  The root takes the fewest children that can each hold their
 * share within h - 1 levels (at most K, since m <= K^h), and the BEs are
 * split as evenly as possible: sibling subtrees differ by at most one BE,
 * larger shares first. */
static int
gen_kary(struct gen *g, int32_t parent, uint32_t k, uint32_t m, uint32_t h)
{
	uint64_t cap = 1;
	uint32_t c, base, extra;
	int32_t id;
	int rc = gen_push(g, parent, &id);

	if (rc || h == 0)
		return rc;
	for (uint32_t i = 1; i < h && cap < m; i++)
		cap *= k;
	c = (uint32_t)((m + cap - 1) / cap);
	base = m / c;
	extra = m % c;
	for (uint32_t i = 0; i < c && !rc; i++)
		rc = gen_kary(g, id, k, base + (i < extra), h - 1);
	return rc;
}

/* The k-nomial tree on vertices 0..N-1: a vertex at level i (its subtree
 * is [v, v + K^i)) has children v + j*K^t for t < i and j = 1..K-1.  Every
 * vertex stands for one BE.  A vertex without children is that BE; a
 * vertex with children becomes a CP (the FE for vertex 0) whose first
 * child is its own BE, followed by its child vertices in increasing
 * order.  Pre-order then visits vertices in increasing order, so BE rank
 * r is vertex r. */
static int
gen_knomial(struct gen *g, int32_t parent, uint32_t k, uint32_t n,
    uint32_t v, uint32_t level)
{
	uint64_t step = 1;
	int32_t id, be;
	int rc;

	if (parent >= 0 && (level == 0 || (uint64_t)v + 1 >= n))
		return gen_push(g, parent, &id);
	rc = gen_push(g, parent, &id);
	if (!rc)
		rc = gen_push(g, id, &be);
	for (uint32_t t = 0; t < level && !rc; t++, step *= k) {
		for (uint32_t j = 1; j < k && !rc; j++) {
			uint64_t c = v + j * step;

			if (c >= n)
				break;
			rc = gen_knomial(g, id, k, n, (uint32_t)c, t);
		}
	}
	return rc;
}

static int
gen_levels(struct gen *g, int32_t parent, const uint32_t *f, uint32_t nl)
{
	int32_t id;
	int rc = gen_push(g, parent, &id);

	for (uint32_t i = 0; nl && i < f[0] && !rc; i++)
		rc = gen_levels(g, id, f + 1, nl - 1);
	return rc;
}

/* A decimal number of [s, s + len) into *out; 0 or -1 when not a number
 * or above max. */
static int
spec_num(const char *s, size_t len, uint32_t max, uint32_t *out)
{
	uint64_t v = 0;

	if (len == 0)
		return -1;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (uint64_t)(s[i] - '0');
		if (v > max)
			return -1;
	}
	*out = (uint32_t)v;
	return 0;
}

enum spec_kind { SPEC_KARY, SPEC_KNOMIAL, SPEC_LEVELS };

struct spec {
	enum spec_kind kind;
	uint32_t k;
	uint32_t nl;
	uint32_t f[TOPO_MAX_LEVELS];
};

static int
spec_levels(const char *spec, const char *s, struct spec *sp, char *err,
    size_t errlen)
{
	sp->kind = SPEC_LEVELS;
	sp->nl = 0;
	for (;;) {
		const char *x = strchr(s, 'x');
		size_t len = x ? (size_t)(x - s) : strlen(s);
		uint32_t v;

		if (sp->nl == TOPO_MAX_LEVELS) {
			errfmt(err, errlen, "bad topology spec '%.64s': more "
			    "than %d levels", spec, TOPO_MAX_LEVELS);
			return GROVE_ETOPO;
		}
		if (spec_num(s, len, TOPO_MAX_BACKENDS, &v)) {
			errfmt(err, errlen, "bad topology spec '%.64s': level "
			    "%u fan-out '%.*s' is not a number from 1 to %u",
			    spec, sp->nl + 1, (int)(len > 32 ? 32 : len), s,
			    TOPO_MAX_BACKENDS);
			return GROVE_ETOPO;
		}
		if (v == 0) {
			errfmt(err, errlen, "bad topology spec '%.64s': level "
			    "%u fan-out must be at least 1", spec, sp->nl + 1);
			return GROVE_ETOPO;
		}
		sp->f[sp->nl++] = v;
		if (!x)
			return 0;
		s = x + 1;
	}
}

static int
spec_parse(const char *spec, struct spec *sp, char *err, size_t errlen)
{
	const char *arg;

	memset(sp, 0, sizeof *sp);
	if (!strcmp(spec, "flat")) {
		sp->kind = SPEC_KARY;
		sp->k = TOPO_MAX_BACKENDS;
		return 0;
	}
	if (!strncmp(spec, "levels:", 7))
		return spec_levels(spec, spec + 7, sp, err, errlen);
	if (spec[0] >= '0' && spec[0] <= '9')
		return spec_levels(spec, spec, sp, err, errlen);
	if (!strncmp(spec, "kary:", 5)) {
		sp->kind = SPEC_KARY;
		arg = spec + 5;
	} else if (!strncmp(spec, "knomial:", 8)) {
		sp->kind = SPEC_KNOMIAL;
		arg = spec + 8;
	} else {
		errfmt(err, errlen, "unknown topology spec '%.64s' (expected "
		    "flat, kary:K, knomial:K or levels:AxBx...)", spec);
		return GROVE_ETOPO;
	}
	if (spec_num(arg, strlen(arg), TOPO_MAX_BACKENDS, &sp->k)) {
		errfmt(err, errlen, "bad topology spec '%.64s': K '%.32s' is "
		    "not a number from 2 to %u", spec, arg, TOPO_MAX_BACKENDS);
		return GROVE_ETOPO;
	}
	if (sp->k < 2) {
		errfmt(err, errlen, "bad topology spec '%.64s': K must be at "
		    "least 2", spec);
		return GROVE_ETOPO;
	}
	return 0;
}

/* Check the BE count against the spec; for levels: fill it in. */
static int
spec_backends(const char *spec, const struct spec *sp, uint32_t *backends,
    char *err, size_t errlen)
{
	uint64_t prod = 1, nodes = 1;

	if (sp->kind != SPEC_LEVELS) {
		if (*backends == 0) {
			errfmt(err, errlen, "topology spec '%.64s' needs a "
			    "back-end count of at least 1", spec);
			return GROVE_ETOPO;
		}
		if (*backends > TOPO_MAX_BACKENDS) {
			errfmt(err, errlen, "%u back-ends is more than the "
			    "limit of %u", *backends, TOPO_MAX_BACKENDS);
			return GROVE_ETOPO;
		}
		return 0;
	}
	for (uint32_t i = 0; i < sp->nl; i++) {
		prod *= sp->f[i];
		nodes += prod;
		if (prod > TOPO_MAX_BACKENDS || nodes > TOPO_MAX_NODES) {
			errfmt(err, errlen, "topology spec '%.64s' makes more "
			    "than %u back-ends or %u nodes", spec,
			    TOPO_MAX_BACKENDS, TOPO_MAX_NODES);
			return GROVE_ETOPO;
		}
	}
	if (*backends && *backends != prod) {
		errfmt(err, errlen, "topology spec '%.64s' makes %llu "
		    "back-ends, not %u", spec, (unsigned long long)prod,
		    *backends);
		return GROVE_ETOPO;
	}
	*backends = (uint32_t)prod;
	return 0;
}

int
topo_spec_backends(const char *spec, uint32_t *backends, char *err,
    size_t errlen)
{
	struct spec sp;
	int rc;

	if (!backends)
		return GROVE_EINVAL;
	*backends = 0;
	if (!spec) {
		errfmt(err, errlen, "no topology spec");
		return GROVE_EINVAL;
	}
	rc = spec_parse(spec, &sp, err, errlen);
	if (rc || sp.kind != SPEC_LEVELS)
		return rc;
	/* The product and the same limits grove_topo_generate checks,
	 * without building a node. */
	return spec_backends(spec, &sp, backends, err, errlen);
}

int
grove_topo_generate(const char *spec, uint32_t backends,
    const grove_hostlist *hosts, grove_topo **out, char *err, size_t errlen)
{
	struct spec sp;
	struct gen g = {0};
	grove_topo *t = NULL;
	int rc;

	if (!out)
		return GROVE_EINVAL;
	*out = NULL;
	if (!spec) {
		errfmt(err, errlen, "no topology spec");
		return GROVE_EINVAL;
	}
	rc = spec_parse(spec, &sp, err, errlen);
	if (!rc)
		rc = spec_backends(spec, &sp, &backends, err, errlen);
	if (rc)
		return rc;
	if (sp.kind == SPEC_KARY) {
		uint32_t h = 1;

		for (uint64_t cap = sp.k; cap < backends; cap *= sp.k)
			h++;
		rc = gen_kary(&g, -1, sp.k, backends, h);
	} else if (sp.kind == SPEC_KNOMIAL) {
		uint32_t level = 0;

		for (uint64_t cap = 1; cap < backends; cap *= sp.k)
			level++;
		rc = gen_knomial(&g, -1, sp.k, backends, 0, level);
	} else {
		rc = gen_levels(&g, -1, sp.f, sp.nl);
	}
	if (!rc)
		rc = topo_create(g.n, g.parent, &t);
	free(g.parent);
	if (!rc)
		rc = hosts ? topo_place_hosts(t, hosts) :
		    topo_place_localhost(t);
	if (rc) {
		grove_topo_destroy(t);
		errfmt(err, errlen, "cannot build topology '%.64s': %s",
		    spec, grove_strerror(rc));
		return rc;
	}
	*out = t;
	return 0;
}

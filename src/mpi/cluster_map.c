/* Cluster maps and the layout of hierarchical collectives (pure; the
 * rules are in cluster_map.h). */
#include "mpi/cluster_map.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int
fail(char *why, size_t whylen, const char *fmt, ...)
{
	if (why && whylen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(why, whylen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* "at character 5 ('x')" or "at the end" for position p of spec. */
static void
where(const char *spec, const char *p, char *out, size_t len)
{
	if (*p)
		snprintf(out, len, "at character %d ('%c')", (int)(p - spec) + 1,
		         isprint((unsigned char)*p) ? *p : '?');
	else
		snprintf(out, len, "at the end");
}

static void
skip_blanks(const char **p)
{
	while (**p == ' ' || **p == '\t')
		(*p)++;
}

/* A non-negative decimal number below 2^31; -1 when there is none. */
static long
number(const char **p)
{
	skip_blanks(p);
	if (!isdigit((unsigned char)**p))
		return -1;
	long v = 0;
	while (isdigit((unsigned char)**p)) {
		v = v * 10 + (**p - '0');
		if (v > 0x7fffffff)
			return -2;
		(*p)++;
	}
	skip_blanks(p);
	return v;
}

static int
parse_blocks(const char *spec, int size, int *cluster_of, int *nclusters,
             char *why, size_t whylen)
{
	const char *p = spec;
	char at[48];
	long nc = strtol(spec, NULL, 10);
	long per;
	(void)number(&p);
	p++; /* the 'x' */
	const char *q = p;
	per = number(&p);
	if (per < 0) {
		where(spec, q[0] == ' ' ? p : q, at, sizeof at);
		return fail(why, whylen, "%s: expected the ranks per cluster "
		            "after 'x'", at);
	}
	if (*p) {
		where(spec, p, at, sizeof at);
		return fail(why, whylen, "%s: unexpected text after '%.*s'", at,
		            (int)(p - spec), spec);
	}
	if (nc < 1 || per < 1)
		return fail(why, whylen, "'%s': clusters and ranks per cluster "
		            "must be at least 1", spec);
	if (nc * per != size)
		return fail(why, whylen, "'%s' makes %ld clusters of %ld ranks = "
		            "%ld ranks, but the job has %d", spec, nc, per,
		            nc * per, size);
	for (int r = 0; r < size; r++)
		cluster_of[r] = (int)(r / per);
	*nclusters = (int)nc;
	return 0;
}

int
mpi_cluster_parse(const char *spec, int size, int *cluster_of,
                  int *nclusters, char *why, size_t whylen)
{
	char at[48];
	if (!spec)
		return fail(why, whylen, "no cluster map given");
	if (size < 1)
		return fail(why, whylen, "a job of %d ranks", size);
	const char *p = spec;
	skip_blanks(&p);
	if (!*p)
		return fail(why, whylen, "the cluster map is empty");
	/* "NxM" form: a number then 'x'. */
	const char *t = p;
	if (number(&t) >= 0 && (*t == 'x' || *t == 'X'))
		return parse_blocks(spec, size, cluster_of, nclusters, why,
		                    whylen);
	for (int r = 0; r < size; r++)
		cluster_of[r] = -1;
	int c = 0;
	for (;;) {
		/* One cluster: items joined by '+'. */
		for (;;) {
			const char *start = p;
			long lo = number(&p), hi;
			if (lo < 0) {
				skip_blanks(&start);
				where(spec, start, at, sizeof at);
				return fail(why, whylen, "%s: expected a rank%s", at,
				            lo == -2 ? " below 2^31" : "");
			}
			hi = lo;
			if (*p == '-') {
				p++;
				const char *h = p;
				hi = number(&p);
				if (hi < 0) {
					skip_blanks(&h);
					where(spec, h, at, sizeof at);
					return fail(why, whylen, "%s: expected the last "
					            "rank of the range", at);
				}
				if (hi < lo)
					return fail(why, whylen, "cluster %d: range "
					            "%ld-%ld goes down", c, lo, hi);
			}
			if (hi >= size)
				return fail(why, whylen, "cluster %d: rank %ld is "
				            "not in the job (ranks 0-%d)", c, hi,
				            size - 1);
			for (long r = lo; r <= hi; r++) {
				if (cluster_of[r] >= 0)
					return fail(why, whylen, "rank %ld is in "
					            "cluster %d and in cluster %d", r,
					            cluster_of[r], c);
				cluster_of[r] = c;
			}
			if (*p != '+')
				break;
			p++;
		}
		c++;
		if (!*p)
			break;
		if (*p != ',') {
			where(spec, p, at, sizeof at);
			return fail(why, whylen, "%s: expected ',' between "
			            "clusters, '+' or '-' inside one", at);
		}
		p++;
	}
	for (int r = 0; r < size; r++)
		if (cluster_of[r] < 0)
			return fail(why, whylen, "rank %d is in no cluster", r);
	*nclusters = c;
	return 0;
}

void
mpi_cluster_from_hosts(const char *const *hosts, int size, int *cluster_of,
                       int *nclusters)
{
	int nc = 0;
	for (int r = 0; r < size; r++) {
		cluster_of[r] = -1;
		for (int q = 0; q < r; q++)
			if (!strcmp(hosts[q], hosts[r])) {
				cluster_of[r] = cluster_of[q];
				break;
			}
		if (cluster_of[r] < 0)
			cluster_of[r] = nc++;
	}
	*nclusters = nc;
}

/* A number with a unit from units[] (names with their factors); the
 * unit is required. */
struct unit {
	const char *name;
	double factor;
};

static int
value_with_unit(const char *s, const struct unit *units, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (end == s || errno || !isfinite(v) || v <= 0)
		return -1;
	while (*end == ' ')
		end++;
	for (const struct unit *u = units; u->name; u++)
		if (!strcmp(end, u->name)) {
			*out = v * u->factor;
			return 0;
		}
	return -2;
}

int
mpi_wan_parse(const char *spec, double *latency_us, double *bytes_per_s,
              char *why, size_t whylen)
{
	static const struct unit lat_units[] = {
		{"us", 1}, {"ms", 1e3}, {"s", 1e6}, {NULL, 0}};
	static const struct unit bw_units[] = {
		{"B/s", 1}, {"KB/s", 1e3}, {"MB/s", 1e6}, {"GB/s", 1e9},
		{NULL, 0}};
	if (!spec)
		return fail(why, whylen, "no WAN given");
	const char *comma = strchr(spec, ',');
	if (!comma)
		return fail(why, whylen, "'%s': expected '<latency>,<bandwidth>' "
		            "such as '10ms,1MB/s'", spec);
	char lat[64];
	size_t n = (size_t)(comma - spec);
	if (n >= sizeof lat)
		return fail(why, whylen, "the latency '%.*s...' is too long", 20,
		            spec);
	memcpy(lat, spec, n);
	lat[n] = 0;
	const char *bw = comma + 1;
	while (*bw == ' ')
		bw++;
	int rc = value_with_unit(lat, lat_units, latency_us);
	if (rc)
		return fail(why, whylen, "latency '%s': %s", lat,
		            rc == -1 ? "expected a positive number"
		                     : "expected a unit: us, ms or s");
	rc = value_with_unit(bw, bw_units, bytes_per_s);
	if (rc)
		return fail(why, whylen, "bandwidth '%s' (at character %d): %s", bw,
		            (int)(bw - spec) + 1,
		            rc == -1 ? "expected a positive number"
		                     : "expected a unit: B/s, KB/s, MB/s or GB/s");
	return 0;
}

int
mpi_cluster_count(const int *cl, int n)
{
	int k = 0;
	for (int r = 0; r < n; r++) {
		int q = 0;
		while (q < r && cl[q] != cl[r])
			q++;
		if (q == r)
			k++;
	}
	return k;
}

void
mpi_hier_layout(const int *cl, int n, int me, int root,
                struct mpi_hier_layout *h)
{
	/* Leaders: root, then the lowest rank of every other cluster in
	 * increasing rank order (a rank is a leader when no lower rank and
	 * not root shares its cluster). */
	h->nleaders = 0;
	h->leaders[h->nleaders++] = root;
	for (int r = 0; r < n; r++) {
		if (cl[r] == cl[root])
			continue;
		int q = 0;
		while (q < r && cl[q] != cl[r])
			q++;
		if (q == r)
			h->leaders[h->nleaders++] = r;
	}
	h->leader_idx = -1;
	int my_leader = -1;
	for (int i = 0; i < h->nleaders; i++) {
		if (h->leaders[i] == me)
			h->leader_idx = i;
		if (cl[h->leaders[i]] == cl[me])
			my_leader = h->leaders[i];
	}
	h->nmembers = 0;
	h->members[h->nmembers++] = my_leader;
	h->member_idx = me == my_leader ? 0 : -1;
	for (int r = 0; r < n; r++) {
		if (cl[r] != cl[me] || r == my_leader)
			continue;
		if (r == me)
			h->member_idx = h->nmembers;
		h->members[h->nmembers++] = r;
	}
}

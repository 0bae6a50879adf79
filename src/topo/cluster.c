/* Cluster maps: parse, build, print and query (see grove/cluster.h). */
#include "grove/cluster.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/textfile.h"
#include "topo/quantity.h"

/* Ranges are kept sorted by first node and never overlap, so a lookup is
 * a binary search whatever order the map was written in. */
typedef struct cl_range {
	uint32_t first, last;
	uint32_t cluster;
	int line;          /* where it was declared (0: built in code) */
} cl_range;

struct grove_cluster_map {
	cl_range *r;
	size_t n, cap;
	grove_link_params lan, wan;
	int lan_line, wan_line; /* where lan/wan were set (0: not in text) */
};

/* More ranges than any real map has; bounds memory on hostile input. */
#define CL_MAX_RANGES (1u << 20)

int
grove_cluster_map_new(grove_cluster_map **out)
{
	if (!out)
		return GROVE_EINVAL;
	*out = calloc(1, sizeof **out);
	return *out ? 0 : GROVE_ENOMEM;
}

void
grove_cluster_map_destroy(grove_cluster_map *m)
{
	if (!m)
		return;
	free(m->r);
	free(m);
}

/* Index of the first range whose first node is > node. */
static size_t
upper_bound(const grove_cluster_map *m, uint32_t node)
{
	size_t lo = 0, hi = m->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->r[mid].first <= node)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static const cl_range *
find(const grove_cluster_map *m, uint32_t node)
{
	size_t i = upper_bound(m, node);
	if (i == 0 || m->r[i - 1].last < node)
		return NULL;
	return &m->r[i - 1];
}

/* Adds a range; on overlap returns GROVE_EINVAL and *clash (if given)
 * points at the range already holding a node of it. */
static int
add_range(grove_cluster_map *m, uint32_t cluster, uint32_t first,
    uint32_t last, int line, const cl_range **clash, uint32_t *clash_node)
{
	if (first > last)
		return GROVE_EINVAL;
	size_t i = upper_bound(m, first);
	const cl_range *c = NULL;
	if (i > 0 && m->r[i - 1].last >= first) {
		c = &m->r[i - 1];
		*clash_node = first;
	} else if (i < m->n && m->r[i].first <= last) {
		c = &m->r[i];
		*clash_node = m->r[i].first;
	}
	if (c) {
		if (clash)
			*clash = c;
		return GROVE_EINVAL;
	}
	if (m->n == CL_MAX_RANGES)
		return GROVE_ERANGE;
	if (m->n == m->cap) {
		size_t nc = m->cap ? m->cap * 2 : 16;
		cl_range *nr = realloc(m->r, nc * sizeof *nr);
		if (!nr)
			return GROVE_ENOMEM;
		m->r = nr;
		m->cap = nc;
	}
	memmove(&m->r[i + 1], &m->r[i], (m->n - i) * sizeof *m->r);
	m->r[i] = (cl_range){first, last, cluster, line};
	m->n++;
	return 0;
}

int
grove_cluster_map_add_range(grove_cluster_map *m, uint32_t cluster,
    uint32_t first, uint32_t last)
{
	uint32_t node;
	if (!m)
		return GROVE_EINVAL;
	return add_range(m, cluster, first, last, 0, NULL, &node);
}

static int
params_ok(const grove_link_params *p)
{
	return p && isfinite(p->latency_s) && isfinite(p->bandwidth_Bps) &&
	    p->latency_s >= 0 && p->bandwidth_Bps >= 0;
}

int
grove_cluster_map_set_link(grove_cluster_map *m, grove_link_class cls,
    const grove_link_params *p)
{
	if (!m || !params_ok(p))
		return GROVE_EINVAL;
	/* -0 and subnormals are 0: printed ("-0s", "9.99e-311s") the parser
	 * would refuse them (no sign; strtod reports an underflow), and the
	 * map's text must read back as the same map. */
	grove_link_params q = *p;
	if (fpclassify(q.latency_s) != FP_NORMAL)
		q.latency_s = 0;
	if (fpclassify(q.bandwidth_Bps) != FP_NORMAL)
		q.bandwidth_Bps = 0;
	if (cls == GROVE_LINK_LAN)
		m->lan = q;
	else if (cls == GROVE_LINK_WAN)
		m->wan = q;
	else
		return GROVE_EINVAL;
	return 0;
}

int64_t
grove_cluster_map_cluster_of(const grove_cluster_map *m, uint32_t node)
{
	const cl_range *r = m ? find(m, node) : NULL;
	return r ? (int64_t)r->cluster : -1;
}

grove_link_class
grove_cluster_map_link(const grove_cluster_map *m, uint32_t a, uint32_t b,
    grove_link_params *out)
{
	grove_link_params none = {0, 0};
	int64_t ca = grove_cluster_map_cluster_of(m, a);
	int64_t cb = grove_cluster_map_cluster_of(m, b);
	grove_link_class cls = ca < 0 || cb < 0 ? GROVE_LINK_NONE
	    : ca == cb ? GROVE_LINK_LAN : GROVE_LINK_WAN;
	if (out)
		*out = cls == GROVE_LINK_LAN ? m->lan : cls == GROVE_LINK_WAN ?
		    m->wan : none;
	return cls;
}

int64_t
grove_cluster_map_max_node(const grove_cluster_map *m)
{
	return m && m->n ? (int64_t)m->r[m->n - 1].last : -1;
}

/* ---- printing ------------------------------------------------------- */

/* Base units with 17 significant digits: parses back to the same double. */
static void
print_params(FILE *f, const char *name, const grove_link_params *p)
{
	fprintf(f, "%s latency %.17gs bandwidth %.17gB/s\n", name, p->latency_s,
	    p->bandwidth_Bps);
}

int
grove_cluster_map_to_string(const grove_cluster_map *m, char **out)
{
	if (!m || !out)
		return GROVE_EINVAL;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return GROVE_ENOMEM;
	fprintf(f, "# Grove cluster map\n");
	print_params(f, "lan", &m->lan);
	print_params(f, "wan", &m->wan);
	for (size_t i = 0; i < m->n; i++)
		fprintf(f, "cluster %u nodes %u-%u\n", m->r[i].cluster,
		    m->r[i].first, m->r[i].last);
	if (fclose(f) != 0) {
		free(buf);
		return GROVE_ENOMEM;
	}
	*out = buf;
	return 0;
}

/* ---- parsing -------------------------------------------------------- */

typedef struct cl_parser {
	grove_cluster_map *m;
	int line;
	char *err;
	size_t errlen;
} cl_parser;

static int
fail(cl_parser *ps, const char *fmt, ...)
{
	char msg[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (ps->err && ps->errlen)
		snprintf(ps->err, ps->errlen, "line %d: %s", ps->line, msg);
	/* A cluster map describes the network's shape: a bad one is a bad
	 * topology file, not a packet format. */
	return GROVE_ETOPO;
}

/* A non-negative decimal number followed by a unit from the table;
 * returns 0 and the value in base units. */
typedef struct cl_unit {
	const char *name;
	double scale;
} cl_unit;

static const cl_unit duration_units[] = {
	{"s", 1}, {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}, {NULL, 0},
};

static const cl_unit rate_units[] = {
	{"B/s", 1}, {"KB/s", 1e3}, {"MB/s", 1e6}, {"GB/s", 1e9},
	{"KiB/s", 1024.0}, {"MiB/s", 1048576.0}, {"GiB/s", 1073741824.0},
	{"bit/s", 1.0 / 8}, {"kbit/s", 1e3 / 8}, {"Mbit/s", 1e6 / 8},
	{"Gbit/s", 1e9 / 8}, {NULL, 0},
};

static int
parse_quantity(const char *tok, const cl_unit *units, double *out)
{
	/* strtod would take "inf", "nan" and hex: only decimals here (with
	 * an exponent, which the printer may use). */
	const char *p = tok;
	int digits = 0;
	while (isdigit((unsigned char)*p)) {
		p++;
		digits++;
	}
	if (*p == '.') {
		p++;
		while (isdigit((unsigned char)*p)) {
			p++;
			digits++;
		}
	}
	if (!digits)
		return GROVE_EINVAL;
	if (*p == 'e' || *p == 'E') {
		const char *q = p + 1;
		if (*q == '+' || *q == '-')
			q++;
		if (isdigit((unsigned char)*q)) {
			while (isdigit((unsigned char)*q))
				q++;
			p = q;
		}
	}
	errno = 0;
	char *vend = NULL;
	double v = strtod(tok, &vend);
	if (errno || !isfinite(v) || vend != p)
		return GROVE_EINVAL;
	if (!*p) {
		/* A bare number is only unambiguous when it is zero. */
		if (v != 0)
			return GROVE_EINVAL;
		*out = 0;
		return 0;
	}
	for (const cl_unit *u = units; u->name; u++) {
		if (!strcmp(p, u->name)) {
			*out = v * u->scale;
			return isfinite(*out) ? 0 : GROVE_EINVAL;
		}
	}
	return GROVE_EINVAL;
}

int
cluster_parse_duration(const char *s, double *seconds)
{
	return s && seconds ? parse_quantity(s, duration_units, seconds) :
	    GROVE_EINVAL;
}

int
cluster_parse_rate(const char *s, double *Bps)
{
	return s && Bps ? parse_quantity(s, rate_units, Bps) : GROVE_EINVAL;
}

static int
parse_u32(const char *s, const char **end, uint32_t *out)
{
	if (!isdigit((unsigned char)*s))
		return GROVE_EINVAL;
	unsigned long long v = 0;
	while (isdigit((unsigned char)*s)) {
		v = v * 10 + (unsigned)(*s - '0');
		if (v > UINT32_MAX)
			return GROVE_ERANGE;
		s++;
	}
	*out = (uint32_t)v;
	*end = s;
	return 0;
}

/* "lan|wan latency D bandwidth R" (either order, each at most once,
 * missing ones are 0). */
static int
parse_link(cl_parser *ps, char **tok, int ntok)
{
	grove_cluster_map *m = ps->m;
	int is_lan = !strcmp(tok[0], "lan");
	int *seen = is_lan ? &m->lan_line : &m->wan_line;
	if (*seen)
		return fail(ps, "'%s' given twice (first at line %d)", tok[0],
		    *seen);
	grove_link_params p = {0, 0};
	int have_lat = 0, have_bw = 0;
	if (ntok != 3 && ntok != 5)
		return fail(ps, "expected '%s latency DURATION bandwidth RATE'",
		    tok[0]);
	for (int i = 1; i + 1 < ntok; i += 2) {
		if (!strcmp(tok[i], "latency") && !have_lat) {
			if (parse_quantity(tok[i + 1], duration_units,
			    &p.latency_s) != 0)
				return fail(ps, "bad latency '%s' (a number with "
				    "s, ms, us or ns, e.g. 10ms)", tok[i + 1]);
			have_lat = 1;
		} else if (!strcmp(tok[i], "bandwidth") && !have_bw) {
			if (parse_quantity(tok[i + 1], rate_units,
			    &p.bandwidth_Bps) != 0)
				return fail(ps, "bad bandwidth '%s' (a number with "
				    "B/s, KB/s, MB/s, GB/s, KiB/s, MiB/s, GiB/s or "
				    "bit/s, kbit/s, Mbit/s, Gbit/s, e.g. 1MB/s)",
				    tok[i + 1]);
			have_bw = 1;
		} else {
			return fail(ps, "unexpected '%s' (expected latency or "
			    "bandwidth, each once)", tok[i]);
		}
	}
	*seen = ps->line;
	return grove_cluster_map_set_link(m, is_lan ? GROVE_LINK_LAN :
	    GROVE_LINK_WAN, &p) == 0 ? 0 : fail(ps, "bad link parameters");
}

/* "cluster ID nodes A[-B][,C[-D]]..." (the node list may also be split
 * over several tokens). */
static int
parse_cluster(cl_parser *ps, char **tok, int ntok)
{
	uint32_t id;
	const char *e;
	if (ntok < 4 || strcmp(tok[2], "nodes"))
		return fail(ps, "expected 'cluster ID nodes FIRST-LAST[,...]'");
	if (parse_u32(tok[1], &e, &id) != 0 || *e)
		return fail(ps, "bad cluster id '%s'", tok[1]);
	for (int t = 3; t < ntok; t++) {
		const char *s = tok[t];
		while (*s) {
			uint32_t a, b;
			if (parse_u32(s, &e, &a) != 0)
				return fail(ps, "bad node range at '%s'", s);
			b = a;
			if (*e == '-' && parse_u32(e + 1, &e, &b) != 0)
				return fail(ps, "bad node range at '%s'", s);
			if (*e && *e != ',')
				return fail(ps, "bad node range at '%s'", s);
			if (a > b)
				return fail(ps, "node range %u-%u is empty", a, b);
			const cl_range *c = NULL;
			uint32_t node = 0;
			int rc = add_range(ps->m, id, a, b, ps->line, &c, &node);
			if (rc == GROVE_EINVAL && c)
				return fail(ps, "node %u is already in cluster %u "
				    "(line %d)", node, c->cluster, c->line);
			if (rc == GROVE_ERANGE)
				return fail(ps, "more than %u node ranges",
				    CL_MAX_RANGES);
			if (rc != 0)
				return rc;
			s = *e ? e + 1 : e;
		}
	}
	return 0;
}

#define CL_MAX_TOKENS 64

static int
parse_line(cl_parser *ps, char *line)
{
	char *hash = strchr(line, '#');
	if (hash)
		*hash = 0;
	char *tok[CL_MAX_TOKENS], *save = NULL;
	int ntok = 0;
	for (char *s = strtok_r(line, " \t\r\f\v", &save); s;
	    s = strtok_r(NULL, " \t\r\f\v", &save)) {
		if (ntok == CL_MAX_TOKENS)
			return fail(ps, "too many words (at most %d)",
			    CL_MAX_TOKENS);
		tok[ntok++] = s;
	}
	if (ntok == 0)
		return 0;
	if (!strcmp(tok[0], "lan") || !strcmp(tok[0], "wan"))
		return parse_link(ps, tok, ntok);
	if (!strcmp(tok[0], "cluster"))
		return parse_cluster(ps, tok, ntok);
	return fail(ps, "unknown statement '%s' (expected lan, wan or cluster)",
	    tok[0]);
}

int
grove_cluster_map_parse_string(const char *text, grove_cluster_map **out,
    char *err, size_t errlen)
{
	if (!text || !out)
		return GROVE_EINVAL;
	*out = NULL;
	if (err && errlen)
		err[0] = 0;
	cl_parser ps = {NULL, 0, err, errlen};
	int rc = grove_cluster_map_new(&ps.m);
	if (rc != 0)
		return rc;
	const char *p = text;
	while (*p && rc == 0) {
		const char *nl = strchr(p, '\n');
		size_t ll = nl ? (size_t)(nl - p) : strlen(p);
		ps.line++;
		char *line = malloc(ll + 1);
		if (!line) {
			rc = GROVE_ENOMEM;
			break;
		}
		memcpy(line, p, ll);
		line[ll] = 0;
		rc = parse_line(&ps, line);
		free(line);
		p += ll + (nl ? 1 : 0);
	}
	if (rc != 0) {
		grove_cluster_map_destroy(ps.m);
		return rc;
	}
	*out = ps.m;
	return 0;
}

int
grove_cluster_map_parse_file(const char *path, grove_cluster_map **out,
    char *err, size_t errlen)
{
	if (!path || !out)
		return GROVE_EINVAL;
	char *buf = NULL, why[256];
	size_t n = 0;
	int rc = core_read_file(path, 0, &buf, &n, why, sizeof why);
	if (rc != 0)
		snprintf(err, errlen, "%s: %s", path, why);
	if (rc == 0) {
		if (memchr(buf, 0, n)) {
			snprintf(err, errlen, "%s: not a text file", path);
			rc = GROVE_ETOPO;
		} else {
			char msg[512];
			rc = grove_cluster_map_parse_string(buf, out, msg, sizeof msg);
			/* "line 4: why" becomes "path:4: why". */
			if (rc != 0 && !strncmp(msg, "line ", 5))
				snprintf(err, errlen, "%s:%s", path, msg + 5);
			else if (rc != 0)
				snprintf(err, errlen, "%s: %s", path, msg);
		}
	}
	free(buf);
	return rc;
}

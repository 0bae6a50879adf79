/* Reading, writing and printing P-LogP parameter files.
 *
 *   grove-logp 1
 *   class lan
 *   L 15.2
 *   # bytes  os   or   g    w
 *   1        1.1  1.3  2.0  9.5
 *
 *   crowd 32 1024 24.1      w with 32 processes per core (optional)
 *
 * One statement per line; '#' starts a comment.  The header comes first;
 * an optional "cores N" anywhere after it; one section per link class ("class NAME" followed by exactly one
 * "L" line and one or more sample lines, in any order).  Every error names
 * the line it was found on.  Times (L, os, or, g, w) are microseconds in
 * [0, LOGP_MAX_TIME_US]: no measurement takes longer, and the model's sums
 * and products of such values stay far from overflowing.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/textfile.h"
#include "model/model_impl.h"

#define LOGP_MAGIC "grove-logp"
#define LOGP_VERSION 1
/* A statement is short; longer lines are malformed, not data to keep. */
#define LOGP_MAX_LINE 512
/* Files bigger than this are not parameter files. */
#define LOGP_MAX_FILE (1 << 20)
/* 10^15 microseconds = 32 years.  The largest sample, 2^47 bytes, takes
 * 1.4e14 us over the paper's 1 MB/s WAN, so slow links at large sizes
 * fit; a larger time is a typo or garbage, and 1e300 would make the
 * predictions overflow to inf and NaN. */
#define LOGP_MAX_TIME_US 1e15
#define LOGP_MAX_TIME_TEXT "1e15"

struct section {
	int cls;        /* -1 before the first "class" line */
	unsigned line;  /* where it started */
	int have_L;
	double L;
	size_t n;
	grove_logp_sample s[GROVE_LOGP_MAX_SAMPLES];
	size_t ncrowds; /* "crowd K SIZE W" rows, K and SIZE increasing */
	struct logp_crowd crowd[GROVE_LOGP_MAX_CROWDS];
};

/* Splits a line into at most `max` whitespace-separated tokens; returns
 * how many there were (max + 1 means too many). */
static int
tokenize(char *line, char **tok, int max)
{
	int n = 0;
	char *p = line;

	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\r')
			p++;
		if (!*p)
			return n;
		if (n == max)
			return max + 1;
		tok[n++] = p;
		while (*p && *p != ' ' && *p != '\t' && *p != '\r')
			p++;
		if (*p)
			*p++ = '\0';
	}
}

static int
parse_time(const char *s, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	return end != s && !*end && !errno && isfinite(*out) && *out >= 0 &&
	    *out <= LOGP_MAX_TIME_US ? 0 : -1;
}

static int
parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (*end || errno)
		return -1;
	*out = v;
	return 0;
}

/* Ends the current section: it needs its L and at least one sample. */
static int
finish_section(grove_logp_params *p, struct section *sec, char *err,
    size_t errlen)
{
	const char *name;
	int rc;

	if (sec->cls < 0)
		return 0;
	name = grove_logp_class_name((grove_logp_class)sec->cls);
	if (!sec->have_L) {
		errfmt(err, errlen, "line %u: class '%s' has no 'L' line",
		    sec->line, name);
		return GROVE_EINVAL;
	}
	if (sec->n == 0) {
		errfmt(err, errlen, "line %u: class '%s' has no samples",
		    sec->line, name);
		return GROVE_EINVAL;
	}
	/* Every rule was checked line by line; these cannot fail. */
	rc = grove_logp_params_set_class(p, (grove_logp_class)sec->cls,
	    sec->L, sec->s, sec->n, err, errlen);
	for (size_t i = 0; !rc && i < sec->ncrowds; i++)
		rc = grove_logp_params_set_crowd(p, (grove_logp_class)sec->cls,
		    sec->crowd[i].K, sec->crowd[i].s, sec->crowd[i].n, err,
		    errlen);
	return rc;
}

/* "crowd K SIZE W": w at SIZE with K processes per core.  The rows of
 * one K are consecutive, K and SIZE increasing. */
static int
parse_crowd(struct section *sec, char **tok, int ntok, unsigned line,
    char *err, size_t errlen)
{
	struct logp_crowd *cr;
	uint64_t K, sz;
	double w;

	if (sec->cls < 0) {
		errfmt(err, errlen, "line %u: 'crowd' before any 'class' "
		    "line", line);
		return GROVE_EINVAL;
	}
	if (ntok != 4 || parse_size(tok[1], &K) || K < 2 ||
	    K > GROVE_LOGP_MAX_CROWD_K || parse_size(tok[2], &sz) ||
	    parse_time(tok[3], &w)) {
		errfmt(err, errlen, "line %u: expected 'crowd K SIZE W' (K "
		    "in [2, %u], W microseconds in [0, " LOGP_MAX_TIME_TEXT "])",
		    line,
		    GROVE_LOGP_MAX_CROWD_K);
		return GROVE_EINVAL;
	}
	if (sz == 0 || (sz & (sz - 1)) ||
	    sz > (UINT64_C(1) << (GROVE_LOGP_MAX_SAMPLES - 1))) {
		errfmt(err, errlen, "line %u: size '%.40s' is not a power of "
		    "two in [1, 2^%d]", line, tok[2],
		    GROVE_LOGP_MAX_SAMPLES - 1);
		return GROVE_EINVAL;
	}
	cr = sec->ncrowds ? &sec->crowd[sec->ncrowds - 1] : NULL;
	if (cr && K < cr->K) {
		errfmt(err, errlen, "line %u: crowd %llu after %u: K must "
		    "increase", line, (unsigned long long)K, cr->K);
		return GROVE_EINVAL;
	}
	if (!cr || K > cr->K) {
		if (sec->ncrowds == GROVE_LOGP_MAX_CROWDS) {
			errfmt(err, errlen, "line %u: more than %d crowds "
			    "in one class", line, GROVE_LOGP_MAX_CROWDS);
			return GROVE_EINVAL;
		}
		cr = &sec->crowd[sec->ncrowds++];
		cr->K = (uint32_t)K;
		cr->n = 0;
	}
	if (cr->n > 0 && sz <= cr->s[cr->n - 1].size) {
		errfmt(err, errlen, "line %u: crowd %u: size %llu after %llu: "
		    "sizes must increase", line, cr->K, (unsigned long long)sz,
		    (unsigned long long)cr->s[cr->n - 1].size);
		return GROVE_EINVAL;
	}
	if (cr->n == GROVE_LOGP_MAX_SAMPLES) {
		errfmt(err, errlen, "line %u: crowd %u: more than %d "
		    "samples", line, cr->K, GROVE_LOGP_MAX_SAMPLES);
		return GROVE_EINVAL;
	}
	memset(&cr->s[cr->n], 0, sizeof cr->s[cr->n]);
	cr->s[cr->n].size = sz;
	cr->s[cr->n].w = w;
	cr->n++;
	return 0;
}

static int
parse_sample(struct section *sec, char **tok, int ntok, unsigned line,
    char *err, size_t errlen)
{
	grove_logp_sample smp;
	uint64_t sz;

	if (sec->cls < 0) {
		errfmt(err, errlen, "line %u: sample before any 'class' line",
		    line);
		return GROVE_EINVAL;
	}
	if (ntok != 4 && ntok != 5) {
		errfmt(err, errlen, "line %u: a sample is 'SIZE OS OR G "
		    "[W]' (4 or 5 numbers), found %s%d field%s", line,
		    ntok > 5 ? "more than " : "", ntok > 5 ? 5 : ntok,
		    ntok == 1 ? "" : "s");
		return GROVE_EINVAL;
	}
	if (parse_size(tok[0], &sz) || sz == 0 || (sz & (sz - 1)) ||
	    sz > (UINT64_C(1) << (GROVE_LOGP_MAX_SAMPLES - 1))) {
		errfmt(err, errlen, "line %u: size '%.40s' is not a power of "
		    "two in [1, 2^%d]", line, tok[0],
		    GROVE_LOGP_MAX_SAMPLES - 1);
		return GROVE_EINVAL;
	}
	if (sec->n > 0 && sz <= sec->s[sec->n - 1].size) {
		errfmt(err, errlen, "line %u: size %llu after %llu: sizes "
		    "must increase", line, (unsigned long long)sz,
		    (unsigned long long)sec->s[sec->n - 1].size);
		return GROVE_EINVAL;
	}
	if (sec->n == GROVE_LOGP_MAX_SAMPLES) {
		errfmt(err, errlen, "line %u: more than %d samples in "
		    "one class", line, GROVE_LOGP_MAX_SAMPLES);
		return GROVE_EINVAL;
	}
	smp.size = sz;
	smp.w = 0;
	if (parse_time(tok[1], &smp.os) || parse_time(tok[2], &smp.or_) ||
	    parse_time(tok[3], &smp.g) || (ntok == 5 &&
	    parse_time(tok[4], &smp.w))) {
		errfmt(err, errlen, "line %u: os, or, g and w must be finite "
		    "numbers in [0, " LOGP_MAX_TIME_TEXT "] (microseconds)",
		    line);
		return GROVE_EINVAL;
	}
	sec->s[sec->n++] = smp;
	return 0;
}

static int
parse_statement(grove_logp_params *p, struct section *sec, int *have_header,
    int *have_cores, char **tok, int ntok, unsigned line, char *err,
    size_t errlen)
{
	grove_logp_class c;
	int rc;

	if (!*have_header) {
		if (ntok != 2 || strcmp(tok[0], LOGP_MAGIC)) {
			errfmt(err, errlen, "line %u: expected the header "
			    "'" LOGP_MAGIC " %d'", line, LOGP_VERSION);
			return GROVE_EINVAL;
		}
		if (strcmp(tok[1], "1")) {
			errfmt(err, errlen, "line %u: unsupported format "
			    "version '%.20s' (this reads %d)", line, tok[1],
			    LOGP_VERSION);
			return GROVE_EINVAL;
		}
		*have_header = 1;
		return 0;
	}
	if (!strcmp(tok[0], "class")) {
		if (ntok != 2 || grove_logp_class_parse(tok[1], &c)) {
			errfmt(err, errlen, "line %u: expected 'class host', "
			    "'class lan' or 'class wan'", line);
			return GROVE_EINVAL;
		}
		rc = finish_section(p, sec, err, errlen);
		if (rc)
			return rc;
		if (grove_logp_params_has(p, c)) {
			errfmt(err, errlen, "line %u: class '%s' appears "
			    "twice", line, tok[1]);
			return GROVE_EINVAL;
		}
		memset(sec, 0, sizeof *sec);
		sec->cls = (int)c;
		sec->line = line;
		return 0;
	}
	if (!strcmp(tok[0], "cores")) {
		uint64_t n = 0;

		if (*have_cores) {
			errfmt(err, errlen, "line %u: second 'cores' line",
			    line);
			return GROVE_EINVAL;
		}
		if (ntok != 2 || parse_size(tok[1], &n) || n == 0 ||
		    n > GROVE_LOGP_MAX_CORES) {
			errfmt(err, errlen, "line %u: expected 'cores N' "
			    "(a whole number in [1, %u])", line,
			    GROVE_LOGP_MAX_CORES);
			return GROVE_EINVAL;
		}
		*have_cores = 1;
		return grove_logp_params_set_cores(p, (uint32_t)n);
	}
	if (!strcmp(tok[0], "L")) {
		if (sec->cls < 0) {
			errfmt(err, errlen, "line %u: 'L' before any 'class' "
			    "line", line);
			return GROVE_EINVAL;
		}
		if (sec->have_L) {
			errfmt(err, errlen, "line %u: second 'L' in class "
			    "'%s'", line,
			    grove_logp_class_name((grove_logp_class)sec->cls));
			return GROVE_EINVAL;
		}
		if (ntok != 2 || parse_time(tok[1], &sec->L)) {
			errfmt(err, errlen, "line %u: expected 'L "
			    "MICROSECONDS' (a finite number in [0, "
			    LOGP_MAX_TIME_TEXT "])", line);
			return GROVE_EINVAL;
		}
		sec->have_L = 1;
		return 0;
	}
	if (!strcmp(tok[0], "crowd"))
		return parse_crowd(sec, tok, ntok, line, err, errlen);
	if (tok[0][0] >= '0' && tok[0][0] <= '9')
		return parse_sample(sec, tok, ntok, line, err, errlen);
	errfmt(err, errlen, "line %u: unknown statement '%.40s' (expected "
	    "'class', 'L', 'cores', 'crowd' or a sample)", line, tok[0]);
	return GROVE_EINVAL;
}

int
grove_logp_params_parse_string(const char *text, grove_logp_params **out,
    char *err, size_t errlen)
{
	grove_logp_params *p = NULL;
	struct section *sec;
	char buf[LOGP_MAX_LINE + 1];
	char *tok[5];
	int have_header = 0, have_cores = 0, rc;
	unsigned line = 0;
	const char *s = text;

	if (!text || !out) {
		errfmt(err, errlen, "invalid argument");
		return GROVE_EINVAL;
	}
	*out = NULL;
	sec = calloc(1, sizeof *sec);
	rc = grove_logp_params_create(&p);
	if (!sec || rc) {
		free(sec);
		grove_logp_params_destroy(p);
		errfmt(err, errlen, "out of memory");
		return GROVE_ENOMEM;
	}
	sec->cls = -1;
	while (*s) {
		const char *nl = strchr(s, '\n');
		size_t len = nl ? (size_t)(nl - s) : strlen(s);
		char *hash;
		int ntok;

		line++;
		if (len > LOGP_MAX_LINE) {
			errfmt(err, errlen, "line %u: longer than %d "
			    "characters", line, LOGP_MAX_LINE);
			rc = GROVE_EINVAL;
			goto out;
		}
		memcpy(buf, s, len);
		buf[len] = '\0';
		s += len + (nl != NULL);
		hash = strchr(buf, '#');
		if (hash)
			*hash = '\0';
		ntok = tokenize(buf, tok, 5);
		if (ntok == 0)
			continue;
		rc = parse_statement(p, sec, &have_header, &have_cores, tok,
		    ntok, line, err, errlen);
		if (rc)
			goto out;
	}
	if (!have_header) {
		errfmt(err, errlen, "line %u: no header (expected '"
		    LOGP_MAGIC " %d')", line ? line : 1, LOGP_VERSION);
		rc = GROVE_EINVAL;
		goto out;
	}
	rc = finish_section(p, sec, err, errlen);
	if (rc)
		goto out;
	if (!p->cls[0].present && !p->cls[1].present && !p->cls[2].present) {
		errfmt(err, errlen, "line %u: no 'class' section", line);
		rc = GROVE_EINVAL;
		goto out;
	}
out:
	free(sec);
	if (rc) {
		grove_logp_params_destroy(p);
		return rc;
	}
	*out = p;
	return 0;
}

int
grove_logp_params_load(const char *path, grove_logp_params **out, char *err,
    size_t errlen)
{
	char *text;
	size_t n;
	int rc;

	if (!path || !out) {
		errfmt(err, errlen, "invalid argument");
		return GROVE_EINVAL;
	}
	rc = core_read_file(path, LOGP_MAX_FILE, &text, &n, err, errlen);
	if (rc == GROVE_ERANGE) {
		errfmt(err, errlen, "larger than %d bytes: not a parameter "
		    "file", LOGP_MAX_FILE);
		return GROVE_EINVAL;
	}
	if (rc != 0)
		return rc;
	if (memchr(text, '\0', n)) {
		errfmt(err, errlen, "contains a NUL byte: not a parameter "
		    "file");
		rc = GROVE_EINVAL;
	} else {
		rc = grove_logp_params_parse_string(text, out, err, errlen);
	}
	free(text);
	return rc;
}

/* The shortest %g form that reads back as the same double. */
static void
put_num(FILE *f, double v)
{
	char buf[40];

	for (int prec = 6; prec <= 17; prec++) {
		snprintf(buf, sizeof buf, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	fputs(buf, f);
}

int
grove_logp_params_write(const grove_logp_params *p, FILE *f)
{
	if (!p || !f)
		return GROVE_EINVAL;
	fprintf(f, LOGP_MAGIC " %d\n", LOGP_VERSION);
	if (p->note) {
		const char *s = p->note;

		while (*s) {
			size_t len = strcspn(s, "\n");

			fprintf(f, "# %.*s\n", (int)len, s);
			s += len + (s[len] == '\n');
		}
	}
	fprintf(f, "# sizes in bytes, times in microseconds\n");
	if (p->cores)
		fprintf(f, "cores %u\n", p->cores);
	for (unsigned c = 0; c < GROVE_LOGP_NCLASSES; c++) {
		const struct logp_class_data *cd = &p->cls[c];
		int has_w = 0;

		if (!cd->present)
			continue;
		for (size_t i = 0; i < cd->n; i++)
			has_w |= cd->s[i].w != 0;
		fprintf(f, "\nclass %s\nL ", grove_logp_class_name(c));
		put_num(f, cd->L);
		fprintf(f, "\n# bytes os or g%s\n", has_w ? " w" : "");
		for (size_t i = 0; i < cd->n; i++) {
			fprintf(f, "%llu ", (unsigned long long)cd->s[i].size);
			put_num(f, cd->s[i].os);
			fputc(' ', f);
			put_num(f, cd->s[i].or_);
			fputc(' ', f);
			put_num(f, cd->s[i].g);
			if (has_w) {
				fputc(' ', f);
				put_num(f, cd->s[i].w);
			}
			fputc('\n', f);
		}
		if (cd->ncrowds)
			fprintf(f, "# crowd K bytes w: w with K processes "
			    "per core\n");
		for (size_t k = 0; k < cd->ncrowds; k++) {
			for (size_t i = 0; i < cd->crowd[k].n; i++) {
				fprintf(f, "crowd %u %llu ", cd->crowd[k].K,
				    (unsigned long long)cd->crowd[k].s[i].size);
				put_num(f, cd->crowd[k].s[i].w);
				fputc('\n', f);
			}
		}
	}
	return ferror(f) ? GROVE_ESYS : 0;
}

int
grove_logp_params_save(const grove_logp_params *p, const char *path,
    char *err, size_t errlen)
{
	FILE *f;
	int rc;

	if (!p || !path) {
		errfmt(err, errlen, "invalid argument");
		return GROVE_EINVAL;
	}
	f = fopen(path, "w");
	if (!f) {
		errfmt(err, errlen, "cannot create: %s", strerror(errno));
		return GROVE_ESYS;
	}
	rc = grove_logp_params_write(p, f);
	if (fclose(f) && !rc)
		rc = GROVE_ESYS;
	if (rc)
		errfmt(err, errlen, "write failed: %s", strerror(errno));
	return rc;
}

int
grove_logp_params_print_table(const grove_logp_params *p, FILE *f)
{
	if (!p || !f)
		return GROVE_EINVAL;
	for (unsigned c = 0; c < GROVE_LOGP_NCLASSES; c++) {
		const struct logp_class_data *cd = &p->cls[c];

		if (!cd->present)
			continue;
		fprintf(f, "class %s: L = %.3f us\n", grove_logp_class_name(c),
		    cd->L);
		fprintf(f, "  %12s %12s %12s %12s %12s %10s\n", "bytes",
		    "os(us)", "or(us)", "g(us)", "r=L+g(us)", "MB/s");
		for (size_t i = 0; i < cd->n; i++) {
			const grove_logp_sample *s = &cd->s[i];

			/* bytes per microsecond = 10^6 bytes per second */
			fprintf(f, "  %12llu %12.3f %12.3f %12.3f %12.3f ",
			    (unsigned long long)s->size, s->os, s->or_, s->g,
			    cd->L + s->g);
			if (s->g > 0)
				fprintf(f, "%10.2f\n", (double)s->size / s->g);
			else
				fprintf(f, "%10s\n", "-");
		}
	}
	return ferror(f) ? GROVE_ESYS : 0;
}

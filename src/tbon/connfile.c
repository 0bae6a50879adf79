#include "tbon/connfile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/wire.h"
#include "grove/error.h"

/* One line of the text, without its newline. */
typedef struct cf_line {
	const char *p;
	size_t n;
} cf_line;

/* A decimal number of at most max, then a blank or the line's end.
 * Advances *s past it and the blanks after it. */
static int
take_u32(const char **s, const char *end, uint32_t max, uint32_t *out)
{
	const char *p = *s;
	uint64_t v = 0;
	if (p == end || *p < '0' || *p > '9')
		return -1;
	for (; p < end && *p >= '0' && *p <= '9'; p++) {
		v = v * 10 + (uint64_t)(*p - '0');
		if (v > max)
			return -1;
	}
	if (p < end && *p != ' ' && *p != '\t')
		return -1;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	*s = p;
	*out = (uint32_t)v;
	return 0;
}

/* A word of printable characters that fits cap (with its NUL). */
static int
take_word(const char **s, const char *end, char *out, size_t cap)
{
	const char *p = *s;
	size_t n = 0;
	while (p + n < end && p[n] > ' ' && p[n] < 127)
		n++;
	if (n == 0 || n >= cap || (p + n < end && p[n] != ' ' && p[n] != '\t'))
		return -1;
	memcpy(out, p, n);
	out[n] = 0;
	p += n;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	*s = p;
	return 0;
}

static int
is_hex64(const char *s)
{
	if (strlen(s) != 64)
		return 0;
	for (; *s; s++)
		if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f') ||
		    (*s >= 'A' && *s <= 'F')))
			return 0;
	return 1;
}

static int
bad(char *err, size_t errlen, unsigned lineno, const char *what)
{
	snprintf(err, errlen, "line %u: %s", lineno, what);
	return GROVE_EPROTO;
}

/* A record's rank and where it is, for finding repeated ranks. */
typedef struct cf_seen {
	uint32_t rank;
	unsigned lineno;
} cf_seen;

static int
cmp_seen(const void *a, const void *b)
{
	const cf_seen *x = a, *y = b;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->lineno < y->lineno ? -1 : x->lineno > y->lineno;
}

/* The parsed fields of a record line, or -1 when the line is not one. */
static int
parse_record(const char *s, const char *end, uint32_t *rank, char *host,
    size_t hostcap, uint32_t *port, uint32_t *parent, uint32_t *node)
{
	if (take_u32(&s, end, UINT32_MAX, rank) != 0 ||
	    take_word(&s, end, host, hostcap) != 0 ||
	    take_u32(&s, end, 65535, port) != 0 ||
	    take_u32(&s, end, UINT32_MAX, parent) != 0 ||
	    take_u32(&s, end, UINT32_MAX, node) != 0 || s != end)
		return -1;
	return 0;
}

/* Calls fn(arg, line, lineno) for each line of text[0, len), without its
 * newline or a CR before it; stops at the first non-zero return. */
static int
each_line(const char *text, size_t len,
    int (*fn)(void *arg, cf_line ln, unsigned lineno), void *arg)
{
	unsigned lineno = 0;
	const char *end_all = text + len;
	for (const char *p = text; p < end_all;) {
		const char *nl = memchr(p, '\n', (size_t)(end_all - p));
		const char *end = nl ? nl : end_all;
		const char *start = p;
		p = nl ? nl + 1 : end_all;
		/* A file that went through another system's editor or mailer
		 * ends its lines in CR LF. */
		if (end > start && end[-1] == '\r')
			end--;
		cf_line ln = {start, (size_t)(end - start)};
		int rc = fn(arg, ln, ++lineno);
		if (rc != 0)
			return rc;
	}
	return 0;
}

/* The state of one connfile_find. */
typedef struct cf_scan {
	uint32_t rank;
	connfile_record rec;
	int have_secret, have_backends, found;
	unsigned records;
	uint32_t max_rank;      /* the highest rank of any record, */
	unsigned max_line;      /* and where it is */
	/* Ranks so far strictly increasing, as the front-end writes them:
	 * then a repeat is the previous rank, seen at once. */
	int ascending;
	uint32_t last_rank;
	unsigned last_line;
	char *err;
	size_t errlen;
} cf_scan;

static int
scan_line(void *arg, cf_line ln, unsigned lineno)
{
	cf_scan *sc = arg;
	connfile_record *rec = &sc->rec;
	const char *s = ln.p, *end = ln.p + ln.n;
	if (memchr(ln.p, 0, ln.n))
		return bad(sc->err, sc->errlen, lineno, "NUL byte");
	if (ln.n == 0 || *s == '#')
		return 0;
	if (ln.n > 7 && !memcmp(s, "secret ", 7)) {
		s += 7;
		if (take_word(&s, end, rec->secret_hex,
		    sizeof rec->secret_hex) != 0 || s != end ||
		    !is_hex64(rec->secret_hex))
			return bad(sc->err, sc->errlen, lineno,
			    "'secret' wants 64 hex digits");
		sc->have_secret = 1;
		return 0;
	}
	if (ln.n > 9 && !memcmp(s, "backends ", 9)) {
		s += 9;
		if (take_u32(&s, end, UINT32_MAX, &rec->backends) != 0 ||
		    s != end)
			return bad(sc->err, sc->errlen, lineno,
			    "'backends' wants a number");
		sc->have_backends = 1;
		return 0;
	}
	uint32_t r, port, parent, node;
	char host[sizeof rec->host];
	if (parse_record(s, end, &r, host, sizeof host, &port, &parent,
	    &node) != 0)
		return bad(sc->err, sc->errlen, lineno,
		    "expected 'secret HEX', 'backends N' or 'RANK HOST PORT "
		    "PARENT_NODE NODE' (port at most 65535)");
	if (sc->ascending && sc->records && r <= sc->last_rank) {
		if (r == sc->last_rank) {
			snprintf(sc->err, sc->errlen, "line %u: rank %u again "
			    "(first on line %u)", lineno, r, sc->last_line);
			return GROVE_EPROTO;
		}
		sc->ascending = 0; /* checked for repeats afterwards */
	}
	sc->last_rank = r;
	sc->last_line = lineno;
	if (!sc->records || r > sc->max_rank) {
		sc->max_rank = r;
		sc->max_line = lineno;
	}
	sc->records++;
	if (r == sc->rank && !sc->found) {
		sc->found = 1;
		memcpy(rec->host, host, sizeof host);
		rec->port = (uint16_t)port;
		rec->parent = parent;
		rec->node = node;
	}
	return 0;
}

/* The second pass over a file whose ranks are not in order: every
 * record's rank and line, sorted, so that a repeated rank is found
 * whatever its place. */
typedef struct cf_collect {
	cf_seen *seen;
	size_t n;
} cf_collect;

static int
collect_line(void *arg, cf_line ln, unsigned lineno)
{
	cf_collect *c = arg;
	const char *s = ln.p, *end = ln.p + ln.n;
	uint32_t r, port, parent, node;
	char host[sizeof ((connfile_record *)0)->host];
	/* The first pass accepted every line: what is not a record is a
	 * comment, a blank, 'secret' or 'backends'. */
	if (parse_record(s, end, &r, host, sizeof host, &port, &parent,
	    &node) == 0)
		c->seen[c->n++] = (cf_seen){r, lineno};
	return 0;
}

/* GROVE_EPROTO naming the line of the first repeat of a rank, if any. */
static int
check_repeats(const char *text, size_t len, unsigned records, char *err,
    size_t errlen)
{
	cf_collect c = {malloc((records ? records : 1) * sizeof *c.seen), 0};
	if (!c.seen) {
		snprintf(err, errlen, "out of memory checking %u records",
		    records);
		return GROVE_ENOMEM;
	}
	each_line(text, len, collect_line, &c);
	qsort(c.seen, c.n, sizeof *c.seen, cmp_seen);
	/* Of all repeats, the one that comes first in the file. */
	const cf_seen *second = NULL, *first = NULL;
	for (size_t i = 1; i < c.n; i++) {
		if (c.seen[i].rank == c.seen[i - 1].rank &&
		    (i < 2 || c.seen[i - 2].rank != c.seen[i].rank) &&
		    (!second || c.seen[i].lineno < second->lineno)) {
			second = &c.seen[i];
			first = &c.seen[i - 1];
		}
	}
	int rc = 0;
	if (second) {
		snprintf(err, errlen, "line %u: rank %u again (first on line "
		    "%u)", second->lineno, second->rank, first->lineno);
		rc = GROVE_EPROTO;
	}
	free(c.seen);
	return rc;
}

/* GROVE_EPROTO unless the first line is CONNFILE_FIRST_LINE with this
 * GROVE_PROTOCOL: naming both versions when the line gives another, or
 * saying the line is missing (a Grove before the number, protocol 1, or
 * a file written by hand). */
static int
check_protocol(const char *text, size_t len, char *err, size_t errlen)
{
	static const char head[] = CONNFILE_FIRST_LINE;
	const size_t hl = sizeof head - 1;
	const char *nl = memchr(text, '\n', len);
	const char *end = nl ? nl : text + len;
	if (end > text && end[-1] == '\r')
		end--;
	const char *s = text + hl + 1;
	uint32_t theirs = GROVE_PROTOCOL_FIRST;
	if ((size_t)(end - text) > hl && !memcmp(text, head, hl)) {
		if (text[hl] != ' ' ||
		    take_u32(&s, end, UINT32_MAX, &theirs) != 0 || s != end ||
		    theirs == 0)
			return bad(err, errlen, 1, "'" CONNFILE_FIRST_LINE "' "
			    "wants a protocol number");
	}
	if (theirs == GROVE_PROTOCOL)
		return 0;
	if (end == text && !nl) {
		snprintf(err, errlen, "the file is empty");
		return GROVE_EPROTO;
	}
	/* Without the line the file may be older or written by hand: say
	 * what it lacks, not that the versions surely differ. */
	if (theirs == GROVE_PROTOCOL_FIRST) {
		snprintf(err, errlen, "line 1: not '" CONNFILE_FIRST_LINE " %u' "
		    "(a file from a Grove before protocol %u, or written by "
		    "hand without that line)", GROVE_PROTOCOL,
		    GROVE_PROTOCOL_FIRST + 1);
		return GROVE_EPROTO;
	}
	snprintf(err, errlen, "written by Grove protocol %u, this back-end "
	    "speaks %u: install the same Grove version on every host", theirs,
	    GROVE_PROTOCOL);
	return GROVE_EPROTO;
}

int
connfile_find(const char *text, size_t len, uint32_t rank,
    connfile_record *out, char *err, size_t errlen)
{
	/* Before any other line: the rest may mean something else in
	 * another version. */
	int rc = check_protocol(text, len, err, errlen);
	if (rc != 0)
		return rc;
	cf_scan sc;
	memset(&sc, 0, sizeof sc);
	sc.rank = rank;
	sc.ascending = 1;
	sc.err = err;
	sc.errlen = errlen;
	rc = each_line(text, len, scan_line, &sc);
	if (rc != 0)
		return rc;
	if (!sc.have_secret) {
		snprintf(err, errlen, "no 'secret' line");
		return GROVE_EPROTO;
	}
	if (!sc.ascending &&
	    (rc = check_repeats(text, len, sc.records, err, errlen)) != 0)
		return rc;
	if (!sc.have_backends) {
		snprintf(err, errlen, "no 'backends' line");
		return GROVE_EPROTO;
	}
	/* A rank the network does not have: an edited or concatenated
	 * file, which could send a BE to the wrong parent. */
	if (sc.records && sc.max_rank >= sc.rec.backends) {
		snprintf(err, errlen, "line %u: rank %u, but 'backends' is %u",
		    sc.max_line, sc.max_rank, sc.rec.backends);
		return GROVE_EPROTO;
	}
	if (!sc.found) {
		snprintf(err, errlen, "no record for rank %u (%u records)", rank,
		    sc.records);
		return GROVE_ENOENT;
	}
	*out = sc.rec;
	return 0;
}

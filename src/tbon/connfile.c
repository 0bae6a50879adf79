#include "tbon/connfile.h"

#include <stdio.h>
#include <string.h>

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

int
connfile_find(const char *text, size_t len, uint32_t rank,
    connfile_record *out, char *err, size_t errlen)
{
	connfile_record rec;
	int have_secret = 0, found = 0;
	unsigned lineno = 0, records = 0;
	memset(&rec, 0, sizeof rec);
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
		lineno++;
		if (memchr(ln.p, 0, ln.n))
			return bad(err, errlen, lineno, "NUL byte");
		const char *s = ln.p;
		if (ln.n == 0 || *s == '#')
			continue;
		if (ln.n > 7 && !memcmp(s, "secret ", 7)) {
			s += 7;
			if (take_word(&s, end, rec.secret_hex,
			    sizeof rec.secret_hex) != 0 || s != end ||
			    !is_hex64(rec.secret_hex))
				return bad(err, errlen, lineno,
				    "'secret' wants 64 hex digits");
			have_secret = 1;
		} else if (ln.n > 9 && !memcmp(s, "backends ", 9)) {
			s += 9;
			if (take_u32(&s, end, UINT32_MAX, &rec.backends) != 0 ||
			    s != end)
				return bad(err, errlen, lineno,
				    "'backends' wants a number");
		} else {
			uint32_t r, port, parent, node;
			char host[sizeof rec.host];
			if (take_u32(&s, end, UINT32_MAX, &r) != 0 ||
			    take_word(&s, end, host, sizeof host) != 0 ||
			    take_u32(&s, end, 65535, &port) != 0 ||
			    take_u32(&s, end, UINT32_MAX, &parent) != 0 ||
			    take_u32(&s, end, UINT32_MAX, &node) != 0 || s != end)
				return bad(err, errlen, lineno,
				    "expected 'secret HEX', 'backends N' or 'RANK "
				    "HOST PORT PARENT_NODE NODE' (port at most "
				    "65535)");
			records++;
			if (r == rank && !found) {
				found = 1;
				memcpy(rec.host, host, sizeof host);
				rec.port = (uint16_t)port;
				rec.parent = parent;
				rec.node = node;
			}
		}
	}
	if (!have_secret) {
		snprintf(err, errlen, "no 'secret' line");
		return GROVE_EPROTO;
	}
	if (!found) {
		snprintf(err, errlen, "no record for rank %u (%u records)", rank,
		    records);
		return GROVE_ENOENT;
	}
	*out = rec;
	return 0;
}

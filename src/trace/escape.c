/* Collector names, layers and places come from tool code (any bytes but
 * NUL) and from segments on disk: the exporters write them through these
 * so that every output stays valid JSON or one line of text per record,
 * while names in any language come out as they were written. */
#include <stdio.h>

#include "trace/trace_impl.h"

/* Length of the well-formed UTF-8 sequence at p (1 for ASCII), or 0:
 * no overlong forms, no surrogates, nothing above U+10FFFF (RFC 3629). */
static size_t
utf8_len(const unsigned char *p)
{
	unsigned char c = p[0];
	if (c < 0x80)
		return 1;
	size_t n;
	unsigned lo = 0x80, hi = 0xbf; /* allowed range of the second byte */
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		if (c == 0xe0)
			lo = 0xa0;
		else if (c == 0xed)
			hi = 0x9f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		if (c == 0xf0)
			lo = 0x90;
		else if (c == 0xf4)
			hi = 0x8f;
	} else
		return 0;
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return n;
}

void
trace_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	/* Characters that need no escape go out in runs, one fwrite each:
	 * a call per character cost half the time of a large export. */
	const unsigned char *run = (const unsigned char *)s;
	const unsigned char *p = run;
	while (*p) {
		size_t n = utf8_len(p);
		if (n && *p != '"' && *p != '\\' && *p >= 0x20 && *p != 0x7f) {
			p += n;
			continue;
		}
		if (p > run)
			fwrite(run, 1, (size_t)(p - run), f);
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(f, "\\u%04x", *p);
		else
			fputs("\\ufffd", f); /* not UTF-8: the replacement */
		p++;
		run = p;
	}
	if (p > run)
		fwrite(run, 1, (size_t)(p - run), f);
	fputc('"', f);
}

const char *
trace_text_field(const char *s, char *out, size_t len)
{
	if (len == 0)
		return out;
	size_t o = 0;
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		size_t n = utf8_len(p);
		char esc[8];
		const char *piece = esc;
		size_t plen = 2;
		esc[0] = '\\';
		if (*p == '\\' || *p == '\t' || *p == '\n' || *p == '\r')
			esc[1] = *p == '\\' ? '\\' : *p == '\t' ? 't' :
			    *p == '\n' ? 'n' : 'r';
		else if (*p < 0x20 || *p == 0x7f || n == 0)
			plen = (size_t)snprintf(esc, sizeof esc, "\\x%02x", *p);
		else {
			piece = (const char *)p;
			plen = n;
		}
		if (o + plen >= len)
			break; /* only whole characters */
		for (size_t i = 0; i < plen; i++)
			out[o++] = piece[i];
		p += n && piece == (const char *)p ? n : 1;
	}
	out[o] = 0;
	return out;
}

size_t
trace_utf8_fit(const char *s, size_t max)
{
	size_t i = 0;
	const unsigned char *p = (const unsigned char *)s;
	while (p[i]) {
		size_t n = utf8_len(p + i);
		if (!n)
			n = 1; /* not UTF-8: a byte on its own */
		if (i + n > max)
			break;
		i += n;
	}
	return i;
}

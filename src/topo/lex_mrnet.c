/* The MRNet topology file scanner: see lex_mrnet.h. */
#include <stdio.h>
#include <string.h>

#include "topo/lex_mrnet.h"
#include "topo/topo_impl.h"

/* Separators that are not newlines: what MRNet's scanner skips as blanks
 * ([ \t]) or as unknown characters that are still layout (a CRLF file's
 * '\r', a form feed between pages, a vertical tab). */
static int
is_blank(int c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

/* Characters the format uses somewhere; anything else is refused. */
static int
is_known(int c)
{
	return topo_is_host_char(c) || is_blank(c) || c == '\n' || c == ':' ||
	    c == ';' || c == '=' || c == '>' || c == '#';
}

void
topo_lex_init(struct topo_lexer *lx, const char *text)
{
	lx->s = text;
	lx->pos = 0;
	lx->line = 1;
	/* A UTF-8 byte-order mark some editors write: MRNet's scanner skips
	 * its bytes, and it is not the user's text. */
	if (!strncmp(text, "\xEF\xBB\xBF", 3))
		lx->pos = 3;
}

size_t
topo_bad_len(const char *s)
{
	size_t n = 0;

	while (n < 40 && s[n] && !is_blank((unsigned char)s[n]) &&
	    s[n] != '\n')
		n++;
	return n;
}

const char *
topo_quote(const char *s, size_t n, char *buf, size_t len)
{
	size_t o = 0;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		char e[5];
		const char *nm = c == '\t' ? "\\t" : c == '\n' ? "\\n" :
		    c == '\r' ? "\\r" : c == '\f' ? "\\f" : c == '\v' ? "\\v" :
		    c == '\'' ? "\\'" : c == '\\' ? "\\\\" : NULL;
		size_t el;

		if (!nm && c >= 0x20 && c < 0x7f) {
			e[0] = (char)c;
			e[1] = '\0';
			nm = e;
		} else if (!nm) {
			snprintf(e, sizeof e, "\\x%02x", c);
			nm = e;
		}
		el = strlen(nm);
		/* Room for "..." and the NUL when cut. */
		if (o + el + 4 > len && i + 1 < n) {
			if (o + 4 <= len) {
				memcpy(buf + o, "...", 3);
				o += 3;
			}
			break;
		}
		if (o + el + 1 > len)
			break;
		memcpy(buf + o, nm, el);
		o += el;
	}
	buf[o] = '\0';
	return buf;
}

/* A character the format never uses, at s[at]: name it, with the
 * non-blank run around it for context. */
static int
unexpected(const struct topo_lexer *lx, size_t at, char *err, size_t errlen)
{
	size_t a = at, b = at + 1;
	char ch[8], ctx[200];

	while (a > 0 && at - a < 40 && !is_blank((unsigned char)lx->s[a - 1]) &&
	    lx->s[a - 1] != '\n')
		a--;
	while (b - at < 40 && lx->s[b] && !is_blank((unsigned char)lx->s[b]) &&
	    lx->s[b] != '\n')
		b++;
	topo_quote(lx->s + at, 1, ch, sizeof ch);
	if (b - a == 1)
		errfmt(err, errlen, "line %u: unexpected character '%s'",
		    lx->line, ch);
	else
		errfmt(err, errlen, "line %u: unexpected character '%s' in "
		    "'%s'", lx->line, ch, topo_quote(lx->s + a, b - a, ctx,
		    sizeof ctx));
	return GROVE_ETOPO;
}

int
topo_lex_next(struct topo_lexer *lx, struct topo_token *t, char *err,
    size_t errlen)
{
	const char *s = lx->s;
	unsigned char c;

	for (;;) {
		c = (unsigned char)s[lx->pos];
		if (c == '\n') {
			lx->line++;
			lx->pos++;
		} else if (is_blank(c)) {
			lx->pos++;
		} else if (c == '#') {
			while (s[lx->pos] && s[lx->pos] != '\n')
				lx->pos++;
		} else {
			break;
		}
	}
	t->start = s + lx->pos;
	t->line = lx->line;
	t->len = 1;
	if (!c) {
		t->kind = TOPO_TOK_EOF;
		t->len = 0;
		return 0;
	}
	if (!is_known(c))
		return unexpected(lx, lx->pos, err, errlen);
	if (c == ':' || c == ';') {
		t->kind = c == ':' ? TOPO_TOK_COLON : TOPO_TOK_SEMI;
		lx->pos++;
		return 0;
	}
	if (c == '=' && s[lx->pos + 1] == '>') {
		t->kind = TOPO_TOK_ARROW;
		t->len = 2;
		lx->pos += 2;
		return 0;
	}
	if (topo_is_host_char(c)) {
		size_t e = lx->pos;

		while (topo_is_host_char((unsigned char)s[e]))
			e++;
		c = (unsigned char)s[e];
		if (!c || is_blank(c) || c == '\n' || c == ':' || c == ';' ||
		    c == '=' || c == '#') {
			t->kind = TOPO_TOK_WORD;
			t->len = e - lx->pos;
			lx->pos = e;
			return 0;
		}
		if (!is_known(c))
			return unexpected(lx, e, err, errlen);
	}
	/* '>' alone, '=' without '>', or a word run into one of them. */
	t->kind = TOPO_TOK_BAD;
	t->len = topo_bad_len(t->start);
	for (size_t i = 0; i < t->len; i++)
		if (!is_known((unsigned char)t->start[i]))
			return unexpected(lx, lx->pos + i, err, errlen);
	lx->pos += t->len;
	return 0;
}

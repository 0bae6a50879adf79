/* The scanner of MRNet topology files (parse_mrnet.c is the grammar).
 *
 * Tokens are those of MRNet's own scanner (mrnet/src/scanner.l): a word
 * of host-name characters, ':', '=>' and ';'.  Blanks (space, tab,
 * carriage return, form feed, vertical tab) and '#' comments separate
 * tokens anywhere, so "vm : 0" is a node as in MRNet.  MRNet's scanner
 * also skips any other character it does not know (flex's default rule
 * echoes it); Grove refuses those instead, naming the character escaped,
 * because a control byte or a '@' in a topology file is a mistake, not
 * layout.
 */
#ifndef GROVE_TOPO_LEX_MRNET_H
#define GROVE_TOPO_LEX_MRNET_H

#include <stddef.h>
#include <stdint.h>

enum topo_tok {
	TOPO_TOK_EOF,
	TOPO_TOK_WORD,  /* [A-Za-z0-9._-]+: a host name or an instance */
	TOPO_TOK_COLON,
	TOPO_TOK_ARROW,
	TOPO_TOK_SEMI,
	TOPO_TOK_BAD    /* known characters in a wrong place ('->', '=x') */
};

struct topo_token {
	enum topo_tok kind;
	const char *start;
	size_t len;     /* TOPO_TOK_BAD: up to the next blank */
	uint32_t line;
};

struct topo_lexer {
	const char *s;
	size_t pos;
	uint32_t line;
};

void topo_lex_init(struct topo_lexer *lx, const char *text);

/* The next token.  0, or GROVE_ETOPO with "line N: unexpected character
 * '\x01' in 'vm:0\x01'" in err for a character the format never uses. */
int topo_lex_next(struct topo_lexer *lx, struct topo_token *t, char *err,
    size_t errlen);

/* s[0..n) for a message between single quotes: printable ASCII as is,
 * '\'' and '\\' with a backslash, \t \n \r \f \v by name, any other byte
 * as \xHH, so no raw control byte reaches a terminal.  Cut to fit len
 * (at least 5), never inside an escape.  Returns buf. */
const char *topo_quote(const char *s, size_t n, char *buf, size_t len);

/* The text of a bad token for a message: up to the next blank, at most
 * 40 bytes. */
size_t topo_bad_len(const char *s);

#endif

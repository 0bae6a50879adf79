#include "net/remote_cmd.h"

#include <stdlib.h>
#include <string.h>

#include "grove/error.h"

/* env sets the variable whatever the remote user's shell is (csh has no
 * VAR=value prefix).  The program is not given to env: env takes every
 * word with a '=' before the command for one more assignment, quoted or
 * not, so a program under a directory like "d=1" would never run (env
 * would print its environment and exit 0).  sh runs it instead, as $0 of
 * a fixed script, which no word can change. */
#define REMOTE_PREFIX "env GROVE_BOOTSTRAP=stdin /bin/sh -c 'exec \"$0\" \"$@\"'"

/* Bytes of word quoted, without the terminating NUL. */
static size_t
quoted_len(const char *word)
{
	size_t n = 2;
	for (const char *p = word; *p; p++)
		n += *p == '\'' ? 4 : 1;
	return n;
}

/* Writes word quoted at out (quoted_len(word) bytes, no NUL); returns the
 * end. */
static char *
quote_into(char *out, const char *word)
{
	*out++ = '\'';
	for (const char *p = word; *p; p++) {
		if (*p == '\'') {
			/* Close the quote, an escaped quote, open again. */
			memcpy(out, "'\\''", 4);
			out += 4;
		} else {
			*out++ = *p;
		}
	}
	*out++ = '\'';
	return out;
}

char *
remote_quote(const char *word)
{
	char *s = malloc(quoted_len(word) + 1);
	if (!s)
		return NULL;
	*quote_into(s, word) = '\0';
	return s;
}

char *
remote_command(const char *exe, char *const argv[])
{
	size_t n = strlen(REMOTE_PREFIX) + 1 + quoted_len(exe);
	for (size_t i = 1; argv && argv[0] && argv[i]; i++)
		n += 1 + quoted_len(argv[i]);
	char *s = malloc(n + 1);
	if (!s)
		return NULL;
	char *p = s;
	memcpy(p, REMOTE_PREFIX " ", strlen(REMOTE_PREFIX) + 1);
	p += strlen(REMOTE_PREFIX) + 1;
	p = quote_into(p, exe);
	for (size_t i = 1; argv && argv[0] && argv[i]; i++) {
		*p++ = ' ';
		p = quote_into(p, argv[i]);
	}
	*p = '\0';
	return s;
}

static int
is_blank(char c)
{
	return c == ' ' || c == '\t';
}

int
remote_shell_words(const char *rsh, char ***words)
{
	*words = NULL;
	size_t nw = 0;
	for (const char *p = rsh ? rsh : ""; *p; p++)
		if (!is_blank(*p) && (p == rsh || is_blank(p[-1])))
			nw++;
	if (nw == 0)
		return GROVE_EINVAL;
	/* The vector, then a copy of the text that the words point into. */
	size_t len = strlen(rsh);
	char **v = malloc((nw + 1) * sizeof *v + len + 1);
	if (!v)
		return GROVE_ENOMEM;
	char *text = (char *)(v + nw + 1);
	memcpy(text, rsh, len + 1);
	size_t k = 0;
	for (char *p = text; *p; p++) {
		if (is_blank(*p))
			*p = '\0';
		else if (p == text || p[-1] == '\0')
			v[k++] = p;
	}
	v[k] = NULL;
	*words = v;
	return 0;
}

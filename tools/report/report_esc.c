/* Text and numbers as HTML (see report.h).  Names, layers and places come
 * from the event spaces: any bytes. */
#include <stdint.h>
#include <string.h>

#include "report.h"

/* Length of the well-formed UTF-8 character at s (1..4), or 0. */
static size_t
utf8_len(const unsigned char *s)
{
	if (s[0] < 0x80)
		return 1;
	size_t n = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 :
	           s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 && s[0] < 0xe0 ? 2 : 0;
	if (!n || (n == 3 && s[0] >= 0xf0))
		return 0;
	for (size_t i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	/* Overlong, surrogates and above U+10FFFF. */
	if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0) ||
	    (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90))
		return 0;
	return n;
}

void
report_esc(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		size_t n = utf8_len(p);
		switch (n ? *p : 0) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default:
			if (!n || *p < 0x20 || *p == 0x7f)
				fputs("\xef\xbf\xbd", f); /* U+FFFD */
			else
				fwrite(p, 1, n, f);
		}
		p += n ? n : 1;
	}
}

void
report_us(FILE *f, double ns)
{
	fprintf(f, "%.3f", ns / 1000.0);
}
